"""The wrapped Cauchy distribution (``jax.scipy.stats.wrapcauchy``)."""

from __future__ import annotations

import numpy as np

from irax import lax
from irax import numpy as jnp
from irax.scipy.stats._common import c as const
from irax.scipy.stats._common import promote


def logpdf(x, c):
    """Log density on ``[0, 2 pi]`` for ``0 < c < 1`` (``jax.scipy.stats.wrapcauchy.logpdf``)."""
    x, cc = promote("wrapcauchy.logpdf", x, c)
    inside = lax.ge(x, const(x, 0)) & lax.le(x, const(x, np.pi * 2))
    dens = (jnp.log(1 - cc * cc) - jnp.log(2 * np.pi)
            - jnp.log(1 + cc * cc - 2 * cc * jnp.cos(x)))
    valid = lax.gt(cc, const(cc, 0)) & lax.lt(cc, const(cc, 1))
    return jnp.where(valid, jnp.where(inside, dens, -np.inf), np.nan)


def pdf(x, c):
    """Density (``jax.scipy.stats.wrapcauchy.pdf``)."""
    return lax.exp(logpdf(x, c))
