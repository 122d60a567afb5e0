"""More ``irax.lax`` structural helpers, compositions of ``_shape.py``'s operations:
single-axis (dynamic) slicing, stacking and splitting, tiling, broadcasting helpers.

    lax.dynamic_slice_in_dim(x, i, 2, axis=1)     # x[:, i:i+2], i clamped
    lax.split(x, (2, 3), axis=0)                   # [x[:2], x[2:5]]
    lax.broadcast_shapes((2, 1), (3,))             # (2, 3)
"""

from __future__ import annotations

import math
import operator

import numpy as np

from irax.core import dtypes
from irax.lax import _util as U
from irax.lax._shape import (
    _shape,
    broadcast,
    broadcast_in_dim,
    concatenate,
    dynamic_slice,
    dynamic_update_slice,
    expand_dims,
    reshape,
    slice_in_dim,
    squeeze,
)


def index_in_dim(operand, index, axis: int = 0, keepdims: bool = True):
    """``operand[..., index]`` along ``axis`` for a static index (``jax.lax.index_in_dim``)."""
    index, axis = operator.index(index), int(axis)
    n = U.aval_of(operand).shape[axis]
    wrapped = index + n if index < 0 else index
    if not 0 <= wrapped < n:
        raise IndexError(f"index {index} is out of bounds for axis {axis} with size {n}")
    out = slice_in_dim(operand, wrapped, wrapped + 1, 1, axis)
    return out if keepdims else squeeze(out, (axis,))


def _starts(a, start, axis: int):
    starts = [U.full((), 0, np.int32)] * a.ndim
    starts[axis] = start
    return starts


def dynamic_slice_in_dim(operand, start_index, slice_size: int, axis: int = 0, *,
                         allow_negative_indices: bool = True):
    """``operand[..., start:start+size]`` along ``axis`` with a traced start, clamped into
    bounds (``jax.lax.dynamic_slice_in_dim``)."""
    a = U.aval_of(operand)
    axis = int(axis)
    sizes = list(a.shape)
    sizes[axis] = operator.index(slice_size)
    return dynamic_slice(operand, _starts(a, start_index, axis), sizes,
                         allow_negative_indices=allow_negative_indices)


def dynamic_index_in_dim(operand, index, axis: int = 0, keepdims: bool = True, *,
                         allow_negative_indices: bool = True):
    """``operand[..., index]`` along ``axis`` with a traced index
    (``jax.lax.dynamic_index_in_dim``)."""
    out = dynamic_slice_in_dim(operand, index, 1, axis,
                               allow_negative_indices=allow_negative_indices)
    return out if keepdims else squeeze(out, (axis,))


def dynamic_update_slice_in_dim(operand, update, start_index, axis: int, *,
                                allow_negative_indices: bool = True):
    """``operand`` with ``update`` written at ``start_index`` along ``axis``
    (``jax.lax.dynamic_update_slice_in_dim``)."""
    a = U.aval_of(operand)
    return dynamic_update_slice(operand, update, _starts(a, start_index, int(axis)),
                                allow_negative_indices=allow_negative_indices)


def dynamic_update_index_in_dim(operand, update, index, axis: int, *,
                                allow_negative_indices: bool = True):
    """``operand`` with the slice ``index`` along ``axis`` replaced by ``update`` (which may
    lack that axis) (``jax.lax.dynamic_update_index_in_dim``)."""
    axis = int(axis)
    a, u = U.aval_of(operand), U.aval_of(update)
    if u.ndim != a.ndim:
        if u.ndim + 1 != a.ndim:
            raise TypeError(f"dynamic_update_index_in_dim: update of rank {u.ndim} does not "
                            f"fit an operand of rank {a.ndim}")
        update = expand_dims(update, (axis,))
    return dynamic_update_slice_in_dim(operand, update, index, axis,
                                       allow_negative_indices=allow_negative_indices)


def collapse(operand, start_dimension: int, stop_dimension: int | None = None):
    """Merges dims ``[start, stop)`` of ``operand`` into one (``jax.lax.collapse``)."""
    shape = U.aval_of(operand).shape
    lo, hi, _ = slice(start_dimension, stop_dimension).indices(len(shape))
    if hi < lo:
        raise ValueError(f"Invalid dimension range passed to collapse: {shape}"
                         f"[{start_dimension}:{stop_dimension}]")
    return reshape(operand, shape[:lo] + (math.prod(shape[lo:hi]),) + shape[hi:])


