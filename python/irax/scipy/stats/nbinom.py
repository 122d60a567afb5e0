"""The negative binomial distribution (``jax.scipy.stats.nbinom``)."""

from __future__ import annotations

import numpy as np

from irax import lax
from irax import numpy as jnp
from irax.scipy.stats import _special as S
from irax.scipy.stats._common import c, promote


def logpmf(k, n, p, loc=0):
    """Log probability mass (``jax.scipy.stats.nbinom.logpmf``)."""
    k, n, p, loc = promote("nbinom.logpmf", k, n, p, loc)
    one = c(k, 1)
    y = lax.sub(k, loc)
    comb = lax.sub(lax.sub(S.gammaln(lax.add(y, n)), S.gammaln(n)), S.gammaln(lax.add(y, one)))
    lin = lax.add(S.xlogy(n, p), S.xlogy(y, lax.sub(one, p)))
    return jnp.where(lax.lt(k, loc), -np.inf, lax.add(comb, lin))


def pmf(k, n, p, loc=0):
    """Probability mass (``jax.scipy.stats.nbinom.pmf``)."""
    return lax.exp(logpmf(k, n, p, loc))
