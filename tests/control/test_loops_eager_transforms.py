"""Eager jvp and grad of loops whose body holds a transformation (vmap): the loop's
concrete value waits for the expanded program instead of failing ("must be expanded by
irax-vectorize before evaluation")."""

import numpy as np
import pytest

import irax
import irax.numpy as jnp

jax = pytest.importorskip("jax")


def _f(m, api):
    def f(x):
        return api.lax.fori_loop(0, 3, lambda i, c: c + api.vmap(m.sin)(c) * 0.5, x)
    return f


def test_eager_jvp_and_grad_of_a_loop_holding_vmap_match_jax():
    x = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)
    t = np.ones_like(x)
    f, g = _f(jnp, irax), _f(jax.numpy, jax)
    y, dy = irax.jvp(f, (x,), (t,))
    wy, wdy = jax.jvp(g, (x,), (t,))
    np.testing.assert_allclose(np.asarray(y), np.asarray(wy), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(dy), np.asarray(wdy), rtol=1e-5)
    grad = irax.grad(lambda v: f(v).sum())(x)
    np.testing.assert_allclose(np.asarray(grad), np.asarray(jax.grad(lambda v: g(v).sum())(x)),
                               rtol=1e-5)
