"""Math along axes: cross, vecdot, matvec, vecmat, gradient, interp, trapezoid, unwrap,
packbits, unpackbits (``jax.numpy`` compatible).

    jnp.gradient(f, dx)              # central differences inside, one-sided at the edges
    jnp.interp(x, xp, fp)            # piecewise linear; left/right values outside
    jnp.packbits(bits, axis=-1)      # 8 booleans per uint8, most significant first
"""

from __future__ import annotations

import operator

import numpy as np

from irax.core import dtypes
from irax.dialect import elementwise as E
from irax.frontend.trace import bind
from irax.lax import _shape as LS
from irax.lax import _sorting as LSort
from irax.lax import _util as LU
from irax.numpy import _aux as X
from irax.numpy import _util as U
from irax.numpy._indexing import take
from irax.numpy._linalg import matmul
from irax.numpy._logic import clip, logical_and, where
from irax.numpy._math import conjugate
from irax.numpy._reductions import cumsum
from irax.numpy._reductions import sum as sum_
from irax.numpy._searching import searchsorted
from irax.numpy._shape import concatenate, expand_dims, moveaxis, ravel, stack, swapaxes
from irax.numpy._ufuncs import absolute, add, floor_divide, multiply, remainder, subtract
from irax.numpy._ufuncs import true_divide as divide


# ---- products -----------------------------------------------------------------------------------
def cross(a, b, axisa: int = -1, axisb: int = -1, axisc: int = -1, axis: int | None = None):
    """The cross product of vectors of 2 or 3 components (2 x 2 gives the z component)."""
    U.check_arraylike("cross", a, b)
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = moveaxis(a, axisa, -1), moveaxis(b, axisb, -1)
    na, nb = U.aval_of(a).shape[-1], U.aval_of(b).shape[-1]
    if na not in (2, 3) or nb not in (2, 3):
        raise ValueError("Dimension must be either 2 or 3 for cross product")

    def part(v, i, n):
        if i < n:
            return X.index_axis(v, U.aval_of(v).ndim - 1, i)
        z = X.index_axis(v, U.aval_of(v).ndim - 1, 0)
        return U.full(U.aval_of(z).shape, 0, U.aval_of(z).dtype, U.aval_of(z).weak_type)

    a0, a1, a2 = (part(a, i, na) for i in range(3))
    b0, b1, b2 = (part(b, i, nb) for i in range(3))
    if na == 2 and nb == 2:
        return subtract(multiply(a0, b1), multiply(a1, b0))
    comps = [subtract(multiply(a1, b2), multiply(a2, b1)),
             subtract(multiply(a2, b0), multiply(a0, b2)),
             subtract(multiply(a0, b1), multiply(a1, b0))]
    comps = U.broadcast_all("cross", comps)
    c = stack([LU.convert(x, U.aval_of(x).dtype) for x in comps])
    return moveaxis(c, 0, axisc)


def _core_dims_error(name, shape, dims):
    raise ValueError(f"input with shape {tuple(shape)} does not have enough dimensions for all "
                     f"core dimensions {dims} on vectorized function with excluded=frozenset() "
                     f"and signature={_SIGNATURES[name]!r}")


_SIGNATURES = {"matvec": "(n,m),(m)->(n)", "vecmat": "(n),(n,m)->(m)", "vecdot": "(n),(n)->()"}


def _check_core(name, core_name, n1, n2, batch1, batch2):
    """The checks of ``jnp.vectorize`` with the function's signature: one size per core
    dimension and broadcastable batch shapes."""
    if n1 != n2:
        raise ValueError(f"inconsistent size for core dimension {core_name!r}: {n1} vs {n2} on "
                         f"vectorized function with excluded=frozenset() and "
                         f"signature={_SIGNATURES[name]!r}")
    try:
        U.broadcast_shapes(name, batch1, batch2)
    except TypeError:
        raise ValueError(f"Incompatible shapes for broadcasting: shapes={[batch1, batch2]}") \
            from None


def vecdot(x1, x2, /, *, axis: int = -1, precision=None, preferred_element_type=None):
    """``sum(conj(x1) * x2)`` along ``axis``, the other axes broadcast."""
    U.check_arraylike("jnp.vecdot", x1, x2)
    s1, s2 = U.aval_of(x1).shape, U.aval_of(x2).shape
    if not s1 or not s2:
        _core_dims_error("vecdot", s1 if not s1 else s2, "('n',)")
    if s1[axis] != s2[axis]:
        raise ValueError(f"axes must match; got shapes {s1} and {s2} with axis={axis}")
    a, b = moveaxis(x1, axis, -1), moveaxis(x2, axis, -1)
    _check_core("vecdot", "n", s1[axis], s2[axis], U.aval_of(a).shape[:-1],
                U.aval_of(b).shape[:-1])
    if dtypes.is_complex(U.aval_of(a).dtype):
        a = conjugate(a)
    r = matmul(expand_dims(a, -2), expand_dims(b, -1),
               preferred_element_type=preferred_element_type)
    return LS.squeeze(r, (U.aval_of(r).ndim - 2, U.aval_of(r).ndim - 1))


