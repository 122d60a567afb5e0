"""Shape and indexing ops (shape.py, indexing.py): eager results against NumPy, type errors
with their exact diagnostics, and one jit-vs-eager check over many ops at once."""

import itertools

import ml_dtypes
import numpy as np
import pytest

import irax
from irax.dialect import indexing as I
from irax.dialect import shape as S
from irax.frontend.trace import bind

bf16 = ml_dtypes.bfloat16
DTYPES = [np.float32, np.int32, np.uint8, bf16, np.bool_]


def run(cls, *args, **attrs):
    return np.asarray(bind(cls, *args, **attrs))


def data(rng, shape, dtype=np.float32):
    if np.dtype(dtype) == np.bool_:
        return rng.integers(0, 2, shape).astype(bool)
    if np.dtype(dtype).kind in "iu":
        return rng.integers(0, 100, shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def expect_error(cls, args, attrs, message):
    with pytest.raises(TypeError) as e:
        bind(cls, *args, **attrs)
    assert f"'{cls.name}' op {message}" == str(e.value)


def check(got, want):
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


def weak_scalar():
    return bind(S.Reshape, 2.0, new_sizes=())  # a rank-0 weakly typed array


# ---- broadcast_in_dim ----------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
def test_broadcast_in_dim_matches_numpy(rng, dtype):
    x = data(rng, (3,), dtype)
    check(run(S.BroadcastInDim, x, shape=(2, 3), broadcast_dimensions=(1,)),
          np.broadcast_to(x, (2, 3)))


def test_broadcast_in_dim_unsorted_dims_and_size_one(rng):
    x = data(rng, (2, 3))
    got = run(S.BroadcastInDim, x, shape=(3, 4, 2), broadcast_dimensions=(2, 0))
    check(got, np.broadcast_to(x.T[:, None, :], (3, 4, 2)))
    y = data(rng, (1, 3))
    check(run(S.BroadcastInDim, y, shape=(5, 3), broadcast_dimensions=(0, 1)),
          np.broadcast_to(y, (5, 3)))
    check(run(S.BroadcastInDim, np.float32(7), shape=(2, 2), broadcast_dimensions=()),
          np.full((2, 2), 7, np.float32))


def test_broadcast_in_dim_size_zero():
    x = np.zeros((0,), np.float32)
    check(run(S.BroadcastInDim, x, shape=(2, 0), broadcast_dimensions=(1,)),
          np.zeros((2, 0), np.float32))


def test_broadcast_in_dim_keeps_weak_type():
    assert bind(S.BroadcastInDim, weak_scalar(), shape=(2,), broadcast_dimensions=()).weak_type
    x = np.ones(3, np.float32)
    assert not bind(S.BroadcastInDim, x, shape=(2, 3), broadcast_dimensions=(1,)).weak_type


@pytest.mark.parametrize("attrs, message", [
    (dict(shape=(2, 4), broadcast_dimensions=(1,)),
     "expected operand dimension 0 of size 3 to be 1 or 4 (result dimension 1)"),
    (dict(shape=(3, 3), broadcast_dimensions=(2,)),
     "expected broadcast_dimensions to be in [0, 2), but got [2]"),
    (dict(shape=(3,), broadcast_dimensions=()),
     "expected broadcast_dimensions to have 1 entries (the operand rank), but got []"),
    (dict(shape=(-1, 3), broadcast_dimensions=(1,)),
     "expected non-negative result dimensions, but got [-1, 3]"),
])
def test_broadcast_in_dim_errors(attrs, message):
    expect_error(S.BroadcastInDim, [np.ones(3, np.float32)], attrs, message)


def test_broadcast_in_dim_duplicate_dims():
    expect_error(S.BroadcastInDim, [np.ones((3, 3), np.float32)],
                 dict(shape=(3, 3), broadcast_dimensions=(1, 1)),
                 "expected broadcast_dimensions to be unique, but got [1, 1]")


# ---- reshape, transpose, reverse -------------------------------------------------------------
@pytest.mark.parametrize("shape, new", [((2, 3), (3, 2)), ((2, 3), (6,)), ((6,), (1, 2, 1, 3)),
                                        ((), (1, 1)), ((1,), ()), ((0, 3), (3, 0, 5))])
def test_reshape_matches_numpy(rng, shape, new):
    for dtype in (np.float32, bf16, np.int32):
        x = data(rng, shape, dtype)
        check(run(S.Reshape, x, new_sizes=new), x.reshape(new))


def test_reshape_errors_and_weak_type():
    expect_error(S.Reshape, [np.ones((2, 3), np.float32)], dict(new_sizes=(4,)),
                 "expected new_sizes [4] to have 6 elements like the operand float32[2,3], "
                 "but got 4")
    expect_error(S.Reshape, [np.ones((0,), np.float32)], dict(new_sizes=(-1, 0)),
                 "expected non-negative sizes, but got [-1, 0]")
    assert weak_scalar().weak_type


@pytest.mark.parametrize("perm", list(itertools.permutations(range(3))))
def test_transpose_matches_numpy(rng, perm):
    x = data(rng, (2, 3, 4))
    check(run(S.Transpose, x, permutation=perm), np.transpose(x, perm))


def test_transpose_size_zero_and_errors(rng):
    x = np.zeros((0, 2), bf16)
    check(run(S.Transpose, x, permutation=(1, 0)), x.T)
    expect_error(S.Transpose, [np.ones((2, 3), np.float32)], dict(permutation=(0, 0)),
                 "expected permutation to be a permutation of [0, 2), but got [0, 0]")
    expect_error(S.Transpose, [np.ones((2, 3), np.float32)], dict(permutation=(1, 0, 2)),
                 "expected permutation to be a permutation of [0, 2), but got [1, 0, 2]")


@pytest.mark.parametrize("dims", [(), (0,), (1,), (0, 1), (1, 0)])
def test_reverse_matches_numpy(rng, dims):
    x = data(rng, (3, 4), np.int32)
    check(run(S.Reverse, x, dimensions=dims), np.flip(x, dims) if dims else x)


def test_reverse_errors():
    x = np.ones((3, 4), np.float32)
    expect_error(S.Reverse, [x], dict(dimensions=(2,)),
                 "expected dimensions to be in [0, 2), but got [2]")
    expect_error(S.Reverse, [x], dict(dimensions=(0, 0)),
                 "expected dimensions to be unique, but got [0, 0]")


# ---- slice, concatenate, pad ----------------------------------------------------------------
@pytest.mark.parametrize("start, limit, strides", [
    ((0, 0), (4, 5), (1, 1)), ((1, 2), (4, 5), (2, 2)), ((3, 0), (3, 5), (1, 3)),
    ((0, 4), (4, 5), (5, 7)), ((4, 5), (4, 5), (1, 1))])
def test_slice_matches_numpy(rng, start, limit, strides):
    x = data(rng, (4, 5), bf16)
    want = x[start[0]:limit[0]:strides[0], start[1]:limit[1]:strides[1]]
    check(run(S.Slice, x, start_indices=start, limit_indices=limit, strides=strides), want)


@pytest.mark.parametrize("attrs, message", [
    (dict(start_indices=(0,), limit_indices=(7,), strides=(1,)),
     "expected 0 <= start <= limit <= 6 in dimension 0, but got start 0 and limit 7"),
    (dict(start_indices=(3,), limit_indices=(2,), strides=(1,)),
     "expected 0 <= start <= limit <= 6 in dimension 0, but got start 3 and limit 2"),
    (dict(start_indices=(0,), limit_indices=(2,), strides=(0,)),
     "expected positive strides, but got [0]"),
    (dict(start_indices=(0, 0), limit_indices=(2,), strides=(1,)),
     "expected start_indices to have 1 entries (the operand rank), but got [0, 0]"),
])
def test_slice_errors(attrs, message):
    expect_error(S.Slice, [np.ones(6, np.float32)], attrs, message)


@pytest.mark.parametrize("dtype", DTYPES)
def test_concatenate_matches_numpy(rng, dtype):
    xs = [data(rng, (2, n), dtype) for n in (1, 0, 3)]
    check(run(S.Concatenate, *xs, dimension=1), np.concatenate(xs, axis=1))
    check(run(S.Concatenate, xs[2], dimension=0), xs[2])


def test_concatenate_errors_and_weak_type():
    a, b = np.ones((2, 3), np.float32), np.ones((2, 4), np.float32)
    expect_error(S.Concatenate, [a, b], dict(dimension=0),
                 "expected operands of one dtype and equal shapes outside dimension 0, "
                 "but got float32[2,3] and float32[2,4]")
    expect_error(S.Concatenate, [a, a.astype(np.int32)], dict(dimension=1),
                 "expected operands of one dtype and equal shapes outside dimension 1, "
                 "but got float32[2,3] and int32[2,3]")
    expect_error(S.Concatenate, [a], dict(dimension=2),
                 "expected dimension to be in [0, 2), but got 2")
    expect_error(S.Concatenate, [np.float32(1)], dict(dimension=0),
                 "expected dimension to be in [0, 0), but got 0")
    expect_error(S.Concatenate, [], dict(dimension=0), "expected at least 1 operand, but got 0")
    w = bind(S.Reshape, weak_scalar(), new_sizes=(1,))
    assert bind(S.Concatenate, w, w, dimension=0).weak_type
    assert not bind(S.Concatenate, w, np.ones(1, np.float32), dimension=0).weak_type


def pad_reference(x, value, low, high, interior):
    """Element by element: x[i] lands at low + i * (interior + 1) when that is in range."""
    shape = [lo + hi + d + max(d - 1, 0) * mid for d, lo, hi, mid in
             zip(x.shape, low, high, interior)]
    out = np.full(shape, value, x.dtype)
    for idx in np.ndindex(*x.shape):
        pos = tuple(lo + i * (mid + 1) for i, lo, mid in zip(idx, low, interior))
        if all(0 <= p < n for p, n in zip(pos, shape)):
            out[pos] = x[idx]
    return out


@pytest.mark.parametrize("low, high, interior", [
    ((0, 0), (0, 0), (0, 0)), ((1, 2), (3, 0), (0, 0)), ((0, 1), (1, 0), (2, 1)),
    ((-1, 0), (0, -2), (0, 0)), ((-2, 1), (1, -3), (1, 2)), ((-3, -4), (0, 0), (0, 0))])
@pytest.mark.parametrize("dtype", [np.float32, np.int32, bf16])
def test_pad_matches_reference(rng, low, high, interior, dtype):
    x = data(rng, (3, 4), dtype)
    value = np.array(-7, dtype)
    attrs = dict(edge_padding_low=low, edge_padding_high=high, interior_padding=interior)
    check(run(S.Pad, x, value, **attrs), pad_reference(x, value, low, high, interior))


def test_pad_size_zero_operand():
    x = np.zeros((0, 2), np.float32)
    got = run(S.Pad, x, np.float32(5), edge_padding_low=(1, 0), edge_padding_high=(1, 0),
              interior_padding=(3, 0))
    check(got, np.full((2, 2), 5, np.float32))


@pytest.mark.parametrize("args, attrs, message", [
    ((np.ones(3, np.float32), np.int32(0)), dict(low=(0,), high=(0,), mid=(0,)),
     "expected a rank-0 padding value of dtype float32, but got int32[]"),
    ((np.ones(3, np.float32), np.zeros(1, np.float32)), dict(low=(0,), high=(0,), mid=(0,)),
     "expected a rank-0 padding value of dtype float32, but got float32[1]"),
    ((np.ones(3, np.float32), np.float32(0)), dict(low=(0,), high=(0,), mid=(-1,)),
     "expected non-negative interior_padding, but got [-1]"),
    ((np.ones(3, np.float32), np.float32(0)), dict(low=(-2,), high=(-2,), mid=(0,)),
     "expected the padded shape to be non-negative, but got [-1]"),
    ((np.ones(3, np.float32), np.float32(0)), dict(low=(0, 0), high=(0,), mid=(0,)),
     "expected edge_padding_low to have 1 entries (the operand rank), but got [0, 0]"),
])
def test_pad_errors(args, attrs, message):
    expect_error(S.Pad, list(args), dict(edge_padding_low=attrs["low"],
                                         edge_padding_high=attrs["high"],
                                         interior_padding=attrs["mid"]), message)


# ---- dynamic_slice, dynamic_update_slice -------------------------------------------------------
def i32(v):
    return np.array(v, np.int32)


@pytest.mark.parametrize("starts", [(0, 0), (1, 2), (3, 3), (-5, 1), (2, 100), (-1, -1)])
def test_dynamic_slice_clamps_like_xla(rng, starts):
    x = data(rng, (5, 6))
    sizes = (2, 3)
    lo = [min(max(s, 0), d - n) for s, d, n in zip(starts, x.shape, sizes)]
    want = x[lo[0]:lo[0] + 2, lo[1]:lo[1] + 3]
    check(run(I.DynamicSlice, x, *map(i32, starts), slice_sizes=sizes), want)


def test_dynamic_slice_other_index_dtypes_and_sizes(rng):
    x = data(rng, (4, 3), bf16)
    got = run(I.DynamicSlice, x, np.uint8(200), np.uint8(1), slice_sizes=(0, 3))
    check(got, x[4:4, 0:3])
    check(run(I.DynamicSlice, x, np.int64(2), np.int64(0), slice_sizes=(2, 3)), x[2:4])


@pytest.mark.parametrize("args, attrs, message", [
    ((np.ones((2, 3), np.float32), i32(0)), dict(slice_sizes=(1, 1)),
     "expected 2 start indices (the operand rank), but got 1"),
    ((np.ones((2, 3), np.float32), i32(0), np.int16(0)), dict(slice_sizes=(1, 1)),
     "expected start indices to be rank-0 integer tensors of one dtype, but got int32[], "
     "int16[]"),
    ((np.ones((2, 3), np.float32), i32(0), np.float32(0)), dict(slice_sizes=(1, 1)),
     "expected start indices to be rank-0 integer tensors of one dtype, but got int32[], "
     "float32[]"),
    ((np.ones((2, 3), np.float32), i32(0), i32([0])), dict(slice_sizes=(1, 1)),
     "expected start indices to be rank-0 integer tensors of one dtype, but got int32[], "
     "int32[1]"),
    ((np.ones((2, 3), np.float32), i32(0), i32(0)), dict(slice_sizes=(3, 1)),
     "expected slice_sizes in [0, [2, 3]], but got [3, 1]"),
    ((np.ones((2, 3), np.float32), i32(0), i32(0)), dict(slice_sizes=(1,)),
     "expected slice_sizes to have 2 entries (the operand rank), but got [1]"),
])
def test_dynamic_slice_errors(args, attrs, message):
    expect_error(I.DynamicSlice, list(args), attrs, message)


@pytest.mark.parametrize("starts", [(0, 0), (1, 2), (4, 4), (-3, 2), (9, 9)])
@pytest.mark.parametrize("dtype", [np.float32, np.int8, bf16, np.bool_])
def test_dynamic_update_slice_clamps_like_xla(rng, starts, dtype):
    x, u = data(rng, (5, 6), dtype), data(rng, (2, 3), dtype)
    lo = [min(max(s, 0), d - n) for s, d, n in zip(starts, x.shape, u.shape)]
    want = x.copy()
    want[lo[0]:lo[0] + 2, lo[1]:lo[1] + 3] = u
    check(run(I.DynamicUpdateSlice, x, u, *map(i32, starts)), want)


def test_dynamic_update_slice_errors():
    x = np.ones((2, 3), np.float32)
    expect_error(I.DynamicUpdateSlice, [x, np.ones((3, 1), np.float32), i32(0), i32(0)], {},
                 "expected an update of dtype float32 that fits in the operand, but got "
                 "float32[3,1] for float32[2,3]")
    expect_error(I.DynamicUpdateSlice, [x, np.ones((1, 1), np.int32), i32(0), i32(0)], {},
                 "expected an update of dtype float32 that fits in the operand, but got "
                 "int32[1,1] for float32[2,3]")
    expect_error(I.DynamicUpdateSlice, [x, np.ones((1, 1), np.float32), i32(0)], {},
                 "expected 2 start indices (the operand rank), but got 1")


# ---- gather ------------------------------------------------------------------------------------
def gather_jax(operand, indices, **dn):
    """The oracle: jax.lax.gather with clamping (XLA's semantics)."""
    jax = pytest.importorskip("jax")
    from jax import lax

    slice_sizes = dn.pop("slice_sizes")
    dn.pop("index_vector_dim")
    numbers = lax.GatherDimensionNumbers(**dn)
    return np.asarray(lax.gather(jax.numpy.asarray(operand), jax.numpy.asarray(indices),
                                 numbers, slice_sizes, mode=lax.GatherScatterMode.CLIP))


GATHERS = [
    # x[idx] on rows (jnp.take along axis 0), with out-of-range indices
    ((5, 3), np.array([[0], [4], [7], [-2]]),
     dict(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,), slice_sizes=(1, 3))),
    # point gather x[i, j] with 2-d index vectors, batch shape (2, 2)
    ((4, 5), np.array([[[0, 1], [3, 4]], [[9, -1], [2, 2]]]),
     dict(offset_dims=(), collapsed_slice_dims=(0, 1), start_index_map=(0, 1),
          slice_sizes=(1, 1))),
    # windows of size 2x2 started at (i, j), offset dims in the middle of the result
    ((4, 5, 2), np.array([[1, 3], [3, 4], [0, 0]]),
     dict(offset_dims=(1, 2), collapsed_slice_dims=(2,), start_index_map=(1, 0),
          slice_sizes=(2, 2, 1))),
    # start_index_map permuted, no collapsing, uncollapsed size-1 dim kept
    ((3, 4), np.array([[2, 0], [1, 2]]),
     dict(offset_dims=(1, 2), collapsed_slice_dims=(), start_index_map=(1, 0),
          slice_sizes=(2, 1))),
    # batching dims (take_along_axis): operand dim 0 paired with indices dim 0
    ((3, 5), np.array([[[4], [0]], [[1], [9]], [[2], [2]]]),
     dict(offset_dims=(), collapsed_slice_dims=(1,), start_index_map=(1,),
          operand_batching_dims=(0,), start_indices_batching_dims=(0,), slice_sizes=(1, 1))),
    # empty batch
    ((5, 3), np.zeros((0, 1), int),
     dict(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,), slice_sizes=(1, 3))),
]


