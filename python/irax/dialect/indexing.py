"""Indexing ops: dynamic_slice, dynamic_update_slice, gather.

Start indices are tensors, so they may be traced values. As in XLA and StableHLO, every
start index is clamped so that the slice it starts lies inside the operand: out-of-range
indices never fault, they move the window to the nearest edge. Each op is linear in its
operand (and update); the transposes write into zeros, and gather's scatter-adds with
``irax.scatter_add`` (``scatter.py``) at the clamped starts.

    %y = "irax.dynamic_slice"(%x, %i) {slice_sizes = array<i64: 2>}
           : (tensor<5xf32>, tensor<i32>) -> tensor<2xf32>
    %g = "irax.gather"(%x, %idx) {offset_dims = array<i64: 1>,
           collapsed_slice_dims = array<i64: 0>, start_index_map = array<i64: 0>,
           index_vector_dim = 1 : i64, slice_sizes = array<i64: 1, 3>}
           : (tensor<4x3xf32>, tensor<2x1xi32>) -> tensor<2x3xf32>
"""

from __future__ import annotations

import numpy as np

from irax.core import dtypes
from irax.core.abstract import ShapedArray
from irax.dialect import attrs as A
from irax.dialect.base import Op, OpError, weak_of
from irax.dialect.shape import check_dims, check_length, like


def _check_starts(x: ShapedArray, starts) -> None:
    if len(starts) != x.ndim:
        raise OpError(f"expected {x.ndim} start indices (the operand rank), but got {len(starts)}")
    for s in starts:
        if s.shape != () or not dtypes.is_int(s.dtype) or s.dtype != starts[0].dtype:
            got = ", ".join(a.str_short() for a in starts)
            raise OpError(f"expected start indices to be rank-0 integer tensors of one dtype, "
                          f"but got {got}")


def _clamped(starts, dims, sizes) -> list[int]:
    return [int(np.clip(int(s), 0, d - n)) for s, d, n in zip(starts, dims, sizes)]


class DynamicSlice(Op):
    """``x[s0:s0+n0, ...]`` with traced starts ``s_i`` clamped into ``[0, dim_i - n_i]``.

        %y = "irax.dynamic_slice"(%x, %i, %j) {slice_sizes = array<i64: 1, 2>}
               : (tensor<3x4xf32>, tensor<i32>, tensor<i32>) -> tensor<1x2xf32>
    """

    name = "irax.dynamic_slice"
    num_operands = None
    attributes = {"slice_sizes": A.I64Array}

    @classmethod
    def infer(cls, x, *starts, slice_sizes):
        _check_starts(x, starts)
        check_length(slice_sizes, x.ndim, "slice_sizes")
        if not all(0 <= n <= d for n, d in zip(slice_sizes, x.shape)):
            raise OpError(f"expected slice_sizes in [0, {list(x.shape)}], but got "
                          f"{list(slice_sizes)}")
        return like(x, slice_sizes)

    @classmethod
    def evaluate(cls, x, *starts, slice_sizes):
        lo = _clamped(starts, x.shape, slice_sizes)
        return x[tuple(slice(s, s + n) for s, n in zip(lo, slice_sizes))]

    @classmethod
    def lower(cls, lb, x, *starts, slice_sizes):
        return lb.op("stablehlo.dynamic_slice", [x, *starts], slice_sizes=lb.i64s(slice_sizes))

    @classmethod
    def jvp(cls, b, primals, tangents, outs, *, slice_sizes):
        return b.dynamic_slice(tangents[0], *primals[1:], slice_sizes=slice_sizes)

    @classmethod
    def transpose(cls, b, ct, x, *starts, slice_sizes):
        """Writes ``ct`` into zeros at the same (identically clamped) window."""
        return (b.dynamic_update_slice(b.zeros(b.aval(x)), ct, *starts),
                *[None] * len(starts))


