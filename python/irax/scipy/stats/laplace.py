"""The Laplace distribution (``jax.scipy.stats.laplace``)."""

from __future__ import annotations

from irax import lax
from irax.scipy.stats._common import c, promote


def logpdf(x, loc=0, scale=1):
    """Log density (``jax.scipy.stats.laplace.logpdf``)."""
    x, loc, scale = promote("laplace.logpdf", x, loc, scale)
    lin = lax.div(lax.abs(lax.sub(x, loc)), scale)
    return lax.neg(lax.add(lin, lax.log(lax.mul(c(x, 2), scale))))


def pdf(x, loc=0, scale=1):
    """Density (``jax.scipy.stats.laplace.pdf``)."""
    return lax.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    """CDF (``jax.scipy.stats.laplace.cdf``)."""
    x, loc, scale = promote("laplace.cdf", x, loc, scale)
    half = c(x, 0.5)
    d = lax.div(lax.sub(x, loc), scale)
    return lax.select(lax.le(d, c(x, 0)), lax.mul(half, lax.exp(d)),
                      lax.sub(c(x, 1), lax.mul(half, lax.exp(lax.neg(d)))))
