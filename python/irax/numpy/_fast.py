"""The eager fast path of small elementwise ops: a concrete real floating ``irax.Array``
outside any trace gets the op's NumPy rule applied directly, as ``bind`` would after
promotion, skipping promotion, broadcasting and ``bind`` (an eager small op costs the Python
around it). Every other case returns None and takes the full path.

    x * 2.0            # Array.__mul__ -> fast_binary(Mul, x, 2.0)
    jnp.sin(x)         # fast_unary(Sin, x)
    jnp.sum(x)         # fast_reduce(ReduceSum, x, (0,), False)
    jnp.mean(x)        # fast_mean(x, (0,), False)
    jnp.where(c, x, 0.0)  # fast_select(c, x, 0.0)
    m @ v              # fast_matmul(m, v)
"""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np

from irax.core import dtypes, fp_errors
from irax.dialect import elementwise as E
from irax.dialect import linalg as LA
from irax.dialect import reduction as R
from irax.frontend.eager import DEBUG_CHECKS, check_values
from irax.frontend.trace import current_trace
from irax.runtime.array import Array

#: the real floating dtypes of the eager fast path
_FAST_FLOATS = frozenset(np.dtype(d) for d in ("float16", "float32", "float64")) | {
    dtypes.bfloat16}
#: the dtypes whose ops' NumPy rules run directly (half precisions compute in float32)
_DIRECT = frozenset(np.dtype(d) for d in ("float32", "float64"))
#: the largest finite value of each: a Python scalar beyond it takes the full path
_FAST_MAX = {d: float(ml_dtypes.finfo(d).max) for d in _FAST_FLOATS}


def fast_binary(op_cls, x, y, reflected=False):
    """``x (op) y`` for a concrete real floating ``irax.Array`` ``x`` outside any trace,
    ``y`` a Python float or int32-sized int or an ``Array`` of ``x``'s shape, dtype and weak
    type: the op's NumPy rule applied directly, as ``bind`` would after promotion (a weak
    Python scalar takes ``x``'s dtype; equal operands need no promotion or broadcast).
    None for every other case: the full path decides. Eager small ops cost the Python
    around them; this skips promotion, broadcasting and ``bind``."""
    aval = x.aval
    other = _operand(aval, y, x._home)
    if other is None or x._shards is not None:
        return None
    a = x._numpy()
    if aval.dtype in _DIRECT:    # the rule itself: its result has the operands' dtype
        token = fp_errors.ignore()
        try:
            out = op_cls.evaluate(other, a) if reflected else op_cls.evaluate(a, other)
        except MemoryError:
            return None
        finally:
            fp_errors.restore(token)
        if type(out) is not np.ndarray:          # 0-d: NumPy returns a scalar
            out = np.asarray(out)
        if out.dtype != aval.dtype:
            out = out.astype(aval.dtype)
        if DEBUG_CHECKS[0]:
            check_values(op_cls, [out])
        return Array._from_host(out, aval, x._home)
    out = _evaluate(op_cls, [other, a] if reflected else [a, other], {}, aval)
    return None if out is None else Array._from_host(out, aval, x._home)


def fast_compare(op_cls, x, y, direction: str, reflected=False):
    """``x (direction) y`` (``op_cls``: the comparison op) for the operands of
    ``fast_binary``: a bool array, as the full path gives after promotion; None for every
    other case."""
    aval = x.aval
    other = _operand(aval, y, x._home)
    if other is None or x._shards is not None:
        return None
    a = x._numpy()
    out_aval = aval.update(dtype=np.dtype(np.bool_), weak_type=False)
    out = _evaluate(op_cls, [other, a] if reflected else [a, other], {"direction": direction},
                    out_aval)
    return None if out is None else Array._from_host(out, out_aval, x._home)


def either(fast, op_cls, x, y, *rest):
    """``fast(op_cls, x, y, *rest)`` (``fast_binary`` or ``fast_compare``) with the Array
    operand first (``reflected`` when it is ``y``), or None: a jnp function's fast path."""
    if type(x) is Array:
        return fast(op_cls, x, y, *rest)
    if type(y) is Array:
        return fast(op_cls, y, x, *rest, reflected=True)
    return None


def _operand(aval, y, home=None):
    """``y`` as a NumPy operand for an Array of ``aval`` committed to ``home`` (or not) on
    the fast path, or None: a Python float or int32-sized int within the dtype's range
    (not inf, nan or what overflows), or an Array of the same abstract value and weak type
    and the same commitment (the full path decides the others); ``aval`` of a fast dtype
    and no trace active."""
    if aval.dtype not in _FAST_FLOATS or current_trace() is not None:
        return None
    t = type(y)
    if (t is float or (t is int and -(1 << 31) <= y < (1 << 31))) \
            and abs(y) <= _FAST_MAX[aval.dtype]:
        return np.asarray(y, aval.dtype)
    if t is Array and y.aval == aval and y.aval.weak_type == aval.weak_type \
            and y._home is home and y._shards is None:
        return y._numpy()
    return None


