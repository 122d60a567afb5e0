"""``irax.scan``: ``carry, y_i = body(consts, carry, x_i)`` over the leading axis of xs.

    %carry, %ys = "irax.scan"(%c, %init, %xs) ({
      ^bb0(%c, %carry, %x):  "irax.return"(%carry1, %y)
    }) {num_consts = 1, num_carry = 1, length = 8, reverse = false}

Reverse mode: the forward sweep also stacks the carry entering every step; the backward
sweep is a reverse scan over the body's VJP at those carries: O(length) memory for the
carries, one extra forward evaluation of the body per step.
"""

from __future__ import annotations

import numpy as np

from irax.core.abstract import ShapedArray
from irax.dialect import attrs as A
from irax.dialect import funcs, mlir
from irax.dialect import sharding as S
from irax.dialect.base import OpError
from irax.dialect.control_flow.region_op import (
    RegionOp,
    avals_of,
    batched_as,
    batched_carry,
    block_avals,
    fmt_avals,
    hoist_invariants,
    outline,
    return_avals,
    tangents_of,
)
from irax.dialect.control_flow.unroll import clone_body, steps_per_trip
from irax.dialect.regions import call, emit_region_op
from irax.dialect.rules import has_tangent

_I32 = ShapedArray((), np.int32)


def _step(b, region, consts, carry, xs, ys, pos, last, reverse: bool):
    """One scan step at position ``pos`` (an i32 value; step ``last - pos`` when
    ``reverse``: ``last`` is ``length - 1``, an int or an i32 value), emitted by the
    builder ``b``: the new carry and ys."""
    if reverse:
        last = b.constant(np.int32(last)) if type(last) is int else last
        idx = b.op("stablehlo.subtract", [last, pos], _I32)
    else:
        idx = pos
    x_slices = []
    for x in xs:
        a = mlir.aval_of(x)
        starts = [idx] + [b.constant(np.int32(0)) for _ in a.shape[1:]]
        s = b.op("stablehlo.dynamic_slice", [x, *starts], a.update(shape=(1, *a.shape[1:])),
                 slice_sizes=b.i64s([1, *a.shape[1:]]))
        x_slices.append(b.op("stablehlo.reshape", [s], a.update(shape=a.shape[1:])))
    results = clone_body(region, b.ip, list(consts) + list(carry) + x_slices)
    c = len(carry)
    new_ys = []
    for y, v in zip(ys, results[c:]):
        a = mlir.aval_of(y)
        upd = b.op("stablehlo.reshape", [v], a.update(shape=(1, *a.shape[1:])))
        starts = [idx] + [b.constant(np.int32(0)) for _ in a.shape[1:]]
        new_ys.append(b.op("stablehlo.dynamic_update_slice", [y, upd, *starts], a))
    return results[:c], new_ys


