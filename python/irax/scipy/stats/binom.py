"""The binomial distribution (``jax.scipy.stats.binom``)."""

from __future__ import annotations

import numpy as np

from irax import lax
from irax import numpy as jnp
from irax.scipy.stats import _special as S
from irax.scipy.stats._common import c, promote


def logpmf(k, n, p, loc=0):
    """Log probability mass (``jax.scipy.stats.binom.logpmf``)."""
    k, n, p, loc = promote("binom.logpmf", k, n, p, loc)
    y = lax.sub(k, loc)
    zero = c(y, 0)
    comb = lax.sub(S.gammaln(n + 1), lax.add(S.gammaln(y + 1), S.gammaln(n - y + 1)))
    lin = lax.add(S.xlogy(y, p), S.xlog1py(lax.sub(n, y), lax.neg(p)))
    out = lax.add(comb, lin)
    out = jnp.where((lax.eq(y, zero) & lax.eq(n, zero)) | lax.eq(lin, zero), 0.0, out)
    return jnp.where(lax.ge(k, loc) & lax.lt(k, loc + n + 1), out, -np.inf)


def pmf(k, n, p, loc=0):
    """Probability mass (``jax.scipy.stats.binom.pmf``)."""
    return lax.exp(logpmf(k, n, p, loc))
