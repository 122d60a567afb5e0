"""``irax.cond``: ``branches[clamp(index, 0, n - 1)](operands)``.

    %y = "irax.cond"(%index, %a, %b) ({...branch 0...}, {...branch 1...})

Reverse mode: the forward sweep runs the chosen branch; the backward sweep runs a cond
over the branches' VJPs (each recomputes its branch's forward values).
"""

from __future__ import annotations

import functools

import numpy as np

from irax.core.abstract import ShapedArray
from irax.dialect import funcs, mlir
from irax.dialect import sharding as S
from irax.dialect.base import OpError
from irax.dialect.control_flow.region_op import (
    RegionOp,
    avals_of,
    bcast,
    block_avals,
    fmt_avals,
    inline_region,
    move_block,
    outline,
    return_avals,
    tangents_of,
    vmap,
)
from irax.dialect.folding import constant_of
from irax.dialect.regions import call, emit_region_op
from irax.dialect.rules import has_tangent


class Cond(RegionOp):
    """``branches[clamp(index, 0, n - 1)](operands)`` with an int32 scalar ``index``; each
    region is a branch taking the operands."""

    name = "irax.cond"
    num_regions = None  # one per branch

    @classmethod
    def infer(cls, *avals):
        raise OpError("result types of irax.cond come from its branches")

    infers_results = False

    @classmethod
    def verify_symbols(cls, op, symbols) -> None:
        cls.verify_regions(op, {})

    @classmethod
    def shard_regions(cls, p):
        """Partitioned on the devices' blocks (``shard/regions.py``): the index the same
        on every device; each result has the first branch's sharding, refined where another
        branch splits it further (``sharding.refine``)."""
        ops = p.specs[1:]
        outs = [p.trial(r, ops) for r in range(p.num_regions)]
        res = [functools.reduce(S.refine, col) for col in zip(*outs)]
        n = len(outs)
        return S.RegionPlan(operands=[()] + ops, args=[ops] * n, results=[res] * n, out=res)

    @classmethod
    def verify_regions(cls, op, attrs) -> None:
        avals = [mlir.aval_of(v) for v in op.operands]
        if not avals or avals[0] != ShapedArray((), np.int32):
            raise OpError(f"expected an int32 scalar index, but got "
                          f"{avals[0].str_short() if avals else 'no operands'}")
        if not len(op.regions):
            raise OpError("expected at least one branch region")
        outs = [mlir.aval_of(r) for r in op.results]
        for i, region in enumerate(op.regions):
            if block_avals(region) != avals[1:]:
                raise OpError(f"expected branch {i}'s arguments to be {fmt_avals(avals[1:])}, but "
                              f"got {fmt_avals(block_avals(region))}")
            if return_avals(region) != outs:
                raise OpError(f"expected branch {i} to return {fmt_avals(outs)}, but it returns "
                              f"{fmt_avals(return_avals(region))}")

    @classmethod
    def canonicalize(cls, op) -> bool:
        """A constant index: the taken branch replaces the op.

            %r = "irax.cond"(%c1, %x) ({...}, {^bb0(%a): %y = "irax.sin"(%a) ...})
            ->  %y = "irax.sin"(%x)   (%c1 a constant 1)"""
        index = constant_of(op.operands[0])
        if index is None:
            return False
        n = len(op.regions)
        inline_region(op, min(max(int(index), 0), n - 1), list(op.operands)[1:])
        return True

    @classmethod
    def evaluate_regions(cls, interp, op, operands, attrs, out_avals):
        n = len(op.regions)
        index = int(np.clip(int(operands[0]), 0, n - 1))
        return interp.run_region(op.regions[index], list(operands[1:]))

    @classmethod
    def lower_regions(cls, lb, op, attrs) -> list:
        """``stablehlo.case`` on the clamped index; branch arguments become the operands."""
        index = op.operands[0]
        i32 = ShapedArray((), np.int32)
        lo = lb.constant(np.int32(0))
        hi = lb.constant(np.int32(len(op.regions) - 1))
        index = lb.op("stablehlo.clamp", [lo, index, hi], i32)
        new = lb.create("stablehlo.case", [index], [r.type for r in op.results],
                        regions=len(op.regions))
        for src, dst in zip(op.regions, new.regions):
            move_block(src, dst, None, replace_args=list(op.operands[1:]))
        return list(new.results)

    @classmethod
    def jvp_full(cls, b, ins, dins, out_avals, *, op):
        index, ops = ins[0], ins[1:]
        branches = [outline(b, op, i, f"branch{i}") for i in range(len(op.regions))]
        if b.tape is None:
            tans = tangents_of(b, ops, dins[1:])
            jfns = [b.ctx.jvp(f) for f in branches]
            arg_avals = avals_of(ops, b) + avals_of(tans, b)
            specs = [(arg_avals, lambda ib, args, j=j: call(ib, j, args, list(out_avals) * 2))
                     for j in jfns]
            res = emit_region_op(b.ir, Cond, [index, *ops, *tans], specs, list(out_avals) * 2)
            return res[:len(out_avals)], res[len(out_avals):]
        new = funcs.clone_op(op, ins, b.ir.ip)
        lins = b.record(_CondTranspose, list(dins[1:]) + list(ins),
                        [a for a in out_avals], {"branches": tuple(branches),
                                                 "n_ops": len(ops)})
        return list(new.results), lins

    @classmethod
    def batch(cls, b, args, dims, *, op):
        index, ops = args[0], [b.to_front(x, d) for x, d in zip(args[1:], dims[1:])]
        branches = [outline(b, op, i, f"branch{i}") for i in range(len(op.regions))]
        n_in = len(ops)
        _, outs = funcs.signature(b.ctx.callee(branches[0]))
        vfns = [vmap(b, f, (0,) * n_in, (0,) * len(outs)) for f in branches]
        out_avals = [a.insert_axis(0, b.axis_size) for a in outs]
        if dims[0] is None:
            specs = [(avals_of(ops, b), lambda ib, a, v=v: call(ib, v, a, out_avals)) for v in vfns]
            return emit_region_op(b.ir, Cond, [index, *ops], specs, out_avals), [0] * len(outs)
        # a batched index: every branch runs; each example takes its own branch's result
        index = b.to_front(index, dims[0])
        n = len(vfns)
        lo = b.full(b.aval(index), 0)
        hi = b.full(b.aval(index), n - 1)
        index = b.min(b.max(index, lo), hi)
        results = [call(b.ir, v, ops, out_avals) for v in vfns]
        chosen = list(results[0])
        for i in range(1, n):
            take = b.compare(index, b.full(b.aval(index), i), direction="EQ")
            for j, r in enumerate(results[i]):
                mask = bcast(b, take, b.aval(r))
                chosen[j] = b.select(mask, r, chosen[j])
        return chosen, [0] * len(outs)


