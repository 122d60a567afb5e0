"""``LoweringBuilder``: what an op's ``lower`` rule uses to create StableHLO.

    def lower(cls, lb, x, y):
        return lb.op("stablehlo.add", [x, y])          # result type = the irax op's
"""

from __future__ import annotations

import numpy as np

from irax.core import dtypes
from irax.core.abstract import ShapedArray
from irax.core.shape_poly import ANONYMOUS, Dim
from irax.dialect import mlir
from irax.dialect.attrs import Dense
from irax.dialect.base import OpError
from irax.dialect.upstream import is_function

_I64 = ShapedArray((), np.int64)


class LoweringBuilder:
    def __init__(self, ip, loc, out_avals, like=None):
        self.ip = ip
        self.loc = loc
        self.out_avals = out_avals
        #: a value of the op being rewritten, whose dynamic sizes ``full`` copies
        self.like = like

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

    def full(self, shape, value, dtype):
        """A tensor of ``shape`` filled with ``value``: a constant, or for dynamic sizes
        (``?``) a broadcast scalar sized like ``self.like`` (the rewritten op's operand)."""
        if all(type(d) is not Dim for d in shape):
            return self.constant(np.full(shape, value, dtype))
        return self.splat(self.constant(np.asarray(value, dtype)), ShapedArray(shape, dtype))

    def splat(self, scalar, aval):
        """The scalar value ``scalar`` broadcast to ``aval`` (dynamically for dynamic
        sizes, whose operand dims then expand: none, a scalar has none)."""
        if aval.is_static:
            return self.op("stablehlo.broadcast_in_dim", [scalar], aval,
                           broadcast_dimensions=self.i64s([]))
        return self.op("stablehlo.dynamic_broadcast_in_dim", [scalar, self._sizes(aval.shape)],
                       aval, broadcast_dimensions=self.i64s([]),
                       known_expanding_dimensions=self.i64s([]),
                       known_nonexpanding_dimensions=self.i64s([]))

    def iota(self, aval, dimension: int):
        """``stablehlo.iota`` of ``aval`` (``dynamic_iota`` when its sizes are dynamic)."""
        if aval.is_static:
            return self.op("stablehlo.iota", [], aval, iota_dimension=self.i64(dimension))
        return self.op("stablehlo.dynamic_iota", [self._sizes(aval.shape)], aval,
                       iota_dimension=self.i64(dimension))

    def _sizes(self, shape):
        """The ``tensor<Nxi64>`` of a dynamic ``shape``: from the names of its sizes while
        irax's types carry them (``shape_value``), else from ``self.like``."""
        if not any(d == ANONYMOUS for d in shape):
            return self.shape_value(shape)
        like = self.like
        if like is None or len(mlir.aval_of(like).shape) != len(shape):
            raise OpError(f"expected a value of rank {len(shape)} to size a dynamically "
                          "shaped result")
        return self.sizes_of(like, shape)

    def sizes_of(self, like, shape):
        """A ``tensor<Nxi64>`` of ``shape``, whose dynamic sizes are those of ``like`` at the
        same positions (``shape`` may extend ``like``'s with static sizes)."""
        return self.vector([self._size_of(like, k) if type(d) is Dim
                            else self.constant(np.int64(d)) for k, d in enumerate(shape)])

    def _size_of(self, value, k: int):
        """``tensor<i64>``: the size of axis ``k`` of ``value`` at run time."""
        size = self.op("stablehlo.get_dimension_size", [value], ShapedArray((), np.int32),
                       dimension=self.i64(k))
        return self.op("stablehlo.convert", [size], _I64)

    def constant(self, value, dtype=None):
        arr = np.asarray(value, dtype=dtype)
        return self.create("stablehlo.constant", [], [self.type(ShapedArray(arr.shape, arr.dtype))],
                           {"value": Dense.encode(arr)}).results[0]

    # ---- symbolic sizes (core/shape_poly.py) -------------------------------------------
    def dim_value(self, d):
        """A ``tensor<i64>`` holding size ``d`` (an int, or a ``Dim`` computed from the
        sizes of the enclosing function's arguments with ``get_dimension_size``)."""
        if type(d) is not Dim:
            return self.constant(np.int64(d))
        total = None
        for mono, coeff in d.terms.items():
            term = self.constant(np.int64(coeff)) if coeff != 1 or not mono else None
            for name in mono:
                v = self._symbol_value(name)
                term = v if term is None else self.op("stablehlo.multiply", [term, v], _I64)
            total = term if total is None else self.op("stablehlo.add", [total, term], _I64)
        return total

    def shape_value(self, shape):
        """A ``tensor<Nxi64>`` holding ``shape`` (the operand of StableHLO's dynamic ops)."""
        return self.vector([self.dim_value(d) for d in shape])

    def vector(self, scalars):
        """A ``tensor<Nxi64>`` of ``tensor<i64>`` scalars."""
        one = ShapedArray((1,), np.int64)
        parts = [self.op("stablehlo.reshape", [v], one) for v in scalars]
        if len(parts) == 1:
            return parts[0]
        return self.op("stablehlo.concatenate", parts, ShapedArray((len(parts),), np.int64),
                       dimension=self.i64(0))

    def _symbol_value(self, name: str):
        func = self.ip.block.owner
        while func is not None and not is_function(func):
            func = func.operation.parent
        if func is not None:
            for arg in func.regions[0].blocks[0].arguments:
                shape = mlir.aval_of_type(arg.type).shape
                for k, d in enumerate(shape):
                    if type(d) is Dim and d.symbol_name == name:
                        return self._size_of(arg, k)
        raise OpError(f"expected the symbolic size {name!r} to be the size of an axis of "
                      "an argument of the enclosing function")

    def scalar_block(self, op, region_index: int, dtypes, n_args=2):
        """Adds the entry block of a scalar reducer/comparator region; returns the block and a
        builder positioned in it."""
        ir = mlir.ir()
        types = [self.type(ShapedArray((), d)) for d in dtypes]
        block = op.regions[region_index].blocks.append(*(types * (n_args // len(types))))
        return block, LoweringBuilder(ir.InsertionPoint(block), self.loc, [])

    def ret(self, values):
        self.create("stablehlo.return", values, [])

    def reduce(self, x, init, dims, combiner: str, out: ShapedArray):
        """``stablehlo.reduce`` of ``x`` from ``init`` over ``dims``, its region applying
        the binary StableHLO op ``combiner`` (``"stablehlo.add"`` for a sum)."""
        op = self.create("stablehlo.reduce", [x, init], [self.type(out)],
                         {"dimensions": self.i64s(dims)}, regions=1)
        block, body = self.scalar_block(op, 0, [out.dtype])
        body.ret([body.op(combiner, list(block.arguments), ShapedArray((), out.dtype))])
        return op.results[0]


def builder_at(op) -> LoweringBuilder:
    """A builder that inserts before ``op``, at its location, typed by its results (its
    first operand sizes the dynamically shaped constants of ``full``)."""
    return LoweringBuilder(mlir.ir().InsertionPoint(op), op.location,
                           [mlir.aval_of(r) for r in op.results],
                           like=op.operands[0] if len(op.operands) else None)


def replace_op(op, values) -> None:
    """Replaces every use of ``op``'s results by ``values`` and erases ``op``."""
    for old, new in zip(op.results, values):
        old.replace_all_uses_with(new)
    op.erase()
