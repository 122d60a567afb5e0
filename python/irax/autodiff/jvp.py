"""Forward mode: the JVP of a ``func.func``.

``@f(x...) -> y...`` becomes ``@f_jvp(x..., dx...) -> (y..., dy...)``: every op of ``f`` is
copied, followed by the tangent ops its class's ``jvp`` rule emits. Integer values have
symbolic zero tangents; tangent types equal primal types (an integer tangent is zeros).

    func.func @f(%x: tensor<f32>) -> tensor<f32> {
      %0 = "irax.sin"(%x) ...
    =>
    func.func private @f_jvp(%x: tensor<f32>, %dx: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
      %0 = "irax.sin"(%x) ...
      %1 = "irax.cos"(%x) ...
      %2 = "irax.mul"(%dx, %1) ...
"""

from __future__ import annotations

from irax.autodiff.builder import ADBuilder
from irax.core.errors import IRError
from irax.dialect import funcs, mlir
from irax.dialect.base import OpError, lookup
from irax.dialect.builder import IRBuilder
from irax.dialect.control import Call, is_plain_call, is_return
from irax.dialect.rules import has_tangent


def jvp_function(ctx, name: str):
    """The name of ``@name_jvp`` (generated once per callee); ``ctx``: the transformation
    context (``dialect.rules.TransformContext``)."""
    key = ("jvp", name)
    if key in ctx.cache:
        return ctx.cache[key]
    fn = ctx.callee(name)
    in_avals, out_avals = funcs.signature(fn)
    new_name = funcs.unique_name(ctx.module, f"{name}_jvp")
    ctx.cache[key] = new_name
    new_fn, block = funcs.create_function(ctx.module, new_name, in_avals + in_avals)
    ctx.add_symbol(new_fn)
    n = len(in_avals)
    args = list(block.arguments)
    b = ADBuilder(IRBuilder.at_end(block), ctx=ctx)
    tangents_in = [t if has_tangent(a) else None for t, a in zip(args[n:], in_avals)]
    outs, out_tangents = jvp_body(ctx, b, fn, args[:n], tangents_in)
    results = outs + [b.instantiate(t, a) for t, a in zip(out_tangents, out_avals)]
    funcs.finish_function(new_fn, block, results)
    return new_name


def jvp_body(ctx, b: ADBuilder, fn, primals_in, tangents_in):
    """Emits primal and tangent ops of ``fn``'s body; returns (outputs, output tangents)."""
    block = fn.regions[0].blocks[0]
    primal = dict(zip(block.arguments, primals_in))
    tangent = dict(zip(block.arguments, tangents_in))
    for op in block.operations:
        ins = [primal[v] for v in op.operands]
        dins = [tangent.get(v) for v in op.operands]
        if is_return(op):
            return ins, dins
        if is_plain_call(op):
            outs, douts = _jvp_call(ctx, b, op, ins, dins)
        else:
            outs, douts = jvp_op(b, op, ins, dins)
        for r, v, t in zip(op.results, outs, douts):
            primal[r] = v
            tangent[r] = t if has_tangent(mlir.aval_of(r)) else None
    raise IRError(f"irax-autodiff: @{funcs.symbol_name(fn)} has no return")


def jvp_op(b: ADBuilder, op, ins, dins, outs=None):
    """Copies ``op`` and emits its tangent with the op class's rule. With ``outs`` (the
    op's results, known already: saved by a checkpoint) the op is not copied; an op whose
    rule computes results and tangents together recomputes them for the tangent only."""
    cls = lookup(op.name)
    if cls is None:
        raise IRError(f"{op.location}: error: irax-autodiff cannot differentiate '{op.name}'")
    b.ir.loc = op.location   # the ops its rules emit stand where it stood
    if cls.jvp_full is not None and any(t is not None for t in dins):
        extra = {"op": op} if cls.region_op else {}  # region rules read the regions
        try:
            new_outs, douts = cls.jvp_full(b, ins, dins, [mlir.aval_of(r) for r in op.results],
                                           **extra, **cls.decode_attrs(op))
        except OpError as e:
            raise IRError(f"{op.location}: error: {cls.diag(str(e))}") from None
        return list(new_outs if outs is None else outs), list(douts)
    if outs is None:
        outs = list(funcs.clone_op(op, ins, b.ir.ip).results)
    outs = list(outs)
    if not cls.differentiable or all(t is None for t in dins):
        return outs, [None] * len(outs)
    if cls.jvp is None:
        raise IRError(f"{op.location}: error: '{op.name}' op has no jvp rule")
    attrs = cls.decode_attrs(op)
    try:
        douts = cls.jvp(b, ins, dins, outs, **attrs)
    except OpError as e:
        raise IRError(f"{op.location}: error: {cls.diag(str(e))}") from None
    if not isinstance(douts, (list, tuple)):
        douts = [douts]
    return outs, list(douts)


def _jvp_call(ctx, b: ADBuilder, op, ins, dins):
    b.ir.loc = op.location
    callee = mlir.ir().FlatSymbolRefAttr(op.attributes["callee"]).value
    name = jvp_function(ctx, callee)
    avals = [mlir.aval_of(v) for v in op.operands]
    tans = [b.instantiate(t, a) for t, a in zip(dins, avals)]
    outs_avals = [mlir.aval_of(r) for r in op.results]
    results, _, _ = b.ir.emit(Call, ins + tans, result_avals=outs_avals + outs_avals,
                              callee=name)
    k = len(outs_avals)
    return results[:k], results[k:]
