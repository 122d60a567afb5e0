"""Matrix-valued samplers: multivariate_normal and orthogonal.

``irax.numpy.linalg`` does not exist yet, so the factorizations they need live here:

- ``cholesky``: the column-by-column algorithm in irax ops (unrolled over ``n``), so
  ``multivariate_normal(method='cholesky')`` works eagerly, under jit and under vmap;
- ``qr_q``: modified Gram-Schmidt in irax ops, giving the ``Q`` with a positive ``R``
  diagonal, which is exactly what ``orthogonal`` returns (``Q * sign(diag(R))``);
- ``eigh``: cyclic Jacobi in irax ops (methods ``'eigh'`` and ``'svd'`` with a traced
  covariance; a concrete covariance uses NumPy's LAPACK, as JAX does).

A traced covariance with ``method='eigh'`` or ``'svd'`` (under jit or vmap) is factored
by ``eigh``: sweeps of parallel Jacobi rotations inside a ``lax.while_loop`` until the
off-diagonal norm is below ``eps`` times the matrix norm, eigenvalues sorted ascending
like LAPACK's (``'svd'`` orders by descending ``|w|`` and uses ``u = v sign(w)``,
``s = |w|``, the SVD of a symmetric matrix). Eigenvectors are unique only up to sign
(and rotations within repeated eigenvalues), so the factor may differ from LAPACK's by
column signs: such samples are N(mean, cov) like JAX's but not equal to them value for
value. A concrete covariance gives JAX's values.
"""

from __future__ import annotations

import numpy as np

from irax import lax
from irax import numpy as jnp
from irax.lax import _util as lu
from irax.random._common import canonical_shape, check_shape, finfo, float_dtype, is_traced
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


def _host_factor(cov, method):
    data = lu.host_data(cov)
    if method == "svd":
        u, s, _ = np.linalg.svd(data)
        factor = u * np.sqrt(s[..., None, :])
    else:
        w, v = np.linalg.eigh(data)
        factor = v * np.sqrt(w[..., None, :])
    return lu.host_array(factor.astype(data.dtype))


def _traced_factor(cov, method):
    w, v = eigh(cov)
    if method == "eigh":
        return v * jnp.expand_dims(jnp.sqrt(w), -2)
    # the SVD of a symmetric matrix: u = v sign(w), s = |w|, largest s first
    order = _ranks(-jnp.abs(w))
    w, v = _permute(w, v, order)
    return v * jnp.expand_dims(jnp.sign(w) * jnp.sqrt(jnp.abs(w)), -2)


# ---- symmetric eigendecomposition (cyclic Jacobi) ----------------------------------------------
MAX_SWEEPS = 30


