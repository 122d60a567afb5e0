"""Transformation ops: differentiation requests that reference a function by symbol.

    %y, %dy = "irax.jvp"(%x, %dx) {callee = @f} : (tensor<f32>, tensor<f32>) -> (...)
    %y, %ct_x = "irax.vjp"(%x, %ct_y) {callee = @f}
    %g = "irax.grad"(%x, %w) {callee = @loss, argnums = array<i64: 0>, has_aux = false}
    %v, %g = "irax.value_and_grad"(%x) {callee = @loss, argnums = array<i64: 0>}

``irax-autodiff`` replaces each by an ``irax.call`` of a generated private function
(innermost first, memoized per callee and options). Result types follow from the callee's
signature, checked by the verifier (``verify_symbols``); these ops are never lowered or
interpreted directly.
"""

from __future__ import annotations

import numpy as np

from irax.dialect import attrs as A
from irax.dialect.base import Op, OpError


class TransformOp(Op):
    """Base of ops expanded by a pass into a call of a generated function."""

    attributes = {"callee": A.Symbol}
    infers_results = False
    expanded_by = "irax-autodiff"
    #: True for ops that other transformations go through with the op's own rules
    #: (``irax.pmap``), so they are expanded last instead of innermost first
    keeps_own_rules = False

    @classmethod
    def infer(cls, *avals, **attrs):
        raise OpError("result types of a transformation op come from its callee")

    @classmethod
    def result_avals(cls, in_avals, out_avals, **attrs):
        """Result avals for a callee with signature ``in_avals -> out_avals``."""
        raise NotImplementedError

    @classmethod
    def verify_symbols(cls, op, symbols) -> None:
        from irax.dialect import funcs, mlir

        attrs = cls.decode_attrs(op)
        fn = symbols.get(attrs["callee"])
        if fn is None:
            raise OpError(f"'{attrs['callee']}' does not reference a valid function")
        ins, outs = funcs.signature(fn)
        expected = [a.strip_weak() for a in cls.result_avals(ins, outs, **attrs)]
        operand_avals = [mlir.aval_of(v) for v in op.operands]
        want_in = cls.operand_avals(ins, outs, **attrs)
        if operand_avals[:len(want_in)] != want_in or len(operand_avals) != len(want_in):
            raise OpError(f"operand types {_fmt(operand_avals)} do not match the expected "
                          f"{_fmt(want_in)} for @{attrs['callee']}")
        got = [mlir.aval_of(r) for r in op.results]
        if got != expected:
            raise OpError(f"result types {_fmt(got)} do not match the expected "
                          f"{_fmt(expected)} for @{attrs['callee']}")

    @classmethod
    def operand_avals(cls, in_avals, out_avals, **attrs):
        return list(in_avals)

    @classmethod
    def evaluate(cls, *arrays, **attrs):
        raise OpError(f"must be expanded by {cls.expanded_by} before evaluation")

    @classmethod
    def lower(cls, lb, *operands, **attrs):
        raise OpError(f"must be expanded by {cls.expanded_by} before lowering")

    @classmethod
    def expand(cls, ctx, op, **attrs) -> str:
        """Generates the function replacing ``op``; returns its symbol name."""
        raise NotImplementedError


def _fmt(avals) -> str:
    return "(" + ", ".join(a.str_short() for a in avals) + ")"


class Jvp(TransformOp):
    """Forward mode: ``(primals..., tangents...) -> (outputs..., output tangents...)``."""

    name = "irax.jvp"

    @classmethod
    def operand_avals(cls, ins, outs, **attrs):
        return list(ins) + list(ins)

    @classmethod
    def result_avals(cls, ins, outs, **attrs):
        return list(outs) + list(outs)

    @classmethod
    def expand(cls, ctx, op, callee):
        from irax.autodiff.jvp import jvp_function

        return jvp_function(ctx, callee)


class Vjp(TransformOp):
    """Reverse mode: ``(primals..., output cotangents...) -> (outputs..., input
    cotangents...)``."""

    name = "irax.vjp"

    @classmethod
    def operand_avals(cls, ins, outs, **attrs):
        return list(ins) + list(outs)

    @classmethod
    def result_avals(cls, ins, outs, **attrs):
        return list(outs) + list(ins)

    @classmethod
    def expand(cls, ctx, op, callee):
        from irax.autodiff.vjp import vjp_function

        ins, outs = _sig(ctx, callee)
        return vjp_function(ctx, callee, (True,) * len(ins), (True,) * len(outs))


def _sig(ctx, callee):
    from irax.dialect import funcs

    return funcs.signature(ctx.callee(callee))


