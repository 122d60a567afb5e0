"""Bitcast: ``irax.bitcast_convert``, an array's bits read as another dtype
(``jax.lax.bitcast_convert_type``; ``x.view(dtype)``).

    %y = "irax.bitcast_convert"(%x) {new_dtype = i32} : (tensor<3xf32>) -> tensor<3xi32>
    %y = "irax.bitcast_convert"(%x) {new_dtype = ui8} : (tensor<3xf32>) -> tensor<3x4xui8>

A narrower dtype adds a trailing dim (the element's parts, in memory order); a wider one
removes a trailing dim of that size. Bool and complex dtypes are refused (as JAX's).
"""

from __future__ import annotations

import numpy as np

from irax.core import dtypes
from irax.core.abstract import ShapedArray
from irax.dialect import attrs as A
from irax.dialect import raising as R
from irax.dialect import sharding as S
from irax.dialect.base import Op, OpError


def _bits(dt) -> int:
    return dtypes.itemsize_bits(np.dtype(dt))


class BitcastConvert(Op):
    """StableHLO bitcast_convert: the same bits as ``new_dtype``; the trailing dim grows or
    shrinks by the ratio of the item sizes."""

    name = "irax.bitcast_convert"
    shard = classmethod(S.replicated)
    num_operands = 1
    attributes = {"new_dtype": A.DType}
    raises_from = "stablehlo.bitcast_convert"
    differentiable = False

    @classmethod
    def raise_attrs(cls, op):
        return {"new_dtype": R.result_aval(op).dtype}

    @classmethod
    def infer(cls, x, *, new_dtype):
        new_dtype = np.dtype(new_dtype)
        for dt in (x.dtype, new_dtype):
            if dt == np.bool_ or dtypes.is_complex(dt):
                raise OpError(f"expected a non-bool, non-complex dtype, but got "
                              f"{dtypes.short_name(dt)}")
        a, b = _bits(x.dtype), _bits(new_dtype)
        if a == b:
            return ShapedArray(x.shape, new_dtype)
        if a > b:
            return ShapedArray((*x.shape, a // b), new_dtype)
        if not x.shape or x.shape[-1] != b // a:
            raise OpError(f"expected a trailing dim of {b // a} to bitcast "
                          f"{x.str_short()} to {dtypes.short_name(new_dtype)}")
        return ShapedArray(x.shape[:-1], new_dtype)

    @classmethod
    def evaluate(cls, x, *, new_dtype):
        out = cls.infer(ShapedArray(x.shape, x.dtype), new_dtype=new_dtype)
        return np.ascontiguousarray(x).view(new_dtype).reshape(out.shape)

    @classmethod
    def lower(cls, lb, x, *, new_dtype):
        return lb.op("stablehlo.bitcast_convert", [x])

    @classmethod
    def batch(cls, b, args, dims, *, new_dtype):
        """Only the trailing dim changes: the batch dim moves to the front."""
        x = b.matchaxis(args[0], dims[0], 0)
        return b.emit(cls, [x], new_dtype=new_dtype), [0]