def matvec(x1, x2, /):
    """The matrix-vector product over the last two axes of ``x1`` and the last of ``x2``."""
    U.check_arraylike("matvec", x1, x2)
    s1, s2 = U.aval_of(x1).shape, U.aval_of(x2).shape
    if len(s1) < 2:
        _core_dims_error("matvec", s1, "('n', 'm')")
    if len(s2) < 1:
        _core_dims_error("matvec", s2, "('m',)")
    _check_core("matvec", "m", s1[-1], s2[-1], s1[:-2], s2[:-1])
    r = matmul(x1, expand_dims(x2, -1))
    return LS.squeeze(r, (U.aval_of(r).ndim - 1,))


def vecmat(x1, x2, /):
    """The vector-matrix product ``conj(x1) @ x2`` over the core axes."""
    U.check_arraylike("matvec", x1, x2)
    s1, s2 = U.aval_of(x1).shape, U.aval_of(x2).shape
    if len(s1) < 1:
        _core_dims_error("vecmat", s1, "('n',)")
    if len(s2) < 2:
        _core_dims_error("vecmat", s2, "('n', 'm')")
    _check_core("vecmat", "n", s1[-1], s2[-2], s1[:-1], s2[:-2])
    r = matmul(expand_dims(conjugate(x1), -2), x2)
    return LS.squeeze(r, (U.aval_of(r).ndim - 2,))


# ---- calculus -----------------------------------------------------------------------------------
def _gradient_along(a, h, axis):
    def sl(x, lo, hi):
        return X.slice_axis(x, axis, lo, hi)

    upper = subtract(sl(a, 1, 2), sl(a, 0, 1))
    lower = subtract(sl(a, -1, None), sl(a, -2, -1))
    hdim = U.aval_of(h).ndim
    if hdim == 0:
        inner = divide(multiply(subtract(sl(a, 2, None), sl(a, None, -2)), 0.5), h)
        lower, upper = divide(lower, h), divide(upper, h)
    elif hdim == 1:
        n = U.aval_of(a).shape[axis]
        if U.aval_of(h).shape[0] != n:
            raise ValueError("Spacing arrays must have the same length as the dimension along "
                             "which the gradient is calculated.")
        shape = [1] * U.aval_of(a).ndim
        shape[axis] = n
        h = LU.reshape(h, shape)
        upper = divide(upper, subtract(sl(h, 1, 2), sl(h, 0, 1)))
        lower = divide(lower, subtract(sl(h, -1, None), sl(h, -2, -1)))
        dx1 = subtract(sl(h, 1, -1), sl(h, 0, -2))
        dx2 = subtract(sl(h, 2, None), sl(h, 1, -1))
        ca = divide(bind(E.Neg, dx2), multiply(dx1, add(dx1, dx2)))
        cb = divide(subtract(dx2, dx1), multiply(dx1, dx2))
        cc = divide(dx1, multiply(dx2, add(dx1, dx2)))
        inner = add(add(multiply(ca, sl(a, 0, -2)), multiply(cb, sl(a, 1, -1))),
                    multiply(cc, sl(a, 2, None)))
    else:
        raise ValueError("Spacing arrays must be 1D arrays or scalars.")
    return concatenate((upper, inner, lower), axis=axis)


def gradient(f, *varargs, axis=None, edge_order=None):
    """The gradient of sampled ``f`` along each axis: second-order central differences inside,
    first-order differences at the ends; spacing by scalars or coordinate arrays."""
    if edge_order is not None:
        raise NotImplementedError("The 'edge_order' argument to jnp.gradient is not supported.")
    U.check_arraylike("gradient", f, *varargs)
    a, *spacing = U.promote_dtypes_inexact(f, *varargs)
    nd = U.aval_of(a).ndim
    if axis is None:
        axes = tuple(range(nd))
    else:
        axes = axis if isinstance(axis, (list, tuple)) else (axis,)
        axes = tuple(LU.canonicalize_axis(operator.index(i), nd) for i in axes)
    if not axes:
        return []
    if min(U.aval_of(a).shape[i] for i in axes) < 2:
        raise ValueError("Shape of array too small to calculate a numerical gradient, at least "
                         "2 elements are required.")
    if len(spacing) == 0:
        dx = [U.full((), 1.0, U.aval_of(a).dtype, True)] * len(axes)
    elif len(spacing) == 1:
        dx = list(spacing) * len(axes)
    elif len(spacing) == len(axes):
        dx = list(spacing)
    else:
        raise TypeError(f"Invalid number of spacing arguments {len(spacing)} for axis={axis}")
    grads = [_gradient_along(a, h, ax) for ax, h in zip(axes, dx)]
    return grads[0] if len(axes) == 1 else grads


