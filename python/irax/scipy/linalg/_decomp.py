"""Factorizations and solves of ``jax.scipy.linalg``: cholesky, cho_factor, cho_solve, lu,
lu_factor, lu_solve, qr, qr_multiply, solve, solve_triangular, eigh, svd, det, inv, polar.

Inputs promote to an inexact dtype (integers to float32) as JAX's do; the solves take
leading batch dimensions that broadcast, and a ``b`` one rank below a matrix ``b``'s is a
vector (``(n,n),(n)->(n)``); built on ``irax.lax.linalg`` and ``irax.numpy.linalg``.
"""

from __future__ import annotations

import warnings

import numpy as np

from irax.core import dtypes
from irax.lax import linalg as lax_linalg
from irax.numpy import _util as U
from irax.numpy import linalg as jnp_linalg
from irax.numpy._creation import asarray, eye
from irax.numpy._indexing import where
from irax.numpy._indexing_more import take_along_axis
from irax.numpy._linalg import matmul
from irax.numpy._logic import equal
from irax.numpy._math import conj, real
from irax.numpy._shape import broadcast_to, expand_dims, squeeze
from irax.numpy._sorting import argsort
from irax.transforms.custom_derivatives import custom_jvp


def _shape(x):
    return U.aval_of(x).shape


def _mH(x):
    return conj(lax_linalg._mT(x))


def _inexact(*xs):
    return U.promote_dtypes_inexact(*(asarray(x) for x in xs))


def _signature(name: str, a, b, call: str) -> bool:
    """Whether ``b`` is a (batch of) vector(s) for the matrices ``a`` (JAX's rule,
    with its FutureWarning for the deprecated batched 1-D form)."""
    sa, sb = _shape(a), _shape(b)
    if len(sb) == 1:
        return True
    if len(sa) == len(sb) + 1 and sa[-1] == sb[-1]:
        warnings.warn(f"jax.scipy.linalg.{name}: batched 1D solves with b.ndim > 1 are "
                      "deprecated, and in the future will be treated as a batched 2D solve. "
                      f"Use {call}(..., b[..., None]).squeeze(-1) to avoid this warning.",
                      category=FutureWarning, stacklevel=3)
        return True
    return False


def _core_error(sig: str, got: int, want: int):
    return ValueError(f"inconsistent size for core dimension 'n': {got} vs {want} on "
                      f"vectorized function with excluded=frozenset() and signature={sig!r}")


def _broadcast_solve(fn, a, b, vector: bool):
    """``fn(a, b)`` of matrices ``(..., n, n)`` and ``(..., n, k)`` (or vectors ``(...,
    n)``) whose batch dims broadcast."""
    sa, sb = _shape(a), _shape(b)
    sig = "(n,n),(n)->(n)" if vector else "(n,n),(n,k)->(n,k)"
    if len(sa) < 2:
        raise ValueError(f"input with shape {sa} does not have enough dimensions for all "
                         f"core dimensions ('n', 'n') on vectorized function with excluded="
                         f"frozenset() and signature={sig!r}")
    if sa[-1] != sa[-2]:
        raise _core_error(sig, sa[-1], sa[-2])
    core = 1 if vector else 2
    if len(sb) < core:
        raise ValueError(f"input with shape {sb} does not have enough dimensions for all "
                         f"core dimensions {('n',) if vector else ('n', 'k')} on vectorized "
                         f"function with excluded=frozenset() and signature={sig!r}")
    n_b = sb[-1] if vector else sb[-2]
    if n_b != sa[-1]:
        raise _core_error(sig, n_b, sa[-1])
    batch = U.broadcast_shapes("linalg", sa[:-2], sb[:len(sb) - core])
    a = broadcast_to(a, batch + sa[-2:])
    if vector:
        b = expand_dims(broadcast_to(b, batch + sb[-1:]), -1)
        return squeeze(fn(a, b), -1)
    return fn(a, broadcast_to(b, batch + sb[-2:]))


