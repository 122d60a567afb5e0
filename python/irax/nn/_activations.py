"""Element-wise activation functions of ``jax.nn`` (relu, gelu, silu, elu, ...).

Each is a composition of ``irax.numpy``/``irax.lax`` functions, so dtypes and weak types
follow ``jax.numpy``'s rules, and jit, grad and vmap come for free. ``relu``, ``relu6`` and
``log1mexp`` carry JAX's custom derivatives (``relu'(0) = 0``; ``relu6'(6) = 0``).
"""

from __future__ import annotations

import numpy as np

from irax import lax
from irax import numpy as jnp
from irax.lax import erfc
from irax.numpy import _util as U
from irax.transforms.custom_derivatives import custom_jvp


def _arr(name, x):
    """``x`` as an array (JAX's ``ensure_arraylike``): dtype and weak flag kept."""
    return U.as_array(name, x)


def identity(x):
    """The identity activation (``jax.nn.identity``)."""
    return _arr("identity", x)


@custom_jvp
def relu(x):
    """``max(x, 0)`` with derivative 0 at 0 (``jax.nn.relu``)."""
    return jnp.maximum(_arr("relu", x), 0)


relu.defjvps(lambda g, ans, x: lax.select(jnp.greater(x, 0), g, lax.full_like(g, 0)))


@custom_jvp
def relu6(x):
    """``min(max(x, 0), 6)`` with derivative 0 at 0 and 6 (``jax.nn.relu6``)."""
    return jnp.minimum(jnp.maximum(_arr("relu6", x), 0), 6.0)


relu6.defjvps(lambda g, ans, x: lax.select(
    jnp.logical_and(jnp.greater(x, 0), jnp.less(x, 6)), g, lax.full_like(g, 0)))


def squareplus(x, b=4):
    """``(x + sqrt(x**2 + b)) / 2`` (``jax.nn.squareplus``)."""
    U.check_arraylike("squareplus", x, b)
    x, b = _arr("squareplus", x), _arr("squareplus", b)
    return (x + jnp.sqrt(jnp.square(x) + b)) / 2


def _finite_or_zero(v):
    return jnp.where(jnp.isinf(v), jnp.zeros_like(v), v)


@custom_jvp
def _softplus(x):
    return jnp.logaddexp(x, 0)


# JAX's logaddexp JVP, t * exp(x - out) with infinities replaced by 0 (0.5 at x = 0); the
# plain composition's derivative is 0 there (irax.numpy.logaddexp's tie rule)
_softplus.defjvps(lambda g, ans, x: g * jnp.exp(_finite_or_zero(x) - _finite_or_zero(ans)))


def softplus(x):
    """``log(1 + exp(x))`` as ``logaddexp(x, 0)`` (``jax.nn.softplus``)."""
    return _softplus(_arr("softplus", x))


def sparse_plus(x):
    """0 below -1, ``(x+1)**2/4`` on (-1, 1), ``x`` above 1 (``jax.nn.sparse_plus``)."""
    x = _arr("sparse_plus", x)
    return jnp.where(x <= -1.0, 0.0, jnp.where(x >= 1.0, x, (x + 1.0) ** 2 / 4))


def soft_sign(x):
    """``x / (|x| + 1)`` (``jax.nn.soft_sign``)."""
    x = _arr("soft_sign", x)
    return x / (jnp.abs(x) + 1)


def sigmoid(x):
    """The logistic function ``1 / (1 + exp(-x))`` (``jax.nn.sigmoid``)."""
    return lax.logistic(_arr("sigmoid", x))


def sparse_sigmoid(x):
    """``clip((x+1)/2, 0, 1)`` (``jax.nn.sparse_sigmoid``)."""
    return 0.5 * jnp.clip(_arr("sparse_sigmoid", x) + 1.0, 0.0, 2.0)


def silu(x):
    """``x * sigmoid(x)`` (``jax.nn.silu``, alias ``swish``)."""
    x = _arr("silu", x)
    return x * sigmoid(x)


swish = silu


def mish(x):
    """``x * tanh(softplus(x))`` (``jax.nn.mish``)."""
    x = _arr("mish", x)
    return x * jnp.tanh(softplus(x))


def log_sigmoid(x):
    """``-softplus(-x)`` (``jax.nn.log_sigmoid``)."""
    x = _arr("log_sigmoid", x)
    return -softplus(-x)


def elu(x, alpha=1.0):
    """``x`` above 0, ``alpha * expm1(x)`` otherwise (``jax.nn.elu``)."""
    x = _arr("elu", x)
    pos = x > 0
    return jnp.where(pos, x, alpha * jnp.expm1(jnp.where(pos, 0.0, x)))


def leaky_relu(x, negative_slope=1e-2):
    """``x`` where ``x >= 0``, ``negative_slope * x`` otherwise (``jax.nn.leaky_relu``)."""
    x = _arr("leaky_relu", x)
    return jnp.where(x >= 0, x, negative_slope * x)


def hard_tanh(x):
    """``x`` clipped to [-1, 1] (``jax.nn.hard_tanh``)."""
    x = _arr("hard_tanh", x)
    return jnp.where(x > 1, 1, jnp.where(x < -1, -1, x))


def celu(x, alpha=1.0):
    """``max(x, 0) + alpha * expm1(min(x, 0) / alpha)`` (``jax.nn.celu``)."""
    x = _arr("celu", x)
    return jnp.maximum(x, 0.0) + alpha * jnp.expm1(jnp.minimum(x, 0.0) / alpha)


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def selu(x):
    """``scale * elu(x, alpha)`` with the self-normalising constants (``jax.nn.selu``)."""
    return _SELU_SCALE * elu(x, _SELU_ALPHA)


def gelu(x, approximate: bool = True):
    """The Gaussian error linear unit, tanh approximation by default (``jax.nn.gelu``)."""
    (x,) = U.promote_args_inexact("gelu", x)
    dt = np.dtype(x.dtype)
    if approximate:
        k = np.sqrt(2 / np.pi).astype(dt)
        cdf = 0.5 * (1.0 + jnp.tanh(k * (x + 0.044715 * (x ** 3))))
        return x * cdf
    half = np.sqrt(0.5).astype(dt)
    return jnp.array(0.5 * x * erfc(-x * half), dtype=dt)


def glu(x, axis: int = -1):
    """First half along ``axis`` times the sigmoid of the second (``jax.nn.glu``)."""
    x = _arr("glu", x)
    size = x.shape[axis]
    assert size % 2 == 0, "axis size must be divisible by 2"
    x1, x2 = jnp.split(x, 2, axis)
    return x1 * sigmoid(x2)


def hard_sigmoid(x):
    """``relu6(x + 3) / 6`` (``jax.nn.hard_sigmoid``)."""
    return relu6(_arr("hard_sigmoid", x) + 3.0) / 6.0


def hard_silu(x):
    """``x * hard_sigmoid(x)`` (``jax.nn.hard_silu``, alias ``hard_swish``)."""
    x = _arr("hard_silu", x)
    return x * hard_sigmoid(x)


hard_swish = hard_silu


@custom_jvp
def log1mexp(x):
    """``log(1 - exp(-x))``, stable for x >= 0 (``jax.nn.log1mexp``)."""
    x = _arr("log1mexp", x)
    c = jnp.log(2.0)
    return jnp.where(x < c, jnp.log(-jnp.expm1(-x)), jnp.log1p(-jnp.exp(-x)))


log1mexp.defjvps(lambda g, ans, x: g / jnp.expm1(x))
