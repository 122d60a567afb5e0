"""Reductions that ``irax-split-reductions`` computes in two stages under jit: against
JAX (sums to float tolerance: the order of the additions changes) and bit for bit against
NumPy for maxima and minima (NaN, infinities, signed zeros), with the split checked in
the IR IREE compiles. One compiled function per check (IREE compiles cost ~0.3-1 s)."""

import numpy as np
import pytest

import irax
import irax.numpy as jnp
from irax.passes.split_reductions import lanes

jax = pytest.importorskip("jax")
jjnp = pytest.importorskip("jax.numpy")

rng = np.random.default_rng(0)


def _reductions(np_mod, x, y, z, w):
    return (np_mod.sum(x, axis=-1),                 # rows of 128: 16 x 8
            np_mod.sum(y),                          # everything: 4096 x 64
            np_mod.sum(z, axis=(0, 2)),             # an outer axis with the inner one
            np_mod.mean(w, axis=(1, 2)),            # two trailing axes: 384 = 24 x 16
            np_mod.max(x, axis=-1), np_mod.min(y),
            np_mod.max(z, axis=(0, 2)),
            jax.nn.logsumexp(x, axis=-1) if np_mod is jjnp else
            irax.nn.logsumexp(x, axis=-1),
            jax.nn.softmax(x, axis=-1) if np_mod is jjnp else irax.nn.softmax(x, axis=-1))


ARGS = (rng.standard_normal((96, 128)).astype(np.float32),
        (rng.standard_normal((512, 512)) * 1e3).astype(np.float32),
        rng.standard_normal((3, 5, 784)).astype(np.float32),
        rng.standard_normal((4, 6, 64)).astype(np.float32))


def test_split_reductions_match_jax():
    f = irax.jit(lambda *a: _reductions(jnp, *a))
    text = f.lower(*ARGS).as_text("iree")
    assert "tensor<96x16x8xf32>" in text and "tensor<4096x64xf32>" in text
    assert "tensor<3x5x49x16xf32>" in text and "tensor<4x24x16xf32>" in text
    got = f(*ARGS)
    want = jax.jit(lambda *a: _reductions(jjnp, *a))(*ARGS)
    for i, (g, w) in enumerate(zip(got, want)):
        g, w = np.asarray(g), np.asarray(w)
        assert g.dtype == w.dtype, i
        if i in (4, 5, 6):   # maxima and minima: exact
            np.testing.assert_array_equal(g, w, err_msg=str(i))
        else:
            np.testing.assert_allclose(g, w, rtol=2e-6, atol=2e-2 if i == 1 else 1e-6,
                                       err_msg=str(i))
    # the sum of 262,144 floats of size 1e3, in partials: within float32's rounding of
    # a sequential sum (NumPy's pairwise sum in float64 is the truth here)
    exact = np.sum(ARGS[1].astype(np.float64))
    assert abs(float(got[1]) - exact) < 262144 * 1e3 * 2 ** -24


def _ieee(reduce, x, axis=None):
    """NumPy's max/min (NaN propagates), with a zero result signed as IEEE's maximum and
    minimum sign it whatever the order (+0.0 above -0.0): NumPy's own sign follows the
    order of its comparisons."""
    out = np.asarray(reduce(x, axis=axis))
    zero = out == 0
    if reduce is np.max:
        pos = np.any((x == 0) & ~np.signbit(x), axis=axis)
        return np.where(zero, np.where(pos, np.float32(0.0), np.float32(-0.0)), out)
    neg = np.any((x == 0) & np.signbit(x), axis=axis)
    return np.where(zero, np.where(neg, np.float32(-0.0), np.float32(0.0)), out)


def test_split_max_min_are_exact():
    """NaN anywhere wins (as JAX documents; its CPU reduction of this row drops the NaN),
    signed zeros as IEEE's maximum and minimum order them, infinities: bit for bit."""
    x = rng.standard_normal((8, 4096)).astype(np.float32)
    x[1, 5] = np.nan
    x[2] = 0.0
    x[2, ::3] = -0.0
    x[3, 4000] = np.inf
    x[4, 17] = -np.inf
    x[5] = -0.0
    f = irax.jit(lambda a: (jnp.max(a, axis=1), jnp.min(a, axis=1), jnp.max(a), jnp.min(a),
                            jnp.max(a[2:], axis=1)))
    assert "tensor<8x64x64xf32>" in f.lower(x).as_text("iree")
    got = f(x)
    want = (_ieee(np.max, x, 1), _ieee(np.min, x, 1), _ieee(np.max, x), _ieee(np.min, x),
            _ieee(np.max, x[2:], 1))
    for g, w in zip(got, want):
        g = np.asarray(g)
        np.testing.assert_array_equal(g, w)
        zero = w == 0
        np.testing.assert_array_equal(np.signbit(g[zero]), np.signbit(w[zero]))
    assert np.signbit(np.asarray(got[0])[5]) and not np.signbit(np.asarray(got[0])[2])


@pytest.mark.parametrize("extent,k", [(128, 8), (784, 16), (4096, 64), (262144, 64),
                                      (100000, 32), (1000, 8), (32, None), (1001, None),
                                      (10, None)])
def test_lane_count(extent, k):
    assert lanes(extent) == k