class DynamicUpdateSlice(Op):
    """``x`` with the window at (clamped) ``starts`` replaced by ``update``.

        %y = "irax.dynamic_update_slice"(%x, %u, %i) : (tensor<5xf32>, tensor<2xf32>,
               tensor<i32>) -> tensor<5xf32>
    """

    name = "irax.dynamic_update_slice"
    num_operands = None

    @classmethod
    def infer(cls, x, update, *starts):
        if update.dtype != x.dtype or update.ndim != x.ndim or \
                any(u > d for u, d in zip(update.shape, x.shape)):
            raise OpError(f"expected an update of dtype {x.dtype} that fits in the operand, "
                          f"but got {update.str_short()} for {x.str_short()}")
        _check_starts(x, starts)
        return ShapedArray(x.shape, x.dtype, weak_of(x, update))

    @classmethod
    def evaluate(cls, x, update, *starts):
        lo = _clamped(starts, x.shape, update.shape)
        out = np.array(x, copy=True)
        out[tuple(slice(s, s + n) for s, n in zip(lo, update.shape))] = update
        return out

    @classmethod
    def lower(cls, lb, x, update, *starts):
        return lb.op("stablehlo.dynamic_update_slice", [x, update, *starts])

    @classmethod
    def jvp(cls, b, primals, tangents, outs):
        (x, update, *starts), (dx, dupdate, *_) = primals, tangents
        return b.dynamic_update_slice(b.instantiate(dx, b.aval(x)),
                                      b.instantiate(dupdate, b.aval(update)), *starts)

    @classmethod
    def transpose(cls, b, ct, x, update, *starts):
        """The operand gets ``ct`` outside the window, the update gets the window."""
        u = b.aval(update)
        ct_x = b.dynamic_update_slice(ct, b.zeros(u), *starts) if b.is_linear(x) else None
        ct_u = (b.dynamic_slice(ct, *starts, slice_sizes=u.shape)
                if b.is_linear(update) else None)
        return (ct_x, ct_u, *[None] * len(starts))


def check_sorted(dims, rank: int, what: str) -> None:
    check_dims(dims, rank, what)
    if list(dims) != sorted(dims):
        raise OpError(f"expected {what} to be sorted, but got {list(dims)}")


