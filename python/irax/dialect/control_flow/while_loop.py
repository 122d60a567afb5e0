"""``irax.while``: ``while cond(consts, carry): carry = body(consts, carry)``.

    %r:2 = "irax.while"(%c, %x0, %i0) ({
      ^bb0(%c: tensor<f32>, %x: tensor<f32>, %i: tensor<i32>):   // cond
        "irax.return"(%p) : (tensor<i1>) -> ()
    }, {
      ^bb0(%c: tensor<f32>, %x: tensor<f32>, %i: tensor<i32>):   // body
        "irax.return"(%x1, %i1) : (tensor<f32>, tensor<i32>) -> ()
    }) {num_consts = 1 : i64} : (tensor<f32>, tensor<f32>, tensor<i32>) -> (tensor<f32>, ...)

Reverse mode works for any trip count, data-dependent included (JAX supports none): the
forward sweep counts the iterations n; the backward sweep visits k = n-1, ..., 0 with the
carry entering each step from a checkpointed tape of bounded size (``while_tape.py``):
about two body evaluations and one VJP per step, memory of a few hundred carries at
most (``irax_while_grad_tape_bytes``).
"""

from __future__ import annotations

import numpy as np

from irax.core.abstract import ShapedArray
from irax.dialect import attrs as A
from irax.dialect import funcs, mlir
from irax.dialect import sharding as S
from irax.dialect.base import OpError
from irax.dialect.control_flow import while_diagonal as diagonal
from irax.dialect.control_flow import while_tape as tape
from irax.dialect.control_flow.region_op import (
    BOOL,
    I32,
    RegionOp,
    avals_of,
    batched_as,
    batched_carry,
    bcast,
    block_avals,
    fmt_avals,
    hoist_invariants,
    move_block,
    outline,
    return_avals,
    tangents_of,
    vmap,
)
from irax.dialect.regions import call, emit_region_op
from irax.dialect.rules import has_tangent


