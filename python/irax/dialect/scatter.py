"""Scatter: ``irax.scatter_add``, the transpose of ``irax.gather``.

    %r = "irax.scatter_add"(%x, %idx, %u) {update_window_dims = array<i64: 1>,
           inserted_window_dims = array<i64: 0>, scatter_dims_to_operand_dims = array<i64: 0>,
           index_vector_dim = 1 : i64}
           : (tensor<4x3xf32>, tensor<2x1xi32>, tensor<2x3xf32>) -> tensor<4x3xf32>
"""

from __future__ import annotations

import numpy as np

from irax.core import dtypes
from irax.core.abstract import ShapedArray
from irax.dialect import attrs as A
from irax.dialect import mlir
from irax.dialect import raising as R
from irax.dialect.base import Op, OpError, weak_of
from irax.dialect.indexing import (
    Gather,
    batched_index_vector_dim,
    check_sorted,
    slot,
    window_bounds,
    windows_in_bounds,
)
from irax.dialect.reduction import ReduceAnd
from irax.dialect.shape import check_dims, insert_at, shift_dims


class ScatterAdd(Op):
    """StableHLO scatter with an add combiner: ``updates`` is cut into windows, one per batch
    position of ``scatter_indices`` (its dims other than ``index_vector_dim``, matched in
    order with the ``updates`` dims outside ``update_window_dims``), and window ``i`` is added
    to ``operand`` at the start given by index vector ``i`` in the operand dims
    ``scatter_dims_to_operand_dims``. ``inserted_window_dims`` and ``input_batching_dims`` are
    size-1 window dims absent from ``updates``; operand batching dim
    ``input_batching_dims[k]`` is indexed by batch dim ``scatter_indices_batching_dims[k]``.
    A window that does not lie wholly inside the operand is dropped (JAX's FILL_OR_DROP);
    duplicate starts accumulate. The transpose of ``irax.gather``.

        %r = "irax.scatter_add"(%x, %idx, %u) {update_window_dims = array<i64: 1>,
               inserted_window_dims = array<i64: 0>,
               scatter_dims_to_operand_dims = array<i64: 0>, index_vector_dim = 1 : i64}
               : (tensor<4x3xf32>, tensor<2x1xi32>, tensor<2x3xf32>) -> tensor<4x3xf32>
    """

    name = "irax.scatter_add"
    num_operands = 3
    attributes = {"update_window_dims": A.I64Array, "inserted_window_dims": A.I64Array,
                  "scatter_dims_to_operand_dims": A.I64Array, "index_vector_dim": A.I64,
                  "input_batching_dims": A.I64Array,
                  "scatter_indices_batching_dims": A.I64Array}
    defaults = {"input_batching_dims": (), "scatter_indices_batching_dims": ()}
    raises_from = "stablehlo.scatter"

    @classmethod
    def raise_attrs(cls, op):
        if len(op.operands) != 3:
            raise OpError(f"with {len(op.operands) // 2} inputs is not supported")
        combiner = R.reducer(op)
        if combiner != "stablehlo.add":
            raise OpError("with a region other than an addition of its arguments is not "
                          "supported")
        dims = R.fields(op, "scatter_dimension_numbers")
        return {"update_window_dims": (), "inserted_window_dims": (),
                "scatter_dims_to_operand_dims": (), "index_vector_dim": 0, **dims}

    @classmethod
    def infer(cls, operand, indices, updates, *, update_window_dims, inserted_window_dims,
              scatter_dims_to_operand_dims, index_vector_dim, input_batching_dims,
              scatter_indices_batching_dims):
        ivd = index_vector_dim
        if dtypes.is_bool(operand.dtype) or updates.dtype != operand.dtype:
            raise OpError(f"expected a numeric operand and updates of its dtype, but got "
                          f"{operand.str_short()} and {updates.str_short()}")
        if not dtypes.is_int(indices.dtype):
            raise OpError(f"expected integer scatter indices, but got {indices.str_short()}")
        if not 0 <= ivd <= indices.ndim:
            raise OpError(f"expected index_vector_dim to be in [0, {indices.ndim}], but got "
                          f"{ivd}")
        batch = [n for i, n in enumerate(indices.shape) if i != ivd]
        if updates.ndim != len(batch) + len(update_window_dims):
            raise OpError(f"expected updates of rank {len(batch) + len(update_window_dims)} "
                          f"(scatter batch dims plus update_window_dims), but got "
                          f"{updates.str_short()}")
        check_sorted(update_window_dims, updates.ndim, "update_window_dims")
        scatter_sizes = [n for i, n in enumerate(updates.shape) if i not in update_window_dims]
        if scatter_sizes != batch:
            raise OpError(f"expected the update scatter dims to have the sizes {batch} of the "
                          f"scatter indices batch dims, but got {scatter_sizes}")
        cls._check_window(operand, updates, update_window_dims, inserted_window_dims,
                          input_batching_dims)
        cls._check_batching(operand, indices, ivd, input_batching_dims,
                            scatter_indices_batching_dims)
        index_len = indices.shape[ivd] if ivd < indices.ndim else 1
        sdtod = scatter_dims_to_operand_dims
        if len(sdtod) != index_len:
            raise OpError(f"expected scatter_dims_to_operand_dims to have {index_len} entries "
                          f"(the index vector size), but got {list(sdtod)}")
        check_dims(sdtod, operand.ndim, "scatter_dims_to_operand_dims")
        if set(sdtod) & set(input_batching_dims):
            raise OpError("expected scatter_dims_to_operand_dims and input_batching_dims to "
                          "be disjoint")
        return ShapedArray(operand.shape, operand.dtype, weak_of(operand, updates))

    @classmethod
    def _check_window(cls, operand, updates, window_dims, inserted, batching) -> None:
        check_sorted(inserted, operand.ndim, "inserted_window_dims")
        check_sorted(batching, operand.ndim, "input_batching_dims")
        if set(inserted) & set(batching):
            raise OpError("expected inserted_window_dims and input_batching_dims to be disjoint")
        kept = [d for d in range(operand.ndim) if d not in inserted and d not in batching]
        if len(kept) != len(window_dims):
            raise OpError(f"expected {len(kept)} update_window_dims (the operand rank less "
                          f"inserted and batching dims), but got {list(window_dims)}")
        for d, u in zip(kept, window_dims):
            if updates.shape[u] > operand.shape[d]:
                raise OpError(f"expected update window dim {u} of size {updates.shape[u]} to "
                              f"fit operand dim {d} of size {operand.shape[d]}")

    @classmethod
    def _check_batching(cls, operand, indices, ivd, operand_dims, index_dims) -> None:
        check_dims(index_dims, indices.ndim, "scatter_indices_batching_dims")
        if ivd in index_dims:
            raise OpError(f"expected scatter_indices_batching_dims to exclude index_vector_dim "
                          f"{ivd}, but got {list(index_dims)}")
        sizes = [operand.shape[d] for d in operand_dims], [indices.shape[d] for d in index_dims]
        if len(operand_dims) != len(index_dims) or sizes[0] != sizes[1]:
            raise OpError(f"expected input_batching_dims and scatter_indices_batching_dims of "
                          f"one length and equal sizes, but got {list(operand_dims)} and "
                          f"{list(index_dims)}")

    @staticmethod
    def window(operand_shape, updates_shape, update_window_dims, inserted_window_dims,
               input_batching_dims) -> list[int]:
        """The window size in every operand dim (1 for inserted and batching dims)."""
        sizes = iter(updates_shape[u] for u in update_window_dims)
        dropped = set(inserted_window_dims) | set(input_batching_dims)
        return [1 if d in dropped else next(sizes) for d in range(len(operand_shape))]

    @classmethod
    def evaluate(cls, operand, indices, updates, *, update_window_dims, inserted_window_dims,
                 scatter_dims_to_operand_dims, index_vector_dim, input_batching_dims,
                 scatter_indices_batching_dims):
        ivd = index_vector_dim
        si = indices if ivd < indices.ndim else indices[..., None]
        si = np.moveaxis(si, ivd, -1)  # batch dims in order, then the index vector
        scatter_dims = [d for d in range(updates.ndim) if d not in update_window_dims]
        windows = np.transpose(updates, scatter_dims + list(update_window_dims))
        size = cls.window(operand.shape, updates.shape, update_window_dims,
                          inserted_window_dims, input_batching_dims)
        batch_pos = [d - (d > ivd) for d in scatter_indices_batching_dims]
        out = np.array(operand, copy=True)
        for b in np.ndindex(*si.shape[:-1]):
            start = [0] * operand.ndim
            for k, d in enumerate(scatter_dims_to_operand_dims):
                start[d] = int(si[b][k])
            for d, p in zip(input_batching_dims, batch_pos):
                start[d] = b[p]
            if all(0 <= s <= n - w for s, n, w in zip(start, operand.shape, size)):
                window = tuple(slice(s, s + w) for s, w in zip(start, size))
                out[window] += windows[b].reshape(size)
        return out

    @classmethod
    def lower(cls, lb, operand, indices, updates, *, update_window_dims, inserted_window_dims,
              scatter_dims_to_operand_dims, index_vector_dim, input_batching_dims,
              scatter_indices_batching_dims):
        """Out-of-bounds windows become zero updates at clamped starts (IREE's scatter does
        not drop them; StableHLO leaves them implementation-defined), then the scatter is
        rewritten into the form IREE accepts (``_iree_form``)."""
        x, si, u = (mlir.aval_of(v) for v in (operand, indices, updates))
        if u.size == 0:
            return operand
        ivd = index_vector_dim
        if ivd == si.ndim:
            indices = lb.op("stablehlo.reshape", [indices], ShapedArray((*si.shape, 1), si.dtype))
        size = cls.window(x.shape, u.shape, update_window_dims, inserted_window_dims,
                          input_batching_dims)
        clamped = Gather._clamp(lb, operand, indices, scatter_dims_to_operand_dims, size, ivd)
        updates = cls._drop(lb, indices, clamped, updates, update_window_dims, ivd)
        operand, perm, indices, updates, dn = _iree_form(
            lb, operand, clamped, updates, size, ivd, update_window_dims, inserted_window_dims,
            scatter_dims_to_operand_dims, input_batching_dims, scatter_indices_batching_dims)
        moved = mlir.aval_of(operand)
        op = lb.create("stablehlo.scatter", [operand, indices, updates], [lb.type(moved)],
                       {"scatter_dimension_numbers": lb.attr(dn),
                        "indices_are_sorted": lb.attr("false"),
                        "unique_indices": lb.attr("false")}, regions=1)
        block, body = lb.scalar_block(op, 0, [x.dtype])
        body.ret([body.op("stablehlo.add", list(block.arguments), ShapedArray((), x.dtype))])
        return _transposed(lb, op.results[0], moved, [int(i) for i in np.argsort(perm)])

    @classmethod
    def _drop(cls, lb, indices, clamped, updates, update_window_dims, ivd):
        """``updates`` with the windows whose start needed clamping set to zero."""
        si, u = mlir.aval_of(indices), mlir.aval_of(updates)
        if si.size == 0 or (ivd < si.ndim and si.shape[ivd] == 0):
            return updates
        kind = "UNSIGNED" if dtypes.is_unsigned(si.dtype) else "SIGNED"
        ok = lb.op("stablehlo.compare", [clamped, indices], ShapedArray(si.shape, np.bool_),
                   comparison_direction=lb.attr("#stablehlo<comparison_direction EQ>"),
                   compare_type=lb.attr(f"#stablehlo<comparison_type {kind}>"))
        if ivd < si.ndim:
            batch = ShapedArray([n for i, n in enumerate(si.shape) if i != ivd], np.bool_)
            ok = ReduceAnd.lower(type(lb)(lb.ip, lb.loc, [batch]), ok, axes=(ivd,))
        scatter_dims = [d for d in range(u.ndim) if d not in update_window_dims]
        mask = lb.op("stablehlo.broadcast_in_dim", [ok], ShapedArray(u.shape, np.bool_),
                     broadcast_dimensions=lb.i64s(scatter_dims))
        zeros = lb.op("stablehlo.broadcast_in_dim", [lb.constant(np.zeros((), u.dtype))], u,
                      broadcast_dimensions=lb.i64s([]))
        return lb.op("stablehlo.select", [mask, updates, zeros], u)

    @classmethod
    def jvp(cls, b, primals, tangents, outs, **dims):
        (operand, indices, updates), (d_operand, _, d_updates) = primals, tangents
        return b.scatter_add(b.instantiate(d_operand, b.aval(operand)), indices,
                             b.instantiate(d_updates, b.aval(updates)), **dims)

    @classmethod
    def transpose(cls, b, ct, operand, indices, updates, *, update_window_dims,
                  inserted_window_dims, scatter_dims_to_operand_dims, index_vector_dim,
                  input_batching_dims, scatter_indices_batching_dims):
        """The operand's cotangent is ``ct``; each update window's is the window of ``ct`` it
        was added to, or zero for a dropped window."""
        if not b.is_linear(updates):
            return ct, None, None
        u = b.aval(updates)
        size = cls.window(b.aval(operand).shape, u.shape, update_window_dims,
                          inserted_window_dims, input_batching_dims)
        windows = b.gather(ct, indices, offset_dims=update_window_dims,
                           collapsed_slice_dims=inserted_window_dims,
                           start_index_map=scatter_dims_to_operand_dims, slice_sizes=size,
                           index_vector_dim=index_vector_dim,
                           operand_batching_dims=input_batching_dims,
                           start_indices_batching_dims=scatter_indices_batching_dims)
        bounds = window_bounds(b.aval(operand).shape, size, scatter_dims_to_operand_dims)
        ok = windows_in_bounds(b, indices, bounds, index_vector_dim)
        scatter_dims = tuple(d for d in range(u.ndim) if d not in update_window_dims)
        mask = b.broadcast_in_dim(ok, shape=u.shape, broadcast_dimensions=scatter_dims)
        ct_updates = b.select(mask, windows, b.zeros(u))
        return (ct if b.is_linear(operand) else None), None, ct_updates

    @classmethod
    def batch(cls, b, args, dims, *, update_window_dims, inserted_window_dims,
              scatter_dims_to_operand_dims, index_vector_dim, input_batching_dims,
              scatter_indices_batching_dims):
        """The result is batched where the operand is (at 0, broadcast, when it is not).
        Unbatched indices: the batch dim is one more (whole) window dim of the updates.
        Batched indices: one more scatter dim of the updates, and the operand's batch dim
        paired with the indices' as one more batching dim."""
        (x, idx, u), (xd, id_, ud) = args, dims
        d = 0 if xd is None else xd
        u_rank = b.aval(u).ndim - (ud is not None)
        uwd, ivd = update_window_dims, index_vector_dim
        ibd, sibd = shift_dims(input_batching_dims, d), scatter_indices_batching_dims
        if id_ is None:
            dropped = {*inserted_window_dims, *input_batching_dims}
            q = sum(1 for i in range(d) if i not in dropped)  # window dims before it
            at = slot(uwd, q, u_rank)
            uwd = insert_at(shift_dims(uwd, at), q, at)
        else:
            ivd, p = batched_index_vector_dim(b.aval(idx).ndim - 1, id_, ivd)
            at = slot([i for i in range(u_rank) if i not in uwd], p, u_rank)
            uwd = shift_dims(uwd, at)
            k = sum(1 for o in ibd if o < d)
            ibd, sibd = insert_at(ibd, k, d), insert_at(shift_dims(sibd, id_), k, id_)
        out = b.scatter_add(b.matchaxis(x, xd, d), idx, b.matchaxis(u, ud, at),
                            update_window_dims=uwd,
                            inserted_window_dims=shift_dims(inserted_window_dims, d),
                            scatter_dims_to_operand_dims=shift_dims(scatter_dims_to_operand_dims,
                                                                    d),
                            index_vector_dim=ivd, input_batching_dims=ibd,
                            scatter_indices_batching_dims=sibd)
        return [out], [d]


