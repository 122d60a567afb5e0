"""Which ``stablehlo.while`` loops become vector kernels, and the rewrite: the loop's
carries as scalars, vectors or tensors in one ``flow.dispatch.region``, its cond and body
emitted by ``vector_kernel.Emitter`` into an ``scf.while`` (the IR before and after:
``vector_kernel.py``). Carries whose results nothing reads are left out."""

from __future__ import annotations

from irax.core.config import config
from irax.dialect import mlir
from irax.lowering.vector_kernel import KV, Emitter, Reject, info, vector_like


def _kind(v) -> str:
    """How a carry of ``v``'s type lives in the kernel."""
    shape, _ = info(v)
    if shape == ():
        return "s"
    return "v" if vector_like(shape) else "m"


def _live(while_op):
    """The carries the loop's results or condition need, and the body ops that compute
    them: a carry nobody reads after the loop (a stacked output the gradient does not
    use) is dropped, else it would need a buffer of the dispatch's own."""
    ir = mlir.ir()
    cond, body = while_op.regions[0].blocks[0], while_op.regions[1].blocks[0]
    rets = list(list(body.operations)[-1].operands)
    live = {i for i, r in enumerate(while_op.results) if _used(r)}
    for o in cond.operations:
        live |= {v.arg_number for v in o.operands if isinstance(v, ir.BlockArgument)
                 and v.owner == cond}
    needed, work, seen = set(), [rets[i] for i in live], set(live)
    # ops that may have effects (calls: a host callback prints) are needed whatever
    # their results
    for o in list(body.operations)[:-1]:
        if not _pure(o):
            needed.add(o.operation)
            work.extend(o.operands)
            _nested_uses(o, work)
    while work:
        v = work.pop()
        if isinstance(v, ir.BlockArgument):
            if v.owner == body and v.arg_number not in seen:
                seen.add(v.arg_number)
                work.append(rets[v.arg_number])
            continue
        op = v.owner.operation
        if op.block != body or op in needed:
            continue
        needed.add(op)
        work.extend(op.operands)
        _nested_uses(op, work)
    return seen, needed


def _pure(op) -> bool:
    """A StableHLO op without effects (no call, no custom call, results to read)."""
    op = getattr(op, "operation", op)
    return op.name.startswith("stablehlo.") and op.name != "stablehlo.custom_call" and \
        len(op.results) > 0


def _used(v, depth: int = 0) -> bool:
    """Whether anything reads ``v`` in the end: not only ops whose own results nobody
    reads (IREE drops those, and a dispatch result with them)."""
    for u in v.uses:
        op = u.owner
        op = getattr(op, "operation", op)
        if depth > 32 or len(op.regions) or not _pure(op):
            return True
        if any(_used(r, depth + 1) for r in op.results):
            return True
    return False


def _nested_uses(op, out):
    """Values from outside that the regions of ``op`` use."""
    for region in op.regions:
        for block in region.blocks:
            for o in block.operations:
                out.extend(o.operands)
                _nested_uses(o, out)


def rewrite(while_op) -> bool:
    """Replaces ``while_op`` by its kernel when every op of its loop has a form here;
    returns whether it did (else the module is as it was)."""
    ir = mlir.ir()
    em = Emitter(while_op.location)
    em.outer = ir.InsertionPoint(while_op)
    region = None
    try:
        cond_src, body_src = while_op.regions[0].blocks[0], while_op.regions[1].blocks[0]
        rets = list(list(body_src.operations)[-1].operands)
        inits = list(while_op.operands)
        # a carry the body passes on unchanged is read only: the value before the loop
        live, needed = _live(while_op)
        carried = [i for i, r in enumerate(rets) if r != body_src.arguments[i] and i in live]
        kinds = {i: _kind(inits[i]) for i in carried}
        if not carried:
            raise Reject
        out_types = [inits[i].type for i in carried]
        region = em.create(em.outer, "flow.dispatch.region", [], out_types,
                           {"operandSegmentSizes": ir.DenseI32ArrayAttr.get([0, 0])},
                           regions=2)
        em.outer = ir.InsertionPoint(region)      # transposes go before the region
        top = region.regions[0].blocks.append()
        tip = ir.InsertionPoint(top)
        em.prologue = tip
        starts, types = [], []
        for i in carried:
            kv = KV("m", inits[i], inv=inits[i])
            if kinds[i] == "s":
                v = em.scalar(tip, kv, inits[i])
            elif kinds[i] == "v":
                v = em.vector(tip, kv, inits[i])
            else:
                v = em.copy(tip, inits[i])
            starts.append(v)
            types.append(v.type)
        loop = em.create(tip, "scf.while", starts, types, regions=2)
        em.prologue = ir.InsertionPoint(loop)

        def env_of(args):
            env = {}
            for i, a in enumerate(args):
                env[a] = KV("m", inits[i], inv=inits[i])
            return env

        def bind(env, src_args, block_args):
            for i, a in zip(carried, block_args):
                env[src_args[i]] = KV(kinds[i], a)
                if kinds[i] == "m":
                    em.root[a] = i

        before = loop.regions[0].blocks.append(*types)
        env = env_of(cond_src.arguments)
        bind(env, list(cond_src.arguments), list(before.arguments))
        bip = ir.InsertionPoint(before)
        (p,) = em.block(bip, cond_src, env)
        pred = em.scalar(bip, p, list(cond_src.operations)[-1].operands[0])
        em.create(bip, "scf.condition", [pred, *before.arguments], [])
        after = loop.regions[1].blocks.append(*types)
        env = env_of(body_src.arguments)
        bind(env, list(body_src.arguments), list(after.arguments))
        aip = ir.InsertionPoint(after)
        outs = em.block(aip, body_src, env, needed)
        for i in carried:       # a tensor carry yields its own latest version
            if kinds[i] == "m" and (outs[i].kind != "m" or em.root.get(outs[i].value) != i
                                    or outs[i].value in em.spent):
                raise Reject
        yields = [em.same_kind(aip, outs[i], inits[i]).value for i in carried]
        if [y.type for y in yields] != types:
            raise Reject
        em.create(aip, "scf.yield", yields, [])
        finals = []
        for i, r in zip(carried, loop.results):
            finals.append(em.tensor(tip, KV(kinds[i], r), inits[i]))
        em.create(tip, "flow.return", finals, [])
    except Reject:
        if region is not None:
            region.erase()
        for op in reversed(em.made_outside):
            op.erase()
        return False
    results = list(while_op.results)
    for i, r in enumerate(results):
        r.replace_all_uses_with(inits[i] if i not in kinds else region.results[carried.index(i)])
    while_op.erase()
    return True


def rewrite_module(module) -> int:
    """Rewrites each ``stablehlo.while`` of ``module`` that has a kernel (outermost first;
    a loop holding another never has one); returns how many."""
    ir = mlir.ir()
    if not config.irax_vector_loop_kernels:
        return 0
    found = []

    def visit(op):
        if op.name == "stablehlo.while":
            found.append(op)
        return ir.WalkResult.ADVANCE

    done = 0
    with mlir.context():
        module.operation.walk(visit, ir.WalkOrder.PRE_ORDER)
        for op in found:
            done += rewrite(op)
    return done