@pytest.mark.parametrize("case", range(len(GATHERS)))
def test_gather_matches_jax(rng, case):
    shape, idx, dn = GATHERS[case]
    x = data(rng, shape)
    idx = idx.astype(np.int32)
    got = run(I.Gather, x, idx, index_vector_dim=idx.ndim - 1, **dn)
    want = gather_jax(x, idx, index_vector_dim=idx.ndim - 1, **dn)
    check(got, want)


def test_gather_implicit_index_vector_dim(rng):
    x = data(rng, (5, 3), bf16)
    idx = np.array([3, -1, 6], np.int32)  # index_vector_dim = rank: scalars are 1-vectors
    got = run(I.Gather, x, idx, offset_dims=(1,), collapsed_slice_dims=(0,),
              start_index_map=(0,), slice_sizes=(1, 3), index_vector_dim=1)
    check(got, x[np.clip(idx, 0, 4)])


def test_gather_index_vector_dim_first(rng):
    x = data(rng, (4, 5), np.int32)
    idx = np.array([[0, 3, 5], [1, 4, -2]], np.int32)  # index vectors are columns
    got = run(I.Gather, x, idx, offset_dims=(), collapsed_slice_dims=(0, 1),
              start_index_map=(0, 1), slice_sizes=(1, 1), index_vector_dim=0)
    check(got, x[np.clip(idx[0], 0, 3), np.clip(idx[1], 0, 4)])


