"""Shape ops: broadcast, reshape, transpose, slice, concatenate, pad, reverse.

Each op moves or copies elements without computing on them, so the result keeps the
operand's dtype and weak type. Semantics and lowering follow StableHLO one to one.

    %y = "irax.broadcast_in_dim"(%x) {shape = array<i64: 2, 3>,
           broadcast_dimensions = array<i64: 1>} : (tensor<3xf32>) -> tensor<2x3xf32>
    %t = "irax.transpose"(%y) {permutation = array<i64: 1, 0>}
           : (tensor<2x3xf32>) -> tensor<3x2xf32>

Indexing ops (dynamic_slice, dynamic_update_slice, gather) live in ``indexing.py``.
"""

from __future__ import annotations

import math

import numpy as np

from irax.core.abstract import ShapedArray
from irax.core.shape_poly import is_static
from irax.dialect import attrs as A
from irax.dialect import mlir
from irax.dialect import raising as R
from irax.dialect import sharding as S
from irax.dialect.base import Linear, Op, OpError, weak_of
from irax.dialect.folding import same_type


def check_dims(dims, rank: int, what: str) -> None:
    """``dims`` are unique and in ``[0, rank)``."""
    for d in dims:
        if not 0 <= d < rank:
            raise OpError(f"expected {what} to be in [0, {rank}), but got {list(dims)}")
    if len(set(dims)) != len(dims):
        raise OpError(f"expected {what} to be unique, but got {list(dims)}")


def check_length(values, rank: int, what: str) -> None:
    if len(values) != rank:
        raise OpError(f"expected {what} to have {rank} entries (the operand rank), "
                      f"but got {list(values)}")


def like(x: ShapedArray, shape) -> ShapedArray:
    """``x``'s dtype and weak type with a new shape."""
    return ShapedArray(shape, x.dtype, x.weak_type)


def shift_dims(dims, at: int) -> tuple[int, ...]:
    """``dims`` renumbered for a new dimension inserted at ``at`` (batching rules)."""
    return tuple(d + (d >= at) for d in dims)


def insert_at(values, index: int, value) -> tuple:
    """``values`` with ``value`` inserted at ``index``."""
    return (*values[:index], value, *values[index:])


