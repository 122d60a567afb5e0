"""The special functions the distributions use: ``irax.scipy.special``'s, plus the few
helpers of JAX's stats code that are not in it (``_lax_const``, ``log1mexp``, a two-term
signed ``logsumexp``)."""

from __future__ import annotations

import numpy as np

from irax import lax
from irax import numpy as jnp
from irax.numpy import _util as U
from irax.scipy.special import (  # noqa: F401 - re-exported for the distributions
    betainc,
    betaln,
    entr,
    expit,
    gammainc,
    gammaincc,
    gammaln,
    log_ndtr,
    logit,
    logsumexp,
    ndtr,
    ndtri,
    xlog1py,
    xlogy,
)
from irax.transforms.custom_derivatives import custom_jvp


def c(x, value):
    """``value`` as a scalar of ``x``'s dtype, JAX's ``_lax_const``: a Python scalar (weak)
    when ``x`` is a weak scalar, else a NumPy scalar of ``x``'s dtype (not weak)."""
    a = U.aval_of(x)
    if a.weak_type and len(a.shape) == 0:
        kind = np.dtype(a.dtype).kind
        return complex(value) if kind == "c" else float(value) if kind == "f" else int(value)
    return np.array(value, dtype=a.dtype)


@custom_jvp
def log1mexp(x):
    """``log(1 - exp(-x))``, stable (``jax.nn.log1mexp``)."""
    x = jnp.asarray(x)
    return jnp.where(x < jnp.log(2.0), jnp.log(-jnp.expm1(-x)), jnp.log1p(-jnp.exp(-x)))


@log1mexp.defjvp
def _log1mexp_jvp(primals, tangents):
    (x,), (dx,) = primals, tangents
    return log1mexp(x), dx / jnp.expm1(x)


def log_diff_exp(x, y):
    """``log(exp(x) - exp(y))`` as JAX's ``logsumexp`` with weights ``(1, -1)``."""
    m = jnp.maximum(x, y)
    m = lax.stop_gradient(jnp.where(jnp.isfinite(m), m, jnp.zeros_like(m)))
    return jnp.log(jnp.exp(x - m) - jnp.exp(y - m)) + m
