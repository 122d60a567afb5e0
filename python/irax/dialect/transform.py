"""Transformation ops: requests to transform a function, which reference it by symbol.

    %y, %dy = "irax.jvp"(%x, %dx) {callee = @f} : (tensor<f32>, tensor<f32>) -> (...)
    %ys = "irax.vmap"(%xs) {callee = @f, in_axes = array<i64: 0>, ...}

A pass replaces each by an ``irax.call`` of a generated private function (innermost
first, memoized per callee and options); which pass expands which ops is decided by class:
``irax-autodiff`` the ``Differentiation`` ops (``dialect/autodiff.py``), ``irax-vectorize``
``irax.vmap`` (``dialect/vectorize.py``), ``irax-shard`` ``irax.pmap``
(``dialect/shard.py``). Result types follow from the callee's signature, checked by the
verifier (``verify_symbols``); these ops are never lowered or interpreted directly.
"""

from __future__ import annotations

from typing import ClassVar

from irax.dialect import attrs as A
from irax.dialect import funcs, mlir
from irax.dialect.base import Op, OpError


class TransformOp(Op):
    """Base of ops expanded by a pass into a call of a generated function."""

    attributes = {"callee": A.Symbol}
    infers_results = False
    #: the pass that expands the op, named in messages (passes select ops by class)
    expanded_by: ClassVar[str] = ""
    #: True for ops that other transformations go through with the op's own rules
    #: (``irax.pmap``), so they are expanded last instead of innermost first
    keeps_own_rules: ClassVar[bool] = False

    @classmethod
    def infer(cls, *avals, **attrs):
        raise OpError("result types of a transformation op come from its callee")

    @classmethod
    def result_avals(cls, in_avals, out_avals, **attrs):
        """Result avals for a callee with signature ``in_avals -> out_avals``."""
        raise NotImplementedError

    @classmethod
    def operand_avals(cls, in_avals, out_avals, **attrs):
        return list(in_avals)

    @classmethod
    def verify_symbols(cls, op, symbols) -> None:
        attrs = cls.decode_attrs(op)
        fn = symbols.get(attrs["callee"])
        if fn is None:
            raise OpError(f"'{attrs['callee']}' does not reference a valid function")
        ins, outs = funcs.signature(fn)
        expected = [a.strip_weak() for a in cls.result_avals(ins, outs, **attrs)]
        operand_avals = [mlir.aval_of(v) for v in op.operands]
        want_in = cls.operand_avals(ins, outs, **attrs)
        if operand_avals[:len(want_in)] != want_in or len(operand_avals) != len(want_in):
            raise OpError(f"operand types {fmt_avals(operand_avals)} do not match the "
                          f"expected {fmt_avals(want_in)} for @{attrs['callee']}")
        got = [mlir.aval_of(r) for r in op.results]
        if got != expected:
            raise OpError(f"result types {fmt_avals(got)} do not match the expected "
                          f"{fmt_avals(expected)} for @{attrs['callee']}")

    @classmethod
    def evaluate(cls, *arrays, **attrs):
        raise OpError(f"must be expanded by {cls.expanded_by} before evaluation")

    @classmethod
    def lower(cls, lb, *operands, **attrs):
        raise OpError(f"must be expanded by {cls.expanded_by} before lowering")

    @classmethod
    def expand(cls, ctx, op, **attrs) -> str:
        """Generates the function replacing ``op`` with the transformation context ``ctx``
        (``dialect.rules.TransformContext``); returns its symbol name."""
        raise NotImplementedError

    no_rules = {**{rule: "expanded before any other transformation's rules run"
                   for rule in ("jvp", "batch")},
                "shard": "expanded before irax-partition runs"}


def fmt_avals(avals) -> str:
    return "(" + ", ".join(a.str_short() for a in avals) + ")"
