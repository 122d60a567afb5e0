"""Work of a scan's body that depends on the scanned inputs only, done for every step at
once before the loop.

A body op whose operands are consts and ``x_i`` slices (or results of such ops) computes
the same thing at step ``i`` whatever the carry: ``x_i @ U + b`` in an RNN step. IREE
runs each step of a loop as its own dispatches, so the body's matrix-vector product of
``x_i`` costs a dispatch per step; computed before the loop for all steps it is one
matrix product (a ``vmap`` of those ops over the scanned axis, batched by each op's own
rule), and the body reads its row like any scanned input::

    irax.scan(%w, %u, %b, %h0, %xs) {                     // body: tanh(h @ w + x @ u + b)
      ^bb0(%w, %u, %b, %h, %x): ...
After:
    %xu = irax.call(%w, %u, %xs) {callee = @scan_inputs_vmap}   // vmap of the step's work
    irax.scan(%w, %u, %h0, %xu) {                          // body: tanh(h @ w + xu)
      ^bb0(%w, %u, %h, %xu): ...

Only region-free ops without side effects that do not call functions move, and only when
the stacked results they leave for the loop stay within ``MAX_HOISTED_BYTES``. The
results are those of the same ops with a batch axis, so values are the same up to the
rounding of a batched matrix product or reduction (sums in another order).
"""

from __future__ import annotations

from irax.dialect import funcs, mlir
from irax.dialect.base import lookup
from irax.dialect.builder import IRBuilder
from irax.dialect.control_flow.region_op import is_return
from irax.dialect.regions import call

#: most bytes of stacked inputs one scan may gain
MAX_HOISTED_BYTES = 64 << 20


def _movable(op) -> bool:
    cls = lookup(op.name)
    return (cls is not None and not cls.region_op and not len(op.regions)
            and cls.callee_of is None and not funcs.symbol_refs(op)
            and not cls.has_side_effects and not is_return(op))


def _plan(block, k: int, c: int):
    """(ops to copy into the batched function, in order; the values the loop then reads
    as stacked inputs; the ops that leave the loop, dead ones included), or None when
    nothing moves."""
    args = list(block.arguments)
    consts, xs = set(args[:k]), set(args[k + c:])
    free, scanned, ops = set(consts), set(xs), []
    for op in block.operations:
        if not _movable(op) or not all(v in free or v in scanned for v in op.operands):
            continue
        results = list(op.results)
        if any(v in scanned for v in op.operands):
            scanned.update(results)
            ops.append(op)
        else:
            free.update(results)
            ops.append(op)
    moved = {op.operation for op in ops if any(r in scanned for r in op.results)}
    outs = [r for op in ops if op.operation in moved for r in op.results
            if any(use.owner.operation not in moved for use in r.uses)]
    if not outs:
        return None
    owner = {r: op.operation for op in ops for r in op.results}
    needed, stack = set(), list(outs)
    while stack:
        op = owner.get(stack.pop())
        if op is None or op in needed:
            continue
        needed.add(op)
        stack.extend(op.operands)
    return [op for op in ops if op.operation in needed], outs, \
        [op for op in ops if op.operation in moved]


def hoist_scan_inputs(op, module, attrs, batch) -> bool:
    """Rewrites one ``irax.scan`` (see the module); returns whether it changed.
    ``batch(fn, in_axes, axis_size)`` returns the name of a function of ``module`` that
    computes ``irax.vmap`` of the step function ``fn`` (None when it cannot be batched:
    the scan is left as it is)."""
    k, c, n = attrs["num_consts"], attrs["num_carry"], attrs["length"]
    if n == 0 or type(n) is not int:   # a symbolic length: the stacked size is unbounded
        return False
    block = op.regions[0].blocks[0]
    plan = _plan(block, k, c)
    if plan is None:
        return False
    ops, outs, moved_ops = plan
    moved = {m.operation for m in moved_ops}
    stacked = [mlir.aval_of(v).insert_axis(0, n) for v in outs]
    if sum(a.size * a.dtype.itemsize for a in stacked) > MAX_HOISTED_BYTES:
        return False
    args = list(block.arguments)
    ins = args[:k] + args[k + c:]
    in_avals = [mlir.aval_of(a) for a in ins]
    # the function of one step: consts and x slices in, the values the loop reads out
    name = funcs.unique_name(module, "scan_inputs")
    fn, fblock = funcs.create_function(module, name, in_avals)
    env = dict(zip(ins, fblock.arguments))
    ip = mlir.ir().InsertionPoint(fblock)
    for inner in ops:
        clone = funcs.clone_op(inner, [env[v] for v in inner.operands], ip)
        env.update(zip(inner.results, clone.results))
    funcs.finish_function(fn, fblock, [env[v] for v in outs])
    batched = batch(fn, tuple([-1] * k + [0] * (len(ins) - k)), n)
    fn.erase()
    if batched is None:
        return False
    b = IRBuilder.before(op, loc=op.location)
    operands = list(op.operands)
    new_xs = call(b, batched, operands[:k] + operands[k + c:], stacked)
    # the scan again, reading the stacked values as more scanned inputs (and the old
    # ones that the loop still reads)
    kept = list(range(k + c)) + [i for i in range(k + c, len(args))
                                 if any(u.owner.operation not in moved for u in args[i].uses)]
    cls = lookup(op.name)
    new_results, _, new = b.emit(cls, [operands[i] for i in kept] + list(new_xs), regions=1,
                                 result_avals=[mlir.aval_of(r) for r in op.results], **attrs)
    nblock = new.regions[0].blocks.append(*([args[i].type for i in kept] +
                                           [mlir.to_ir_type(mlir.aval_of(v)) for v in outs]))
    nargs = list(nblock.arguments)
    for i, na in zip(kept, nargs):
        args[i].replace_all_uses_with(na)
    for v, na in zip(outs, nargs[len(kept):]):
        v.replace_all_uses_with(na)
    for inner in list(block.operations):
        nblock.append(inner)
    for inner in reversed(moved_ops):   # used by moved ops only, now: all go
        inner.erase()
    for old, nr in zip(op.results, new_results):
        old.replace_all_uses_with(nr)
    op.erase()
    return True
