"""What the control-flow ops share: the ``RegionOp`` base, reading and moving their
isolated regions, the rewrites their ``canonicalize`` rules make (a branch inlined, loop
invariants hoisted), and the helpers their derivative and batching rules are written with.

Every rule outlines the op's regions into private functions and reuses the
function-level transformations through the builder's context (``b.ctx.jvp``,
``b.ctx.vjp``, ``b.ctx.vmap``): the JVP of a loop is a loop over the JVP of its body; a
batched loop is a loop over the batched body.
"""

from __future__ import annotations

import numpy as np

from irax.core.abstract import ShapedArray
from irax.dialect import funcs, mlir
from irax.dialect import sharding as S
from irax.dialect.base import Op, OpError, lookup
from irax.dialect.builder import IRBuilder
from irax.dialect.control import is_return
from irax.dialect.regions import region_to_function

I32 = ShapedArray((), np.int32)
BOOL = ShapedArray((), np.bool_)


class RegionOp(Op):
    """Base of ops with isolated single-block regions: interpreted with
    ``evaluate_regions``, checked with ``verify_regions`` and lowered with
    ``lower_regions(lb, op, attrs)`` (``lb`` positioned before the op) instead of the
    per-op rules."""
    shard = classmethod(S.replicated)

    region_op = True

    @classmethod
    def verify_regions(cls, op, attrs) -> None:
        raise NotImplementedError

    @classmethod
    def lower(cls, lb, *operands, **attrs):
        raise OpError("region ops are lowered by lower_regions before the conversion")


def fmt_avals(avals) -> str:
    return "(" + ", ".join(a.str_short() for a in avals) + ")"


def block_avals(region) -> list[ShapedArray]:
    return [mlir.aval_of(a) for a in region.blocks[0].arguments]


def return_avals(region) -> list[ShapedArray]:
    ret = list(region.blocks[0].operations)[-1]
    if not is_return(ret):
        raise OpError("expected each region to end in 'irax.return'")
    return [mlir.aval_of(v) for v in ret.operands]


def move_block(src, dst, arg_types, prefix=None, replace_args=None):
    """Moves ``src``'s block into region ``dst``: new block arguments (or the values
    ``replace_args`` when the destination takes none), irax.return -> stablehlo.return
    (after ``prefix(block)`` values)."""
    ir = mlir.ir()
    old = src.blocks[0]
    block = dst.blocks.append(*(arg_types or []))
    news = list(block.arguments) if replace_args is None else list(replace_args)
    for a, v in zip(old.arguments, news):
        a.replace_all_uses_with(v)
    for inner in list(old.operations):
        if is_return(inner):
            values = (prefix(block) if prefix else []) + list(inner.operands)
            with mlir.unknown_loc():
                ir.Operation.create("stablehlo.return", operands=values,
                                    ip=ir.InsertionPoint(block))
            inner.erase()
            continue
        block.append(inner)
    return block


def inline_block(src, block, args):
    """Moves ``src``'s body ops to the end of ``block`` with its arguments replaced by
    ``args``; returns the values its irax.return returned (the return is erased)."""
    old = src.blocks[0]
    for a, v in zip(old.arguments, args):
        a.replace_all_uses_with(v)
    results = None
    for inner in list(old.operations):
        if is_return(inner):
            results = list(inner.operands)
            inner.erase()
            continue
        block.append(inner)
    return results


# ---- canonicalization: what the ops' ``canonicalize`` rules share ---------------------------
def inline_region(op, index: int, operands) -> None:
    """Replaces ``op`` by a copy of region ``index``'s body on ``operands``."""
    block = op.regions[index].blocks[0]
    ip = mlir.ir().InsertionPoint(op)
    env = dict(zip(block.arguments, list(operands)))
    for inner in block.operations:
        ins = [env.get(v, v) for v in inner.operands]
        if is_return(inner):
            for old, new in zip(op.results, ins):
                old.replace_all_uses_with(new)
            break
        new = funcs.clone_op(inner, ins, ip)
        for r, nr in zip(inner.results, new.results):
            env[r] = nr
    op.erase()


