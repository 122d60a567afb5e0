"""irax.optim's optimizers against real Optax 0.2.8 over 20 steps (see transform_helpers):
every configuration eagerly, one configuration per optimizer inside one ``irax.jit``-ed
``lax.scan``, in float32 and float64; every step's params, the final state's leaves and
its pytree structure (class names, fields, dtypes) are compared."""

from __future__ import annotations

import jax
import numpy as np
import optax
import pytest
from tests.optim.transform_helpers import check_case, compare_group

import irax
import irax.numpy as jnp
from irax import optim

MASK = {"w": True, "nested": (False, True)}


def _lr(count):
    return 0.05 * 0.9 ** count


def _ndim_mask(params):
    return jax.tree.map(lambda x: x.ndim > 1, params)


#: name -> (factory, kwargs); both libraries get the same arguments
CASES = {
    "sgd": ("sgd", dict(learning_rate=0.05)),
    "sgd_momentum": ("sgd", dict(learning_rate=0.05, momentum=0.9)),
    "sgd_nesterov_schedule": ("sgd", dict(learning_rate=_lr, momentum=0.8, nesterov=True)),
    "adam": ("adam", dict(learning_rate=0.05)),
    "adam_schedule": ("adam", dict(learning_rate=_lr, b1=0.8, eps_root=1e-8)),
    "nadam": ("nadam", dict(learning_rate=0.05)),
    "adamw": ("adamw", dict(learning_rate=0.05, weight_decay=0.1, mask=MASK)),
    "nadamw": ("nadamw", dict(learning_rate=0.05, weight_decay=_lr, mask=_ndim_mask)),
    "amsgrad": ("amsgrad", dict(learning_rate=0.05)),
    "amsgrad_uncorrected": ("amsgrad", dict(learning_rate=0.05, bias_correction_nu=False)),
    "adamax": ("adamax", dict(learning_rate=0.05)),
    "adamaxw": ("adamaxw", dict(learning_rate=0.05, weight_decay=0.1)),
    "rmsprop": ("rmsprop", dict(learning_rate=0.01)),
    "rmsprop_centered": ("rmsprop", dict(learning_rate=0.01, centered=True, momentum=0.9,
                                         nesterov=True)),
    "rmsprop_eps_out": ("rmsprop", dict(learning_rate=0.01, eps_in_sqrt=False,
                                        initial_scale=0.1, bias_correction=True)),
    "adagrad": ("adagrad", dict(learning_rate=0.1)),
    "adafactor": ("adafactor", dict()),
    "adafactor_factored": ("adafactor", dict(learning_rate=0.05, min_dim_size_to_factor=2,
                                             momentum=0.9, weight_decay_rate=1e-3,
                                             decay_offset=2)),
    "lamb": ("lamb", dict(learning_rate=0.05, weight_decay=0.01)),
    "lion": ("lion", dict(learning_rate=0.01)),
    "adabelief": ("adabelief", dict(learning_rate=0.05)),
    "adabelief_nesterov": ("adabelief", dict(learning_rate=0.05, nesterov=True)),
    "noisy_sgd": ("noisy_sgd", dict(learning_rate=0.05, key=3)),
    "sign_sgd": ("sign_sgd", dict(learning_rate=0.01)),
}
#: one configuration of each optimizer (the most options at once) runs under jit
JITTED = {"sgd_nesterov_schedule", "adam_schedule", "nadam", "adamw", "nadamw", "amsgrad",
          "adamax", "rmsprop_centered", "adagrad", "adafactor_factored", "lamb", "lion",
          "adabelief", "noisy_sgd"}

#: Adafactor's decay rate is float32 even for float64 params (Optax's
#: ``jnp.array(step + 1, jnp.float32) ** -0.8``; XLA's, IREE's and NumPy's float32 pow
#: differ in the last ulp), so its float64 results agree to float32 precision only
F64_TOL_SCALE = {"adafactor": 1e5, "adafactor_factored": 1e5}


def _make(name, lib):
    factory, kw = CASES[name]
    return getattr(lib, factory)(**kw)


def _tol(name, dtype):
    return F64_TOL_SCALE.get(name, 1.0) if dtype == np.float64 else 1.0


@pytest.fixture(scope="module", params=[np.float32, np.float64], ids=["f32", "f64"])
def results(request):
    return request.param, compare_group(CASES, JITTED, request.param, _make)


@pytest.mark.parametrize("name", sorted(CASES))
def test_optimizer_matches_optax_eagerly(results, name):
    dtype, out = results
    check_case(out[name], dtype, "eager", _tol(name, dtype))


@pytest.mark.parametrize("name", sorted(JITTED))
def test_optimizer_matches_optax_under_jit(results, name):
    dtype, out = results
    check_case(out[name], dtype, "jit", _tol(name, dtype))


def test_optimizer_transformation_types():
    for name in CASES:
        assert type(_make(name, optim)).__name__ == type(_make(name, optax)).__name__


def test_defaults_match_optax():
    import inspect
    for f in {f for f, _ in CASES.values()} | {"sgd", "adamw"}:
        ours = inspect.signature(getattr(optim, f)).parameters
        theirs = inspect.signature(getattr(optax, f)).parameters
        assert list(ours) == [p for p in theirs if p != "seed"], f
        for p in ours:
            want = theirs[p].default
            assert ours[p].default == want or str(ours[p].default) == str(want), (f, p)


def test_adam_eager_small():
    params = {"w": jnp.array([1.0, -2.0]), "b": jnp.array(0.5)}
    grads = {"w": jnp.array([0.3, -0.1]), "b": jnp.array(2.0)}
    ours, theirs = optim.adam(0.1), optax.adam(0.1)
    s1, s2 = ours.init(params), theirs.init(jax.tree.map(np.asarray, params))
    for _ in range(3):
        u1, s1 = ours.update(grads, s1, params)
        u2, s2 = theirs.update(jax.tree.map(np.asarray, grads), s2)
    for a, b in zip(jax.tree.leaves(u1), jax.tree.leaves(u2)):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-6)
    assert s1[0].count.dtype == np.int32 and int(s1[0].count) == 3
    assert optim.apply_updates(params, u1)["w"].dtype == np.float32


def test_vmap_update_matches_loop(rng):
    params = {"w": rng.normal(size=(3, 2)).astype(np.float32),
              "nested": (rng.normal(size=(2,)).astype(np.float32),)}
    batch = jax.tree.map(lambda x: rng.normal(size=(4,) + x.shape).astype(np.float32), params)
    opt = optim.adamw(0.1, weight_decay=0.01)
    state = opt.update(params, opt.init(params), params)[1]  # a state past step 0

    def step(g):
        u, s = opt.update(g, state, params)
        return optim.apply_updates(params, u), s[0].mu

    got = irax.jit(irax.vmap(step))(batch)
    for i in range(4):
        want = step(jax.tree.map(lambda x, i=i: x[i], batch))
        for a, b in zip(jax.tree.leaves(got), jax.tree.leaves(want)):
            np.testing.assert_allclose(np.asarray(a)[i], np.asarray(b), rtol=2e-6, atol=1e-7)
