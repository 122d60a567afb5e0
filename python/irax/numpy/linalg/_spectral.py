"""Spectral functions of ``jax.numpy.linalg``: eigh, eigvalsh, svd, svdvals, pinv, lstsq,
matrix_rank, cond, and (eagerly only) eig and eigvals.

    w, v = jnp.linalg.eigh(a)               # EighResult(eigenvalues, eigenvectors)
    u, s, vh = jnp.linalg.svd(a, full_matrices=False)
    x, resid, rank, s = jnp.linalg.lstsq(a, b)

Everything is built on ``irax.lax.linalg.eigh`` / ``svd`` (the ``irax.eigh`` and
``irax.svd`` ops) and irax.numpy functions, so derivatives and batching follow; ``pinv``
has JAX's custom JVP. ``eig``/``eigvals`` run LAPACK (``numpy.linalg.eig``) on concrete
values, as JAX does only on CPU, and raise under ``jit``/``vmap``/``grad``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from irax.core import dtypes
from irax.frontend.tracer import Tracer
from irax.lax import _linalg_spectral as LL
from irax.lax import _shape as LS
from irax.lax import _sorting as LO
from irax.lax import _util as LU
from irax.numpy import _util as U
from irax.numpy._creation import asarray, zeros
from irax.numpy._indexing_more import take_along_axis
from irax.numpy._linalg import matmul
from irax.numpy._logic import greater, greater_equal, less, logical_and, logical_not, where
from irax.numpy._math import conj, isnan, real, sqrt
from irax.numpy._reductions import any as any_
from irax.numpy._reductions import max as max_
from irax.numpy._reductions import sum as sum_
from irax.numpy._shape import expand_dims, matrix_transpose, ravel
from irax.numpy._ufuncs import abs as abs_
from irax.numpy._ufuncs import divide, multiply, sign, subtract
from irax.numpy.linalg._factor import EighResult, SVDResult, inv
from irax.transforms.custom_derivatives import custom_jvp


class EigResult(NamedTuple):
    """``(eigenvalues, eigenvectors)`` of ``eig`` (``jax.numpy.linalg.EigResult``)."""

    eigenvalues: object
    eigenvectors: object


def _H(x):
    return conj(matrix_transpose(x))


def _inexact(name: str, a):
    U.check_arraylike(f"jnp.linalg.{name}", a)
    (a,) = U.promote_dtypes_inexact(U.as_array(f"jnp.linalg.{name}", a))
    return a


def _real_dtype(x) -> np.dtype:
    dt = U.aval_of(x).dtype
    return dtypes.real_dtype(dt) if dtypes.is_complex(dt) else dt


def _eps(x) -> float:
    return float(np.finfo(_real_dtype(x)).eps)


# ---- Hermitian eigendecomposition -----------------------------------------------------------
def _lower_of(uplo) -> bool:
    if uplo is None or uplo == "L":
        return True
    if uplo == "U":
        return False
    raise ValueError(f"UPLO must be one of None, 'L', or 'U', got {uplo}")


def eigh(a, UPLO: str | None = None, symmetrize_input: bool = True) -> EighResult:  # noqa: N803
    """Eigenvalues (ascending) and eigenvectors of Hermitian matrices
    (``jax.numpy.linalg.eigh``)."""
    lower = _lower_of(UPLO)
    a = _inexact("eigh", a)
    v, w = LL.eigh(a, lower=lower, symmetrize_input=symmetrize_input)
    return EighResult(w, v)


def eigvalsh(a, UPLO: str | None = "L", *, symmetrize_input: bool = True):  # noqa: N803
    """The ascending eigenvalues of Hermitian matrices (``jax.numpy.linalg.eigvalsh``)."""
    a = _inexact("eigvalsh", a)
    return eigh(a, UPLO, symmetrize_input=symmetrize_input).eigenvalues


# ---- singular value decomposition -------------------------------------------------------------
def svd(a, full_matrices: bool = True, compute_uv: bool = True, hermitian: bool = False,
        subset_by_index=None):
    """``SVDResult(U, S, Vh)`` with ``a = U @ diag(S) @ Vh`` (``S`` descending), or ``S``
    alone without ``compute_uv`` (``jax.numpy.linalg.svd``). ``hermitian``: from ``eigh``
    of the (symmetrized) matrices."""
    a = _inexact("svd", a)
    if hermitian:
        return _svd_hermitian(a, compute_uv, subset_by_index)
    if compute_uv:
        u, s, vh = LL.svd(a, full_matrices=full_matrices, compute_uv=True,
                          subset_by_index=subset_by_index)
        return SVDResult(u, s, vh)
    return LL.svd(a, full_matrices=full_matrices, compute_uv=False,
                  subset_by_index=subset_by_index)


def _svd_hermitian(a, compute_uv: bool, subset_by_index):
    """Singular values are the eigenvalues' magnitudes, sorted descending; ``U`` the
    eigenvectors in that order, ``Vh`` their adjoint times the eigenvalues' signs."""
    v, w = LL.eigh(a, subset_by_index=subset_by_index)
    s = abs_(w)
    last = U.aval_of(s).ndim - 1
    if not compute_uv:
        return LS.rev(LO.sort(s, dimension=-1), (last,))
    idx = LS.broadcasted_iota(np.int32, U.aval_of(s).shape, last)
    s, idx, sgn = LO.sort((s, idx, sign(w)), dimension=-1, num_keys=1)
    s, idx, sgn = (LS.rev(x, (last,)) for x in (s, idx, sgn))
    u = take_along_axis(v, expand_dims(idx, -2), axis=-1)
    vh = _H(multiply(u, LU.convert(expand_dims(sgn, -2), U.aval_of(u).dtype)))
    return SVDResult(u, s, vh)