class BroadcastInDim(Linear, Op):
    """Broadcasts ``x`` into ``shape``; operand dim ``i`` becomes result dim
    ``broadcast_dimensions[i]`` (its size equals that result dim or is 1).

        %y = "irax.broadcast_in_dim"(%x) {shape = array<i64: 2, 3>,
               broadcast_dimensions = array<i64: 1>} : (tensor<3xf32>) -> tensor<2x3xf32>
    """

    name = "irax.broadcast_in_dim"

    @classmethod
    def shard(cls, specs, avals, outs, mesh, *, shape, broadcast_dimensions):
        """Operand dimensions that are not expanded keep their axes; new ones are whole."""
        x = avals[0]
        dims = {i: d for i, d in enumerate(broadcast_dimensions) if x.shape[i] == shape[d]}
        need, out = S.carry(specs[0], x.ndim, len(shape), dims)
        return S.ShardPlan([need], [out], attrs=dict(
            shape=mesh.local_shape(shape, out), broadcast_dimensions=broadcast_dimensions))
    num_operands = 1
    attributes = {"shape": A.I64Array, "broadcast_dimensions": A.I64Array}
    raises_from = "stablehlo.broadcast_in_dim"

    @classmethod
    def fold(cls, operands, consts, results, *, shape, broadcast_dimensions):
        """A broadcast that changes nothing is its operand."""
        x = operands[0]
        if same_type(x, results[0]) and \
                broadcast_dimensions == tuple(range(len(broadcast_dimensions))):
            return [x]
        return super().fold(operands, consts, results, shape=shape,
                            broadcast_dimensions=broadcast_dimensions)

    @classmethod
    def raise_attrs(cls, op):
        return {"shape": R.result_aval(op).shape,
                "broadcast_dimensions": R.i64s(op, "broadcast_dimensions")}

    @classmethod
    def infer(cls, x, *, shape, broadcast_dimensions):
        if any(d < 0 for d in shape):
            raise OpError(f"expected non-negative result dimensions, but got {list(shape)}")
        dims = broadcast_dimensions
        check_length(dims, x.ndim, "broadcast_dimensions")
        check_dims(dims, len(shape), "broadcast_dimensions")
        for i, d in enumerate(dims):
            if x.shape[i] not in (1, shape[d]):
                raise OpError(f"expected operand dimension {i} of size {x.shape[i]} to be 1 or "
                              f"{shape[d]} (result dimension {d})")
        return like(x, shape)

    @classmethod
    def evaluate(cls, x, *, shape, broadcast_dimensions):
        order = np.argsort(broadcast_dimensions, kind="stable")
        xt = np.transpose(x, order)
        sorted_dims = [broadcast_dimensions[i] for i in order]
        expanded = [1] * len(shape)
        for size, d in zip(xt.shape, sorted_dims):
            expanded[d] = size
        return np.broadcast_to(xt.reshape(expanded), shape)

    @classmethod
    def lower(cls, lb, x, *, shape, broadcast_dimensions):
        if not is_static(shape):
            # IREE 3.13 compiles a dynamic broadcast only when told which operand
            # dimensions expand: here a dimension expands exactly when it is a static 1
            xs = mlir.aval_of(x).shape
            grows = [i for i, d in enumerate(broadcast_dimensions)
                     if xs[i] == 1 and shape[d] != 1]
            return lb.op("stablehlo.dynamic_broadcast_in_dim", [x, lb.shape_value(shape)],
                         broadcast_dimensions=lb.i64s(broadcast_dimensions),
                         known_expanding_dimensions=lb.i64s(grows),
                         known_nonexpanding_dimensions=lb.i64s(
                             [i for i in range(len(xs)) if i not in grows]))
        return lb.op("stablehlo.broadcast_in_dim", [x],
                     broadcast_dimensions=lb.i64s(broadcast_dimensions))

    @classmethod
    def transpose(cls, b, ct, x, *, shape, broadcast_dimensions):
        """Sums ``ct`` over the dimensions the broadcast created or expanded."""
        xa = b.aval(x)
        dims = broadcast_dimensions
        summed = sorted({d for d in range(len(shape)) if d not in dims}
                        | {d for i, d in enumerate(dims) if xa.shape[i] == 1 and shape[d] != 1})
        if summed:
            ct = b.reduce_sum(ct, axes=tuple(summed))
        kept = [d for d in dims if d not in summed]
        perm = tuple(sorted(kept).index(d) for d in kept)
        if perm != tuple(range(len(perm))):
            ct = b.transpose(ct, permutation=perm)
        if b.aval(ct).shape != xa.shape:
            ct = b.reshape(ct, new_sizes=xa.shape)
        return (ct,)

    @classmethod
    def batch(cls, b, args, dims, *, shape, broadcast_dimensions):
        """The batch dim goes into the result just before the dim that the operand's next
        dim maps to (last when it is the operand's last dim): the operand does not move and
        increasing broadcast_dimensions stay increasing."""
        (x,), (d,) = args, dims
        bd = broadcast_dimensions
        r = bd[d] if d < len(bd) else len(shape)
        new_bd = insert_at(shift_dims(bd, r), d, r)
        return [b.broadcast_in_dim(x, shape=insert_at(shape, r, b.axis_size),
                                   broadcast_dimensions=new_bd)], [r]