def _schedule(n: int) -> list:
    """Round-robin rounds of disjoint index pairs ``(p, q)``, ``p < q``, that together
    cover every pair once (``n - 1`` rounds for even ``n``, ``n`` for odd)."""
    m = n + n % 2
    players = list(range(m))
    rounds = []
    for _ in range(m - 1):
        pairs = [(players[i], players[m - 1 - i]) for i in range(m // 2)]
        rounds.append([(min(p, q), max(p, q)) for p, q in pairs if max(p, q) < n])
        players = [players[0], players[-1]] + players[1:-1]
    return rounds


def _rotate(a, v, pairs, n):
    """One round: the rotations ``J`` that zero ``a[p, q]`` for every pair of ``pairs``
    at once (they touch disjoint rows and columns), ``a <- J^T a J``, ``v <- v J``."""
    dtype = a.dtype
    p = np.array([i for i, _ in pairs])
    q = np.array([j for _, j in pairs])
    flat = jnp.reshape(a, tuple(a.shape[:-2]) + (n * n,))
    app = jnp.take(flat, p * n + p, axis=-1)
    aqq = jnp.take(flat, q * n + q, axis=-1)
    apq = jnp.take(flat, p * n + q, axis=-1)
    nonzero = apq != 0
    tau = (aqq - app) / (2 * jnp.where(nonzero, apq, jnp.ones_like(apq)))
    t = jnp.where(tau >= 0, 1.0, -1.0).astype(dtype) / (jnp.abs(tau) + jnp.sqrt(1 + tau * tau))
    t = jnp.where(nonzero, t, jnp.zeros_like(t))
    c = 1 / jnp.sqrt(1 + t * t)
    s = t * c
    k = len(pairs)
    on_c = np.zeros((k, n, n), dtype)
    on_s = np.zeros((k, n, n), dtype)
    rest = np.eye(n, dtype=dtype)
    for i, (pi, qi) in enumerate(pairs):
        on_c[i, pi, pi] = on_c[i, qi, qi] = 1
        on_s[i, pi, qi], on_s[i, qi, pi] = 1, -1
        rest[pi, pi] = rest[qi, qi] = 0
    j = rest + jnp.einsum("...k,kij->...ij", c, on_c) + jnp.einsum("...k,kij->...ij", s, on_s)
    a = jnp.matmul(jnp.swapaxes(j, -1, -2), jnp.matmul(a, j))
    return a, jnp.matmul(v, j)


def _off_diagonal(a):
    """Squared Frobenius norm of ``a`` off the diagonal (summed directly: the total minus
    the diagonal would cancel to 0 long before convergence)."""
    n = a.shape[-1]
    off = jnp.where(np.eye(n, dtype=bool), jnp.zeros_like(a), a)
    return jnp.sum(off * off, axis=(-2, -1))


def eigh(a):
    """Eigenvalues (ascending) and eigenvectors (columns) of the symmetrized ``a``
    (``(..., n, n)``, float) by cyclic Jacobi sweeps in a ``lax.while_loop``; works under
    jit and vmap. Eigenvector signs are arbitrary (they need not match LAPACK's)."""
    a = jnp.asarray(a)
    a = (a + jnp.swapaxes(a, -1, -2)) / 2
    n = a.shape[-1]
    if n <= 1:
        return jnp.diagonal(a, axis1=-2, axis2=-1), jnp.ones_like(a)
    rounds = _schedule(n)
    eps = float(finfo(a.dtype).eps)
    norm2 = jnp.sum(a * a, axis=(-2, -1))
    v0 = jnp.broadcast_to(jnp.eye(n, dtype=a.dtype), a.shape)

    def more(state):
        mat, _, sweeps = state
        return jnp.any(_off_diagonal(mat) > eps * eps * norm2) & (sweeps < MAX_SWEEPS)

    def sweep(state):
        mat, vec, sweeps = state
        for pairs in rounds:
            mat, vec = _rotate(mat, vec, pairs, n)
        return mat, vec, sweeps + 1

    a, v, _ = lax.while_loop(more, sweep, (a, v0, np.int32(0)))
    w = jnp.diagonal(a, axis1=-2, axis2=-1)
    return _permute(w, v, _ranks(w))


def _ranks(key):
    """Each entry's position in the stable ascending order of ``key`` (last axis)."""
    n = key.shape[-1]
    ki, kj = jnp.expand_dims(key, -1), jnp.expand_dims(key, -2)
    idx = np.arange(n)
    earlier = (kj < ki) | ((kj == ki) & (idx[None, :] < idx[:, None]))
    return jnp.sum(earlier.astype(np.int32), axis=-1)


def _permute(w, v, ranks):
    """``w`` and the columns of ``v`` moved to positions ``ranks``."""
    n = w.shape[-1]
    onehot = jnp.expand_dims(ranks, -1) == np.arange(n)           # [..., i, k]
    w_out = jnp.sum(jnp.where(onehot, jnp.expand_dims(w, -1), 0), axis=-2)
    picked = jnp.where(jnp.expand_dims(onehot, -3), jnp.expand_dims(v, -1), 0)
    return w_out.astype(w.dtype), jnp.sum(picked, axis=-2).astype(v.dtype)


def multivariate_normal(key, mean, cov, shape=None, dtype=None, method="cholesky"):
    """Samples of N(mean, cov): ``mean + factor @ z`` with ``factor`` from ``method``
    (``'cholesky'``, ``'eigh'`` or ``'svd'``; see the module docstring for a traced
    ``cov`` with the latter two)."""
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
    if method == "cholesky":
        factor = cholesky(cov)
    elif is_traced(cov):
        factor = _traced_factor(cov, method)
    else:
        factor = _host_factor(cov, method)
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
