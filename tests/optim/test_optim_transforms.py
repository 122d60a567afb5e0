"""irax.optim's gradient transformations against real Optax 0.2.8 over 20 steps (see
transform_helpers): every transformation eagerly, in float32 and float64, and under one
``irax.jit``-ed ``lax.scan`` those the jitted optimizers of test_optim_optimizers.py do
not already run (scale_by_adam, amsgrad, adamax, belief, rms/stddev with momentum, rss,
lion, factored rms, trust ratio, trace, ema, add_decayed_weights, add_noise and
clip_by_block_rms run there); every step's params, the final state's leaves and its
pytree structure are compared."""

from __future__ import annotations

import jax
import numpy as np
import pytest
from tests.optim.transform_helpers import check_case, compare_group

import irax.numpy as jnp
from irax import optim

MASK = {"w": False, "nested": (True, True)}


def _decay(count):
    return 0.1 * 0.9 ** count


def _matrices(params):
    return jax.tree.map(lambda x: x.ndim == 2, params)


def _lr_scaled(o, *txs, lr=-0.05):
    return o.chain(*txs, o.scale(lr))


#: name -> factory(lib); each transformation followed by a small negative step size
CASES = {
    "scale": lambda o: o.scale(-0.05),
    "scale_by_adam": lambda o: _lr_scaled(o, o.scale_by_adam(b1=0.8, eps_root=1e-10,
                                                             nesterov=True)),
    "scale_by_adam_mu_dtype": lambda o: _lr_scaled(o, o.scale_by_adam(mu_dtype=np.float32)),
    "scale_by_amsgrad": lambda o: _lr_scaled(o, o.scale_by_amsgrad(bias_correction_mu=False)),
    "scale_by_adamax": lambda o: _lr_scaled(o, o.scale_by_adamax(b1=0.7)),
    "scale_by_belief": lambda o: _lr_scaled(o, o.scale_by_belief()),
    "scale_by_rms": lambda o: _lr_scaled(o, o.scale_by_rms(decay=0.8, initial_scale=0.1)),
    "scale_by_rms_corrected": lambda o: _lr_scaled(o, o.scale_by_rms(
        eps_in_sqrt=False, bias_correction=True)),
    "scale_by_stddev": lambda o: _lr_scaled(o, o.scale_by_stddev(initial_scale=0.5)),
    "scale_by_stddev_corrected": lambda o: _lr_scaled(o, o.scale_by_stddev(
        eps=1.0, bias_correction=True)),
    "scale_by_rss": lambda o: _lr_scaled(o, o.scale_by_rss(initial_accumulator_value=0.0)),
    "scale_by_lion": lambda o: _lr_scaled(o, o.scale_by_lion(b1=0.8, mu_dtype=np.float32),
                                          lr=-0.01),
    "scale_by_trust_ratio": lambda o: _lr_scaled(o, o.scale_by_adam(), o.scale_by_trust_ratio(
        min_norm=0.1, trust_coefficient=0.5, eps=1e-3)),
    "scale_by_factored_rms": lambda o: _lr_scaled(o, o.scale_by_factored_rms(
        min_dim_size_to_factor=3, step_offset=1, decay_rate=0.9)),
    "scale_by_factored_rms_unfactored": lambda o: _lr_scaled(o, o.scale_by_factored_rms(
        factored=False)),
    "scale_by_param_block_rms": lambda o: _lr_scaled(o, o.scale_by_param_block_rms(0.1)),
    "scale_by_param_block_norm": lambda o: _lr_scaled(o, o.scale_by_param_block_norm(0.1),
                                                      lr=-0.01),
    "scale_by_sign": lambda o: _lr_scaled(o, o.scale_by_sign(), lr=-0.01),
    "scale_by_schedule": lambda o: o.scale_by_schedule(lambda c: -0.05 * 0.9 ** c),
    "scale_by_learning_rate": lambda o: o.scale_by_learning_rate(_decay),
    "scale_by_learning_rate_unflipped": lambda o: o.scale_by_learning_rate(-0.05,
                                                                           flip_sign=False),
    "trace": lambda o: _lr_scaled(o, o.trace(0.9)),
    "trace_nesterov": lambda o: _lr_scaled(o, o.trace(0.5, nesterov=True,
                                                      accumulator_dtype=np.float32)),
    "ema": lambda o: _lr_scaled(o, o.ema(0.8)),
    "ema_no_debias": lambda o: _lr_scaled(o, o.ema(0.9, debias=False,
                                                   accumulator_dtype=np.float32)),
    "add_decayed_weights": lambda o: _lr_scaled(o, o.add_decayed_weights(0.1, mask=MASK)),
    "add_decayed_weights_schedule": lambda o: _lr_scaled(o, o.add_decayed_weights(
        _decay, mask=_matrices)),
    "add_noise": lambda o: _lr_scaled(o, o.add_noise(0.1, 0.5, key=7)),
    "clip": lambda o: _lr_scaled(o, o.clip(0.5)),
    "clip_by_global_norm": lambda o: _lr_scaled(o, o.clip_by_global_norm(2.0)),
    "clip_by_block_rms": lambda o: _lr_scaled(o, o.clip_by_block_rms(0.6)),
    "centralize": lambda o: _lr_scaled(o, o.centralize()),
    "keep_params_nonnegative": lambda o: o.chain(o.scale(-0.5), o.keep_params_nonnegative()),
    "identity": lambda o: _lr_scaled(o, o.identity()),
    "set_to_zero": lambda o: o.set_to_zero(),
    "named_chain": lambda o: o.named_chain(("clip", o.clip(1.0)), ("lr", o.scale(-0.05))),
    "stateless": lambda o: o.stateless(
        lambda u, p: jax.tree.map(lambda g, x: -0.05 * g + 0.01 * x, u, p)),
    "stateless_with_tree_map": lambda o: o.stateless_with_tree_map(lambda g, p: -0.05 * g),
}
JITTED = {"scale_by_adam_mu_dtype", "scale_by_rms", "scale_by_stddev_corrected",
          "scale_by_rss", "scale_by_factored_rms", "scale_by_param_block_norm",
          "scale_by_sign", "scale_by_schedule", "trace_nesterov", "ema", "ema_no_debias",
          "clip", "clip_by_global_norm", "centralize", "keep_params_nonnegative",
          "set_to_zero"}

