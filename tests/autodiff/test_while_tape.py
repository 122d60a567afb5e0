"""Reverse mode through a data-dependent while loop: the checkpointed tape of
``dialect/control_flow/while_tape.py`` at every size regime, against jax.grad of the
same computation written as a fixed-length scan (JAX cannot differentiate while_loop).
The loop here is elementwise, which reverse mode would otherwise differentiate forward
(``while_diagonal.py``, tests/autodiff/test_while_diagonal.py): these tests turn that
off so that the tape runs."""

import numpy as np
import pytest

import irax
import irax.numpy as jnp
from irax import lax
from irax.config import config
from irax.dialect.control_flow import while_tape


@pytest.fixture(autouse=True)
def _tape_only():
    old = config.irax_while_grad_forward
    config.update("irax_while_grad_forward", False)
    yield
    config.update("irax_while_grad_forward", old)


def _loss(x, w, n):
    """A carry of two leaves and a const, n steps of a nonlinear body."""
    def body(c):
        i, v, u = c
        return i + 1, jnp.sin(v) * w + 0.1 * u, jnp.tanh(u + v * w)

    _, v, u = lax.while_loop(lambda c: c[0] < n, body, (0, x, x * 0.5))
    return jnp.sum(v * v) + jnp.sum(u)


def _jax_loss(jax, n):
    jnp_ = jax.numpy

    def loss(x, w):
        def step(c, _):
            v, u = c
            return (jnp_.sin(v) * w + 0.1 * u, jnp_.tanh(u + v * w)), None

        (v, u), _ = jax.lax.scan(step, (x, x * 0.5), None, length=n)
        return jnp_.sum(v * v) + jnp_.sum(u)

    return loss


_JAX_GRADS = {}


def _jax_grads(jax, n, x, w):
    if n not in _JAX_GRADS:
        _JAX_GRADS[n] = jax.jit(jax.grad(_jax_loss(jax, n), argnums=(0, 1)))(x, w)
    return _JAX_GRADS[n]


@pytest.mark.parametrize("budget", [64 << 20, 2000, 300])
def test_grad_through_while_matches_jax_scan(budget):
    """64 MiB: one checkpoint per step for these n; 2000 bytes: 11 checkpoint and 11
    segment rows, so segments of several steps; 300 bytes: 2 + 2 rows, so segments longer
    than the segment buffer (every s2-th carry kept, the rest recomputed)."""
    jax = pytest.importorskip("jax")
    x = np.linspace(-1.0, 1.0, 8, dtype=np.float32)
    w = np.float32(0.9)
    old = config.irax_while_grad_tape_bytes
    config.update("irax_while_grad_tape_bytes", budget)
    try:
        g = irax.jit(irax.grad(_loss, argnums=(0, 1)))
        for n in (0, 1, 7, 40):
            gx, gw = g(x, w, n)
            jx, jw = _jax_grads(jax, n, x, w)
            np.testing.assert_allclose(np.asarray(gx), np.asarray(jx), rtol=2e-5, atol=1e-6,
                                       err_msg=f"n={n}")
            np.testing.assert_allclose(float(gw), float(jw), rtol=2e-5, atol=1e-6)
    finally:
        config.update("irax_while_grad_tape_bytes", old)


def test_tape_sizes_stay_within_the_budget():
    small = irax.core.abstract.ShapedArray((8,), np.float32)
    assert while_tape.capacity([small]) == (while_tape.CHECKPOINT_ROWS, while_tape.SEGMENT_ROWS)
    big = irax.core.abstract.ShapedArray((1 << 20,), np.float32)     # 4 MiB a carry
    rows, seg = while_tape.capacity([big])
    assert (rows + seg) * 4 << 20 <= config.irax_while_grad_tape_bytes and rows >= 2
