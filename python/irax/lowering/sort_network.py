"""A bitonic sorting network in plain StableHLO: what ``irax-legalize-iree`` makes of a long
``stablehlo.sort``.

IREE 3.13's ``stablehlo.sort`` takes time quadratic in the sorted length on llvm-cpu
(~0.5 ms for 256 elements, ~0.7 s for 10k, ~70 s for 100k, per row). A sort with
``rows * n * n >= NETWORK_MIN_WORK`` (``n`` the sorted length, ``rows`` the product of the
other dims) runs Batcher's bitonic network instead: one ``stablehlo.while`` over its
log2(N) (log2(N) + 1) / 2 stages, each a compare-exchange of every element (all rows at
once) with its partner ``i ^ j``:

    %r:4 = stablehlo.while(%k = 2, %j = 1, %keys = ..., %positions = iota) ...
      cond { k <= N }
      do {  p = gather(x, i ^ j) for every lane x;
            flip = popcount(i & (j | k)) is odd   (the upper element of a pair, xor a
                                                   descending block i & k != 0)
            x = select((p < x) ^ flip, p, x)      (lexicographic over the keys)
            (k, j) = j > 1 ? (k, j / 2) : (2 k, k) }

The sorted axis is padded to a power of two N with elements no smaller than any other
(a NaN, the largest integer, ``True``) and the positions 0..N-1 are the last key: every
comparison is strict, the padding sorts last and the result is the unique stable order.
An operand that is itself the positions (``jnp.argsort``, ``random.permutation``) is not
carried: its result is the sorted position key.

Measured on 2 cores (f32 argsort, compile + run): 1k 0.4 s + 0.4 ms, 100k 0.4 s + 26 ms,
1M 0.5 s + 0.4 s. Statically unrolled stages (reshape to ``[.., N/2j, 2, j, ..]``,
reverse, select: no gathers) run up to 1.8x faster at 1M but compile in 2-6 s.
"""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np

from irax.core import dtypes
from irax.core.abstract import ShapedArray
from irax.dialect import mlir
from irax.dialect.attrs import Dense
from irax.dialect.sorting import index_dtype, less_than
from irax.dialect.upstream import StableHLOConstant, StableHLOIota, op_class

#: ``stablehlo.sort`` costs about ``rows * n * n * 7 ns``; from this much work on the
#: network (a few microseconds per stage plus ~1 ns per element and stage) is faster
NETWORK_MIN_WORK = 1 << 15


def use_network(shape, dimension: int) -> bool:
    """Whether a sort of ``shape`` along ``dimension`` lowers to the network."""
    if any(type(d) is not int for d in shape):   # symbolic sizes: IREE's own sort
        return False
    n = shape[dimension]
    return n > 1 and math.prod(shape) * n >= NETWORK_MIN_WORK


def network_sort(lb, operands, avals, moved, num_keys, dimension):
    """The operands (values of the ``moved`` types, compared as ``avals``) sorted along
    ``dimension`` by the first ``num_keys`` and then by position; returns the sorted
    values of the moved types."""
    shape = moved[0].shape
    n = shape[dimension]
    rows, cols = math.prod(shape[:dimension]), math.prod(shape[dimension + 1:])
    size = 1 << (n - 1).bit_length()
    grid = (rows, size, cols)
    lanes, kinds, keys, counts = [], [], [], []
    for i, (x, a) in enumerate(zip(operands, avals)):
        if i >= num_keys and is_iota(x, a, dimension):
            counts.append(0)  # the result is the position key
            continue
        pieces = _split(lb, _reshape(lb, x, (rows, n, cols)), a.dtype)
        counts.append(len(pieces))
        for value, kind in pieces:
            keys += [len(lanes)] if i < num_keys else []
            padding = _padding(kind, _aval(value).dtype, i < num_keys)
            lanes.append(_flat(lb, _pad(lb, value, padding, size - n)))
            kinds.append(kind)
    positions = ShapedArray(grid, index_dtype(size))
    keys.append(len(lanes))
    kinds.append(positions.dtype)
    lanes.append(_flat(lb, lb.op("stablehlo.iota", [], positions, iota_dimension=lb.i64(1))))
    out = [_slice(lb, _reshape(lb, x, grid), n) for x in _bitonic(lb, lanes, keys, kinds, grid)]
    results = iter(out)
    return [_reshape(lb, _join(lb, [next(results) for _ in range(count)], a, m)
                     if count else _convert(lb, out[-1], m.dtype), shape)
            for count, a, m in zip(counts, avals, moved)]


