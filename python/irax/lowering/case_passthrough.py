"""Results a ``stablehlo.case`` branch passes through from outside (an IREE 3.13
workaround).

IREE 3.13 fails at run time ("ref is null; while invoking native function
hal.buffer_view.create") on a case whose branch returns values defined outside the case
(function arguments) when another branch is taken: two of them beside a computed result
(``docs/repro/case_passthrough.mlir``), or three of three (``lax.cond(p, update, keep, a,
b, c)`` under jit); one beside computed ones, or two of two, ran. A branch returning two
or more outside values returns zeros in those slots instead, and a select after the case
takes the outside value when that branch ran::

    %r:3 = "stablehlo.case"(%i) ({ stablehlo.return %a, %b, %c1 }, { ... })
becomes
    %r:3 = "stablehlo.case"(%i) ({ stablehlo.return %z, %z, %c1 }, { ... })   // %z: zeros
    %ra = stablehlo.select (%i == 0), %a, %r#0 ;  %rb = stablehlo.select (%i == 0), %b, %r#1
"""

from __future__ import annotations

import numpy as np

from irax.core.abstract import ShapedArray
from irax.dialect import mlir
from irax.lowering.builder import LoweringBuilder

_I1 = np.bool_


def _inside(v, op) -> bool:
    """Whether ``v`` is defined in a region of ``op``."""
    ir = mlir.ir()
    v = v.maybe_downcast()
    owner = v.owner if isinstance(v, ir.OpResult) else v.owner.owner
    owner = owner.operation if hasattr(owner, "operation") else owner
    target = op.operation
    while owner is not None:
        if owner == target:
            return True
        owner = owner.parent
    return False


def _zeros(lb: LoweringBuilder, aval: ShapedArray):
    z = lb.constant(np.zeros((), aval.dtype))
    if not aval.shape:
        return z
    return lb.op("stablehlo.broadcast_in_dim", [z], aval, broadcast_dimensions=lb.i64s([]))


def _taken(lb: LoweringBuilder, index, branch: int, n: int):
    """Whether ``branch`` of an ``n``-branch case runs for ``index`` (out of range: the
    last one)."""
    i32 = mlir.aval_of(index)
    if branch < n - 1:
        return lb.compare(index, lb.constant(np.asarray(branch, i32.dtype)), "EQ")
    low = lb.compare(index, lb.constant(np.asarray(0, i32.dtype)), "LT")
    high = lb.compare(index, lb.constant(np.asarray(n - 1, i32.dtype)), "GE")
    return lb.op("stablehlo.or", [low, high], ShapedArray((), _I1))


def lift_passthrough(op) -> None:
    """Rewrites one ``stablehlo.case`` (see the module); leaves other cases alone."""
    ir = mlir.ir()
    lifted: dict[int, list] = {}
    for b, region in enumerate(op.regions):
        block = region.blocks[0]
        ret = block.operations[len(block.operations) - 1]
        outside = [j for j, v in enumerate(ret.operands) if not _inside(v, op)]
        if len(outside) < 2:
            continue
        lb = LoweringBuilder(ir.InsertionPoint(ret), op.location, [])
        for j in outside:
            v = ret.operands[j]
            lifted.setdefault(j, []).append((b, v))
            ret.operands[j] = _zeros(lb, mlir.aval_of(v))
    if not lifted:
        return
    ops = list(op.operation.block.operations)
    after = ops[[o.operation for o in ops].index(op.operation) + 1]
    lb = LoweringBuilder(ir.InsertionPoint(after), op.location, [])
    index, branches = op.operands[0], len(op.regions)
    for j, sources in sorted(lifted.items()):
        result = op.results[j]
        uses = [(u.owner, u.operand_number) for u in result.uses]
        value = result
        for b, v in sources:
            value = lb.op("stablehlo.select", [_taken(lb, index, b, branches), v, value],
                          mlir.aval_of(result))
        for owner, k in uses:
            owner.operands[k] = value
