"""Builders that emit irax ops: used by the tracer, by rules and by passes alike.

    b = IRBuilder.at_end(block)
    y = b.add(x, b.mul(x, x))        # "irax.mul" then "irax.add", types inferred
"""

from __future__ import annotations

from irax.core.abstract import ShapedArray
from irax.dialect import mlir
from irax.dialect.base import Op, OpError, by_method


class OpMethods:
    """``b.<method>(*operands, **attrs)`` emits the op whose builder method is ``method``
    (``b.add(x, y)``, ``b.reduce_sum(x, axes=(0,))``) through ``emit_values``; shared by
    every builder (IR, autodiff, batching)."""

    def emit_values(self, op_cls, operands, **attrs) -> list:
        raise NotImplementedError

    def __getattr__(self, method: str):
        op_cls = by_method(method)
        if op_cls is None:
            raise AttributeError(f"no irax op with builder method {method!r}")

        def build(*operands, **attrs):
            out = self.emit_values(op_cls, operands, **attrs)
            return out[0] if len(out) == 1 else out

        return build

    def full(self, aval: ShapedArray, value):
        """A tensor of ``aval``'s shape and dtype filled with ``value`` (a broadcast scalar)."""
        import numpy as np

        scalar = self.constant(value=np.asarray(value, dtype=aval.dtype))
        if aval.shape == ():
            return scalar
        return self.broadcast_in_dim(scalar, shape=aval.shape, broadcast_dimensions=())

    def full_like(self, v, value):
        """``full`` with the shape and dtype of ``v``."""
        return self.full(self.aval(v), value)


class IRBuilder(OpMethods):
    """Emits irax ops at an insertion point, inferring result types with each op's rule."""

    def __init__(self, ip, loc=None):
        self.ip = ip
        self.loc = loc or mlir.unknown_loc()

    @classmethod
    def at_end(cls, block, loc=None) -> IRBuilder:
        return cls(mlir.ir().InsertionPoint(block), loc)

    @classmethod
    def before(cls, operation, loc=None) -> IRBuilder:
        return cls(mlir.ir().InsertionPoint(operation), loc)

    def emit(self, op_cls: type[Op], operands, avals=None, regions: int = 0,
             result_avals=None, **attrs):
        """Creates one op; returns ``(results, result_avals, operation)``.

        ``avals`` are the operands' abstract values when the caller knows them (with weak
        types); otherwise they are read from the operands' IR types.
        """
        if avals is None:
            avals = [mlir.aval_of(v) for v in operands]
        try:
            attrs = op_cls.normalize_attrs(attrs)
            out_avals = (list(result_avals) if result_avals is not None
                         else op_cls.infer_list(avals, attrs))
        except OpError as e:
            raise OpError(op_cls.diag(str(e))) from None
        ir = mlir.ir()
        op = ir.Operation.create(
            op_cls.name, results=[mlir.to_ir_type(a) for a in out_avals], operands=list(operands),
            attributes=op_cls.encode_attrs(attrs), regions=regions or op_cls.num_regions,
            loc=self.loc, ip=self.ip)
        return list(op.results), out_avals, op

    def emit_values(self, op_cls, operands, **attrs) -> list:
        return self.emit(op_cls, operands, **attrs)[0]

    @staticmethod
    def aval(v) -> ShapedArray:
        return mlir.aval_of(v)

    def constant(self, value, dtype=None):
        """An ``irax.constant`` holding ``value`` (a NumPy array or scalar)."""
        import numpy as np

        return self.emit_values(by_method("constant"), [], value=np.asarray(value, dtype=dtype))[0]


def aval(value) -> ShapedArray:
    return mlir.aval_of(value)