def _bitonic(lb, lanes, keys, kinds, grid):
    """The lanes (flat views of ``grid``-shaped values) sorted along ``grid[1]`` (a power
    of two) by a ``stablehlo.while`` over the stages (k, j) of the bitonic network."""
    index = index_dtype(2 * math.prod(grid))
    init = [lb.constant(np.array(2, index)), lb.constant(np.array(1, index)), *lanes]
    types = [v.type for v in init]
    loop = lb.create("stablehlo.while", init, types, regions=2)
    cond, body = (loop.regions[r].blocks.append(*types) for r in (0, 1))
    b = lb.at_end(cond)
    b.ret([b.compare(cond.arguments[0], b.constant(np.array(grid[1], index)), "LE")])
    b = lb.at_end(body)
    k, j, *xs = body.arguments
    out = _stage(b, k, j, xs, keys, kinds, grid)
    scalar = ShapedArray((), index)
    half = b.op("stablehlo.shift_right_logical", [j, b.constant(np.array(1, index))], scalar)
    done = b.compare(half, b.constant(np.array(0, index)), "EQ")  # the last j of this k
    b.ret([b.op("stablehlo.select", [done, b.op("stablehlo.add", [k, k], scalar), k], scalar),
           b.op("stablehlo.select", [done, k, half], scalar), *out])
    return list(loop.results[2:])


def _stage(b, k, j, xs, keys, kinds, grid):
    """One compare-exchange of every element ``i`` (its position along ``grid[1]``) with
    ``i ^ j``: the smaller one goes first where ``i & k == 0`` (an ascending block)."""
    rows, size, cols = grid
    flat = ShapedArray((rows * size * cols,), _aval(k).dtype)

    def wide(s):
        return b.op("stablehlo.broadcast_in_dim", [s], flat, broadcast_dimensions=b.i64s(()))

    def binary(name, x, y):
        return b.op(f"stablehlo.{name}", [x, y], _aval(x))

    def splat(value):
        return b.constant(np.full(flat.shape, value, flat.dtype))

    position = _flat(b, b.op("stablehlo.iota", [], flat.update(shape=grid),
                             iota_dimension=b.i64(1)))
    # keep the partner's values where it is smaller, xor the upper element of its pair
    # (i & j), xor in a descending block (i & k): the parity of i & (j | k)
    bits = b.op("stablehlo.popcnt", [binary("and", position, wide(binary("or", j, k)))], flat)
    flip = b.compare(binary("and", bits, splat(1)), splat(0), "NE")
    element = b.op("stablehlo.iota", [], flat, iota_dimension=b.i64(0))
    if cols == 1:  # element = row * size + position
        partner = binary("xor", element, wide(j))
    else:
        step = binary("subtract", binary("xor", position, wide(j)), position)
        partner = binary("add", element, binary("multiply", step, splat(cols)))
    partner = b.op("stablehlo.reshape", [partner], flat.update(shape=(flat.shape[0], 1)))
    partners = [_gather(b, x, partner) for x in xs]
    take = binary("xor", _less(b, partners, xs, keys, kinds), flip)
    return [b.op("stablehlo.select", [take, p, x], _aval(x)) for p, x in zip(partners, xs)]


def _gather(b, x, column):
    """``x[column[:, 0]]`` for 1-D ``x``."""
    return b.op("stablehlo.gather", [x, column], _aval(x),
                dimension_numbers=b.attr("#stablehlo.gather<collapsed_slice_dims = [0], "
                                         "start_index_map = [0], index_vector_dim = 1>"),
                slice_sizes=b.i64s((1,)))


def _less(b, lhs, rhs, keys, kinds):
    """``lhs < rhs`` elementwise in the total order, lexicographic over the key lanes."""
    moved = [_aval(x) for x in lhs]
    return less_than(b, lhs, rhs, [m.update(dtype=d) for m, d in zip(moved, kinds)], moved,
                     keys)


