"""User errors of irax.optim: each names the public function the user called (the
optimizer, not its inner transformation) and says what was expected and what came."""

from __future__ import annotations

import functools

import pytest

import irax
import irax.numpy as jnp
from irax import optim

P = {"w": jnp.ones((2, 2)), "b": jnp.ones(2)}
WRONG = {"w": jnp.ones((2, 2))}
STRUCTURE = (r"the updates have a different pytree structure than the state "
             r"\(expected PyTreeDef\(\{'b': \*, 'w': \*\}\), got PyTreeDef\(\{'w': \*\}\)\)")


@pytest.mark.parametrize("make, name", [
    (lambda: optim.adam(0.1), "adam"),
    (lambda: optim.sgd(0.1, momentum=0.9), "sgd"),
    (lambda: optim.rmsprop(0.1, centered=True), "rmsprop"),
    (lambda: optim.scale_by_adam(), "scale_by_adam"),
    (lambda: optim.MultiSteps(optim.adam(0.1), 2), "MultiSteps"),
])
def test_update_structure_mismatch(make, name):
    opt = make()
    with pytest.raises(ValueError, match=rf"^{name}\.update: {STRUCTURE}$"):
        opt.update(WRONG, opt.init(P))


def test_update_structure_mismatch_under_jit():
    opt = optim.adam(0.1)
    with pytest.raises(ValueError, match=rf"^adam\.update: {STRUCTURE}$"):
        irax.jit(opt.update)(WRONG, opt.init(P))


def test_update_needs_params():
    for make, name in ((lambda: optim.adamw(0.1), "adamw"), (lambda: optim.lamb(0.1), "lamb"),
                       (lambda: optim.adafactor(), "adafactor")):
        opt = make()
        with pytest.raises(ValueError, match=rf"^{name}\.update: this transformation needs "
                           r"the current parameters; got params=None"):
            opt.update(P, opt.init(P))


def test_params_structure_mismatch():
    opt = optim.adamw(0.1)
    with pytest.raises(ValueError, match=r"^adamw\.update: the updates have a different "
                       r"pytree structure than the params"):
        opt.update(P, opt.init(P), WRONG)


def test_init_rejects_integer_params():
    with pytest.raises(TypeError, match=r"^adam\.init: expected floating-point parameters, "
                       r"got int32 at \['w'\]$"):
        optim.adam(1e-3).init({"w": jnp.ones(2, jnp.int32), "b": jnp.ones(2)})
    with pytest.raises(TypeError, match=r"^trace\.init: expected floating-point parameters, "
                       r"got bool$"):
        optim.trace(0.9).init(jnp.ones(2, bool))


def test_schedule_must_return_a_scalar():
    opt = optim.adam(lambda count: jnp.ones(3) * 0.1)
    with pytest.raises(ValueError, match=r"^adam: the learning-rate schedule returned shape "
                       r"\(3,\); expected a scalar$"):
        opt.update(P, opt.init(P))
    with pytest.raises(ValueError, match=r"^adam: the learning-rate schedule returned shape"):
        irax.jit(opt.update)(P, opt.init(P))
    tx = optim.scale_by_schedule(lambda count: jnp.ones(2))
    with pytest.raises(ValueError, match=r"^scale_by_schedule: the schedule returned shape "
                       r"\(2,\); expected a scalar$"):
        tx.update(P, tx.init(P))


def test_wrong_state():
    opt = optim.adam(0.1)
    with pytest.raises(TypeError, match=r"^adam\.update: expected a ScaleByAdamState state "
                       r"\(the result of init\), got EmptyState$"):
        opt.update(P, optim.sgd(0.1).init(P))
    with pytest.raises(ValueError, match=r"^adam\.update: expected the state of 2 chained "
                       r"transformations \(the result of init\), got 1$"):
        opt.update(P, opt.init(P)[:1])


def test_construction_errors():
    with pytest.raises(TypeError, match=r"^chain: expected GradientTransformations, got int "
                       r"at position 1$"):
        optim.chain(optim.sgd(0.1), 3)
    with pytest.raises(TypeError, match=r"^masked: expected a GradientTransformation, got int$"):
        optim.masked(3, {})
    with pytest.raises(TypeError, match=r"^scale_by_schedule: expected a callable schedule, "
                       r"got float$"):
        optim.scale_by_schedule(0.1)
    with pytest.raises(TypeError, match=r"^sgd: expected a learning rate that is a number or "
                       r"a schedule, got '0.1'$"):
        optim.sgd("0.1")
    with pytest.raises(ValueError, match=r"^named_chain: expected unique names, got "
                       r"\['a', 'a'\]$"):
        optim.named_chain(("a", optim.sgd(0.1)), ("a", optim.sgd(0.1)))
    with pytest.raises(ValueError, match=r"^inject_hyperparams: static_args \['foo'\] are not "
                       r"all parameters of adam"):
        optim.inject_hyperparams(optim.adam, static_args="foo")
    with pytest.raises(ValueError, match=r"^MultiSteps: expected every_k_schedule >= 1, got 0$"):
        optim.MultiSteps(optim.adam(0.1), 0)
    with pytest.raises(TypeError, match=r"^MultiSteps: expected an int or a schedule for "
                       r"every_k_schedule, got 2.5$"):
        optim.MultiSteps(optim.adam(0.1), 2.5)
    with pytest.raises(TypeError, match=r"^partition: expected a dict of "
                       r"GradientTransformations, got list$"):
        optim.partition([optim.sgd(0.1)], {"w": 0, "b": 0})


def test_partition_label_without_transformation():
    opt = optim.multi_transform({"a": optim.sgd(1.0)}, {"w": "a", "b": "c"})
    with pytest.raises(ValueError, match=r"^multi_transform\.init: the labels \['c'\] have no "
                       r"transformation \(transforms: \['a'\]\)$"):
        opt.init(P)


def test_multi_steps_skip_function_must_return_a_boolean_scalar():
    ms = optim.MultiSteps(optim.sgd(0.1), 2,
                          should_skip_update_fn=lambda u, step, p: (jnp.ones(2) > 0, ()))
    with pytest.raises(ValueError, match=r"^MultiSteps\.update: expected "
                       r"should_skip_update_fn to return a boolean scalar, got bool\[2\]$"):
        ms.update(P, ms.init(P))


def test_clip_by_global_norm_needs_a_scalar():
    tx = optim.clip_by_global_norm(jnp.ones(2))
    with pytest.raises(ValueError, match=r"^clip_by_global_norm\.update: expected a scalar "
                       r"max_norm, got shape \(2,\)$"):
        tx.update(P, tx.init(P))


def test_apply_updates_structure_mismatch():
    with pytest.raises(ValueError, match=r"^apply_updates: the updates have a different "
                       r"pytree structure than the params"):
        optim.apply_updates(P, WRONG)


def test_errors_name_the_outermost_function_only_while_it_runs():
    inner = optim.scale_by_adam()
    opt = optim.chain(inner, optim.scale(-0.1))
    with pytest.raises(ValueError, match=r"^chain\.update: "):
        opt.update(WRONG, opt.init(P))
    with pytest.raises(ValueError, match=r"^scale_by_adam\.update: "):
        inner.update(WRONG, inner.init(P))
    skip = functools.partial(optim.skip_large_updates, max_squared_norm=1.0)
    assert optim.MultiSteps(optim.sgd(0.1), 2, should_skip_update_fn=skip).init(P) is not None
