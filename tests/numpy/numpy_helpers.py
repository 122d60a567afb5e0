"""Shared helpers of the irax.numpy tests: comparing irax results with NumPy and with JAX."""

import ml_dtypes
import numpy as np

import irax

BF16 = np.dtype(ml_dtypes.bfloat16)
# The dtypes of the promotion checks (x32 mode), and weak Python scalars.
DTYPES = [np.dtype(d) for d in (np.bool_, np.uint8, np.uint16, np.uint32, np.int8, np.int16,
                                np.int32, np.float16, np.float32, np.complex64)] + [BF16]
SCALARS = [True, 1, 1.0, 1j]


def to_numpy(x):
    return np.asarray(x)


def tol(dtype):
    dtype = np.dtype(dtype)
    if dtype in (np.float16, BF16):
        return 1e-2
    if dtype.kind in "fc":
        return 2e-6 if dtype.itemsize <= 8 else 1e-12
    return 0


def check(got, want, *, rtol=None, atol=None, weak=True, msg=""):
    """``got`` (irax) matches ``want`` (a jax array or np array): dtype, weak flag, values."""
    assert isinstance(got, (irax.Array, np.ndarray)), (msg, type(got))
    wdt = np.dtype(want.dtype)
    assert got.dtype == wdt, f"{msg}: dtype {got.dtype} != {wdt}"
    if weak and hasattr(want, "weak_type") and wdt != np.bool_:
        assert got.weak_type == want.weak_type, \
            f"{msg}: weak_type {got.weak_type} != {want.weak_type}"
    assert got.shape == tuple(want.shape), f"{msg}: shape {got.shape} != {want.shape}"
    g, w = np.asarray(got), np.asarray(want)
    if wdt.kind in "fc" or wdt == BF16:
        r = tol(wdt) if rtol is None else rtol
        a = r if atol is None else atol
        if wdt == BF16 or wdt == np.float16:
            g, w = g.astype(np.float32), w.astype(np.float32)
        np.testing.assert_allclose(g, w, rtol=r, atol=a, equal_nan=True, err_msg=msg)
    else:
        np.testing.assert_array_equal(g, w, err_msg=msg)


def sample(shape, dtype, rng, lo=-5, hi=5):
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.integers(0, 2, shape).astype(bool)
    if dtype.kind == "u":
        return rng.integers(0, hi + 1, shape).astype(dtype)
    if dtype.kind == "i":
        return rng.integers(lo, hi + 1, shape).astype(dtype)
    if dtype.kind == "c":
        return (rng.uniform(lo, hi, shape) + 1j * rng.uniform(lo, hi, shape)).astype(dtype)
    return rng.uniform(lo, hi, shape).astype(dtype)