def svdvals(x, /):
    """The singular values of matrices, descending (``jax.numpy.linalg.svdvals``)."""
    U.check_arraylike("jnp.linalg.svdvals", x)
    return svd(x, compute_uv=False, hermitian=False)


# ---- pseudo-inverse -----------------------------------------------------------------------------
def pinv(a, rtol=None, hermitian: bool = False, *, rcond=None):
    """The Moore-Penrose pseudo-inverse: singular values up to ``rtol`` times the largest
    are dropped (``jax.numpy.linalg.pinv``; ``rcond`` is ``rtol``'s old name)."""
    if rcond is not None:
        if rtol is not None:
            raise ValueError("pinv: only one of rtol and rcond may be specified.")
        rtol = rcond
    return _pinv(a, rtol, hermitian)


def _pinv_impl(a, rtol, hermitian: bool):
    arr = _inexact("pinv", a)
    aval = U.aval_of(arr)
    m, n = aval.shape[-2:]
    if m == 0 or n == 0:
        return zeros(aval.shape[:-2] + (n, m), aval.dtype)
    arr = conj(arr)
    if rtol is None:
        rtol = 10.0 * max(m, n) * asarray(np.asarray(_eps(arr), _real_dtype(arr)))
    rtol = asarray(rtol)
    u, s, vh = svd(arr, full_matrices=False, hermitian=hermitian)
    rtol = _trailing(expand_dims(rtol, -1), U.aval_of(s).ndim)
    cutoff = multiply(rtol, s[..., 0:1])
    s = LU.convert(where(greater(s, cutoff), s, np.inf), U.aval_of(u).dtype)
    res = matmul(matrix_transpose(vh), divide(matrix_transpose(u), expand_dims(s, -1)))
    return LU.convert(res, aval.dtype)


def _trailing(x, ndim: int):
    """``x`` with leading size-1 axes up to rank ``ndim``."""
    a = U.aval_of(x)
    if a.ndim >= ndim:
        return x
    return LU.reshape(x, (1,) * (ndim - a.ndim) + a.shape)


def _pinv_fun(a, rtol, hermitian):
    return _pinv_impl(a, rtol, hermitian)


_pinv = custom_jvp(_pinv_fun, nondiff_argnums=(1, 2))