class While(RegionOp):
    """``while cond(consts, carry): carry = body(consts, carry)``; results: the carry."""

    name = "irax.while"
    num_regions = 2
    attributes = {"num_consts": A.I64}

    @classmethod
    def infer(cls, *avals, num_consts):
        if not 0 <= num_consts <= len(avals):
            raise OpError(f"expected num_consts in [0, {len(avals)}], but got {num_consts}")
        return [a.strip_weak() for a in avals[num_consts:]]

    @classmethod
    def verify_regions(cls, op, attrs) -> None:
        avals = [mlir.aval_of(v) for v in op.operands]
        carry = avals[attrs["num_consts"]:]
        for name, region in zip(("cond", "body"), op.regions):
            if block_avals(region) != avals:
                raise OpError(f"expected the {name} region's arguments to be {fmt_avals(avals)}, "
                              f"but got {fmt_avals(block_avals(region))}")
        if return_avals(op.regions[0]) != [ShapedArray((), np.bool_)]:
            raise OpError(f"expected the cond region to return bool[], but it returns "
                          f"{fmt_avals(return_avals(op.regions[0]))}")
        if return_avals(op.regions[1]) != carry:
            raise OpError(f"expected the body region to return the carry {fmt_avals(carry)}, but "
                          f"it returns {fmt_avals(return_avals(op.regions[1]))}")

    @classmethod
    def shard_regions(cls, p, *, num_consts):
        """Partitioned on the devices' blocks (``shard/regions.py``): the carry keeps its
        initial value's sharding (``sharding.settled_carry``); the condition is the same on
        every device."""
        consts = p.specs[:num_consts]
        carry, _ = S.settled_carry(lambda c: p.trial(1, consts + c, wants=c),
                                   p.specs[num_consts:])
        args = consts + carry
        return S.RegionPlan(operands=args, args=[args, args], results=[[()], carry],
                            out=carry)

    @classmethod
    def canonicalize(cls, op, *, num_consts, **attrs) -> bool:
        """Loop-invariant code motion: body ops computed from consts only move before the
        loop; their results enter as new consts."""
        return hoist_invariants(op, 1, num_consts, "num_consts")

    @classmethod
    def evaluate_regions(cls, interp, op, operands, attrs, out_avals):
        k = attrs["num_consts"]
        consts, carry = list(operands[:k]), list(operands[k:])
        while bool(interp.run_region(op.regions[0], consts + carry)[0]):
            carry = interp.run_region(op.regions[1], consts + carry)
        return carry

    @classmethod
    def lower_regions(cls, lb, op, attrs) -> list:
        """``stablehlo.while`` carrying consts and carry; consts pass through the body."""
        k = attrs["num_consts"]
        types = [v.type for v in op.operands]
        new = lb.create("stablehlo.while", list(op.operands), types, regions=2)
        move_block(op.regions[0], new.regions[0], types)
        move_block(op.regions[1], new.regions[1], types,
                    prefix=lambda blk: list(blk.arguments[:k]))
        return list(new.results[k:])

    @classmethod
    def jvp_full(cls, b, ins, dins, out_avals, *, op, num_consts):
        k = num_consts
        consts, carry = list(ins[:k]), list(ins[k:])
        c_fn = outline(b, op, 0, "while_cond")
        b_fn = outline(b, op, 1, "while_body")
        if b.tape is None:
            t_consts = tangents_of(b, consts, dins[:k])
            t_carry = tangents_of(b, carry, dins[k:])
            b_jvp = b.ctx.jvp(b_fn)
            m = len(carry)
            arg_avals = avals_of(consts + t_consts + carry + t_carry, b)

            def cond(ib, a):
                return call(ib, c_fn, a[:k] + a[2 * k:2 * k + m], [BOOL])

            def body(ib, a):
                cs, tcs, cr, tcr = a[:k], a[k:2 * k], a[2 * k:2 * k + m], a[2 * k + m:]
                return call(ib, b_jvp, cs + cr + tcs + tcr, list(out_avals) * 2)

            res = emit_region_op(b.ir, While, consts + t_consts + carry + t_carry,
                                 [(arg_avals, cond), (arg_avals, body)], list(out_avals) * 2,
                                 num_consts=2 * k)
            return res[:m], res[m:]
        picked = diagonal.seeds(b, ins, dins, b_fn)
        if picked is not None:   # an elementwise loop: its derivatives in one forward loop
            outs, d = diagonal.forward_loop(b, cls, ins, picked, k, c_fn, b_fn, out_avals)
            return outs, diagonal.linear_map(b, dins, picked, d, out_avals)
        # reverse mode: count the iterations; the transpose recomputes the carries
        arg_avals = avals_of(consts, b) + [I32] + avals_of(carry, b)

        def cond(ib, a):
            return call(ib, c_fn, a[:k] + a[k + 1:], [BOOL])

        def body(ib, a):
            i = ib.add(a[k], ib.constant(np.int32(1)))
            return [i] + call(ib, b_fn, a[:k] + a[k + 1:], out_avals)

        zero = b.constant(value=np.asarray(0, np.int32))
        res = emit_region_op(b.ir, While, consts + [zero] + carry,
                             [(arg_avals, cond), (arg_avals, body)], [I32] + list(out_avals),
                             num_consts=k)
        n, outs = res[0], res[1:]
        lins = b.record(_WhileTranspose, list(dins) + list(ins) + [n], list(out_avals),
                        {"body": b_fn, "num_consts": k})
        return outs, lins

    @classmethod
    def batch(cls, b, args, dims, *, op, num_consts):
        """Only the carry entries that depend on batched values are batched (JAX's
        fixpoint). With an unbatched predicate the loop runs as before; with a batched one
        it runs until every example is done, finished examples keeping their carry."""
        k = num_consts
        c_fn = outline(b, op, 0, "while_cond")
        b_fn = outline(b, op, 1, "while_body")
        base = [None if d is None else 0 for d in dims]
        carry_b, in_dims, _, probe = batched_carry(b, b_fn, base, k, len(args) - k)
        c_v = vmap(b, c_fn, in_dims, None)
        if b.ctx.vmap_result_dims(c_v)[0] is not None:
            return cls._batch_predicate(b, args, dims, c_fn, b_fn, k)
        xs = [b.to_front(x, d) if nd is not None else x
              for x, d, nd in zip(args, dims, in_dims)]
        carry_dims = in_dims[k:]
        b_v = batched_as(b, b_fn, in_dims, carry_dims, probe)
        avals = avals_of(xs, b)

        def cond(ib, a):
            return call(ib, c_v, a, [BOOL])

        def body(ib, a):
            return call(ib, b_v, a, avals[k:])

        res = emit_region_op(b.ir, While, xs, [(avals, cond), (avals, body)], avals[k:],
                             num_consts=k)
        return res, carry_dims

    @classmethod
    def _batch_predicate(cls, b, args, dims, c_fn, b_fn, k):
        """A batched predicate: every operand batched; the loop runs while any example
        goes on, and a finished example keeps its carry."""
        xs = [b.to_front(x, d) for x, d in zip(args, dims)]
        n = len(xs)
        c_v = vmap(b, c_fn, (0,) * n, (0,))
        b_v = vmap(b, b_fn, (0,) * n, (0,) * (n - k))
        avals = avals_of(xs, b)
        carry_avals = avals[k:]
        pred_aval = ShapedArray((b.axis_size,), np.bool_)

        def cond(ib, a):
            p = call(ib, c_v, a, [pred_aval])[0]
            return [ib.reduce_or(p, axes=(0,))]

        def body(ib, a):
            p = call(ib, c_v, a, [pred_aval])[0]
            new = call(ib, b_v, a, carry_avals)
            return [ib.select(bcast(ib, p, ca), nv, old)
                    for nv, old, ca in zip(new, a[k:], carry_avals)]

        res = emit_region_op(b.ir, While, xs, [(avals, cond), (avals, body)], carry_avals,
                             num_consts=k)
        return res, [0] * len(res)


