"""The gamma distribution (``jax.scipy.stats.gamma``)."""

from __future__ import annotations

import numpy as np

from irax import lax
from irax import numpy as jnp
from irax.scipy.stats import _special as S
from irax.scipy.stats._common import c, promote


def logpdf(x, a, loc=0, scale=1):
    """Log density (``jax.scipy.stats.gamma.logpdf``)."""
    x, a, loc, scale = promote("gamma.logpdf", x, a, loc, scale)
    ok = lax.ge(x, loc)
    one = c(x, 1)
    y = jnp.where(ok, lax.div(lax.sub(x, loc), scale), one)
    lin = lax.sub(S.xlogy(lax.sub(a, one), y), y)
    return jnp.where(ok, lax.sub(lin, lax.add(S.gammaln(a), lax.log(scale))), -np.inf)


def pdf(x, a, loc=0, scale=1):
    """Density (``jax.scipy.stats.gamma.pdf``)."""
    return lax.exp(logpdf(x, a, loc, scale))


def cdf(x, a, loc=0, scale=1):
    """CDF, the regularized lower incomplete gamma (``jax.scipy.stats.gamma.cdf``)."""
    x, a, loc, scale = promote("gamma.cdf", x, a, loc, scale)
    y = lax.clamp(c(x, 0), lax.div(lax.sub(x, loc), scale), c(x, np.inf))
    return S.gammainc(a, y)


def logcdf(x, a, loc=0, scale=1):
    """Log CDF (``jax.scipy.stats.gamma.logcdf``)."""
    return lax.log(cdf(x, a, loc, scale))


def sf(x, a, loc=0, scale=1):
    """Survival function (``jax.scipy.stats.gamma.sf``)."""
    x, a, loc, scale = promote("gamma.sf", x, a, loc, scale)
    y = lax.div(lax.sub(x, loc), scale)
    return jnp.where(lax.lt(y, c(y, 0)), 1, S.gammaincc(a, y))


def logsf(x, a, loc=0, scale=1):
    """Log survival function (``jax.scipy.stats.gamma.logsf``)."""
    return lax.log(sf(x, a, loc, scale))
