"""Reverse mode: linearize a ``func.func``, then transpose its linear part.

``@f(x...) -> y...`` becomes ``@f_vjp(x..., ct_y...) -> (y..., ct_x...)`` for the chosen
outputs (cotangent inputs) and inputs (cotangent results).

1. Forward sweep: every primal op of ``f`` is copied (calls are inlined on the fly), and
   each op's ``jvp`` rule runs with ``Lin`` tangents: rule ops on primal values are
   emitted (residuals), ops on tangents are recorded on a tape.
2. Backward sweep: the tape is walked in reverse; each linear op's ``transpose`` rule
   turns the cotangent of its result into cotangents of its linear operands, which are
   summed per value.

Only what the cotangents need is emitted: tape entries whose results receive no
cotangent are skipped.
"""

from __future__ import annotations

from irax.autodiff.builder import ADBuilder, Lin
from irax.autodiff.jvp import jvp_op
from irax.autodiff.remat import saved_values_reader, saving_forward
from irax.core.errors import IRError
from irax.dialect import funcs, mlir
from irax.dialect.base import OpError
from irax.dialect.builder import IRBuilder
from irax.dialect.control import is_plain_call, is_return
from irax.dialect.rules import has_tangent


def vjp_function(ctx, name: str, wrt: tuple[bool, ...],
                 ct_outputs: tuple[bool, ...], policy: str | None = None) -> str:
    """The name of the generated ``@name_vjp`` for inputs ``wrt`` and outputs
    ``ct_outputs`` (which receive cotangents). With a checkpoint ``policy`` it takes the
    values ``saving_forward`` saved after the inputs: ``(x..., saved..., ct_y...)``."""
    key = ("vjp", name, wrt, ct_outputs, policy)
    if key in ctx.cache:
        return ctx.cache[key]
    fn = ctx.callee(name)
    in_avals, out_avals = funcs.signature(fn)
    if len(wrt) != len(in_avals) or len(ct_outputs) != len(out_avals):
        raise IRError(f"irax-autodiff: bad vjp masks for @{name}")
    saved_avals = saving_forward(ctx, name, policy)[1] if policy else []
    ct_avals = [a for a, m in zip(out_avals, ct_outputs) if m]
    new_name = funcs.unique_name(ctx.module, f"{name}_vjp")
    ctx.cache[key] = new_name
    new_fn, block = funcs.create_function(ctx.module, new_name,
                                          in_avals + saved_avals + ct_avals)
    ctx.add_symbol(new_fn)
    args = list(block.arguments)
    n, k = len(in_avals), len(saved_avals)
    known = saved_values_reader(policy, args[n:n + k]) if policy else None
    tape: list = []
    fwd = ADBuilder(IRBuilder.at_end(block), tape, ctx=ctx)
    lin_in = [Lin(a) if (w and has_tangent(a)) else None for a, w in zip(in_avals, wrt)]
    outs, lin_out = linearize_body(ctx, fwd, fn, args[:n], lin_in, known)

    cts: dict[int, object] = {}
    bwd = ADBuilder(IRBuilder.at_end(block), ctx=ctx)
    ct_args = iter(args[n + k:])
    for lin, m in zip(lin_out, ct_outputs):
        ct = next(ct_args) if m else None
        if ct is not None and isinstance(lin, Lin):
            cts[lin.id] = bwd.add_any(cts.get(lin.id), ct)
    backward_pass(bwd, tape, cts)
    results = list(outs)
    for lin, a, w in zip(lin_in, in_avals, wrt):
        if w:
            ct = cts.get(lin.id) if lin is not None else None
            results.append(bwd.instantiate(ct, a))
    funcs.finish_function(new_fn, block, results)
    return new_name


def linearize_body(ctx, b: ADBuilder, fn, primals_in, lins_in, known=None):
    """Emits ``fn``'s primal ops through ``b`` (calls inlined) and records its tangent ops
    on ``b``'s tape; returns ``(outputs, output tangents)``. ``known(op)``, when given, is
    the results of an op that are known already (a checkpoint's saved values) or None."""
    block = fn.regions[0].blocks[0]
    primal = dict(zip(block.arguments, primals_in))
    tangent = dict(zip(block.arguments, lins_in))
    for op in block.operations:
        ins = [primal[v] for v in op.operands]
        dins = [tangent.get(v) for v in op.operands]
        if is_return(op):
            return ins, dins
        if is_plain_call(op):
            callee = ctx.callee(mlir.ir().FlatSymbolRefAttr(op.attributes["callee"]).value)
            outs, douts = linearize_body(ctx, b, callee, ins, dins, known)
        else:
            try:
                outs, douts = jvp_op(b, op, ins, dins, known and known(op))
            except OpError as e:
                raise IRError(f"{op.location}: error: {e}") from None
        for r, v, t in zip(op.results, outs, douts):
            primal[r] = v
            tangent[r] = t if has_tangent(mlir.aval_of(r)) else None
    raise IRError(f"irax-autodiff: @{funcs.symbol_name(fn)} has no return")


def backward_pass(b: ADBuilder, tape, cts: dict) -> None:
    """Transposes the tape, accumulating cotangents by ``Lin.id`` into ``cts``."""
    for entry in reversed(tape):
        out_cts = [cts.pop(o.id, None) for o in entry.outs]
        if all(c is None for c in out_cts):
            continue
        ct = out_cts[0] if len(out_cts) == 1 else out_cts
        if entry.loc is not None:
            b.ir.loc = entry.loc
        if len(out_cts) == 1:
            ct = b.instantiate(ct, entry.outs[0].aval)
        try:
            operand_cts = entry.op_cls.transpose(b, ct, *entry.operands, **entry.attrs)
        except OpError as e:
            raise IRError(f"irax-autodiff: transposing '{entry.op_cls.name}': {e}") from None
        if not isinstance(operand_cts, (list, tuple)):
            operand_cts = [operand_cts]
        if len(operand_cts) != len(entry.operands):
            raise IRError(f"irax-autodiff: the transpose rule of '{entry.op_cls.name}' "
                          f"returned {len(operand_cts)} cotangents for "
                          f"{len(entry.operands)} operands")
        for operand, ct_in in zip(entry.operands, operand_cts):
            if isinstance(operand, Lin) and ct_in is not None:
                cts[operand.id] = b.add_any(cts.get(operand.id), ct_in)