class Scan(RegionOp):
    """``carry, y_i = body(consts, carry, x_i)`` for i over the leading axis of ``xs``
    (``length`` steps, last to first when ``reverse``); results: final carry, stacked ys.
    Operands: consts, carry, xs; the body returns carry then ys slices."""

    name = "irax.scan"
    num_regions = 1
    attributes = {"num_consts": A.I64, "num_carry": A.I64, "length": A.I64,
                  "reverse": A.Bool}
    defaults = {"reverse": False}
    infers_results = False

    @classmethod
    def infer(cls, *avals, **attrs):
        raise OpError("result types of irax.scan come from its body")

    @classmethod
    def shard_regions(cls, p, *, num_consts, num_carry, **attrs):
        """Partitioned on the devices' blocks (``shard/regions.py``): the scanned
        dimension whole, each step's slice keeping the rest of its operand's sharding;
        the carry keeps its initial value's sharding (``sharding.settled_carry``); each
        stacked result has the sharding of the body's, its scanned dimension whole."""
        k, c = num_consts, num_carry
        consts = p.specs[:k]
        xs = [((),) + tuple(s[1:]) for s in p.specs[k + c:]]
        slices = [s[1:] for s in xs]
        carry, out = S.settled_carry(lambda cs: p.trial(0, consts + cs + slices, wants=cs),
                                     p.specs[k:k + c])
        ys = out[c:]
        return S.RegionPlan(operands=consts + carry + xs, args=[consts + carry + slices],
                            results=[carry + ys], out=carry + [((),) + tuple(y) for y in ys])

    @classmethod
    def verify_symbols(cls, op, symbols) -> None:
        cls.verify_regions(op, cls.decode_attrs(op))

    @classmethod
    def verify_regions(cls, op, attrs) -> None:
        k, c, n = attrs["num_consts"], attrs["num_carry"], attrs["length"]
        avals = [mlir.aval_of(v) for v in op.operands]
        if k + c > len(avals):
            raise OpError(f"expected at least {k + c} operands, but got {len(avals)}")
        xs = avals[k + c:]
        for a in xs:
            if not a.shape or a.shape[0] != n:
                raise OpError(f"expected scanned operands with leading dimension {n}, but got "
                              f"{a.str_short()}")
        slices = [a.update(shape=a.shape[1:]) for a in xs]
        want = [a.strip_weak() for a in avals[:k + c]] + slices
        if block_avals(op.regions[0]) != want:
            raise OpError(f"expected the body's arguments to be {fmt_avals(want)}, but got "
                          f"{fmt_avals(block_avals(op.regions[0]))}")
        ret = return_avals(op.regions[0])
        outs = [mlir.aval_of(r) for r in op.results]
        carry = avals[k:k + c]
        if ret[:c] != carry or outs[:c] != carry:
            raise OpError(f"expected the body to return the carry {fmt_avals(carry)} first, but it "
                          f"returns {fmt_avals(ret[:c])}")
        stacked = [a.update(shape=(n, *a.shape)) for a in ret[c:]]
        if outs[c:] != stacked:
            raise OpError(f"expected stacked results {fmt_avals(stacked)}, but got "
                          f"{fmt_avals(outs[c:])}")

    @classmethod
    def canonicalize(cls, op, *, num_consts, **attrs) -> bool:
        """Loop-invariant code motion: body ops computed from consts only move before the
        loop; their results enter as new consts."""
        return hoist_invariants(op, 0, num_consts, "num_consts")

    @classmethod
    def evaluate_regions(cls, interp, op, operands, attrs, out_avals):
        k, c, n = attrs["num_consts"], attrs["num_carry"], attrs["length"]
        consts, carry, xs = list(operands[:k]), list(operands[k:k + c]), operands[k + c:]
        ys = [np.zeros(a.shape, a.dtype) for a in out_avals[c:]]
        steps = range(n - 1, -1, -1) if attrs["reverse"] else range(n)
        for i in steps:
            out = interp.run_region(op.regions[0], consts + carry + [x[i] for x in xs])
            carry = list(out[:c])
            for y, v in zip(ys, out[c:]):
                y[i] = v
        return carry + ys

    @classmethod
    def lower_regions(cls, lb, op, attrs) -> list:
        """A ``stablehlo.while`` over (i, consts, carry, xs, ys) whose every trip runs
        ``u`` steps (``unroll.steps_per_trip``: more for smaller bodies), each slicing x_i
        with dynamic_slice, running a copy of the body and writing y_i with
        dynamic_update_slice; the ``length % u`` remaining steps follow the loop."""
        k, c, n, rev = attrs["num_consts"], attrs["num_carry"], attrs["length"], \
            attrs["reverse"]
        region = op.regions[0]
        u = steps_per_trip(region, n)
        looped = n // u * u
        operands = list(op.operands)
        xs_n = len(operands) - k - c
        ys_avals = [mlir.aval_of(r) for r in op.results[c:]]
        zero = lb.constant(np.int32(0))
        ys0 = [lb.constant(np.zeros((), a.dtype)) for a in ys_avals]
        ys0 = [lb.splat(z, a) for z, a in zip(ys0, ys_avals)]
        if n == 0:   # no step: the body is never run (its slices would not verify)
            return operands[k:k + c] + ys0
        # a symbolic length (a scan over an axis of abstracted size) is read at run time
        limit = np.int32(looped) if type(n) is int else \
            lb.op("stablehlo.convert", [lb.dim_value(n)], _I32)
        last = n - 1 if type(n) is int else \
            lb.op("stablehlo.subtract", [limit, lb.constant(np.int32(1))], _I32)
        init = [zero] + operands + ys0
        types = [v.type for v in init]
        loop = lb.create("stablehlo.while", init, types, regions=2)
        # cond: i < the steps the loop runs
        cblock = loop.regions[0].blocks.append(*types)
        cb = lb.at_end(cblock)
        if type(n) is int:
            limit = cb.constant(limit)
        cb.ret([cb.compare(cblock.arguments[0], limit, "LT")])
        # body: u steps
        bblock = loop.regions[1].blocks.append(*types)
        bb = lb.at_end(bblock)
        args = list(bblock.arguments)
        i = args[0]
        consts, carry = args[1:1 + k], args[1 + k:1 + k + c]
        xs, ys = args[1 + k + c:1 + k + c + xs_n], args[1 + k + c + xs_n:]
        for j in range(u):
            pos = i if j == 0 else bb.op("stablehlo.add", [i, bb.constant(np.int32(j))], _I32)
            carry, ys = _step(bb, region, consts, carry, xs, ys, pos, last, rev)
        i1 = bb.op("stablehlo.add", [i, bb.constant(np.int32(u))], _I32)
        bb.ret([i1] + consts + list(carry) + xs + list(ys))
        carry = list(loop.results[1 + k:1 + k + c])
        ys = list(loop.results[1 + k + c + xs_n:])
        consts, xs = operands[:k], operands[k + c:]
        for j in range(looped, n) if type(n) is int else ():
            carry, ys = _step(lb, region, consts, carry, xs, ys, lb.constant(np.int32(j)),
                              last, rev)
        return list(carry) + list(ys)

    @classmethod
    def jvp_full(cls, b, ins, dins, out_avals, *, op, num_consts, num_carry, length, reverse):
        k, c = num_consts, num_carry
        consts, carry, xs = list(ins[:k]), list(ins[k:k + c]), list(ins[k + c:])
        f = outline(b, op, 0, "scan_body")
        in_avals, body_outs = funcs.signature(b.ctx.callee(f))
        if b.tape is None:
            t_all = tangents_of(b, ins, dins)
            tc, tcr, tx = t_all[:k], t_all[k:k + c], t_all[k + c:]
            fj = b.ctx.jvp(f)
            nx = len(xs)
            arg_avals = in_avals[:k] * 2 + in_avals[k:k + c] * 2 + in_avals[k + c:] * 2

            def body(ib, a):
                cs, tcs = a[:k], a[k:2 * k]
                cr, tcr_ = a[2 * k:2 * k + c], a[2 * k + c:2 * k + 2 * c]
                x, tx_ = a[2 * k + 2 * c:2 * k + 2 * c + nx], a[2 * k + 2 * c + nx:]
                r = call(ib, fj, cs + cr + x + tcs + tcr_ + tx_, body_outs * 2)
                m = len(body_outs)
                prim, tan = r[:m], r[m:]
                return prim[:c] + tan[:c] + prim[c:] + tan[c:]

            ys = out_avals[c:]
            res = emit_region_op(b.ir, Scan, consts + tc + carry + tcr + xs + tx,
                                 [(arg_avals, body)], list(out_avals[:c]) * 2 + list(ys) * 2,
                                 num_consts=2 * k, num_carry=2 * c, length=length,
                                 reverse=reverse)
            ny = len(ys)
            return (res[:c] + res[2 * c:2 * c + ny], res[c:2 * c] + res[2 * c + ny:])
        # reverse mode: also stack the carry entering each step
        stacked = [a.update(shape=(length, *a.shape)) for a in in_avals[k:k + c]]

        def body(ib, a):
            r = call(ib, f, a, body_outs)
            return r + list(a[k:k + c])

        res = emit_region_op(b.ir, Scan, list(ins), [(in_avals, body)],
                             list(out_avals) + stacked, num_consts=k, num_carry=c,
                             length=length, reverse=reverse)
        outs, carries = res[:len(out_avals)], res[len(out_avals):]
        lins = b.record(_ScanTranspose, list(dins) + consts + xs + carries, list(out_avals),
                        {"body": f, "num_consts": k, "num_carry": c, "length": length,
                         "reverse": reverse})
        return outs, lins

    @classmethod
    def batch(cls, b, args, dims, *, op, num_consts, num_carry, length, reverse):
        """The loop stays over time. Batched consts and the carry entries that depend on
        batched values (JAX's fixpoint) are batched first, batched scanned operands on axis
        1 (after the time axis); results likewise, unbatched ones stay unbatched."""
        k, c = num_consts, num_carry
        f = outline(b, op, 0, "scan_body")
        in_avals, body_outs = funcs.signature(b.ctx.callee(f))
        base = [None if d is None else 0 for d in dims]
        carry_b, in_dims, out_dims, probe = batched_carry(b, f, base, k, c)
        ys_dims = [None if d is None else 0 for d in out_dims[c:]]
        head = [b.to_front(x, d) if nd is not None else x
                for x, d, nd in zip(args[:k + c], dims[:k + c], in_dims[:k + c])]
        xs = [x if d is None else b.matchaxis(x, d, 1)
              for x, d in zip(args[k + c:], dims[k + c:])]
        fv = batched_as(b, f, in_dims, in_dims[k:k + c] + ys_dims, probe)
        slice_avals = [a if d is None else a.insert_axis(0, b.axis_size)
                       for a, d in zip(in_avals, in_dims)]
        out_slices = [a if d is None else a.insert_axis(0, b.axis_size)
                      for a, d in zip(body_outs, in_dims[k:k + c] + ys_dims)]

        def body(ib, a):
            return call(ib, fv, a, out_slices)

        results = out_slices[:c] + [a.update(shape=(length, *a.shape)) for a in out_slices[c:]]
        res = emit_region_op(b.ir, Scan, head + xs, [(slice_avals, body)], results,
                             num_consts=k, num_carry=c, length=length, reverse=reverse)
        return res, in_dims[k:k + c] + [None if d is None else 1 for d in ys_dims]


