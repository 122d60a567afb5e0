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
from irax.core.shape_poly import is_static
from irax.dialect import attrs as A
from irax.dialect import mlir
from irax.dialect import raising as R
from irax.dialect import sharding as S
from irax.dialect.base import Op, OpError, weak_of
from irax.dialect.shape import check_dims, check_length, insert_at, like, shift_dims


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
    shard = classmethod(S.replicated)
    num_operands = None
    attributes = {"slice_sizes": A.I64Array}
    raises_from = "stablehlo.dynamic_slice"

    @classmethod
    def raise_attrs(cls, op):
        return {"slice_sizes": R.i64s(op, "slice_sizes")}

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
        if not is_static(slice_sizes):   # a window as large as a symbolic axis
            return _dynamic_window(lb, x, starts, slice_sizes)
        return lb.op("stablehlo.dynamic_slice", [x, *starts], slice_sizes=lb.i64s(slice_sizes))

    @classmethod
    def jvp(cls, b, primals, tangents, outs, *, slice_sizes):
        return b.dynamic_slice(tangents[0], *primals[1:], slice_sizes=slice_sizes)

    @classmethod
    def transpose(cls, b, ct, x, *starts, slice_sizes):
        """Writes ``ct`` into zeros at the same (identically clamped) window."""
        return (b.dynamic_update_slice(b.zeros(b.aval(x)), ct, *starts),
                *[None] * len(starts))

    @classmethod
    def batch(cls, b, args, dims, *, slice_sizes):
        """Unbatched starts: one dynamic_slice that keeps the whole batch dim (start 0).
        Batched starts: a gather of one window per example, clamped the same way."""
        (x, *starts), (d, *sds) = args, dims
        if any(sd is not None for sd in sds):
            return [slice_by_gather(b, x, d, stack_starts(b, starts, sds), slice_sizes)], [0]
        zero = b.constant(value=np.zeros((), _index_dtype(b, starts)))
        return [b.dynamic_slice(x, *insert_at(starts, d, zero),
                                slice_sizes=insert_at(slice_sizes, d, b.axis_size))], [d]


