"""Shared helpers of the jnp.linalg tests: random well-conditioned matrices, comparing
irax results with JAX's (dtype, weak type, shape, values), 64-bit mode in both."""

import contextlib

import numpy as np

import irax
from irax.config import config

TOL = {np.dtype(np.float32): 2e-4, np.dtype(np.complex64): 2e-4,
       np.dtype(np.float64): 1e-10, np.dtype(np.complex128): 1e-10}


def general(shape, dtype, rng):
    """Random matrices ``(..., n, n)`` (or ``(..., m, n)``), diagonally shifted so that the
    square ones are well conditioned."""
    dtype = np.dtype(dtype)
    a = rng.standard_normal(shape)
    if dtype.kind == "c":
        a = a + 1j * rng.standard_normal(shape)
    m, n = shape[-2:]
    if m == n:
        a = a + np.sqrt(n) * 2 * np.eye(n)
    return a.astype(dtype)


def spd(shape, dtype, rng):
    """Random Hermitian positive definite matrices."""
    a = general(shape, dtype, rng).astype(np.complex128 if np.dtype(dtype).kind == "c"
                                          else np.float64)
    n = shape[-1]
    h = a @ np.conj(np.swapaxes(a, -1, -2)) / n + np.eye(n)
    return h.astype(dtype)


def check(got, want, *, rtol=None, atol=None, weak=True, msg=""):
    """``got`` (irax) matches ``want`` (JAX or NumPy): dtype, weak flag, shape, values."""
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want), (msg, type(got))
        assert type(got).__name__ == type(want).__name__, (msg, type(got), type(want))
        for i, (g, w) in enumerate(zip(got, want)):
            check(g, w, rtol=rtol, atol=atol, weak=weak, msg=f"{msg}[{i}]")
        return
    assert isinstance(got, (irax.Array, np.ndarray)), (msg, type(got))
    wdt = np.dtype(want.dtype)
    assert got.dtype == wdt, f"{msg}: dtype {got.dtype} != {wdt}"
    if weak and hasattr(want, "weak_type"):
        assert got.weak_type == want.weak_type, \
            f"{msg}: weak_type {got.weak_type} != {want.weak_type}"
    assert got.shape == tuple(want.shape), f"{msg}: shape {got.shape} != {want.shape}"
    g, w = np.asarray(got), np.asarray(want)
    if wdt.kind in "fc":
        r = TOL.get(wdt, 1e-4) if rtol is None else rtol
        a = r if atol is None else atol
        np.testing.assert_allclose(g, w, rtol=r, atol=a, equal_nan=True, err_msg=msg)
    else:
        np.testing.assert_array_equal(g, w, err_msg=msg)


@contextlib.contextmanager
def both_x64():
    """64-bit types in irax and JAX for the duration."""
    import jax

    config.update("jax_enable_x64", True)
    jax.config.update("jax_enable_x64", True)
    try:
        yield
    finally:
        config.update("jax_enable_x64", False)
        jax.config.update("jax_enable_x64", False)