#: the factored-rms decay rate is float32 even for float64 params, as Optax computes it
#: (see test_optim_optimizers.F64_TOL_SCALE)
F64_TOL_SCALE = {"scale_by_factored_rms": 1e5, "scale_by_factored_rms_unfactored": 1e5}


def _tol(name, dtype):
    return F64_TOL_SCALE.get(name, 1.0) if dtype == np.float64 else 1.0


def _make(name, lib):
    return CASES[name](lib)


@pytest.fixture(scope="module", params=[np.float32, np.float64], ids=["f32", "f64"])
def results(request):
    return request.param, compare_group(CASES, JITTED, request.param, _make)


@pytest.mark.parametrize("name", sorted(CASES))
def test_transform_matches_optax_eagerly(results, name):
    dtype, out = results
    check_case(out[name], dtype, "eager", _tol(name, dtype))


@pytest.mark.parametrize("name", sorted(JITTED))
def test_transform_matches_optax_under_jit(results, name):
    dtype, out = results
    check_case(out[name], dtype, "jit", _tol(name, dtype))


def test_state_dtypes_follow_params(x64):
    params = {"a": jnp.ones(3, jnp.float32), "b": jnp.ones(2, jnp.float64)}
    state = optim.adam(0.1).init(params)[0]
    assert state.mu["a"].dtype == np.float32 and state.nu["b"].dtype == np.float64
    assert state.count.dtype == np.int32
    updates, _ = optim.adam(0.1).update(params, optim.adam(0.1).init(params), params)
    assert updates["a"].dtype == np.float32 and updates["b"].dtype == np.float64
    mu32 = optim.scale_by_adam(mu_dtype=jnp.float32).init(params).mu
    assert mu32["b"].dtype == np.float32


def test_safe_increment_saturates():
    top = jnp.asarray(np.iinfo(np.int32).max, jnp.int32)
    assert int(optim.safe_increment(top)) == np.iinfo(np.int32).max
    assert optim.safe_increment(jnp.asarray(3, jnp.int32)).dtype == np.int32
    assert float(optim.safe_increment(jnp.asarray(1.5, jnp.float32))) == 2.5


def test_global_norm_and_apply_updates():
    tree = {"a": jnp.array([3.0]), "b": (jnp.array([[4.0]]), None)}
    np.testing.assert_allclose(float(optim.global_norm(tree)), 5.0)
    new = optim.apply_updates({"p": jnp.array([1, 2], jnp.int32), "q": None},
                              {"p": jnp.array([0.6, 0.6]), "q": None})
    assert new["p"].dtype == np.int32 and new["q"] is None
    np.testing.assert_array_equal(np.asarray(new["p"]), [1, 2])
    inc = optim.incremental_update({"a": jnp.ones(2)}, {"a": jnp.zeros(2)}, 0.25)
    np.testing.assert_allclose(np.asarray(inc["a"]), [0.25, 0.25])
