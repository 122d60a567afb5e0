"""irax.nn's block-scaled products. JAX runs scaled_matmul / scaled_dot_general only on CUDA
(cuDNN), so the references are JAX's own CPU pieces: its quantize recipe and
BlockScaleConfig, plus NumPy contractions of the dequantized values."""

import warnings

import ml_dtypes
import numpy as np
import pytest

import irax
import irax.nn as nn
import irax.numpy as jnp

jax = pytest.importorskip("jax")
sm = pytest.importorskip("jax._src.cudnn.scaled_matmul_stablehlo")

rng = np.random.default_rng(2)
L = rng.normal(size=(3, 4, 64)).astype(np.float32)
R = rng.normal(size=(3, 5, 64)).astype(np.float32)
DN = (((2,), (2,)), ((0,), (0,)))


def _deq(q, s):
    q, s = np.asarray(q).astype(np.float32), np.asarray(s).astype(np.float32)
    return q * np.repeat(s, q.shape[-1] // s.shape[-1], axis=-1)


def test_configs_match_jax():
    for mode in ("mxfp8", "nvfp4"):
        got, want = nn.get_scaled_dot_general_config(mode), \
            jax.nn.get_scaled_dot_general_config(mode)
        for f in ("mode", "block_size", "data_type", "scale_type", "infer_only"):
            assert getattr(got, f) == getattr(want, f), (mode, f)
    g = nn.get_scaled_dot_general_config("nvfp4", jnp.array([0.5], jnp.float32))
    assert float(g.global_scale[0]) == 0.5
    with pytest.raises(ValueError, match="Unsupported mode: int8"):
        nn.get_scaled_dot_general_config("int8")


def test_scaled_matmul_matches_reference():
    a = rng.normal(size=(2, 3, 64)).astype(ml_dtypes.float8_e4m3fn)
    b = rng.normal(size=(2, 5, 64)).astype(ml_dtypes.float8_e4m3fn)
    sa = (2.0 ** rng.integers(-3, 3, (2, 3, 2))).astype(ml_dtypes.float8_e8m0fnu)
    sb = (2.0 ** rng.integers(-3, 3, (2, 5, 2))).astype(ml_dtypes.float8_e8m0fnu)
    want = np.einsum("bmk,bnk->bmn", _deq(a, sa), _deq(b, sb))
    got = nn.scaled_matmul(a, b, sa, sb)
    assert got.dtype == np.float32
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6, atol=1e-5)
    f32 = [x.astype(np.float32) for x in (a, b, sa, sb)]
    got = irax.jit(lambda *x: nn.scaled_matmul(*x, preferred_element_type=jnp.bfloat16))(*f32)
    assert got.dtype == jnp.bfloat16
    np.testing.assert_allclose(np.asarray(got).astype(np.float32), want, rtol=1e-2, atol=1e-1)
    with pytest.raises(ValueError, match="3-dimensional"):
        nn.scaled_matmul(a[0], b, sa, sb)
    with pytest.raises(ValueError, match="matching batch"):
        nn.scaled_matmul(a, b[:, :, :32], sa, sb)


def test_scaled_dot_general_matches_jax_quantization():
    for mode in ("mxfp8", "nvfp4"):
        c, jc = nn.get_scaled_dot_general_config(mode), jax.nn.get_scaled_dot_general_config(mode)
        (lq, ls), (rq, rs) = jax.jit(lambda x, y, jc=jc: (sm.quantize(x, jc),
                                                          sm.quantize(y, jc)))(L, R)
        want = np.einsum("bmk,bnk->bmn", _deq(lq, ls), _deq(rq, rs))
        got = nn.scaled_dot_general(L, R, DN, configs=[c] * 3)
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6, atol=1e-5, err_msg=mode)
    c = nn.get_scaled_dot_general_config("mxfp8")
    got = irax.jit(lambda x, y: nn.scaled_dot_general(x, y, DN, configs=[c] * 3))(L, R)
    eager = nn.scaled_dot_general(L, R, DN, configs=[c] * 3)
    np.testing.assert_allclose(np.asarray(got), np.asarray(eager), rtol=1e-6, atol=1e-5)
    # no batch dimension: JAX adds one and squeezes it
    got = nn.scaled_dot_general(L[0], R[0], (((1,), (1,)), ((), ())), configs=[c] * 3)
    assert got.shape == (4, 5)
    # configs=None is lax.dot_general
    plain = nn.scaled_dot_general(L, R, DN)
    np.testing.assert_allclose(np.asarray(plain), np.einsum("bmk,bnk->bmn", L, R), rtol=1e-5,
                               atol=1e-5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(DeprecationWarning, match="Backend selector"):
            nn.scaled_dot_general(L, R, DN, implementation="cudnn")
    with pytest.raises(TypeError, match="preferred_element_type"):
        nn.scaled_dot_general(L, R, DN, preferred_element_type=np.int32, configs=[c] * 3)
