"""The von Mises distribution (``jax.scipy.stats.vonmises``)."""

from __future__ import annotations

import numpy as np

from irax import lax
from irax import numpy as jnp
from irax.scipy.stats._common import c, promote


def logpdf(x, kappa):
    """Log density (``jax.scipy.stats.vonmises.logpdf``); NaN for ``kappa <= 0``."""
    x, kappa = promote("vonmises.logpdf", x, kappa)
    out = kappa * (jnp.cos(x) - 1) - jnp.log(2 * np.pi * lax.bessel_i0e(kappa))
    return jnp.where(lax.gt(kappa, c(kappa, 0)), out, np.nan)


def pdf(x, kappa):
    """Density (``jax.scipy.stats.vonmises.pdf``)."""
    return lax.exp(logpdf(x, kappa))
