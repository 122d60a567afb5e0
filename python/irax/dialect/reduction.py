"""Reductions over axes: sum, max, min, prod, and, or; argmax and argmin.

A reduction drops ``axes`` from the operand's shape and keeps its dtype and weak type.
Each lowers to one ``stablehlo.reduce`` whose region combines two rank-0 values.

    %s = "irax.reduce_sum"(%x) {axes = array<i64: 1>} : (tensor<2x3xf32>) -> tensor<2xf32>
    %i = "irax.argmax"(%x) {axis = 1 : i64, index_dtype = i32}
           : (tensor<2x3xf32>) -> tensor<2xi32>
"""

from __future__ import annotations

import math

import numpy as np

from irax.core import dtypes, fp_errors
from irax.core.abstract import ShapedArray
from irax.dialect import attrs as A
from irax.dialect import mlir
from irax.dialect import raising as R
from irax.dialect import sharding as S
from irax.dialect.base import REGISTRY, Op, OpError
from irax.dialect.collective import Pmax, Pmin, Psum
from irax.dialect.shape import check_dims, shift_dims

# Operand kinds, checked by ``Reduction.infer``.
NUMBER = "numeric"  # not bool
ORDERED = "real or boolean"  # not complex
LOGICAL = "integer or boolean"


def _kind_ok(dtype: np.dtype, kind: str) -> bool:
    if kind == LOGICAL:
        return dtypes.is_int(dtype) or dtypes.is_bool(dtype)
    if kind == ORDERED:
        return not dtypes.is_complex(dtype)
    return not dtypes.is_bool(dtype)


def _lowest(dtype: np.dtype):
    if dtypes.is_float(dtype):
        return -np.inf
    return False if dtypes.is_bool(dtype) else np.iinfo(dtype).min


def _highest(dtype: np.dtype):
    if dtypes.is_float(dtype):
        return np.inf
    return True if dtypes.is_bool(dtype) else np.iinfo(dtype).max


def _all_ones(dtype: np.dtype):
    return True if dtypes.is_bool(dtype) else np.array(-1).astype(dtype)


def _reduced(x: ShapedArray, axes) -> tuple[int, ...]:
    return tuple(d for i, d in enumerate(x.shape) if i not in axes)


class Reduction(Op):
    """``y = combine over axes of x``. Members set ``combiner`` (the StableHLO op of the
    region), ``identity(dtype)`` (the init value), ``operand_kind`` and ``reduce_numpy``."""

    #: a product or logical reduction needs its reduced dimensions whole
    shard = classmethod(S.reducing(None))

    num_operands = 1
    attributes = {"axes": A.I64Array}
    operand_kind: str = NUMBER
    combiner: str = ""
    raises_from = "stablehlo.reduce"

    @classmethod
    def raise_attrs(cls, op):
        """A reduce of one input whose region applies ``combiner`` to its arguments and whose
        init is the identity (None when the region is another reduction's combiner)."""
        if len(op.operands) != 2:
            raise OpError(f"with {len(op.operands) // 2} inputs (an argmax-style reduction) is "
                          "not supported yet")
        combiner = R.reducer(op)
        known = sorted(c.combiner for c in REGISTRY.values() if issubclass(c, Reduction))
        if combiner not in known:
            raise OpError(f"with a region other than one of {', '.join(known)} of its "
                          "arguments is not supported")
        if combiner != cls.combiner:
            return None
        dtype = R.operand_aval(op).dtype
        identity = np.array(cls.identity(dtype)).astype(dtype)
        init = R.constant_value(op.operands[1])
        if init is None or not np.array_equal(init, identity):
            raise OpError(f"with an init value other than {identity} (the identity of "
                          f"{combiner}) is not supported")
        return {"axes": R.i64s(op, "dimensions")}

    @staticmethod
    def identity(dtype):
        raise NotImplementedError

    @staticmethod
    def reduce_numpy(x, axes, initial):
        raise NotImplementedError

    @classmethod
    def infer(cls, x, *, axes):
        if not _kind_ok(x.dtype, cls.operand_kind):
            raise OpError(f"expected {cls.operand_kind} operands, but got {x.str_short()}")
        check_dims(axes, x.ndim, "axes")
        return ShapedArray(_reduced(x, axes), x.dtype, x.weak_type)

    @classmethod
    def evaluate(cls, x, *, axes):
        dtype = x.dtype
        if dtype in dtypes.LOW_PRECISION_FLOATS:
            x = x.astype(np.float32)
        init = np.array(cls.identity(dtype)).astype(x.dtype)
        token = fp_errors.ignore()
        try:
            out = cls.reduce_numpy(x, tuple(axes), init)
        finally:
            fp_errors.restore(token)
        return np.asarray(out).astype(dtype)

    @classmethod
    def lower(cls, lb, x, *, axes):
        dtype = lb.out_avals[0].dtype
        init = lb.constant(np.array(cls.identity(dtype)).astype(dtype))
        return lb.reduce(x, init, axes, cls.combiner, lb.out_avals[0])

    @classmethod
    def batch(cls, b, args, dims, *, axes):
        """The axes are renumbered around the batch dim, which survives the reduction."""
        (x,), (d,) = args, dims
        return b.emit(cls, [x], axes=shift_dims(axes, d)), [d - sum(1 for a in axes if a < d)]


