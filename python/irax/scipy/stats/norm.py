"""The normal distribution (``jax.scipy.stats.norm``)."""

from __future__ import annotations

import numpy as np

from irax import lax
from irax import numpy as jnp
from irax.scipy.stats import _special as S
from irax.scipy.stats._common import c, promote


def logpdf(x, loc=0, scale=1):
    """Log of the normal density (``jax.scipy.stats.norm.logpdf``)."""
    x, loc, scale = promote("norm.logpdf", x, loc, scale)
    var = lax.square(scale)
    log_norm = lax.log(lax.mul(c(x, 2 * np.pi), var))
    quad = lax.div(lax.square(lax.sub(x, loc)), var)
    return lax.div(lax.add(log_norm, quad), c(x, -2))


def pdf(x, loc=0, scale=1):
    """The normal density (``jax.scipy.stats.norm.pdf``)."""
    return lax.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    """The normal CDF (``jax.scipy.stats.norm.cdf``)."""
    x, loc, scale = promote("norm.cdf", x, loc, scale)
    return S.ndtr(lax.div(lax.sub(x, loc), scale))


def sf(x, loc=0, scale=1):
    """The normal survival function ``1 - cdf`` (``jax.scipy.stats.norm.sf``)."""
    x, loc, scale = promote("norm.sf", x, loc, scale)
    return cdf(-x, -loc, scale)


def logcdf(x, loc=0, scale=1):
    """Log of the normal CDF (``jax.scipy.stats.norm.logcdf``)."""
    x, loc, scale = promote("norm.logcdf", x, loc, scale)
    return S.log_ndtr(lax.div(lax.sub(x, loc), scale))


def logsf(x, loc=0, scale=1):
    """Log of the normal survival function (``jax.scipy.stats.norm.logsf``)."""
    x, loc, scale = promote("norm.logsf", x, loc, scale)
    return logcdf(-x, -loc, scale)


def ppf(q, loc=0, scale=1):
    """The normal quantile function (``jax.scipy.stats.norm.ppf``)."""
    return jnp.asarray(S.ndtri(q) * scale + loc, float)


def isf(q, loc=0, scale=1):
    """The inverse survival function ``ppf(1 - q)`` (``jax.scipy.stats.norm.isf``)."""
    return ppf(lax.sub(c(q, 1), q), loc, scale)
