"""Derivative and batching rules of the control-flow ops (``control_flow.py``).

Every rule outlines the op's regions into private functions and reuses the
function-level transformations: the JVP of a loop is a loop over the JVP of its body; a
batched loop is a loop over the batched body.

Reverse mode:
- ``cond``: the forward sweep runs the chosen branch; the backward sweep runs a ``cond``
  over the branches' VJPs (each recomputes its branch's forward values).
- ``scan``: the forward sweep also stacks the carry entering every step; the backward
  sweep is a reverse scan over the body's VJP at those carries: O(length) memory for the
  carries, one extra forward evaluation of the body per step.
- ``while`` (any trip count, data-dependent included, which JAX does not support): the
  forward sweep counts the iterations n; the backward sweep visits k = n-1, ..., 0 and
  recomputes the carry entering step k from the initial carry (an inner loop of k steps)
  before applying the body's VJP. Memory: O(1) beyond the carry; time: O(n^2) body
  evaluations. Use ``scan``/``fori_loop`` with static bounds where the trip count is known.
"""

from __future__ import annotations

import numpy as np

from irax.autodiff.jvp import has_tangent, jvp_function
from irax.autodiff.vjp import vjp_function
from irax.core.abstract import ShapedArray
from irax.dialect import funcs, mlir
from irax.dialect.regions import call, emit_region_op, region_to_function

I32 = ShapedArray((), np.int32)
BOOL = ShapedArray((), np.bool_)


def _avals(values, b):
    return [b.aval(v) for v in values]


def _outline(b, op, index: int, what: str) -> str:
    return region_to_function(b.ctx, op.regions[index], f"{what}")


def _tangents(b, ins, dins):
    return [b.instantiate(t, b.aval(x)) for t, x in zip(dins, ins)]


# ---- cond ----------------------------------------------------------------------------------------
def cond_jvp(cls, b, ins, dins, out_avals, *, op):
    from irax.dialect.control_flow import Cond

    index, ops = ins[0], ins[1:]
    branches = [_outline(b, op, i, f"branch{i}") for i in range(len(op.regions))]
    if b.tape is None:
        tans = _tangents(b, ops, dins[1:])
        jfns = [jvp_function(b.ctx, f) for f in branches]
        arg_avals = _avals(ops, b) + _avals(tans, b)
        specs = [(arg_avals, lambda ib, args, j=j: call(ib, j, args, list(out_avals) * 2))
                 for j in jfns]
        res = emit_region_op(b.ir, Cond, [index, *ops, *tans], specs, list(out_avals) * 2)
        return res[:len(out_avals)], res[len(out_avals):]
    new = funcs.clone_op(op, ins, b.ir.ip)
    lins = b.record(_CondTranspose, list(dins[1:]) + list(ins),
                    [a for a in out_avals], {"branches": tuple(branches),
                                             "n_ops": len(ops)})
    return list(new.results), lins


class _CondTranspose:
    """Tape entry of a cond: a cond over the branches' VJPs."""

    name = "irax.cond"

    @classmethod
    def transpose(cls, b, ct, *operands, branches, n_ops):
        from irax.dialect.control_flow import Cond

        tans, index, ops = operands[:n_ops], operands[n_ops], operands[n_ops + 1:]
        cts = ct if isinstance(ct, list) else [ct]
        _, outs = funcs.signature(b.ctx.callee(branches[0]))
        wrt = tuple(b.is_linear(t) for t in tans)
        ct_mask = tuple(has_tangent(a) for a in outs)
        cts = [b.instantiate(c, a) for c, a, m in zip(cts, outs, ct_mask) if m]
        in_avals = _avals(ops, b)
        wrt_avals = [a for a, w in zip(in_avals, wrt) if w]
        vjps = [vjp_function(b.ctx, f, wrt, ct_mask) for f in branches]
        arg_avals = in_avals + _avals(cts, b)
        specs = [(arg_avals, lambda ib, args, v=v: call(ib, v, args, list(outs) + wrt_avals)
                  [len(outs):]) for v in vjps]
        res = iter(emit_region_op(b.ir, Cond, [index, *ops, *cts], specs, wrt_avals))
        return [next(res) if w else None for w in wrt] + [None] * (1 + n_ops)


def cond_batch(cls, b, args, dims, *, op):
    from irax.dialect.control_flow import Cond

    index, ops = args[0], [b.to_front(x, d) for x, d in zip(args[1:], dims[1:])]
    branches = [_outline(b, op, i, f"branch{i}") for i in range(len(op.regions))]
    n_in = len(ops)
    _, outs = funcs.signature(b.ctx.callee(branches[0]))
    vfns = [_vmap(b, f, (0,) * n_in, (0,) * len(outs)) for f in branches]
    out_avals = [_insert(a, b.axis_size) for a in outs]
    if dims[0] is None:
        specs = [(_avals(ops, b), lambda ib, a, v=v: call(ib, v, a, out_avals)) for v in vfns]
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
            mask = _bcast(b, take, b.aval(r))
            chosen[j] = b.select(mask, r, chosen[j])
    return chosen, [0] * len(outs)