def _sum(x, axes, initial):
    return np.sum(x, axis=axes, dtype=x.dtype)


def _prod(x, axes, initial):
    return np.prod(x, axis=axes, dtype=x.dtype)


def _max(x, axes, initial):
    return np.max(x, axis=axes, initial=initial)


def _min(x, axes, initial):
    return np.min(x, axis=axes, initial=initial)


def _and(x, axes, initial):
    if x.dtype == np.bool_:
        return np.all(x, axis=axes)
    return np.bitwise_and.reduce(x, axis=axes, initial=initial)


def _or(x, axes, initial):
    if x.dtype == np.bool_:
        return np.any(x, axis=axes)
    return np.bitwise_or.reduce(x, axis=axes, initial=initial)


def _reduction(cls_name, op_name, combiner, identity, fn, kind, differentiable=True,
               **rules):
    return type(cls_name, (Reduction,), {
        "name": op_name, "combiner": combiner, "identity": staticmethod(identity),
        "reduce_numpy": staticmethod(fn), "operand_kind": kind,
        "differentiable": differentiable, **rules,
        "__doc__": f"Reduction with {combiner} over ``axes``.\n\n"
                   f'        %y = "{op_name}"(%x) {{axes = array<i64: 0>}} '
                   f": (tensor<3x4xf32>) -> tensor<4xf32>\n"})


def _sum_jvp(cls, b, primals, tangents, outs, *, axes):
    return b.reduce_sum(tangents[0], axes=axes)


def _sum_transpose(cls, b, ct, x, *, axes):
    xa = b.aval(x)
    kept = tuple(d for d in range(xa.ndim) if d not in axes)
    return (b.broadcast_in_dim(ct, shape=xa.shape, broadcast_dimensions=kept),)


def _contract(b, dx, w, axes):
    """``sum over axes of dx * w`` as one contraction: linear in ``dx`` and transposable."""
    kept = tuple(d for d in range(b.aval(dx).ndim) if d not in axes)
    return b.dot_general(dx, w, lhs_contracting_dimensions=axes, rhs_contracting_dimensions=axes,
                         lhs_batch_dimensions=kept, rhs_batch_dimensions=kept)


def _expand(b, y, like, axes):
    """``y`` (reduced over ``axes``) broadcast back to ``like``'s shape."""
    kept = tuple(d for d in range(like.ndim) if d not in axes)
    return b.broadcast_in_dim(y, shape=like.shape, broadcast_dimensions=kept)


def _chooser_jvp(cls, b, primals, tangents, outs, *, axes):
    """JAX's rule for max and min: the tangent is the mean of ``dx`` over the positions that
    attain the extreme (ties share it equally)."""
    x, y = primals[0], outs[0]
    xa = b.aval(x)
    chosen = b.convert(b.compare(x, _expand(b, y, xa, axes), direction="EQ"),
                       new_dtype=xa.dtype)
    share = b.div(chosen, _expand(b, b.reduce_sum(chosen, axes=axes), xa, axes))
    return _contract(b, tangents[0], share, axes)