class Reshape(Linear, Op):
    """Row-major reshape to ``new_sizes`` (same element count).

        %y = "irax.reshape"(%x) {new_sizes = array<i64: 3, 2>}
               : (tensor<2x3xf32>) -> tensor<3x2xf32>
    """

    name = "irax.reshape"

    @classmethod
    def shard(cls, specs, avals, outs, mesh, *, new_sizes):
        """A split dimension keeps its axes where its blocks stay contiguous in the result
        (``sharding.reshaped``): on the dimension it becomes or the major part of a merge,
        its axes spread over the dimensions it is split into, a fully split dimension's
        merge passes on to the next one's axes."""
        need, out = S.reshaped(S.pad(specs[0], avals[0].ndim), avals[0].shape,
                               tuple(new_sizes), mesh)
        return S.ShardPlan([need], [out], attrs=dict(new_sizes=mesh.local_shape(new_sizes, out)))
    num_operands = 1
    attributes = {"new_sizes": A.I64Array}
    raises_from = "stablehlo.reshape"

    @classmethod
    def fold(cls, operands, consts, results, **attrs):
        """A reshape to the operand's own shape is the operand."""
        if same_type(operands[0], results[0]):
            return [operands[0]]
        return super().fold(operands, consts, results, **attrs)

    @classmethod
    def raise_attrs(cls, op):
        return {"new_sizes": R.result_aval(op).shape}

    @classmethod
    def infer(cls, x, *, new_sizes):
        if any(d < 0 for d in new_sizes):
            raise OpError(f"expected non-negative sizes, but got {list(new_sizes)}")
        if math.prod(new_sizes) != x.size:
            raise OpError(f"expected new_sizes {list(new_sizes)} to have {x.size} elements "
                          f"like the operand {x.str_short()}, but got {math.prod(new_sizes)}")
        return like(x, new_sizes)

    @classmethod
    def evaluate(cls, x, *, new_sizes):
        return np.reshape(x, new_sizes)

    @classmethod
    def lower(cls, lb, x, *, new_sizes):
        if not is_static(new_sizes):
            return lb.op("stablehlo.dynamic_reshape", [x, lb.shape_value(new_sizes)])
        return lb.op("stablehlo.reshape", [x])

    @classmethod
    def transpose(cls, b, ct, x, *, new_sizes):
        return (b.reshape(ct, new_sizes=b.aval(x).shape),)

    @classmethod
    def batch(cls, b, args, dims, *, new_sizes):
        """Row-major order needs the batch dim first: it leads the new sizes."""
        (x,), (d,) = args, dims
        x = b.moveaxis(x, d, 0)
        return [b.reshape(x, new_sizes=(b.axis_size, *new_sizes))], [0]


class Transpose(Linear, Op):
    """Permutes dimensions: result dim ``i`` is operand dim ``permutation[i]``.

        %y = "irax.transpose"(%x) {permutation = array<i64: 1, 0>}
               : (tensor<2x3xf32>) -> tensor<3x2xf32>
    """

    name = "irax.transpose"

    shard = classmethod(S.keeping(lambda a, o, *, permutation: {
        p: i for i, p in enumerate(permutation)}))
    num_operands = 1
    attributes = {"permutation": A.I64Array}
    raises_from = "stablehlo.transpose"

    @classmethod
    def fold(cls, operands, consts, results, *, permutation):
        """The identity permutation is the operand."""
        if same_type(operands[0], results[0]) and \
                permutation == tuple(range(len(permutation))):
            return [operands[0]]
        return super().fold(operands, consts, results, permutation=permutation)

    @classmethod
    def raise_attrs(cls, op):
        return {"permutation": R.i64s(op, "permutation")}

    @classmethod
    def infer(cls, x, *, permutation):
        if sorted(permutation) != list(range(x.ndim)):
            raise OpError(f"expected permutation to be a permutation of [0, {x.ndim}), "
                          f"but got {list(permutation)}")
        return like(x, [x.shape[p] for p in permutation])

    @classmethod
    def evaluate(cls, x, *, permutation):
        return np.transpose(x, permutation)

    @classmethod
    def lower(cls, lb, x, *, permutation):
        return lb.op("stablehlo.transpose", [x], permutation=lb.i64s(permutation))

    @classmethod
    def transpose(cls, b, ct, x, *, permutation):
        inverse = tuple(int(i) for i in np.argsort(permutation))
        return (b.transpose(ct, permutation=inverse),)

    @classmethod
    def batch(cls, b, args, dims, *, permutation):
        """The batch dim stays where it is; the other dims permute around it."""
        (x,), (d,) = args, dims
        perm = insert_at(shift_dims(permutation, d), d, d)
        return [b.transpose(x, permutation=perm)], [d]


