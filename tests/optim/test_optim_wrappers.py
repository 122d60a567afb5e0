"""irax.optim's wrappers (inject_hyperparams, partition/multi_transform, masked,
MultiSteps, apply_if_finite) against real Optax 0.2.8 over 20 steps (see
transform_helpers), eagerly and under one ``irax.jit``-ed ``lax.scan``, in float32 and
float64; the ``*_nonfinite`` cases see infinite gradients at steps 3, 7 and 8."""

from __future__ import annotations

import functools

import jax
import numpy as np
import optax
import pytest
from tests.optim.transform_helpers import check_case, compare_group

import irax
import irax.numpy as jnp
from irax import optim

MASK = {"w": True, "nested": (False, True)}
LABELS = {"w": "adam", "nested": ("sgd", "adam")}
BAD_STEPS = (3, 7, 8)


def _lr(count):
    return 0.05 * 0.9 ** count


def _labels_by_rank(params):
    return jax.tree.map(lambda x: "adam" if x.ndim > 1 else "sgd", params)


def _vectors(params):
    return jax.tree.map(lambda x: x.ndim == 1, params)


def _groups(o):
    return {"adam": o.adam(0.05), "sgd": o.sgd(0.1, momentum=0.9)}


CASES = {
    "inject_adam": lambda o: o.inject_hyperparams(o.adam)(learning_rate=_lr, b1=0.8),
    "inject_sgd": lambda o: o.inject_hyperparams(o.sgd)(learning_rate=0.1, momentum=0.9),
    "inject_static": lambda o: o.inject_hyperparams(o.rmsprop, static_args="decay")(
        learning_rate=0.01, decay=0.8, momentum=0.5),
    "multi_transform": lambda o: o.multi_transform(_groups(o), LABELS),
    "partition_callable": lambda o: o.partition(_groups(o), _labels_by_rank),
    "masked": lambda o: o.chain(o.masked(o.trace(0.9), MASK), o.scale(-0.05)),
    "masked_callable": lambda o: o.masked(o.adam(0.05), _vectors),
    "multi_steps": lambda o: o.MultiSteps(o.adam(0.05), 3).gradient_transformation(),
    "multi_steps_sum": lambda o: o.MultiSteps(o.sgd(0.05, momentum=0.9), lambda step: 2,
                                              use_grad_mean=False).gradient_transformation(),
    "multi_steps_nonfinite": lambda o: o.MultiSteps(
        o.adam(0.05), 2, should_skip_update_fn=o.skip_not_finite).gradient_transformation(),
    "multi_steps_large": lambda o: o.MultiSteps(
        o.sgd(0.1), 2, should_skip_update_fn=functools.partial(
            o.skip_large_updates, max_squared_norm=30.0)).gradient_transformation(),
    "apply_if_finite_nonfinite": lambda o: o.apply_if_finite(o.sgd(0.1, momentum=0.9), 2),
}
BAD_FOR = ("multi_steps_nonfinite", "apply_if_finite_nonfinite")
JITTED = set(CASES)


def _make(name, lib):
    return CASES[name](lib)


@pytest.fixture(scope="module", params=[np.float32, np.float64], ids=["f32", "f64"])
def results(request):
    return request.param, compare_group(CASES, JITTED, request.param, _make,
                                        dict(bad_steps=BAD_STEPS), BAD_FOR)


@pytest.mark.parametrize("name", sorted(CASES))
def test_wrapper_matches_optax_eagerly(results, name):
    dtype, out = results
    check_case(out[name], dtype, "eager")


@pytest.mark.parametrize("name", sorted(CASES))
def test_wrapper_matches_optax_under_jit(results, name):
    dtype, out = results
    check_case(out[name], dtype, "jit")


def test_nonfinite_steps_were_skipped(results):
    dtype, out = results
    for name in BAD_FOR:
        traj = out[name]["jit"][0]
        assert all(np.isfinite(leaf).all() for leaf in traj), name
    state = out["apply_if_finite_nonfinite"]["jit"][1]
    assert int(state.total_notfinite) == len(BAD_STEPS)
    assert int(out["multi_steps_nonfinite"]["jit"][1].skip_state["num_not_finite"]) == 0