# ---- Cholesky -------------------------------------------------------------------------------
def cholesky(a, lower: bool = False, overwrite_a: bool = False, check_finite: bool = True):
    """The Cholesky factor of Hermitian positive definite matrices, upper by default
    (``jax.scipy.linalg.cholesky``); only the ``lower`` (or upper) triangle is read."""
    del overwrite_a, check_finite
    (a,) = _inexact(a)
    lower = bool(lower)
    l = lax_linalg.cholesky(a if lower else _mH(a), symmetrize_input=False)
    return l if lower else _mH(l)


def cho_factor(a, lower: bool = False, overwrite_a: bool = False, check_finite: bool = True):
    """``(c, lower)``: the Cholesky factor and which triangle it is
    (``jax.scipy.linalg.cho_factor``)."""
    del overwrite_a, check_finite
    return cholesky(a, lower=lower), lower


def cho_solve(c_and_lower, b, overwrite_b: bool = False, check_finite: bool = True):
    """``x`` with ``A x = b`` from ``A``'s Cholesky factor ``(c, lower)``
    (``jax.scipy.linalg.cho_solve``)."""
    del overwrite_b, check_finite
    c, lower = c_and_lower
    c, b = _inexact(c, b)
    lower = bool(lower)
    vector = _signature("cho_solve", c, b, "cho_solve")

    def solve(c, b):
        y = lax_linalg.triangular_solve(c, b, left_side=True, lower=lower,
                                        transpose_a=not lower, conjugate_a=not lower)
        return lax_linalg.triangular_solve(c, y, left_side=True, lower=lower,
                                           transpose_a=lower, conjugate_a=lower)

    return _broadcast_solve(solve, c, b, vector)


# ---- triangular solves ----------------------------------------------------------------------
_TRANS = {0: (False, False), "N": (False, False), 1: (True, False), "T": (True, False),
          2: (True, True), "C": (True, True)}


def solve_triangular(a, b, trans=0, lower: bool = False, unit_diagonal: bool = False,
                     overwrite_b: bool = False, debug=None, check_finite: bool = True):
    """``x`` with ``op(a) x = b`` for triangular ``a``; ``trans`` 0/'N', 1/'T' or 2/'C'
    (``jax.scipy.linalg.solve_triangular``)."""
    del overwrite_b, debug, check_finite
    try:
        transpose_a, conjugate_a = _TRANS[trans]
    except (KeyError, TypeError):
        raise ValueError(f"Invalid 'trans' value {trans}") from None
    a, b = _inexact(a, b)
    vector = _signature("solve_triangular", a, b, "solve_triangular")

    def solve(a, b):
        return lax_linalg.triangular_solve(a, b, left_side=True, lower=bool(lower),
                                           transpose_a=transpose_a, conjugate_a=conjugate_a,
                                           unit_diagonal=bool(unit_diagonal))

    return _broadcast_solve(solve, a, b, vector)


# ---- LU -------------------------------------------------------------------------------------
def lu_factor(a, overwrite_a: bool = False, check_finite: bool = True):
    """``(lu, piv)``: the packed LU factors and LAPACK's row swaps
    (``jax.scipy.linalg.lu_factor``)."""
    del overwrite_a, check_finite
    (a,) = _inexact(a)
    lu_, pivots, _ = lax_linalg.lu(a)
    return lu_, pivots


def _lu_solve_matrices(lu_, perm, b, trans: int):
    """``A x = b`` (``trans`` 0), ``A^T x = b`` (1) or ``A^H x = b`` (2) from ``P A = L U``
    (JAX's ``lax.linalg.lu_solve``)."""
    rows = broadcast_to(expand_dims(perm, -1), _shape(b))
    if trans == 0:
        x = take_along_axis(b, rows, axis=-2)
        x = lax_linalg.triangular_solve(lu_, x, left_side=True, lower=True,
                                        unit_diagonal=True)
        return lax_linalg.triangular_solve(lu_, x, left_side=True, lower=False)
    conj_a = trans == 2
    x = lax_linalg.triangular_solve(lu_, b, left_side=True, lower=False, transpose_a=True,
                                    conjugate_a=conj_a)
    x = lax_linalg.triangular_solve(lu_, x, left_side=True, lower=True, unit_diagonal=True,
                                    transpose_a=True, conjugate_a=conj_a)
    inverse = broadcast_to(expand_dims(argsort(perm, axis=-1), -1), _shape(b))
    return take_along_axis(x, inverse, axis=-2)


