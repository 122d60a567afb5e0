"""Factorizations and what is solved with them: cholesky, qr, solve, inv, det, slogdet,
matrix_power, tensorsolve, tensorinv (``jax.numpy.linalg``).

Inputs promote to an inexact dtype (integers to float32, float64 under x64); every
function takes leading batch dimensions. ``solve`` is ``lu`` and two triangular solves
(differentiable through the ops' own rules); ``det`` and ``slogdet`` use the closed forms
for 1x1, 2x2 (and 3x3) matrices, else the LU factors.
"""

from __future__ import annotations

import math
import operator
from typing import NamedTuple

import numpy as np

from irax.core import dtypes
from irax.lax import _shape as lax_shape
from irax.lax import _util as LU
from irax.lax import linalg as lax_linalg
from irax.numpy import _util as U
from irax.numpy._creation import eye
from irax.numpy._indexing import where
from irax.numpy._indexing_more import take_along_axis
from irax.numpy._linalg import diagonal, matmul, trace
from irax.numpy._logic import equal, less, not_equal
from irax.numpy._math import conj, exp, isfinite, log, real
from irax.numpy._reductions import all as all_
from irax.numpy._reductions import any as any_
from irax.numpy._reductions import count_nonzero, cumprod, prod
from irax.numpy._reductions import sum as sum_
from irax.numpy._shape import broadcast_to, expand_dims, moveaxis, ravel, reshape, squeeze
from irax.numpy._ufuncs import abs as abs_
from irax.numpy._ufuncs import multiply, sign, subtract, true_divide
from irax.transforms.custom_derivatives import custom_jvp


class QRResult(NamedTuple):
    """``(Q, R)`` of ``jax.numpy.linalg.qr``."""

    Q: object
    R: object


class EighResult(NamedTuple):
    """``(eigenvalues, eigenvectors)`` of ``jax.numpy.linalg.eigh``."""

    eigenvalues: object
    eigenvectors: object


class SVDResult(NamedTuple):
    """``(U, S, Vh)`` of ``jax.numpy.linalg.svd``."""

    U: object
    S: object
    Vh: object


class SlogdetResult(NamedTuple):
    """``(sign, logabsdet)`` of ``jax.numpy.linalg.slogdet``."""

    sign: object
    logabsdet: object


def _inexact(name: str, *args):
    U.check_arraylike(name, *args)
    return U.promote_dtypes_inexact(*args)


def _shape(x):
    return U.aval_of(x).shape


def _mH(x):
    n = len(_shape(x))
    return conj(LU.transpose(x, (*range(n - 2), n - 1, n - 2)))


# ---- cholesky, qr ---------------------------------------------------------------------------
def cholesky(a, *, upper: bool = False, symmetrize_input: bool = True):
    """The Cholesky factor of Hermitian positive definite matrices: lower ``L`` with
    ``a = L L^H`` (``upper``: ``L^H``) (``jax.numpy.linalg.cholesky``)."""
    (a,) = _inexact("jnp.linalg.cholesky", a)
    s = _shape(a)
    if len(s) >= 2 and s[-1] != s[-2]:
        raise TypeError(f"jnp.linalg.cholesky: expected square matrices, got shape {s}")
    l = lax_linalg.cholesky(a, symmetrize_input=symmetrize_input)
    return _mH(l) if upper else l


def qr(a, mode: str = "reduced"):
    """The QR decomposition: ``QRResult(Q, R)``, or ``R`` for ``mode="r"``
    (``jax.numpy.linalg.qr``; modes "reduced", "complete", "r", "full")."""
    (a,) = _inexact("jnp.linalg.qr", a)
    if mode == "raw":
        raise NotImplementedError("irax.numpy.linalg.qr: mode='raw' is not supported")
    if mode in ("reduced", "r", "full"):
        full = False
    elif mode == "complete":
        full = True
    else:
        raise ValueError(f"Unsupported QR decomposition mode '{mode}'")
    q, r = lax_linalg.qr(a, full_matrices=full)
    return r if mode == "r" else QRResult(q, r)


# ---- solve, inv -----------------------------------------------------------------------------
def lu_solve(lu, perm, b):
    """``X`` with ``A X = b`` from ``A``'s LU factors (``P A = L U``); ``b`` ``(..., m,
    n)`` with the batch dims of ``lu``."""
    rows = broadcast_to(expand_dims(perm, -1), _shape(b))
    pb = take_along_axis(b, rows, axis=-2)
    y = lax_linalg.triangular_solve(lu, pb, left_side=True, lower=True, unit_diagonal=True)
    return lax_linalg.triangular_solve(lu, y, left_side=True, lower=False)


