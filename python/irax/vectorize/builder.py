"""``BatchBuilder``: what batching rules are written with.

A batched value is an IR value plus its batch dimension (``None`` when the value does not
depend on the mapped axis). Rules move and materialize batch dimensions with these
helpers, then emit ordinary irax ops:

    class Neg(ElementwiseUnary):     # inherited family rule
        def batch(cls, b, args, dims):
            return [b.neg(args[0])], dims
"""

from __future__ import annotations

from irax.core.abstract import ShapedArray
from irax.dialect import mlir
from irax.dialect.builder import OpMethods


class BatchBuilder(OpMethods):
    def __init__(self, ir_builder, ctx, axis_size: int, axis_name: str):
        self.ir = ir_builder
        self.ctx = ctx
        self.axis_size = axis_size
        self.axis_name = axis_name

    @staticmethod
    def aval(v) -> ShapedArray:
        return mlir.aval_of(v)

    def emit(self, op_cls, operands, result_avals=None, **attrs) -> list:
        results, _, _ = self.ir.emit(op_cls, list(operands), result_avals=result_avals,
                                     **attrs)
        return results

    def emit_values(self, op_cls, operands, **attrs) -> list:
        return self.emit(op_cls, operands, **attrs)

    # ---- batch dimensions -------------------------------------------------------------------
    def moveaxis(self, x, src: int, dst: int):
        """``x`` with axis ``src`` moved to position ``dst``."""
        if src == dst:
            return x
        rank = self.aval(x).ndim
        order = [d for d in range(rank) if d != src]
        order.insert(dst, src)
        return self.transpose(x, permutation=tuple(order))

    def broadcast_axis(self, x, at: int, size: int | None = None):
        """``x`` with a new axis of ``size`` (default: the mapped size) inserted at ``at``."""
        a = self.aval(x)
        size = self.axis_size if size is None else size
        shape = list(a.shape)
        shape.insert(at, size)
        dims = tuple(d if d < at else d + 1 for d in range(a.ndim))
        return self.broadcast_in_dim(x, shape=tuple(shape), broadcast_dimensions=dims)

    def matchaxis(self, x, dim: int | None, to: int):
        """``x`` with its batch dimension at ``to`` (materialized when ``dim`` is None)."""
        if dim is None:
            return self.broadcast_axis(x, to)
        return self.moveaxis(x, dim, to)

    def to_front(self, x, dim: int | None):
        """``x`` with its batch dimension first (materialized when ``dim`` is None)."""
        return self.matchaxis(x, dim, 0)
