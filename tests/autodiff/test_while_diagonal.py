"""Reverse mode through an elementwise while loop, computed forward
(``dialect/control_flow/while_diagonal.py``): against jax.grad of the same computation
written as a fixed-length scan (JAX cannot differentiate while_loop), and against the
tape (``irax_while_grad_forward=False``) where JAX has no equivalent."""

import numpy as np
import pytest
from tests.autodiff.test_while_tape import _jax_loss, _loss

import irax
import irax.numpy as jnp
from irax import lax
from irax.config import config

jax = pytest.importorskip("jax")


def _whiles(f, *args) -> int:
    """How many while loops the jitted ``f`` lowers to (1: the forward loop alone)."""
    return irax.jit(f).lower(*args).as_text().count("stablehlo.while")


def _both(f, *args):
    """``f(*args)`` with the forward rule and with the tape."""
    old = config.irax_while_grad_forward
    try:
        config.update("irax_while_grad_forward", False)
        tape = f(*args)
    finally:
        config.update("irax_while_grad_forward", old)
    return f(*args), tape


def test_grad_of_an_elementwise_loop_matches_jax_scan_in_one_loop():
    x = np.linspace(-1.0, 1.0, 8, dtype=np.float32)
    w = np.float32(0.9)
    g = irax.jit(irax.grad(_loss, argnums=(0, 1)))
    assert _whiles(irax.grad(_loss, argnums=(0, 1)), x, w, 3) == 1
    jg = jax.jit(jax.grad(_jax_loss(jax, 40), argnums=(0, 1)))
    for n in (0, 1, 7, 40):
        gx, gw = g(x, w, n)
        jx, jw = jax.grad(_jax_loss(jax, n), argnums=(0, 1))(x, w) if n != 40 else jg(x, w)
        np.testing.assert_allclose(np.asarray(gx), np.asarray(jx), rtol=2e-5, atol=1e-6,
                                   err_msg=f"n={n}")
        np.testing.assert_allclose(float(gw), float(jw), rtol=2e-5, atol=1e-6)


def test_shaped_const_and_0d_float_carry():
    """A shaped const and a 0-d float carry with tangents: dense columns for the 0-d
    leaf (summed over the elements in reverse), diagonal ones for the shaped leaves."""
    def loss(x, w, s0, n):
        def body(c):
            i, v, s = c
            return i + 1, v * w * s + jnp.cos(v), s * 0.97 + 0.01

        _, v, s = lax.while_loop(lambda c: c[0] < n, body, (0, x, s0))
        return jnp.sum(v) + s

    def jloss(x, w, s0):
        def step(c, _):
            v, s = c
            return (v * w * s + jax.numpy.cos(v), s * 0.97 + 0.01), None

        (v, s), _ = jax.lax.scan(step, (x, s0), None, length=6)
        return jax.numpy.sum(v) + s

    x = np.linspace(-0.5, 0.7, 5, dtype=np.float32)
    w = np.linspace(0.3, 0.8, 5, dtype=np.float32)
    s0 = np.float32(0.6)
    gf = irax.grad(loss, argnums=(0, 1, 2))
    assert _whiles(gf, x, w, s0, 6) == 1
    got = irax.jit(gf)(x, w, s0, 6)
    want = jax.grad(jloss, argnums=(0, 1, 2))(x, w, s0)
    for a, b in zip(got, want):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=2e-5, atol=1e-6)


def test_data_dependent_trip_count():
    """The condition reduces over the carry (any op is allowed there): the trip count
    comes from the data, the derivative holds it fixed."""
    def loss(x):
        body = lambda v: v * 1.1 + jnp.sin(v) * 0.01       # noqa: E731
        return jnp.sum(lax.while_loop(lambda v: jnp.max(v) < 3.0, body, x) ** 2)

    x = np.linspace(0.1, 1.0, 6, dtype=np.float32)
    trips, v = 0, x.astype(np.float64)
    while v.max() < 3.0:
        v, trips = v * 1.1 + np.sin(v) * 0.01, trips + 1

    def jloss(x):
        def step(v, _):
            return v * 1.1 + jax.numpy.sin(v) * 0.01, None
        return jax.numpy.sum(jax.lax.scan(step, x, None, length=trips)[0] ** 2)

    assert _whiles(irax.grad(loss), x) == 1
    np.testing.assert_allclose(np.asarray(irax.jit(irax.grad(loss))(x)),
                               np.asarray(jax.grad(jloss)(x)), rtol=2e-5)
    # outside jit too (the eager loop compiles the same rule)
    np.testing.assert_allclose(np.asarray(irax.grad(loss)(x)), np.asarray(jax.grad(jloss)(x)),
                               rtol=2e-5)


