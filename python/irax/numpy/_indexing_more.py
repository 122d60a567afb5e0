"""Indexing helpers (``jax.numpy`` compatible): ``take_along_axis``, ``put``,
``put_along_axis``, ``place``, ``choose``, ``compress`` and ``extract``.

    jnp.take_along_axis(x, jnp.argsort(x, axis=1), axis=1)   # out-of-bounds give NaN/INT_MIN
    jnp.put(x, [0, 3], 9.0, inplace=False)                     # JAX arrays are immutable
    jnp.compress(mask, x, axis=0, size=2)                      # a static size under jit

Setting values (``put``, ``put_along_axis``) is one ``irax.scatter_add`` of the values onto
-0.0 (which keeps signs and NaNs exact) and one of a count that selects them over the old
values; of several values for one element the last wins, as on JAX's CPU backend, which a
stable sort of the flat targets decides. Out-of-bounds targets are dropped.
"""

from __future__ import annotations

import math
import operator

import numpy as np

from irax.core import dtypes
from irax.core.errors import ConcretizationTypeError
from irax.dialect import elementwise as E
from irax.dialect import indexing as I
from irax.dialect.scatter import ScatterAdd
from irax.frontend.trace import bind
from irax.frontend.tracer import Tracer
from irax.lax import _shape as LS
from irax.lax import _sorting as LSort
from irax.lax import _util as LU
from irax.numpy import _util as U
from irax.numpy._creation import array
from irax.numpy._index_tricks import indices as indices_grid
from irax.numpy._index_tricks import unravel_index
from irax.numpy._indexing import _fill_value, _index
from irax.numpy._logic import clip, where
from irax.numpy._matrix import _tile_to_size
from irax.numpy._reductions import any as any_
from irax.numpy._reductions import cumsum
from irax.numpy._reductions import sum as sum_
from irax.numpy._shape import broadcast_arrays, moveaxis, ravel, reshape
from irax.numpy._sorting import argsort
from irax.numpy._ufuncs import remainder

_I32 = np.dtype(np.int32)


# ---- scatters (private: the `.at[]` interface is another module's) ----------------------------
def _int32(x):
    return LU.convert(x, _I32)


def _stack_points(idx, batch):
    """The k index arrays, broadcast to ``batch``, as one ``(prod(batch), k)`` int32 array."""
    nb = math.prod(batch)
    cols = [LU.reshape(LU.broadcast_to(_int32(i), batch), (nb, 1)) for i in idx]
    return cols[0] if len(cols) == 1 else LS.concatenate(cols, 1)


def scatter_add_points(base, points, updates):
    """``base`` plus ``updates[i]`` added at the leading coordinates ``points[i]`` (``points``
    of shape ``(n, k)``, ``updates`` of shape ``(n, *base.shape[k:])``); out-of-bounds
    windows are dropped."""
    k = U.aval_of(points).shape[1]
    r = U.aval_of(base).ndim
    return bind(ScatterAdd, base, points, updates, update_window_dims=tuple(range(1, r - k + 1)),
                inserted_window_dims=tuple(range(k)), scatter_dims_to_operand_dims=tuple(range(k)),
                index_vector_dim=1)


def _last_wins(points, shape):
    """Per update, whether no later update has the same in-bounds target (int32 0/1)."""
    n, k = U.aval_of(points).shape
    inb = None
    lin = U.full((n,), 0, _I32)
    stride = 1
    for d in reversed(range(k)):
        col = LU.reshape(LS.slice(points, (0, d), (n, d + 1)), (n,))
        ok = bind(E.And, U.cmp(col, U.full_like(col, 0), "GE"),
                  U.cmp(col, U.full_like(col, shape[d]), "LT"))
        inb = ok if inb is None else bind(E.And, inb, ok)
        lin = bind(E.Add, lin, bind(E.Mul, col, U.full_like(col, stride)))
        stride *= shape[d]
    lin = U.select(inb, lin, U.full_like(lin, -1))
    keys, perm = LSort.sort_key_val(lin, LS.iota(_I32, n), is_stable=True)
    nxt = LS.concatenate([LS.slice(keys, (1,), (n,)), U.full((1,), -2, _I32)], 0)
    last = LU.convert(U.cmp(keys, nxt, "NE"), _I32)
    return scatter_add_points(U.full((n,), 0, _I32), LU.reshape(perm, (n, 1)), last)


