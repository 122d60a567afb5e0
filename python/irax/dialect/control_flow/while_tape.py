"""The carries a while loop's reverse sweep needs, in O(n) body evaluations.

The backward sweep of ``irax.while`` visits steps ``n-1, ..., 0`` and needs the carry
entering each. Two fixed-size buffers per carry leaf give it them (sizes from
``irax_while_grad_tape_bytes``; ``C`` checkpoint rows, ``R`` segment rows):

- checkpoints ``CK``: one forward sweep stores the carry entering every ``s``-th step,
  ``s = ceil(n / C)`` (``CK[j / s]`` when ``s`` divides ``j``; other steps write a
  scratch row);
- for each segment ``q`` (steps ``q s`` .. ``q s + L - 1``), last to first: a forward
  sweep from ``CK[q]`` stores the carry entering every ``s2``-th of its steps in ``SEG``
  (``s2 = ceil(L / R)``, 1 unless the loop is longer than ``C R`` steps), then a
  backward sweep over the segment takes step ``t``'s carry from ``SEG[t / s2]``, advanced
  by ``t mod s2`` steps, and applies the body's VJP.

Cost: about ``2 n`` body evaluations plus the ``n`` VJPs while ``n <= C R``; beyond,
``n s2 / 2`` more. No branch: every loop has a computed trip count.

    %ck = irax.while(...)                       // checkpoints
    irax.while(%q = m - 1, ...) {               // segments, last to first
      %seg = irax.while(...)                    //   fill the segment buffer
      irax.while(%t = L - 1, ...) { vjp(body)(SEG[t], ct) }
    }
"""

from __future__ import annotations

import numpy as np

from irax.core.config import config
from irax.core.shape_poly import estimate
from irax.dialect import mlir
from irax.dialect.regions import call, emit_region_op

#: most rows of the two buffers: a loop carrying a large buffer copies it now and then,
#: and for short loops small segments cost less than many tiny ones
CHECKPOINT_ROWS = 256
SEGMENT_ROWS = 64


