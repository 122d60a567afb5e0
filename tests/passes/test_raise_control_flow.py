"""StableHLO control flow exported by JAX (while, case, if) is raised to irax.while and
irax.cond, then run, differentiated and vectorized like traced code. JAX itself cannot
differentiate the while loop in reverse mode; the reference gradient comes from the same
computation written with a static fori_loop (the loop always runs 5 times)."""

from pathlib import Path

import numpy as np
import pytest

import irax

DATA = Path(__file__).resolve().parent / "data" / "control_flow.mlir"
X = np.array([0.3, -0.2], np.float32)
A = np.float32(0.7)


def _jax_fs():
    jax = pytest.importorskip("jax")
    jnp = jax.numpy

    def tail(y, n, a):
        z = jax.lax.cond(y.sum() > 0, lambda v: v * 2.0, lambda v: v - a, y)
        branches = [lambda v: v, lambda v: v + 1.0, lambda v: v * a]
        return jnp.sum(jax.lax.switch(n % 3, branches, z) ** 2)

    def f(x, a):  # as exported: a while loop
        def body(c):
            y, i = c
            return y * a + jnp.sin(y), i + 1

        y, n = jax.lax.while_loop(lambda c: c[1] < 5, body, (x, 0))
        return tail(y, n, a)

    def f_static(x, a):  # the same computation, reverse-differentiable by JAX
        y = jax.lax.fori_loop(0, 5, lambda i, y: y * a + jnp.sin(y), x)
        return tail(y, 5, a)

    return jax, f, f_static


def test_raised_control_flow_runs_and_differentiates():
    jax, f, f_static = _jax_fs()
    text = DATA.read_text()
    mod = irax.ir.load(text)
    assert '"irax.while"' in mod.as_text("irax") and '"irax.cond"' in mod.as_text("irax")
    np.testing.assert_allclose(float(mod(X, A)), float(f(X, A)), rtol=1e-5)
    grads = irax.ir.transform(text, "grad", argnums=(0, 1))(X, A)
    want = jax.grad(f_static, argnums=(0, 1))(X, A)
    for g, w in zip(grads, want):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-4, atol=1e-6)


def test_raised_control_flow_vmaps():
    jax, f, _ = _jax_fs()
    xs = np.stack([X, -X, 2 * X])
    out = irax.ir.transform(DATA.read_text(), "vmap", in_axes=(0, None), axis_size=3)(xs, A)
    np.testing.assert_allclose(np.asarray(out), np.asarray(jax.vmap(f, (0, None))(xs, A)),
                               rtol=1e-5)