def scatter_set(x, idx, values, *, unique: bool = False):
    """``x`` with ``values`` set at the (already wrapped) integer index arrays ``idx`` over
    its leading ``len(idx)`` dims, broadcasting like ``x.at[idx].set(values)``: the values
    take ``x``'s dtype, out-of-bounds targets are dropped, and the last of duplicate targets
    wins (``unique`` skips that sort)."""
    ax = U.aval_of(x)
    k = len(idx)
    batch = U.broadcast_shapes("scatter", *(U.aval_of(i).shape for i in idx))
    nb = math.prod(batch)
    window = ax.shape[k:]
    work = _I32 if ax.dtype == np.bool_ else ax.dtype
    u = LU.convert(LU.convert(values, ax.dtype, ax.weak_type), work, ax.weak_type)
    u = LU.reshape(LU.broadcast_to(u, batch + window), (nb,) + window)
    if nb == 0 or ax.size == 0:
        return x
    points = _stack_points(idx, batch)
    zero = I._negative_zero(work)
    if not unique and nb > 1:
        keep = U.cmp(_last_wins(points, ax.shape), U.full((nb,), 0, _I32), "NE")
        keep = LU.broadcast_in_dim(keep, (nb,) + window, (0,))
        u = U.select(keep, u, U.full_like(u, zero, weak=ax.weak_type))
    placed = scatter_add_points(U.full(ax.shape, zero, work, ax.weak_type), points, u)
    hits = scatter_add_points(U.full(ax.shape[:k], 0, _I32), points, U.full((nb,), 1, _I32))
    hit = LU.broadcast_in_dim(U.cmp(hits, U.full_like(hits, 0), "NE"), ax.shape, tuple(range(k)))
    if ax.dtype == np.bool_:
        placed = U.cmp(placed, U.full_like(placed, 0), "NE")
    return LU.convert(U.select(hit, placed, x), ax.dtype, ax.weak_type)


def _wrap_negative(i, n: int):
    i = _int32(i)
    if dtypes.is_unsigned(U.aval_of(i).dtype):
        return i
    return U.select(U.cmp(i, U.full_like(i, 0), "LT"), bind(E.Add, i, U.full_like(i, n)), i)


def _scatter_mode(mode, idx, shape):
    """The index arrays for a scatter in JAX's ``mode`` (None/'fill'/'drop': negative indices
    wrap once, then out-of-bounds are dropped; 'clip': clamped)."""
    if mode not in (None, "fill", "drop", "clip", "promise_in_bounds"):
        raise ValueError(f'Unknown gather mode "{mode}"')
    out = [_wrap_negative(i, n) for i, n in zip(idx, shape)]
    if mode == "clip":
        out = [clip(i, 0, n - 1) for i, n in zip(out, shape)]
    return out


# ---- take_along_axis --------------------------------------------------------------------------
def _along_axis_dims(idx_shape, arr_shape, axis):
    """JAX's gather dimension numbers for take_along_axis (size-1 index dims take the whole
    array dim, size-1 array dims are squeezed, the others are batching dims)."""
    nums = dict(offset_dims=[], collapsed_slice_dims=[], start_index_map=[],
                operand_batching_dims=[], start_indices_batching_dims=[])
    sizes, squeeze = [], []
    new_i = j = 0
    for i in range(len(arr_shape)):
        if i == axis:
            sizes.append(1)
            nums["start_index_map"].append(new_i)
            nums["collapsed_slice_dims"].append(new_i)
            new_i, j = new_i + 1, j + 1
        elif idx_shape[i] == 1:
            nums["offset_dims"].append(i)
            sizes.append(arr_shape[i])
            new_i += 1
        elif arr_shape[i] == 1:
            squeeze.append(i)
            j += 1
        else:
            sizes.append(0 if arr_shape[i] == 0 else 1)
            nums["operand_batching_dims"].append(new_i)
            nums["start_indices_batching_dims"].append(j)
            new_i, j = new_i + 1, j + 1
    return {k: tuple(v) for k, v in nums.items()}, tuple(sizes), squeeze


