"""Scatters: ``irax.scatter_add`` (the transpose of ``irax.gather``), and ``irax.scatter``
(set), ``irax.scatter_mul``, ``irax.scatter_min`` and ``irax.scatter_max``, which differ from
it only in how an update window combines with the operand (``.at[idx].set/mul/min/max``).

    %r = "irax.scatter_add"(%x, %idx, %u) {update_window_dims = array<i64: 1>,
           inserted_window_dims = array<i64: 0>, scatter_dims_to_operand_dims = array<i64: 0>,
           index_vector_dim = 1 : i64}
           : (tensor<4x3xf32>, tensor<2x1xi32>, tensor<2x3xf32>) -> tensor<4x3xf32>

Every scatter drops a window that does not lie wholly inside the operand (JAX's
FILL_OR_DROP); duplicate starts combine in order (``irax.scatter``: the last one wins).
``indices_are_sorted`` and ``unique_indices`` are the caller's promises (StableHLO's
attributes); only ``irax.scatter_mul``'s derivative reads ``unique_indices``.
"""

from __future__ import annotations

import numpy as np

from irax.core import dtypes
from irax.core.abstract import ShapedArray
from irax.dialect import attrs as A
from irax.dialect import mlir
from irax.dialect import raising as R
from irax.dialect import sharding as S
from irax.dialect import upstream as UP
from irax.dialect.base import Op, OpError, weak_of
from irax.dialect.elementwise import Max, Min, Mul
from irax.dialect.indexing import (
    batched_index_vector_dim,
    check_sorted,
    clamp_start_indices,
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
    shard = classmethod(S.replicated)
    num_operands = 3
    attributes = {"update_window_dims": A.I64Array, "inserted_window_dims": A.I64Array,
                  "scatter_dims_to_operand_dims": A.I64Array, "index_vector_dim": A.I64,
                  "input_batching_dims": A.I64Array,
                  "scatter_indices_batching_dims": A.I64Array,
                  "indices_are_sorted": A.Bool, "unique_indices": A.Bool}
    defaults = {"input_batching_dims": (), "scatter_indices_batching_dims": (),
                "indices_are_sorted": False, "unique_indices": False}
    raises_from = "stablehlo.scatter"
    #: the StableHLO op its region applies (as for the reductions); ``SET`` for a region
    #: that returns the update
    combiner = "stablehlo.add"
    #: whether boolean operands are accepted
    accepts_bool = False

    @staticmethod
    def combine(current, update):
        """NumPy: the new value of operand elements ``current`` hit by ``update``."""
        return current + update

    @classmethod
    def raise_attrs(cls, op):
        if len(op.operands) != 3:
            raise OpError(f"with {len(op.operands) // 2} inputs is not supported")
        if R.reducer(op) != cls.combiner:
            raise OpError("with a region other than an addition of its arguments is not "
                          "supported")
        dims = R.fields(op, "scatter_dimension_numbers")
        return {"update_window_dims": (), "inserted_window_dims": (),
                "scatter_dims_to_operand_dims": (), "index_vector_dim": 0, **dims}

    @classmethod
    def infer(cls, operand, indices, updates, *, update_window_dims, inserted_window_dims,
              scatter_dims_to_operand_dims, index_vector_dim, input_batching_dims,
              scatter_indices_batching_dims, indices_are_sorted=False, unique_indices=False):
        ivd = index_vector_dim
        if (dtypes.is_bool(operand.dtype) and not cls.accepts_bool) or \
                updates.dtype != operand.dtype:
            kind = "an" if cls.accepts_bool else "a numeric"
            raise OpError(f"expected {kind} operand and updates of its dtype, but got "
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
                 scatter_indices_batching_dims, indices_are_sorted=False, unique_indices=False):
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
                with np.errstate(all="ignore"):
                    out[window] = cls.combine(out[window], windows[b].reshape(size))
        return out

    @classmethod
    def lower(cls, lb, operand, indices, updates, *, update_window_dims, inserted_window_dims,
              scatter_dims_to_operand_dims, index_vector_dim, input_batching_dims,
              scatter_indices_batching_dims, indices_are_sorted=False, unique_indices=False):
        """One ``stablehlo.scatter`` with a region applying ``combiner``. A window that does
        not lie in the operand (StableHLO leaves those implementation-defined) is, for an
        addition, a zero update at the clamped start; for the other combiners it is moved
        into padding beyond the operand, sliced off afterwards (``_redirected``)."""
        x, si, u = (mlir.aval_of(v) for v in (operand, indices, updates))
        if u.size == 0:
            return operand
        ivd = index_vector_dim
        if ivd == si.ndim:
            indices = lb.op("stablehlo.reshape", [indices], ShapedArray((*si.shape, 1), si.dtype))
        size = cls.window(x.shape, u.shape, update_window_dims, inserted_window_dims,
                          input_batching_dims)
        clamped = clamp_start_indices(lb, operand, indices, scatter_dims_to_operand_dims, size,
                                      ivd)
        fields = {"update_window_dims": update_window_dims,
                  "inserted_window_dims": inserted_window_dims,
                  "input_batching_dims": input_batching_dims,
                  "scatter_indices_batching_dims": scatter_indices_batching_dims,
                  "scatter_dims_to_operand_dims": scatter_dims_to_operand_dims}
        dn = ", ".join(f"{k} = {list(v)}" for k, v in fields.items() if v)
        dn = f"#stablehlo.scatter<{dn + ', ' if dn else ''}index_vector_dim = {ivd}>"
        if cls.combiner != ScatterAdd.combiner:
            return _redirected(lb, operand, indices, clamped, updates, dn, cls.combiner,
                               scatter_dims_to_operand_dims, size, ivd)
        updates = cls._drop(lb, indices, clamped, updates, update_window_dims, ivd)
        return scatter(lb, operand, clamped, updates, dn, cls.combiner)

    @classmethod
    def _drop(cls, lb, indices, clamped, updates, update_window_dims, ivd):
        """``updates`` with the windows whose start needed clamping set to zero."""
        si, u = mlir.aval_of(indices), mlir.aval_of(updates)
        if si.size == 0 or (ivd < si.ndim and si.shape[ivd] == 0):
            return updates
        ok = lb.compare(clamped, indices, "EQ")
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
                  input_batching_dims, scatter_indices_batching_dims, **flags):
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
              scatter_indices_batching_dims, **flags):
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
        out = b.emit(cls, [b.matchaxis(x, xd, d), idx, b.matchaxis(u, ud, at)],
                     update_window_dims=uwd,
                     inserted_window_dims=shift_dims(inserted_window_dims, d),
                     scatter_dims_to_operand_dims=shift_dims(scatter_dims_to_operand_dims, d),
                     index_vector_dim=ivd, input_batching_dims=ibd,
                     scatter_indices_batching_dims=sibd, **flags)
        return out, [d]


