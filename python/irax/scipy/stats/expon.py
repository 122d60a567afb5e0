"""The exponential distribution (``jax.scipy.stats.expon``)."""

from __future__ import annotations

import numpy as np

from irax import lax
from irax import numpy as jnp
from irax.scipy.stats._common import promote


def logpdf(x, loc=0, scale=1):
    """Log density (``jax.scipy.stats.expon.logpdf``)."""
    x, loc, scale = promote("expon.logpdf", x, loc, scale)
    out = lax.neg(lax.add(lax.div(lax.sub(x, loc), scale), lax.log(scale)))
    return jnp.where(lax.lt(x, loc), -np.inf, out)


def pdf(x, loc=0, scale=1):
    """Density (``jax.scipy.stats.expon.pdf``)."""
    return lax.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    """CDF ``1 - exp(-(x - loc) / scale)`` (``jax.scipy.stats.expon.cdf``)."""
    x, loc, scale = promote("expon.cdf", x, loc, scale)
    t = lax.div(lax.sub(loc, x), scale)
    return jnp.where(lax.lt(x, loc), jnp.zeros_like(t), lax.neg(lax.expm1(t)))


def logsf(x, loc=0, scale=1):
    """Log survival function (``jax.scipy.stats.expon.logsf``)."""
    x, loc, scale = promote("expon.sf", x, loc, scale)
    t = lax.div(lax.sub(loc, x), scale)
    return jnp.where(lax.lt(x, loc), jnp.zeros_like(t), t)


def sf(x, loc=0, scale=1):
    """Survival function (``jax.scipy.stats.expon.sf``)."""
    return lax.exp(logsf(x, loc, scale))


def logcdf(x, loc=0, scale=1):
    """Log CDF (``jax.scipy.stats.expon.logcdf``)."""
    return lax.log1p(lax.neg(sf(x, loc, scale)))


def ppf(q, loc=0, scale=1):
    """Quantile function (``jax.scipy.stats.expon.ppf``)."""
    q, loc, scale = promote("expon.ppf", q, loc, scale)
    bad = jnp.isnan(q) | (q < 0) | (q > 1)
    return jnp.where(bad, np.nan, lax.sub(loc, lax.mul(scale, lax.log1p(lax.neg(q)))))
