"""The beta-binomial distribution (``jax.scipy.stats.betabinom``)."""

from __future__ import annotations

import numpy as np

from irax import lax
from irax import numpy as jnp
from irax.scipy.stats import _special as S
from irax.scipy.stats._common import c, promote


def logpmf(k, n, a, b, loc=0):
    """Log probability mass (``jax.scipy.stats.betabinom.logpmf``)."""
    k, n, a, b, loc = promote("betabinom.logpmf", k, n, a, b, loc)
    y = lax.sub(lax.floor(k), loc)
    one, zero = c(y, 1), c(y, 0)
    comb = lax.neg(lax.add(lax.log1p(n), S.betaln(lax.add(lax.sub(n, y), one),
                                                  lax.add(y, one))))
    betas = lax.sub(S.betaln(lax.add(y, a), lax.add(lax.sub(n, y), b)), S.betaln(a, b))
    out = lax.add(comb, betas)
    out = jnp.where(lax.eq(y, zero) & lax.eq(n, zero), 0.0, out)
    outside = lax.lt(y, lax.neg(loc)) | lax.gt(y, n) | lax.le(lax.add(y, a), zero)
    out = jnp.where(outside, -np.inf, out)
    return jnp.where(lax.lt(n, zero) | lax.le(a, zero) | lax.le(b, zero), np.nan, out)


def pmf(k, n, a, b, loc=0):
    """Probability mass (``jax.scipy.stats.betabinom.pmf``)."""
    return lax.exp(logpmf(k, n, a, b, loc))
