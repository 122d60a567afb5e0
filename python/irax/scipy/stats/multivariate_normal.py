"""The multivariate normal distribution (``jax.scipy.stats.multivariate_normal``)."""

from __future__ import annotations

import numpy as np

from irax import lax
from irax import numpy as jnp
from irax.lax import linalg as lax_linalg
from irax.numpy import _util as U


def logpdf(x, mean, cov, allow_singular=None):
    """Log density; ``cov`` a scalar (isotropic) or ``(..., n, n)`` matrices
    (``jax.scipy.stats.multivariate_normal.logpdf``)."""
    if allow_singular is not None:
        raise NotImplementedError("allow_singular argument of multivariate_normal.logpdf")
    x, mean, cov = U.promote_dtypes_inexact(jnp.asarray(x), jnp.asarray(mean),
                                            jnp.asarray(cov))
    sm, sc = U.aval_of(mean).shape, U.aval_of(cov).shape
    if not sm:
        return (-1 / 2 * jnp.square(x - mean) / cov
                - 1 / 2 * (jnp.log(2 * np.pi) + jnp.log(cov)))
    n = sm[-1]
    y = x - mean
    if not sc:
        return (-1 / 2 * jnp.einsum("...i,...i->...", y, y) / cov
                - n / 2 * (jnp.log(2 * np.pi) + jnp.log(cov)))
    if len(sc) < 2 or sc[-2:] != (n, n):
        raise ValueError("multivariate_normal.logpdf got incompatible shapes")
    chol = lax_linalg.cholesky(cov)
    batch = U.broadcast_shapes("multivariate_normal.logpdf", sc[:-2], U.aval_of(y).shape[:-1])
    chol_b = jnp.broadcast_to(chol, batch + (n, n))
    z = lax_linalg.triangular_solve(chol_b, jnp.broadcast_to(y, batch + (n,)), lower=True,
                                    transpose_a=True)
    return (-1 / 2 * jnp.einsum("...i,...i->...", z, z) - n / 2 * jnp.log(2 * np.pi)
            - jnp.log(jnp.diagonal(chol, axis1=-1, axis2=-2)).sum(-1))


def pdf(x, mean, cov):
    """Density (``jax.scipy.stats.multivariate_normal.pdf``)."""
    return lax.exp(logpdf(x, mean, cov))
