"""The logistic distribution (``jax.scipy.stats.logistic``)."""

from __future__ import annotations

from irax import lax
from irax import numpy as jnp
from irax.scipy.stats import _special as S
from irax.scipy.stats._common import c, promote


def logpdf(x, loc=0, scale=1):
    """Log density (``jax.scipy.stats.logistic.logpdf``)."""
    x, loc, scale = promote("logistic.logpdf", x, loc, scale)
    z = lax.div(lax.sub(x, loc), scale)
    half = lax.div(z, c(z, 2))
    return lax.sub(lax.mul(lax.neg(c(z, 2)), jnp.logaddexp(half, lax.neg(half))),
                   lax.log(scale))


def pdf(x, loc=0, scale=1):
    """Density (``jax.scipy.stats.logistic.pdf``)."""
    return lax.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    """CDF (``jax.scipy.stats.logistic.cdf``)."""
    x, loc, scale = promote("logistic.cdf", x, loc, scale)
    return S.expit(lax.div(lax.sub(x, loc), scale))


def sf(x, loc=0, scale=1):
    """Survival function (``jax.scipy.stats.logistic.sf``)."""
    x, loc, scale = promote("logistic.sf", x, loc, scale)
    return S.expit(lax.neg(lax.div(lax.sub(x, loc), scale)))


def ppf(x, loc=0, scale=1):
    """Quantile function (``jax.scipy.stats.logistic.ppf``)."""
    x, loc, scale = promote("logistic.ppf", x, loc, scale)
    return lax.add(lax.mul(S.logit(x), scale), loc)


def isf(x, loc=0, scale=1):
    """Inverse survival function (``jax.scipy.stats.logistic.isf``)."""
    x, loc, scale = promote("logistic.isf", x, loc, scale)
    return lax.add(lax.mul(lax.neg(S.logit(x)), scale), loc)
