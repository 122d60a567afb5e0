"""Dots of arrays widened from uint8/uint16/bool are exact under jit (IREE 3.13 fused the
widening into the contraction and sign-extended it: a uint8 200 read as -56)."""

import numpy as np

import irax
import irax.numpy as jnp


def test_dots_of_widened_unsigned_integers_match_numpy():
    rng = np.random.default_rng(0)
    a8 = rng.integers(0, 256, (4, 4)).astype(np.uint8)
    a16 = rng.integers(0, 65536, (4, 4)).astype(np.uint16)
    b = rng.integers(0, 2, (4, 4)).astype(bool)
    v = np.linspace(-1, 1, 4).astype(np.float32)

    def f(a8, a16, b, v):
        return (jnp.dot(a8.astype(np.float32), v), jnp.dot(v, a8.astype(np.float32)),
                jnp.dot(a8.astype(np.int32), a8.astype(np.int32).T),
                jnp.dot(a16.astype(np.float32).T, v), jnp.dot(v, b.astype(np.float32)),
                jnp.dot(a8.astype(np.float16), v.astype(np.float16)))

    w8, w16, wb = (x.astype(np.float64) for x in (a8, a16, b))
    wants = (w8 @ v, v @ w8, w8 @ w8.T, w16.T @ v, v @ wb, w8 @ v)
    for got, want in zip(irax.jit(f)(a8, a16, b, v), wants):
        np.testing.assert_allclose(np.asarray(got, np.float64), want, rtol=2e-3, atol=1e-3)
