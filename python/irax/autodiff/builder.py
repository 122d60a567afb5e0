"""``ADBuilder``: the builder derivative rules are written with.

In forward mode every op is emitted. In linearize mode (reverse mode) an op with a
``Lin`` operand — a symbolic tangent — is recorded on the tape instead, to be transposed
later; ops on primal values only (``cos(x)`` in ``d sin``) are emitted as residuals.

Tangents may be ``None``: a symbolic zero. ``add_any``, ``scale`` and ``neg_t`` propagate
zeros so rules stay short:

    class Mul(ElementwiseBinary):
        @classmethod
        def jvp(cls, b, primals, tangents, outs):      # dialect.rules.JvpRule
            (x, y), (dx, dy) = primals, tangents
            return b.add_any(b.scale(dx, y), b.scale(dy, x))
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from irax.core.abstract import ShapedArray
from irax.core.errors import IRError
from irax.dialect import funcs, mlir
from irax.dialect.base import OpError, lookup
from irax.dialect.builder import OpMethods
from irax.dialect.control import Call, is_plain_call, is_return

_ids = itertools.count()


class Lin:
    """A value of the linear (tangent) program, recorded on a tape."""

    __slots__ = ("aval", "id")

    def __init__(self, aval: ShapedArray):
        self.aval = aval
        self.id = next(_ids)

    def __repr__(self) -> str:
        return f"Lin#{self.id}<{self.aval.str_short()}>"


@dataclass
class TapeEntry:
    op_cls: type
    operands: list
    attrs: dict
    outs: list = field(default_factory=list)
    #: the location of the op whose rule recorded it (its transpose is emitted there)
    loc: object = None


class ADBuilder(OpMethods):
    """Emits irax ops through ``ir`` (an ``IRBuilder``); records linear ops on ``tape``."""

    def __init__(self, ir_builder, tape: list | None = None, ctx=None):
        self.ir = ir_builder
        self.tape = tape
        self.ctx = ctx  # the pass context: symbol table and memoized functions

    # ---- values ---------------------------------------------------------------------------
    @staticmethod
    def aval(v) -> ShapedArray:
        return v.aval if isinstance(v, Lin) else mlir.aval_of(v)

    @staticmethod
    def is_linear(v) -> bool:
        return isinstance(v, Lin)

    def record(self, op_cls, operands, out_avals, attrs) -> list:
        """Puts a linear op on the tape; returns its ``Lin`` results."""
        outs = [Lin(a) for a in out_avals]
        self.tape.append(TapeEntry(op_cls, list(operands), attrs, outs, self.ir.loc))
        return outs

    def emit(self, op_cls, operands, **attrs) -> list:
        operands = list(operands)
        if self.tape is not None and any(isinstance(o, Lin) for o in operands):
            attrs = op_cls.normalize_attrs(attrs)
            try:
                out_avals = op_cls.infer_list([self.aval(o) for o in operands], attrs)
            except OpError as e:
                raise OpError(op_cls.diag(str(e))) from None
            if op_cls.transpose is None:
                raise OpError(f"'{op_cls.name}' op has no transpose rule, so it cannot be "
                              "applied to a tangent in reverse mode")
            return self.record(op_cls, operands, out_avals, attrs)
        results, _, _ = self.ir.emit(op_cls, operands, **attrs)
        return results

    def call(self, callee: str, operands, result_avals) -> list:
        """An ``irax.call`` of a primal function (operands must not be tangents)."""
        results, _, _ = self.ir.emit(Call, list(operands), result_avals=list(result_avals),
                                     callee=callee)
        return results

    def inline(self, fn, operands) -> list:
        """Emits ``fn``'s body on ``operands`` op by op through this builder, so ops on
        tangents go on the tape in reverse mode. Returns the returned values."""
        block = fn.regions[0].blocks[0]
        env = dict(zip(block.arguments, operands))
        for op in block.operations:
            ins = [env[v] for v in op.operands]
            if is_return(op):
                return ins
            if is_plain_call(op):
                callee = mlir.ir().FlatSymbolRefAttr(op.attributes["callee"]).value
                outs = self.inline(self.ctx.callee(callee), ins)
            else:
                cls = lookup(op.name)
                if cls is None:
                    raise IRError(f"{op.location}: error: cannot inline '{op.name}'")
                if len(op.regions):   # loops and branches are copied with their regions
                    outs = self._clone_region_op(op, ins)
                elif cls.infers_results:
                    outs = self.emit(cls, ins, **cls.decode_attrs(op))
                else:
                    outs = self._emit_with_types(cls, op, ins)
            for r, v in zip(op.results, outs):
                env[r] = v
        raise IRError("inlined function has no return")

    def _clone_region_op(self, op, ins):
        if any(isinstance(o, Lin) for o in ins):
            raise OpError(f"'{op.name}' op cannot be applied to a tangent in reverse mode")
        return list(funcs.clone_op(op, ins, self.ir.ip).results)

    def _emit_with_types(self, cls, op, ins):
        avals = [mlir.aval_of(r) for r in op.results]
        if any(isinstance(o, Lin) for o in ins):
            raise OpError(f"'{op.name}' op cannot be applied to a tangent")
        results, _, _ = self.ir.emit(cls, ins, result_avals=avals, **cls.decode_attrs(op))
        return results

    def emit_values(self, op_cls, operands, **attrs) -> list:
        return self.emit(op_cls, operands, **attrs)

    # ---- constants ---------------------------------------------------------------------------
    def zeros(self, aval: ShapedArray):
        return self.full(aval, 0)

    def instantiate(self, t, aval: ShapedArray):
        """``t``, or zeros of ``aval`` when ``t`` is a symbolic zero."""
        return self.zeros(aval) if t is None else t

    # ---- tangent algebra with symbolic zeros ---------------------------------------------
    def add_any(self, a, b):
        if a is None:
            return b
        if b is None:
            return a
        return self.add(a, b)

    def scale(self, t, factor):
        return None if t is None else self.mul(t, factor)

    def neg_t(self, t):
        return None if t is None else self.neg(t)

    def sub_any(self, a, b):
        if b is None:
            return a
        if a is None:
            return self.neg(b)
        return self.sub(a, b)
