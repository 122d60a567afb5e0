"""Control-flow simplifications used by irax-simplify (upstream MLIR cannot see into
irax's unregistered region ops):

- dead-branch removal: an ``irax.cond`` with a constant index is replaced by the chosen
  branch's body;
- loop-invariant code motion: ops of a ``irax.while``/``irax.scan`` body that depend only
  on the loop's consts are computed once before the loop and passed in as new consts.

Before:
    %r = "irax.while"(%w, %x) ({...}, {
    ^bb0(%c: tensor<3x3xf32>, %x: tensor<3xf32>):
      %e = "irax.exp"(%c)                          // invariant
      %y = "irax.dot_general"(%e, %x) ...
After:
    %e = "irax.exp"(%w)
    %r = "irax.while"(%w, %e, %x) ({...}, {
    ^bb0(%c: tensor<3x3xf32>, %e1: tensor<3x3xf32>, %x: tensor<3xf32>):
      %y = "irax.dot_general"(%e1, %x) ...
"""

from __future__ import annotations

from irax.dialect import funcs, mlir
from irax.dialect.base import lookup


def fold_constant_cond(op) -> bool:
    """Inlines the taken branch of a cond whose index is a constant; True if it did."""
    from irax.passes.simplify import _const_value

    index = _const_value(op.operands[0])
    if index is None:
        return False
    n = len(op.regions)
    block = op.regions[min(max(int(index), 0), n - 1)].blocks[0]
    ip = mlir.ir().InsertionPoint(op)
    env = dict(zip(block.arguments, list(op.operands)[1:]))
    for inner in block.operations:
        ins = [env.get(v, v) for v in inner.operands]
        if inner.name == "irax.return":
            for old, new in zip(op.results, ins):
                old.replace_all_uses_with(new)
            break
        new = funcs.clone_op(inner, ins, ip)
        for r, nr in zip(inner.results, new.results):
            env[r] = nr
    op.erase()
    return True


def _invariant_ops(block, n_consts: int) -> list:
    """Pure, region-free irax ops of ``block`` computed from consts only (in order)."""
    invariant = set(list(block.arguments)[:n_consts])
    found = []
    for inner in block.operations:
        cls = lookup(inner.name)
        if cls is None or cls.region_op or len(inner.regions) or cls.callee_of is not None \
                or inner.name == "irax.return" or not len(inner.operands):
            continue  # constants (no operands) are cheap: leave them
        if all(v in invariant for v in inner.operands):
            found.append(inner)
            invariant.update(inner.results)
    return found


def hoist_invariants(op, body_index: int, n_consts: int, consts_attr: str) -> bool:
    """Moves invariant ops of region ``body_index`` before the loop; their results enter
    as new consts. Returns True if anything moved."""
    from irax.dialect.base import lookup as _lookup

    body = op.regions[body_index].blocks[0]
    hoisted = _invariant_ops(body, n_consts)
    if not hoisted:
        return False
    ir = mlir.ir()
    ip = ir.InsertionPoint(op)
    outer = dict(zip(list(body.arguments)[:n_consts], list(op.operands)[:n_consts]))
    new_consts = []
    for inner in hoisted:
        clone = funcs.clone_op(inner, [outer[v] for v in inner.operands], ip)
        for r, nr in zip(inner.results, clone.results):
            outer[r] = nr
    # results of hoisted ops still used inside the loop become new consts
    needed = [r for inner in hoisted for r in inner.results if _used_by_others(r, hoisted)]
    new_consts = [outer[r] for r in needed]
    cls = _lookup(op.name)
    attrs = cls.decode_attrs(op)
    attrs[consts_attr] = n_consts + len(new_consts)
    operands = list(op.operands)
    operands = operands[:n_consts] + new_consts + operands[n_consts:]
    from irax.dialect.builder import IRBuilder

    results, _, new = IRBuilder.before(op).emit(
        cls, operands, regions=len(op.regions),
        result_avals=[mlir.aval_of(r) for r in op.results], **attrs)
    for r_index, (src, dst) in enumerate(zip(op.regions, new.regions)):
        old = src.blocks[0]
        args = list(old.arguments)
        types = [a.type for a in args[:n_consts]] + [v.type for v in new_consts] + \
            [a.type for a in args[n_consts:]]
        block = dst.blocks.append(*types)
        new_args = list(block.arguments)
        for a, na in zip(args[:n_consts], new_args[:n_consts]):
            a.replace_all_uses_with(na)
        for a, na in zip(args[n_consts:], new_args[n_consts + len(new_consts):]):
            a.replace_all_uses_with(na)
        if r_index == body_index:
            for r, na in zip(needed, new_args[n_consts:n_consts + len(new_consts)]):
                r.replace_all_uses_with(na)
        for inner in list(old.operations):
            block.append(inner)
    for inner in reversed(hoisted):
        inner.erase()
    for old, nr in zip(op.results, results):
        old.replace_all_uses_with(nr)
    op.erase()
    return True


def _used_by_others(value, hoisted) -> bool:
    owners = {id(h) for h in hoisted}
    for use in value.uses:
        if id(use.owner) not in owners:
            return True
    return False


def simplify_control(block) -> int:
    """Applies both simplifications to the region ops of ``block``; returns the count."""
    from irax.dialect.control_flow import Cond, Scan, While

    changed = 0
    for op in list(block.operations):
        cls = lookup(op.name)
        if cls is Cond:
            changed += fold_constant_cond(op)
        elif cls in (While, Scan):
            body = 1 if cls is While else 0
            k = cls.decode_attrs(op)["num_consts"]
            changed += hoist_invariants(op, body, k, "num_consts")
    return changed