def lu_solve(lu_and_piv, b, trans: int = 0, overwrite_b: bool = False,
             check_finite: bool = True):
    """``x`` with ``op(A) x = b`` from ``lu_factor``'s ``(lu, piv)``
    (``jax.scipy.linalg.lu_solve``; ``trans`` 0, 1 or 2)."""
    del overwrite_b, check_finite
    lu_, pivots = lu_and_piv
    lu_, b = _inexact(lu_, b)
    if trans not in (0, 1, 2):
        raise ValueError(f"'trans' value must be 0, 1, or 2, got {trans}")
    m = _shape(lu_)[-2]
    perm = lax_linalg.lu_pivots_to_permutation(asarray(pivots), m)
    vector = _signature("lu_solve", lu_, b, "lu_solve")

    def solve(lu_b, b):
        return _lu_solve_matrices(lu_b, broadcast_to(perm, _shape(lu_b)[:-2] + (m,)), b,
                                  int(trans))

    return _broadcast_solve(solve, lu_, b, vector)


def lu(a, permute_l: bool = False, overwrite_a: bool = False, check_finite: bool = True):
    """``(p, l, u)`` with ``a = p @ l @ u``, or ``(p @ l, u)`` with ``permute_l``
    (``jax.scipy.linalg.lu``)."""
    del overwrite_a, check_finite
    (a,) = _inexact(a)
    dt = U.aval_of(a).dtype
    lu_, _, perm = lax_linalg.lu(a)
    m, n = _shape(a)[-2:]
    k = min(m, n)
    rows = np.arange(m, dtype=np.int32)[:, None]
    p = real(U.convert(equal(expand_dims(perm, -2), rows), dt))
    from_lu = lax_linalg._tril(lu_, -1)[..., :, :k]
    l = from_lu + eye(m, k, dtype=dt)
    u = _triu(lu_)[..., :k, :]
    if permute_l:
        return matmul(p, l), u
    return p, l, u


def _triu(x, k: int = 0):
    s = _shape(x)[-2:]
    mask = np.triu(np.ones(s, bool), k)
    return where(mask, x, np.zeros((), U.aval_of(x).dtype))


# ---- QR -------------------------------------------------------------------------------------
def qr(a, overwrite_a: bool = False, lwork=None, mode: str = "full", pivoting: bool = False,
       check_finite: bool = True):
    """``(q, r)``, or ``(r,)`` for ``mode="r"`` (``jax.scipy.linalg.qr``; modes "full",
    "economic", "r"; no ``pivoting``)."""
    del overwrite_a, lwork, check_finite
    if mode in ("full", "r"):
        full = True
    elif mode == "economic":
        full = False
    else:
        raise ValueError(f"Unsupported QR decomposition mode '{mode}'")
    if pivoting:
        raise NotImplementedError("irax.scipy.linalg.qr: pivoting=True is not supported")
    (a,) = _inexact(a)
    q, r = lax_linalg.qr(a, full_matrices=full)
    return (r,) if mode == "r" else (q, r)


