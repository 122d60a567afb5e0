"""Student's t distribution (``jax.scipy.stats.t``)."""

from __future__ import annotations

import numpy as np

from irax import lax
from irax.scipy.stats._common import c, promote


def logpdf(x, df, loc=0, scale=1):
    """Log density (``jax.scipy.stats.t.logpdf``)."""
    x, df, loc, scale = promote("t.logpdf", x, df, loc, scale)
    two = c(x, 2)
    z = lax.div(lax.sub(x, loc), scale)
    half_df = lax.div(df, two)
    half_df1 = lax.add(half_df, c(x, 0.5))
    log_scale_term = lax.div(lax.log(lax.mul(lax.mul(lax.mul(scale, scale), c(x, np.pi)), df)),
                             two)
    norm = lax.sub(lax.add(lax.lgamma(half_df), log_scale_term), lax.lgamma(half_df1))
    return lax.neg(lax.add(norm, lax.mul(half_df1, lax.log1p(lax.div(lax.mul(z, z), df)))))


def pdf(x, df, loc=0, scale=1):
    """Density (``jax.scipy.stats.t.pdf``)."""
    return lax.exp(logpdf(x, df, loc, scale))
