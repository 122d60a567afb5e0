"""Reductions: sum, prod, max, min, any, all, mean, var, std, argmax, argmin, cumsum, ...

Dtypes follow JAX (notes 2.6): sums of bool and narrow ints give the default int (uint for
unsigned), float16/bfloat16 accumulate in float32, ``mean`` of ints is float32. Results are
strongly typed.

``cumsum``/``cumprod``/``cummax``/``cummin`` use a log-step (Hillis-Steele) scan: ceil(log2 n)
rounds of "shift by 2^k (pad + slice), then combine", O(log n) ops and O(n log n) work; float
sums may differ from a sequential sum in the last bits.
"""

from __future__ import annotations

import builtins
import math

import numpy as np

from irax.core import dtypes
from irax.core.shape_poly import Dim
from irax.dialect import elementwise as E
from irax.dialect import reduction as R
from irax.frontend.trace import bind
from irax.lax import _control as LC
from irax.lax import _shape as LS
from irax.lax import _util as LU
from irax.lax._elementwise import conj_raw
from irax.numpy import _util as U
from irax.numpy._fast import fast_mean, fast_reduce
from irax.numpy._logic import equal, isclose, logical_and, logical_not, logical_or
from irax.numpy._logic import where as _where
from irax.numpy._math import isnan
from irax.numpy._ufuncs import subtract

_LOW = (dtypes.float16, dtypes.bfloat16)


def _upcast_f16(dt):
    return dtypes.float32 if dt in _LOW else dt


def _promote_int(dt):
    """The accumulation dtype of an integer/bool ``sum``/``prod`` (``dtypes.sum_dtype``)."""
    return dtypes.sum_dtype(dt)


def _keep(result, shape, axes):
    return LU.reshape(result, tuple(1 if i in axes else d for i, d in enumerate(shape)))


def _identity(name, dt):
    if name in ("sum", "any"):
        return 0
    if name in ("prod", "all"):
        return 1
    if dt == np.bool_:
        return name == "min"
    if dtypes.is_int(dt):
        info = dtypes.iinfo(dt)
        return info.min if name == "max" else info.max
    return -np.inf if name == "max" else np.inf


# name -> (reduction, elementwise combine) for numbers, then the same for bool
_OPS = {
    "sum": (R.ReduceSum, E.Add, R.ReduceOr, E.Or),
    "prod": (R.ReduceProd, E.Mul, R.ReduceAnd, E.And),
    "max": (R.ReduceMax, E.Max, R.ReduceOr, E.Or),
    "min": (R.ReduceMin, E.Min, R.ReduceAnd, E.And),
    "any": (R.ReduceOr, E.Or, R.ReduceOr, E.Or),
    "all": (R.ReduceAnd, E.And, R.ReduceAnd, E.And),
}


#: the reductions of the eager fast path (``_fast.fast_reduce``)
_FAST = {"sum": R.ReduceSum, "prod": R.ReduceProd, "max": R.ReduceMax, "min": R.ReduceMin}


def _reduce(name, a, axis, dtype, out, keepdims, initial, where, *, promote_integers=False,
            upcast=False, has_identity=True):
    if out is not None:
        raise NotImplementedError(f"The 'out' argument to jnp.{name} is not supported.")
    x = U.as_array(name, a)
    av = U.aval_of(x)
    axes = U.canonical_axes(axis, av.ndim)
    if dtype is None and initial is None and where is None and name in _FAST and axes \
            and builtins.all(av.shape[d] for d in axes):
        r = fast_reduce(_FAST[name], x, axes, keepdims)
        if r is not None:
            return r
    if initial is None and not has_identity:
        if where is not None:
            raise ValueError(f"reduction operation {name} does not have an identity, so to use a "
                             "where mask one has to specify 'initial'")
        if builtins.any(av.shape[d] == 0 for d in axes):
            raise ValueError(f"zero-size array to reduction operation {name} which has no "
                             "identity")
    user_dt = dtypes.check_user_dtype(dtype, name)
    if name in ("any", "all"):
        result_dt = dtypes.bool_
        x = U.to_bool(x)
    else:
        result_dt = user_dt or av.dtype
        if user_dt is None and promote_integers:
            result_dt = _promote_int(result_dt)
    # float16/bfloat16 accumulate in float32 unless the user asked for the dtype
    comp = _upcast_f16(result_dt) if upcast and user_dt is None else result_dt
    x = LU.convert(x, comp)
    ops = _OPS[name]
    op, combine = ops[2:] if comp == np.bool_ else ops[:2]
    if where is not None:
        mask = U.broadcast_to_like(U.to_bool(U.as_array(name, where)), x)
        x = bind(E.Select, mask, x, U.full_like(x, _identity(name, comp)))
    r = bind(op, x, axes=axes) if axes else x
    if initial is not None:
        init = LU.convert(initial, comp)
        if U.aval_of(init).ndim:
            raise ValueError(f"initial value must be a scalar. Got array of shape "
                             f"{U.aval_of(init).shape}")
        init = LU.broadcast_to(init, U.aval_of(r).shape)
        r = bind(combine, init, r)
    if keepdims:
        r = _keep(r, av.shape, axes)
    return LU.convert(r, result_dt)


