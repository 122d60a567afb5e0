"""The truncated normal distribution on ``[a, b]`` (standardized bounds)
(``jax.scipy.stats.truncnorm``); needs ``log_ndtr`` from ``irax.scipy.special``."""

from __future__ import annotations

import numpy as np

from irax import lax
from irax import numpy as jnp
from irax.scipy.stats import _special as S
from irax.scipy.stats import norm
from irax.scipy.stats._common import promote


def _log_gauss_mass(a, b):
    """``log(ndtr(b) - ndtr(a))``, stable in both tails."""
    a, b = jnp.broadcast_arrays(jnp.array(a), jnp.array(b))
    left, right = b <= 0, a > 0
    central = ~(left | right)
    a_tail = jnp.where(right, -b, a)
    b_tail = jnp.where(right, -a, b)
    tail = S.log_diff_exp(S.log_ndtr(b_tail), S.log_ndtr(a_tail))
    mid = jnp.log1p(-S.ndtr(a) - S.ndtr(-b))
    return jnp.where(central, mid, tail)


def logpdf(x, a, b, loc=0, scale=1):
    """Log density (``jax.scipy.stats.truncnorm.logpdf``)."""
    x, a, b, loc, scale = promote("truncnorm.logpdf", x, a, b, loc, scale)
    val = lax.sub(norm.logpdf(x, loc, scale), _log_gauss_mass(a, b))
    z = lax.div(lax.sub(x, loc), scale)
    val = jnp.where((z < a) | (z > b), -np.inf, val)
    return jnp.where(a >= b, np.nan, val)


def pdf(x, a, b, loc=0, scale=1):
    """Density (``jax.scipy.stats.truncnorm.pdf``)."""
    return lax.exp(logpdf(x, a, b, loc, scale))


def logcdf(x, a, b, loc=0, scale=1):
    """Log CDF (``jax.scipy.stats.truncnorm.logcdf``)."""
    x, a, b, loc, scale = promote("truncnorm.logcdf", x, a, b, loc, scale)
    x = lax.div(lax.sub(x, loc), scale)
    mass = _log_gauss_mass(a, b)
    lcdf = _log_gauss_mass(a, x) - mass
    lsf = _log_gauss_mass(x, b) - mass
    out = jnp.select([x >= b, x <= a, lcdf > -0.1, x > a],
                     [0, -np.inf, jnp.log1p(-jnp.exp(lsf)), lcdf])
    return jnp.where(a >= b, np.nan, out)


def cdf(x, a, b, loc=0, scale=1):
    """CDF (``jax.scipy.stats.truncnorm.cdf``)."""
    return lax.exp(logcdf(x, a, b, loc, scale))


def logsf(x, a, b, loc=0, scale=1):
    """Log survival function (``jax.scipy.stats.truncnorm.logsf``)."""
    x, a, b, loc, scale = promote("truncnorm.logsf", x, a, b, loc, scale)
    return logcdf(-x, -b, -a, -loc, scale)


def sf(x, a, b, loc=0, scale=1):
    """Survival function (``jax.scipy.stats.truncnorm.sf``)."""
    return lax.exp(logsf(x, a, b, loc, scale))