class _ScanTranspose:
    """Tape entry of a scan: a reverse scan over the body's VJP at the stacked carries."""

    name = "irax.scan"

    @classmethod
    def transpose(cls, b, ct, *operands, body, num_consts, num_carry, length, reverse):
        k, c = num_consts, num_carry
        in_avals, outs = funcs.signature(b.ctx.callee(body))
        n_in = len(in_avals)
        tans = operands[:n_in]
        consts = list(operands[n_in:n_in + k])
        xs = list(operands[n_in + k:n_in + k + (n_in - k - c)])
        carries = list(operands[n_in + k + (n_in - k - c):])
        cts = ct if isinstance(ct, list) else [ct]
        wrt = tuple(has_tangent(a) for a in in_avals)
        ct_mask = tuple(has_tangent(a) for a in outs)
        vjp = b.ctx.vjp(b.ctx.quiet(body), wrt, ct_mask)   # prints ran forward
        y_avals = outs[c:]
        full_out = [b.instantiate(x, a.update(shape=(length, *a.shape)) if i >= c else a)
                    for i, (x, a) in enumerate(zip(cts, outs))]
        ct_carry = [x for x, m in zip(full_out[:c], ct_mask[:c]) if m]
        ct_ys = [x for x, m in zip(full_out[c:], ct_mask[c:]) if m]
        acc = [b.zeros(a) for a, w in zip(in_avals[:k], wrt[:k]) if w]
        wrt_avals = [a for a, w in zip(in_avals, wrt) if w]
        n_ct, n_acc = len(ct_carry), len(acc)
        nx = len(xs)
        x_slices = in_avals[k + c:]
        c_avals = in_avals[k:k + c]
        ycts = [a for a, m in zip(y_avals, ct_mask[c:]) if m]
        gx_avals = [a for a, w in zip(x_slices, wrt[k + c:]) if w]
        arg_avals = (in_avals[:k] + [a for a, m in zip(outs[:c], ct_mask[:c]) if m]
                     + [a for a, w in zip(in_avals[:k], wrt[:k]) if w]
                     + x_slices + c_avals + ycts)

        def step(ib, a):
            cs = a[:k]
            ctc = a[k:k + n_ct]
            ac = a[k + n_ct:k + n_ct + n_acc]
            x = a[k + n_ct + n_acc:k + n_ct + n_acc + nx]
            carry_i = a[k + n_ct + n_acc + nx:k + n_ct + n_acc + nx + c]
            cty = a[k + n_ct + n_acc + nx + c:]
            r = call(ib, vjp, cs + carry_i + x + ctc + cty, list(outs) + wrt_avals)
            g = iter(r[len(outs):])
            g_consts = [next(g) for w in wrt[:k] if w]
            g_carry = [next(g) for w in wrt[k:k + c] if w]
            g_x = [next(g) for w in wrt[k + c:] if w]
            ac = [ib.add(u, v) for u, v in zip(ac, g_consts)]
            return g_carry + ac + g_x

        res = emit_region_op(
            b.ir, Scan, consts + ct_carry + acc + xs + carries + ct_ys, [(arg_avals, step)],
            [a for a, w in zip(c_avals, wrt[k:k + c]) if w] + avals_of(acc, b)
            + [a.update(shape=(length, *a.shape)) for a in gx_avals],
            num_consts=k, num_carry=n_ct + n_acc, length=length, reverse=not reverse)
        it_carry = iter(res[:n_ct])
        it_acc = iter(res[n_ct:n_ct + n_acc])
        it_x = iter(res[n_ct + n_acc:])
        out = [next(it_acc) if w else None for w in wrt[:k]]
        out += [next(it_carry) if w else None for w in wrt[k:k + c]]
        out += [next(it_x) if w else None for w in wrt[k + c:]]
        out = [o if b.is_linear(t) else None for o, t in zip(out, tans)]
        return out + [None] * (len(operands) - n_in)
