"""Searching and partial sorting: searchsorted, digitize, lexsort, partition, argpartition,
sort_complex, nanargmax, nanargmin (``jax.numpy`` compatible).

    jnp.searchsorted(a, v, side="right", method="sort")   # every method gives one result
    jnp.lexsort((b, a))                                   # sort by a, then by b
    jnp.partition(x, 2)                                   # x[2] in place, smaller before

``searchsorted`` orders values as ``sort`` does (NaNs last, -0.0 equal to 0.0); its methods
are a binary search in a loop ('scan'), the same search unrolled ('scan_unrolled'), a count
of all comparisons ('compare_all') and ranks in one co-sort ('sort').
"""

from __future__ import annotations

import math
import operator

import numpy as np

from irax.core import dtypes
from irax.dialect import elementwise as E
from irax.frontend.trace import bind
from irax.lax import _control as LC
from irax.lax import _shape as LS
from irax.lax import _sorting as LSort
from irax.lax import _util as LU
from irax.numpy import _aux as X
from irax.numpy import _util as U
from irax.numpy._indexing import take
from irax.numpy._logic import where
from irax.numpy._math import isnan
from irax.numpy._reductions import all as all_
from irax.numpy._reductions import argmax, argmin
from irax.numpy._reductions import sum as sum_
from irax.numpy._shape import concatenate, ravel, swapaxes
from irax.numpy._ufuncs import negative

_METHODS = ("compare_all", "scan", "scan_unrolled", "sort")


# ---- searchsorted -------------------------------------------------------------------------------
def searchsorted(a, v, side: str = "left", sorter=None, *, method: str = "scan"):
    """Indices at which ``v`` would be inserted into the sorted 1-D ``a`` to keep it sorted
    (``side='left'``: before equal entries, ``'right'``: after them)."""
    if sorter is None:
        U.check_arraylike("searchsorted", a, v)
    else:
        U.check_arraylike("searchsorted", a, v, sorter)
    if U.aval_of(a).ndim != 1:
        raise ValueError("a should be 1-dimensional")
    a, v = U.promote_dtypes(a, v)
    if sorter is not None:
        a = take(a, sorter)
    if side not in ("left", "right"):
        raise ValueError(f"invalid argument side={side!r}, expected 'left' or 'right'")
    if method not in _METHODS:
        raise ValueError(f"invalid argument method={method!r}, expected one of "
                         f"{list(_METHODS)}")
    n = U.aval_of(a).shape[0]
    out_dt = X.int_dtype_for_dim(n)
    qshape = U.aval_of(v).shape
    if n == 0:
        return U.full(qshape, 0, out_dt)
    impl = {"scan": _search_loop, "scan_unrolled": _search_unrolled,
            "compare_all": _search_compare_all, "sort": _search_sort}[method]
    return LU.convert(impl(a, v, side), out_dt)


def _go_left(side):
    return X.sort_le if side == "left" else X.sort_lt


def _bisect_step(a, v, side, low, high):
    half = bind(E.Div, bind(E.Sub, high, low), U.full_like(low, 2))
    mid = bind(E.Add, low, half)
    left = _go_left(side)(v, X.gather_1d(a, mid))
    return U.select(left, low, mid), U.select(left, mid, high)


def _levels(n):
    return int(np.ceil(np.log2(n + 1)))


def _bounds(a, v):
    shape = U.aval_of(v).shape
    n = U.aval_of(a).shape[0]
    return U.full(shape, 0, np.int32), U.full(shape, n, np.int32)


def _search_loop(a, v, side):
    low, high = _bounds(a, v)

    def body(_, carry):
        return _bisect_step(a, v, side, *carry)

    return LC.fori_loop(0, _levels(U.aval_of(a).shape[0]), body, (low, high))[1]


def _search_unrolled(a, v, side):
    low, high = _bounds(a, v)
    for _ in range(_levels(U.aval_of(a).shape[0])):
        low, high = _bisect_step(a, v, side, low, high)
    return high


