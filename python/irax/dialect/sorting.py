"""Sorting: ``irax.sort``, several operands sorted together along one dimension.

    %k, %v = "irax.sort"(%keys, %vals) {dimension = 0 : i64, is_stable = true}
               : (tensor<5xf32>, tensor<5xi32>) -> (tensor<5xf32>, tensor<5xi32>)

The order is JAX's total order, ascending and lexicographic over the first ``num_keys``
operands: floats put every NaN last (negative NaNs too) and treat -0.0 and +0.0 as equal;
complex numbers compare by (real, imag), each part ordered like a float; integers and
booleans in their natural order. A short sort lowers to one ``stablehlo.sort`` whose
comparator implements that order with explicit NaN checks (``irax-legalize-iree`` turns a
long one, which IREE sorts in quadratic time, into a bitonic sorting network on the same
comparison, ``irax.lowering.sort_network``).
"""

from __future__ import annotations

import numpy as np

from irax.core import dtypes
from irax.core.abstract import ShapedArray
from irax.dialect import attrs as A
from irax.dialect import mlir
from irax.dialect import sharding as S
from irax.dialect.base import Op, OpError

#: the attribute of a lowered ``stablehlo.sort`` saying how many leading operands are keys
NUM_KEYS = "irax.num_keys"


class Sort(Op):
    """``%r... = "irax.sort"(%x...)``: the operands (one shape, any dtypes) permuted together
    along ``dimension`` so that the first ``num_keys`` are in ascending lexicographic order
    (JAX's total order: NaNs last, -0.0 equal to +0.0, complex by (real, imag)). With
    ``is_stable`` equal keys keep their input order.

        %s = "irax.sort"(%x) {dimension = 1 : i64, is_stable = true}
               : (tensor<2x3xf32>) -> tensor<2x3xf32>
        %k0, %k1, %v = "irax.sort"(%a, %b, %c) {dimension = 0 : i64, is_stable = true,
               num_keys = 2 : i64} : (tensor<4xi32>, tensor<4xf32>, tensor<4xf32>)
               -> (tensor<4xi32>, tensor<4xf32>, tensor<4xf32>)

    Derivative: every inexact operand's tangent is permuted like the operand (keys too);
    integer results have none. Lowers to ``stablehlo.sort`` with a comparator region
    (which ``irax-legalize-iree`` makes a bitonic sorting network from ``rows * n * n >=
    2**15``, ``n`` the sorted length: IREE's sort takes time quadratic in ``n``; on CPUs
    a sort of at most 16 rows of 4096 or more along the last axis by one 32-bit key is a
    heapsort in one dispatch instead)."""

    name = "irax.sort"

    @classmethod
    def shard(cls, specs, avals, outs, mesh, *, dimension, is_stable, num_keys):
        """Every operand shares one sharding; the sorted dimension is whole."""
        rank = avals[0].ndim
        spec = list(S.merge([S.pad(s, rank) for s in specs], rank))
        spec[dimension] = ()
        return S.ShardPlan([tuple(spec)] * len(avals), [tuple(spec)] * len(outs))
    attributes = {"dimension": A.I64, "is_stable": A.Bool, "num_keys": A.I64}
    defaults = {"num_keys": 1}

    @classmethod
    def infer(cls, *avals, dimension, is_stable, num_keys):
        if not avals:
            raise OpError("expected at least one operand")
        first = avals[0]
        for a in avals[1:]:
            if a.shape != first.shape:
                raise OpError(f"expected operands of one shape, but got {first.str_short()} "
                              f"and {a.str_short()}")
        if not 0 <= dimension < first.ndim:
            raise OpError(f"expected dimension to be in [0, {first.ndim}), but got {dimension}")
        if not 1 <= num_keys <= len(avals):
            raise OpError(f"expected num_keys to be in [1, {len(avals)}], but got {num_keys}")
        return list(avals)

    @classmethod
    def evaluate(cls, *operands, dimension, is_stable, num_keys):
        """A stable lexsort (NumPy puts NaNs last and keeps -0.0 == 0.0)."""
        keys = [np.moveaxis(k, dimension, -1)
                for x in operands[:num_keys] for k in _numpy_keys(x)]
        order = np.lexsort(keys[::-1], axis=-1)
        return [np.moveaxis(np.take_along_axis(np.moveaxis(x, dimension, -1), order, -1),
                            -1, dimension) for x in operands]

    @classmethod
    def lower(cls, lb, *operands, dimension, is_stable, num_keys):
        """One ``stablehlo.sort`` whose comparator is the total order's "less than",
        lexicographic over the first ``num_keys`` operands; ``irax.num_keys`` records how
        many (``irax-legalize-iree`` rebuilds the sort for IREE from it)."""
        avals = list(lb.out_avals)
        if type(avals[0].shape[dimension]) is not int:
            raise OpError(f"expected a static size to sort along, but dimension {dimension} "
                          f"of {avals[0].str_short()} is symbolic (IREE 3.13 sorts along a "
                          "dynamic axis in stack memory it cannot size); sort beside it, or "
                          "leave that axis out of abstracted_axes")
        op = lb.create("stablehlo.sort", list(operands), [lb.type(a) for a in avals],
                       {"dimension": lb.i64(dimension),
                        "is_stable": lb.attr("true" if is_stable else "false"),
                        NUM_KEYS: lb.i64(num_keys)}, regions=1)
        comparator(lb, op, avals, avals, list(range(num_keys)))
        return list(op.results)

    @classmethod
    def jvp_full(cls, b, ins, dins, out_avals, *, dimension, is_stable, num_keys):
        """Sorts an iota along, then gathers each tangent with that permutation."""
        shape = out_avals[0].shape
        iota = b.iota(shape=shape, dtype=index_dtype(shape[dimension]), dimension=dimension)
        *outs, perm = b.emit(cls, [*ins, iota], dimension=dimension, is_stable=is_stable,
                             num_keys=num_keys)
        return outs, [None if t is None else take_along(b, t, perm, dimension) for t in dins]

    @classmethod
    def batch(cls, b, args, dims, *, dimension, is_stable, num_keys):
        """Every operand batched at the first batch dim; ``dimension`` shifts past it."""
        d = next(x for x in dims if x is not None)
        operands = [b.matchaxis(x, xd, d) for x, xd in zip(args, dims)]
        outs = b.emit(cls, operands, dimension=dimension + (d <= dimension),
                      is_stable=is_stable, num_keys=num_keys)
        return outs, [d] * len(outs)