def sum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None,  # noqa: A001
        promote_integers=True):
    return _reduce("sum", a, axis, dtype, out, keepdims, initial, where,
                   promote_integers=promote_integers, upcast=True)


def prod(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None,
         promote_integers=True):
    return _reduce("prod", a, axis, dtype, out, keepdims, initial, where,
                   promote_integers=promote_integers, upcast=True)


def max(a, axis=None, out=None, keepdims=False, initial=None, where=None):  # noqa: A001
    return _reduce("max", a, axis, None, out, keepdims, initial, where, has_identity=False)


def min(a, axis=None, out=None, keepdims=False, initial=None, where=None):  # noqa: A001
    return _reduce("min", a, axis, None, out, keepdims, initial, where, has_identity=False)


amax, amin = max, min


def any(a, axis=None, out=None, keepdims=False, *, where=None):  # noqa: A001
    return _reduce("any", a, axis, None, out, keepdims, None, where)


def all(a, axis=None, out=None, keepdims=False, *, where=None):  # noqa: A001
    return _reduce("all", a, axis, None, out, keepdims, None, where)


def _count(shape, axes, comp, where, keepdims):
    if where is None:
        n = math.prod(shape[d] for d in axes) if axes else 1
        if type(n) is Dim:   # a symbolic size: its value in the traced program
            return LU.convert(n, comp)
        return U.full((), int(n), comp)
    mask = LU.broadcast_to(U.to_bool(U.as_array("mean", where)), shape)
    return sum(mask, axes, dtype=comp, keepdims=keepdims)


def mean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=None):
    """``sum / count`` in float32 for ints, bool, float16 and bfloat16."""
    x = U.as_array("mean", a)
    av = U.aval_of(x)
    axes = U.canonical_axes(axis, av.ndim)
    if dtype is None and where is None and out is None and axes and \
            builtins.all(av.shape[d] for d in axes):
        r = fast_mean(x, axes, keepdims)      # the eager fast path
        if r is not None:
            return r
    user_dt = dtypes.check_user_dtype(dtype, "mean")
    result_dt = user_dt or dtypes.to_inexact_dtype(av.dtype)
    comp = _upcast_f16(result_dt)
    total = sum(x, axes, dtype=comp, keepdims=keepdims, where=where, out=out)
    count = LU.broadcast_to(_count(av.shape, axes, comp, where, keepdims),
                            U.aval_of(total).shape)
    return LU.convert(bind(E.Div, total, count), result_dt)


_mean = mean