def _search_compare_all(a, v, side):
    op = X.sort_lt if side == "left" else X.sort_le
    n = U.aval_of(a).shape[0]
    qshape = U.aval_of(v).shape
    big = (n,) + qshape
    aa = LU.broadcast_in_dim(a, big, (0,))
    vv = LU.broadcast_in_dim(v, big, tuple(range(1, len(big))))
    return sum_(op(aa, vv), axis=0, dtype=np.int32)


def _rank(x):
    """The position of each entry of 1-D ``x`` in its stable sort."""
    iota = LS.iota(np.int32, U.aval_of(x).shape[0])
    perm = LSort.sort_key_val(x, iota)[1]
    return X.inverse_permutation(perm)


def _search_sort(a, v, side):
    qshape = U.aval_of(v).shape
    q = ravel(v)
    m, n = U.aval_of(q).shape[0], U.aval_of(a).shape[0]
    if side == "left":
        index = LS.slice(_rank(concatenate([q, a])), (0,), (m,))
    else:
        index = LS.slice(_rank(concatenate([a, q])), (n,), (n + m,))
    return LU.reshape(bind(E.Sub, index, _rank(q)), qshape)


def digitize(x, bins, right: bool = False, *, method: str | None = None):
    """The index of the bin of ``bins`` (increasing or decreasing) holding each ``x``."""
    U.check_arraylike("digitize", x, bins)
    right = bool(X.concrete_or_error(right, "right argument of jnp.digitize()"))
    if U.aval_of(bins).ndim != 1:
        raise ValueError(f"digitize: bins must be a 1-dimensional array; got bins={bins}")
    n = U.aval_of(bins).shape[0]
    if n == 0:
        return U.full(U.aval_of(x).shape, 0, np.int32)
    side = "left" if right else "right"
    kw = {} if method is None else {"method": method}
    bins = U.as_array("digitize", bins)
    up = searchsorted(bins, x, side=side, **kw)
    down = bind(E.Sub, U.full_like(up, n), searchsorted(LS.rev(bins, (0,)), x, side=side, **kw))
    increasing = U.cmp(X.index_axis(bins, 0, -1), X.index_axis(bins, 0, 0), "GE")
    return where(increasing, up, down)


# ---- lexsort / sort_complex ---------------------------------------------------------------------
def lexsort(keys, axis: int = -1):
    """The indices that sort by ``keys[-1]``, then ``keys[-2]``, ... (stable)."""
    keys = tuple(keys)
    if len(keys) == 0:
        raise TypeError("need sequence of keys with len > 0 in lexsort")
    U.check_arraylike("lexsort", *keys)
    keys = [U.as_array("lexsort", k) for k in keys]
    if len({U.aval_of(k).shape for k in keys}) > 1:
        raise ValueError("all keys need to be the same shape")
    shape = U.aval_of(keys[0]).shape
    if not shape:
        return U.full((), 0, dtypes.default_int_dtype())
    axis = LU.canonicalize_axis(axis, len(shape))
    idx_dt = X.int_dtype_for_dim(shape[axis])
    if idx_dt == np.int32:
        idx_dt = dtypes.default_int_dtype()
    iota = LS.broadcasted_iota(idx_dt, shape, axis)
    return LSort.sort((*keys[::-1], iota), dimension=axis, num_keys=len(keys))[-1]


def sort_complex(a):
    """``a`` sorted along its last axis, as complex numbers."""
    x = U.as_array("sort_complex", a)
    x = LSort.sort(x, dimension=-1) if U.aval_of(x).ndim else x
    return LU.convert(x, dtypes.to_complex_dtype(U.aval_of(x).dtype))


