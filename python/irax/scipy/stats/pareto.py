"""The Pareto distribution (``jax.scipy.stats.pareto``)."""

from __future__ import annotations

import numpy as np

from irax import lax
from irax import numpy as jnp
from irax.scipy.stats._common import c, promote


def _below(x, loc, scale):
    return lax.lt(x, lax.add(loc, scale))


def logpdf(x, b, loc=0, scale=1):
    """Log density (``jax.scipy.stats.pareto.logpdf``)."""
    x, b, loc, scale = promote("pareto.logpdf", x, b, loc, scale)
    z = lax.div(lax.sub(x, loc), scale)
    out = lax.neg(lax.add(lax.log(lax.div(scale, b)),
                          lax.mul(lax.add(b, c(x, 1)), lax.log(z))))
    return jnp.where(_below(x, loc, scale), -np.inf, out)


def pdf(x, b, loc=0, scale=1):
    """Density (``jax.scipy.stats.pareto.pdf``)."""
    return lax.exp(logpdf(x, b, loc, scale))


def cdf(x, b, loc=0, scale=1):
    """CDF (``jax.scipy.stats.pareto.cdf``)."""
    x, b, loc, scale = promote("pareto.cdf", x, b, loc, scale)
    z = lax.div(lax.sub(x, loc), scale)
    out = lax.sub(c(x, 1), lax.pow(z, lax.neg(b)))
    return jnp.where(_below(x, loc, scale), c(x, 0), out)


def logcdf(x, b, loc=0, scale=1):
    """Log CDF (``jax.scipy.stats.pareto.logcdf``)."""
    x, b, loc, scale = promote("pareto.logcdf", x, b, loc, scale)
    z = lax.div(lax.sub(x, loc), scale)
    out = lax.log1p(lax.neg(lax.pow(z, lax.neg(b))))
    return jnp.where(_below(x, loc, scale), -np.inf, out)


def logsf(x, b, loc=0, scale=1):
    """Log survival function (``jax.scipy.stats.pareto.logsf``)."""
    x, b, loc, scale = promote("pareto.logsf", x, b, loc, scale)
    z = lax.div(lax.sub(x, loc), scale)
    return jnp.where(_below(x, loc, scale), c(x, 0), lax.neg(lax.mul(b, lax.log(z))))


def sf(x, b, loc=0, scale=1):
    """Survival function (``jax.scipy.stats.pareto.sf``)."""
    return lax.exp(logsf(x, b, loc, scale))


def ppf(q, b, loc=0, scale=1):
    """Quantile function (``jax.scipy.stats.pareto.ppf``)."""
    q, b, loc, scale = promote("pareto.ppf", q, b, loc, scale)
    one = c(q, 1)
    out = lax.add(loc, lax.mul(scale, lax.pow(lax.sub(one, q), lax.neg(lax.div(one, b)))))
    return jnp.where(jnp.isnan(q) | (q < 0) | (q > 1), np.nan, out)