class Gather(Op):
    """StableHLO gather: one ``slice_sizes`` window of ``operand`` per batch position of
    ``start_indices``; the index vector (along ``index_vector_dim``) gives the window start in
    the operand dims ``start_index_map`` (clamped to keep the window in bounds).
    ``collapsed_slice_dims`` and ``operand_batching_dims`` (size-1 window dims) are dropped;
    the remaining window dims appear at ``offset_dims`` of the result, the batch dims of
    ``start_indices`` at the other positions in order. Operand batching dim
    ``operand_batching_dims[k]`` is indexed by batch dim ``start_indices_batching_dims[k]``.

        %g = "irax.gather"(%x, %idx) {offset_dims = array<i64: 1>,
               collapsed_slice_dims = array<i64: 0>, start_index_map = array<i64: 0>,
               index_vector_dim = 1 : i64, slice_sizes = array<i64: 1, 3>}
               : (tensor<4x3xf32>, tensor<2x1xi32>) -> tensor<2x3xf32>
    """

    name = "irax.gather"
    num_operands = 2
    attributes = {"offset_dims": A.I64Array, "collapsed_slice_dims": A.I64Array,
                  "start_index_map": A.I64Array, "slice_sizes": A.I64Array,
                  "index_vector_dim": A.I64, "operand_batching_dims": A.I64Array,
                  "start_indices_batching_dims": A.I64Array}
    defaults = {"operand_batching_dims": (), "start_indices_batching_dims": ()}

    @classmethod
    def infer(cls, operand, start_indices, *, offset_dims, collapsed_slice_dims,
              start_index_map, slice_sizes, index_vector_dim, operand_batching_dims,
              start_indices_batching_dims):
        si, ivd = start_indices, index_vector_dim
        if not dtypes.is_int(si.dtype):
            raise OpError(f"expected integer start indices, but got {si.str_short()}")
        if not 0 <= ivd <= si.ndim:
            raise OpError(f"expected index_vector_dim to be in [0, {si.ndim}], but got {ivd}")
        check_length(slice_sizes, operand.ndim, "slice_sizes")
        if not all(0 <= n <= d for n, d in zip(slice_sizes, operand.shape)):
            raise OpError(f"expected slice_sizes in [0, {list(operand.shape)}], but got "
                          f"{list(slice_sizes)}")
        cls._check_dropped(operand, slice_sizes, collapsed_slice_dims, operand_batching_dims)
        cls._check_batching(operand, si, ivd, operand_batching_dims,
                            start_indices_batching_dims)
        index_len = si.shape[ivd] if ivd < si.ndim else 1
        if len(start_index_map) != index_len:
            raise OpError(f"expected start_index_map to have {index_len} entries (the index "
                          f"vector size), but got {list(start_index_map)}")
        check_dims(start_index_map, operand.ndim, "start_index_map")
        if set(start_index_map) & set(operand_batching_dims):
            raise OpError("expected start_index_map and operand_batching_dims to be disjoint")
        batch = [n for i, n in enumerate(si.shape) if i != ivd]
        dropped = set(collapsed_slice_dims) | set(operand_batching_dims)
        window = [n for i, n in enumerate(slice_sizes) if i not in dropped]
        if len(offset_dims) != len(window):
            raise OpError(f"expected {len(window)} offset_dims (the uncollapsed window dims), "
                          f"but got {list(offset_dims)}")
        rank = len(batch) + len(window)
        check_sorted(offset_dims, rank, "offset_dims")
        batch_iter, window_iter = iter(batch), iter(window)
        shape = [next(window_iter) if r in offset_dims else next(batch_iter) for r in range(rank)]
        return like(operand, shape)

    @classmethod
    def _check_dropped(cls, operand, slice_sizes, collapsed, batching) -> None:
        check_sorted(collapsed, operand.ndim, "collapsed_slice_dims")
        check_sorted(batching, operand.ndim, "operand_batching_dims")
        if set(collapsed) & set(batching):
            raise OpError("expected collapsed_slice_dims and operand_batching_dims to be disjoint")
        for d in (*collapsed, *batching):
            if slice_sizes[d] > 1:
                raise OpError(f"expected slice_sizes[{d}] <= 1 for a collapsed or batching "
                              f"dimension, but got {slice_sizes[d]}")

    @classmethod
    def _check_batching(cls, operand, si, ivd, operand_dims, index_dims) -> None:
        check_dims(index_dims, si.ndim, "start_indices_batching_dims")
        if ivd in index_dims:
            raise OpError(f"expected start_indices_batching_dims to exclude index_vector_dim "
                          f"{ivd}, but got {list(index_dims)}")
        if len(operand_dims) != len(index_dims):
            raise OpError(f"expected operand_batching_dims and start_indices_batching_dims of "
                          f"one length, but got {list(operand_dims)} and {list(index_dims)}")
        sizes = [operand.shape[d] for d in operand_dims], [si.shape[d] for d in index_dims]
        if sizes[0] != sizes[1]:
            raise OpError(f"expected batching dimensions to have the same size, but got "
                          f"{tuple(sizes[0])} and {tuple(sizes[1])}")

    @classmethod
    def evaluate(cls, operand, start_indices, *, offset_dims, collapsed_slice_dims,
                 start_index_map, slice_sizes, index_vector_dim, operand_batching_dims,
                 start_indices_batching_dims):
        ivd = index_vector_dim
        si = start_indices if ivd < start_indices.ndim else start_indices[..., None]
        si = np.moveaxis(si, ivd, -1)  # batch dims in order, then the index vector
        dropped = set(collapsed_slice_dims) | set(operand_batching_dims)
        window = [n for i, n in enumerate(slice_sizes) if i not in dropped]
        batch_pos = [d - (d > ivd) for d in start_indices_batching_dims]
        out = np.zeros((*si.shape[:-1], *window), operand.dtype)
        for b in np.ndindex(*si.shape[:-1]):
            start = [0] * operand.ndim
            for k, d in enumerate(start_index_map):
                start[d] = int(np.clip(int(si[b][k]), 0, operand.shape[d] - slice_sizes[d]))
            for d, p in zip(operand_batching_dims, batch_pos):
                start[d] = b[p]
            piece = operand[tuple(slice(s, s + n) for s, n in zip(start, slice_sizes))]
            if piece.size == out[b].size:  # a size-0 collapsed window leaves zeros
                out[b] = piece.reshape(window)
        nb = out.ndim - len(window)
        batch_axes = iter(range(nb))
        perm = [nb + offset_dims.index(r) if r in offset_dims else next(batch_axes)
                for r in range(out.ndim)]
        return np.transpose(out, perm)

    @classmethod
    def lower(cls, lb, operand, start_indices, *, offset_dims, collapsed_slice_dims,
              start_index_map, slice_sizes, index_vector_dim, operand_batching_dims,
              start_indices_batching_dims):
        dn = (f"#stablehlo.gather<offset_dims = {list(offset_dims)}, "
              f"collapsed_slice_dims = {list(collapsed_slice_dims)}, "
              f"operand_batching_dims = {list(operand_batching_dims)}, "
              f"start_indices_batching_dims = {list(start_indices_batching_dims)}, "
              f"start_index_map = {list(start_index_map)}, "
              f"index_vector_dim = {index_vector_dim}>")
        start_indices = cls._clamp(lb, operand, start_indices, start_index_map, slice_sizes,
                                   index_vector_dim)
        return lb.op("stablehlo.gather", [operand, start_indices],
                     dimension_numbers=lb.attr(dn), slice_sizes=lb.i64s(slice_sizes),
                     indices_are_sorted=lb.attr("false"))

    @classmethod
    def jvp(cls, b, primals, tangents, outs, **dims):
        return b.gather(tangents[0], primals[1], **dims)

    @classmethod
    def transpose(cls, b, ct, operand, start_indices, *, offset_dims, collapsed_slice_dims,
                  start_index_map, slice_sizes, index_vector_dim, operand_batching_dims,
                  start_indices_batching_dims):
        """Adds each window of ``ct`` back where it was read: at the clamped starts, which
        keep every window in bounds, so the scatter drops nothing."""
        x = b.aval(operand)
        starts = clamp_starts(b, start_indices, window_bounds(x.shape, slice_sizes,
                                                              start_index_map), index_vector_dim)
        ct_x = b.scatter_add(b.zeros(x), starts, ct, update_window_dims=offset_dims,
                             inserted_window_dims=collapsed_slice_dims,
                             scatter_dims_to_operand_dims=start_index_map,
                             index_vector_dim=index_vector_dim,
                             input_batching_dims=operand_batching_dims,
                             scatter_indices_batching_dims=start_indices_batching_dims)
        return ct_x, None

    @classmethod
    def _clamp(cls, lb, operand, start_indices, start_index_map, slice_sizes, ivd):
        """Clamps the start indices explicitly: IREE's gather does not (StableHLO's does)."""
        from irax.dialect import mlir

        shape = mlir.aval_of(operand).shape
        si = mlir.aval_of(start_indices)
        top = np.iinfo(si.dtype).max
        bounds = np.array([min(shape[d] - slice_sizes[d], top) for d in start_index_map],
                          dtype=si.dtype)
        if bounds.size == 0:
            return start_indices
        lo = lb.constant(np.zeros((), si.dtype))
        hi = lb.constant(bounds[0])
        if np.any(bounds != bounds[0]):
            hi = lb.op("stablehlo.broadcast_in_dim", [lb.constant(bounds)], si,
                       broadcast_dimensions=lb.i64s([ivd]))
        return lb.op("stablehlo.clamp", [lo, start_indices, hi], si)


