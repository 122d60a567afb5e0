"""Ops of differentiation: the transformation ops ``irax.jvp`` / ``irax.vjp`` /
``irax.grad`` / ``irax.value_and_grad`` (expanded by ``irax-autodiff``), and the ops that
steer it: stop_gradient, custom rules, rematerialization.

    %y, %dy = "irax.jvp"(%x, %dx) {callee = @f} : (tensor<f32>, tensor<f32>) -> (...)
    %y, %ct_x = "irax.vjp"(%x, %ct_y) {callee = @f}
    %g = "irax.grad"(%x, %w) {callee = @loss, argnums = array<i64: 0>, has_aux = false}
    %v, %g = "irax.value_and_grad"(%x) {callee = @loss, argnums = array<i64: 0>}
    %y = "irax.stop_gradient"(%x) : (tensor<3xf32>) -> tensor<3xf32>
    %y = "irax.custom_jvp_call"(%x) {callee = @f, jvp = @f_rule}
    %y = "irax.custom_vjp_call"(%x) {callee = @f, fwd = @f_fwd, bwd = @f_bwd}
    %y = "irax.checkpoint"(%x) {callee = @f, policy = "nothing_saveable"}

Each call-like op evaluates and lowers as a call of ``callee``; its derivative comes from
the referenced rule functions (``jvp_full`` computes outputs and tangents together, so the
primal is not computed twice).
"""

from __future__ import annotations

import numpy as np

from irax.core import dtypes
from irax.dialect import attrs as A
from irax.dialect import funcs, mlir
from irax.dialect import sharding as S
from irax.dialect.base import Op, OpError
from irax.dialect.builder import IRBuilder
from irax.dialect.control import Call
from irax.dialect.elementwise import batch_elementwise
from irax.dialect.remat import parse_policy
from irax.dialect.rules import has_tangent
from irax.dialect.transform import TransformOp


class Differentiation(TransformOp):
    """Base of the transformation ops ``irax-autodiff`` expands."""

    expanded_by = "irax-autodiff"


class Jvp(Differentiation):
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
        return ctx.jvp(callee)


class Vjp(Differentiation):
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
        ins, outs = funcs.signature(ctx.callee(callee))
        return ctx.vjp(callee, (True,) * len(ins), (True,) * len(outs))