#: the ``combiner`` of a scatter whose region returns the update (``irax.scatter``)
SET = "set"


def scatter(lb, operand, indices, updates, dimension_numbers: str, combiner: str):
    """A ``stablehlo.scatter`` whose region applies the binary op ``combiner`` (``SET``:
    returns the update)."""
    x = mlir.aval_of(operand)
    op = lb.create("stablehlo.scatter", [operand, indices, updates], [lb.type(x)],
                   {"scatter_dimension_numbers": lb.attr(dimension_numbers),
                    "indices_are_sorted": lb.attr("false"),
                    "unique_indices": lb.attr("false")}, regions=1)
    block, body = lb.scalar_block(op, 0, [x.dtype])
    if combiner == SET:
        body.ret([block.arguments[1]])
    else:
        body.ret([body.op(combiner, list(block.arguments), ShapedArray((), x.dtype))])
    return op.results[0]


def region_combiner(op) -> str | None:
    """The ``combiner`` of a ``stablehlo.scatter``'s region: the binary op it applies to its
    arguments, ``SET`` when it returns the update, None for any other region."""
    combiner = R.reducer(op)
    if combiner is not None:
        return combiner
    blocks = list(op.regions[0].blocks)
    if len(blocks) != 1 or len(blocks[0].arguments) != 2:
        return None
    ops = [o.operation for o in blocks[0].operations]
    if len(ops) == 1 and UP.op_class(ops[0]) is UP.StableHLOReturn and \
            list(ops[0].operands) == [blocks[0].arguments[1]]:
        return SET
    return None