def _evaluate(op_cls, arrays, attrs, aval):
    """The op's NumPy rule on ``arrays`` (checked under jax_debug_nans/infs), or None when
    it cannot allocate (the full path says which op could not allocate what)."""
    try:
        out = op_cls.evaluate_list(arrays, attrs, [aval])[0]
    except MemoryError:
        return None
    if DEBUG_CHECKS[0]:
        check_values(op_cls, [out])
    return out


def fast_unary(op_cls, x):
    """``op(x)`` for a concrete real floating ``irax.Array`` ``x`` outside any trace, for
    an op whose result has ``x``'s abstract value (sin, exp, sqrt, ...); None otherwise."""
    if type(x) is not Array or x._shards is not None:
        return None
    aval = x.aval
    if aval.dtype not in _FAST_FLOATS or current_trace() is not None:
        return None
    out = _evaluate(op_cls, [x._numpy()], {}, aval)
    return None if out is None else Array._from_host(out, aval, x._home)


#: the dtypes of the reductions' fast path (float16/bfloat16 accumulate in float32)
_REDUCE_FLOATS = frozenset(np.dtype(d) for d in ("float32", "float64"))


def fast_reduce(op_cls, x, axes, keepdims):
    """``op(x)`` over ``axes`` (a non-empty tuple) for a concrete float32/float64
    ``irax.Array`` ``x`` outside any trace, as ``jnp.sum``/``prod``/``max``/``min`` with
    their defaults compute it (the result strongly typed); None otherwise."""
    got = _reduced(op_cls, x, axes, keepdims)
    return None if got is None else Array._from_host(*got, x._home)


def _reduced(op_cls, x, axes, keepdims):
    """``fast_reduce``'s NumPy result and its abstract value, or None."""
    if type(x) is not Array or x._shards is not None:
        return None
    aval = x.aval
    if aval.dtype not in _REDUCE_FLOATS or current_trace() is not None:
        return None
    shape = tuple(d for i, d in enumerate(aval.shape) if i not in axes)
    out_aval = aval.update(shape=shape, weak_type=False)
    out = _evaluate(op_cls, [x._numpy()], {"axes": axes}, out_aval)
    if out is None:
        return None
    if keepdims:
        kept = tuple(1 if i in axes else d for i, d in enumerate(aval.shape))
        out, out_aval = out.reshape(kept), out_aval.update(shape=kept)
    return out, out_aval


def fast_select(cond, x, y):
    """``where(cond, x, y)`` for a concrete bool ``irax.Array`` ``cond`` and, as in
    ``fast_binary``, a real floating Array of ``cond``'s shape with an operand of its
    abstract value or a Python scalar (either side): the result has that Array's abstract
    value, as promotion gives; None for every other case."""
    if type(cond) is not Array or cond.aval.dtype != np.bool_ or cond._shards is not None:
        return None
    arr = x if type(x) is Array else y
    if type(arr) is not Array or arr.aval.shape != cond.aval.shape or arr._shards is not None:
        return None
    aval = arr.aval
    other = _operand(aval, y if arr is x else x, arr._home)
    if other is None or cond._home is not arr._home:
        return None
    a = arr._numpy()
    t, f = (a, other) if arr is x else (other, a)
    out = _evaluate(E.Select, [cond._numpy(), t, f], {}, aval)
    return None if out is None else Array._from_host(np.asarray(out, aval.dtype), aval,
                                                     arr._home)


def fast_mean(x, axes, keepdims):
    """``mean(x)`` over ``axes`` (non-empty, of non-zero sizes) for a concrete
    float32/float64 ``irax.Array``: the sum's rule divided by the count, as the full path
    computes it; None otherwise."""
    got = _reduced(R.ReduceSum, x, axes, keepdims)
    if got is None:
        return None
    total, aval = got
    count = np.asarray(math.prod(x.aval.shape[d] for d in axes), aval.dtype)
    out = _evaluate(E.Div, [total, count], {}, aval)
    return None if out is None else Array._from_host(np.asarray(out, aval.dtype), aval,
                                                     x._home)


def fast_matmul(a, b):
    """``a @ b`` for concrete float32/float64 ``irax.Array`` operands of one dtype and weak
    type, each a vector or a matrix: the contraction's rule applied directly; None
    otherwise."""
    if type(a) is not Array or type(b) is not Array or current_trace() is not None \
            or a._home is not b._home or a._shards is not None or b._shards is not None:
        return None
    pa, pb = a.aval, b.aval
    if pa.dtype not in _DIRECT or pb.dtype != pa.dtype or pa.weak_type != pb.weak_type or \
            not 1 <= pa.ndim <= 2 or not 1 <= pb.ndim <= 2:
        return None
    lc, rc = pa.ndim - 1, 0 if pb.ndim == 1 else pb.ndim - 2
    if pa.shape[lc] != pb.shape[rc]:
        return None
    shape = pa.shape[:-1] + (pb.shape[-1],) * (pb.ndim == 2)
    aval = pa.update(shape=shape)
    out = _evaluate(LA.DotGeneral, [a._numpy(), b._numpy()],
                    {"lhs_contracting_dimensions": (lc,), "rhs_contracting_dimensions": (rc,),
                     "lhs_batch_dimensions": (), "rhs_batch_dimensions": ()}, aval)
    return None if out is None else Array._from_host(np.asarray(out, pa.dtype), aval,
                                                     a._home)