def take_along_axis(arr, indices, axis: int | None = -1, mode=None, fill_value=None, *,
                    wrap_negative_indices: bool | None = None):
    """Elements of ``arr`` at ``indices`` along ``axis`` (other dims broadcast); ``mode``
    None/'fill' (out-of-bounds give ``fill_value``: NaN, INT_MIN, UINT_MAX or True by
    default), 'clip', 'promise_in_bounds' or 'one_hot'."""
    U.check_arraylike("take_along_axis", arr, indices)
    a, idx = U.as_array("take_along_axis", arr), U.as_array("take_along_axis", indices)
    ia = U.aval_of(idx)
    if not dtypes.is_int(ia.dtype):
        raise TypeError(f"take_along_axis indices must be of integer type, got {ia.dtype}")
    if axis is None:
        if ia.ndim != 1:
            raise ValueError(f"take_along_axis indices must be 1D if axis=None, got shape "
                             f"{ia.shape}")
        a, axis = ravel(a), 0
    aa = U.aval_of(a)
    if aa.ndim != ia.ndim:
        raise ValueError(f"indices and arr must have the same number of dimensions; {ia.ndim} "
                         f"vs. {aa.ndim}")
    axis = LU.canonicalize_axis(axis, aa.ndim)
    if mode not in (None, "fill", "drop", "clip", "promise_in_bounds", "one_hot"):
        raise ValueError(f'Unknown gather mode "{mode}"')
    n = aa.shape[axis]
    arr_shape = aa.shape[:axis] + (1,) + aa.shape[axis + 1:]
    out_shape = _broadcast_shapes(ia.shape, arr_shape)
    if n == 0:
        return U.full(out_shape, 0, aa.dtype)
    if wrap_negative_indices is None:
        wrap_negative_indices = mode != "promise_in_bounds"
    idx = _wrap_negative(idx, n) if wrap_negative_indices else _int32(idx)
    if mode == "one_hot":
        return _take_one_hot(a, idx, axis, out_shape)
    nums, sizes, squeeze = _along_axis_dims(ia.shape, arr_shape, axis)
    index_dims = [i for i, d in enumerate(ia.shape) if i == axis or d != 1]
    gidx = LU.reshape(idx, tuple(out_shape[i] for i in index_dims) + (1,))
    src = LU.reshape(a, tuple(d for i, d in enumerate(aa.shape) if i not in squeeze))
    out = bind(I.Gather, src, gidx, slice_sizes=sizes, index_vector_dim=len(index_dims), **nums)
    if mode == "clip" or mode == "promise_in_bounds":
        return out
    ok = bind(E.And, U.cmp(gidx, U.full_like(gidx, 0), "GE"),
              U.cmp(gidx, U.full_like(gidx, n), "LT"))
    ok = LU.reshape(ok, U.aval_of(ok).shape[:-1])
    batch_pos = tuple(i for i in range(len(out_shape)) if i not in nums["offset_dims"])
    ok = LU.broadcast_in_dim(ok, out_shape, batch_pos)
    fill = _fill_value(aa.dtype, fill_value)
    return U.select(ok, out, U.full_like(out, fill, weak=aa.weak_type))


def _broadcast_shapes(*shapes):
    try:
        return U.broadcast_shapes("take_along_axis", *shapes)
    except TypeError:
        raise ValueError(f"Incompatible shapes for broadcasting: shapes={list(shapes)}") from None


def _take_one_hot(a, idx, axis, out_shape):
    """``sum(one_hot(idx) * a)`` along ``axis`` (JAX's 'one_hot' mode: no gather)."""
    aa = U.aval_of(a)
    n = aa.shape[axis]
    big = tuple(out_shape[:axis + 1]) + (n,) + tuple(out_shape[axis + 1:])
    hot_idx = LU.broadcast_in_dim(LU.broadcast_to(idx, out_shape), big,
                                  tuple(d for d in range(len(big)) if d != axis + 1))
    pos = LS.broadcasted_iota(_I32, big, axis + 1)
    hot = LU.convert(U.cmp(hot_idx, pos, "EQ"), aa.dtype)
    src = LU.broadcast_in_dim(a, big, tuple(d for d in range(len(big)) if d != axis))
    prod = bind(E.Mul, hot, src) if aa.dtype != np.bool_ else bind(E.And, hot, src)
    return LU.convert(sum_(prod, axis=axis + 1, dtype=aa.dtype), aa.dtype, aa.weak_type)