# ---- lanes: how operands travel through the network ------------------------------------------
def _split(lb, x, dtype):
    """The lanes that carry one operand of ``dtype``, with the dtypes they compare as:
    complex numbers travel as their (real, imag) parts (IREE 3.13 crashes compiling a
    ``stablehlo.pad`` of complex numbers)."""
    if not dtypes.is_complex(dtype):
        return [(x, dtype)]
    part = _aval(x).update(dtype=np.dtype(np.float32 if dtype == np.complex64 else np.float64))
    return [(lb.op(f"stablehlo.{p}", [x], part), part.dtype) for p in ("real", "imag")]


def _join(lb, pieces, aval, moved):
    """The inverse of ``_split``: the value of the ``moved`` type from its lanes."""
    if not dtypes.is_complex(aval.dtype):
        return pieces[0]
    return lb.op("stablehlo.complex", pieces, _aval(pieces[0]).update(dtype=moved.dtype))


def _padding(dtype, lane, is_key: bool) -> np.ndarray:
    """The padding of a lane of type ``lane`` comparing as ``dtype``: for a key the
    greatest value of the total order (a NaN where the format has one), else zero."""
    if not is_key:
        return np.zeros((), lane)
    if dtypes.is_bool(dtype):
        return np.array(True)
    if dtypes.is_int(dtype) or dtypes.is_unsigned(dtype):
        return np.array(ml_dtypes.iinfo(dtype).max, dtype).view(lane)
    top = np.array(np.nan, dtype)
    if not np.isnan(top.astype(np.float32)):  # float4/float6 formats: no NaN, no inf
        top = np.array(ml_dtypes.finfo(dtype).max, dtype)
    return top.view(lane)


def is_iota(x, aval, dimension) -> bool:
    """Whether ``x`` is a ``stablehlo.iota`` or an integer constant counting along
    ``dimension``: the positions, which need not travel with the keys."""
    owner = x.owner
    if not dtypes.is_int(aval.dtype) or not hasattr(owner, "name"):
        return False
    if op_class(owner) is StableHLOIota:
        return mlir.ir().IntegerAttr(owner.attributes["iota_dimension"]).value == dimension
    n = aval.shape[dimension]
    if op_class(owner) is not StableHLOConstant or np.iinfo(aval.dtype).max < n - 1:
        return False
    counts = np.arange(n).reshape([n if d == dimension else 1 for d in range(aval.ndim)])
    return bool(np.array_equal(Dense.decode_from(owner, "value"),
                               np.broadcast_to(counts, aval.shape)))


# ---- small helpers ---------------------------------------------------------------------------
def _aval(x) -> ShapedArray:
    return mlir.aval_of(x)


def _reshape(lb, x, shape):
    a = _aval(x)
    if a.shape == tuple(shape):
        return x
    return lb.op("stablehlo.reshape", [x], a.update(shape=tuple(shape)))


def _flat(lb, x):
    return _reshape(lb, x, (_aval(x).size,))


def _convert(lb, x, dtype):
    a = _aval(x)
    return x if a.dtype == dtype else lb.op("stablehlo.convert", [x], a.update(dtype=dtype))


def _pad(lb, x, value, count):
    """``x`` of shape ``(rows, n, cols)`` padded by ``count`` copies of ``value`` along
    axis 1."""
    if count == 0:
        return x
    rows, n, cols = _aval(x).shape
    return lb.op("stablehlo.pad", [x, lb.constant(value)],
                 _aval(x).update(shape=(rows, n + count, cols)),
                 edge_padding_low=lb.i64s((0, 0, 0)), edge_padding_high=lb.i64s((0, count, 0)),
                 interior_padding=lb.i64s((0, 0, 0)))


def _slice(lb, x, n):
    """The first ``n`` along axis 1 of ``x`` of shape ``(rows, size, cols)``."""
    rows, size, cols = _aval(x).shape
    if size == n:
        return x
    return lb.op("stablehlo.slice", [x], _aval(x).update(shape=(rows, n, cols)),
                 start_indices=lb.i64s((0, 0, 0)), limit_indices=lb.i64s((rows, n, cols)),
                 strides=lb.i64s((1, 1, 1)))
