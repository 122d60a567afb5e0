"""The Poisson distribution (``jax.scipy.stats.poisson``)."""

from __future__ import annotations

import numpy as np

from irax import lax
from irax import numpy as jnp
from irax.numpy import _util as U
from irax.scipy.stats import _special as S
from irax.scipy.stats._common import c, promote


def logpmf(k, mu, loc=0):
    """Log probability mass (``jax.scipy.stats.poisson.logpmf``)."""
    k, mu, loc = promote("poisson.logpmf", k, mu, loc)
    x = lax.sub(k, loc)
    out = S.xlogy(x, mu) - S.gammaln(x + 1) - mu
    return jnp.where(lax.lt(x, c(k, 0)) | lax.ne(jnp.round(k), k), -np.inf, out)


def pmf(k, mu, loc=0):
    """Probability mass (``jax.scipy.stats.poisson.pmf``)."""
    return jnp.exp(logpmf(k, mu, loc))


def cdf(k, mu, loc=0):
    """CDF (``jax.scipy.stats.poisson.cdf``)."""
    k, mu, loc = promote("poisson.logpmf", k, mu, loc)
    x = lax.sub(k, loc)
    return jnp.where(lax.lt(x, c(k, 0)), c(k, 0), S.gammaincc(jnp.floor(1 + x), mu))


def _entropy_sum(mu, max_k: int, bound):
    k = jnp.arange(max_k, dtype=U.aval_of(mu).dtype)[:, None]
    probs = pmf(k, mu, 0)
    mask = k < jnp.ceil(bound).astype(k.dtype)[None, :]
    return jnp.sum(S.entr(jnp.where(mask, probs, 0.0)), axis=0)


def entropy(mu, loc=0):
    """The entropy (``jax.scipy.stats.poisson.entropy``): a direct sum below ``mu = 100``,
    the asymptotic expansion above."""
    U.check_arraylike("poisson.entropy", mu, loc)
    mu, loc = U.promote_dtypes_inexact(jnp.asarray(mu), jnp.asarray(loc))
    shape = U.broadcast_shapes("poisson.entropy", U.aval_of(mu).shape, U.aval_of(loc).shape)
    flat = jnp.ravel(mu)
    small = _entropy_sum(flat, 35, flat + 20)
    medium = _entropy_sum(flat, 250, flat + 10 * jnp.sqrt(flat) + 20)
    large = 0.5 * jnp.log(2 * np.pi * np.e * flat) - 1.0 / (12 * flat)
    out = jnp.where(flat == 0, jnp.zeros_like(flat),
                    jnp.where(flat < 10, small, jnp.where(flat < 100, medium, large)))
    return jnp.broadcast_to(jnp.reshape(out, U.aval_of(mu).shape), shape)