def _redirected(lb, operand, indices, clamped, updates, dn, combiner, sdtod, size, ivd):
    """The scatter with every out-of-bounds window moved whole into padding beyond the
    operand (along its first indexed dim ``d``, padded by the window size there), then cut
    off: exact for any combiner, where a neutral update exists for few."""
    x, si = mlir.aval_of(operand), mlir.aval_of(indices)
    if not sdtod:  # every window starts at 0: in bounds
        return scatter(lb, operand, clamped, updates, dn, combiner)
    d = sdtod[0]
    if x.shape[d] > np.iinfo(si.dtype).max:
        wide = si.update(dtype=np.dtype(np.int64))
        indices, clamped = (lb.op("stablehlo.convert", [v], wide) for v in (indices, clamped))
        si = wide
    ok = lb.compare(clamped, indices, "EQ")
    batch = [i for i in range(si.ndim) if i != ivd]
    ok = ReduceAnd.lower(type(lb)(lb.ip, lb.loc, [ShapedArray([si.shape[i] for i in batch],
                                                              np.bool_)]), ok, axes=(ivd,))
    mask = lb.op("stablehlo.broadcast_in_dim", [ok], si.update(dtype=np.dtype(np.bool_)),
                 broadcast_dimensions=lb.i64s(batch))
    beyond = np.zeros(si.shape[ivd], si.dtype)
    beyond[0] = x.shape[d]
    beyond = lb.op("stablehlo.broadcast_in_dim", [lb.constant(beyond)], si,
                   broadcast_dimensions=lb.i64s([ivd]))
    starts = lb.op("stablehlo.select", [mask, clamped, beyond], si)
    high = [size[d] if k == d else 0 for k in range(x.ndim)]
    padded = x.update(shape=tuple(n + h for n, h in zip(x.shape, high)))
    zeros = [0] * x.ndim
    xp = lb.op("stablehlo.pad", [operand, lb.constant(np.zeros((), x.dtype))], padded,
               edge_padding_low=lb.i64s(zeros), edge_padding_high=lb.i64s(high),
               interior_padding=lb.i64s(zeros))
    out = scatter(lb, xp, starts, updates, dn, combiner)
    return lb.op("stablehlo.slice", [out], x, start_indices=lb.i64s(zeros),
                 limit_indices=lb.i64s(x.shape), strides=lb.i64s([1] * x.ndim))


# ---- the other combiners ---------------------------------------------------------------------
def _gather_dims(b, operand, updates, *, update_window_dims, inserted_window_dims,
                 scatter_dims_to_operand_dims, index_vector_dim, input_batching_dims,
                 scatter_indices_batching_dims, **flags) -> dict:
    """The dims of the gather that reads back, in ``updates``' layout, the operand windows a
    scatter writes."""
    size = ScatterAdd.window(b.aval(operand).shape, b.aval(updates).shape, update_window_dims,
                             inserted_window_dims, input_batching_dims)
    return dict(offset_dims=update_window_dims, collapsed_slice_dims=inserted_window_dims,
                start_index_map=scatter_dims_to_operand_dims, slice_sizes=size,
                index_vector_dim=index_vector_dim, operand_batching_dims=input_batching_dims,
                start_indices_batching_dims=scatter_indices_batching_dims)


