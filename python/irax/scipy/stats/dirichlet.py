"""The Dirichlet distribution (``jax.scipy.stats.dirichlet``)."""

from __future__ import annotations

import numpy as np

from irax import lax
from irax import numpy as jnp
from irax.numpy import _util as U
from irax.scipy.stats import _special as S
from irax.scipy.stats._common import c


def _is_simplex(x):
    return jnp.all(x > 0, axis=0) & (abs(jnp.sum(x, axis=0) - 1) < 1e-06)


def logpdf(x, alpha):
    """Log density of points ``x`` (first axis: the components, optionally one fewer than
    ``alpha``) (``jax.scipy.stats.dirichlet.logpdf``)."""
    U.check_arraylike("dirichlet.logpdf", x, alpha)
    x, alpha = U.promote_dtypes_inexact(jnp.asarray(x), jnp.asarray(alpha))
    sx, sa = U.aval_of(x).shape, U.aval_of(alpha).shape
    if len(sa) != 1:
        raise ValueError(f"`alpha` must be one-dimensional; got alpha.shape={sa}")
    if len(sx) == 0 or sx[0] not in (sa[0], sa[0] - 1):
        raise ValueError("`x` must have either the same number of entries as `alpha` or one "
                         f"entry fewer; got x.shape={sx}, alpha.shape={sa}")
    one = c(x, 1)
    if sx[0] != sa[0]:
        x = jnp.concatenate([x, lax.sub(one, x.sum(0, keepdims=True))], axis=0)
    norm = jnp.sum(S.gammaln(alpha)) - S.gammaln(jnp.sum(alpha))
    if len(sx) > 1:
        alpha = jnp.reshape(alpha, sa + (1,) * (len(sx) - 1))
    out = lax.sub(jnp.sum(S.xlogy(lax.sub(alpha, one), x), axis=0), norm)
    return jnp.where(_is_simplex(x), out, -np.inf)


def pdf(x, alpha):
    """Density (``jax.scipy.stats.dirichlet.pdf``)."""
    return lax.exp(logpdf(x, alpha))
