"""The right-skewed Gumbel distribution (``jax.scipy.stats.gumbel_r``)."""

from __future__ import annotations

import numpy as np

from irax import lax
from irax import numpy as jnp
from irax.scipy.stats import _special as S
from irax.scipy.stats._common import c, promote


def _z(name, x, loc, scale):
    x, loc, scale = promote(name, x, loc, scale)
    return lax.gt(scale, c(scale, 0)), lax.div(lax.sub(x, loc), scale), scale


def logpdf(x, loc=0, scale=1):
    """Log density (``jax.scipy.stats.gumbel_r.logpdf``)."""
    ok, z, scale = _z("gumbel_r.logpdf", x, loc, scale)
    t = lax.neg(lax.add(z, lax.exp(lax.neg(z))))
    return jnp.where(ok, lax.add(S.xlogy(-1, scale), t), np.nan)


def pdf(x, loc=0, scale=1):
    """Density (``jax.scipy.stats.gumbel_r.pdf``)."""
    return lax.exp(logpdf(x, loc, scale))


def logcdf(x, loc=0, scale=1):
    """Log CDF (``jax.scipy.stats.gumbel_r.logcdf``)."""
    ok, z, _ = _z("gumbel_r.logcdf", x, loc, scale)
    return jnp.where(ok, lax.neg(lax.exp(lax.neg(z))), np.nan)


def cdf(x, loc=0, scale=1):
    """CDF (``jax.scipy.stats.gumbel_r.cdf``)."""
    return lax.exp(logcdf(x, loc, scale))


def ppf(p, loc=0, scale=1):
    """Quantile function (``jax.scipy.stats.gumbel_r.ppf``)."""
    p, loc, scale = promote("gumbel_r.ppf", p, loc, scale)
    ok = lax.bitwise_and(lax.gt(p, c(p, 0)), lax.lt(p, c(p, 1)))
    q = lax.sub(loc, lax.mul(scale, lax.log(S.xlogy(-1, p))))
    return jnp.where(ok, q, np.nan)


def sf(x, loc=0, scale=1):
    """Survival function (``jax.scipy.stats.gumbel_r.sf``)."""
    x, loc, scale = promote("gumbel_r.sf", x, loc, scale)
    ok = lax.gt(scale, c(scale, 0))
    neg_z = lax.div(lax.sub(loc, x), scale)
    return jnp.where(ok, lax.sub(c(x, 1), lax.exp(lax.neg(lax.exp(neg_z)))), np.nan)


def logsf(x, loc=0, scale=1):
    """Log survival function (``jax.scipy.stats.gumbel_r.logsf``)."""
    x, loc, scale = promote("gumbel_r.logsf", x, loc, scale)
    ok = lax.gt(scale, c(scale, 0))
    neg_z = lax.div(lax.sub(loc, x), scale)
    return jnp.where(ok, S.log1mexp(lax.exp(neg_z)), np.nan)
