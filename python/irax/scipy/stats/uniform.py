"""The uniform distribution on ``[loc, loc + scale]`` (``jax.scipy.stats.uniform``)."""

from __future__ import annotations

import numpy as np

from irax import lax
from irax import numpy as jnp
from irax.numpy import _util as U
from irax.scipy.stats._common import promote


def logpdf(x, loc=0, scale=1):
    """Log density (``jax.scipy.stats.uniform.logpdf``)."""
    x, loc, scale = promote("uniform.logpdf", x, loc, scale)
    out = lax.neg(lax.log(scale))
    return jnp.where(lax.gt(x, lax.add(loc, scale)) | lax.lt(x, loc), -np.inf, out)


def pdf(x, loc=0, scale=1):
    """Density (``jax.scipy.stats.uniform.pdf``)."""
    return lax.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    """CDF (``jax.scipy.stats.uniform.cdf``)."""
    x, loc, scale = promote("uniform.cdf", x, loc, scale)
    dt = U.aval_of(x).dtype
    zero, one = jnp.array(0, dt), jnp.array(1, dt)
    hi = lax.add(loc, scale)
    conds = [lax.lt(x, loc), lax.gt(x, hi), lax.ge(x, loc) & lax.le(x, hi)]
    return jnp.select(conds, [zero, one, lax.div(lax.sub(x, loc), scale)])


def ppf(q, loc=0, scale=1):
    """Quantile function (``jax.scipy.stats.uniform.ppf``)."""
    q, loc, scale = promote("uniform.ppf", q, loc, scale)
    return jnp.where(jnp.isnan(q) | (q < 0) | (q > 1), np.nan, lax.add(loc, lax.mul(scale, q)))