def qr_multiply(a, c, mode: str = "right", pivoting: bool = False, conjugate: bool = False,
                overwrite_a: bool = False, overwrite_c: bool = False):
    """``(Q @ c, r)`` (``mode="left"``) or ``(c @ Q, r)`` (``"right"``) with ``a``'s
    economic QR factors (``jax.scipy.linalg.qr_multiply``; no ``pivoting``)."""
    del overwrite_a, overwrite_c
    a, c = _inexact(a, c)
    if mode not in ("right", "left"):
        raise ValueError(f"mode must be 'right' or 'left', got {mode!r}")
    if pivoting:
        raise NotImplementedError("irax.scipy.linalg.qr_multiply: pivoting=True is not "
                                  "supported")
    onedim = len(_shape(c)) == 1
    if onedim:
        c = expand_dims(c, -1 if mode == "left" else 0)
    sa, sc = _shape(a), _shape(c)
    m, n = sa[-2:]
    k = min(m, n)
    if mode == "left" and sc[-2] != k:
        raise ValueError(f"Array shapes are not compatible for Q @ c operation: a has shape "
                         f"{tuple(sa)} so Q has {k} columns, but c has {sc[-2]} rows "
                         f"(expected {k}).")
    if mode == "right" and sc[-1] != m:
        raise ValueError(f"Array shapes are not compatible for c @ Q operation: a has shape "
                         f"{tuple(sa)} so Q has {m} rows, but c has {sc[-1]} columns "
                         f"(expected {m}).")
    batch = U.broadcast_shapes("linalg", sa[:-2], sc[:-2])
    a, c = broadcast_to(a, batch + sa[-2:]), broadcast_to(c, batch + sc[-2:])
    q, r = lax_linalg.qr(a, full_matrices=False)
    if conjugate:
        q = conj(q)
    out = matmul(q, c) if mode == "left" else matmul(c, q)
    if onedim:
        out = out.ravel()
    return out, r


# ---- solve ----------------------------------------------------------------------------------
def _check_solve_shapes(a, b):
    sa, sb = _shape(a), _shape(b)
    if not (len(sa) >= 2 and len(sb) in (len(sa), len(sa) - 1)
            and sa[-1] == sa[-2] == sb[len(sa) - 2]):
        raise ValueError("The arguments to solve must have shapes a=[..., m, m] and "
                         f"b=[..., m, k] or b=[..., m]; got a={sa} and b={sb}")


def _cho_solve_lower(a, b, lower: bool):
    c = lax_linalg.cholesky(a if lower else _mH(a), symmetrize_input=False)
    y = lax_linalg.triangular_solve(c, b, left_side=True, lower=True)
    return lax_linalg.triangular_solve(c, y, left_side=True, lower=True, transpose_a=True,
                                       conjugate_a=True)


def _pos_solve_fun(lower, a, b):
    return _cho_solve_lower(a, b, lower)


_pos_solve = custom_jvp(_pos_solve_fun, nondiff_argnums=(0,))


@_pos_solve.defjvp
def _pos_solve_jvp(lower, primals, tangents):
    """Implicit differentiation with the whole of ``a`` (as JAX's custom_linear_solve):
    ``dx = A^{-1} (db - dA x)``, ``A`` the Hermitian matrix of ``a``'s triangle."""
    (a, b), (da, db) = primals, tangents
    x = _pos_solve(lower, a, b)
    return x, _pos_solve(lower, a, db - matmul(da, x))


def solve(a, b, lower: bool = False, overwrite_a: bool = False, overwrite_b: bool = False,
          debug: bool = False, check_finite: bool = True, assume_a: str = "gen"):
    """``x`` with ``a @ x = b`` (``jax.scipy.linalg.solve``; ``assume_a`` "gen", "sym",
    "her" solve by LU, "pos" by Cholesky of the ``lower`` (or upper) triangle)."""
    del overwrite_a, overwrite_b, debug, check_finite
    valid = ["gen", "sym", "her", "pos"]
    if assume_a not in valid:
        raise ValueError(f"Expected assume_a to be one of {valid}; got {assume_a!r}")
    if assume_a != "pos":
        return jnp_linalg.solve(a, b)
    a, b = _inexact(a, b)
    _check_solve_shapes(a, b)
    sa, sb = _shape(a), _shape(b)
    vector = len(sb) == len(sa) - 1
    lower = bool(lower)
    out_batch = U.broadcast_shapes("linalg", sa[:-2], sb[:len(sb) - (1 if vector else 2)])
    a = broadcast_to(a, out_batch + sa[-2:])
    if vector:
        bb = expand_dims(broadcast_to(b, out_batch + sb[-1:]), -1)
        return squeeze(_pos_solve(lower, a, bb), -1)
    return _pos_solve(lower, a, broadcast_to(b, out_batch + sb[-2:]))