def _extrapolate(name, v):
    if isinstance(v, str):
        if v != "extrapolate":
            raise ValueError(f"the only valid string value of `{name}` is 'extrapolate', but "
                             f"got: {v!r}")
        return True
    return False


def interp(x, xp, fp, left=None, right=None, period=None):
    """Piecewise-linear interpolation of ``(xp, fp)`` (increasing ``xp``) at ``x``; ``left`` /
    ``right`` outside (default the end values, or 'extrapolate'); ``period`` wraps."""
    U.check_arraylike("interp", x, xp, fp)
    if U.aval_of(xp).shape != U.aval_of(fp).shape or U.aval_of(xp).ndim != 1:
        raise ValueError("xp and fp must be one-dimensional arrays of equal size")
    x, xp = U.promote_dtypes_inexact(x, xp)
    (fp,) = U.promote_dtypes_inexact(fp)
    ext_left, ext_right = _extrapolate("left", left), _extrapolate("right", right)
    if dtypes.is_complex(U.aval_of(x).dtype):
        raise ValueError("jnp.interp: complex x values not supported.")
    if period is not None:
        if U.aval_of(period).ndim != 0:
            raise ValueError(f"period must be a scalar; got {period}")
        period = absolute(period)
        x, xp = remainder(x, period), remainder(xp, period)
        xp, fp = LSort.sort_key_val(xp, fp)
        n0 = U.aval_of(xp).shape[0]
        xp = concatenate([subtract(X.slice_axis(xp, 0, n0 - 1, n0), period), xp,
                          add(X.slice_axis(xp, 0, 0, 1), period)])
        fp = concatenate([X.slice_axis(fp, 0, n0 - 1, n0), fp, X.slice_axis(fp, 0, 0, 1)])
    n = U.aval_of(xp).shape[0]
    i = clip(searchsorted(xp, x, side="right"), 1, n - 1)
    im1 = subtract(i, 1)
    f_lo, x_lo = take(fp, im1), take(xp, im1)
    df = subtract(take(fp, i), f_lo)
    dx = subtract(take(xp, i), x_lo)
    delta = subtract(x, x_lo)
    eps = np.spacing(np.finfo(np.dtype(U.aval_of(xp).dtype)).eps)
    dx0 = U.cmp(bind(E.Abs, dx), U.full_like(dx, eps), "LE")
    f = where(dx0, f_lo, add(f_lo, multiply(divide(delta, where(dx0, 1, dx)), df)))
    if not ext_left and period is None:
        lv = X.index_axis(fp, 0, 0) if left is None else left
        f = where(_less(x, X.index_axis(xp, 0, 0)), lv, f)
    if not ext_right and period is None:
        rv = X.index_axis(fp, 0, -1) if right is None else right
        f = where(_less(X.index_axis(xp, 0, -1), x), rv, f)
    return f


def _less(a, b):
    a, b = U.promote_args("less", a, b)
    return U.cmp(a, b, "LT")


def trapezoid(y, x=None, dx=1.0, axis: int = -1):
    """The integral of ``y`` along ``axis`` by the trapezoidal rule (samples at ``x`` or spaced
    ``dx``)."""
    if x is None:
        U.check_arraylike("trapezoid", y)
        (ya,) = U.promote_dtypes_inexact(y)
        d = U.as_array("trapezoid", dx)
        if U.aval_of(d).ndim > 0:
            nd = U.aval_of(ya).ndim - U.aval_of(d).ndim
            d = LU.reshape(d, (1,) * nd + U.aval_of(d).shape)
            d = moveaxis(d, axis, -1)
    else:
        U.check_arraylike("trapezoid", y, x)
        ya, xa = U.promote_dtypes_inexact(y, x)
        if U.aval_of(xa).ndim == 1:
            d = X.diff1(xa, 0)
        else:
            d = moveaxis(X.diff1(xa, axis), axis, -1)
    ya = moveaxis(ya, axis, -1)
    last = U.aval_of(ya).ndim - 1
    dshape = U.aval_of(d).shape
    if not dshape or dshape[-1] == 1:
        d0 = d if not dshape else X.index_axis(d, len(dshape) - 1, 0)
        ends = add(X.index_axis(ya, last, 0), X.index_axis(ya, last, -1))
        return multiply(d0, subtract(sum_(ya, -1), multiply(0.5, ends)))
    mids = add(X.slice_axis(ya, last, 1, None), X.slice_axis(ya, last, None, -1))
    return multiply(0.5, sum_(multiply(d, mids), -1))


