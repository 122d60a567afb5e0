"""Polynomials as coefficient vectors, highest power first (``jax.numpy`` compatible):
``poly``, ``polyadd``, ``polysub``, ``polymul``, ``polydiv``, ``polyder``, ``polyint``,
``polyval``, ``polyfit`` and ``roots``.

    jnp.polyval(p, x, unroll=4)         # Horner's scheme as a scan over the coefficients
    jnp.polyfit(x, y, 2)                # least squares on the scaled Vandermonde matrix
    jnp.roots(p)                        # eigenvalues of the companion matrix: eager only

Everything but ``roots`` (and ``poly`` of a square matrix, which takes its eigenvalues)
works under jit, grad and vmap. ``roots`` needs ``linalg.eigvals``, which irax computes with
LAPACK on concrete arrays only (JAX's runs on CPU only); ``strip_zeros=True`` needs a
concrete ``p`` in JAX too.
"""

from __future__ import annotations

import builtins
import operator

import numpy as np

from irax.core import dtypes
from irax.core.errors import ConcretizationTypeError
from irax.frontend.tracer import Tracer
from irax.lax import _control as LC
from irax.lax import _shape as LS
from irax.lax import _sorting as LO
from irax.lax import _util as LU
from irax.numpy import _util as U
from irax.numpy._creation import arange, asarray, ones, zeros
from irax.numpy._indexing import _index, take
from irax.numpy._linalg import dot, outer
from irax.numpy._logic import equal, less, maximum, where
from irax.numpy._manipulation import trim_zeros
from irax.numpy._math import sqrt
from irax.numpy._matrix import diag, vander
from irax.numpy._pad import pad
from irax.numpy._reductions import all as all_
from irax.numpy._reductions import argmin, prod
from irax.numpy._reductions import sum as sum_
from irax.numpy._shape import atleast_1d, concatenate, flip, transpose
from irax.numpy._signal import convolve
from irax.numpy._ufuncs import abs as abs_
from irax.numpy._ufuncs import add, multiply, negative, remainder, subtract, true_divide
from irax.numpy.linalg._factor import inv
from irax.numpy.linalg._spectral import eigvals, lstsq

_ROOTS_JIT = ("The error occurred in the jnp.roots() function. To use this within a "
              "JIT-compiled context, pass strip_zeros=False, but be aware that leading zeros "
              "will result in some returned roots being set to NaN.")


def _static_int(x, name: str, fun: str) -> int:
    """A static argument of JAX's jitted ``fun``: traced, JAX's non-hashable ValueError."""
    if isinstance(x, Tracer):
        raise ValueError("Non-hashable static arguments are not supported: the "
                         f"{name!r} argument of jnp.{fun} must be a Python int, got a "
                         f"traced array of type {x.aval}")
    return operator.index(x)


def _complex_dtype(dt):
    wide = np.dtype(dt) in (np.dtype(np.float64), np.dtype(np.complex128))
    return np.dtype(np.complex128 if wide else np.complex64)


def _inexact_1d(name: str, *args):
    U.check_arraylike(name, *args)
    return U.promote_dtypes_inexact(*args)


# ---- construction and arithmetic ---------------------------------------------------------------
def poly(seq_of_zeros):
    """The coefficients of the monic polynomial with the given roots (of a square matrix:
    its characteristic polynomial, eagerly) (``jax.numpy.poly``)."""
    (z,) = _inexact_1d("poly", seq_of_zeros)
    z = atleast_1d(z)
    sh = U.aval_of(z).shape
    if len(sh) == 2 and sh[0] == sh[1] and sh[0] != 0:
        z = eigvals(z)
    if U.aval_of(z).ndim != 1:
        raise ValueError("input must be 1d or non-empty square 2d array.")
    dt = U.aval_of(z).dtype
    if U.aval_of(z).shape[0] == 0:
        return ones((), dtype=dt)
    a = ones((1,), dtype=dt)
    for k in range(U.aval_of(z).shape[0]):
        a = convolve(a, concatenate([ones((1,), dt), LU.reshape(negative(_index(z, k)), (1,))]),
                     mode="full")
    return a


def _lead_pad(x, n: int):
    """``x`` with ``n`` zero rows in front along its first axis."""
    return pad(x, ((n, 0),) + ((0, 0),) * (U.aval_of(x).ndim - 1))


def polyadd(a1, a2):
    """The sum of two polynomials, aligned at their lowest power (``jax.numpy.polyadd``)."""
    U.check_arraylike("polyadd", a1, a2)
    x, y = U.promote_dtypes(a1, a2)
    n1, n2 = U.aval_of(x).shape[0], U.aval_of(y).shape[0]
    if n2 <= n1:
        return add(x, _lead_pad(y, n1 - n2))
    return add(y, _lead_pad(x, n2 - n1))


def polysub(a1, a2):
    """The difference of two polynomials (``jax.numpy.polysub``)."""
    U.check_arraylike("polysub", a1, a2)
    x, y = U.promote_dtypes(a1, a2)
    return polyadd(x, negative(y))


