"""``einsum``: Einstein summation as a left-to-right chain of ``dot_general`` contractions.

    einsum("ij,jk->ik", a, b)      einsum("bij,bjk", a, b)      einsum("ii->i", a)

Each operand first takes its repeated-label diagonals and sums out labels used nowhere else;
then operands contract pairwise (labels needed later are batch dimensions), and a final
transpose orders the output. ``...`` stands for broadcast dimensions. The contraction order is
the argument order (no ``optimize`` path search).
"""

from __future__ import annotations

import numpy as np

from irax.core import dtypes
from irax.lax import _reduce as LR
from irax.lax import _util as LU
from irax.numpy import _util as U
from irax.numpy._linalg import diagonal

_SPARE = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _parse(subscripts: str, shapes):
    subscripts = subscripts.replace(" ", "")
    lhs, arrow, out = subscripts.partition("->")
    ins = lhs.split(",")
    if len(ins) != len(shapes):
        raise ValueError(f"einsum: {len(ins)} input subscripts for {len(shapes)} operands")
    n_ell = max((len(s) - (len(t) - 3) for t, s in zip(ins, shapes) if "..." in t), default=0)
    ell = "".join(c for c in _SPARE if c not in subscripts)[:n_ell]
    labels = []
    for t, s in zip(ins, shapes):
        if "..." in t:
            k = len(s) - (len(t) - 3)
            t = t.replace("...", ell[n_ell - k:])
        if len(t) != len(s):
            raise ValueError(f"einsum: subscripts {t!r} do not match an operand of rank {len(s)}")
        labels.append(t)
    if arrow:
        out = out.replace("...", ell)
    else:
        counts = {c: "".join(labels).count(c) for c in "".join(labels)}
        out = ell + "".join(sorted(c for c, n in counts.items() if n == 1 and c not in ell))
    return labels, out


def _diagonals(x, lab: str):
    while len(set(lab)) != len(lab):
        c = next(c for c in lab if lab.count(c) > 1)
        i = lab.index(c)
        j = lab.index(c, i + 1)
        x = diagonal(x, 0, i, j)
        lab = "".join(ch for k, ch in enumerate(lab) if k not in (i, j)) + c
    return x, lab


def _sum_out(x, lab: str, keep: set):
    axes = tuple(i for i, c in enumerate(lab) if c not in keep)
    if not axes:
        return x, lab
    return LR.reduce_sum(x, axes), "".join(c for c in lab if c in keep)


def _broadcast_common(x, lx, y, ly, sizes):
    """Broadcasts size-1 dims of shared labels against the other operand's size."""
    def grow(v, lab, other):
        shape = tuple(sizes[c] if c in sizes and c in other else n
                      for c, n in zip(lab, U.aval_of(v).shape))
        return LU.broadcast_in_dim(v, shape, tuple(range(len(shape))))

    return grow(x, lx, ly), grow(y, ly, lx)


def einsum(subscripts, /, *operands, out=None, optimize="auto", precision=None,
           preferred_element_type=None):
    """Einstein summation over ``operands`` as described by ``subscripts``."""
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.einsum is not supported.")
    if not isinstance(subscripts, str):
        raise NotImplementedError("irax.numpy.einsum supports only string subscripts")
    U.check_arraylike("einsum", *operands)
    arrays = U.promote_dtypes(*operands)
    dt, weak = dtypes.result_type(*arrays, return_weak_type_flag=True)
    if preferred_element_type is not None:
        dt, weak = dtypes.check_user_dtype(preferred_element_type, "einsum"), False
    labels, out_lab = _parse(subscripts, [U.aval_of(a).shape for a in arrays])
    sizes = {}
    for a, lab in zip(arrays, labels):
        for c, n in zip(lab, U.aval_of(a).shape):
            if n != 1 and sizes.setdefault(c, n) != n:
                raise ValueError(f"einsum: size of label {c!r} differs between operands: "
                                 f"{sizes[c]} and {n}")
    ops = []
    for k, (a, lab) in enumerate(zip(arrays, labels)):
        a, lab = _diagonals(a, lab)
        others = set(out_lab).union(*(labels[i] for i in range(len(labels)) if i != k))
        ops.append(_sum_out(a, lab, others))
    acc, lab = ops[0]
    for k in range(1, len(ops)):
        y, ly = ops[k]
        later = set(out_lab).union(*(o[1] for o in ops[k + 1:]))
        acc, lab = _sum_out(acc, lab, later | set(ly))
        y, ly = _sum_out(y, ly, later | set(lab))
        acc, y = _broadcast_common(acc, lab, y, ly, sizes)
        shared = [c for c in lab if c in ly]
        batch = [c for c in shared if c in later]
        contract = [c for c in shared if c not in later]
        acc = LR.dot_general_raw(
            acc, y, (tuple(lab.index(c) for c in contract), tuple(ly.index(c) for c in contract),
                     tuple(lab.index(c) for c in batch), tuple(ly.index(c) for c in batch)), dt)
        lab = ("".join(batch) + "".join(c for c in lab if c not in shared)
               + "".join(c for c in ly if c not in shared))
    acc, lab = _sum_out(acc, lab, set(out_lab))
    missing = [c for c in out_lab if c not in lab]
    if missing:
        raise ValueError(f"einsum: output labels {missing} do not appear in the inputs")
    acc = LU.transpose(acc, tuple(lab.index(c) for c in out_lab))
    return LU.convert(acc, dt, weak and np.dtype(dt) != np.bool_)