# ---- partition ----------------------------------------------------------------------------------
def _partition_args(name, a, kth, axis):
    x = U.as_array(name, a)
    if dtypes.is_complex(U.aval_of(x).dtype):
        raise NotImplementedError(f"jnp.{name} for complex dtype is not implemented.")
    nd = U.aval_of(x).ndim
    axis = LU.canonicalize_axis(axis, nd)
    kth = LU.canonicalize_axis(operator.index(kth), U.aval_of(x).shape[axis])
    return swapaxes(x, axis, -1), kth, axis


def _negated_for_bottom(x):
    """Keys whose largest are the smallest of ``x`` (unsigned: ``-(x + 1)``)."""
    if dtypes.is_unsigned(U.aval_of(x).dtype):
        return negative(bind(E.Add, x, U.full_like(x, 1)))
    return negative(x)


def partition(a, kth: int, axis: int = -1):
    """``a`` reordered along ``axis`` so that entry ``kth`` is the one of the sorted array,
    smaller entries (sorted) before it and larger ones after it."""
    x, kth, axis = _partition_args("partition", a, kth, axis)
    n = U.aval_of(x).shape[-1]
    bottom = LSort.top_k(_negated_for_bottom(x), kth + 1)[0]
    bottom = negative(bottom)
    if dtypes.is_unsigned(U.aval_of(x).dtype):
        bottom = bind(E.Sub, bottom, U.full_like(bottom, 1))
    top = LSort.top_k(x, n - kth - 1)[0]
    out = LS.concatenate([bottom, top], U.aval_of(x).ndim - 1)
    return swapaxes(out, -1, axis)


def argpartition(a, kth: int, axis: int = -1):
    """The indices that ``partition`` would place along ``axis``."""
    x, kth, axis = _partition_args("partition", a, kth, axis)
    shape = U.aval_of(x).shape
    n = shape[-1]
    bottom = LSort.top_k(_negated_for_bottom(x), kth + 1)[1]
    # the other entries, in index order: top_k of a 1/0 proxy that is 0 at the bottom indices
    batch = shape[:-1]
    nb = math.prod(batch)
    offs = LU.broadcast_in_dim(
        LU.reshape(bind(E.Mul, LS.iota(np.int32, nb), U.full((nb,), n, np.int32)), batch),
        batch + (kth + 1,), tuple(range(len(batch))))
    flat_idx = ravel(bind(E.Add, bottom, offs))
    hits = X.scatter_add_1d(nb * n, flat_idx, U.full((nb * (kth + 1),), 1.0, np.float32))
    proxy = LU.reshape(bind(E.Sub, U.full((nb * n,), 1.0, np.float32), hits), shape)
    top = LSort.top_k(proxy, n - kth - 1)[1]
    out = LS.concatenate([bottom, top], len(shape) - 1)
    return swapaxes(out, -1, axis)


# ---- nanargmax / nanargmin ----------------------------------------------------------------------
def _nanarg(name, fn, fill, a, axis, out, keepdims):
    if out is not None:
        raise NotImplementedError(f"The 'out' argument to jnp.{name} is not supported.")
    x = U.as_array(name, a)
    axis = None if axis is None else operator.index(axis)
    keepdims = bool(keepdims)
    if not dtypes.is_inexact(U.aval_of(x).dtype):
        return fn(x, axis=axis, keepdims=keepdims)
    mask = isnan(x)
    res = fn(where(mask, fill, x), axis=axis, keepdims=keepdims)
    return where(all_(mask, axis=axis, keepdims=keepdims), -1, res)


def nanargmax(a, axis=None, out=None, keepdims=None):
    """``argmax`` ignoring NaNs; -1 where a slice is all NaN."""
    return _nanarg("nanargmax", argmax, -np.inf, a, axis, out, keepdims)


def nanargmin(a, axis=None, out=None, keepdims=None):
    """``argmin`` ignoring NaNs; -1 where a slice is all NaN."""
    return _nanarg("nanargmin", argmin, np.inf, a, axis, out, keepdims)