def _in_bounds(b, operand, indices, updates, dims):
    """Whether each update window is in bounds, broadcast to ``updates``' shape."""
    g = _gather_dims(b, operand, updates, **dims)
    bounds = window_bounds(b.aval(operand).shape, g["slice_sizes"], g["start_index_map"])
    ok = windows_in_bounds(b, indices, bounds, dims["index_vector_dim"])
    u = b.aval(updates)
    scatter_dims = tuple(d for d in range(u.ndim) if d not in dims["update_window_dims"])
    return b.broadcast_in_dim(ok, shape=u.shape, broadcast_dimensions=scatter_dims)


class Scatter(ScatterAdd):
    """StableHLO scatter whose region returns the update (``x.at[idx].set(u)``): each
    in-bounds window of ``updates`` replaces the operand there; of windows that overlap,
    the last one wins. Dimension numbers as for ``irax.scatter_add``.

        %r = "irax.scatter"(%x, %idx, %u) {update_window_dims = array<i64>,
               inserted_window_dims = array<i64: 0>,
               scatter_dims_to_operand_dims = array<i64: 0>, index_vector_dim = 1 : i64}
               : (tensor<5xf32>, tensor<2x1xi32>, tensor<2xf32>) -> tensor<5xf32>
    """

    name = "irax.scatter"
    raises_from = ()
    combiner = SET
    accepts_bool = True
    transpose = None

    @staticmethod
    def combine(current, update):
        return update

    @classmethod
    def jvp(cls, b, primals, tangents, outs, **dims):
        """JAX's rule for overlapping windows: each update is numbered, the numbers are
        scattered the same way and read back, and only the winners' tangents (and the
        operand's where nothing landed) are scatter-added."""
        operand, indices, updates = primals
        x, u = b.aval(operand), b.aval(updates)
        scatter_dims = [d for d in range(u.ndim) if d not in dims["update_window_dims"]]
        count = int(np.prod([u.shape[d] for d in scatter_dims]))
        idt = np.dtype(np.int32 if count < np.iinfo(np.int32).max else np.int64)
        core = [u.shape[d] for d in scatter_dims]
        ids = b.add(b.iota(shape=(count,), dtype=idt, dimension=0),
                    b.full(ShapedArray((count,), idt), 1))
        ids = b.broadcast_in_dim(b.reshape(ids, new_sizes=core), shape=u.shape,
                                 broadcast_dimensions=scatter_dims)
        placed = b.scatter(b.full(ShapedArray(x.shape, idt), 0), indices, ids, **dims)
        back = b.gather(placed, indices, **_gather_dims(b, operand, updates, **dims))
        untouched = b.compare(placed, b.full_like(placed, 0), direction="EQ")
        won = b.compare(ids, back, direction="EQ")
        dx = None if tangents[0] is None else b.select(untouched, tangents[0], b.zeros(x))
        du = None if tangents[2] is None else b.select(won, tangents[2], b.zeros(u))
        return b.scatter_add(b.instantiate(dx, x), indices, b.instantiate(du, u), **dims)