def _var_types(a_dt, dtype):
    if dtype is not None:
        dt = dtypes.check_user_dtype(dtype, "var")
        if dtypes.is_complex(a_dt) and not dtypes.is_complex(dt):
            raise ValueError("irax.numpy.var does not yet support real dtype parameters when "
                             "computing the variance of an array of complex values.")
        return _upcast_f16(dt), dt
    if not dtypes.is_inexact(a_dt):
        dt = dtypes.to_inexact_dtype(a_dt)
        return dt, dt
    return _upcast_f16(a_dt), dtypes.real_dtype(a_dt)


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None, mean=None,
        correction=None):
    """Two-pass variance ``sum((x - mean)^2) / (N - correction)``; NaN when ``N <= correction``."""
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.var is not supported.")
    if correction is None:
        correction = ddof
    elif ddof != 0:
        raise ValueError("ddof and correction can't be provided simultaneously.")
    x = U.as_array("var", a)
    av = U.aval_of(x)
    comp, result_dt = _var_types(av.dtype, dtype)
    x = LU.convert(x, comp)
    axes = U.canonical_axes(axis, av.ndim)
    mu = mean if mean is not None else _mean(x, axes, comp, keepdims=True, where=where)
    centered = bind(E.Sub, x, LU.broadcast_to(LU.convert(mu, comp), av.shape))
    if dtypes.is_complex(comp):
        centered = bind(E.Real, bind(E.Mul, centered, conj_raw(centered)))
    else:
        centered = bind(E.Mul, centered, centered)
    real = dtypes.real_dtype(comp)
    total = sum(centered, axes, dtype=real, keepdims=keepdims, where=where)
    count = _count(av.shape, axes, real, where, keepdims)
    denom = bind(E.Sub, count, U.full(U.aval_of(count).shape, correction, real))
    denom = LU.broadcast_to(denom, U.aval_of(total).shape)
    r = bind(E.Div, total, denom)
    r = bind(E.Select, U.cmp(denom, U.full_like(denom, 0), "GT"), r, U.full_like(r, np.nan))
    return LU.convert(r, result_dt)


def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None, mean=None,
        correction=None):
    v = var(a, axis, dtype, out, ddof, keepdims, where=where, mean=mean, correction=correction)
    return bind(E.Sqrt, v)


def _arg(name, op, a, axis, out, keepdims):
    if out is not None:
        raise NotImplementedError(f"The 'out' argument to jnp.{name} is not supported.")
    x = U.as_array(name, a)
    if axis is None:
        keep_shape = (1,) * U.aval_of(x).ndim
        x, axis = LU.reshape(x, (U.aval_of(x).size,)), 0
    else:
        keep_shape = None
    av = U.aval_of(x)
    axis = LU.canonicalize_axis(axis, av.ndim)
    if av.shape[axis] == 0:
        raise ValueError(f"attempt to get {name} of an empty sequence")
    if dtypes.is_complex(av.dtype):
        raise TypeError(f"irax.numpy.{name} does not support complex inputs")
    r = bind(op, x, axis=axis, index_dtype=dtypes.default_int_dtype())
    if keepdims:
        return LU.reshape(r, keep_shape if keep_shape is not None else
                          av.shape[:axis] + (1,) + av.shape[axis + 1:])
    return r


def argmax(a, axis=None, out=None, keepdims=None):
    """Index of the maximum (the first NaN, else the first occurrence)."""
    return _arg("argmax", R.Argmax, a, axis, out, keepdims)


def argmin(a, axis=None, out=None, keepdims=None):
    return _arg("argmin", R.Argmin, a, axis, out, keepdims)


def count_nonzero(a, axis=None, keepdims=False):
    return sum(U.to_bool(U.as_array("count_nonzero", a)), axis, dtype=dtypes.default_int_dtype(),
               keepdims=keepdims)


def ptp(a, axis=None, out=None, keepdims=False):
    return subtract(max(a, axis, out, keepdims), min(a, axis, out, keepdims))


def _nan_to(x, value):
    x = U.as_array("nan reduction", x)
    if not dtypes.is_inexact(U.aval_of(x).dtype):
        return x
    return _where(isnan(x), U.full_like(x, value), x)


def nansum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    return sum(_nan_to(a, 0), axis, dtype, out, keepdims, initial, where)


