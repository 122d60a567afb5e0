"""Constants and index generators.

    %c = "irax.constant"() {value = dense<1.0> : tensor<3xf32>} : () -> tensor<3xf32>
    %i = "irax.iota"() {shape = array<i64: 2, 3>, dtype = i32, dimension = 1}
           : () -> tensor<2x3xi32>
"""

from __future__ import annotations

import numpy as np

from irax.core.abstract import ShapedArray
from irax.core.shape_poly import is_static
from irax.dialect import attrs as A
from irax.dialect import raising as R
from irax.dialect import sharding as S
from irax.dialect.base import Op, OpError


def _never_batched(cls, b, args, dims, **attrs):
    """An op without operands does not depend on the mapped axis: irax-vectorize copies it
    unchanged and never calls this rule; callers that ask anyway get that copy."""
    return b.emit(cls, [], **attrs), [None]


class Constant(Op):
    """A literal tensor. Non-differentiable (a constant has no tangent)."""

    name = "irax.constant"
    shard = classmethod(S.replicated)
    num_operands = 0
    attributes = {"value": A.Dense}
    differentiable = False
    constant_like = True
    raises_from = "stablehlo.constant"

    @classmethod
    def raise_attrs(cls, op):
        return {"value": R.dense_value(op)}

    @classmethod
    def infer(cls, *, value):
        return ShapedArray(value.shape, value.dtype)

    @classmethod
    def evaluate(cls, *, value):
        return value

    @classmethod
    def lower(cls, lb, *, value):
        return lb.constant(value)

    batch = classmethod(_never_batched)


class Iota(Op):
    """Indices along one dimension of a new array (``lax.broadcasted_iota``)."""

    name = "irax.iota"
    shard = classmethod(S.replicated)
    num_operands = 0
    attributes = {"shape": A.I64Array, "dtype": A.DType, "dimension": A.I64}
    differentiable = False
    raises_from = "stablehlo.iota"

    @classmethod
    def raise_attrs(cls, op):
        out = R.result_aval(op)
        return {"shape": out.shape, "dtype": out.dtype, "dimension": R.i64(op, "iota_dimension")}

    @classmethod
    def infer(cls, *, shape, dtype, dimension):
        if not 0 <= dimension < len(shape):
            raise OpError(f"iota dimension {dimension} is out of range for rank {len(shape)}")
        if any(d < 0 for d in shape):
            raise OpError(f"expected non-negative dimensions, got {list(shape)}")
        if dtype.kind not in "iuf" and dtype.name != "bfloat16":
            raise OpError(f"expected an integer or floating-point dtype, got {dtype}")
        return ShapedArray(shape, dtype)

    @classmethod
    def evaluate(cls, *, shape, dtype, dimension):
        idx = np.arange(shape[dimension]).reshape(
            [-1 if i == dimension else 1 for i in range(len(shape))])
        return np.broadcast_to(idx, shape).astype(dtype)

    @classmethod
    def lower(cls, lb, *, shape, dtype, dimension):
        if not is_static(shape):
            return lb.op("stablehlo.dynamic_iota", [lb.shape_value(shape)],
                         iota_dimension=lb.i64(dimension))
        return lb.op("stablehlo.iota", [], iota_dimension=lb.i64(dimension))

    batch = classmethod(_never_batched)
