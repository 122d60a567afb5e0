"""Gradients of irax.numpy functions against real JAX's (where JAX is installed)."""

import numpy as np
import pytest

import irax
import irax.numpy as jnp

jax = pytest.importorskip("jax")
jjnp = jax.numpy

_rng = np.random.default_rng(3)
_POS = _rng.uniform(0.2, 2.0, 5).astype(np.float32)
_ANY = _rng.uniform(-2.0, 2.0, 5).astype(np.float32)
_UNIT = _rng.uniform(-0.9, 0.9, 5).astype(np.float32)

# name -> (function of the numpy module, input)
UNARY = {
    "sin": (lambda m, x: m.sin(x), _ANY), "cos": (lambda m, x: m.cos(x), _ANY),
    "tan": (lambda m, x: m.tan(x), _UNIT), "tanh": (lambda m, x: m.tanh(x), _ANY),
    "exp": (lambda m, x: m.exp(x), _ANY), "expm1": (lambda m, x: m.expm1(x), _ANY),
    "log": (lambda m, x: m.log(x), _POS), "log1p": (lambda m, x: m.log1p(x), _POS),
    "sqrt": (lambda m, x: m.sqrt(x), _POS), "cbrt": (lambda m, x: m.cbrt(x), _POS),
    "abs": (lambda m, x: m.abs(x), _ANY), "square": (lambda m, x: m.square(x), _ANY),
    "reciprocal": (lambda m, x: m.reciprocal(x), _POS),
    "arctan": (lambda m, x: m.arctan(x), _ANY), "arcsin": (lambda m, x: m.arcsin(x), _UNIT),
    "sinh": (lambda m, x: m.sinh(x), _ANY), "cosh": (lambda m, x: m.cosh(x), _ANY),
    "logaddexp": (lambda m, x: m.logaddexp(x, 0.3 * x), _ANY),
    # ties split evenly and -inf operands weigh 0 (JAX's custom derivative)
    "logaddexp_ties": (lambda m, x: m.logaddexp(x, m.concatenate([x[:2], x[2:] * 0 - m.inf])),
                       _ANY),
    "logaddexp2_ties": (lambda m, x: m.logaddexp2(x, x[::-1]), _ANY),
    "power_int": (lambda m, x: x ** 3, _ANY), "power_float": (lambda m, x: x ** 2.5, _POS),
    "maximum": (lambda m, x: m.maximum(x, 0.5), _ANY),
    "minimum": (lambda m, x: m.minimum(x, x[::-1]), _ANY),
    "arctan2": (lambda m, x: m.arctan2(x, 1.5 - x), _ANY),
    "divide": (lambda m, x: x / (2.5 + x), _POS),
    "remainder": (lambda m, x: m.remainder(x * 3.0, 1.7), _POS),
    "where": (lambda m, x: m.where(x > 0, x * x, -x), _ANY),
    "clip": (lambda m, x: m.clip(x, -0.5, 0.5), _ANY),
    "mean_var": (lambda m, x: m.var(x) + m.mean(x * x), _ANY),
    "max_reduce": (lambda m, x: m.max(x * x), _ANY),
    "prod": (lambda m, x: m.prod(x), _ANY),
    "cumsum": (lambda m, x: m.cumsum(x) * x, _ANY),
    "matmul": (lambda m, x: m.outer(x, x) @ x, _ANY),
    "index": (lambda m, x: x[1:4] * x[::2][:3] + x[m.array([0, 4, 4])], _ANY),
    "reshape_t": (lambda m, x: m.reshape(m.concatenate([x, x * 2.0]), (2, 5)).T, _ANY),
    "softplus_like": (lambda m, x: m.log(1.0 + m.exp(x)), _ANY),
}


def _scalarize(f, m, x0):
    """sum(w * f(x)) with fixed distinct weights, so every output element matters."""
    shape = np.shape(f(np, x0))
    w = np.arange(1, 1 + int(np.prod(shape))).reshape(shape).astype(np.float32) / 10
    return lambda x: m.sum(f(m, x) * w)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_eager_grad_matches_jax(name):
    f, x = UNARY[name]
    ours = irax.grad(_scalarize(f, jnp, x))(x)
    theirs = jax.grad(_scalarize(f, jjnp, x))(x)
    np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), rtol=2e-5, atol=2e-6)


def test_jit_grads_match_jax_in_one_module():
    names = sorted(UNARY)

    def all_grads(*xs):
        return [irax.grad(_scalarize(UNARY[n][0], jnp, UNARY[n][1]))(x) for n, x in zip(names, xs)]

    xs = [UNARY[n][1] for n in names]
    ours = irax.jit(all_grads)(*xs)
    for n, g, x in zip(names, ours, xs):
        theirs = jax.grad(_scalarize(UNARY[n][0], jjnp, x))(x)
        np.testing.assert_allclose(np.asarray(g), np.asarray(theirs), rtol=2e-5, atol=2e-6,
                                   err_msg=n)


@pytest.mark.parametrize("name", ["sin", "log", "where", "matmul", "max_reduce", "index"])
def test_jvp_matches_jax(name):
    f, x = UNARY[name]
    t = np.linspace(-1, 1, x.size).astype(np.float32)
    _, ours = irax.jvp(lambda x: f(jnp, x), (x,), (t,))
    _, theirs = jax.jvp(lambda x: f(jjnp, x), (x,), (t,))
    np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), rtol=2e-5, atol=2e-6)


def test_grad_of_complex_abs_at_zero_is_zero_as_in_jax():
    def f(m):
        return lambda x: m.abs(x * (1 + 1j)).sum()

    x = np.array([0.0, 1.0, -2.0], np.float32)
    want = np.asarray(jax.grad(f(jjnp))(x))
    np.testing.assert_allclose(np.asarray(irax.grad(f(jnp))(x)), want, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(irax.jit(irax.grad(f(jnp)))(x)), want, rtol=1e-6)