class Grad(TransformOp):
    """Gradient of the first (scalar, floating) result w.r.t. the ``argnums`` operands:
    ``(args...) -> (grads..., aux...)`` where aux are the other results when
    ``has_aux``."""

    name = "irax.grad"
    attributes = {"callee": A.Symbol, "argnums": A.I64Array, "has_aux": A.Bool}
    defaults = {"has_aux": False}
    returns_value = False

    @classmethod
    def _check(cls, ins, outs, argnums, has_aux):
        if not outs:
            raise OpError("expected a callee with at least one result")
        from irax.core import dtypes

        if outs[0].shape != () or not dtypes.is_inexact(outs[0].dtype):
            raise OpError(f"expected the callee's first result to be a floating-point or "
                          f"complex scalar, but got {outs[0].str_short()}")
        if not has_aux and len(outs) != 1:
            raise OpError(f"expected a callee with one result, but got {len(outs)} "
                          "(set has_aux for auxiliary results)")
        for i in argnums:
            if not 0 <= i < len(ins):
                raise OpError(f"argnum {i} is out of range for {len(ins)} operands")

    @classmethod
    def result_avals(cls, ins, outs, argnums, has_aux, **_):
        cls._check(ins, outs, argnums, has_aux)
        grads = [ins[i] for i in argnums]
        aux = list(outs[1:])
        return ([outs[0]] + aux + grads) if cls.returns_value else (grads + aux)

    @classmethod
    def expand(cls, ctx, op, callee, argnums, has_aux):
        from irax.autodiff.builder import ADBuilder
        from irax.autodiff.vjp import vjp_function
        from irax.dialect import funcs
        from irax.dialect.builder import IRBuilder
        from irax.dialect.control import Call

        ins, outs = _sig(ctx, callee)
        cls._check(ins, outs, argnums, has_aux)
        wrt = tuple(i in argnums for i in range(len(ins)))
        ct_mask = (True,) + (False,) * (len(outs) - 1)
        vjp = vjp_function(ctx, callee, wrt, ct_mask)
        name = funcs.unique_name(ctx.module, f"{callee}_{cls.name[5:]}")
        fn, block = funcs.create_function(ctx.module, name, ins)
        ctx.add_symbol(fn)
        b = ADBuilder(IRBuilder.at_end(block), ctx=ctx)
        one = b.full(outs[0], np.ones((), outs[0].dtype))
        wrt_avals = [a for a, w in zip(ins, wrt) if w]
        res, _, _ = b.ir.emit(Call, list(block.arguments) + [one],
                              result_avals=list(outs) + wrt_avals, callee=vjp)
        n = len(outs)
        by_index = dict(zip([i for i in range(len(ins)) if wrt[i]], res[n:]))
        grads = [by_index[i] for i in argnums]
        aux = res[1:n]
        results = ([res[0]] + aux + grads) if cls.returns_value else (grads + aux)
        funcs.finish_function(fn, block, results)
        return name


class ValueAndGrad(Grad):
    """Like ``irax.grad``, returning ``(value, aux..., grads...)``."""

    name = "irax.value_and_grad"
    returns_value = True


class Vmap(TransformOp):
    """Vectorization: the callee mapped over an axis of size ``axis_size``.

    ``in_axes[i]`` is the mapped axis of operand ``i`` (-1: not mapped); each result gets
    its mapped axis at ``out_axes[j]`` (-1: the result must not depend on the mapped axis
    and keeps its shape). ``axis_name`` names the axis for collectives.

        %y = "irax.vmap"(%w, %xs) {callee = @f, in_axes = array<i64: -1, 0>,
               out_axes = array<i64: 0>, axis_size = 8 : i64, axis_name = "i"}
               : (tensor<3x4xf32>, tensor<8x3xf32>) -> tensor<8x4xf32>
    """

    name = "irax.vmap"
    attributes = {"callee": A.Symbol, "in_axes": A.I64Array, "out_axes": A.I64Array,
                  "axis_size": A.I64, "axis_name": A.Str}
    defaults = {"axis_name": ""}
    expanded_by = "irax-vectorize"

    @classmethod
    def _check(cls, ins, outs, in_axes, out_axes, axis_size):
        if len(in_axes) != len(ins):
            raise OpError(f"expected {len(ins)} in_axes, but got {len(in_axes)}")
        if len(out_axes) != len(outs):
            raise OpError(f"expected {len(outs)} out_axes, but got {len(out_axes)}")
        if axis_size < 0:
            raise OpError(f"expected a non-negative axis_size, but got {axis_size}")
        for i, (a, ax) in enumerate(zip(ins, in_axes)):
            if not -1 <= ax <= a.ndim:
                raise OpError(f"in_axes[{i}] = {ax} is out of range for operand of rank "
                              f"{a.ndim + 1}")
        for j, (a, ax) in enumerate(zip(outs, out_axes)):
            if not -1 <= ax <= a.ndim:
                raise OpError(f"out_axes[{j}] = {ax} is out of range for a result of rank "
                              f"{a.ndim + 1}")

    @classmethod
    def operand_avals(cls, ins, outs, in_axes, out_axes, axis_size, **_):
        cls._check(ins, outs, in_axes, out_axes, axis_size)
        return [a if ax < 0 else _insert(a, ax, axis_size) for a, ax in zip(ins, in_axes)]

    @classmethod
    def result_avals(cls, ins, outs, in_axes, out_axes, axis_size, **_):
        cls._check(ins, outs, in_axes, out_axes, axis_size)
        return [a if ax < 0 else _insert(a, ax, axis_size) for a, ax in zip(outs, out_axes)]

    @classmethod
    def expand(cls, ctx, op, callee, in_axes, out_axes, axis_size, axis_name):
        from irax.vectorize.batch import vmap_function

        return vmap_function(ctx, callee, tuple(None if a < 0 else a for a in in_axes),
                             tuple(None if a < 0 else a for a in out_axes), axis_size,
                             axis_name)


def _insert(aval, axis: int, size: int):
    shape = list(aval.shape)
    shape.insert(axis, size)
    return aval.update(shape=shape)