def unwrap(p, discont=None, axis: int = -1, period=2 * np.pi):
    """``p`` with jumps larger than ``discont`` along ``axis`` replaced by their
    ``period``-complement."""
    U.check_arraylike("unwrap", p)
    p, period = U.promote_dtypes(p, period)
    dt = U.aval_of(p).dtype
    if dtypes.is_complex(dt):
        raise ValueError("jnp.unwrap does not support complex inputs.")
    axis = LU.canonicalize_axis(axis, U.aval_of(p).ndim)
    if U.aval_of(p).shape[axis] == 0:
        return p
    if discont is None:
        discont = divide(period, 2)
    interval = floor_divide(period, 2) if dtypes.is_int(dt) else divide(period, 2)
    dd = X.diff1(p, axis)
    ddmod = subtract(remainder(add(dd, interval), period), interval)
    fix = logical_and(_eq(ddmod, bind(E.Neg, interval)), _less(0, dd))
    ddmod = where(fix, interval, ddmod)
    correct = where(_less(absolute(dd), discont), 0, subtract(ddmod, dd))
    head = X.slice_axis(p, axis, 0, 1)
    tail = add(X.slice_axis(p, axis, 1, None), cumsum(correct, axis=axis))
    return concatenate((head, tail), axis=axis)


def _eq(a, b):
    a, b = U.promote_args("equal", a, b)
    return U.cmp(a, b, "EQ")


# ---- bits ---------------------------------------------------------------------------------------
def _check_bitorder(bitorder):
    if bitorder not in ("little", "big"):
        raise ValueError("'order' must be either 'little' or 'big'")


def packbits(a, axis: int | None = None, bitorder: str = "big"):
    """Groups of 8 truth values along ``axis`` packed into uint8 (zero-padded at the end)."""
    x = U.as_array("packbits", a)
    dt = U.aval_of(x).dtype
    if not (dtypes.is_int(dt) or dt == np.bool_):
        raise TypeError("Expected an input array of integer or boolean data type")
    _check_bitorder(bitorder)
    x = LU.convert(U.to_bool(x), np.uint8)
    if axis is None:
        x, axis = ravel(x), 0
    x = swapaxes(x, axis, -1)
    shape = U.aval_of(x).shape
    rem = shape[-1] % 8
    if rem:
        x = LS.pad(x, np.uint8(0), [(0, 0, 0)] * (len(shape) - 1) + [(0, 8 - rem, 0)])
        shape = U.aval_of(x).shape
    x = LU.reshape(x, shape[:-1] + (shape[-1] // 8, 8))
    shifts = np.arange(8, dtype=np.uint8)
    if bitorder == "big":
        shifts = shifts[::-1]
    sh = LU.broadcast_to(LU.host_array(shifts.copy()), U.aval_of(x).shape)
    packed = sum_(bind(E.ShiftLeft, x, sh), axis=-1)
    return swapaxes(LU.convert(packed, np.uint8), axis, -1)


def unpackbits(a, axis: int | None = None, count: int | None = None, bitorder: str = "big"):
    """The bits of uint8 ``a`` along ``axis``, as 0/1 uint8 (``count`` of them)."""
    x = U.as_array("unpackbits", a)
    if U.aval_of(x).dtype != np.uint8:
        raise TypeError("Expected an input array of unsigned byte data type")
    _check_bitorder(bitorder)
    bits = (np.uint8(1) << np.arange(8, dtype=np.uint8)).astype(np.uint8)
    if bitorder == "big":
        bits = bits[::-1]
    if axis is None:
        x, axis = ravel(x), 0
    x = swapaxes(x, axis, -1)
    shape = U.aval_of(x).shape
    big = shape + (8,)
    xb = LU.broadcast_in_dim(x, big, tuple(range(len(shape))))
    mask = LU.broadcast_to(LU.host_array(bits.copy()), big)
    out = LU.convert(U.cmp(bind(E.And, xb, mask), U.full_like(xb, 0), "GT"), np.uint8)
    out = LU.reshape(out, shape[:-1] + (shape[-1] * 8,))
    if count is not None:
        count = operator.index(count)
        n = U.aval_of(out).shape[-1]
        if count > n:
            out = LS.pad(out, np.uint8(0), [(0, 0, 0)] * (len(shape) - 1) + [(0, count - n, 0)])
        else:
            out = X.slice_axis(out, len(shape) - 1, 0, count)
    return swapaxes(out, axis, -1)