class DynamicUpdateSlice(Op):
    """``x`` with the window at (clamped) ``starts`` replaced by ``update``.

        %y = "irax.dynamic_update_slice"(%x, %u, %i) : (tensor<5xf32>, tensor<2xf32>,
               tensor<i32>) -> tensor<5xf32>
    """

    name = "irax.dynamic_update_slice"
    shard = classmethod(S.replicated)
    num_operands = None
    raises_from = "stablehlo.dynamic_update_slice"

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

    @classmethod
    def batch(cls, b, args, dims):
        """Unbatched starts: one dynamic_update_slice with the whole batch dim (start 0).
        Batched starts: ``update_by_scatter``."""
        (x, u, *starts), (xd, ud, *sds) = args, dims
        if any(sd is not None for sd in sds):
            return [update_by_scatter(b, x, xd, u, ud, stack_starts(b, starts, sds))], [0]
        d = xd if xd is not None else ud
        zero = b.constant(value=np.zeros((), _index_dtype(b, starts)))
        return [b.dynamic_update_slice(b.matchaxis(x, xd, d), b.matchaxis(u, ud, d),
                                       *insert_at(starts, d, zero))], [d]


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

    @classmethod
    def shard(cls, specs, avals, outs, mesh, **attrs):
        """Each device gathers its own indices: the indices' batch dimensions keep their
        axes, and so do the operand's dimensions that every window spans whole (neither
        indexed nor cut), which the result's offset dimensions take; indexed and cut
        operand dimensions are whole (an embedding lookup ``table[ids]`` with ``ids``
        split over the batch is split likewise, with no communication). A gather with
        operand batching dimensions runs whole."""
        if attrs["operand_batching_dims"]:
            return S.replicated(cls, specs, avals, outs, mesh, **attrs)
        operand, indices = avals
        op_spec, idx_spec = (S.pad(s, a.ndim) for s, a in zip(specs, avals))
        ivd, sizes = attrs["index_vector_dim"], attrs["slice_sizes"]
        need_op = [op_spec[d] if d not in attrs["start_index_map"] and
                   sizes[d] == operand.shape[d] else () for d in range(operand.ndim)]
        used = set(S.axes_of(need_op))   # the operand keeps its axes first (as JAX)
        need_idx = []
        for d in range(indices.ndim):
            axes = () if d == ivd or used.intersection(idx_spec[d]) else idx_spec[d]
            need_idx.append(axes)
            used.update(axes)
        window = iter(d for d in range(operand.ndim) if d not in attrs["collapsed_slice_dims"])
        batch = iter(d for d in range(indices.ndim) if d != ivd)
        out = [need_op[next(window)] if r in attrs["offset_dims"] else need_idx[next(batch)]
               for r in range(outs[0].ndim)]
        local = dict(attrs, slice_sizes=tuple(
            n // mesh.count(a) for n, a in zip(sizes, need_op)))
        return S.ShardPlan([tuple(need_op), tuple(need_idx)], [tuple(out)], attrs=local)
    attributes = {"offset_dims": A.I64Array, "collapsed_slice_dims": A.I64Array,
                  "start_index_map": A.I64Array, "slice_sizes": A.I64Array,
                  "index_vector_dim": A.I64, "operand_batching_dims": A.I64Array,
                  "start_indices_batching_dims": A.I64Array}
    defaults = {"operand_batching_dims": (), "start_indices_batching_dims": ()}
    raises_from = "stablehlo.gather"

    @classmethod
    def raise_attrs(cls, op):
        dims = R.fields(op, "dimension_numbers")
        return {"offset_dims": (), "collapsed_slice_dims": (), "start_index_map": (),
                "index_vector_dim": 0, **dims, "slice_sizes": R.i64s(op, "slice_sizes")}

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
        """One ``stablehlo.gather`` (which clamps its starts, as irax's gather does)."""
        dn = (f"#stablehlo.gather<offset_dims = {list(offset_dims)}, "
              f"collapsed_slice_dims = {list(collapsed_slice_dims)}, "
              f"operand_batching_dims = {list(operand_batching_dims)}, "
              f"start_indices_batching_dims = {list(start_indices_batching_dims)}, "
              f"start_index_map = {list(start_index_map)}, "
              f"index_vector_dim = {index_vector_dim}>")
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
    def batch(cls, b, args, dims, **attrs):
        """Batched indices: one more batch dim of the indices, paired with the operand's
        batch dim as a batching dim when the operand is batched too. Only the operand
        batched: its batch dim is one more (whole) window dim."""
        (x, idx), (xd, id_) = args, dims
        if id_ is None:
            return gather_window_batch(b, x, xd, idx, **attrs)
        return gather_index_batch(b, x, xd, idx, id_, **attrs)


# ---- window starts in StableHLO (the scatter's lowering, irax-legalize-iree's gather) -------
def _dynamic_window(lb, x, starts, slice_sizes):
    """``dynamic_slice`` with symbolic window sizes as ``real_dynamic_slice``: each start
    clamped to ``[0, dim - size]`` as dynamic_slice does, the limit ``start + size``."""
    i64 = ShapedArray((), np.int64)
    lows, highs = [], []
    for d, s, size in zip(mlir.aval_of(x).shape, starts, slice_sizes):
        size_v = lb.dim_value(size)
        top = lb.op("stablehlo.subtract", [lb.dim_value(d), size_v], i64)
        start = lb.op("stablehlo.convert", [s], i64)
        start = lb.op("stablehlo.clamp", [lb.constant(np.int64(0)), start, top], i64)
        lows.append(start)
        highs.append(lb.op("stablehlo.add", [start, size_v], i64))
    ones = lb.vector([lb.constant(np.int64(1))] * len(lows))
    return lb.op("stablehlo.real_dynamic_slice", [x, lb.vector(lows), lb.vector(highs), ones])


def clamp_start_indices(lb, operand, start_indices, start_index_map, slice_sizes, ivd):
    """StableHLO: the start indices clamped so that every ``slice_sizes`` window lies in
    ``operand`` (what gather does implicitly)."""
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
    return b.min(b.max(indices, b.full(a, 0)), hi)


def windows_in_bounds(b, indices, bounds, ivd):
    """Whether each index vector starts an in-bounds window (``indices``' shape without
    ``ivd``)."""
    ok = b.compare(clamp_starts(b, indices, bounds, ivd), indices, direction="EQ")
    return b.reduce_and(ok, axes=(ivd,)) if ivd < b.aval(indices).ndim else ok


# ---- batching (vmap) helpers, shared with scatter.py -------------------------------------------
def _index_dtype(b, starts):
    return b.aval(starts[0]).dtype if starts else np.dtype(np.int32)


def slot(positions, p: int, end: int) -> int:
    """Where a new dim goes so that ``p`` of ``positions`` (ascending) precede it."""
    return positions[p] if p < len(positions) else end


def batched_index_vector_dim(ndim: int, d: int, ivd: int) -> tuple[int, int]:
    """For indices of rank ``ndim`` given a batch dim at ``d``: the new index_vector_dim (an
    implicit trailing one stays implicit) and the place of ``d`` among the batch dims."""
    new = ndim + 1 if ivd == ndim else ivd + (ivd >= d)
    return new, d - (new < d)


def stack_starts(b, starts, dims):
    """Scalar starts (each batched along its only dim, or not at all) as one [B, n] array
    whose row ``i`` holds the starts of example ``i``."""
    cols = [b.broadcast_in_dim(s, shape=(b.axis_size, 1),
                               broadcast_dimensions=() if d is None else (0,))
            for s, d in zip(starts, dims)]
    return cols[0] if len(cols) == 1 else b.concatenate(*cols, dimension=1)


def slice_by_gather(b, x, d, starts, slice_sizes):
    """``dynamic_slice`` of ``x`` (batched at ``d``, or unbatched) at the [B, n] ``starts``:
    one gather (clamped like dynamic_slice) whose result is [B, *slice_sizes]."""
    n = len(slice_sizes)
    window = tuple(range(1, n + 1))
    if d is None:
        return b.gather(x, starts, offset_dims=window, collapsed_slice_dims=(),
                        start_index_map=tuple(range(n)), slice_sizes=slice_sizes,
                        index_vector_dim=1)
    return b.gather(x, starts, offset_dims=window, collapsed_slice_dims=(),
                    start_index_map=shift_dims(range(n), d),
                    slice_sizes=insert_at(slice_sizes, d, 1), index_vector_dim=1,
                    operand_batching_dims=(d,), start_indices_batching_dims=(0,))


def _negative_zero(dtype):
    """The additive identity that keeps signs: ``-0.0 + x == x`` also for ``x = +0.0``."""
    if dtypes.is_complex(dtype):
        return complex(-0.0, -0.0)
    return -0.0 if dtypes.is_inexact(dtype) else 0


def update_by_scatter(b, x, xd, u, ud, starts):
    """``dynamic_update_slice`` at the [B, n] ``starts``: each example's window, clamped as
    dynamic_update_slice clamps it, is one scatter window with the example as a batching dim,
    so adding ``u`` to -0.0 places it exactly; a count scattered the same way selects it
    over ``x``. Result [B, *x]."""
    x, u = b.to_front(x, xd), b.to_front(u, ud)
    xa, ua = b.aval(x), b.aval(u)
    n = xa.ndim - 1
    window = tuple(range(1, n + 1))
    bounds = [xa.shape[k] - ua.shape[k] for k in window]
    starts = clamp_starts(b, starts, bounds, 1)
    dnums = dict(update_window_dims=window, inserted_window_dims=(),
                 scatter_dims_to_operand_dims=window, index_vector_dim=1,
                 input_batching_dims=(0,), scatter_indices_batching_dims=(0,))
    counts = ShapedArray(xa.shape, np.int32)
    hits = b.scatter_add(b.full(counts, 0), starts, b.full(ua.update(dtype=np.int32), 1),
                         **dnums)
    mask = b.compare(hits, b.full(counts, 0), direction="NE")
    if not dtypes.is_bool(xa.dtype):
        placed = b.scatter_add(b.full(xa, _negative_zero(xa.dtype)), starts, u, **dnums)
        return b.select(mask, placed, x)
    placed = b.scatter_add(b.full(counts, 0), starts, b.convert(u, new_dtype=np.int32), **dnums)
    return b.select(mask, b.compare(placed, b.full(counts, 0), direction="NE"), x)


def _index_batch_rank(indices: ShapedArray, ivd: int) -> int:
    return indices.ndim - (ivd < indices.ndim)


def gather_window_batch(b, x, d, idx, *, offset_dims, collapsed_slice_dims, start_index_map,
                        slice_sizes, index_vector_dim, operand_batching_dims,
                        start_indices_batching_dims):
    """Gather from ``x`` batched at ``d`` with unbatched indices: the batch dim is one more
    window dim, taken whole, placed between the offset dims of its neighbouring window dims."""
    dropped = {*collapsed_slice_dims, *operand_batching_dims}
    q = sum(1 for i in range(d) if i not in dropped)  # window dims before the batch dim
    r = slot(offset_dims, q, len(offset_dims) + _index_batch_rank(b.aval(idx), index_vector_dim))
    out = b.gather(x, idx, offset_dims=insert_at(shift_dims(offset_dims, r), q, r),
                   collapsed_slice_dims=shift_dims(collapsed_slice_dims, d),
                   start_index_map=shift_dims(start_index_map, d),
                   slice_sizes=insert_at(slice_sizes, d, b.axis_size),
                   index_vector_dim=index_vector_dim,
                   operand_batching_dims=shift_dims(operand_batching_dims, d),
                   start_indices_batching_dims=start_indices_batching_dims)
    return [out], [r]


def gather_index_batch(b, x, xd, idx, id_, *, offset_dims, collapsed_slice_dims,
                       start_index_map, slice_sizes, index_vector_dim, operand_batching_dims,
                       start_indices_batching_dims):
    """Gather with indices batched at ``id_``: one more batch dim of the indices, placed in the
    result between its neighbouring batch dims. A batched operand pairs its batch dim with
    it as one more batching dim (operand_batching_dims / start_indices_batching_dims)."""
    ia = b.aval(idx)
    ivd, p = batched_index_vector_dim(ia.ndim - 1, id_, index_vector_dim)
    rank = len(offset_dims) + _index_batch_rank(ia, ivd) - 1
    r = slot([i for i in range(rank) if i not in offset_dims], p, rank)
    obd, sibd = operand_batching_dims, shift_dims(start_indices_batching_dims, id_)
    collapsed, sim, sizes = collapsed_slice_dims, start_index_map, slice_sizes
    if xd is not None:
        obd = shift_dims(obd, xd)
        k = sum(1 for o in obd if o < xd)
        obd, sibd = insert_at(obd, k, xd), insert_at(sibd, k, id_)
        collapsed, sim = shift_dims(collapsed, xd), shift_dims(sim, xd)
        sizes = insert_at(sizes, xd, 1)
    out = b.gather(x, idx, offset_dims=shift_dims(offset_dims, r), collapsed_slice_dims=collapsed,
                   start_index_map=sim, slice_sizes=sizes, index_vector_dim=ivd,
                   operand_batching_dims=obd, start_indices_batching_dims=sibd)
    return [out], [r]