def test_vmap_of_grad_matches_a_python_loop():
    xs = np.linspace(-1.0, 1.0, 12, dtype=np.float32).reshape(3, 4)
    w = np.float32(0.8)
    g = irax.grad(_loss)
    got = irax.jit(irax.vmap(g, in_axes=(0, None, None)))(xs, w, 9)
    for i in range(3):
        np.testing.assert_allclose(np.asarray(got[i]), np.asarray(g(xs[i], w, 9)), rtol=1e-6,
                                   atol=1e-7)


def test_hessian_matches_jax_scan():
    x = np.linspace(-0.4, 0.6, 4, dtype=np.float32)
    w = np.float32(0.7)
    h = irax.jit(irax.hessian(_loss))(x, w, 5)
    jh = jax.hessian(_jax_loss(jax, 5))(x, w)
    np.testing.assert_allclose(np.asarray(h), np.asarray(jh), rtol=1e-4, atol=1e-6)


def test_loops_that_do_not_qualify_use_the_tape():
    """A reduction in the body couples the elements; five differentiable leaves are more
    seeds than MAX_SEEDS; a float64 const with float32 carries mixes dtypes: each takes
    the tape (more than one loop), with the same values as the forward rule's tape."""
    def coupled(x, n):
        body = lambda c: (c[0] + 1, c[1] * 0.9 + jnp.sum(c[1]) * 0.01)   # noqa: E731
        return jnp.sum(lax.while_loop(lambda c: c[0] < n, body, (0, x))[1] ** 2)

    def five(x, n):
        body = lambda c: (c[0] + 1,) + tuple(v * 0.9 + 0.1 for v in c[1:])  # noqa: E731
        out = lax.while_loop(lambda c: c[0] < n, body, (0, x, x, x, x, x))
        return sum(jnp.sum(v) for v in out[1:])

    x = np.linspace(-1.0, 1.0, 4, dtype=np.float32)
    for f in (coupled, five):
        assert _whiles(irax.grad(f), x, 5) > 1, f.__name__
    def jcoupled(x):
        def step(v, _):
            return v * 0.9 + jax.numpy.sum(v) * 0.01, None
        return jax.numpy.sum(jax.lax.scan(step, x, None, length=5)[0] ** 2)

    np.testing.assert_allclose(np.asarray(irax.jit(irax.grad(coupled))(x, 5)),
                               np.asarray(jax.grad(jcoupled)(x)), rtol=2e-5)
    np.testing.assert_allclose(np.asarray(irax.jit(irax.grad(five))(x, 5)),
                               np.full(4, 5 * 0.9 ** 5, np.float32), rtol=1e-5)


def test_the_forward_rule_agrees_with_the_tape():
    """Both rules on one loop with a float const used only by the condition, an int
    const, and a 0-d float carry that never reaches the result."""
    def loss(x, lim, k, s0):
        def body(c):
            i, v, s = c
            return i + k, jnp.exp(-v * v) + v * 0.5, s * 2.0

        _, v, s = lax.while_loop(lambda c: (c[0] < 20) & (c[2] < lim), body, (0, x, s0))
        return jnp.sum(v * v)

    args = (np.array([0.3, -0.2, 1.1], np.float32), np.float32(50.0), 3, np.float32(0.5))
    g = irax.jit(irax.grad(loss, argnums=(0, 1, 3)))
    fwd, tape = _both(g, *args)
    for a, b in zip(fwd, tape):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-5, atol=1e-7)
    assert float(fwd[1]) == 0.0 and float(fwd[2]) == 0.0
