"""``irax.lax`` reductions, arg-reductions and contractions.

    lax.reduce_sum(x, axes=(0,))                               # dtype unchanged
    lax.argmax(x, axis=1, index_dtype=np.int32)                # first NaN / first tie wins
    lax.dot_general(a, b, (((1,), (0,)), ((), ())))            # batch, lhs free, rhs free
"""

from __future__ import annotations

import operator

import numpy as np

from irax.core import dtypes
from irax.dialect import linalg as L
from irax.dialect import reduction as R
from irax.frontend.trace import bind
from irax.lax import _util as U
from irax.lax._elementwise import BOOL, COMPLEX, FLOAT, INT, check_kind

_LOW_FLOATS = (dtypes.float16, dtypes.bfloat16)


def _axes(name, axes, ndim) -> tuple[int, ...]:
    try:
        out = tuple(operator.index(a) for a in axes)
    except TypeError:
        raise TypeError(f"{name} axes must be a sequence of integers, got {axes!r}") from None
    if any(not 0 <= a < ndim for a in out) or len(set(out)) != len(out):
        raise ValueError(f"{name}: axes {out} are out of range or repeated for an operand of "
                         f"rank {ndim}")
    return tuple(sorted(out))


def _reducer(name, op, kinds):
    def fn(operand, axes):
        a = U.aval_of(operand)
        check_kind(name, a.dtype, kinds)
        axes = _axes(name, axes, a.ndim)
        x = U.as_operand(operand)
        return bind(op, x, axes=axes) if axes else x

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``{name}`` over ``axes``; the dtype is unchanged (``jax.lax.{name}``)."
    return fn


reduce_sum = _reducer("reduce_sum", R.ReduceSum, (INT, FLOAT, COMPLEX))
reduce_prod = _reducer("reduce_prod", R.ReduceProd, (INT, FLOAT, COMPLEX))
reduce_max = _reducer("reduce_max", R.ReduceMax, (INT, FLOAT, COMPLEX, BOOL))
reduce_min = _reducer("reduce_min", R.ReduceMin, (INT, FLOAT, COMPLEX, BOOL))
reduce_and = _reducer("reduce_and", R.ReduceAnd, (INT, BOOL))
reduce_or = _reducer("reduce_or", R.ReduceOr, (INT, BOOL))


def _arg_reducer(name, op):
    def fn(operand, axis: int, index_dtype):
        a = U.aval_of(operand)
        check_kind(name, a.dtype, (INT, FLOAT, BOOL))
        axis = operator.index(axis)
        if not 0 <= axis < a.ndim:
            raise ValueError(f"Invalid {name} axis {axis} for an operand of shape {a.shape}")
        if a.shape[axis] == 0:
            raise ValueError(f"{name} on an axis of size 0: shape {a.shape}, axis {axis}")
        idx = dtypes.canonicalize_dtype(index_dtype)
        if not dtypes.is_int(idx):
            raise TypeError(f"index_dtype must be an integer type, but got {idx}")
        return bind(op, U.as_operand(operand), axis=axis, index_dtype=idx)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"Index of the {name[3:]} along ``axis``: the first NaN, else the first of equal "
                  f"values (``jax.lax.{name}``).")
    return fn


argmax = _arg_reducer("argmax", R.Argmax)
argmin = _arg_reducer("argmin", R.Argmin)


def _dims(x) -> tuple[int, ...]:
    return tuple(operator.index(d) for d in x)