def _solve_matrices(a, b):
    """``solve`` of ``(..., m, m)`` and ``(..., m, n)`` with broadcast batch dims."""
    sa, sb = _shape(a), _shape(b)
    batch = U.broadcast_shapes("linalg.solve", sa[:-2], sb[:-2])
    a = broadcast_to(a, batch + sa[-2:])
    b = broadcast_to(b, batch + sb[-2:])
    lu, _, perm = lax_linalg.lu(a)
    if sb[-1] == 1:
        # IREE 3.13 fails to compile lu + lu_solve of a single right-hand column ("'arith.
        # select' op failed to verify that all of {true_value, false_value, result} have
        # same type"): solve two columns, the second zero, and keep the first
        wide = lax_shape.concatenate([b, lax_shape.full_like(b, 0)], len(sb) - 1)
        return lax_shape.slice_in_dim(lu_solve(lu, perm, wide), 0, 1, axis=len(sb) - 1)
    return lu_solve(lu, perm, b)


def _core_size_error(sig: str, got: int, want: int):
    return ValueError(f"inconsistent size for core dimension 'm': {got} vs {want} on "
                      f"vectorized function with excluded=frozenset() and signature={sig!r}")


def solve(a, b):
    """``x`` with ``a @ x = b`` for square ``a`` (``jax.numpy.linalg.solve``): ``b`` of
    shape ``(m,)`` is one vector for every matrix, else ``(..., m, n)`` matrices whose batch
    dims broadcast with ``a``'s."""
    a, b = _inexact("jnp.linalg.solve", a, b)
    sa, sb = _shape(a), _shape(b)
    if len(sa) < 2:
        raise ValueError(f"left hand array must be at least two dimensional; got a.shape={sa}")
    if len(sb) > 1 and len(sa) == len(sb) + 1 and sa[-1] == sb[-1] and sa[-1] != sb[-2]:
        raise ValueError(f"Invalid shapes for solve: {sa}, {sb}. Prior to JAX v0.5.0, this "
                         "would have been treated as a batched 1-dimensional solve. To recover "
                         "this behavior, use solve(a, b[..., None]).squeeze(-1).")
    if sa[-1] != sa[-2]:
        sig = "(m,m),(m)->(m)" if len(sb) == 1 else "(m,m),(m,n)->(m,n)"
        raise _core_size_error(sig, sa[-1], sa[-2])
    if len(sb) == 1:
        if sb[0] != sa[-1]:
            raise _core_size_error("(m,m),(m)->(m)", sb[0], sa[-1])
        b = broadcast_to(reshape(b, (sb[0], 1)), sa[:-2] + (sb[0], 1))
        return squeeze(_solve_matrices(a, b), -1)
    if len(sb) < 2:
        raise ValueError("input with shape () does not have enough dimensions for all core "
                         "dimensions ('m', 'n') on vectorized function with excluded="
                         "frozenset() and signature='(m,m),(m,n)->(m,n)'")
    if sb[-2] != sa[-1]:
        raise _core_size_error("(m,m),(m,n)->(m,n)", sb[-2], sa[-1])
    return _solve_matrices(a, b)


def inv(a):
    """The inverse of square matrices (``jax.numpy.linalg.inv``)."""
    U.check_arraylike("jnp.linalg.inv", a)
    s = _shape(a)
    if len(s) < 2 or s[-1] != s[-2]:
        raise ValueError(f"Argument to inv must have shape [..., n, n], got {s}.")
    (a,) = U.promote_dtypes_inexact(a)
    dt = U.aval_of(a).dtype
    return solve(a, broadcast_to(eye(s[-1], dtype=dt), s))


# ---- determinants ---------------------------------------------------------------------------
def _entry(a, i, j):
    return a[..., i, j]


def _det_small(a, n: int):
    """The closed forms for 1x1, 2x2 and 3x3 matrices (as JAX)."""
    e = _entry
    if n == 1:
        return e(a, 0, 0)
    if n == 2:
        return subtract(multiply(e(a, 0, 0), e(a, 1, 1)), multiply(e(a, 0, 1), e(a, 1, 0)))
    terms = [(1, (0, 0), (1, 1), (2, 2)), (1, (0, 1), (1, 2), (2, 0)),
             (1, (0, 2), (1, 0), (2, 1)), (-1, (0, 2), (1, 1), (2, 0)),
             (-1, (0, 0), (1, 2), (2, 1)), (-1, (0, 1), (1, 0), (2, 2))]
    out = None
    for s, p, q, r in terms:
        t = multiply(multiply(e(a, *p), e(a, *q)), e(a, *r))
        out = t if out is None else (out + t if s > 0 else subtract(out, t))
    return out


