"""Packing of forwarded ``stablehlo.while`` carries (an IREE 3.13 workaround).

IREE 3.13 fails to compile a loop whose body passes one carry on, unchanged, as another
(``b' = a``) when the loop's result for that carry is used afterwards: its stream
conversion rejects the rotated ``scf.while`` it makes of it ("region branch point has 4
operands, but region successor needs 2 inputs"). Whatever copy is put in between
(reshape, add of zero, optimization_barrier) is folded away first. Stacking the slots of
such a chain into one carry removes the forwarding::

    %r:2 = stablehlo.while(%a = %x, %b = %y) ... do { ...; return %f, %a }
becomes
    %s = stablehlo.concatenate %x1, %y1, dim = 0         // tensor<2x...>
    %r = stablehlo.while(%s = %s0) ... do {
      %a = slice %s [0]; %b = slice %s [1]; ...; return concatenate(%f1, %a1) }
    %r0 = slice %r [0]; %r1 = slice %r [1]
"""

from __future__ import annotations

from irax.dialect import funcs, mlir
from irax.dialect import upstream as U
from irax.dialect.control import is_return
from irax.lowering.builder import LoweringBuilder


def _called(v, module):
    """(the call, the value its callee returns for ``v``, the callee's entry block) when
    ``v`` is a result of a ``func.call`` into ``module``, else None."""
    res = v.maybe_downcast()
    if module is None or not isinstance(res, mlir.ir().OpResult) or \
            U.op_class(res.owner) is not U.FuncCall:
        return None
    entry = funcs.callee_body(res.owner, module)
    if entry is None:
        return None
    ret = entry.operations[len(entry.operations) - 1]
    return res.owner, ret.operands[res.result_number], entry


def _forwarded(v, args, module, depth: int = 0):
    """The index of the block argument ``v`` is (directly, or as a result of a
    ``func.call`` whose callee returns that argument unchanged), else None."""
    for j, a in enumerate(args):
        if v == a:
            return j
    hit = _called(v, module) if depth <= 8 else None
    if hit is None:
        return None
    call, inner, entry = hit
    for p, a in enumerate(entry.arguments):
        if inner == a:
            return _forwarded(call.operands[p], args, module, depth + 1)
    return None


def _constant(v, block, module, depth: int = 0) -> bool:
    """Whether ``v``, a value the body returns, is the same on every trip: a constant, a
    value from outside the loop, or a call result its callee returns as a constant."""
    res = v.maybe_downcast()
    if isinstance(res, mlir.ir().BlockArgument):
        return res.owner != block and depth == 0
    op = res.owner
    if U.op_class(op) is U.StableHLOConstant:
        return True
    if depth == 0 and op.parent is not None and op.operation.block != block:
        return True
    hit = _called(v, module) if depth <= 8 else None
    return hit is not None and _constant(hit[1], hit[2], module, depth + 1)


def _groups(block, module) -> list[list[int]]:
    """Slots linked by forwarding (the body returns block argument j in slot i != j,
    possibly through calls), each group in slot order; slots of one group have one
    type."""
    args = list(block.arguments)
    ret = block.operations[len(block.operations) - 1]
    parent = list(range(len(args)))

    def find(i):
        while parent[i] != i:
            i = parent[i]
        return i

    computed, constant = [], []
    for i, v in enumerate(ret.operands):
        j = _forwarded(v, args, module)
        if j is not None and j != i:
            parent[find(i)] = find(j)
        elif j is None:
            (constant if _constant(v, block, module) else computed).append(i)
    # a slot given the same value every trip (the cotangent of a carry that the body
    # overwrites) fails like a forwarded one: stack it with a computed slot of its type
    for i in constant:
        partner = next((j for j in computed if args[j].type == args[i].type), None)
        if partner is not None:
            parent[find(i)] = find(partner)
    members: dict[int, list[int]] = {}
    for i in range(len(args)):
        members.setdefault(find(i), []).append(i)
    return [m for m in members.values() if len(m) > 1]


def _pack(b: LoweringBuilder, values, aval):
    rows = aval.update(shape=(1, *aval.shape))
    parts = [b.op("stablehlo.reshape", [v], rows) for v in values]
    return b.op("stablehlo.concatenate", parts, aval.update(shape=(len(values), *aval.shape)),
                dimension=b.i64(0))


def _unpack(b: LoweringBuilder, packed, n: int, aval) -> list:
    rows = aval.update(shape=(1, *aval.shape))
    out = []
    for k in range(n):
        s = b.op("stablehlo.slice", [packed], rows,
                 start_indices=b.i64s([k] + [0] * len(aval.shape)),
                 limit_indices=b.i64s([k + 1, *aval.shape]),
                 strides=b.i64s([1] * (len(aval.shape) + 1)))
        out.append(b.op("stablehlo.reshape", [s], aval))
    return out


def pack_forwarded_carries(op) -> None:
    """Rewrites a ``stablehlo.while`` whose body forwards carries (see the module)."""
    body = op.regions[1].blocks[0]
    groups = _groups(body, funcs.enclosing_module(op))
    if not groups:
        return
    ir = mlir.ir()
    grouped = {i for g in groups for i in g}
    single = [i for i in range(len(op.operands)) if i not in grouped]
    avals = [mlir.aval_of(v) for v in op.operands]
    lb = LoweringBuilder(ir.InsertionPoint(op), op.location, [])
    inits = [op.operands[i] for i in single] + \
        [_pack(lb, [op.operands[i] for i in g], avals[g[0]]) for g in groups]
    types = [v.type for v in inits]
    new = lb.create("stablehlo.while", inits, types, regions=2)
    for r in range(2):
        old = op.regions[r].blocks[0]
        block = new.regions[r].blocks.append(*types)
        b = lb.at_end(block)
        mapping = dict(zip(single, list(block.arguments)[:len(single)]))
        for g, packed in zip(groups, list(block.arguments)[len(single):]):
            mapping.update(zip(g, _unpack(b, packed, len(g), avals[g[0]])))
        for i, a in enumerate(old.arguments):
            a.replace_all_uses_with(mapping[i])
        for inner in list(old.operations):
            if is_return(inner) and r == 1:
                outs = list(inner.operands)
                inner.erase()
                b.ret([outs[i] for i in single] +
                      [_pack(b, [outs[i] for i in g], avals[g[0]]) for g in groups])
                break
            block.append(inner)
    results = {i: v for i, v in zip(single, list(new.results)[:len(single)])}
    for g, packed in zip(groups, list(new.results)[len(single):]):
        results.update(zip(g, _unpack(lb, packed, len(g), avals[g[0]])))
    for i, old in enumerate(op.results):
        old.replace_all_uses_with(results[i])
    op.erase()