# ---- put, put_along_axis, place ----------------------------------------------------------------
def put(a, ind, v, mode: str | None = None, *, inplace: bool = True):
    """A copy of ``a`` with flat positions ``ind`` set to ``v`` (cycled); ``mode`` None
    (indices clamp as in ``unravel_index``), 'clip' or 'wrap'."""
    if inplace:
        raise ValueError("jax.numpy.put cannot modify arrays in-place, because JAX arrays are "
                         "immutable. Pass inplace=False to instead return an updated array.")
    U.check_arraylike("put", a, ind, v)
    x = U.as_array("put", a)
    flat = ravel(U.as_array("put", ind))
    vals = ravel(U.as_array("put", v))
    size, shape = U.aval_of(x).size, U.aval_of(x).shape
    n = U.aval_of(flat).size
    if not size or not n or not U.aval_of(vals).size:
        return x
    vals = _tile_to_size(vals, n)
    if mode == "clip":
        flat = clip(flat, 0, size - 1)
    elif mode == "wrap":
        flat = remainder(flat, size)
    elif mode == "raise":
        raise NotImplementedError("The 'raise' mode to jnp.put is not supported.")
    elif mode is not None:
        raise ValueError(f"mode should be one of 'wrap' or 'clip'; got mode={mode!r}")
    return scatter_set(x, list(unravel_index(flat, shape)), vals)


def put_along_axis(arr, indices, values, axis: int | None, inplace: bool = True, *,
                   mode: str | None = None):
    """A copy of ``arr`` with ``values`` set at ``indices`` along ``axis`` (the inverse of
    ``take_along_axis``)."""
    if inplace:
        raise ValueError("jax.numpy.put_along_axis cannot modify arrays in-place, because JAX "
                         "arraysare immutable. Pass inplace=False to instead return an updated "
                         "array.")
    U.check_arraylike("put_along_axis", arr, indices, values)
    x = U.as_array("put_along_axis", arr)
    idx = U.as_array("put_along_axis", indices)
    vals = U.as_array("put_along_axis", values)
    original = U.aval_of(x).shape
    if axis is None:
        x, axis = ravel(x), 0
    xa, ia = U.aval_of(x), U.aval_of(idx)
    if xa.ndim != ia.ndim:
        raise ValueError("put_along_axis arguments 'arr' and 'indices' must have same ndim. Got "
                         f"arr.ndim={xa.ndim} and indices.ndim={ia.ndim}.")
    vs = U.aval_of(vals).shape
    if len(vs) > ia.ndim or any(d not in (1, t) for d, t in zip(vs[::-1], ia.shape[::-1])):
        raise ValueError("put_along_axis argument 'values' must be broadcastable to 'indices'. "
                         f"Got values.shape={vs} and indices.shape={ia.shape}.")
    vals = LU.broadcast_to(vals, ia.shape)
    axis = LU.canonicalize_axis(axis, xa.ndim)
    grid = list(indices_grid(xa.shape, sparse=True))
    grid[axis] = idx
    grid = _scatter_mode(mode, grid, xa.shape)
    out = scatter_set(x, grid, vals)
    return reshape(out, original) if U.aval_of(out).shape != original else out


def place(arr, mask, vals, *, inplace: bool = True):
    """A copy of ``arr`` whose elements where ``mask`` is true take ``vals`` in order
    (cycled)."""
    U.check_arraylike("place", arr, mask, vals)
    data = U.as_array("place", arr)
    m = U.as_array("place", mask)
    v = ravel(U.as_array("place", vals))
    if inplace:
        raise ValueError("jax.numpy.place cannot modify arrays in-place, because JAX arrays are "
                         "immutable. Pass inplace=False to instead return an updated array.")
    da = U.aval_of(data)
    if da.size != U.aval_of(m).size:
        raise ValueError("place: arr and mask must be the same size")
    if not U.aval_of(v).size:
        raise ValueError("Cannot place values from an empty array")
    if not da.size:
        return data
    flat_mask = U.to_bool(ravel(m))
    v = LU.convert(_tile_to_size(v, da.size), da.dtype, da.weak_type)
    rank = bind(E.Sub, cumsum(LU.convert(flat_mask, _I32)), U.full((da.size,), 1, _I32))
    picked = _gather_1d(v, clip(rank, 0, da.size - 1))
    return reshape(U.select(flat_mask, picked, ravel(data)), da.shape)


def _gather_1d(v, i):
    n = U.aval_of(i).shape[0]
    return bind(I.Gather, v, LU.reshape(_int32(i), (n, 1)), offset_dims=(),
                collapsed_slice_dims=(0,), start_index_map=(0,), slice_sizes=(1,),
                index_vector_dim=1)