class Slice(Linear, Op):
    """Static strided slice ``x[start:limit:stride, ...]`` (``0 <= start <= limit <= dim``).

        %y = "irax.slice"(%x) {start_indices = array<i64: 1>, limit_indices = array<i64: 5>,
               strides = array<i64: 2>} : (tensor<6xf32>) -> tensor<2xf32>
    """

    name = "irax.slice"

    @classmethod
    def shard(cls, specs, avals, outs, mesh, *, start_indices, limit_indices, strides):
        """Dimensions taken whole keep their axes."""
        x = avals[0]
        keep = [d for d in range(x.ndim) if start_indices[d] == 0 and strides[d] == 1
                and limit_indices[d] == x.shape[d]]
        need, out = S.carry(specs[0], x.ndim, x.ndim, {d: d for d in keep})
        local = mesh.local_shape(x.shape, need)
        limits = tuple(local[d] if d in keep else n for d, n in enumerate(limit_indices))
        return S.ShardPlan([need], [out], attrs=dict(
            start_indices=start_indices, limit_indices=limits, strides=strides))
    num_operands = 1
    attributes = {"start_indices": A.I64Array, "limit_indices": A.I64Array,
                  "strides": A.I64Array}
    raises_from = "stablehlo.slice"

    @classmethod
    def raise_attrs(cls, op):
        return {key: R.i64s(op, key) for key in cls.attributes}

    @classmethod
    def infer(cls, x, *, start_indices, limit_indices, strides):
        check_length(start_indices, x.ndim, "start_indices")
        check_length(limit_indices, x.ndim, "limit_indices")
        check_length(strides, x.ndim, "strides")
        shape = []
        for i, (lo, hi, st) in enumerate(zip(start_indices, limit_indices, strides)):
            if not 0 <= lo <= hi <= x.shape[i]:
                raise OpError(f"expected 0 <= start <= limit <= {x.shape[i]} in dimension {i}, "
                              f"but got start {lo} and limit {hi}")
            if st <= 0:
                raise OpError(f"expected positive strides, but got {list(strides)}")
            shape.append(-(-(hi - lo) // st))
        return like(x, shape)

    @classmethod
    def evaluate(cls, x, *, start_indices, limit_indices, strides):
        return x[tuple(slice(*s) for s in zip(start_indices, limit_indices, strides))]

    @classmethod
    def lower(cls, lb, x, *, start_indices, limit_indices, strides):
        if not is_static((*start_indices, *limit_indices)):   # symbolic bounds
            return lb.op("stablehlo.real_dynamic_slice",
                         [x, lb.shape_value(start_indices), lb.shape_value(limit_indices),
                          lb.shape_value(strides)])
        return lb.op("stablehlo.slice", [x], start_indices=lb.i64s(start_indices),
                     limit_indices=lb.i64s(limit_indices), strides=lb.i64s(strides))

    @classmethod
    def transpose(cls, b, ct, x, *, start_indices, limit_indices, strides):
        """Scatters ``ct`` back into zeros: pads with ``start`` zeros below, ``stride - 1``
        zeros between elements and whatever is left of the dimension above."""
        dims, n = b.aval(x).shape, b.aval(ct).shape
        ends = [lo + (k - 1) * st + 1 if k else lo for lo, k, st in zip(start_indices, n, strides)]
        zero = b.zeros(ShapedArray((), b.aval(ct).dtype))
        return (b.pad(ct, zero, edge_padding_low=start_indices,
                      edge_padding_high=[d - e for d, e in zip(dims, ends)],
                      interior_padding=[st - 1 for st in strides]),)

    @classmethod
    def batch(cls, b, args, dims, *, start_indices, limit_indices, strides):
        """The whole batch dim is kept: start 0, limit its size, stride 1."""
        (x,), (d,) = args, dims
        return [b.slice(x, start_indices=insert_at(start_indices, d, 0),
                        limit_indices=insert_at(limit_indices, d, b.axis_size),
                        strides=insert_at(strides, d, 1))], [d]


class Concatenate(Linear, Op):
    """Joins one or more operands of one dtype along ``dimension``.

        %z = "irax.concatenate"(%x, %y) {dimension = 0 : i64}
               : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<3x3xf32>
    """

    name = "irax.concatenate"

    @classmethod
    def shard(cls, specs, avals, outs, mesh, *, dimension):
        """Every operand shares one sharding; the joined dimension is whole."""
        rank = outs[0].ndim
        spec = list(S.merge([S.pad(s, rank) for s in specs], rank))
        spec[dimension] = ()
        return S.ShardPlan([tuple(spec)] * len(avals), [tuple(spec)])
    num_operands = None
    attributes = {"dimension": A.I64}
    raises_from = "stablehlo.concatenate"

    @classmethod
    def raise_attrs(cls, op):
        return {"dimension": R.i64(op, "dimension")}

    @classmethod
    def infer(cls, *xs, dimension):
        if not xs:
            raise OpError("expected at least 1 operand, but got 0")
        first = xs[0]
        if not 0 <= dimension < first.ndim:
            raise OpError(f"expected dimension to be in [0, {first.ndim}), but got {dimension}")
        for x in xs[1:]:
            same = [s for i, s in enumerate(x.shape) if i != dimension]
            want = [s for i, s in enumerate(first.shape) if i != dimension]
            if x.dtype != first.dtype or x.ndim != first.ndim or same != want:
                raise OpError(f"expected operands of one dtype and equal shapes outside "
                              f"dimension {dimension}, but got {first.str_short()} and "
                              f"{x.str_short()}")
        shape = list(first.shape)
        shape[dimension] = sum(x.shape[dimension] for x in xs)
        return ShapedArray(shape, first.dtype, weak_of(*xs))

    @classmethod
    def evaluate(cls, *xs, dimension):
        return np.concatenate(xs, axis=dimension)

    @classmethod
    def lower(cls, lb, *xs, dimension):
        return lb.op("stablehlo.concatenate", list(xs), dimension=lb.i64(dimension))

    @classmethod
    def transpose(cls, b, ct, *xs, dimension):
        """Each linear operand's cotangent is its slice of ``ct`` along ``dimension``."""
        starts, limits = [0] * b.aval(ct).ndim, list(b.aval(ct).shape)
        cts = []
        for x in xs:
            limits[dimension] = starts[dimension] + b.aval(x).shape[dimension]
            cts.append(b.slice(ct, start_indices=tuple(starts), limit_indices=tuple(limits),
                               strides=(1,) * len(starts)) if b.is_linear(x) else None)
            starts[dimension] = limits[dimension]
        return tuple(cts)

    @classmethod
    def batch(cls, b, args, dims, *, dimension):
        """Every operand gets the first batched operand's batch dim (unbatched ones are
        broadcast along it); the join dimension is renumbered around it."""
        d = next(d for d in dims if d is not None)
        xs = [b.matchaxis(x, xd, d) for x, xd in zip(args, dims)]
        return [b.concatenate(*xs, dimension=dimension + (dimension >= d))], [d]


class Pad(Linear, Op):
    """Pads with a rank-0 ``padding_value``: ``edge_padding_low/high`` elements at each end
    (negative values crop) and ``interior_padding`` elements between neighbours.

        %y = "irax.pad"(%x, %v) {edge_padding_low = array<i64: 1>,
               edge_padding_high = array<i64: -1>, interior_padding = array<i64: 1>}
               : (tensor<3xf32>, tensor<f32>) -> tensor<5xf32>
    """

    name = "irax.pad"

    shard = classmethod(S.untouched(lambda a, *, edge_padding_low, edge_padding_high,
                                    interior_padding: [
        d for d in range(a.ndim)
        if not (edge_padding_low[d] or edge_padding_high[d] or interior_padding[d])]))
    num_operands = 2
    attributes = {"edge_padding_low": A.I64Array, "edge_padding_high": A.I64Array,
                  "interior_padding": A.I64Array}
    raises_from = "stablehlo.pad"

    @classmethod
    def raise_attrs(cls, op):
        return {key: R.i64s(op, key) for key in cls.attributes}

    @classmethod
    def infer(cls, x, padding_value, *, edge_padding_low, edge_padding_high, interior_padding):
        if padding_value.shape != () or padding_value.dtype != x.dtype:
            raise OpError(f"expected a rank-0 padding value of dtype {x.dtype}, but got "
                          f"{padding_value.str_short()}")
        check_length(edge_padding_low, x.ndim, "edge_padding_low")
        check_length(edge_padding_high, x.ndim, "edge_padding_high")
        check_length(interior_padding, x.ndim, "interior_padding")
        if any(p < 0 for p in interior_padding):
            raise OpError(f"expected non-negative interior_padding, but got "
                          f"{list(interior_padding)}")
        shape = [lo + hi + d + max(d - 1, 0) * mid for d, lo, hi, mid in
                 zip(x.shape, edge_padding_low, edge_padding_high, interior_padding)]
        if any(d < 0 for d in shape):
            raise OpError(f"expected the padded shape to be non-negative, but got {shape}")
        return ShapedArray(shape, x.dtype, weak_of(x, padding_value))

    @classmethod
    def evaluate(cls, x, padding_value, *, edge_padding_low, edge_padding_high,
                 interior_padding):
        # Interior padding first, then edges with non-negative amounts, then cropping.
        full = [max(d - 1, 0) * (mid + 1) + min(d, 1) for d, mid in zip(x.shape, interior_padding)]
        grown = [f + max(lo, 0) + max(hi, 0)
                 for f, lo, hi in zip(full, edge_padding_low, edge_padding_high)]
        out = np.full(grown, padding_value, dtype=x.dtype)
        place = tuple(slice(max(lo, 0), max(lo, 0) + f, mid + 1)
                      for lo, f, mid in zip(edge_padding_low, full, interior_padding))
        out[place] = x
        crop = tuple(slice(max(-lo, 0), g - max(-hi, 0))
                     for lo, hi, g in zip(edge_padding_low, edge_padding_high, grown))
        return out[crop]

    @classmethod
    def lower(cls, lb, x, padding_value, *, edge_padding_low, edge_padding_high,
              interior_padding):
        return lb.op("stablehlo.pad", [x, padding_value],
                     edge_padding_low=lb.i64s(edge_padding_low),
                     edge_padding_high=lb.i64s(edge_padding_high),
                     interior_padding=lb.i64s(interior_padding))

    @classmethod
    def transpose(cls, b, ct, x, padding_value, *, edge_padding_low, edge_padding_high,
                  interior_padding):
        """Operand: undo the edges (a pad by their negation, which also restores cropped
        elements as zeros), then keep every ``interior + 1``-th element. Padding value: what
        of ``ct`` the operand did not take."""
        ndim = len(interior_padding)
        zero = b.zeros(ShapedArray((), b.aval(ct).dtype))
        unpadded = b.pad(ct, zero, edge_padding_low=[-lo for lo in edge_padding_low],
                         edge_padding_high=[-hi for hi in edge_padding_high],
                         interior_padding=[0] * ndim)
        ct_x = b.slice(unpadded, start_indices=[0] * ndim, limit_indices=b.aval(unpadded).shape,
                       strides=[mid + 1 for mid in interior_padding])
        if not b.is_linear(padding_value):
            return ct_x, None
        everything = tuple(range(ndim))
        ct_v = b.sub(b.reduce_sum(ct, axes=everything), b.reduce_sum(ct_x, axes=everything))
        return (ct_x if b.is_linear(x) else None), ct_v

    @classmethod
    def batch(cls, b, args, dims, *, edge_padding_low, edge_padding_high, interior_padding):
        """The batch dim gets no padding. A batched padding value (rank 0 per example)
        cannot be an operand of one pad: pad with zero, then select the value wherever a
        pad of ``True`` with ``False`` (the same layout) has padding."""
        (x, v), (d, vd) = args, dims
        if vd is None:
            return [b.pad(x, v, edge_padding_low=insert_at(edge_padding_low, d, 0),
                          edge_padding_high=insert_at(edge_padding_high, d, 0),
                          interior_padding=insert_at(interior_padding, d, 0))], [d]
        x, v = b.to_front(x, d), b.to_front(v, vd)
        xa = b.aval(x)
        low, high, mid = ((0, *p) for p in (edge_padding_low, edge_padding_high,
                                              interior_padding))
        padded = b.pad(x, b.full(ShapedArray((), xa.dtype), 0), edge_padding_low=low,
                       edge_padding_high=high, interior_padding=mid)
        inside = b.pad(b.full(ShapedArray(xa.shape[1:], np.bool_), True),
                       b.full(ShapedArray((), np.bool_), False), edge_padding_low=low[1:],
                       edge_padding_high=high[1:], interior_padding=mid[1:])
        out = b.aval(padded).shape
        mask = b.broadcast_in_dim(inside, shape=out, broadcast_dimensions=tuple(range(1, len(out))))
        fill = b.broadcast_in_dim(v, shape=out, broadcast_dimensions=(0,))
        return [b.select(mask, padded, fill)], [0]


class Reverse(Linear, Op):
    """Reverses the order of elements along ``dimensions``.

        %y = "irax.reverse"(%x) {dimensions = array<i64: 0>} : (tensor<3xf32>) -> tensor<3xf32>
    """

    name = "irax.reverse"

    shard = classmethod(S.untouched(lambda a, *, dimensions: [
        d for d in range(a.ndim) if d not in dimensions]))
    num_operands = 1
    attributes = {"dimensions": A.I64Array}
    raises_from = "stablehlo.reverse"

    @classmethod
    def raise_attrs(cls, op):
        return {"dimensions": R.i64s(op, "dimensions")}

    @classmethod
    def infer(cls, x, *, dimensions):
        check_dims(dimensions, x.ndim, "dimensions")
        return x

    @classmethod
    def evaluate(cls, x, *, dimensions):
        return np.flip(x, dimensions) if dimensions else x

    @classmethod
    def lower(cls, lb, x, *, dimensions):
        return lb.op("stablehlo.reverse", [x], dimensions=lb.i64s(dimensions))

    @classmethod
    def transpose(cls, b, ct, x, *, dimensions):
        return (b.reverse(ct, dimensions=dimensions),)

    @classmethod
    def batch(cls, b, args, dims, *, dimensions):
        (x,), (d,) = args, dims
        return [b.reverse(x, dimensions=shift_dims(dimensions, d))], [d]


class DimensionSize(Op):
    """The size of axis ``dimension`` of ``x`` as a scalar of ``dtype``: how a symbolic
    size (``core/shape_poly.py``) becomes a value (``x.sum() / x.shape[0]``).

        %n = "irax.dimension_size"(%x) {dimension = 0 : i64, dtype = i32}
               : (tensor<?x3xf32, ["b"]>) -> tensor<i32>
    """

    name = "irax.dimension_size"
    shard = classmethod(S.replicated)
    num_operands = 1
    attributes = {"dimension": A.I64, "dtype": A.DType}
    differentiable = False

    @classmethod
    def infer(cls, x, *, dimension, dtype):
        if not 0 <= dimension < x.ndim:
            raise OpError(f"expected dimension in [0, {x.ndim}), but got {dimension}")
        if dtype.kind not in "iu":
            raise OpError(f"expected an integer dtype, but got {dtype}")
        return ShapedArray((), dtype, weak_type=True)

    @classmethod
    def evaluate(cls, x, *, dimension, dtype):
        return np.asarray(x.shape[dimension], dtype)

    @classmethod
    def fold(cls, operands, consts, results, *, dimension, dtype):
        """A static size is a constant."""
        size = mlir.aval_of(operands[0]).shape[dimension]
        return [np.asarray(size, dtype)] if type(size) is int else None

    @classmethod
    def lower(cls, lb, x, *, dimension, dtype):
        size = lb.op("stablehlo.get_dimension_size", [x], ShapedArray((), np.int32),
                     dimension=lb.i64(dimension))
        return size if dtype == np.int32 else lb.op("stablehlo.convert", [size])

    @classmethod
    def batch(cls, b, args, dims, *, dimension, dtype):
        """Every example has the same sizes: the batch axis is skipped, the result is not
        mapped."""
        (x,), (d,) = args, dims
        return [b.dimension_size(x, dimension=dimension + (d <= dimension),
                                 dtype=dtype)], [None]