# ---- window starts in irax ops (shared by the gather and scatter rules) ----------------------
def window_bounds(shape, window, start_index_map) -> list[int]:
    """The largest in-bounds start of a ``window``-sized window, per index vector entry."""
    return [shape[d] - window[d] for d in start_index_map]


def clamp_starts(b, indices, bounds, ivd):
    """``indices`` with entry ``k`` of each index vector clamped into ``[0, bounds[k]]``."""
    a = b.aval(indices)
    if not bounds:
        return indices
    top = np.minimum(np.array(bounds), dtypes.iinfo(a.dtype).max).astype(a.dtype)
    if ivd == a.ndim:  # an implicit trailing index vector of size 1
        hi = b.full(a, top[0])
    else:
        hi = b.broadcast_in_dim(b.constant(value=top), shape=a.shape, broadcast_dimensions=(ivd,))
    return b.min(b.max(indices, b.zeros(a)), hi)


def windows_in_bounds(b, indices, bounds, ivd):
    """Whether each index vector starts an in-bounds window (``indices``' shape without
    ``ivd``)."""
    ok = b.compare(clamp_starts(b, indices, bounds, ivd), indices, direction="EQ")
    return b.reduce_and(ok, axes=(ivd,)) if ivd < b.aval(indices).ndim else ok