# ---- the form of scatter IREE accepts --------------------------------------------------------
def _iree_form(lb, operand, indices, updates, size, ivd, update_window_dims,
               inserted_window_dims, scatter_dims_to_operand_dims, input_batching_dims,
               scatter_indices_batching_dims):
    """An equivalent scatter (for in-bounds starts) in the one form IREE lowers in every case:
    i32/i64 index vectors last and never empty; no batching dims (they become indexed by
    iotas); every indexed operand dim inserted, so that a window of ``n`` elements along an
    indexed dim becomes ``n`` one-element windows at consecutive starts; several indexed dims
    leading the operand; every other window full-sized (zero-padded); updates laid out as
    [scatter dims, window dims]. Returns the operand, its permutation, the indices, the
    updates and the dimension numbers."""
    x, si, u = (mlir.aval_of(v) for v in (operand, indices, updates))
    batch = [d for d in range(si.ndim) if d != ivd]
    indices = _index_matrix(lb, indices, si, batch, ivd, x.shape)
    # operand batching dims become inserted dims indexed by an iota of their batch dim
    indices = _append_iotas(lb, indices, [d - (d > ivd) for d in scatter_indices_batching_dims])
    sdtod = [*scatter_dims_to_operand_dims, *input_batching_dims]
    inserted = [*inserted_window_dims, *input_batching_dims]
    if not sdtod:
        indices, sdtod = _index_any_dim(lb, indices, x, inserted)
    perm = list(range(x.ndim))
    if len(sdtod) > 1:
        perm = [*sorted(sdtod), *[d for d in perm if d not in sdtod]]
    new = {d: perm.index(d) for d in perm}
    kept = [d for d in range(x.ndim) if d not in inserted]
    window_of = dict(zip(kept, update_window_dims))  # operand dim -> updates dim
    spread = [d for d in sdtod if d in window_of]
    rest = sorted((d for d in kept if d not in spread), key=new.get)
    scatter = [d for d in range(u.ndim) if d not in update_window_dims]
    order = [*scatter, *[window_of[d] for d in spread], *[window_of[d] for d in rest]]
    updates = _pad_high(lb, _transposed(lb, updates, u, order),
                        [0] * (len(scatter) + len(spread))
                        + [x.shape[d] - size[d] for d in rest])
    if spread:
        indices = _spread(lb, indices, [size[d] for d in spread],
                          [sdtod.index(d) for d in spread])
    nb = len(batch) + len(spread)
    dn = (f"#stablehlo.scatter<update_window_dims = {list(range(nb, nb + len(rest)))}, "
          f"inserted_window_dims = {sorted(new[d] for d in (*inserted, *spread))}, "
          f"scatter_dims_to_operand_dims = {[new[d] for d in sdtod]}, "
          f"index_vector_dim = {nb}>")
    return _transposed(lb, operand, x, perm), perm, indices, updates, dn