def _prod_jvp(cls, b, primals, tangents, outs, *, axes):
    """``sum over axes of dx * (product of the other elements)``, with the products of the
    others built from prefix and suffix products: exact at zeros, no division."""
    shape = b.aval(primals[0]).shape
    order = (*[d for d in range(len(shape)) if d not in axes], *axes)
    moved = [shape[d] for d in order]
    last = len(shape) - len(axes)  # the reduced elements, flattened into one last axis
    rows = b.reshape(b.transpose(primals[0], permutation=order),
                     new_sizes=(*moved[:last], math.prod(moved[last:])))
    before = _exclusive_cumprod(b, rows)
    after = b.reverse(_exclusive_cumprod(b, b.reverse(rows, dimensions=(last,))),
                      dimensions=(last,))
    others = b.reshape(b.mul(before, after), new_sizes=moved)
    others = b.transpose(others, permutation=tuple(int(i) for i in np.argsort(order)))
    return _contract(b, tangents[0], others, axes)


def _exclusive_cumprod(b, x):
    """``[1, x0, x0*x1, ...]`` along the last axis, by log-steps of shifted products."""
    a = b.aval(x)
    n, rank = a.shape[-1], a.ndim
    one = b.full(ShapedArray((), a.dtype), 1)

    def shifted(v, k):  # v moved k places along the last axis, ones shifted in
        low = [0] * (rank - 1)
        return b.pad(v, one, edge_padding_low=(*low, k), edge_padding_high=(*low, -k),
                     interior_padding=(0,) * rank)

    out, k = shifted(x, 1), 1
    while k < n:
        out, k = b.mul(out, shifted(out, k)), 2 * k
    return out


ReduceSum = _reduction("ReduceSum", "irax.reduce_sum", "stablehlo.add", lambda d: 0, _sum,
                       NUMBER, jvp=classmethod(_sum_jvp), transpose=classmethod(_sum_transpose),
                       shard=classmethod(S.reducing(Psum)))
ReduceProd = _reduction("ReduceProd", "irax.reduce_prod", "stablehlo.multiply", lambda d: 1,
                        _prod, NUMBER, jvp=classmethod(_prod_jvp))
ReduceMax = _reduction("ReduceMax", "irax.reduce_max", "stablehlo.maximum", _lowest, _max,
                       ORDERED, jvp=classmethod(_chooser_jvp), shard=classmethod(S.reducing(Pmax)))
ReduceMin = _reduction("ReduceMin", "irax.reduce_min", "stablehlo.minimum", _highest, _min,
                       ORDERED, jvp=classmethod(_chooser_jvp), shard=classmethod(S.reducing(Pmin)))
ReduceAnd = _reduction("ReduceAnd", "irax.reduce_and", "stablehlo.and", _all_ones, _and,
                       LOGICAL, differentiable=False)
ReduceOr = _reduction("ReduceOr", "irax.reduce_or", "stablehlo.or", lambda d: 0, _or,
                      LOGICAL, differentiable=False)


