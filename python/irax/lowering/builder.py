"""``LoweringBuilder``: what an op's ``lower`` rule uses to create StableHLO.

    def lower(cls, lb, x, y):
        return lb.op("stablehlo.add", [x, y])          # result type = the irax op's
"""

from __future__ import annotations

import numpy as np

from irax.core import dtypes
from irax.core.abstract import ShapedArray
from irax.dialect import mlir
from irax.dialect.attrs import Dense


class LoweringBuilder:
    def __init__(self, ip, loc, out_avals):
        self.ip = ip
        self.loc = loc
        self.out_avals = out_avals

    def at_end(self, block) -> LoweringBuilder:
        """A builder appending to ``block`` (a region's body), at this builder's location."""
        return LoweringBuilder(mlir.ir().InsertionPoint(block), self.loc, [])

    def type(self, aval: ShapedArray):
        return mlir.to_ir_type(aval)

    def attr(self, text: str):
        return mlir.ir().Attribute.parse(text, mlir.context())

    def i64s(self, values):
        return mlir.ir().DenseI64ArrayAttr.get([int(v) for v in values], context=mlir.context())

    def i64(self, value: int):
        ir = mlir.ir()
        return ir.IntegerAttr.get(ir.IntegerType.get_signless(64, mlir.context()), int(value))

    def create(self, name, operands, result_types, attributes=None, regions=0):
        return mlir.ir().Operation.create(
            name, results=list(result_types), operands=list(operands),
            attributes=attributes or {}, regions=regions, loc=self.loc, ip=self.ip)

    def op(self, name, operands, out=None, **attributes):
        """One StableHLO op with one result. ``out``: an aval, an IR type, or None for the
        irax op's (first) result type."""
        if out is None:
            out = self.out_avals[0]
        t = self.type(out) if isinstance(out, ShapedArray) else out
        return self.create(name, operands, [t], attributes).results[0]

    def compare(self, x, y, direction: str):
        """``stablehlo.compare`` of two values of one type, typed by their dtype: FLOAT for
        floating-point and complex values, UNSIGNED for unsigned integers and booleans,
        SIGNED for signed integers."""
        a = mlir.aval_of(x)
        kind = ("FLOAT" if dtypes.is_inexact(a.dtype) else
                "UNSIGNED" if dtypes.is_unsigned(a.dtype) or dtypes.is_bool(a.dtype) else
                "SIGNED")
        return self.op("stablehlo.compare", [x, y], ShapedArray(a.shape, np.bool_),
                       comparison_direction=self.attr(
                           f"#stablehlo<comparison_direction {direction}>"),
                       compare_type=self.attr(f"#stablehlo<comparison_type {kind}>"))

    def constant(self, value, dtype=None):
        arr = np.asarray(value, dtype=dtype)
        return self.create("stablehlo.constant", [], [self.type(ShapedArray(arr.shape, arr.dtype))],
                           {"value": Dense.encode(arr)}).results[0]

    def scalar_block(self, op, region_index: int, dtypes, n_args=2):
        """Adds the entry block of a scalar reducer/comparator region; returns the block and a
        builder positioned in it."""
        ir = mlir.ir()
        types = [self.type(ShapedArray((), d)) for d in dtypes]
        block = op.regions[region_index].blocks.append(*(types * (n_args // len(types))))
        return block, LoweringBuilder(ir.InsertionPoint(block), self.loc, [])

    def ret(self, values):
        self.create("stablehlo.return", values, [])


def builder_at(op) -> LoweringBuilder:
    """A builder that inserts before ``op``, at its location, typed by its results."""
    return LoweringBuilder(mlir.ir().InsertionPoint(op), op.location,
                           [mlir.aval_of(r) for r in op.results])


def replace_op(op, values) -> None:
    """Replaces every use of ``op``'s results by ``values`` and erases ``op``."""
    for old, new in zip(op.results, values):
        old.replace_all_uses_with(new)
    op.erase()