def polymul(a1, a2, *, trim_leading_zeros: bool = False):
    """The product of two polynomials, a full convolution (``jax.numpy.polymul``)."""
    x, y = _inexact_1d("polymul", a1, a2)
    if trim_leading_zeros and (U.aval_of(x).shape[0] > 1 or U.aval_of(y).shape[0] > 1):
        x, y = trim_zeros(x, trim="f"), trim_zeros(y, trim="f")
    if U.aval_of(x).shape[0] == 0:
        x = zeros(1, dtype=U.aval_of(y).dtype)
    if U.aval_of(y).shape[0] == 0:
        y = zeros(1, dtype=U.aval_of(x).dtype)
    return convolve(x, y, mode="full")


def _trim_leading_tol(u, tol):
    if isinstance(u, Tracer):
        raise ConcretizationTypeError(u, "Error arose in the `filt` argument of "
                                         "trim_zeros_tol()")
    small = np.asarray(LU.host_data(abs_(u))) < np.asarray(LU.host_data(tol))
    if small.all():
        return zeros(0, U.aval_of(u).dtype)
    return _index(u, slice(int(np.argmin(small)), None))


def polydiv(u, v, *, trim_leading_zeros: bool = False):
    """The quotient and remainder of polynomial division (``jax.numpy.polydiv``)."""
    u, v = _inexact_1d("polydiv", u, v)
    m, n = U.aval_of(u).shape[0] - 1, U.aval_of(v).shape[0] - 1
    dt = U.aval_of(u).dtype
    scale = true_divide(1.0, _index(v, 0))
    q = [zeros((), dt)] * builtins.max(m - n + 1, 1)
    for k in range(0, m - n + 1):
        d = multiply(scale, _index(u, k))
        q[k] = LU.convert(d, dt, weak=False)
        u = add(u, pad(multiply(negative(d), v), (k, m - n - k)))
    if trim_leading_zeros:
        u = _trim_leading_tol(u, sqrt(asarray(dtypes.finfo(dt).eps, dt)))
    return LS.concatenate([LU.reshape(c, (1,)) for c in q], 0), u


# ---- calculus and evaluation -------------------------------------------------------------------
def polyint(p, m: int = 1, k=None):
    """The ``m``-th antiderivative of ``p`` with integration constants ``k``
    (``jax.numpy.polyint``)."""
    m = _static_int(m, "m", "polyint")
    k = 0 if k is None else k
    U.check_arraylike("polyint", p, k)
    p, k = U.promote_dtypes_inexact(p, k)
    if m < 0:
        raise ValueError("Order of integral must be positive (see polyder)")
    k = atleast_1d(k)
    if U.aval_of(k).shape[0] == 1:
        k = LU.broadcast_to(LU.reshape(k, ()), (m,))
    if U.aval_of(k).shape != (m,):
        raise ValueError("k must be a scalar or a rank-1 array of length 1 or m.")
    if m == 0:
        return p
    dt = U.aval_of(p).dtype
    n = U.aval_of(p).shape[0]
    grid = subtract(LU.reshape(arange(n + m, dtype=dt), (1, n + m)),
                    LU.reshape(arange(m, dtype=dt), (m, 1)))
    coeff = flip(prod(maximum(1, grid), axis=0), 0)
    return true_divide(concatenate((p, k)), coeff)


def polyder(p, m: int = 1):
    """The ``m``-th derivative of ``p`` (``jax.numpy.polyder``)."""
    U.check_arraylike("polyder", p)
    m = _static_int(m, "m", "polyder")
    (p,) = U.promote_dtypes_inexact(p)
    if m < 0:
        raise ValueError("Order of derivative must be positive")
    if m == 0:
        return p
    dt = U.aval_of(p).dtype
    n = U.aval_of(p).shape[0]
    coeff = prod(subtract(LU.reshape(arange(m, n, dtype=dt), (1, builtins.max(n - m, 0))),
                          LU.reshape(arange(m, dtype=dt), (m, 1))), axis=0)
    return multiply(_index(p, slice(None, -m)), flip(coeff, 0))


def polyval(p, x, *, unroll: int = 16):
    """``p`` evaluated at ``x`` by Horner's scheme, a scan over the coefficients
    (``jax.numpy.polyval``; ``unroll`` as ``lax.scan``'s)."""
    U.check_arraylike("polyval", p, x)
    p, x = U.promote_dtypes(p, x)
    pa, xa = U.aval_of(p), U.aval_of(x)
    shape = U.broadcast_shapes("polyval", pa.shape[1:], xa.shape)
    y = U.full(shape, 0, xa.dtype, xa.weak_type)
    y, _ = LC.scan(lambda acc, c: (add(multiply(acc, x), c), None), y, p, unroll=unroll)
    return y


# ---- fitting and roots -------------------------------------------------------------------------
def _weighted(lhs, rhs, w):
    (w,) = U.promote_dtypes_inexact(w)
    if U.aval_of(w).ndim != 1:
        raise TypeError("expected a 1-d array for weights")
    if U.aval_of(w).shape[0] != U.aval_of(rhs).shape[0]:
        raise TypeError("expected w and y to have the same length")
    col = LU.reshape(w, (U.aval_of(w).shape[0], 1))
    lhs = multiply(lhs, col)
    return lhs, multiply(rhs, col if U.aval_of(rhs).ndim == 2 else w)


