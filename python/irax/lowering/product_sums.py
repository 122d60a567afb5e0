"""Sums over several dimensions of a product, split in two (an IREE 3.13 workaround).

IREE 3.13 fuses a ``stablehlo.reduce`` summing several dimensions of a product, keeping
some, into one "matvec_like" contraction, and fails to vectorize it for small kept sizes
when an operand is broadcast along a summed dimension ("'vector.contract' op invalid
accumulator/result vector shape": ``jnp.sum(a * b, axis=(0, 1))`` of f32[8,2,8] and
f32[2,8]). Summed over the largest summed dimension first, then over the rest, each sum
compiles::

    %p = stablehlo.multiply %a, %bb : tensor<8x2x8xf32>
    %s = stablehlo.reduce(%p init: %0) applies stablehlo.add across dimensions = [0, 1]
becomes
    %t = stablehlo.reduce(%p init: %0) applies stablehlo.add across dimensions = [0]
    %s = stablehlo.reduce(%t init: %0) applies stablehlo.add across dimensions = [0]
"""

from __future__ import annotations

from irax.core.abstract import ShapedArray
from irax.dialect import mlir
from irax.dialect import raising as R
from irax.dialect import upstream as U
from irax.dialect.upstream import op_class
from irax.lowering.builder import builder_at, replace_op


class StableHLOMultiply(U.UpstreamOp):
    name = "stablehlo.multiply"


class StableHLOSlice(U.UpstreamOp):
    name = "stablehlo.slice"


def _producer(value):
    """The class of the op that defines ``value`` (None for a block argument)."""
    return op_class(value.owner) if hasattr(value.owner, "operation") else None


def split_product_sum(op) -> bool:
    """Splits ``op``, a ``stablehlo.reduce``, when it is a one-result sum over several
    dimensions, keeping some, of a product (or a slice of one) of static shape; returns
    whether it did."""
    if len(op.results) != 1 or len(op.operands) != 2 or \
            R.reducer(op) != U.StableHLOAdd.name:
        return False
    dims = R.i64s(op, "dimensions")
    x, init = op.operands
    source = x
    while _producer(source) is StableHLOSlice:
        source = source.owner.operands[0]
    if len(dims) < 2 or _producer(source) is not StableHLOMultiply:
        return False
    aval, out = mlir.aval_of(x), mlir.aval_of(op.results[0])
    if not aval.is_static or out.ndim == 0:
        return False
    first = max(dims, key=lambda d: aval.shape[d])
    lb = builder_at(op)
    part = ShapedArray(tuple(n for d, n in enumerate(aval.shape) if d != first), out.dtype)
    y = lb.reduce(x, init, [first], "stablehlo.add", part)
    rest = [d - (d > first) for d in dims if d != first]
    replace_op(op, [lb.reduce(y, init, rest, "stablehlo.add", out)])
    return True
