"""Readers of StableHLO ops for the op classes' ``raise_attrs`` hooks
(``irax-raise-stablehlo``): attribute values as Python values, operand and result types,
and the shape of reducer regions.

    class Transpose(Op):
        raises_from = "stablehlo.transpose"

        @classmethod
        def raise_attrs(cls, op):     # %0 = stablehlo.transpose %x, dims = [1, 0]
            return {"permutation": R.i64s(op, "permutation")}      # -> (1, 0)
"""

from __future__ import annotations

import re

import numpy as np

from irax.core.abstract import ShapedArray
from irax.dialect import attrs, mlir
from irax.dialect.base import lookup


def result_aval(op, i: int = 0) -> ShapedArray:
    return mlir.aval_of(op.results[i])


def operand_aval(op, i: int = 0) -> ShapedArray:
    return mlir.aval_of(op.operands[i])


def i64(op, name: str) -> int:
    return mlir.ir().IntegerAttr(op.attributes[name]).value


def i64s(op, name: str) -> tuple[int, ...]:
    """``array<i64: 1, 0>`` -> ``(1, 0)``."""
    return tuple(mlir.ir().DenseI64ArrayAttr(op.attributes[name]))


def enum(op, name: str) -> str:
    """``#stablehlo<comparison_direction LT>`` -> ``"LT"``."""
    text = str(op.attributes[name])
    return text[text.rindex(" ") + 1:text.rindex(">")]


_FIELD = re.compile(r"(\w+)\s*=\s*(\[[^\]]*\]|-?\d+)")


def fields(op, name: str) -> dict:
    """The integer fields of a StableHLO struct attribute (absent fields are absent):
    ``#stablehlo.gather<offset_dims = [1], index_vector_dim = 1>`` ->
    ``{"offset_dims": (1,), "index_vector_dim": 1}``."""
    out = {}
    for key, value in _FIELD.findall(str(op.attributes[name])):
        if value.startswith("["):
            out[key] = tuple(int(v) for v in re.findall(r"-?\d+", value))
        else:
            out[key] = int(value)
    return out


def reducer(op, region: int = 0) -> str | None:
    """The name of the op a region applies to its two scalar arguments (``stablehlo.add``
    for a sum), or None for any other region."""
    blocks = list(op.regions[region].blocks)
    if len(blocks) != 1 or len(blocks[0].arguments) != 2:
        return None
    ops = [o.operation for o in blocks[0].operations]
    if len(ops) != 2 or ops[1].name != "stablehlo.return" or len(ops[0].operands) != 2:
        return None
    args, (combine, ret) = list(blocks[0].arguments), ops
    if set(combine.operands) != set(args) or list(ret.operands) != [combine.results[0]]:
        return None
    return combine.name


def dense_value(op, name: str = "value") -> np.ndarray:
    """A dense attribute as a NumPy array (complex ones are read from the op's text)."""
    return attrs.Dense.decode_from(op, name)


def constant_value(value) -> np.ndarray | None:
    """The value of a constant operand (a StableHLO or irax constant, possibly broadcast
    from a scalar), or None when it is not a constant."""
    if not isinstance(value, mlir.ir().OpResult):
        return None
    op = value.owner.operation
    cls = lookup(op.name)
    if op.name == "stablehlo.constant" or (cls is not None and cls.constant_like):
        return dense_value(op)
    if op.name == "stablehlo.broadcast_in_dim":
        inner = constant_value(op.operands[0])
        if inner is not None and inner.size == 1:
            return np.broadcast_to(inner.reshape(()), result_aval(op).shape)
    return None
