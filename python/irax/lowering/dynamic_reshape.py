"""``stablehlo.dynamic_reshape`` as tensor ops, for IREE 3.13 (``irax-legalize-iree``).

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


def _count(t) -> int:
    n = 1
    for d in t.shape:
        n *= d
    return n