def test_gather_keeps_operand_weak_type():
    w = bind(S.BroadcastInDim, weak_scalar(), shape=(3,), broadcast_dimensions=())
    got = bind(I.Gather, w, i32([[1]]), offset_dims=(), collapsed_slice_dims=(0,),
               start_index_map=(0,), slice_sizes=(1,), index_vector_dim=1)
    assert got.weak_type and got.shape == (1,)


ROWS = dict(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,),
            slice_sizes=(1, 3), index_vector_dim=1)


@pytest.mark.parametrize("indices, changes, message", [
    (np.zeros((2, 1), np.float32), {}, "expected integer start indices, but got float32[2,1]"),
    (None, dict(index_vector_dim=3), "expected index_vector_dim to be in [0, 2], but got 3"),
    (None, dict(slice_sizes=(1, 4)), "expected slice_sizes in [0, [5, 3]], but got [1, 4]"),
    (None, dict(slice_sizes=(1,)),
     "expected slice_sizes to have 2 entries (the operand rank), but got [1]"),
    (None, dict(slice_sizes=(2, 3)),
     "expected slice_sizes[0] <= 1 for a collapsed or batching dimension, but got 2"),
    (None, dict(collapsed_slice_dims=(2,)),
     "expected collapsed_slice_dims to be in [0, 2), but got [2]"),
    (None, dict(collapsed_slice_dims=(1, 0), slice_sizes=(1, 1), offset_dims=()),
     "expected collapsed_slice_dims to be sorted, but got [1, 0]"),
    (None, dict(start_index_map=(0, 1)),
     "expected start_index_map to have 1 entries (the index vector size), but got [0, 1]"),
    (None, dict(offset_dims=()), "expected 1 offset_dims (the uncollapsed window dims), "
                                 "but got []"),
    (None, dict(offset_dims=(2,)), "expected offset_dims to be in [0, 2), but got [2]"),
    (np.zeros((2, 2), np.int32), dict(start_index_map=(0, 0)),
     "expected start_index_map to be unique, but got [0, 0]"),
    (None, dict(operand_batching_dims=(0,), start_indices_batching_dims=(0,)),
     "expected collapsed_slice_dims and operand_batching_dims to be disjoint"),
    (None, dict(operand_batching_dims=(1,), start_indices_batching_dims=(1,),
                slice_sizes=(1, 1), offset_dims=()),
     "expected start_indices_batching_dims to exclude index_vector_dim 1, but got [1]"),
    (None, dict(operand_batching_dims=(1,), start_indices_batching_dims=(),
                slice_sizes=(1, 1), offset_dims=()),
     "expected operand_batching_dims and start_indices_batching_dims of one length, "
     "but got [1] and []"),
    (None, dict(operand_batching_dims=(1,), start_indices_batching_dims=(0,),
                slice_sizes=(1, 1), offset_dims=()),
     "expected batching dimensions to have the same size, but got (3,) and (2,)"),
])
def test_gather_errors(indices, changes, message):
    x = np.ones((5, 3), np.float32)
    idx = np.zeros((2, 1), np.int32) if indices is None else indices
    expect_error(I.Gather, [x, idx], {**ROWS, **changes}, message)


