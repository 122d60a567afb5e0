"""Dynamically shaped StableHLO that IREE 3.13 cannot convert, as tensor ops
(``irax-legalize-iree``): ``stablehlo.dynamic_reshape`` and a ``dynamic_update_slice``
into an operand of dynamic sizes.

IREE 3.13 marks ``stablehlo.dynamic_reshape`` illegal and never converts it ("failed to
legalize operation 'stablehlo.dynamic_reshape'"), whatever its shape operand. Its
``tensor.collapse_shape`` / ``tensor.expand_shape`` compile with dynamic sizes, so a
row-major reshape becomes a collapse to one dimension and an expansion to the result's
sizes, read from the shape operand:

Before:
    %y = stablehlo.dynamic_reshape %x, %s : (tensor<?x3xf32>, tensor<2xi64>) -> tensor<?x6xf32>
After:
    %f = tensor.collapse_shape %x [[0, 1]] : tensor<?x3xf32> into tensor<?xf32>
    %c0 = arith.constant 0 : index
    %e = tensor.extract %s[%c0] : tensor<2xi64>
    %d = arith.index_cast %e : i64 to index
    %y = tensor.expand_shape %f [[0, 1]] output_shape [%d, 6] : tensor<?xf32> into tensor<?x6xf32>
"""

from __future__ import annotations

import numpy as np

from irax.core.abstract import ShapedArray
from irax.dialect import mlir
from irax.dialect.upstream import UpstreamOp
from irax.lowering.builder import builder_at, replace_op


class StableHLODynamicReshape(UpstreamOp):
    """``stablehlo.dynamic_reshape`` (rewritten by ``legalize_dynamic_reshape``)."""

    name = "stablehlo.dynamic_reshape"


def _reassociation(rank: int):
    ir = mlir.ir()
    i64 = ir.IntegerType.get_signless(64)
    return ir.ArrayAttr.get([ir.ArrayAttr.get([ir.IntegerAttr.get(i64, k) for k in range(rank)])])


def legalize_dynamic_reshape(op) -> None:
    """Rewrites one ``stablehlo.dynamic_reshape`` (module docstring)."""
    ir = mlir.ir()
    x, shape = op.operands
    src = ir.RankedTensorType(x.type)
    out = ir.RankedTensorType(op.results[0].type)
    lb = builder_at(op)
    flat = x
    if src.rank != 1:
        n = _count(src) if src.has_static_shape else ir.ShapedType.get_dynamic_size()
        flat_type = ir.RankedTensorType.get([n], src.element_type)
        flat = lb.create("tensor.collapse_shape", [x], [flat_type],
                         {"reassociation": _reassociation(src.rank)}).results[0]
    if out.rank == 1:
        result = flat if flat.type == out else lb.create("tensor.cast", [flat], [out]).results[0]
        replace_op(op, [result])
        return
    index = ir.IndexType.get()
    sizes = []
    for k in range(out.rank):
        if not out.is_dynamic_dim(k):
            continue
        at = lb.create("arith.constant", [], [index],
                       {"value": ir.IntegerAttr.get(index, k)}).results[0]
        e = lb.create("tensor.extract", [shape, at],
                      [ir.RankedTensorType(shape.type).element_type]).results[0]
        sizes.append(lb.create("arith.index_cast", [e], [index]).results[0])
    static = ir.DenseI64ArrayAttr.get(list(out.shape))
    result = lb.create("tensor.expand_shape", [flat, *sizes], [out],
                       {"reassociation": _reassociation(out.rank),
                        "static_output_shape": static}).results[0]
    replace_op(op, [result])


class StableHLODynamicUpdateSlice(UpstreamOp):
    """``stablehlo.dynamic_update_slice`` (rewritten by ``legalize_dynamic_update_slice``)."""

    name = "stablehlo.dynamic_update_slice"


