"""The geometric distribution (``jax.scipy.stats.geom``)."""

from __future__ import annotations

import numpy as np

from irax import lax
from irax import numpy as jnp
from irax.scipy.stats import _special as S
from irax.scipy.stats._common import c, promote


def logpmf(k, p, loc=0):
    """Log probability mass (``jax.scipy.stats.geom.logpmf``)."""
    k, p, loc = promote("geom.logpmf", k, p, loc)
    x = lax.sub(k, loc)
    out = S.xlog1py(lax.sub(x, c(k, 1)), -p) + lax.log(p)
    return jnp.where(lax.le(x, c(k, 0)), -np.inf, out)


def pmf(k, p, loc=0):
    """Probability mass (``jax.scipy.stats.geom.pmf``)."""
    return jnp.exp(logpmf(k, p, loc))
