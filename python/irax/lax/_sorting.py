"""``irax.lax`` sorting: ``sort``, ``sort_key_val`` and ``top_k`` on ``irax.sort``.

    lax.sort(x)                                  # ascending along the last axis, stable
    lax.sort((keys, vals), num_keys=1)           # vals permuted like keys
    values, indices = lax.top_k(x, 3)            # the 3 largest, ties to the lower index

The order is JAX's: NaNs last, -0.0 equal to +0.0, complex by (real, imag).
"""

from __future__ import annotations

import operator
from collections.abc import Sequence

import numpy as np

from irax.core import dtypes
from irax.dialect import elementwise as E
from irax.dialect.sorting import Sort
from irax.frontend.trace import bind
from irax.lax import _util as U
from irax.lax._shape import broadcasted_iota, rev
from irax.lax._shape import slice as slice_


def sort(operand, dimension: int = -1, is_stable: bool = True, num_keys: int = 1):
    """Sorts ``operand`` (an array, or a sequence of arrays of one shape sorted together by
    their first ``num_keys``) along ``dimension`` (``jax.lax.sort``). A sequence gives a
    tuple."""
    num_keys = operator.index(num_keys)
    if not isinstance(operand, Sequence):
        if num_keys != 1:
            raise ValueError(f"num_keys={num_keys} must equal 1 for a single operand.")
        return _sort([operand], dimension, is_stable, 1)[0]
    if len(operand) == 0:
        raise TypeError("Sort requires at least one operand")
    if not 1 <= num_keys <= len(operand):
        raise ValueError(f"num_keys={num_keys} must be between 1 and "
                         f"len(operand)={len(operand)}")
    return tuple(_sort(list(operand), dimension, is_stable, num_keys))


def sort_key_val(keys, values, dimension: int = -1, is_stable: bool = True):
    """``keys`` sorted along ``dimension`` and ``values`` permuted the same way
    (``jax.lax.sort_key_val``)."""
    k, v = _sort([keys, values], dimension, is_stable, 1)
    return k, v


def _sort(operands, dimension, is_stable, num_keys) -> list:
    ops = [U.as_operand(x) for x in operands]
    shapes = [U.aval_of(x).shape for x in ops]
    if any(s != shapes[0] for s in shapes[1:]):
        raise TypeError("Arguments to sort must have equal shapes, got: "
                        + " ".join(str(s) for s in shapes))
    dimension = U.canonicalize_axis(dimension, len(shapes[0]))
    out = bind(Sort, *ops, dimension=dimension, is_stable=bool(is_stable), num_keys=num_keys)
    return out if isinstance(out, list) else [out]


def top_k(operand, k: int, *, axis: int = -1):
    """The ``k`` largest entries along ``axis`` and their int32 indices, largest first, ties
    to the lower index (``jax.lax.top_k``). Floats follow the IEEE total order as in JAX
    (+0.0 before -0.0, NaN first), except that a negative NaN also counts as largest."""
    k = operator.index(k)
    if k < 0:
        raise ValueError(f"k argument to top_k must be nonnegative, got {k}")
    x = U.as_operand(operand)
    a = U.aval_of(x)
    axis = U.canonicalize_axis(axis, a.ndim)
    if dtypes.is_complex(a.dtype):
        raise ValueError("top_k is not compatible with complex inputs.")
    n = a.shape[axis]
    if n < k:
        raise ValueError("k argument to top_k must be no larger than size along axis; got "
                         f"k={k} with shape={list(a.shape)} and axis={axis}")
    if n > np.iinfo(np.int32).max + 1:
        raise ValueError("top_k returns int32 indices, which will overflow for array dimensions "
                         f"larger than the maximum int32 ({np.iinfo(np.int32).max}). Got "
                         f"operand.shape={a.shape}")
    iota = broadcasted_iota(np.int32, a.shape, axis)
    if not dtypes.is_float(a.dtype):  # ~x reverses the order of integers and booleans
        flipped, idx = _sort([bind(E.Not, x), iota], axis, True, 1)
        return tuple(_first(v, axis, k) for v in (bind(E.Not, flipped), idx))
    # A stable ascending sort of the reversed operand, read backwards: the largest first and
    # equal entries in index order; a second key puts -0.0 below +0.0.
    keys = [x, _not_negative_zero(x)]
    out = _sort([rev(v, (axis,)) for v in (*keys, iota)], axis, True, len(keys))
    return tuple(_first(rev(v, (axis,)), axis, k) for v in (out[0], out[-1]))


def _first(x, axis: int, k: int):
    """The first ``k`` entries along ``axis``."""
    shape = U.aval_of(x).shape
    return slice_(x, [0] * len(shape), [k if d == axis else n for d, n in enumerate(shape)])


def _not_negative_zero(x):
    """``False`` exactly where ``x`` is -0.0 (``1 / x`` is -inf there)."""
    zero = U.full_like(x, 0)
    is_zero = bind(E.Compare, x, zero, direction="EQ")
    negative = bind(E.Compare, bind(E.Div, U.full_like(x, 1), x), zero, direction="LT")
    return bind(E.Not, bind(E.And, is_zero, negative))