def dot_general(lhs, rhs, dimension_numbers, precision=None, preferred_element_type=None):
    """General contraction: ``dimension_numbers = ((lhs_contract, rhs_contract),
    (lhs_batch, rhs_batch))``; the result is batch dims, then lhs free, then rhs free dims."""
    del precision
    (lc, rc), (lb, rb) = dimension_numbers
    lc, rc, lb, rb = _dims(lc), _dims(rc), _dims(lb), _dims(rb)
    la, ra = U.aval_of(lhs), U.aval_of(rhs)
    check_dot_dims(la.shape, ra.shape, lc, rc, lb, rb)
    if preferred_element_type is not None:
        out = dtypes.canonicalize_dtype(preferred_element_type)
    else:
        out = dtypes.result_type(la.dtype, ra.dtype)
    return dot_general_raw(lhs, rhs, (lc, rc, lb, rb), out)


def check_dot_dims(ls, rs, lc, rc, lb, rb) -> None:
    for dims, shape, side in ((lc, ls, "lhs"), (lb, ls, "lhs"), (rc, rs, "rhs"), (rb, rs, "rhs")):
        if any(not 0 <= d < len(shape) for d in dims):
            raise TypeError(f"dot_general requires {side} dimension numbers to be in range "
                            f"[0, {len(shape)}), got {dims} for shape {shape}.")
    if len(set(lc + lb)) != len(lc + lb) or len(set(rc + rb)) != len(rc + rb):
        raise TypeError("dot_general requires dimension numbers to be unique, got "
                        f"contracting {lc}, {rc} and batch {lb}, {rb}.")
    if len(lb) != len(rb):
        raise TypeError(f"dot_general requires equal numbers of lhs_batch and rhs_batch "
                        f"dimensions, got lhs_batch {lb} and rhs_batch {rb}.")
    lbs, rbs = tuple(ls[d] for d in lb), tuple(rs[d] for d in rb)
    if lbs != rbs:
        raise TypeError("dot_general requires lhs batch dimensions and rhs batch dimensions to "
                        f"have the same shape, got {lbs} and {rbs}.")
    if len(lc) != len(rc):
        raise TypeError(f"dot_general requires equal numbers of lhs_contracting and "
                        f"rhs_contracting dimensions, got {lc} and {rc}.")
    lcs, rcs = tuple(ls[d] for d in lc), tuple(rs[d] for d in rc)
    if lcs != rcs:
        raise TypeError("dot_general requires contracting dimensions to have the same shape, "
                        f"got {lcs} and {rcs}.")


def dot_general_raw(lhs, rhs, dims, out_dtype):
    """``irax.dot_general`` of checked operands, computed in ``out_dtype`` (float16/bfloat16
    accumulate in float32, as XLA does on CPU)."""
    lc, rc, lb, rb = dims
    out_dtype = np.dtype(out_dtype)
    compute = (dtypes.float32 if out_dtype in _LOW_FLOATS else
               dtypes.int32 if out_dtype == np.bool_ else out_dtype)
    x, y = U.convert(lhs, compute), U.convert(rhs, compute)
    r = bind(L.DotGeneral, x, y, lhs_contracting_dimensions=lc, rhs_contracting_dimensions=rc,
             lhs_batch_dimensions=lb, rhs_batch_dimensions=rb)
    return U.convert(r, out_dtype)


def dot(lhs, rhs, *, dimension_numbers=None, precision=None, preferred_element_type=None):
    """Vector/matrix products: ``(n,)·(n,)``, ``(m,n)·(n,)``, ``(m,n)·(n,k)``."""
    if dimension_numbers is not None:
        return dot_general(lhs, rhs, dimension_numbers, precision, preferred_element_type)
    la, ra = U.aval_of(lhs), U.aval_of(rhs)
    if not (1 <= la.ndim <= 2 and 1 <= ra.ndim <= 2 and la.shape[-1] == ra.shape[0]):
        raise ValueError("irax.lax.dot: dimension_numbers must be specified when not performing "
                         "simple un-batched matrix-matrix, matrix-vector, or vector-vector "
                         f"products; got lhs_shape={la.shape} rhs_shape={ra.shape}")
    dims = (((la.ndim - 1,), (0,)), ((), ()))
    return dot_general(lhs, rhs, dims, precision, preferred_element_type)