def nanprod(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    return prod(_nan_to(a, 1), axis, dtype, out, keepdims, initial, where)


def nanmax(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    """Maximum ignoring NaN (NaN where a slice is all NaN)."""
    m = max(_nan_to(a, -np.inf), axis, out, keepdims, initial, where)
    return _where(all(isnan(a), axis, keepdims=keepdims), U.full_like(m, np.nan), m)


def nanmin(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    m = min(_nan_to(a, np.inf), axis, out, keepdims, initial, where)
    return _where(all(isnan(a), axis, keepdims=keepdims), U.full_like(m, np.nan), m)


def nanmean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=None):
    keep = logical_not(isnan(a))
    if where is not None:
        keep = logical_and(keep, where)
    return mean(_nan_to(a, 0), axis, dtype, out, keepdims, where=keep)


# ---- cumulative reductions ----------------------------------------------------------------------
def _shift(x, axis, k, fill):
    """``x`` shifted by ``k`` along ``axis``, the first ``k`` entries set to ``fill``."""
    av = U.aval_of(x)
    n = av.shape[axis]
    if k >= n:
        return U.full_like(x, fill)
    if not av.is_static:   # IREE 3.13 cannot convert a negative pad of dynamic size
        keep = LS.slice_in_dim(x, 0, n - k, axis=axis)
        block = list(av.shape)
        block[axis] = k
        return LS.concatenate([LU.full(block, fill, av.dtype), keep], axis)
    config = [(0, 0, 0)] * av.ndim
    config[axis] = (k, -k, 0)
    return LS.pad(x, U.full((), fill, av.dtype), config)


def _scan(x, axis, op, fill):
    n = U.aval_of(x).shape[axis]
    if type(n) is Dim:
        return _scan_symbolic(x, axis, op, fill)
    k = 1
    while k < n:
        x = bind(op, x, _shift(x, axis, k, fill))
        k *= 2
    return x


def _scan_symbolic(x, axis, op, fill):
    """``_scan`` along an axis of symbolic size ``n``: the same doubling steps in a
    ``while_loop`` (``k < n`` is known only when it runs), each shift a window of
    ``concatenate([fill, x])`` starting at ``n - k``."""
    av = U.aval_of(x)
    n = av.shape[axis]
    fills = U.full_like(x, fill)

    def shift(x, k):
        both = LS.concatenate([fills, x], axis)
        starts = [0] * av.ndim
        starts[axis] = bind(E.Sub, LU.convert(n, np.int32), k)
        return LS.dynamic_slice(both, starts, av.shape)

    def body(c):
        x, k = c
        return bind(op, x, shift(x, k)), bind(E.Mul, k, LU.full((), 2, np.int32))

    def cond(c):
        return U.cmp(c[1], LU.convert(n, np.int32), "LT")

    return LC.while_loop(cond, body, (x, LU.full((), 1, np.int32)))[0]


def _cumulative(name, a, axis, dtype, op, bool_op, fill, promote):
    x = U.as_array(name, a)
    if axis is None or U.aval_of(x).ndim == 0:
        x, axis = LU.reshape(x, (U.aval_of(x).size,)), 0
    av = U.aval_of(x)
    axis = LU.canonicalize_axis(axis, av.ndim)
    user_dt = dtypes.check_user_dtype(dtype, name)
    result_dt = user_dt or av.dtype
    if (user_dt is None and promote) or result_dt == np.bool_:
        result_dt = _promote_int(result_dt)
    if user_dt == np.bool_ and av.dtype != np.bool_:
        x = U.to_bool(x)
    x = LU.convert(x, result_dt)
    if result_dt == np.bool_:
        op = bool_op
    r = _scan(x, axis, op, _identity(fill, result_dt))
    return LU.convert(r, np.bool_) if user_dt == np.bool_ else r


def cumsum(a, axis=None, dtype=None, out=None):
    """Inclusive prefix sums along ``axis`` (ravelled when None); int8 stays int8, bool -> int."""
    return _cumulative("cumsum", a, axis, dtype, E.Add, E.Or, "sum", False)


def cumprod(a, axis=None, dtype=None, out=None):
    return _cumulative("cumprod", a, axis, dtype, E.Mul, E.And, "prod", False)


def cummax(a, axis=None, dtype=None, out=None):
    return _cumulative("cummax", a, axis, dtype, E.Max, E.Or, "max", False)


def cummin(a, axis=None, dtype=None, out=None):
    return _cumulative("cummin", a, axis, dtype, E.Min, E.And, "min", False)


cumulative_sum, cumulative_prod = cumsum, cumprod


# ---- comparisons that reduce ------------------------------------------------------------
def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan: bool = False):
    return all(isclose(a, b, rtol, atol, equal_nan))


def array_equal(a1, a2, equal_nan: bool = False):
    s1, s2 = U.aval_of(a1).shape, U.aval_of(a2).shape
    if s1 != s2:
        return U.full((), False, np.bool_)
    eq = equal(a1, a2)
    if equal_nan:
        eq = logical_or(eq, logical_and(isnan(a1), isnan(a2)))
    return all(eq)