@_pinv.defjvp
def _pinv_jvp(rtol, hermitian, primals, tangents):
    """Golub and Pereyra's derivative of the pseudo-inverse (JAX's rule)."""
    (a,), (da,) = primals, tangents
    p = _pinv(a, rtol, hermitian)
    a = _inexact("pinv", a)
    da = LU.convert(da, U.aval_of(a).dtype)
    if hermitian:
        a, da = LL.symmetrize(a), LL.symmetrize(da)
    m, n = U.aval_of(a).shape[-2:]
    ph = _H(p)
    dah = _H(da)
    if m >= n:
        s = matmul(matmul(p, ph), dah)
        t = matmul(matmul(dah, ph), p)
        pdot = subtract(matmul(matmul(s, a), p), s)
        pdot = subtract(subtract(t, pdot), matmul(matmul(p, da), p))
        pdot = subtract(pdot, matmul(matmul(p, a), t))
    else:
        s = matmul(p, matmul(ph, dah))
        t = matmul(dah, matmul(ph, p))
        pdot = subtract(matmul(s, matmul(a, p)), s)
        pdot = subtract(subtract(t, pdot), matmul(p, matmul(da, p)))
        pdot = subtract(pdot, matmul(p, matmul(a, t)))
    return p, pdot


# ---- least squares, rank, condition number ----------------------------------------------------
def lstsq(a, b, rcond=None, *, numpy_resid: bool = False):
    """``(x, residuals, rank, s)`` of the least-squares problem ``a @ x ~= b`` through the
    SVD (``jax.numpy.linalg.lstsq``); residuals are always computed unless
    ``numpy_resid`` (then empty where NumPy returns them empty; eager only)."""
    U.check_arraylike("jnp.linalg.lstsq", a, b)
    a, b = U.promote_dtypes_inexact(a, b)
    av, bv = U.aval_of(a), U.aval_of(b)
    if av.ndim and bv.ndim and av.shape[0] != bv.shape[0]:
        raise ValueError("Leading dimensions of input arrays must match")
    b_ndim = bv.ndim
    if b_ndim == 1:
        b = expand_dims(b, 1)
    if av.ndim != 2:
        raise TypeError(f"{av.ndim}-dimensional array given. Array must be two-dimensional")
    if U.aval_of(b).ndim != 2:
        raise TypeError(f"{U.aval_of(b).ndim}-dimensional array given. Array must be one or "
                        f"two-dimensional")
    m, n = av.shape
    dt = av.dtype
    if av.size == 0:
        s = zeros((0,), dt)
        rank = asarray(0, dtype=int)
        x = zeros((n, *U.aval_of(b).shape[1:]), dt)
    else:
        eps = _eps(a)
        if rcond is None:
            rcond = eps * max(n, m)
        else:
            rcond = where(less(asarray(rcond), 0), eps, rcond)
        u, s, vt = svd(a, full_matrices=False)
        mask = logical_and(greater(s, 0),
                           greater_equal(s, multiply(LU.convert(asarray(rcond),
                                                                U.aval_of(s).dtype), s[0])))
        rank = sum_(mask)
        safe = LU.convert(where(mask, s, 1), dt)
        s_inv = expand_dims(where(mask, divide(1, safe), 0), 1)
        utb = matmul(_H(u), b)
        x = matmul(_H(vt), multiply(s_inv, utb))
    if numpy_resid and (int(rank) < n or m <= n):
        resid = asarray([])
    else:
        r = subtract(b, matmul(a, x))
        resid = sum_(real(multiply(r, conj(r))), axis=0)
    if b_ndim == 1:
        x = ravel(x)
    return x, resid, rank, s


def matrix_rank(M, rtol=None, *, hermitian: bool = False, tol=None):  # noqa: N803
    """The number of singular values above ``rtol`` (default: the largest times
    ``max(m, n) * eps``) (``jax.numpy.linalg.matrix_rank``; ``tol`` is ``rtol``)."""
    U.check_arraylike("jnp.linalg.matrix_rank", M)
    if tol is not None:
        if rtol is not None:
            raise ValueError("matrix_rank: only one of tol or rtol may be specified.")
        rtol = tol
    (M,) = U.promote_dtypes_inexact(M)
    av = U.aval_of(M)
    if av.ndim < 2:
        return LU.convert(any_(U.to_bool(M)), np.int32)
    s = svd(M, full_matrices=False, compute_uv=False, hermitian=hermitian)
    if rtol is None:
        sv = U.aval_of(s)
        rtol = multiply(max_(s, axis=-1),
                        asarray(np.asarray(max(av.shape[-2:]) * _eps(M), sv.dtype)))
    rtol = asarray(rtol)
    rtol = expand_dims(rtol, U.aval_of(rtol).ndim)
    return sum_(greater(s, rtol), axis=-1)