# ---- choose, compress, extract -----------------------------------------------------------------
def choose(a, choices, out=None, mode: str = "raise"):
    """Elementwise choice: ``choices[a[i]][i]`` after broadcasting; ``mode`` 'raise' (needs a
    concrete ``a``), 'wrap' or 'clip'."""
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.choose is not supported.")
    choices = _sequence(choices)
    U.check_arraylike("choose", a, *choices)
    idx = U.as_array("choose", a)
    if not dtypes.is_int(U.aval_of(idx).dtype):
        raise ValueError("`a` array must be integer typed")
    n = len(choices)
    if mode == "raise":
        if isinstance(idx, Tracer):
            raise ConcretizationTypeError(idx, "The error occurred because jnp.choose was "
                                          "jit-compiled with mode='raise'. Use mode='wrap' or "
                                          "mode='clip' instead.")
        v = np.asarray(LU.host_data(idx))
        if np.any((v < 0) | (v >= n)):
            raise ValueError("invalid entry in choice array")
    elif mode == "wrap":
        idx = remainder(idx, n)
    elif mode == "clip":
        idx = clip(idx, 0, n - 1)
    else:
        raise ValueError(f"mode={mode!r} not understood. Must be 'raise', 'wrap', or 'clip'")
    shapes = [U.aval_of(U.as_array("choose", c)).shape for c in (idx, *choices)]
    try:
        np.broadcast_shapes(*shapes)
    except ValueError:
        raise ValueError(f"Incompatible shapes for broadcasting: shapes={shapes}") from None
    idx, *choices = broadcast_arrays(idx, *choices)
    stacked = array(choices)
    shape = U.aval_of(idx).shape
    picked = take_along_axis(stacked, LU.reshape(idx, (1,) + shape), axis=0, mode="clip")
    return LU.reshape(picked, shape)


def _sequence(choices):
    if isinstance(choices, (LU.Array, Tracer, np.ndarray)):
        n = U.aval_of(choices).shape[0] if U.aval_of(choices).ndim else 0
        return [_index(choices, i) for i in range(n)]
    return list(choices)


def compress(condition, a, axis: int | None = None, *, size: int | None = None,
             fill_value=0, out=None):
    """The slices of ``a`` along ``axis`` where the 1-D ``condition`` is true; needs a
    concrete condition unless ``size`` is given (then padded with ``fill_value``)."""
    U.check_arraylike("compress", condition, a, fill_value)
    cond = U.to_bool(U.as_array("compress", condition))
    x = U.as_array("compress", a)
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.compress is not supported.")
    if U.aval_of(cond).ndim != 1:
        raise ValueError("condition must be a 1D array")
    if axis is None:
        axis, x = 0, ravel(x)
    else:
        x = moveaxis(x, axis, 0)
    n = U.aval_of(x).shape[0]
    extra = _index(cond, slice(n, None))
    cond = _index(cond, slice(None, n))
    x = _index(x, slice(None, U.aval_of(cond).shape[0]))
    if size is None:
        if bool(any_(extra)):
            raise ValueError("condition contains entries that are out of bounds")
        result = _index(x, cond)
    else:
        size = operator.index(size)
        if not 0 <= size <= U.aval_of(x).shape[0]:
            raise ValueError("size must be positive and not greater than the size of the array "
                             f"axis; got size={size} for a.shape[axis]={U.aval_of(x).shape[0]}")
        xa = U.aval_of(x)
        mask = LU.broadcast_in_dim(cond, xa.shape, (0,))
        x = where(mask, x, array(fill_value, dtype=xa.dtype))
        # one element needs no sort (IREE 3.13 cannot compile an argsort of a size-1 axis)
        order = argsort(cond, stable=True, descending=True) if U.aval_of(cond).shape[0] > 1 \
            else U.full((1,), 0, _I32)
        result = _index(_index(x, order), slice(None, size))
    return moveaxis(result, 0, axis)


def extract(condition, arr, *, size: int | None = None, fill_value=0):
    """The elements of ``arr`` where ``condition`` is true, flattened (``compress`` of the
    ravels)."""
    U.check_arraylike("extreact", condition, arr, fill_value)
    return compress(ravel(condition), ravel(arr), size=size, fill_value=fill_value)