def _index_matrix(lb, indices, si, batch, ivd, shape):
    """The indices as [batch dims..., index vector] of i32 (i64 for huge operands)."""
    wide = np.dtype(np.int64 if max(shape, default=0) > np.iinfo(np.int32).max else np.int32)
    indices = _transposed(lb, indices, si, [*batch, ivd])
    if si.dtype == wide:
        return indices
    out = ShapedArray([si.shape[d] for d in (*batch, ivd)], wide)
    return lb.op("stablehlo.convert", [indices], out)


def _append_iotas(lb, indices, positions):
    """``indices`` ([B..., K]) with one more index vector entry per batch position ``p`` in
    ``positions``: the position along ``B[p]``."""
    if not positions:
        return indices
    si = mlir.aval_of(indices)
    column = ShapedArray((*si.shape[:-1], 1), si.dtype)
    iotas = [lb.op("stablehlo.iota", [], column, iota_dimension=lb.i64(p)) for p in positions]
    out = ShapedArray((*si.shape[:-1], si.shape[-1] + len(positions)), si.dtype)
    return lb.op("stablehlo.concatenate", [indices, *iotas], out,
                 dimension=lb.i64(si.ndim - 1))


def _index_any_dim(lb, indices, x, inserted):
    """IREE needs an index vector: a scatter without one indexes some dim at 0."""
    if x.ndim == 0:
        raise OpError("cannot lower a scatter into a rank-0 operand")
    si = mlir.aval_of(indices)
    out = ShapedArray((*si.shape[:-1], 1), si.dtype)
    zero = lb.constant(np.zeros((), si.dtype))
    return (lb.op("stablehlo.broadcast_in_dim", [zero], out, broadcast_dimensions=lb.i64s([])),
            [inserted[0] if inserted else 0])


