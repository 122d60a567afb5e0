"""Products: dot, matmul (``@``), vdot, inner, outer, tensordot, einsum, trace, diagonal.

All contractions become one ``irax.dot_general`` (batch dims, then lhs free, then rhs free),
followed by a transpose where NumPy orders the result differently. Operands promote to one
dtype first; a contraction mismatch raises
``TypeError: dot_general requires contracting dimensions to have the same shape, got (3,) and
(4,).``
"""

from __future__ import annotations

import operator

import numpy as np

from irax.core import dtypes
from irax.dialect import elementwise as E
from irax.frontend.trace import bind
from irax.lax import _reduce as LR
from irax.lax import _shape as LS
from irax.lax import _util as LU
from irax.numpy import _util as U
from irax.numpy._fast import fast_matmul
from irax.numpy._math import conjugate
from irax.numpy._reductions import sum as sum_
from irax.numpy._shape import moveaxis, ravel


def _promote(name, a, b, preferred_element_type):
    U.check_arraylike(name, a, b)
    if preferred_element_type is None:
        dt, weak = dtypes.result_type(a, b, return_weak_type_flag=True)
    else:
        dt, weak = dtypes.check_user_dtype(preferred_element_type, name), False
    return U.as_array(name, a), U.as_array(name, b), dt, weak


def _contract(a, b, lc, rc, lb, rb, dt, weak):
    la, ra = U.aval_of(a), U.aval_of(b)
    LR.check_dot_dims(la.shape, ra.shape, tuple(lc), tuple(rc), tuple(lb), tuple(rb))
    r = LR.dot_general_raw(a, b, (tuple(lc), tuple(rc), tuple(lb), tuple(rb)), dt)
    return LU.convert(r, dt, weak)


def _scalar_product(a, b, dt, weak):
    x, y = LU.convert(a, dt, weak), LU.convert(b, dt, weak)
    x, y = U.broadcast_all("dot", [x, y])
    return bind(E.And if dt == np.bool_ else E.Mul, x, y)


def dot(a, b, *, precision=None, preferred_element_type=None):
    """NumPy's ``dot``: contracts the last axis of ``a`` with the second-to-last of ``b``."""
    if preferred_element_type is None:
        out = fast_matmul(a, b)     # the eager fast path (vectors and matrices)
        if out is not None:
            return out
    a, b, dt, weak = _promote("dot", a, b, preferred_element_type)
    an, bn = U.aval_of(a).ndim, U.aval_of(b).ndim
    if an == 0 or bn == 0:
        return _scalar_product(a, b, dt, weak)
    rc = 0 if bn == 1 else bn - 2
    return _contract(a, b, (an - 1,), (rc,), (), (), dt, weak)


def matmul(a, b, *, precision=None, preferred_element_type=None):
    """``a @ b`` with batch broadcasting; 1-D operands act as row/column vectors."""
    if preferred_element_type is None:
        out = fast_matmul(a, b)     # the eager fast path (vectors and matrices)
        if out is not None:
            return out
    a, b, dt, weak = _promote("matmul", a, b, preferred_element_type)
    sa, sb = U.aval_of(a).shape, U.aval_of(b).shape
    for i, s in enumerate((sa, sb)):
        if not s:
            raise ValueError(f"matmul: Input operand {i} does not have enough dimensions "
                             f"(has 0, gufunc core with signature (n?,k),(k,m?)->(n?,m?) "
                             f"requires 1)")
    a_mat, b_mat = len(sa) > 1, len(sb) > 1
    ab, bb = (sa[:-2] if a_mat else ()), (sb[:-2] if b_mat else ())
    nb = max(len(ab), len(bb))
    ab = (None,) * (nb - len(ab)) + tuple(ab)
    bb = (None,) * (nb - len(bb)) + tuple(bb)
    a_squeeze, b_squeeze, a_batch, b_batch = [], [], [], []
    idx_batch, idx_a, idx_b = [], [], []
    for i, (x, y) in enumerate(zip(ab, bb)):
        if x is None:
            idx_b.append(i)
        elif y is None:
            idx_a.append(i)
        elif x == 1 and y != 1:
            idx_b.append(i)
            a_squeeze.append(len(idx_batch) + len(idx_a) + len(a_squeeze))
        elif y == 1 and x != 1:
            idx_a.append(i)
            b_squeeze.append(len(idx_batch) + len(idx_b) + len(b_squeeze))
        elif x == y:
            a_batch.append(len(idx_batch) + len(idx_a))
            b_batch.append(len(idx_batch) + len(idx_b))
            idx_batch.append(i)
        else:
            raise ValueError(f"irax.numpy.matmul: incompatible shapes for broadcasting: {sa} and "
                             f"{sb}")
    if a_mat:
        idx_a.append(nb)
    if b_mat:
        idx_b.append(nb + a_mat)
    perm = tuple(int(p) for p in np.argsort(np.array(idx_batch + idx_a + idx_b, dtype=int)))
    a, b = LS.squeeze(a, tuple(a_squeeze)), LS.squeeze(b, tuple(b_squeeze))
    an, bn = U.aval_of(a).ndim, U.aval_of(b).ndim
    out = _contract(a, b, (an - 1,), (bn - 1 - b_mat,), a_batch, b_batch, dt, weak)
    return LU.transpose(out, perm)


