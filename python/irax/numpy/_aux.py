"""Private helpers of the statistics, set, search, histogram and polynomial families.

    concrete_value(x)            # the NumPy value of a concrete array-like, else None
    diff1(x, axis)               # x[1:] - x[:-1] along axis (static slices)
    take_along(x, idx, axis)     # x gathered along one axis by in-bounds indices
    scatter_add_1d(n, idx, w)    # zeros(n).at[idx].add(w), out-of-bounds dropped
    inverse_permutation(p)       # q with q[p[i]] = i (a sort, not a scatter)

These are not the public ``diff``/``take_along_axis`` (another module's work): they take
already-checked operands and do the minimum.
"""

from __future__ import annotations

import numpy as np

from irax.core import dtypes
from irax.core.errors import ConcretizationTypeError
from irax.dialect import elementwise as E
from irax.dialect import indexing as I
from irax.dialect import scatter as SC
from irax.frontend.trace import bind
from irax.frontend.tracer import Tracer
from irax.lax import _shape as LS
from irax.lax import _sorting as LSort
from irax.lax import _util as LU
from irax.numpy import _util as U


def concrete_value(x):
    """The NumPy value of ``x`` when it is known now (eagerly, or a concrete tracer of eager
    grad), else None."""
    if isinstance(x, Tracer):
        c = x._concrete
        return None if c is None else np.asarray(c)
    return np.asarray(LU.host_data(x))


def concrete_or_error(x, context: str):
    """``concrete_value(x)`` or JAX's ConcretizationTypeError naming ``context``."""
    v = concrete_value(x)
    if v is None:
        raise ConcretizationTypeError(x, context)
    return v


def slice_axis(x, axis: int, start, stop, step: int = 1):
    """``x[..., start:stop:step, ...]`` along ``axis`` (Python slice semantics)."""
    shape = U.aval_of(x).shape
    lo, hi, st = slice(start, stop, step).indices(shape[axis])
    if st < 0:
        raise ValueError("slice_axis: negative steps are not supported")
    hi = max(lo, hi)
    start_idx = [0] * len(shape)
    limit = list(shape)
    strides = [1] * len(shape)
    start_idx[axis], limit[axis], strides[axis] = lo, hi, st
    if (lo, hi, st) == (0, shape[axis], 1):
        return x
    return LS.slice(x, start_idx, limit, strides)


def index_axis(x, axis: int, i: int):
    """``x[..., i, ...]`` along ``axis`` for a static ``i`` (negative counts from the end)."""
    n = U.aval_of(x).shape[axis]
    i = i + n if i < 0 else i
    s = slice_axis(x, axis, i, i + 1)
    return LS.squeeze(s, (axis,))


def diff1(x, axis: int = -1):
    """``x[1:] - x[:-1]`` along ``axis`` (bool: ``!=``), the dtype of ``x``."""
    axis = LU.canonicalize_axis(axis, U.aval_of(x).ndim)
    hi, lo = slice_axis(x, axis, 1, None), slice_axis(x, axis, None, -1)
    if U.aval_of(x).dtype == np.bool_:
        return U.cmp(hi, lo, "NE")
    return bind(E.Sub, hi, lo)


def gather_1d(x, idx):
    """``x[idx]`` for a 1-D ``x`` and int32 indices of any shape (clamped into range)."""
    ishape = U.aval_of(idx).shape
    idx = LU.reshape(LU.convert(idx, np.int32), ishape + (1,))
    return bind(I.Gather, x, idx, offset_dims=(), collapsed_slice_dims=(0,),
                start_index_map=(0,), slice_sizes=(1,), index_vector_dim=len(ishape))


def take_along(x, idx, axis: int):
    """``take_along_axis(x, idx, axis)`` for in-bounds int indices whose shape equals ``x``'s
    except along ``axis`` (one flat gather)."""
    xs = U.aval_of(x).shape
    nd = len(xs)
    axis = LU.canonicalize_axis(axis, nd)
    ishape = U.aval_of(idx).shape
    perm = tuple(d for d in range(nd) if d != axis) + (axis,)
    inv = tuple(int(p) for p in np.argsort(perm))
    xt, it = LU.transpose(x, perm), LU.transpose(LU.convert(idx, np.int32), perm)
    batch = tuple(xs[d] for d in perm[:-1])
    nb = int(np.prod(batch))
    n, k = xs[axis], ishape[axis]
    flat = LU.reshape(xt, (nb * n,))
    offs = LU.broadcast_in_dim(
        LU.reshape(bind(E.Mul, LS.iota(np.int32, nb), U.full((nb,), n, np.int32)), batch),
        batch + (k,), tuple(range(len(batch))))
    out = gather_1d(flat, bind(E.Add, LU.reshape(it, batch + (k,)), offs))
    return LU.transpose(out, inv)


def scatter_add_1d(n: int, idx, updates):
    """``zeros(n, updates.dtype).at[idx].add(updates)``; indices outside ``[0, n)`` dropped.
    ``idx`` and ``updates`` are 1-D of one length."""
    dt = U.aval_of(updates).dtype
    m = U.aval_of(idx).shape[0]
    idx = LU.reshape(LU.convert(idx, np.int32), (m, 1))
    zeros = U.full((n,), 0, dt)
    if dt == np.bool_:
        raise TypeError("scatter_add_1d: bool updates")
    return bind(SC.ScatterAdd, zeros, idx, updates, update_window_dims=(),
                inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,), index_vector_dim=1)


def inverse_permutation(p):
    """The inverse of the permutation ``p`` along its last axis (``q[p[i]] = i``)."""
    shape = U.aval_of(p).shape
    iota = LS.broadcasted_iota(U.aval_of(p).dtype, shape, len(shape) - 1)
    return LSort.sort_key_val(p, iota, dimension=-1)[1]


def sort_lt(x, y):
    """JAX's sort order ``x < y``: NaNs last, -0.0 equal to 0.0, complex by (real, imag)."""
    dt = U.aval_of(x).dtype
    if dtypes.is_complex(dt):
        xr, xi, yr, yi = (bind(E.Real, x), bind(E.Imag, x), bind(E.Real, y), bind(E.Imag, y))
        tie = _float_eq_total(xr, yr)
        return bind(E.Or, _float_lt(xr, yr), bind(E.And, tie, _float_lt(xi, yi)))
    if dtypes.is_float(dt):
        return _float_lt(x, y)
    if dt == np.bool_:
        return bind(E.And, bind(E.Not, x), y)
    return U.cmp(x, y, "LT")


def sort_le(x, y):
    """JAX's sort order ``x <= y`` (not ``y < x``)."""
    return bind(E.Not, sort_lt(y, x))


def _isnan(x):
    return U.cmp(x, x, "NE")


def _float_lt(x, y):
    """``x < y`` with every NaN above +inf and all NaNs equal."""
    xn, yn = _isnan(x), _isnan(y)
    return bind(E.Or, U.cmp(x, y, "LT"), bind(E.And, bind(E.Not, xn), yn))


def _float_eq_total(x, y):
    xn, yn = _isnan(x), _isnan(y)
    return bind(E.Or, U.cmp(x, y, "EQ"), bind(E.And, xn, yn))


def int_dtype_for_dim(n: int):
    """int32 when ``n`` fits, else int64 (JAX's ``int_dtype_for_dim``, signed)."""
    return np.dtype(np.int32) if n <= np.iinfo(np.int32).max else \
        dtypes.canonicalize_dtype(np.int64)