def _invariant_ops(block, n_consts: int) -> list:
    """Region-free irax ops without side effects of ``block`` computed from consts only
    (in order)."""
    invariant = set(list(block.arguments)[:n_consts])
    found = []
    for inner in block.operations:
        cls = lookup(inner.name)
        if cls is None or cls.region_op or len(inner.regions) or cls.callee_of is not None \
                or cls.has_side_effects or is_return(inner) or not len(inner.operands):
            continue  # constants (no operands) are cheap: leave them
        if all(v in invariant for v in inner.operands):
            found.append(inner)
            invariant.update(inner.results)
    return found


def hoist_invariants(op, body_index: int, n_consts: int, consts_attr: str) -> bool:
    """Moves invariant ops of region ``body_index`` before the loop; their results enter
    as new consts. Returns True if anything moved."""
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
    cls = lookup(op.name)
    attrs = cls.decode_attrs(op)
    attrs[consts_attr] = n_consts + len(new_consts)
    operands = list(op.operands)
    operands = operands[:n_consts] + new_consts + operands[n_consts:]
    results, _, new = IRBuilder.before(op, loc=op.location).emit(
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


# ---- helpers of the derivative and batching rules ----------------------------------------------
def avals_of(values, b) -> list[ShapedArray]:
    return [b.aval(v) for v in values]


def outline(b, op, index: int, what: str) -> str:
    """Region ``index`` of ``op`` as a new private function (its name)."""
    return region_to_function(b.ctx, op.regions[index], what)


def tangents_of(b, ins, dins) -> list:
    """The tangents ``dins`` of ``ins`` with symbolic zeros instantiated."""
    return [b.instantiate(t, b.aval(x)) for t, x in zip(dins, ins)]


def bcast(b, pred, aval):
    """A (B,) predicate broadcast over ``aval``'s shape (batch first)."""
    if mlir.aval_of(pred).shape == aval.shape:
        return pred
    return b.broadcast_in_dim(pred, shape=aval.shape, broadcast_dimensions=(0,))


def vmap(b, fn: str, in_dims, out_axes) -> str:
    """``fn`` batched on the builder's axis (``out_axes`` None: batched results first,
    unbatched ones left unbatched)."""
    return b.ctx.vmap(fn, tuple(in_dims), None if out_axes is None else tuple(out_axes),
                      b.axis_size, b.axis_name)


def batched_carry(b, fn: str, in_dims, first: int, count: int):
    """JAX's fixpoint for a loop body ``fn`` whose inputs ``first .. first + count`` are
    the carry (and its first ``count`` results the new carry): the carry entries that must
    be batched are those batched on entry and those the body makes batched from the
    others. ``in_dims``: 0 or None per input. Returns (batched flags, the inputs' dims
    with the carry's set, the dims of the body's results for them, and the batched body
    that gives them)."""
    batched = [in_dims[first + i] is not None for i in range(count)]
    while True:
        dims = list(in_dims)
        dims[first:first + count] = [0 if x else None for x in batched]
        probe = vmap(b, fn, dims, None)
        out = b.ctx.vmap_result_dims(probe)
        new = [x or o is not None for x, o in zip(batched, out[:count])]
        if new == batched:
            return batched, dims, list(out), probe
        b.ctx.discard(probe)  # batched on too few carry entries: not kept
        batched = new


def batched_as(b, fn: str, in_dims, out_dims, probe: str) -> str:
    """``fn`` batched over ``in_dims`` with its results at ``out_dims``: ``probe`` (a
    batching of ``fn`` over ``in_dims``) when its results already are."""
    if list(b.ctx.vmap_result_dims(probe)) == list(out_dims):
        return probe
    b.ctx.discard(probe)
    return vmap(b, fn, in_dims, out_dims)