def _matrix_norm(x, p):
    """The matrix norms ``cond`` needs besides the 2-norms (``norm(x, p, axis=(-2, -1))``)."""
    ax = abs_(x)
    if p in (1, -1):
        col = sum_(ax, axis=-2)
        return max_(col, axis=-1) if p == 1 else -max_(-col, axis=-1)
    if p in (np.inf, -np.inf):
        row = sum_(ax, axis=-1)
        return max_(row, axis=-1) if p == np.inf else -max_(-row, axis=-1)
    if p == "fro":
        return sqrt(sum_(real(multiply(x, conj(x))), axis=(-2, -1)))
    if p == "nuc":
        return sum_(svdvals(x), axis=-1)
    raise ValueError(f"Invalid order '{p}' for matrix norm.")


def cond(x, p=None):
    """The condition number ``norm(x, p) * norm(inv(x), p)``; for ``p`` None or 2 the ratio
    of the extreme singular values (``jax.numpy.linalg.cond``)."""
    U.check_arraylike("cond", x)
    arr = U.as_array("cond", x)
    shape = U.aval_of(arr).shape
    if len(shape) < 2:
        raise ValueError(f"jnp.linalg.cond: input array must be at least 2D; got "
                         f"arr.shape={shape}")
    if shape[-1] == 0 or shape[-2] == 0:
        raise ValueError(f"jnp.linalg.cond: input array must not be empty; got "
                         f"arr.shape={shape}")
    if p is None or p == 2:
        s = svdvals(arr)
        return divide(s[..., 0], s[..., -1])
    if p == -2:
        s = svdvals(arr)
        r = divide(s[..., -1], s[..., 0])
    else:
        if shape[-2] != shape[-1]:
            raise ValueError(f"jnp.linalg.cond: for p={p!r}, array must be square; got "
                             f"arr.shape={shape}")
        (arr,) = U.promote_dtypes_inexact(arr)
        r = multiply(_matrix_norm(arr, p), _matrix_norm(inv(arr), p))
    bad = logical_and(isnan(r), logical_not(any_(isnan(arr), axis=(-2, -1))))
    return where(bad, np.inf, r)


# ---- general eigendecomposition (eager only) ---------------------------------------------------
def _eager_matrix(name: str, a):
    if isinstance(a, Tracer):
        raise NotImplementedError(
            f"irax.numpy.linalg.{name} runs only eagerly, on concrete arrays (JAX computes "
            f"it with LAPACK on CPU only): it cannot be used under jit, vmap or grad")
    a = _inexact(name, a)
    data = LU.host_data(a)
    if data.ndim < 2 or data.shape[-1] != data.shape[-2]:
        raise ValueError(f"The input to eig must be a square matrix. Got shape "
                         f"{data.shape}.")
    return data


def _complex_of(data) -> np.dtype:
    return dtypes.to_complex_dtype(data.dtype)


def eig(a) -> EigResult:
    """Eigenvalues and right eigenvectors (unit norm, LAPACK's ``geev``) of general square
    matrices, complex (``jax.numpy.linalg.eig``; eager only)."""
    data = _eager_matrix("eig", a)
    ct = _complex_of(data)
    if data.shape[-1] == 0:
        return EigResult(LU.host_array(np.zeros(data.shape[:-1], ct)),
                         LU.host_array(np.zeros(data.shape, ct)))
    w, v = np.linalg.eig(data)
    return EigResult(LU.host_array(w.astype(ct)), LU.host_array(v.astype(ct)))


def eigvals(a):
    """The eigenvalues of general square matrices, complex (``jax.numpy.linalg.eigvals``;
    eager only)."""
    data = _eager_matrix("eigvals", a)
    ct = _complex_of(data)
    if data.shape[-1] == 0:
        return LU.host_array(np.zeros(data.shape[:-1], ct))
    return LU.host_array(np.linalg.eigvals(data).astype(ct))
