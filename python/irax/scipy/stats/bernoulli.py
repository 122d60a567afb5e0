"""The Bernoulli distribution (``jax.scipy.stats.bernoulli``)."""

from __future__ import annotations

import numpy as np

from irax import lax
from irax import numpy as jnp
from irax.scipy.stats import _special as S
from irax.scipy.stats._common import c, promote


def logpmf(k, p, loc=0):
    """Log probability mass (``jax.scipy.stats.bernoulli.logpmf``)."""
    k, p, loc = promote("bernoulli.logpmf", k, p, loc)
    one = c(k, 1)
    x = lax.sub(k, loc)
    out = S.xlogy(x, p) + S.xlog1py(lax.sub(one, x), -p)
    return jnp.where(lax.lt(x, c(k, 0)) | lax.gt(x, one), -np.inf, out)


def pmf(k, p, loc=0):
    """Probability mass (``jax.scipy.stats.bernoulli.pmf``)."""
    return jnp.exp(logpmf(k, p, loc))


def cdf(k, p):
    """CDF (``jax.scipy.stats.bernoulli.cdf``)."""
    k, p = promote("bernoulli.cdf", k, p)
    zero, one = c(k, 0), c(k, 1)
    conds = [jnp.isnan(k) | jnp.isnan(p) | (p < zero) | (p > one), lax.lt(k, zero),
             lax.ge(k, zero) & lax.lt(k, one), lax.ge(k, one)]
    return jnp.select(conds, [np.nan, zero, one - p, one])


def ppf(q, p):
    """Quantile function (``jax.scipy.stats.bernoulli.ppf``)."""
    q, p = promote("bernoulli.ppf", q, p)
    zero, one = c(q, 0), c(q, 1)
    bad = jnp.isnan(q) | jnp.isnan(p) | (p < zero) | (p > one) | (q < zero) | (q > one)
    return jnp.where(bad, np.nan, jnp.where(lax.le(q, one - p), zero, one))