# ---- while ---------------------------------------------------------------------------------------
def while_jvp(cls, b, ins, dins, out_avals, *, op, num_consts):
    from irax.dialect.control_flow import While

    k = num_consts
    consts, carry = list(ins[:k]), list(ins[k:])
    c_fn = _outline(b, op, 0, "while_cond")
    b_fn = _outline(b, op, 1, "while_body")
    if b.tape is None:
        t_consts = _tangents(b, consts, dins[:k])
        t_carry = _tangents(b, carry, dins[k:])
        b_jvp = jvp_function(b.ctx, b_fn)
        m = len(carry)
        arg_avals = _avals(consts + t_consts + carry + t_carry, b)

        def cond(ib, a):
            return call(ib, c_fn, a[:k] + a[2 * k:2 * k + m], [BOOL])

        def body(ib, a):
            cs, tcs, cr, tcr = a[:k], a[k:2 * k], a[2 * k:2 * k + m], a[2 * k + m:]
            return call(ib, b_jvp, cs + cr + tcs + tcr, list(out_avals) * 2)

        res = emit_region_op(b.ir, While, consts + t_consts + carry + t_carry,
                             [(arg_avals, cond), (arg_avals, body)], list(out_avals) * 2,
                             num_consts=2 * k)
        return res[:m], res[m:]
    # reverse mode: count the iterations; the transpose recomputes the carries
    arg_avals = _avals(consts, b) + [I32] + _avals(carry, b)

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


class _WhileTranspose:
    """Tape entry of a while loop: a backward loop recomputing each step's carry."""

    name = "irax.while"

    @classmethod
    def transpose(cls, b, ct, *operands, body, num_consts):
        from irax.dialect.control_flow import While

        k = num_consts
        n_in = (len(operands) - 1) // 2
        tans, prim, n = operands[:n_in], operands[n_in:2 * n_in], operands[-1]
        consts, init = list(prim[:k]), list(prim[k:])
        cts = ct if isinstance(ct, list) else [ct]
        in_avals, out_avals = funcs.signature(b.ctx.callee(body))
        wrt = tuple(has_tangent(a) for a in in_avals)
        ct_mask = tuple(has_tangent(a) for a in out_avals)
        vjp = vjp_function(b.ctx, body, wrt, ct_mask)
        ct_carry = [b.instantiate(c, a) for c, a, f in zip(cts, out_avals, ct_mask) if f]
        acc = [b.zeros(a) for a, w in zip(in_avals[:k], wrt[:k]) if w]
        wrt_avals = [a for a, w in zip(in_avals, wrt) if w]
        n_acc, n_ct = len(acc), len(ct_carry)
        start = b.sub(n, b.constant(value=np.asarray(1, np.int32)))
        loop_consts = consts + init
        state = [start] + ct_carry + acc
        arg_avals = _avals(loop_consts + state, b)
        kk = len(loop_consts)

        def cond(ib, a):
            return [ib.compare(a[kk], ib.constant(np.int32(0)), direction="GE")]

        def step(ib, a):
            cs, ini = a[:k], a[k:kk]
            i, ctc, ac = a[kk], a[kk + 1:kk + 1 + n_ct], a[kk + 1 + n_ct:]
            carry_i = _recompute(ib, cs, ini, i, body, out_avals)
            res = call(ib, vjp, cs + carry_i + ctc, list(out_avals) + wrt_avals)
            grads = iter(res[len(out_avals):])
            g_consts = [next(grads) for w in wrt[:k] if w]
            g_carry = [next(grads) for w in wrt[k:] if w]
            ac = [ib.add(x, y) for x, y in zip(ac, g_consts)]
            return [ib.sub(i, ib.constant(np.int32(1)))] + g_carry + ac

        res = emit_region_op(b.ir, While, loop_consts + state, [(arg_avals, cond),
                                                                 (arg_avals, step)],
                             _avals(state, b), num_consts=kk)
        g_init, g_consts = iter(res[1:1 + n_ct]), iter(res[1 + n_ct:1 + n_ct + n_acc])
        out = [next(g_consts) if w else None for w in wrt[:k]]
        out += [next(g_init) if w else None for w in wrt[k:]]
        return [o if b.is_linear(t) else None for o, t in zip(out, tans)] + \
            [None] * (len(prim) + 1)