def broadcast_shapes(*shapes):
    """The NumPy broadcast of ``shapes`` (ranks aligned at the end)
    (``jax.lax.broadcast_shapes``)."""
    if not shapes:
        raise ValueError("broadcast_shapes requires at least one shape")
    shapes = [_shape(s) for s in shapes]
    nd = max(len(s) for s in shapes)
    padded = [(1,) * (nd - len(s)) + s for s in shapes]
    out = []
    for dims in zip(*padded):
        sizes = set(dims) - {1}
        if len(sizes) > 1:
            raise ValueError(f"Incompatible shapes for broadcasting: shapes={shapes}")
        out.append(sizes.pop() if sizes else 1)
    return tuple(out)


def broadcast_to_rank(x, rank: int):
    """``x`` with leading size-1 dims added up to ``rank`` (``jax.lax.broadcast_to_rank``)."""
    nd = U.aval_of(x).ndim
    if nd == rank:
        return U.as_operand(x)
    return broadcast(x, (1,) * (rank - nd))


def broadcast_like(arr, like_arr):
    """``arr`` broadcast (NumPy style) to the shape of ``like_arr``
    (``jax.lax.broadcast_like``)."""
    a, shape = U.aval_of(arr), U.aval_of(like_arr).shape
    if broadcast_shapes(a.shape, shape) != tuple(shape):
        raise ValueError(f"Incompatible shapes for broadcasting: {a.shape} and requested "
                         f"shape {tuple(shape)}")
    nd = len(shape)
    return broadcast_in_dim(arr, shape, tuple(range(nd - a.ndim, nd)))


def split(operand, sizes, axis: int = 0):
    """``operand`` cut along ``axis`` into pieces of ``sizes`` (``jax.lax.split``)."""
    a = U.aval_of(operand)
    axis = U.canonicalize_axis(axis, a.ndim)
    sizes = tuple(operator.index(s) for s in sizes)
    if any(s < 0 for s in sizes):
        raise ValueError(f"Sizes passed to split must be nonnegative, got {list(sizes)}")
    if sum(sizes) != a.shape[axis]:
        raise ValueError(f"Sum of sizes {sum(sizes)} must be equal to dimension {axis} of the "
                         f"operand shape {list(a.shape)}")
    out, start = [], 0
    for s in sizes:
        out.append(slice_in_dim(operand, start, start + s, 1, axis))
        start += s
    return out


def stack(operands, axis: int = 0):
    """Arrays of one shape and dtype joined along a new ``axis`` (``jax.lax.stack``)."""
    ops = list(operands)
    if not ops:
        raise ValueError("stack requires at least one array")
    shapes = [U.aval_of(x).shape for x in ops]
    if len(set(shapes)) > 1:
        raise ValueError("All input arrays must have the same shape. Got "
                         f"{', '.join(map(str, shapes))}.")
    axis = U.canonicalize_axis(axis, len(shapes[0]) + 1)
    return concatenate([expand_dims(x, (axis,)) for x in ops], axis)


def unstack(x, axis: int = 0):
    """The slices of ``x`` along ``axis``, as a tuple (``jax.lax.unstack``)."""
    a = U.aval_of(x)
    axis = U.canonicalize_axis(axis, a.ndim)
    return tuple(index_in_dim(x, i, axis, keepdims=False) for i in range(a.shape[axis]))


def tile(operand, reps):
    """``operand`` repeated ``reps[i]`` times along each dim ``i`` (``jax.lax.tile``)."""
    a = U.aval_of(operand)
    reps = tuple(operator.index(r) for r in reps)
    if len(reps) != a.ndim:
        raise TypeError(f"reps length must be equal to the ndim of x, got len(reps)="
                        f"{len(reps)} and x.ndim={a.ndim}.")
    if any(r < 0 for r in reps):
        raise ValueError(f"reps must be non-negative, got {reps}")
    inter = tuple(d for r, n in zip(reps, a.shape) for d in (r, n))
    dims = tuple(range(1, 2 * a.ndim, 2))
    out = broadcast_in_dim(operand, inter, dims)
    return reshape(out, tuple(r * n for r, n in zip(reps, a.shape)))


def empty(shape, dtype, *, out_sharding=None):
    """An array of ``shape`` and ``dtype`` (zeros: the values are unspecified in JAX)
    (``jax.lax.empty``)."""
    del out_sharding
    return U.full(_shape(shape), 0, dtypes.canonicalize_dtype(dtype))


def shape_as_value(shape):
    """``shape`` as a 1-D integer array (``jax.lax.shape_as_value``)."""
    shape = _shape(shape)
    dt = np.int32 if all(d <= np.iinfo(np.int32).max for d in shape) else np.int64
    if not shape:
        return U.full((0,), 0, np.int32)
    return np.asarray(shape, dtype=dt)