def _slogdet_lu(a):
    """``(sign, logabsdet)`` from the LU factors: the diagonal's product and the pivots'
    parity."""
    dt = U.aval_of(a).dtype
    n = _shape(a)[-1]
    lu, pivots, _ = lax_linalg.lu(a)
    diag = diagonal(lu, axis1=-2, axis2=-1)
    is_zero = any_(equal(diag, np.zeros((), dt)), axis=-1)
    parity = count_nonzero(not_equal(pivots, np.arange(n, dtype=np.int32)), axis=-1)
    if dtypes.is_complex(dt):
        size = LU.convert(abs_(diag), dt)
        sgn = prod(true_divide(diag, size), axis=-1)
    else:
        sgn = LU.full((), 1, dt)
        parity = parity + count_nonzero(less(diag, np.zeros((), dt)), axis=-1)
    flip = LU.convert(1 - 2 * (parity % 2), dt)
    sgn = where(is_zero, np.zeros((), dt), multiply(sgn, flip))
    logdet = where(is_zero, np.array(-np.inf, dtypes.real_dtype(dt) if dtypes.is_complex(dt)
                                     else dt),
                   sum_(log(abs_(diag)), axis=-1))
    return sgn, real(logdet)


def _slogdet_of(a):
    n = _shape(a)[-1]
    if n in (1, 2):
        d = _det_small(a, n)
        return sign(d), real(log(abs_(d)))
    return _slogdet_lu(a)


def slogdet(a, *, method: str | None = None):
    """``SlogdetResult(sign, logabsdet)`` of square matrices
    (``jax.numpy.linalg.slogdet``; ``method`` None or "lu")."""
    (a,) = _inexact("jnp.linalg.slogdet", a)
    s = _shape(a)
    if len(s) < 2 or s[-1] != s[-2]:
        raise ValueError(f"Argument to slogdet() must have shape [..., n, n], got {s}")
    if method not in (None, "lu", "qr"):
        raise ValueError(f"Unknown slogdet method '{method}'. Supported methods are 'lu' "
                         "(`None`), and 'qr'.")
    if method == "qr":
        raise NotImplementedError("irax.numpy.linalg.slogdet: method='qr' is not supported")
    return SlogdetResult(*_slogdet_of(a))


def _adjugate_solve(a, b):
    """``(det(a), adj(a) @ b)`` from ``a``'s LU factors, finite for matrices of rank
    ``n - 1`` too (``U``'s last pivot is replaced by ``1 / (det(U) / u_nn)``, so the last
    substitution step yields the adjugate's row without dividing by zero); rank below
    ``n - 1`` gives zeros (the adjugate is zero)."""
    n = _shape(a)[-1]
    dt = U.aval_of(a).dtype
    lu, pivots, perm = lax_linalg.lu(a)
    diag = diagonal(lu, axis1=-2, axis2=-1)
    parity = count_nonzero(not_equal(pivots, np.arange(n, dtype=np.int32)), axis=-1)
    flip = LU.convert(1 - 2 * (parity % 2), dt)
    partial = multiply(cumprod(diag, axis=-1), expand_dims(flip, -1))
    full_det, lead = partial[..., -1], partial[..., -2]
    corner = np.zeros((n, n), bool)
    corner[-1, -1] = True
    lu = where(corner, expand_dims(expand_dims(true_divide(1, lead), -1), -1), lu)
    ones = LU.full(_shape(lu)[:-1], 1, dt)
    rank_ok = all_(isfinite(lax_linalg.triangular_solve(lu, ones, left_side=False,
                                                         lower=False)), axis=-1)
    ok = expand_dims(expand_dims(rank_ok, -1), -1)
    lu = where(ok, lu, eye(n, dtype=dt))   # finite, so that the zeroed result's
    # cotangent stays zero through the solves (0 * inf would be NaN)
    rows = broadcast_to(expand_dims(perm, -1), _shape(b))
    x = lax_linalg.triangular_solve(lu, take_along_axis(b, rows, axis=-2), left_side=True,
                                    lower=True, unit_diagonal=True)
    last = np.arange(n)[:, None] == n - 1
    x = multiply(x, where(last, np.ones((), dt), expand_dims(expand_dims(full_det, -1), -1)))
    x = lax_linalg.triangular_solve(lu, x, left_side=True, lower=False)
    return full_det, where(ok, x, np.zeros((), dt))


