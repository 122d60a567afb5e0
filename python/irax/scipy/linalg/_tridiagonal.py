"""``eigh_tridiagonal`` of ``jax.scipy.linalg``: the eigenvalues (and eigenvectors) of a
Hermitian tridiagonal matrix, from the dense ``eigh`` of that matrix (JAX bisects with
Sturm sequences and inverse-iterates from a random start: the eigenvalues agree to rounding,
the eigenvectors up to each one's phase)."""

from __future__ import annotations

import numpy as np

from irax import numpy as jnp
from irax.core import dtypes
from irax.lax import linalg as lax_linalg
from irax.numpy import _util as U

_SUPPORTED = tuple(np.dtype(d) for d in (np.float32, np.float64, np.complex64, np.complex128))


def _dense(d, e):
    """The matrix with diagonal ``d``, ``e`` above it and ``conj(e)`` below."""
    n = U.aval_of(d).shape[0]
    dt = U.aval_of(e).dtype
    above = np.eye(n, n, 1, dtype=bool)
    below = np.eye(n, n, -1, dtype=bool)
    e_pad = jnp.concatenate([e, jnp.zeros((1,), dt)])
    upper = jnp.where(above, e_pad[:, None] * jnp.ones((1, n), dt), jnp.zeros((), dt))
    lower = jnp.where(below, jnp.conj(e_pad)[None, :] * jnp.ones((n, 1), dt), jnp.zeros((), dt))
    diag = jnp.where(np.eye(n, dtype=bool), d.astype(dt)[None, :] * jnp.ones((n, 1), dt),
                     jnp.zeros((), dt))
    return diag + upper + lower


def eigh_tridiagonal(d, e, *, eigvals_only: bool = False, select: str = "a",
                     select_range=None, tol=None, key=None):
    """The eigenvalues ascending (and eigenvectors, columns) of the Hermitian tridiagonal
    matrix with diagonal ``d`` and off-diagonal ``e`` (``jax.scipy.linalg.eigh_tridiagonal``;
    ``select`` "a" or "i" with an index range)."""
    del tol, key
    alpha, beta = jnp.asarray(d), jnp.asarray(e)
    da, db = np.dtype(U.aval_of(alpha).dtype), np.dtype(U.aval_of(beta).dtype)
    if da != db:
        raise TypeError(f"diagonal and off-diagonal values must have same dtype, got {da} and "
                        f"{db}")
    if da not in _SUPPORTED:
        raise TypeError("Only float32 and float64 inputs are supported as inputs to "
                        f"jax.scipy.linalg.eigh_tridiagonal, got {da} and {db}")
    n = U.aval_of(alpha).shape[0]
    if n <= 1:
        vals = jnp.real(alpha)
        return vals if eigvals_only else (vals, jnp.eye(n, dtype=da))
    if select == "a":
        lo, hi = 0, n - 1
    elif select == "i":
        if select_range is None:
            raise ValueError("for select='i', select_range must be specified.")
        if select_range[0] > select_range[1]:
            raise ValueError("Got empty index range in select_range.")
        lo, hi = int(select_range[0]), int(select_range[1])
    elif select == "v":
        raise NotImplementedError("eigh_tridiagonal(..., select='v') is not implemented")
    else:
        raise ValueError("'select must have a value in {'a', 'i', 'v'}.")
    t = _dense(jnp.real(alpha) if dtypes.is_complex(da) else alpha, beta)
    v, w = lax_linalg.eigh(t, symmetrize_input=False)
    w = w[lo:hi + 1]
    return w if eigvals_only else (w, v[:, lo:hi + 1])
