"""The Cauchy distribution (``jax.scipy.stats.cauchy``)."""

from __future__ import annotations

import numpy as np

from irax import lax
from irax import numpy as jnp
from irax.scipy.stats._common import c, promote


def logpdf(x, loc=0, scale=1):
    """Log density (``jax.scipy.stats.cauchy.logpdf``)."""
    x, loc, scale = promote("cauchy.logpdf", x, loc, scale)
    z = lax.div(lax.sub(x, loc), scale)
    return lax.neg(lax.add(lax.log(lax.mul(c(x, np.pi), scale)), lax.log1p(lax.mul(z, z))))


def pdf(x, loc=0, scale=1):
    """Density (``jax.scipy.stats.cauchy.pdf``)."""
    return lax.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    """CDF ``1/2 + atan(z) / pi`` (``jax.scipy.stats.cauchy.cdf``)."""
    x, loc, scale = promote("cauchy.cdf", x, loc, scale)
    z = lax.div(lax.sub(x, loc), scale)
    return lax.add(c(x, 0.5), lax.mul(lax.div(c(x, 1.0), c(x, np.pi)), jnp.arctan(z)))


def logcdf(x, loc=0, scale=1):
    """Log CDF (``jax.scipy.stats.cauchy.logcdf``)."""
    return lax.log(cdf(x, loc, scale))


def sf(x, loc=0, scale=1):
    """Survival function (``jax.scipy.stats.cauchy.sf``)."""
    x, loc, scale = promote("cauchy.sf", x, loc, scale)
    return cdf(-x, -loc, scale)


def logsf(x, loc=0, scale=1):
    """Log survival function (``jax.scipy.stats.cauchy.logsf``)."""
    x, loc, scale = promote("cauchy.logsf", x, loc, scale)
    return logcdf(-x, -loc, scale)


def _quantile(q, loc, scale, sign):
    t = lax.mul(c(q, np.pi), q)
    arg = lax.sub(t, c(q, np.pi / 2)) if sign > 0 else lax.sub(c(q, np.pi / 2), t)
    return lax.add(lax.mul(lax.tan(arg), scale), loc)


def ppf(q, loc=0, scale=1):
    """Quantile function (``jax.scipy.stats.cauchy.ppf``)."""
    q, loc, scale = promote("cauchy.ppf", q, loc, scale)
    return _quantile(q, loc, scale, 1)


def isf(q, loc=0, scale=1):
    """Inverse survival function (``jax.scipy.stats.cauchy.isf``)."""
    q, loc, scale = promote("cauchy.isf", q, loc, scale)
    return _quantile(q, loc, scale, -1)