# ---- one compiled check over every op --------------------------------------------------------
def _scalar(v, k):
    one = bind(S.Slice, v, start_indices=(k,), limit_indices=(k + 1,), strides=(1,))
    return bind(S.Reshape, one, new_sizes=())


def _many_shape_ops(x, y, b, starts, pv, *gathers):
    i, j, far, neg = (_scalar(starts, k) for k in range(4))
    pad = dict(edge_padding_low=(-1, 2), edge_padding_high=(1, -2), interior_padding=(1, 2))
    y_cols = bind(S.BroadcastInDim, y, shape=(3, 2), broadcast_dimensions=(0,))
    b_pad = bind(S.Reshape, bind(S.Slice, b, start_indices=(0, 0), limit_indices=(1, 1),
                                 strides=(1, 1)), new_sizes=())
    outs = [
        bind(S.BroadcastInDim, y, shape=(2, 4, 3), broadcast_dimensions=(2,)),
        bind(S.BroadcastInDim, x, shape=(5, 2, 4), broadcast_dimensions=(2, 0)),
        bind(S.BroadcastInDim, b, shape=(3, 2, 2), broadcast_dimensions=(1, 2)),
        bind(S.Reshape, x, new_sizes=(2, 2, 5)),
        bind(S.Transpose, x, permutation=(1, 0)),
        bind(S.Slice, x, start_indices=(1, 0), limit_indices=(4, 5), strides=(2, 3)),
        bind(S.Concatenate, x, x, bind(S.Slice, x, start_indices=(0, 0), limit_indices=(1, 5),
                                       strides=(1, 1)), dimension=0),
        bind(S.Pad, x, pv, **pad),
        bind(S.Pad, b, b_pad, edge_padding_low=(1, 0), edge_padding_high=(0, 1),
             interior_padding=(0, 1)),
        bind(S.Reverse, x, dimensions=(0, 1)),
        bind(I.DynamicSlice, x, i, j, slice_sizes=(2, 3)),
        bind(I.DynamicSlice, x, far, neg, slice_sizes=(3, 2)),
        bind(I.DynamicUpdateSlice, x, bind(S.Transpose, y_cols, permutation=(1, 0)), far, neg),
        bind(I.DynamicUpdateSlice, b, bind(S.Reverse, b, dimensions=(0,)), i, far),
    ]
    for (operand, indices), (_, _, dn) in zip(zip(gathers[::2], gathers[1::2]), GATHERS):
        outs.append(bind(I.Gather, operand, indices, index_vector_dim=indices.ndim - 1, **dn))
    return outs


def test_jit_matches_eager_for_shape_ops(rng):
    x = data(rng, (4, 5))
    y = data(rng, (3,))
    b = data(rng, (2, 2), np.bool_)
    starts = i32([2, 1, 9, -4])
    pv = np.float32(-1)
    gathers = []
    for shape, indices, _ in GATHERS[:5]:
        gathers += [data(rng, shape, np.int32), indices.astype(np.int32)]
    args = (x, y, b, starts, pv, *gathers)
    eager = _many_shape_ops(*args)
    compiled = irax.jit(_many_shape_ops)(*args)
    assert len(eager) == len(compiled)
    for n, (e, c) in enumerate(zip(eager, compiled)):
        e, c = np.asarray(e), np.asarray(c)
        assert e.dtype == c.dtype and e.shape == c.shape, n
        np.testing.assert_array_equal(c, e, err_msg=f"output {n}")