def test_inject_hyperparams_state_can_be_changed():
    opt = optim.inject_hyperparams(optim.sgd)(learning_rate=0.1)
    params = jnp.ones(2)
    state = opt.init(params)
    assert state.hyperparams["learning_rate"].dtype == np.float32
    state.hyperparams["learning_rate"] = jnp.asarray(0.5)
    updates, state = opt.update(jnp.ones(2), state, params)
    np.testing.assert_allclose(np.asarray(updates), [-0.5, -0.5])
    assert int(state.count) == 1


def test_inject_hyperparams_under_jit_with_vmap_over_learning_rates():
    opt = optim.inject_hyperparams(optim.adam)(learning_rate=0.1)
    params = {"w": jnp.ones(3)}
    state = opt.init(params)
    lrs = jnp.array([0.1, 0.01, 0.001])

    def step(lr):
        s = state._replace(hyperparams={**state.hyperparams, "learning_rate": lr})
        return opt.update({"w": jnp.array([1.0, -2.0, 3.0])}, s, params)[0]["w"]

    got = irax.jit(irax.vmap(step))(lrs)
    ox = optax.inject_hyperparams(optax.adam)(learning_rate=0.1)
    for i, lr in enumerate([0.1, 0.01, 0.001]):
        s = ox.init({"w": np.ones(3, np.float32)})
        s.hyperparams["learning_rate"] = np.float32(lr)
        want = ox.update({"w": np.array([1.0, -2.0, 3.0], np.float32)}, s)[0]["w"]
        np.testing.assert_allclose(np.asarray(got[i]), np.asarray(want), rtol=1e-6)


def test_grad_through_updates_wrt_learning_rate():
    """Meta-gradient: d(loss after 3 adam steps)/d(learning rate), against jax.grad."""
    def loss_after(lib, np_, lr):
        opt = lib.inject_hyperparams(lib.adam)(learning_rate=lr)
        p = {"w": np_.array([1.0, -2.0, 0.5])}
        s = opt.init(p)
        for _ in range(3):
            u, s = opt.update({"w": 2 * p["w"] + 1.0}, s, p)
            p = lib.apply_updates(p, u)
        return np_.sum(p["w"] ** 2)

    got = irax.grad(functools.partial(loss_after, optim, jnp))(0.1)
    want = jax.grad(functools.partial(loss_after, optax, jax.numpy))(0.1)
    np.testing.assert_allclose(float(got), float(want), rtol=1e-5)


def test_multi_steps_has_updated():
    ms = optim.MultiSteps(optim.sgd(1.0), every_k_schedule=2)
    s = ms.init(jnp.zeros(1))
    seen = []
    for g in (1.0, 3.0, 5.0):
        u, s = ms.update(jnp.array([g]), s)
        seen.append((float(u[0]), bool(ms.has_updated(s))))
    assert seen == [(0.0, False), (-2.0, True), (0.0, False)]
    assert ms.inner_opt is not None


# two lax.cond failures found while testing irax.optim (IREE's, worked around in
# irax-legalize-iree); apply_if_finite and MultiSteps use lax.cond as Optax does

def test_cond_passing_three_arguments_through():
    """A jitted cond whose branch passes three arguments through failed in IREE's runtime
    ("ref is null ... hal.buffer_view.create"): lowering/case_passthrough.py."""
    x = jnp.ones(3)
    got = irax.jit(lambda a, b, c, n: irax.lax.cond(
        n >= 0, lambda: (a + 1, b + 1, c + 1), lambda: (a, b, c)))(x, x, x, 1.0)
    np.testing.assert_allclose(np.asarray(got[2]), [2.0, 2.0, 2.0])


def test_cond_in_scan():
    """A cond computing on two carries or passing them through, inside a jitted scan,
    failed in IREE's runtime (command_buffer_validation OUT_OF_RANGE), fixed with the
    same rewrite (lowering/case_passthrough.py)."""
    def run(p, xs):
        def body(c, n):
            p, m = c
            u, m = irax.lax.cond(n >= 0, lambda: ([a + 0.9 * b for a, b in zip(p, m)],) * 2,
                                 lambda: ([jnp.zeros_like(a) for a in p], m))
            return ([a - b for a, b in zip(p, u)], m), None
        return irax.lax.scan(body, (p, [jnp.zeros_like(a) for a in p]), xs)[0]

    got = irax.jit(run)([jnp.ones(3), jnp.ones(3)], jnp.array([0.0, -1.0, 0.0]))
    np.testing.assert_allclose(np.asarray(got[0][0]), [-0.9, -0.9, -0.9], rtol=1e-6)