# ---- spectral, determinants, inverse ----------------------------------------------------------
def eigh(a, b=None, lower: bool = True, eigvals_only: bool = False, overwrite_a: bool = False,
         overwrite_b: bool = False, turbo: bool = True, eigvals=None, type: int = 1,  # noqa: A002
         check_finite: bool = True):
    """``(w, v)``: ascending eigenvalues and eigenvectors of Hermitian matrices, or ``w``
    with ``eigvals_only`` (``jax.scipy.linalg.eigh``; ``b=None``, ``type=1`` only)."""
    del overwrite_a, overwrite_b, turbo, check_finite
    if b is not None:
        raise NotImplementedError("Only the b=None case of eigh is implemented")
    if type != 1:
        raise NotImplementedError("Only the type=1 case of eigh is implemented.")
    if eigvals is not None:
        raise NotImplementedError("Only the eigvals=None case of eigh is implemented.")
    (a,) = _inexact(a)
    v, w = lax_linalg.eigh(a, lower=bool(lower))
    return w if eigvals_only else (w, v)


def svd(a, full_matrices: bool = True, compute_uv: bool = True, overwrite_a: bool = False,
        check_finite: bool = True, lapack_driver: str = "gesdd"):
    """``(u, s, vh)`` or ``s`` (``jax.scipy.linalg.svd``)."""
    del overwrite_a, check_finite, lapack_driver
    (a,) = _inexact(a)
    return lax_linalg.svd(a, full_matrices=bool(full_matrices), compute_uv=bool(compute_uv))


def det(a, overwrite_a: bool = False, check_finite: bool = True):
    """The determinant (``jax.scipy.linalg.det``)."""
    del overwrite_a, check_finite
    return jnp_linalg.det(a)


def inv(a, overwrite_a: bool = False, check_finite: bool = True):
    """The inverse (``jax.scipy.linalg.inv``)."""
    del overwrite_a, check_finite
    return jnp_linalg.inv(a)


# ---- polar ----------------------------------------------------------------------------------
def polar(a, side: str = "right", *, method: str = "qdwh", eps=None, max_iterations=None):
    """``(u, p)``: unitary ``u`` and Hermitian positive semidefinite ``p`` with ``a = u p``
    (``side="right"``) or ``a = p u`` (``jax.scipy.linalg.polar``; both methods by the
    SVD)."""
    del eps, max_iterations
    a = asarray(a)
    s = _shape(a)
    if len(s) < 2:
        raise ValueError("The input `a` must be at least a 2-D array.")
    if side not in ("right", "left"):
        raise ValueError("The argument `side` must be either 'right' or 'left'.")
    m, n = s[-2:]
    if method == "qdwh":
        if not ((m >= n and side == "right") or (m < n and side == "left")):
            raise NotImplementedError(
                "method='qdwh' only supports mxn matrices where m < n where side='right' and "
                f"m >= n side='left', got {tuple(s[-2:])} with side={side!r}")
    elif method != "svd":
        raise ValueError(f"Unknown polar decomposition method {method}.")
    if not dtypes.is_inexact(U.aval_of(a).dtype):
        (a,) = _inexact(a)
    u_, sv, vh = lax_linalg.svd(a, full_matrices=False)
    sv = U.convert(sv, U.aval_of(u_).dtype)
    unitary = matmul(u_, vh)
    if side == "right":
        posdef = matmul(_mH(vh) * expand_dims(sv, -2), vh)
    else:
        posdef = matmul(u_ * expand_dims(sv, -2), _mH(u_))
    return unitary, posdef
