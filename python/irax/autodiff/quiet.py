"""Functions without their prints, for the backward pass of loops and branches.

Under ``grad`` a print (``irax.debug_callback``: an op with side effects and no results)
runs once, with the primal values, in the forward sweep. The transposes of ``scan``,
``while`` and ``cond`` call the VJP of their bodies (and a while loop recomputes its
carries with the body) inside the backward sweep: those bodies would print every trip
again. They use ``quiet_function(ctx, body)`` instead, a copy without such ops (and with
the functions it calls made quiet too):

    func.func private @body(%c: tensor<f32>) -> tensor<f32> {
      "irax.debug_callback"(%c) {callback = 0 : i64} : (tensor<f32>) -> ()
      %0 = "irax.sin"(%c) ...
  =>
    func.func private @body_quiet(%c: tensor<f32>) -> tensor<f32> {
      %0 = "irax.sin"(%c) ...
"""

from __future__ import annotations

from irax.dialect import attrs as A
from irax.dialect import funcs, mlir
from irax.dialect.effects import effect_only


def _prints(ctx, name: str) -> bool:
    """Whether ``@name`` or a function it references holds an effect-only op."""
    key = ("prints", name)
    if key in ctx.cache:
        return ctx.cache[key]
    ctx.cache[key] = False   # recursion: assume none while looking
    found = []

    def visit(op):
        if effect_only(op) or any(_prints(ctx, s) for s in funcs.symbol_refs(op)):
            found.append(op)
            return mlir.ir().WalkResult.INTERRUPT
        return mlir.ir().WalkResult.ADVANCE

    ctx.callee(name).operation.walk(visit)
    ctx.cache[key] = bool(found)
    return ctx.cache[key]


def quiet_function(ctx, name: str) -> str:
    """The name of a copy of ``@name`` without effect-only ops (``@name`` itself when it
    has none); generated once per function."""
    key = ("quiet", name)
    if key in ctx.cache:
        return ctx.cache[key]
    if not _prints(ctx, name):
        ctx.cache[key] = name
        return name
    ir = mlir.ir()
    new_name = funcs.unique_name(ctx.module, f"{name}_quiet")
    ctx.cache[key] = new_name
    with mlir.context(), mlir.unknown_loc():
        clone = ctx.callee(name).operation.clone(ip=ir.InsertionPoint(ctx.module.body))
        clone.attributes["sym_name"] = ir.StringAttr.get(new_name)
    ctx.add_symbol(clone)
    doomed, refs = [], []

    def visit(op):
        if effect_only(op):
            doomed.append(op)
        else:
            refs.extend((op, k) for k in funcs.symbol_attr_names(op))
        return ir.WalkResult.ADVANCE

    clone.walk(visit)
    for op in doomed:
        op.erase()
    for op, k in refs:
        callee = A.Symbol.decode(op.attributes[k])
        quiet = quiet_function(ctx, callee)
        if quiet != callee:
            with mlir.context():
                op.attributes[k] = A.Symbol.encode(quiet)
    return new_name
