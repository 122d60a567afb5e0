"""The beta distribution (``jax.scipy.stats.beta``)."""

from __future__ import annotations

import numpy as np

from irax import lax
from irax import numpy as jnp
from irax.scipy.stats import _special as S
from irax.scipy.stats._common import c, promote


def logpdf(x, a, b, loc=0, scale=1):
    """Log density (``jax.scipy.stats.beta.logpdf``)."""
    x, a, b, loc, scale = promote("beta.logpdf", x, a, b, loc, scale)
    one = c(x, 1)
    y = lax.div(lax.sub(x, loc), scale)
    lin = lax.add(S.xlogy(lax.sub(a, one), y), S.xlog1py(lax.sub(b, one), lax.neg(y)))
    out = lax.sub(lax.add(lax.neg(S.betaln(a, b)), lin), lax.log(scale))
    out = jnp.where(lax.gt(x, lax.add(loc, scale)) | lax.lt(x, loc), -np.inf, out)
    zero = c(a, 0)
    return jnp.where(lax.le(a, zero) | lax.le(b, zero) | lax.le(scale, zero), np.nan, out)


def pdf(x, a, b, loc=0, scale=1):
    """Density (``jax.scipy.stats.beta.pdf``)."""
    return lax.exp(logpdf(x, a, b, loc, scale))


def _unit(x, loc, scale):
    return lax.clamp(c(x, 0), lax.div(lax.sub(x, loc), scale), c(x, 1))


def cdf(x, a, b, loc=0, scale=1):
    """CDF, the regularized incomplete beta (``jax.scipy.stats.beta.cdf``)."""
    x, a, b, loc, scale = promote("beta.cdf", x, a, b, loc, scale)
    return S.betainc(a, b, _unit(x, loc, scale))


def logcdf(x, a, b, loc=0, scale=1):
    """Log CDF (``jax.scipy.stats.beta.logcdf``)."""
    return lax.log(cdf(x, a, b, loc, scale))


def sf(x, a, b, loc=0, scale=1):
    """Survival function (``jax.scipy.stats.beta.sf``)."""
    x, a, b, loc, scale = promote("beta.sf", x, a, b, loc, scale)
    return S.betainc(b, a, 1 - _unit(x, loc, scale))


def logsf(x, a, b, loc=0, scale=1):
    """Log survival function (``jax.scipy.stats.beta.logsf``)."""
    return lax.log(sf(x, a, b, loc, scale))
