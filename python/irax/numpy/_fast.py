"""The eager fast path of small elementwise ops: a concrete real floating ``irax.Array``
outside any trace gets the op's NumPy rule applied directly, as ``bind`` would after
promotion, skipping promotion, broadcasting and ``bind`` (an eager small op costs the Python
around it). Every other case returns None and takes the full path.

    x * 2.0            # Array.__mul__ -> fast_binary(Mul, x, 2.0)
    jnp.sin(x)         # fast_unary(Sin, x)
"""

from __future__ import annotations

import ml_dtypes
import numpy as np

from irax.core import dtypes
from irax.frontend.eager import DEBUG_CHECKS, check_values
from irax.frontend.trace import current_trace
from irax.runtime.array import Array

#: the real floating dtypes of the eager fast path
_FAST_FLOATS = frozenset(np.dtype(d) for d in ("float16", "float32", "float64")) | {
    dtypes.bfloat16}
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
    if aval.dtype not in _FAST_FLOATS or current_trace() is not None:
        return None
    t = type(y)
    if (t is float or (t is int and -(1 << 31) <= y < (1 << 31))) \
            and abs(y) <= _FAST_MAX[aval.dtype]:   # not inf, nan, or what overflows
        other = np.asarray(y, aval.dtype)
    elif t is Array and y.aval == aval and y.aval.weak_type == aval.weak_type:
        other = y._numpy()
    else:
        return None
    a = x._numpy()
    args = [other, a] if reflected else [a, other]
    try:
        out = op_cls.evaluate_list(args, {}, [aval])[0]
    except MemoryError:     # the full path says which op could not allocate what
        return None
    if DEBUG_CHECKS[0]:
        check_values(op_cls, [out])
    return Array._from_host(out, aval)




def fast_unary(op_cls, x):
    """``op(x)`` for a concrete real floating ``irax.Array`` ``x`` outside any trace, for
    an op whose result has ``x``'s abstract value (sin, exp, sqrt, ...); None otherwise."""
    if type(x) is not Array:
        return None
    aval = x.aval
    if aval.dtype not in _FAST_FLOATS or current_trace() is not None:
        return None
    try:
        out = op_cls.evaluate_list([x._numpy()], {}, [aval])[0]
    except MemoryError:
        return None
    if DEBUG_CHECKS[0]:
        check_values(op_cls, [out])
    return Array._from_host(out, aval)