def _recompute(ib, consts, init, steps, body, out_avals):
    """The carry after ``steps`` applications of ``body`` to ``init`` (an inner loop)."""
    from irax.dialect.control_flow import While

    k = len(consts)
    arg_avals = [mlir.aval_of(v) for v in consts] + [I32, I32] + list(out_avals)

    def cond(jb, a):
        return [jb.compare(a[k], a[k + 1], direction="LT")]

    def body_fill(jb, a):
        j = jb.add(a[k], jb.constant(np.int32(1)))
        return [j, a[k + 1]] + call(jb, body, a[:k] + a[k + 2:], out_avals)

    zero = ib.constant(np.int32(0))
    res = emit_region_op(ib, While, list(consts) + [zero, steps] + list(init),
                         [(arg_avals, cond), (arg_avals, body_fill)],
                         [I32, I32] + list(out_avals), num_consts=k)
    return res[2:]


def while_batch(cls, b, args, dims, *, op, num_consts):
    """Runs until every example is done; finished examples keep their carry."""
    from irax.dialect.control_flow import While

    k = num_consts
    xs = [b.to_front(x, d) for x, d in zip(args, dims)]
    c_fn = _outline(b, op, 0, "while_cond")
    b_fn = _outline(b, op, 1, "while_body")
    n = len(xs)
    c_v = _vmap(b, c_fn, (0,) * n, (0,))
    b_v = _vmap(b, b_fn, (0,) * n, (0,) * (n - k))
    avals = _avals(xs, b)
    carry_avals = avals[k:]
    pred_aval = ShapedArray((b.axis_size,), np.bool_)

    def cond(ib, a):
        p = call(ib, c_v, a, [pred_aval])[0]
        return [ib.reduce_or(p, axes=(0,))]

    def body(ib, a):
        p = call(ib, c_v, a, [pred_aval])[0]
        new = call(ib, b_v, a, carry_avals)
        return [ib.select(_bcast(ib, p, ca), nv, old)
                for nv, old, ca in zip(new, a[k:], carry_avals)]

    res = emit_region_op(b.ir, While, xs, [(avals, cond), (avals, body)], carry_avals,
                         num_consts=k)
    return res, [0] * len(res)


# ---- scan ----------------------------------------------------------------------------------------
def scan_jvp(cls, b, ins, dins, out_avals, *, op, num_consts, num_carry, length, reverse):
    from irax.dialect.control_flow import Scan

    k, c = num_consts, num_carry
    consts, carry, xs = list(ins[:k]), list(ins[k:k + c]), list(ins[k + c:])
    f = _outline(b, op, 0, "scan_body")
    in_avals, body_outs = funcs.signature(b.ctx.callee(f))
    if b.tape is None:
        t_all = _tangents(b, ins, dins)
        tc, tcr, tx = t_all[:k], t_all[k:k + c], t_all[k + c:]
        fj = jvp_function(b.ctx, f)
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


class _ScanTranspose:
    """Tape entry of a scan: a reverse scan over the body's VJP at the stacked carries."""

    name = "irax.scan"

    @classmethod
    def transpose(cls, b, ct, *operands, body, num_consts, num_carry, length, reverse):
        from irax.dialect.control_flow import Scan

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
        vjp = vjp_function(b.ctx, body, wrt, ct_mask)
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
            [a for a, w in zip(c_avals, wrt[k:k + c]) if w] + _avals(acc, b)
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


def scan_batch(cls, b, args, dims, *, op, num_consts, num_carry, length, reverse):
    """The loop stays over time: consts and carry batched first, scanned operands batched
    on axis 1 (after the time axis), results likewise."""
    from irax.dialect.control_flow import Scan

    k, c = num_consts, num_carry
    head = [b.to_front(x, d) for x, d in zip(args[:k + c], dims[:k + c])]
    xs = [b.matchaxis(x, d, 1) for x, d in zip(args[k + c:], dims[k + c:])]
    f = _outline(b, op, 0, "scan_body")
    in_avals, body_outs = funcs.signature(b.ctx.callee(f))
    fv = _vmap(b, f, (0,) * len(in_avals), (0,) * len(body_outs))
    slice_avals = [_insert(a, b.axis_size) for a in in_avals]
    out_slices = [_insert(a, b.axis_size) for a in body_outs]

    def body(ib, a):
        return call(ib, fv, a, out_slices)

    results = out_slices[:c] + [a.update(shape=(length, *a.shape)) for a in out_slices[c:]]
    res = emit_region_op(b.ir, Scan, head + xs, [(slice_avals, body)], results,
                         num_consts=k, num_carry=c, length=length, reverse=reverse)
    return res, [0] * c + [1] * (len(res) - c)


# ---- helpers -------------------------------------------------------------------------------------
def _insert(aval, size):
    return aval.update(shape=(size, *aval.shape))


def _bcast(b, pred, aval):
    """A (B,) predicate broadcast over ``aval``'s shape (batch first)."""
    if mlir.aval_of(pred).shape == aval.shape:
        return pred
    return b.broadcast_in_dim(pred, shape=aval.shape, broadcast_dimensions=(0,))


def _vmap(b, fn, in_dims, out_axes):
    from irax.vectorize.batch import vmap_function

    return vmap_function(b.ctx, fn, tuple(in_dims), tuple(out_axes), b.axis_size,
                         b.axis_name)