@custom_jvp
def _det_lu(a):
    sgn, logdet = _slogdet_lu(a)
    return multiply(sgn, LU.convert(exp(logdet), U.aval_of(sgn).dtype))


@_det_lu.defjvp
def _det_lu_jvp(primals, tangents):
    """JAX's rule: ``d det = trace(adj(a) da)``, well defined for singular ``a``."""
    (a,), (da,) = primals, tangents
    y, z = _adjugate_solve(a, da)
    return y, trace(z, axis1=-1, axis2=-2)


def det(a):
    """The determinant of square matrices (``jax.numpy.linalg.det``)."""
    (a,) = _inexact("jnp.linalg.det", a)
    s = _shape(a)
    if len(s) < 2 or s[-1] != s[-2]:
        raise ValueError(f"Argument to _det() must have shape [..., n, n], got {s}")
    if s[-1] in (2, 3):
        return _det_small(a, s[-1])
    if s[-1] < 2:
        sgn, logdet = _slogdet_of(a)
        return multiply(sgn, LU.convert(exp(logdet), U.aval_of(sgn).dtype))
    return _det_lu(a)


# ---- powers and tensors ---------------------------------------------------------------------
def matrix_power(a, n: int):
    """``a`` to the integer power ``n`` by repeated squaring (``n < 0``: of the inverse)
    (``jax.numpy.linalg.matrix_power``)."""
    U.check_arraylike("jnp.linalg.matrix_power", a)
    a = U.as_array("jnp.linalg.matrix_power", a)
    s = _shape(a)
    if len(s) < 2:
        raise TypeError(f"{len(s)}-dimensional array given. Array must be at least "
                        "two-dimensional")
    if s[-2] != s[-1]:
        raise TypeError("Last 2 dimensions of the array must be square")
    try:
        n = operator.index(n)
    except TypeError as err:
        raise TypeError(f"exponent must be an integer, got {n}") from err
    if n == 0:
        return broadcast_to(eye(s[-2], dtype=U.aval_of(a).dtype), s)
    if n < 0:
        a, n = inv(a), -n
    result, z = None, None
    while n > 0:
        z = a if z is None else matmul(z, z)
        n, bit = divmod(n, 2)
        if bit:
            result = z if result is None else matmul(result, z)
    return result


def tensorsolve(a, b, axes=None):
    """``x`` with ``tensordot(a, x, x.ndim) = b`` (``jax.numpy.linalg.tensorsolve``)."""
    U.check_arraylike("tensorsolve", a, b)
    a, b = U.as_array("tensorsolve", a), U.as_array("tensorsolve", b)
    if axes is not None:
        nd = len(_shape(a))
        a = moveaxis(a, axes, len(axes) * (nd - 1,))
    sa, sb = _shape(a), _shape(b)
    out_shape = sa[len(sb):]
    if sa[:len(sb)] != sb:
        raise ValueError("After moving axes to end, leading shape of a must match shape of b."
                         f" got a.shape={sa}, b.shape={sb}")
    size = math.prod(sb)
    if size != math.prod(out_shape):
        raise ValueError("Input arrays must have prod(a.shape[:b.ndim]) == "
                         f"prod(a.shape[b.ndim:]); got a.shape={sa}, b.ndim={len(sb)}.")
    return reshape(solve(reshape(a, (size, math.prod(out_shape))), ravel(b)), out_shape)


def tensorinv(a, ind: int = 2):
    """The inverse of ``a`` seen as a matrix of its first ``ind`` dims by the rest
    (``jax.numpy.linalg.tensorinv``)."""
    U.check_arraylike("tensorinv", a)
    a = U.as_array("tensorinv", a)
    ind = operator.index(ind)
    if ind <= 0:
        raise ValueError(f"ind must be a positive integer; got ind={ind}")
    s = _shape(a)
    contracting, batch = s[:ind], s[ind:]
    flat = (math.prod(contracting), math.prod(batch))
    if flat[0] != flat[1]:
        raise ValueError("tensorinv is only possible when the product of the first `ind` "
                         "dimensions equals that of the remaining dimensions. got "
                         f"arr.shape={s} with ind={ind}.")
    return reshape(inv(reshape(a, flat)), (*batch, *contracting))
