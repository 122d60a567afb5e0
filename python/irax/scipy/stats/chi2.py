"""The chi-squared distribution (``jax.scipy.stats.chi2``)."""

from __future__ import annotations

import numpy as np

from irax import lax
from irax import numpy as jnp
from irax.scipy.stats import _special as S
from irax.scipy.stats._common import c, promote


def logpdf(x, df, loc=0, scale=1):
    """Log density (``jax.scipy.stats.chi2.logpdf``)."""
    x, df, loc, scale = promote("chi2.logpdf", x, df, loc, scale)
    two = c(x, 2)
    y = lax.div(lax.sub(x, loc), scale)
    half_df = lax.div(df, two)
    kernel = lax.sub(lax.mul(lax.sub(half_df, c(x, 1)), lax.log(y)), lax.div(y, two))
    const = lax.neg(lax.add(lax.lgamma(half_df), lax.div(lax.mul(lax.log(two), df), two)))
    out = lax.add(lax.sub(const, lax.log(scale)), kernel)
    return jnp.where(lax.lt(x, loc), -np.inf, out)


def pdf(x, df, loc=0, scale=1):
    """Density (``jax.scipy.stats.chi2.pdf``)."""
    return lax.exp(logpdf(x, df, loc, scale))


def _scaled(x, loc, scale):
    return lax.clamp(c(x, 0), lax.div(lax.sub(x, loc), lax.mul(scale, c(scale, 2))),
                     c(x, np.inf))


def cdf(x, df, loc=0, scale=1):
    """CDF (``jax.scipy.stats.chi2.cdf``)."""
    x, df, loc, scale = promote("chi2.cdf", x, df, loc, scale)
    return S.gammainc(lax.div(df, c(scale, 2)), _scaled(x, loc, scale))


def logcdf(x, df, loc=0, scale=1):
    """Log CDF (``jax.scipy.stats.chi2.logcdf``)."""
    return lax.log(cdf(x, df, loc, scale))


def sf(x, df, loc=0, scale=1):
    """Survival function (``jax.scipy.stats.chi2.sf``)."""
    x, df, loc, scale = promote("chi2.sf", x, df, loc, scale)
    return S.gammaincc(lax.div(df, c(scale, 2)), _scaled(x, loc, scale))


def logsf(x, df, loc=0, scale=1):
    """Log survival function (``jax.scipy.stats.chi2.logsf``)."""
    return lax.log(sf(x, df, loc, scale))