def _check_fit(x, y, deg):
    if deg < 0:
        raise ValueError("expected deg >= 0")
    if U.aval_of(x).ndim != 1:
        raise TypeError("expected 1D vector for x")
    if U.aval_of(x).size == 0:
        raise TypeError("expected non-empty vector for x")
    if U.aval_of(y).ndim < 1 or U.aval_of(y).ndim > 2:
        raise TypeError("expected 1D or 2D array for y")
    if U.aval_of(x).shape[0] != U.aval_of(y).shape[0]:
        raise TypeError("expected x and y to have same length")


def polyfit(x, y, deg: int, rcond=None, full: bool = False, w=None, cov=False):
    """The least-squares polynomial of degree ``deg`` through ``(x, y)`` (``lstsq`` on the
    column-scaled Vandermonde matrix) (``jax.numpy.polyfit``)."""
    U.check_arraylike("polyfit", x, y, *(() if w is None else (w,)))
    x, y = U.as_array("polyfit", x), U.as_array("polyfit", y)
    deg = _static_int(deg, "deg", "polyfit")
    _check_fit(x, y, deg)
    order, npts = deg + 1, U.aval_of(x).shape[0]
    if rcond is None:
        rcond = npts * float(dtypes.finfo(U.aval_of(x).dtype).eps)
    if isinstance(rcond, Tracer):
        raise ConcretizationTypeError(rcond, "rcond must be float")
    rcond = float(rcond)
    lhs, rhs = vander(x, order), y
    if w is not None:
        lhs, rhs = _weighted(lhs, rhs, w)
    scale = sqrt(sum_(multiply(lhs, lhs), axis=0))
    lhs = true_divide(lhs, LU.reshape(scale, (1, order)))
    c, resids, rank, s = lstsq(lhs, rhs, rcond)
    if U.aval_of(c).ndim > 1:
        c = true_divide(c, LU.reshape(scale, (order, 1)))
    else:
        c = true_divide(c, scale)
    if full:
        return c, resids, rank, s, asarray(rcond)
    if not cov:
        return c
    vbase = true_divide(inv(dot(transpose(lhs), lhs)), outer(scale, scale))
    if cov == "unscaled":
        fac = asarray(1.0)
    else:
        if npts <= order:
            raise ValueError("the number of data points must exceed order to scale the "
                             "covariance matrix")
        fac = true_divide(resids, npts - order)
    fac = atleast_1d(fac)
    if U.aval_of(y).ndim == 1:
        return c, multiply(vbase, LU.reshape(fac, (1, U.aval_of(fac).shape[0])))
    return c, multiply(LU.reshape(vbase, (order, order, 1)),
                       LU.reshape(fac, (1, 1, U.aval_of(fac).shape[0])))


def _roots_no_zeros(p):
    n = U.aval_of(p).shape[0]
    if n < 2:
        return zeros((0,), _complex_dtype(U.aval_of(p).dtype))
    first_row = LU.reshape(negative(true_divide(_index(p, slice(1, None)), _index(p, 0))),
                           (1, n - 1))
    below = diag(ones((n - 2,), U.aval_of(p).dtype), -1)
    a = concatenate([first_row, _index(below, slice(1, None))], 0)
    return eigvals(a)


def _roots_with_zeros(p, lead):
    n = U.aval_of(p).shape[0]
    p = where(equal(lead, n), LU.convert(1.0, U.aval_of(p).dtype, weak=True), p)
    # roll(p, -lead) with a traced shift: a gather (irax's roll takes static shifts only)
    r = _roots_no_zeros(take(p, remainder(add(arange(n), lead), n)))
    r = LO.sort_key_val(equal(r, 0), r)[1]
    m = U.aval_of(r).shape[0]
    nan = LU.convert(complex(np.nan, np.nan), U.aval_of(r).dtype, weak=True)
    return where(less(arange(m), subtract(m, lead)), r, nan)


def roots(p, *, strip_zeros: bool = True):
    """The roots of ``p``, the eigenvalues of its companion matrix, complex; leading zeros
    stripped (concrete ``p``) or, with ``strip_zeros=False``, their roots NaN
    (``jax.numpy.roots``; eager only)."""
    (p,) = _inexact_1d("roots", p)
    p = atleast_1d(p)
    if U.aval_of(p).ndim != 1:
        raise ValueError("Input must be a rank-1 array.")
    if U.aval_of(p).shape[0] < 2:
        return zeros((0,), _complex_dtype(U.aval_of(p).dtype))
    is_zero = equal(p, 0)
    lead = where(all_(is_zero), U.aval_of(p).shape[0], argmin(is_zero))
    if not strip_zeros:
        return _roots_with_zeros(p, lead)
    if isinstance(lead, Tracer):
        raise ConcretizationTypeError(lead, _ROOTS_JIT)
    return _roots_no_zeros(_index(p, slice(int(np.asarray(LU.host_data(lead))), None)))
