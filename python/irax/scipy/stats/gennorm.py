"""The generalized normal distribution (``jax.scipy.stats.gennorm``)."""

from __future__ import annotations

from irax import lax
from irax.scipy.stats._common import promote


def logpdf(x, beta):
    """Log density (``jax.scipy.stats.gennorm.logpdf``)."""
    x, beta = promote("gennorm.logpdf", x, beta)
    return lax.log(0.5 * beta) - lax.lgamma(1 / beta) - lax.abs(x) ** beta


def cdf(x, beta):
    """CDF (``jax.scipy.stats.gennorm.cdf``)."""
    x, beta = promote("gennorm.cdf", x, beta)
    return 0.5 * (1 + lax.sign(x) * lax.igamma(1 / beta, lax.abs(x) ** beta))


def pdf(x, beta):
    """Density (``jax.scipy.stats.gennorm.pdf``)."""
    return lax.exp(logpdf(x, beta))