def legalize_dynamic_update_slice(op) -> None:
    """An update written into an operand of dynamic sizes as ``tensor.insert_slice`` at
    the clamped starts (StableHLO's semantics: each start is clamped to
    ``[0, dim - update_dim]``), for an update of static shape; IREE 3.13 converts only the
    static form.

        %y = stablehlo.dynamic_update_slice %x, %u, %i, %j
          : (tensor<?x4xf32>, tensor<1x4xf32>, tensor<i32>, tensor<i32>) -> tensor<?x4xf32>
    becomes clamps of %i, %j, their ``index`` casts, and
        %y = tensor.insert_slice %u into %x[%i2, %j2] [1, 4] [1, 1]
    """
    ir = mlir.ir()
    x, update, *starts = op.operands
    xt, ut = ir.RankedTensorType(x.type), ir.RankedTensorType(update.type)
    if xt.has_static_shape or not ut.has_static_shape:
        # an update of dynamic size as insert_slice with dynamic sizes crashed IREE 3.13's
        # compiler (a segfault, in a while loop's gradient tape): left as it is, IREE
        # then says it cannot convert it
        return
    lb = builder_at(op)
    index = ir.IndexType.get()

    def size_of(v, k, a):
        size = lb.op("stablehlo.get_dimension_size", [v], ShapedArray((), np.int32),
                     dimension=lb.i64(k))
        return lb.op("stablehlo.convert", [size], a)

    def as_index(v, element):
        e = lb.create("tensor.extract", [v], [element]).results[0]
        return lb.create("arith.index_cast", [e], [index]).results[0]

    offsets, sizes = [], []
    for k, s in enumerate(starts):
        a = mlir.aval_of(s)
        element = ir.RankedTensorType(s.type).element_type
        dynamic = ut.is_dynamic_dim(k)
        usize = size_of(update, k, a) if dynamic else \
            lb.constant(np.asarray(ut.shape[k], a.dtype))
        top = lb.op("stablehlo.subtract", [size_of(x, k, a), usize], a)
        clamped = lb.op("stablehlo.clamp", [lb.constant(np.zeros((), a.dtype)), s, top], a)
        offsets.append(as_index(clamped, element))
        if dynamic:
            sizes.append(as_index(usize, element))
    dyn = ir.ShapedType.get_dynamic_stride_or_offset()
    rank = xt.rank
    result = lb.create("tensor.insert_slice", [update, x, *offsets, *sizes], [x.type], {
        "operandSegmentSizes": ir.DenseI32ArrayAttr.get([1, 1, rank, len(sizes), 0]),
        "static_offsets": ir.DenseI64ArrayAttr.get([dyn] * rank),
        "static_sizes": ir.DenseI64ArrayAttr.get(list(ut.shape)),
        "static_strides": ir.DenseI64ArrayAttr.get([1] * rank)}).results[0]
    replace_op(op, [result])


def implicit_index_vector(lb, indices, ivd: int):
    """Gather indices of dynamic size whose last dim is an index vector of one entry,
    without that dim (``index_vector_dim`` equal to the rank then means the same): IREE
    3.13 lowers the explicit form of dynamic size through a static-only
    ``stablehlo.reshape`` ("result #0 must be statically shaped"), an embedding lookup
    ``table[ids]`` with ids of symbolic length included.

        tensor<?x1xi32>  ->  tensor.collapse_shape [[0, 1]]  ->  tensor<?xi32>
    """
    ir = mlir.ir()
    t = ir.RankedTensorType(indices.type)
    if t.has_static_shape or ivd != t.rank - 1 or t.is_dynamic_dim(ivd) or t.shape[ivd] != 1:
        return indices
    i64 = ir.IntegerType.get_signless(64)
    groups = [[k] for k in range(t.rank - 2)] + [[t.rank - 2, t.rank - 1]]
    reassociation = ir.ArrayAttr.get([ir.ArrayAttr.get([ir.IntegerAttr.get(i64, k) for k in g])
                                      for g in groups])
    out = ir.RankedTensorType.get(list(t.shape[:-1]), t.element_type)
    return lb.create("tensor.collapse_shape", [indices], [out],
                     {"reassociation": reassociation}).results[0]


def _count(t) -> int:
    n = 1
    for d in t.shape:
        n *= d
    return n