def _bitcast(b, x, src: ShapedArray, dst: ShapedArray):
    return x if src.dtype == dst.dtype else b.op("stablehlo.bitcast_convert", [x], dst)


def comparator(lb, op, avals, moved, keys) -> None:
    """The comparator region of the ``stablehlo.sort`` ``op``: lexicographic "less than"
    over the operands ``keys``, whose values travel as the ``moved`` types (bitcast back to
    ``avals`` to compare; equal to ``avals`` in the portable form)."""
    scalars = [ShapedArray((), m.dtype) for m in moved]
    block = op.regions[0].blocks.append(*[lb.type(t) for t in scalars for _ in range(2)])
    body = lb.at_end(block)
    args = list(block.arguments)
    values = [ShapedArray((), a.dtype) for a in avals]
    body.ret([less_than(body, args[0::2], args[1::2], values, scalars, keys)])


def less_than(b, lhs, rhs, avals, moved, keys):
    """``lhs < rhs`` elementwise, lexicographic over the operands ``keys`` of the lists
    ``lhs`` and ``rhs`` (values of the ``moved`` types, compared as ``avals``)."""
    pairs = []
    for i in keys:
        x, y = (_bitcast(b, v[i], moved[i], avals[i]) for v in (lhs, rhs))
        pairs += _ir_keys(b, x, y, avals[i])
    return _lexicographic_less(b, pairs)


def index_dtype(n: int) -> np.dtype:
    """The dtype of positions along an axis of ``n`` elements (int32 for a symbolic size:
    such arrays are assumed to have fewer than 2**31 elements along it)."""
    if type(n) is not int:
        return np.dtype(np.int32)
    return np.dtype(np.int32 if n <= np.iinfo(np.int32).max else np.int64)


def take_along(b, x, idx, dimension: int):
    """``np.take_along_axis(x, idx, dimension)`` for ``idx`` of ``x``'s shape: one gather
    whose other dims are batching dims."""
    rank = b.aval(x).ndim
    others = tuple(d for d in range(rank) if d != dimension)
    return b.gather(x, idx, offset_dims=(), collapsed_slice_dims=(dimension,),
                    start_index_map=(dimension,), slice_sizes=(1,) * rank,
                    index_vector_dim=rank, operand_batching_dims=others,
                    start_indices_batching_dims=others)


# ---- NumPy keys ------------------------------------------------------------------------------
def _numpy_keys(x: np.ndarray) -> list[np.ndarray]:
    """The arrays whose lexicographic order is ``x``'s: (real, imag) for complex."""
    if dtypes.is_complex(x.dtype):
        return [x.real, x.imag]
    if dtypes.is_float(x.dtype) and x.dtype.itemsize < 4:  # float16, bfloat16, fp8
        return [x.astype(np.float32)]
    return [x]


# ---- the comparator --------------------------------------------------------------------------
def _ir_keys(b, lhs, rhs, aval) -> list[tuple]:
    """``(lhs, rhs, dtype)`` key pairs of one operand of type ``aval``: the real and
    imaginary parts of complex values, else the values themselves."""
    if not dtypes.is_complex(aval.dtype):
        return [(lhs, rhs, aval.dtype)]
    part = np.dtype(np.float32 if aval.dtype == np.complex64 else np.float64)
    out = aval.update(dtype=part)
    return [(b.op(f"stablehlo.{p}", [lhs], out), b.op(f"stablehlo.{p}", [rhs], out), part)
            for p in ("real", "imag")]


def _pred(x) -> ShapedArray:
    return mlir.aval_of(x).update(dtype=np.dtype(np.bool_))


def _logic(b, name, x, y):
    return b.op(f"stablehlo.{name}", [x, y], _pred(x))


def _less_equal(b, x, y, dtype, need_equal: bool):
    """``(x < y, x == y)`` in the total order (``x == y`` only when ``need_equal``). Floats:
    a NaN is greater than every number and equal to every NaN; -0.0 == 0.0 already."""
    less = b.compare(x, y, "LT")
    equal = b.compare(x, y, "EQ") if need_equal else None
    if not dtypes.is_float(dtype):
        return less, equal
    x_num, y_nan = b.compare(x, x, "EQ"), b.compare(y, y, "NE")
    less = _logic(b, "or", less, _logic(b, "and", x_num, y_nan))
    if need_equal:
        x_nan = b.compare(x, x, "NE")
        equal = _logic(b, "or", equal, _logic(b, "and", x_nan, y_nan))
    return less, equal


def _lexicographic_less(b, keys):
    """``lhs < rhs`` over the key pairs, the first key primary:
    ``lt0 | (eq0 & (lt1 | (eq1 & ...)))``."""
    x, y, dtype = keys[-1]
    result, _ = _less_equal(b, x, y, dtype, need_equal=False)
    for x, y, dtype in reversed(keys[:-1]):
        less, equal = _less_equal(b, x, y, dtype, need_equal=True)
        result = _logic(b, "or", less, _logic(b, "and", equal, result))
    return result
