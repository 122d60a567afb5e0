"""Checkpoint policies in reverse mode: the forward function that saves what a policy
keeps, and the backward pass that uses the saved values instead of recomputing them.

For ``"irax.checkpoint"(%x) {callee = @f, policy = "dots_saveable"}`` reverse mode emits

    %y, %s = "irax.call"(%x) {callee = @f_fwd}        // @f's outputs and its dots' results
    ...
    %y2, %ct_x = "irax.call"(%x, %s, %ct_y) {callee = @f_vjp}

where ``@f_vjp`` recomputes ``@f``'s other primal values from ``%x`` and ``%s`` (each dot
of ``@f`` is read from ``%s``, not computed again). Ops are matched in the order both
functions visit them: ``@f``'s body with calls inlined; loops and branches are one op.
"""

from __future__ import annotations

from irax.dialect import funcs, mlir
from irax.dialect.base import lookup
from irax.dialect.builder import IRBuilder
from irax.dialect.control import copy_block
from irax.dialect.remat import parse_policy


def is_saved(predicate, op) -> bool:
    """Whether the policy ``predicate`` saves the results of ``op``."""
    cls = lookup(op.name)
    if cls is None:
        return False
    return bool(predicate(cls, [mlir.aval_of(v) for v in op.operands], cls.decode_attrs(op)))


def saving_forward(ctx, name: str, policy: str):
    """``@name_fwd(x...) -> (y..., saved...)``: ``@name`` also returning the results of the
    ops ``policy`` saves. Returns ``(function name, saved avals)``."""
    key = ("remat_fwd", name, policy)
    if key in ctx.cache:
        return ctx.cache[key]
    predicate = parse_policy(policy)
    fn = ctx.callee(name)
    in_avals, _ = funcs.signature(fn)
    new_name = funcs.unique_name(ctx.module, f"{name}_fwd")
    new_fn, block = funcs.create_function(ctx.module, new_name, in_avals)
    ctx.add_symbol(new_fn)
    saved: list = []
    outs = _copy_saving(ctx, IRBuilder.at_end(block), fn, list(block.arguments), predicate,
                        saved)
    funcs.finish_function(new_fn, block, list(outs) + saved)
    ctx.cache[key] = new_name, [mlir.aval_of(v) for v in saved]
    return ctx.cache[key]


def _copy_saving(ctx, ib: IRBuilder, fn, ins, predicate, saved: list):
    def body_of(call):
        name = mlir.ir().FlatSymbolRefAttr(call.attributes["callee"]).value
        return ctx.callee(name).regions[0].blocks[0]

    def save(op, outs):
        if is_saved(predicate, op):
            saved.extend(outs)

    return copy_block(fn.regions[0].blocks[0], ins, ib.ip, body_of, save)


def saved_values_reader(policy: str, saved_args):
    """The ``known`` callback of ``linearize_body``: each op the policy saves reads its
    results from ``saved_args``, in order."""
    predicate = parse_policy(policy)
    values = iter(saved_args)

    def known(op):
        if not is_saved(predicate, op):
            return None
        return [next(values) for _ in op.results]

    return known
