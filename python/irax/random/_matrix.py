"""Matrix-valued samplers: multivariate_normal and orthogonal.

``irax.numpy.linalg`` does not exist yet, so the factorizations they need live here:

- ``cholesky``: the column-by-column algorithm in irax ops (unrolled over ``n``), so
  ``multivariate_normal(method='cholesky')`` works eagerly, under jit and under vmap;
- ``qr_q``: modified Gram-Schmidt in irax ops, giving the ``Q`` with a positive ``R``
  diagonal, which is exactly what ``orthogonal`` returns (``Q * sign(diag(R))``);
- ``eigh``/``svd`` (methods ``'eigh'`` and ``'svd'``): NumPy on concrete covariances only;
  a traced covariance raises ``NotImplementedError`` until irax has these decompositions.
"""

from __future__ import annotations

import numpy as np

from irax import lax
from irax import numpy as jnp
from irax.lax import _util as lu
from irax.random._common import canonical_shape, check_shape, float_dtype, is_traced
from irax.random._continuous import draw_normal
from irax.random._keys import key_words


def _col(a, j):
    return jnp.take(a, j, axis=-1)


def cholesky(a):
    """Lower Cholesky factor of the symmetrized ``a`` (``(..., n, n)``); NaN where ``a`` is
    not positive definite."""
    a = (a + jnp.swapaxes(a, -1, -2)) / 2
    n = a.shape[-1]
    rows = lax.iota(np.int32, n)
    cols = []
    for j in range(n):
        v = _col(a, j)
        for c in cols:
            v = v - c * jnp.expand_dims(jnp.take(c, j, axis=-1), -1)
        diag = jnp.sqrt(jnp.take(v, j, axis=-1))
        below = jnp.where(rows > j, v / jnp.expand_dims(diag, -1), 0)
        cols.append(jnp.where(rows == j, jnp.expand_dims(diag, -1), below))
    return jnp.stack(cols, axis=-1)


def qr_q(z):
    """The ``Q`` factor, with positive ``R`` diagonal, of ``z`` (``(..., m, k)``, ``m >= k``)
    by modified Gram-Schmidt."""
    k = z.shape[-1]
    vs = [_col(z, j) for j in range(k)]
    qs = []
    for j in range(k):
        v = vs[j]
        for q in qs:
            v = v - q * jnp.sum(q * v, axis=-1, keepdims=True)
        qs.append(v / jnp.sqrt(jnp.sum(v * v, axis=-1, keepdims=True)))
    return jnp.stack(qs, axis=-1)


def _host_factor(name, cov, method):
    if is_traced(cov):
        raise NotImplementedError(
            f"irax.random.{name}: method={method!r} needs a concrete covariance under "
            "jit/vmap (irax.numpy.linalg has no eigh/svd yet); use method='cholesky'")
    data = lu.host_data(cov)
    if method == "svd":
        u, s, _ = np.linalg.svd(data)
        factor = u * np.sqrt(s[..., None, :])
    else:
        w, v = np.linalg.eigh(data)
        factor = v * np.sqrt(w[..., None, :])
    return lu.host_array(factor.astype(data.dtype))


def multivariate_normal(key, mean, cov, shape=None, dtype=None, method="cholesky"):
    """Samples of N(mean, cov): ``mean + factor @ z`` with ``factor`` from ``method``
    ('cholesky' everywhere; 'eigh' and 'svd' for concrete ``cov``)."""
    keys = key_words("multivariate_normal", key)
    if method not in ("svd", "eigh", "cholesky"):
        raise ValueError("irax.random.multivariate_normal: method must be one of "
                         "{'svd', 'eigh', 'cholesky'}")
    mean, cov = jnp.asarray(mean), jnp.asarray(cov)
    common = jnp.result_type(mean, cov, float)
    mean, cov = mean.astype(common), cov.astype(common)
    dt = common if dtype is None else float_dtype("multivariate_normal", dtype)
    if mean.ndim < 1:
        raise ValueError("irax.random.multivariate_normal: multivariate_normal requires "
                         f"mean.ndim >= 1, got mean.ndim == {mean.ndim}")
    if cov.ndim < 2:
        raise ValueError("irax.random.multivariate_normal: multivariate_normal requires "
                         f"cov.ndim >= 2, got cov.ndim == {cov.ndim}")
    n = mean.shape[-1]
    if tuple(cov.shape[-2:]) != (n, n):
        raise ValueError("irax.random.multivariate_normal: multivariate_normal requires "
                         f"cov.shape == (..., n, n) for n={n}, but got cov.shape == "
                         f"{tuple(cov.shape)}.")
    if shape is None:
        shape = tuple(np.broadcast_shapes(mean.shape[:-1], cov.shape[:-2]))
    else:
        shape = canonical_shape("multivariate_normal", shape)
        check_shape("multivariate_normal", shape, mean.shape[:-1], cov.shape[:-2])
    factor = cholesky(cov) if method == "cholesky" else _host_factor(
        "multivariate_normal", cov, method)
    z = draw_normal(keys, shape + (n,), dt)
    return mean + jnp.einsum("...ij,...j->...i", factor, z)


def orthogonal(key, n: int, shape=(), dtype=None, m=None):
    """Haar-random orthogonal (or semi-orthogonal ``n x m``) matrices: the ``Q`` factor of
    a Gaussian matrix with its ``R`` diagonal made positive."""
    keys = key_words("orthogonal", key)
    dt = float_dtype("orthogonal", dtype)
    shape = canonical_shape("orthogonal", shape)
    n = int(n)
    m = n if m is None else int(m)
    z = draw_normal(keys, shape + (max(n, m), min(n, m)), dt)
    q = qr_q(z)
    return jnp.swapaxes(q, -1, -2) if n < m else q
