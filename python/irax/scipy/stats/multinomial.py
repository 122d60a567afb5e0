"""The multinomial distribution (``jax.scipy.stats.multinomial``)."""

from __future__ import annotations

import numpy as np

from irax import numpy as jnp
from irax.core import dtypes
from irax.numpy import _util as U
from irax.scipy.stats import _special as S


def logpmf(x, n, p):
    """Log probability mass of counts ``x`` (last axis) of ``n`` trials
    (``jax.scipy.stats.multinomial.logpmf``)."""
    U.check_arraylike("multinomial.logpmf", p)
    (p,) = U.promote_dtypes_inexact(jnp.asarray(p))
    U.check_arraylike("multinomial.logpmf", x, n)
    x, n = U.promote_dtypes_numeric(jnp.asarray(x), jnp.asarray(n))
    if not dtypes.is_int(U.aval_of(x).dtype):
        raise ValueError(f"x and n must be of integer type; got x.dtype={U.aval_of(x).dtype}, "
                         f"n.dtype={U.aval_of(n).dtype}")
    dt = U.aval_of(p).dtype
    x, n = x.astype(dt), n.astype(dt)
    out = S.gammaln(n + 1) + jnp.sum(S.xlogy(x, p) - S.gammaln(x + 1), axis=-1)
    return jnp.where(jnp.equal(jnp.sum(x), n), out, -np.inf)


def pmf(x, n, p):
    """Probability mass (``jax.scipy.stats.multinomial.pmf``)."""
    return jnp.exp(logpmf(x, n, p))