class _WhileTranspose:
    """Tape entry of a while loop: a backward loop recomputing each step's carry."""

    name = "irax.while"

    @classmethod
    def transpose(cls, b, ct, *operands, body, num_consts):
        k = num_consts
        n_in = (len(operands) - 1) // 2
        tans, prim, n = operands[:n_in], operands[n_in:2 * n_in], operands[-1]
        consts, init = list(prim[:k]), list(prim[k:])
        cts = ct if isinstance(ct, list) else [ct]
        in_avals, out_avals = funcs.signature(b.ctx.callee(body))
        wrt = tuple(has_tangent(a) for a in in_avals)
        ct_mask = tuple(has_tangent(a) for a in out_avals)
        body = b.ctx.quiet(body)           # the forward sweep printed; recomputing does not
        vjp = b.ctx.vjp(body, wrt, ct_mask)
        ct_carry = [b.instantiate(c, a) for c, a, f in zip(cts, out_avals, ct_mask) if f]
        acc = [b.zeros(a) for a, w in zip(in_avals[:k], wrt[:k]) if w]
        wrt_avals = [a for a, w in zip(in_avals, wrt) if w]
        n_acc, n_ct = len(acc), len(ct_carry)

        def apply(ib, cs, carry_i, st):
            ctc, ac = st[:n_ct], st[n_ct:]
            res = call(ib, vjp, list(cs) + list(carry_i) + list(ctc),
                       list(out_avals) + wrt_avals)
            grads = iter(res[len(out_avals):])
            g_consts = [next(grads) for w in wrt[:k] if w]
            g_carry = [next(grads) for w in wrt[k:] if w]
            return g_carry + [ib.add(x, y) for x, y in zip(ac, g_consts)]

        res = [None] + tape.reverse_sweep(b.ir, While, consts, init, n, ct_carry + acc, body,
                                          out_avals, apply)
        g_init, g_consts = iter(res[1:1 + n_ct]), iter(res[1 + n_ct:1 + n_ct + n_acc])
        out = [next(g_consts) if w else None for w in wrt[:k]]
        out += [next(g_init) if w else None for w in wrt[k:]]
        return [o if b.is_linear(t) else None for o, t in zip(out, tans)] + \
            [None] * (len(prim) + 1)