def capacity(carry_avals) -> tuple[int, int]:
    """Rows of the checkpoint and of the segment buffer within the tape budget."""
    row = sum(max(estimate(a.size), 1) * a.dtype.itemsize for a in carry_avals) or 1
    total = max(4, config.irax_while_grad_tape_bytes // row)
    seg = int(max(2, min(SEGMENT_ROWS, total // 2)))
    return int(max(2, min(CHECKPOINT_ROWS, total - seg))), seg


def _i32(b, v: int):
    return b.constant(value=np.asarray(v, np.int32))


def _buffers(b, avals, rows: int):
    return [b.full(a.update(shape=(rows, *a.shape)).strip_weak(), 0) for a in avals]


def _read(b, bufs, row, avals):
    """Row ``row`` of each buffer, as carry values."""
    out = []
    for buf, a in zip(bufs, avals):
        starts = [row] + [_i32(b, 0) for _ in a.shape]
        s = b.dynamic_slice(buf, *starts, slice_sizes=(1, *a.shape))
        out.append(b.reshape(s, new_sizes=a.shape))
    return out


def _write(b, bufs, row, values, avals):
    out = []
    for buf, v, a in zip(bufs, values, avals):
        starts = [row] + [_i32(b, 0) for _ in a.shape]
        out.append(b.dynamic_update_slice(buf, b.reshape(v, new_sizes=(1, *a.shape)), *starts))
    return out


def checkpoints(b, loop, consts, init, n, stride, rows: int, body: str, avals):
    """``CK`` (``rows + 1`` rows per carry leaf, the last a scratch row): the carry
    entering steps 0, s, 2s, ... of the ``n``-step loop (``loop``: the while op class)."""
    k, m = len(consts), len(init)
    bufs = _buffers(b, avals, rows + 1)
    outer = list(consts) + [n, stride]
    state = [_i32(b, 0)] + list(init) + bufs
    arg_avals = [mlir.aval_of(v) for v in outer + state]

    def cond(ib, a):
        return [ib.compare(a[k + 2], a[k], direction="LT")]

    def step(ib, a):
        st, j, carry, ck = a[k + 1], a[k + 2], a[k + 3:k + 3 + m], a[k + 3 + m:]
        on = ib.compare(ib.rem(j, st), _i32(ib, 0), direction="EQ")
        row = ib.select(on, ib.div(j, st), _i32(ib, rows))
        ck = _write(ib, ck, row, carry, avals)
        nxt = call(ib, body, a[:k] + carry, avals)
        return [ib.add(j, _i32(ib, 1))] + nxt + ck

    res = emit_region_op(b, loop, outer + state, [(arg_avals, cond), (arg_avals, step)],
                         arg_avals[k + 2:], num_consts=k + 2)
    return res[1 + m:]


def _fill(b, loop, consts, start, length, stride, rows: int, body: str, avals):
    """``SEG`` (``rows + 1`` rows, the last a scratch row): the carry entering every
    ``stride``-th of ``length`` steps from ``start``."""
    k, m = len(consts), len(start)
    outer = list(consts) + [length, stride]
    state = [_i32(b, 0)] + list(start) + _buffers(b, avals, rows + 1)
    arg_avals = [mlir.aval_of(v) for v in outer + state]

    def cond(ib, a):
        return [ib.compare(a[k + 2], a[k], direction="LT")]

    def step(ib, a):
        st, t, carry, seg = a[k + 1], a[k + 2], a[k + 3:k + 3 + m], a[k + 3 + m:]
        on = ib.compare(ib.rem(t, st), _i32(ib, 0), direction="EQ")
        seg = _write(ib, seg, ib.select(on, ib.div(t, st), _i32(ib, rows)), carry, avals)
        nxt = call(ib, body, a[:k] + carry, avals)   # (the last step's result is unused)
        return [ib.add(t, _i32(ib, 1))] + nxt + seg

    res = emit_region_op(b, loop, outer + state, [(arg_avals, cond), (arg_avals, step)],
                         arg_avals[k + 2:], num_consts=k + 2)
    return res[1 + m:]


def _advance(b, loop, consts, start, steps, body: str, avals):
    """The carry after ``steps`` applications of ``body`` to ``start``."""
    k, m = len(consts), len(start)
    outer = list(consts) + [steps]
    state = [_i32(b, 0)] + list(start)
    arg_avals = [mlir.aval_of(v) for v in outer + state]

    def cond(ib, a):
        return [ib.compare(a[k + 1], a[k], direction="LT")]

    def step(ib, a):
        return [ib.add(a[k + 1], _i32(ib, 1))] + call(ib, body, a[:k] + a[k + 2:k + 2 + m],
                                                      avals)

    res = emit_region_op(b, loop, outer + state, [(arg_avals, cond), (arg_avals, step)],
                         arg_avals[k + 1:], num_consts=k + 1)
    return res[1:]


def _ceil_div(b, x, y):
    return b.div(b.add(x, b.sub(y, _i32(b, 1))), y)


def reverse_sweep(b, loop, consts, init, n, state, body: str, avals, apply):
    """Runs ``state = apply(ib, consts, carry_i, state)`` for i = n-1 .. 0, carry_i the
    carry entering step i of the loop ``body`` from ``init``; returns the final state."""
    rows, seg_rows = capacity(avals)
    stride = b.max(_ceil_div(b, n, _i32(b, rows)), _i32(b, 1))
    ck = checkpoints(b, loop, consts, init, n, stride, rows, body, avals)
    k, nk, ns = len(consts), len(ck), len(state)
    outer = list(consts) + ck + [n, stride]
    ko = len(outer)
    top = [b.sub(_ceil_div(b, n, stride), _i32(b, 1))] + list(state)
    arg_avals = [mlir.aval_of(v) for v in outer + top]

    def cond(ib, a):
        return [ib.compare(a[ko], _i32(ib, 0), direction="GE")]

    def segment(ib, a):
        cs, ck_, n_, s_ = a[:k], a[k:k + nk], a[k + nk], a[k + nk + 1]
        q, st = a[ko], a[ko + 1:]
        length = ib.min(s_, ib.sub(n_, ib.mul(q, s_)))
        s2 = ib.max(_ceil_div(ib, length, _i32(ib, seg_rows)), _i32(ib, 1))
        seg = _fill(ib, loop, cs, _read(ib, ck_, q, avals), length, s2, seg_rows, body,
                    avals)
        inner = list(cs) + seg + [s2]
        ki = len(inner)
        st0 = [ib.sub(length, _i32(ib, 1))] + list(st)
        in_avals = [mlir.aval_of(v) for v in inner + st0]

        def icond(jb, c):
            return [jb.compare(c[ki], _i32(jb, 0), direction="GE")]

        def istep(jb, c):
            cs2, seg_, s2_, t = c[:k], c[k:k + len(seg)], c[ki - 1], c[ki]
            base = _read(jb, seg_, jb.div(t, s2_), avals)
            carry = _advance(jb, loop, cs2, base, jb.rem(t, s2_), body, avals)
            return [jb.sub(t, _i32(jb, 1))] + list(apply(jb, cs2, carry, c[ki + 1:]))

        res = emit_region_op(ib, loop, inner + st0, [(in_avals, icond), (in_avals, istep)],
                             in_avals[ki:], num_consts=ki)
        return [ib.sub(q, _i32(ib, 1))] + res[1:]

    res = emit_region_op(b, loop, outer + top, [(arg_avals, cond), (arg_avals, segment)],
                         arg_avals[ko:], num_consts=ko)
    assert len(res) == 1 + ns
    return res[1:]