class Grad(Differentiation):
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
        """A function calling the callee's VJP with a cotangent of one for the value."""
        ins, outs = funcs.signature(ctx.callee(callee))
        cls._check(ins, outs, argnums, has_aux)
        wrt = tuple(i in argnums for i in range(len(ins)))
        ct_mask = (True,) + (False,) * (len(outs) - 1)
        vjp = ctx.vjp(callee, wrt, ct_mask)
        name = funcs.unique_name(ctx.module, f"{callee}_{cls.method}")
        fn, block = funcs.create_function(ctx.module, name, ins)
        ctx.add_symbol(fn)
        b = IRBuilder.at_end(block)
        one = b.full(outs[0], np.ones((), outs[0].dtype))
        wrt_avals = [a for a, w in zip(ins, wrt) if w]
        res, _, _ = b.emit(Call, list(block.arguments) + [one],
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


def tape_vjp(b, callee: str, tangents, policy: str | None = None):
    """For a tape entry that stands for a call of ``callee`` with ``tangents`` (``Lin``
    where linear): the callee's signature, which operands get cotangents (``wrt``), which
    results have tangents (``ct_mask``) and the VJP function for them (reading the values
    a checkpoint ``policy`` saved, when given).

    Returns ``(name, ins, outs, wrt, ct_mask)``."""
    ins, outs = funcs.signature(b.ctx.callee(callee))
    wrt = tuple(b.is_linear(t) for t in tangents)
    ct_mask = tuple(has_tangent(a) for a in outs)
    return b.ctx.vjp(callee, wrt, ct_mask, policy), ins, outs, wrt, ct_mask


class StopGradient(Op):
    """Identity whose result has a zero tangent (``lax.stop_gradient``)."""

    name = "irax.stop_gradient"
    shard = classmethod(S.elementwise)
    num_operands = 1
    differentiable = False

    @classmethod
    def infer(cls, x):
        return x

    @classmethod
    def evaluate(cls, x):
        return x

    @classmethod
    def lower(cls, lb, x):
        return x

    batch = classmethod(batch_elementwise)


class CallLike(Op):
    """Base of ops that run ``callee`` and carry extra derivative information."""
    shard = classmethod(S.replicated)

    infers_results = False
    rule_symbols: tuple[str, ...] = ()

    @classmethod
    def infer(cls, *avals, **attrs):
        raise OpError("result types come from the callee")

    @classmethod
    def callee_of(cls, attrs) -> str:
        return attrs["callee"]

    @classmethod
    def verify_symbols(cls, op, symbols) -> None:
        attrs = cls.decode_attrs(op)
        for key in ("callee",) + cls.rule_symbols:
            if attrs[key] not in symbols:
                raise OpError(f"'{attrs[key]}' does not reference a valid function")
        ins, outs = funcs.signature(symbols[attrs["callee"]])
        got_in = [mlir.aval_of(v) for v in op.operands]
        got_out = [mlir.aval_of(r) for r in op.results]
        if got_in != ins or got_out != outs:
            raise OpError(f"operand and result types do not match @{attrs['callee']}")

    @classmethod
    def evaluate(cls, *arrays, **attrs):
        raise OpError("call-like ops are evaluated by the interpreter, which knows the module")

    @classmethod
    def lower(cls, lb, *operands, **attrs):
        ir = mlir.ir()
        op = lb.create("func.call", operands, [lb.type(a) for a in lb.out_avals],
                       {"callee": ir.FlatSymbolRefAttr.get(attrs["callee"])})
        return list(op.results)


def batch_call_like(cls, b, args, dims, **attrs):
    """vmap of a call-like op: the same op over the vectorized callee and rule functions,
    so custom derivatives and checkpointing survive vectorization. Every operand is
    batched at 0 (materialized when unmapped) and every result is batched at 0."""
    xs = [b.to_front(x, d) for x, d in zip(args, dims)]
    new = dict(attrs)
    for key in ("callee",) + cls.rule_symbols:
        # every function involved takes and returns per-example values: batch them all at 0
        ins, outs = funcs.signature(b.ctx.callee(attrs[key]))
        new[key] = b.ctx.vmap(attrs[key], (0,) * len(ins), (0,) * len(outs), b.axis_size,
                              b.axis_name)
    out_avals = funcs.signature(b.ctx.callee(new["callee"]))[1]
    outs = b.emit(cls, xs, result_avals=out_avals, **new)
    return outs, [0] * len(outs)


class CustomJvpCall(CallLike):
    """A call whose JVP is the user's rule ``@jvp: (primals..., tangents...) ->
    (outputs..., output tangents...)`` (``custom_jvp``). In reverse mode the rule is
    linearized, so it must be linear in the tangents."""

    name = "irax.custom_jvp_call"
    attributes = {"callee": A.Symbol, "jvp": A.Symbol}
    rule_symbols = ("jvp",)
    batch = classmethod(batch_call_like)

    @classmethod
    def jvp_full(cls, b, ins, dins, out_avals, *, callee, jvp):
        tans = [b.instantiate(t, b.aval(x)) for t, x in zip(dins, ins)]
        res = b.inline(b.ctx.callee(jvp), list(ins) + tans)
        n = len(out_avals)
        return res[:n], res[n:]


class CustomVjpCall(CallLike):
    """A call whose VJP is the user's pair ``@fwd: args -> (outputs..., residuals...)`` and
    ``@bwd: (residuals..., output cotangents...) -> argument cotangents`` (``custom_vjp``).
    Forward mode is not defined, as in JAX."""

    name = "irax.custom_vjp_call"
    attributes = {"callee": A.Symbol, "fwd": A.Symbol, "bwd": A.Symbol}
    rule_symbols = ("fwd", "bwd")
    batch = classmethod(batch_call_like)

    @classmethod
    def jvp_full(cls, b, ins, dins, out_avals, *, callee, fwd, bwd):
        if b.tape is None:  # JAX's error (a TypeError, which user code may catch)
            raise TypeError("can't apply forward-mode autodiff (jvp) to a custom_vjp "
                            "function.")
        _, fwd_outs = funcs.signature(b.ctx.callee(fwd))
        res = b.call(fwd, ins, fwd_outs)
        n = len(out_avals)
        outs, residuals = res[:n], res[n:]
        lins = b.record(_CustomVjpBackward, list(dins) + list(residuals), out_avals,
                        {"bwd": bwd, "num_args": len(ins)})
        return outs, lins


class _CustomVjpBackward:
    """Tape entry of a custom_vjp call: its transpose calls the user's ``bwd``."""

    name = "irax.custom_vjp_call"

    @classmethod
    def transpose(cls, b, ct, *operands, bwd, num_args):
        cts = ct if isinstance(ct, list) else [ct]
        residuals = operands[num_args:]
        fn = b.ctx.callee(bwd)
        ins, outs = funcs.signature(fn)
        cts = [b.instantiate(c, a) for c, a in zip(cts, ins[len(residuals):])]
        arg_cts = b.call(bwd, list(residuals) + cts, outs)
        return list(arg_cts) + [None] * len(residuals)


class Checkpoint(CallLike):
    """A call recomputed in the backward pass instead of storing its intermediates
    (``checkpoint``/``remat``). ``policy`` (a policy expression, ``dialect.remat``) says
    which intermediates are saved: ``nothing_saveable`` (the default) recomputes all,
    ``everything_saveable`` is an ordinary call, ``dots_saveable`` keeps the dots' results
    and recomputes the rest, and so on."""

    name = "irax.checkpoint"
    attributes = {"callee": A.Symbol, "policy": A.Str}
    defaults = {"policy": "nothing_saveable"}
    batch = classmethod(batch_call_like)

    @classmethod
    def verify_symbols(cls, op, symbols) -> None:
        super().verify_symbols(op, symbols)
        parse_policy(cls.decode_attrs(op)["policy"])

    @classmethod
    def jvp_full(cls, b, ins, dins, out_avals, *, callee, policy):
        parse_policy(policy)
        if b.tape is None:
            tans = [b.instantiate(t, b.aval(x)) for t, x in zip(dins, ins)]
            res = b.call(b.ctx.jvp(callee), list(ins) + tans,
                         list(out_avals) * 2)
            return res[:len(out_avals)], res[len(out_avals):]
        if policy == "everything_saveable":
            return b.ctx.linearize(b, callee, ins, dins)
        saved: list = []
        if policy == "nothing_saveable":
            outs = b.call(callee, ins, out_avals)
        else:
            fwd, saved_avals = b.ctx.checkpoint_forward(callee, policy)
            res = b.call(fwd, ins, list(out_avals) + list(saved_avals))
            outs, saved = res[:len(out_avals)], res[len(out_avals):]
        lins = b.record(_CheckpointBackward, list(dins) + list(ins) + list(saved), out_avals,
                        {"callee": callee, "num_args": len(ins), "policy": policy})
        return outs, lins


class _CheckpointBackward:
    """Tape entry of a checkpointed call: its transpose re-runs the forward pass inside
    the callee's VJP, reading the values the policy saved."""

    name = "irax.checkpoint"

    @classmethod
    def transpose(cls, b, ct, *operands, callee, num_args, policy):
        cts = ct if isinstance(ct, list) else [ct]
        tangents, rest = operands[:num_args], operands[num_args:]
        name, ins, outs, wrt, ct_mask = tape_vjp(
            b, callee, tangents, None if policy == "nothing_saveable" else policy)
        cts = [b.instantiate(c, a) for c, a, m in zip(cts, outs, ct_mask) if m]
        res = b.call(name, list(rest) + cts, list(outs) + [a for a, w in zip(ins, wrt) if w])
        arg_cts = iter(res[len(outs):])
        return [next(arg_cts) if w else None for w in wrt] + [None] * len(rest)
