"""The left-skewed Gumbel distribution (``jax.scipy.stats.gumbel_l``)."""

from __future__ import annotations

import numpy as np

from irax import lax
from irax import numpy as jnp
from irax.scipy.stats import _special as S
from irax.scipy.stats._common import c, promote


def _z(name, x, loc, scale):
    x, loc, scale = promote(name, x, loc, scale)
    return x, lax.gt(scale, c(scale, 0)), lax.div(lax.sub(x, loc), scale), scale


def logpdf(x, loc=0, scale=1):
    """Log density (``jax.scipy.stats.gumbel_l.logpdf``)."""
    _, ok, z, scale = _z("gumbel_l.logpdf", x, loc, scale)
    return jnp.where(ok, lax.add(S.xlogy(-1, scale), lax.sub(z, lax.exp(z))), np.nan)


def pdf(x, loc=0, scale=1):
    """Density (``jax.scipy.stats.gumbel_l.pdf``)."""
    return lax.exp(logpdf(x, loc, scale))


def logcdf(x, loc=0, scale=1):
    """Log CDF (``jax.scipy.stats.gumbel_l.logcdf``)."""
    _, ok, z, _ = _z("gumbel_l.logcdf", x, loc, scale)
    return jnp.where(ok, lax.log(-lax.expm1(lax.neg(lax.exp(z)))), np.nan)


def cdf(x, loc=0, scale=1):
    """CDF (``jax.scipy.stats.gumbel_l.cdf``)."""
    return lax.exp(logcdf(x, loc, scale))


def logsf(x, loc=0, scale=1):
    """Log survival function (``jax.scipy.stats.gumbel_l.logsf``)."""
    _, ok, z, _ = _z("gumbel_l.logsf", x, loc, scale)
    return jnp.where(ok, lax.neg(lax.exp(z)), np.nan)


def sf(x, loc=0, scale=1):
    """Survival function (``jax.scipy.stats.gumbel_l.sf``)."""
    return jnp.exp(logsf(x, loc, scale))


def ppf(p, loc=0, scale=1):
    """Quantile function (``jax.scipy.stats.gumbel_l.ppf``)."""
    p, loc, scale = promote("gumbel_l.ppf", p, loc, scale)
    ok = lax.bitwise_and(lax.gt(p, c(p, 0)), lax.lt(p, c(p, 1)))
    q = lax.add(loc, lax.mul(scale, lax.log(S.xlog1py(-1, lax.neg(p)))))
    return jnp.where(ok, q, np.nan)