# ---- argmax / argmin ----------------------------------------------------------------------------
class ArgReduction(Op):
    """Index of the extreme element along ``axis``. NaN counts as the extreme value (the first
    NaN wins) and ties go to the first occurrence, as in JAX. Members set ``direction``
    ("GT" for argmax, "LT" for argmin) and ``pick_numpy``."""

    shard = classmethod(S.keeping(lambda a, o, *, axis, index_dtype: {
        d: d - (d > axis) for d in range(a.ndim) if d != axis}))

    num_operands = 1
    attributes = {"axis": A.I64, "index_dtype": A.DType}
    differentiable = False
    direction: str = ""

    @staticmethod
    def pick_numpy(x, axis):
        raise NotImplementedError

    @classmethod
    def infer(cls, x, *, axis, index_dtype):
        if dtypes.is_complex(x.dtype):
            raise OpError(f"expected real or boolean operands, but got {x.str_short()}")
        if not dtypes.is_int(index_dtype):
            raise OpError(f"expected an integer index_dtype, but got {index_dtype}")
        check_dims((axis,), x.ndim, "axis")
        if x.shape[axis] == 0:
            raise OpError(f"expected a non-empty dimension {axis}, but got {x.str_short()}")
        return ShapedArray(_reduced(x, (axis,)), index_dtype)

    @classmethod
    def evaluate(cls, x, *, axis, index_dtype):
        if x.dtype in dtypes.LOW_PRECISION_FLOATS:
            x = x.astype(np.float32)
        index = cls.pick_numpy(x, axis)
        if dtypes.is_float(x.dtype):
            nan = np.isnan(x)
            index = np.where(nan.any(axis=axis), np.argmax(nan, axis=axis), index)
        return index.astype(index_dtype)

    @classmethod
    def lower(cls, lb, x, *, axis, index_dtype):
        x_aval = mlir.aval_of(x)
        dtype, out = x_aval.dtype, lb.out_avals[0]
        iota = lb.iota(ShapedArray(x_aval.shape, index_dtype), axis)
        start = _lowest(dtype) if cls.direction == "GT" else _highest(dtype)
        inits = [lb.constant(np.array(start).astype(dtype)), lb.constant(np.array(0, index_dtype))]
        op = lb.create("stablehlo.reduce", [x, iota, *inits],
                       [lb.type(ShapedArray(out.shape, dtype)), lb.type(out)],
                       {"dimensions": lb.i64s([axis])}, regions=1)
        block, body = lb.scalar_block(op, 0, [dtype, index_dtype], n_args=4)
        body.ret(cls._pick(body, *block.arguments, dtype, index_dtype))
        return op.results[1]

    @classmethod
    def batch(cls, b, args, dims, *, axis, index_dtype):
        """The batch dim moves first, so the result is batched at 0: IREE 3.13 fails to
        compile this two-result reduce followed by a transpose (of its result), but not
        preceded by one."""
        (x,), (d,) = args, dims
        return b.emit(cls, [b.moveaxis(x, d, 0)], axis=axis + 1, index_dtype=index_dtype), [0]

    @classmethod
    def _pick(cls, b, a_val, a_idx, b_val, b_idx, dtype, index_dtype):
        """Region body: keeps (a_val, a_idx) when a is NaN and b is not, a beats b in
        ``direction``, or they tie (equal or both NaN) and a comes first."""
        pred = ShapedArray((), np.bool_)

        def either(x, y):
            return b.op("stablehlo.or", [x, y], pred)

        def both(x, y):
            return b.op("stablehlo.and", [x, y], pred)

        tie = b.compare(a_val, b_val, "EQ")
        first = b.compare(a_idx, b_idx, "LT")
        pick = b.compare(a_val, b_val, cls.direction)
        if dtypes.is_float(dtype):
            a_nan, b_nan = b.compare(a_val, a_val, "NE"), b.compare(b_val, b_val, "NE")
            b_num = b.compare(b_val, b_val, "EQ")
            pick = either(pick, both(a_nan, b_num))
            tie = either(tie, both(a_nan, b_nan))
        pick = either(pick, both(tie, first))
        return [b.op("stablehlo.select", [pick, a_val, b_val], ShapedArray((), dtype)),
                b.op("stablehlo.select", [pick, a_idx, b_idx], ShapedArray((), index_dtype))]


class Argmax(ArgReduction):
    """Index of the largest element along ``axis`` (the first NaN, the first of ties).

        %i = "irax.argmax"(%x) {axis = 0 : i64, index_dtype = i32}
               : (tensor<3xf32>) -> tensor<i32>
    """

    name = "irax.argmax"
    direction = "GT"
    pick_numpy = staticmethod(np.argmax)


class Argmin(ArgReduction):
    """Index of the smallest element along ``axis`` (the first NaN, the first of ties).

        %i = "irax.argmin"(%x) {axis = 0 : i64, index_dtype = i32}
               : (tensor<3xf32>) -> tensor<i32>
    """

    name = "irax.argmin"
    direction = "LT"
    pick_numpy = staticmethod(np.argmin)