def _spread(lb, indices, counts, entries):
    """``indices`` of shape [B..., K] broadcast to [B..., *counts, K], with entry
    ``entries[j]`` of each index vector increased by the position along count ``j``."""
    si = mlir.aval_of(indices)
    nb, k = si.ndim - 1, si.shape[-1]
    offsets = np.zeros((*counts, k), si.dtype)
    for j, (n, e) in enumerate(zip(counts, entries)):
        offsets[..., e] = np.arange(n).reshape([n if i == j else 1 for i in range(len(counts))])
    out = ShapedArray((*si.shape[:-1], *counts, k), si.dtype)
    spread = lb.op("stablehlo.broadcast_in_dim", [indices], out,
                   broadcast_dimensions=lb.i64s([*range(nb), out.ndim - 1]))
    steps = lb.op("stablehlo.broadcast_in_dim", [lb.constant(offsets)], out,
                  broadcast_dimensions=lb.i64s(range(nb, out.ndim)))
    return lb.op("stablehlo.add", [spread, steps], out)


def _pad_high(lb, x, high):
    if not any(high):
        return x
    a = mlir.aval_of(x)
    out = ShapedArray([n + h for n, h in zip(a.shape, high)], a.dtype)
    zeros = [0] * a.ndim
    return lb.op("stablehlo.pad", [x, lb.constant(np.zeros((), a.dtype))], out,
                 edge_padding_low=lb.i64s(zeros), edge_padding_high=lb.i64s(high),
                 interior_padding=lb.i64s(zeros))


def _transposed(lb, x, aval, perm):
    if list(perm) == list(range(aval.ndim)):
        return x
    out = ShapedArray([aval.shape[p] for p in perm], aval.dtype)
    return lb.op("stablehlo.transpose", [x], out, permutation=lb.i64s(perm))
