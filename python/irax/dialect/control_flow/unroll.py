"""Unrolling of lowered loop bodies: how many steps of a scan one trip of the
``stablehlo.while`` it lowers to runs, and copies of a region's body.

IREE runs a ``stablehlo.while`` from the host: every trip costs a few microseconds of VM
and queue work whatever the body computes, which dominates a scan with a small body (a
1000-step tanh RNN of width 64: ~4 us per step). Running ``u`` steps per trip divides
that overhead by ``u``; the body's ops are copied ``u`` times, so ``u`` shrinks as the
body grows (compile time and code size stay bounded)::

    stablehlo.while(%i = 0, ...) cond { %i < 96 }         // 100 steps, u = 8: 12 trips
      do { step(%i); step(%i + 1); ... step(%i + 7) }
    step(96); step(97); step(98); step(99)                // the remainder, after the loop
"""

from __future__ import annotations

from irax.dialect import funcs, mlir
from irax.dialect.control_flow.region_op import is_return
from irax.dialect.upstream import op_class

#: the most steps one trip runs, and the most body ops all of them hold together (32
#: steps: the 1000-step RNN of docs/performance.md 2.3 -> 1.5 ms, an eager 100,000-trip
#: fori_loop of 3 ops 51 -> 22 ms against 8 steps; 96 steps gained nothing more)
MAX_STEPS_PER_TRIP = 32
MAX_UNROLLED_OPS = 96


def _measure(ops, module, depth: int = 0) -> tuple[int, bool]:
    """(number of ops, each weighted by its class's ``lowered_size``, whether any holds
    control flow), looking into called functions."""
    count, nested = 0, False
    for inner in ops:
        if is_return(inner):
            continue
        cls = op_class(inner)
        count += getattr(cls, "lowered_size", 1)
        if len(inner.regions):
            nested = True
        if "callee" in inner.attributes and module is not None and depth < 4:
            entry = funcs.callee_body(inner, module)
            if entry is None:
                nested = True
                continue
            c, n = _measure(entry.operations, module, depth + 1)
            count, nested = count + c, nested or n
    return count, nested


def _advance():
    return mlir.ir().WalkResult.ADVANCE


def count_ops(region) -> int:
    """The ops of ``region``'s body, those of the functions it calls included."""
    return _measure(region.blocks[0].operations, funcs.enclosing_module(region.owner))[0]


def steps_per_trip(region, length: int) -> int:
    """How many steps of a ``length``-step loop over ``region``'s body one trip runs.
    Bodies holding control flow of their own are not unrolled: copies of nested loops and
    cases gain little and made IREE 3.13 fail ("failed to solve for timepoint coverage"
    on jit(grad(scipy.linalg.expm)))."""
    if type(length) is not int or length < 2:   # a symbolic length: one step a trip
        return 1
    per_step, nested = _measure(region.blocks[0].operations, funcs.enclosing_module(region.owner))
    if nested:
        return 1
    per_step = max(per_step, 1)
    u = max(1, min(MAX_STEPS_PER_TRIP, MAX_UNROLLED_OPS // per_step, length))
    # a divisor of the length within half of that leaves no steps after the loop: each
    # of those is dispatches of its own to compile and run (1000 steps: 10 a trip, not 16
    # and 8 more after the loop)
    return next((d for d in range(u, (u + 1) // 2 - 1, -1) if d and length % d == 0), u)


def clone_body(region, ip, args) -> list:
    """Copies ``region``'s body ops at ``ip`` with its block arguments replaced by
    ``args``; returns the values its return yields. The region is left intact, so it can
    be copied again. Nested regions of lowered ops may use values of the body from above
    (``stablehlo.case`` branches do): those uses are redirected to the copies too."""
    block = region.blocks[0]
    env = dict(zip(block.arguments, args))

    def remap(op):
        for i, v in enumerate(op.operands):
            new = env.get(v)
            if new is not None:
                op.operands[i] = new
        return _advance()

    for inner in block.operations:
        if is_return(inner):
            return [env.get(v, v) for v in inner.operands]
        new = inner.operation.clone(ip=ip)
        new.walk(remap)
        for old, copy in zip(inner.results, new.results):
            env[old] = copy
    raise ValueError("region body has no return")