class ScatterMul(ScatterAdd):
    """StableHLO scatter with a multiply combiner (``x.at[idx].mul(u)``): in-bounds windows
    multiply the operand, overlapping ones in turn. Its derivative in the updates needs
    ``unique_indices`` (as JAX's).

        %r = "irax.scatter_mul"(%x, %idx, %u) {update_window_dims = array<i64>,
               inserted_window_dims = array<i64: 0>,
               scatter_dims_to_operand_dims = array<i64: 0>, index_vector_dim = 1 : i64}
               : (tensor<5xf32>, tensor<2x1xi32>, tensor<2xf32>) -> tensor<5xf32>
    """

    name = "irax.scatter_mul"
    raises_from = ()
    combiner = "stablehlo.multiply"
    transpose = None
    combine = staticmethod(Mul.evaluate)

    @classmethod
    def jvp(cls, b, primals, tangents, outs, **dims):
        """``dx * (the product of the updates at each element)``, plus for unique windows
        ``x * du`` where ``du`` lands."""
        operand, indices, updates = primals
        x = b.aval(operand)
        out = None
        if tangents[0] is not None:
            factors = b.scatter_mul(b.full(x.update(weak_type=False), 1), indices, updates,
                                    **dims)
            out = b.mul(tangents[0], factors)
        if tangents[2] is not None:
            if not dims["unique_indices"]:
                raise NotImplementedError(
                    "scatter_mul gradients are only implemented if `unique_indices=True`")
            landed = b.scatter_add(b.zeros(x), indices, tangents[2], **dims)
            out = b.add_any(out, b.mul(landed, operand))
        return out


class _Extremal(ScatterAdd):
    """Scatter with a min or max combiner."""

    raises_from = ()
    accepts_bool = True
    transpose = None

    @classmethod
    def jvp(cls, b, primals, tangents, outs, **dims):
        """JAX's rule: an element's tangent is shared equally by the values that attain its
        result (the operand and every winning update)."""
        operand, indices, updates = primals
        x, u = b.aval(operand), b.aval(updates)
        dx, du = b.instantiate(tangents[0], x), b.instantiate(tangents[2], u)
        g = _gather_dims(b, operand, updates, **dims)
        ok = _in_bounds(b, operand, indices, updates, dims)
        before, after = b.gather(operand, indices, **g), b.gather(outs[0], indices, **g)
        won = b.select(ok, b.compare(updates, after, direction="EQ"), b.full_like(ok, False))
        kept = b.compare(before, after, direction="EQ")
        one, zero = b.full(u, 1), b.zeros(u)
        real = x.update(weak_type=False)

        def count(v):
            return b.gather(b.scatter_add(b.zeros(real), indices, v, **dims), indices, **g)

        wins = b.add(count(b.select(won, one, zero)), b.select(kept, one, zero))
        refs = b.select(ok, count(b.select(ok, one, zero)), one)
        share = b.div(one, b.select(ok, b.max(wins, one), one))
        u_coef = b.select(won, share, zero)
        x_coef = b.div(b.sub(b.select(kept, share, zero), one), refs)
        x_coef = b.select(ok, x_coef, zero)
        step = b.add(b.mul(b.gather(dx, indices, **g), x_coef), b.mul(du, u_coef))
        return b.scatter_add(dx, indices, step, **dims)


class ScatterMin(_Extremal):
    """StableHLO scatter with a minimum combiner (``x.at[idx].min(u)``; NaN propagates).

        %r = "irax.scatter_min"(%x, %idx, %u) {update_window_dims = array<i64>,
               inserted_window_dims = array<i64: 0>,
               scatter_dims_to_operand_dims = array<i64: 0>, index_vector_dim = 1 : i64}
               : (tensor<5xf32>, tensor<2x1xi32>, tensor<2xf32>) -> tensor<5xf32>
    """

    name = "irax.scatter_min"
    combiner = "stablehlo.minimum"
    combine = staticmethod(Min.evaluate)


class ScatterMax(_Extremal):
    """StableHLO scatter with a maximum combiner (``x.at[idx].max(u)``; NaN propagates).

        %r = "irax.scatter_max"(%x, %idx, %u) {update_window_dims = array<i64>,
               inserted_window_dims = array<i64: 0>,
               scatter_dims_to_operand_dims = array<i64: 0>, index_vector_dim = 1 : i64}
               : (tensor<5xf32>, tensor<2x1xi32>, tensor<2xf32>) -> tensor<5xf32>
    """

    name = "irax.scatter_max"
    combiner = "stablehlo.maximum"
    combine = staticmethod(Max.evaluate)