def vdot(a, b, *, precision=None, preferred_element_type=None):
    """``sum(conj(a) * b)`` over the flattened operands."""
    a, b, dt, weak = _promote("vdot", a, b, preferred_element_type)
    if dtypes.is_complex(U.aval_of(a).dtype):
        a = conjugate(a)
    return dot(ravel(a), ravel(b), preferred_element_type=preferred_element_type)


def inner(a, b, *, precision=None, preferred_element_type=None):
    """Contracts the last axes of ``a`` and ``b``."""
    a, b, dt, weak = _promote("inner", a, b, preferred_element_type)
    an, bn = U.aval_of(a).ndim, U.aval_of(b).ndim
    if an == 0 or bn == 0:
        return _scalar_product(a, b, dt, weak)
    return _contract(a, b, (an - 1,), (bn - 1,), (), (), dt, weak)


def outer(a, b, out=None):
    a, b, dt, weak = _promote("outer", a, b, None)
    a, b = ravel(a), ravel(b)
    x = LU.reshape(LU.convert(a, dt, weak), (U.aval_of(a).size, 1))
    y = LU.reshape(LU.convert(b, dt, weak), (1, U.aval_of(b).size))
    x, y = U.broadcast_all("outer", [x, y])
    return bind(E.And if dt == np.bool_ else E.Mul, x, y)


def tensordot(a, b, axes=2, *, precision=None, preferred_element_type=None):
    """Contracts ``axes`` (an int N: the last N of ``a`` with the first N of ``b``; or two
    sequences of axes)."""
    a, b, dt, weak = _promote("tensordot", a, b, preferred_element_type)
    an, bn = U.aval_of(a).ndim, U.aval_of(b).ndim
    if isinstance(axes, (int, np.integer)):
        n = operator.index(axes)
        if n > min(an, bn) or n < 0:
            raise TypeError(f"Number of tensordot axes (axes {n}) exceeds input ranks ({an} and "
                            f"{bn})")
        lc, rc = tuple(range(an - n, an)), tuple(range(n))
    else:
        la, ra = axes
        la = (la,) if isinstance(la, (int, np.integer)) else tuple(la)
        ra = (ra,) if isinstance(ra, (int, np.integer)) else tuple(ra)
        if len(la) != len(ra):
            raise TypeError("tensordot requires axes lists to have equal length, got "
                            f"{la} and {ra}.")
        lc = tuple(LU.canonicalize_axis(x, an) for x in la)
        rc = tuple(LU.canonicalize_axis(x, bn) for x in ra)
    if not lc and (an == 0 or bn == 0):
        return _scalar_product(a, b, dt, weak)
    return _contract(a, b, lc, rc, (), (), dt, weak)


def diagonal(a, offset: int = 0, axis1: int = 0, axis2: int = 1):
    """The diagonal ``offset`` of the (axis1, axis2) planes, as the last axis: a strided slice
    of the flattened planes (element ``(r, r + offset)`` sits at ``r * (m + 1) + offset``)."""
    x = U.as_array("diagonal", a)
    s = U.aval_of(x).shape
    i, j = LU.canonicalize_axis(axis1, len(s)), LU.canonicalize_axis(axis2, len(s))
    if i == j:
        raise ValueError("axis1 and axis2 cannot be the same")
    x = moveaxis(x, (i, j), (-2, -1))
    batch, (n, m) = U.aval_of(x).shape[:-2], U.aval_of(x).shape[-2:]
    k = max(0, min(n, m - offset) if offset >= 0 else min(n + offset, m))
    flat = LU.reshape(x, batch + (n * m,))
    if k == 0:
        return LU.full(batch + (0,), 0, U.aval_of(x).dtype)
    start = offset if offset >= 0 else -offset * m
    nb = len(batch)
    return LS.slice(flat, (0,) * nb + (start,), batch + (start + (k - 1) * (m + 1) + 1,),
                    (1,) * nb + (m + 1,))


def trace(a, offset: int = 0, axis1: int = 0, axis2: int = 1, dtype=None, out=None):
    return sum_(diagonal(a, offset, axis1, axis2), axis=-1, dtype=dtype)
