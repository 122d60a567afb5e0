"""Reverse mode of an elementwise while loop in one forward sweep.

When every op of a loop's body is elementwise (its carries and consts are 0-d or of one
shape ``S``), element ``j`` of each result depends only on element ``j`` of the shaped
inputs and on the 0-d ones: the Jacobian of the whole loop is diagonal (plus dense
columns for 0-d inputs). It is then cheaper to compute it forward than to sweep the loop
backwards from a tape: one loop carrying, beside the primal carry, the tangents of one
*seed* per differentiable input leaf ``L`` (ones on ``L``, zeros elsewhere) yields
``D[O, L]``, the derivative of each output leaf ``O`` with respect to ``L``,
elementwise. The linear map of the loop is then ``dO = sum_L D[O, L] * dL`` (``dL``
broadcast when ``L`` is 0-d), ordinary linear ops that the tape transposes like any other.
The loop's condition only sets the trip count, which is constant almost everywhere, so
it may hold any op. The same loop serves forward mode's rule (``While.jvp_full``) too.

    %r = irax.while(%c, %x) {                  // x: f32[64], body: sin(x) * c
    }
  linearized (one seed, on %x):
    %r, %d = irax.while(%c, %zero, %x, %one) { body_jvp(c, x, 0, t) }
    dr = %d * dx                               // recorded, transposed to ct * %d

A loop qualifies with at most ``MAX_SEEDS`` differentiable leaves, all real floating
point of one dtype; otherwise the tape of ``while_tape.py`` runs the reverse sweep.
"""

from __future__ import annotations

from irax.core import dtypes
from irax.core.config import config
from irax.dialect import funcs, mlir
from irax.dialect.constant import Constant
from irax.dialect.control import Call, is_return
from irax.dialect.control_flow.region_op import BOOL, avals_of
from irax.dialect.elementwise import Compare, Convert, ElementwiseBinary, ElementwiseUnary, Select
from irax.dialect.regions import call, emit_region_op
from irax.dialect.shape import BroadcastInDim
from irax.dialect.upstream import op_class

#: most differentiable leaves: each adds a tangent copy of the carry and of the body
MAX_SEEDS = 4

_ELEMENTWISE = (ElementwiseUnary, ElementwiseBinary, Compare, Select, Convert, Constant)


def _elementwise_ops(ctx, ops, depth: int = 0) -> bool:
    """Whether every op (and every op of the functions they call) keeps elements apart."""
    for op in ops:
        cls = op_class(op)
        if is_return(op) or (isinstance(cls, type) and issubclass(cls, _ELEMENTWISE)):
            continue
        if cls is BroadcastInDim and mlir.aval_of(op.operands[0]).shape == ():
            continue
        if cls is Call and depth < 8:
            fn = ctx.callee(Call.callee_of(Call.decode_attrs(op)))
            if _elementwise_ops(ctx, funcs.body_ops(fn), depth + 1):
                continue
        return False
    return True


def seeds(b, ins, dins, body: str) -> list[int] | None:
    """The input leaves to seed (those with a tangent) when the loop over ``body``
    qualifies, else None."""
    if not config.irax_while_grad_forward:
        return None
    avals = avals_of(ins, b)
    shapes = {a.shape for a in avals} - {()}
    if len(shapes) > 1:
        return None
    picked = [i for i, t in enumerate(dins) if t is not None]
    if len(picked) > MAX_SEEDS:
        return None
    kinds = {avals[i].strip_weak().dtype for i in picked}
    if len(kinds) > 1 or any(not dtypes.is_float(d) for d in kinds):
        return None
    _, outs = funcs.signature(b.ctx.callee(body))
    if any(dtypes.is_inexact(a.dtype) and a.dtype not in kinds for a in outs) and picked:
        return None
    if not _elementwise_ops(b.ctx, funcs.body_ops(b.ctx.callee(body))):
        return None
    return picked


def forward_loop(b, loop, ins, picked, num_consts: int, cond: str, body: str, out_avals):
    """The loop carrying the tangents of each seed: ``(outs, D)``, ``D[s][o]`` the
    derivative of output ``o`` along seed ``s`` (input leaf ``picked[s]``; None for
    outputs that are not floating point). Only floating-point tangents of the carry are
    carried; those of the consts and of integer leaves are constants of the body."""
    k, m, ns = num_consts, len(ins) - num_consts, len(picked)
    consts, carry = list(ins[:k]), list(ins[k:])
    avals = avals_of(ins, b)
    fl = [j for j in range(m) if dtypes.is_inexact(out_avals[j].dtype)]
    jvp = b.ctx.jvp(body)
    t_carry = [b.full(avals[k + j], 1 if k + j == picked[s] else 0)
               for s in range(ns) for j in fl]
    operands = consts + carry + t_carry
    arg_avals = avals_of(operands, b)
    nf = len(fl)

    def cond_fn(ib, a):
        return call(ib, cond, a[:k + m], [BOOL])

    def body_fn(ib, a):
        cs, cr = a[:k], a[k:k + m]
        prim, outs_t = None, []
        for s in range(ns):
            tc = [ib.full(avals[i], 1 if i == picked[s] else 0) for i in range(k)]
            carried = dict(zip(fl, a[k + m + s * nf:k + m + (s + 1) * nf]))
            tr = [carried[j] if j in carried else ib.full(avals[k + j], 0) for j in range(m)]
            res = call(ib, jvp, cs + cr + tc + tr, list(out_avals) * 2)
            prim = res[:m] if prim is None else prim
            outs_t += [res[m + j] for j in fl]
        if prim is None:
            prim = call(ib, body, cs + cr, list(out_avals))
        return list(prim) + outs_t

    res = emit_region_op(b.ir, loop, operands, [(arg_avals, cond_fn), (arg_avals, body_fn)],
                         list(out_avals) + [out_avals[j] for j in fl] * ns, num_consts=k)
    D = []
    for s in range(ns):
        got = dict(zip(fl, res[m + s * nf:m + (s + 1) * nf]))
        D.append([got.get(j) for j in range(m)])
    return res[:m], D


def linear_map(b, dins, picked, D, out_avals) -> list:
    """``dO = sum_s D[s][O] * dL_s`` for each output ``O`` (None where nothing flows)."""
    lins = []
    for o, oa in enumerate(out_avals):
        acc = None
        if dtypes.is_inexact(oa.dtype):
            for s, i in enumerate(picked):
                t = dins[i]
                ta = b.aval(t)
                if ta.shape != oa.shape:
                    if oa.shape == () or ta.shape != ():
                        continue                    # a 0-d output of a shaped input: 0
                    t = b.broadcast_in_dim(t, shape=oa.shape, broadcast_dimensions=())
                acc = b.add_any(acc, b.mul(t, D[s][o]))
        lins.append(acc)
    return lins