class _CondTranspose:
    """Tape entry of a cond: a cond over the branches' VJPs."""

    name = "irax.cond"

    @classmethod
    def transpose(cls, b, ct, *operands, branches, n_ops):
        tans, index, ops = operands[:n_ops], operands[n_ops], operands[n_ops + 1:]
        cts = ct if isinstance(ct, list) else [ct]
        _, outs = funcs.signature(b.ctx.callee(branches[0]))
        wrt = tuple(b.is_linear(t) for t in tans)
        ct_mask = tuple(has_tangent(a) for a in outs)
        cts = [b.instantiate(c, a) for c, a, m in zip(cts, outs, ct_mask) if m]
        in_avals = avals_of(ops, b)
        wrt_avals = [a for a, w in zip(in_avals, wrt) if w]
        vjps = [b.ctx.vjp(b.ctx.quiet(f), wrt, ct_mask) for f in branches]  # printed forward
        arg_avals = in_avals + avals_of(cts, b)
        specs = [(arg_avals, lambda ib, args, v=v: call(ib, v, args, list(outs) + wrt_avals)
                  [len(outs):]) for v in vjps]
        res = iter(emit_region_op(b.ir, Cond, [index, *ops, *cts], specs, wrt_avals))
        return [next(res) if w else None for w in wrt] + [None] * (1 + n_ops)
