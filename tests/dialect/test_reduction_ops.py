"""Reduction ops (reduction.py): eager results against NumPy, type errors with their exact
diagnostics, and one jit-vs-eager check over many ops at once."""

import ml_dtypes
import numpy as np
import pytest

import irax
from irax.dialect import reduction as R
from irax.dialect import shape as S
from irax.frontend.trace import bind

bf16 = ml_dtypes.bfloat16
AXES = [(), (0,), (1,), (0, 1), (2, 0), (0, 1, 2)]


def run(cls, *args, **attrs):
    return np.asarray(bind(cls, *args, **attrs))


def expect_error(cls, args, attrs, message):
    with pytest.raises(TypeError) as e:
        bind(cls, *args, **attrs)
    assert f"'{cls.name}' op {message}" == str(e.value)


def check(got, want):
    assert got.dtype == want.dtype and got.shape == want.shape, (got, want)
    if got.dtype == bf16:  # NumPy's NaN-aware comparison does not know bfloat16
        got, want = got.astype(np.float32), want.astype(np.float32)
    np.testing.assert_array_equal(got, want)


def weak(shape):
    return bind(S.BroadcastInDim, 2.0, shape=shape, broadcast_dimensions=())


# ---- sum, prod --------------------------------------------------------------------------------
@pytest.mark.parametrize("axes", AXES)
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.uint8, np.int8, np.complex64])
def test_reduce_sum_matches_numpy(rng, axes, dtype):
    x = (rng.standard_normal((2, 3, 4)) * 50).astype(dtype)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * x[::-1]
    got = run(R.ReduceSum, x, axes=axes)
    want = np.sum(x, axis=axes, dtype=dtype)
    if np.dtype(dtype).kind in "fc":
        np.testing.assert_allclose(got, want, rtol=1e-5)
        assert got.dtype == want.dtype
    else:
        check(got, want)  # integer sums wrap


def test_reduce_sum_int_wraps():
    x = np.full((4,), 100, np.int8)
    check(run(R.ReduceSum, x, axes=(0,)), np.array(400 - 512, np.int8))


def test_reduce_sum_bf16_accumulates_in_f32():
    x = np.concatenate([np.ones(1024), np.full(64, 0.125)]).astype(bf16)
    got = run(R.ReduceSum, x, axes=(0,))
    assert got.dtype == bf16 and float(got) == 1032.0  # a bf16 accumulator would stall at 1024


def test_reduce_sum_and_prod_of_empty_axes():
    x = np.zeros((0, 3), np.float32)
    check(run(R.ReduceSum, x, axes=(0,)), np.zeros(3, np.float32))
    check(run(R.ReduceProd, x, axes=(0,)), np.ones(3, np.float32))
    check(run(R.ReduceSum, x, axes=(1,)), np.zeros(0, np.float32))


@pytest.mark.parametrize("axes", AXES)
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.uint8, bf16])
def test_reduce_prod_matches_numpy(rng, axes, dtype):
    x = rng.uniform(0.5, 3, (2, 3, 4)).astype(dtype)
    got = run(R.ReduceProd, x, axes=axes)
    if dtype == bf16:
        want = np.prod(x.astype(np.float32), axis=axes).astype(bf16)
    else:
        want = np.prod(x, axis=axes, dtype=dtype)
    check(got, want)


# ---- max, min ------------------------------------------------------------------------------------
@pytest.mark.parametrize("axes", AXES)
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.uint16, bf16, np.bool_])
def test_reduce_max_min_match_numpy(rng, axes, dtype):
    x = (rng.standard_normal((2, 3, 4)) * 10).astype(dtype)
    check(run(R.ReduceMax, x, axes=axes), np.max(x, axis=axes))
    check(run(R.ReduceMin, x, axes=axes), np.min(x, axis=axes))


def test_reduce_max_min_propagate_nan():
    x = np.array([[1.0, np.nan, 3.0], [-np.inf, 2.0, np.inf]], np.float32)
    check(run(R.ReduceMax, x, axes=(1,)), np.array([np.nan, np.inf], np.float32))
    check(run(R.ReduceMin, x, axes=(1,)), np.array([np.nan, -np.inf], np.float32))
    check(run(R.ReduceMax, x.astype(bf16), axes=(0,)),
          np.array([1.0, np.nan, np.inf], bf16))


@pytest.mark.parametrize("dtype, lowest, highest", [
    (np.float32, -np.inf, np.inf), (bf16, -np.inf, np.inf), (np.int16, -32768, 32767),
    (np.uint8, 0, 255), (np.bool_, False, True)])
def test_reduce_max_min_of_empty_axes_give_the_identity(dtype, lowest, highest):
    x = np.zeros((2, 0), dtype)
    check(run(R.ReduceMax, x, axes=(1,)), np.array([lowest, lowest], dtype))
    check(run(R.ReduceMin, x, axes=(1,)), np.array([highest, highest], dtype))


# ---- and, or ----------------------------------------------------------------------------------
@pytest.mark.parametrize("axes", AXES)
def test_reduce_and_or_bool(rng, axes):
    x = rng.integers(0, 2, (2, 3, 4)).astype(bool)
    x[0, 0] = True
    check(run(R.ReduceAnd, x, axes=axes), np.all(x, axis=axes))
    check(run(R.ReduceOr, x, axes=axes), np.any(x, axis=axes))


@pytest.mark.parametrize("dtype", [np.int32, np.uint8, np.int8])
def test_reduce_and_or_bitwise_on_integers(rng, dtype):
    x = rng.integers(0, 127, (3, 5)).astype(dtype)
    check(run(R.ReduceAnd, x, axes=(1,)), np.bitwise_and.reduce(x, axis=1))
    check(run(R.ReduceOr, x, axes=(0,)), np.bitwise_or.reduce(x, axis=0))
    empty = np.zeros((0, 2), dtype)
    check(run(R.ReduceAnd, empty, axes=(0,)), np.full(2, -1).astype(dtype))
    check(run(R.ReduceOr, empty, axes=(0,)), np.zeros(2, dtype))
    assert run(R.ReduceAnd, np.zeros((0,), bool), axes=(0,)).item() is True


# ---- shared rules --------------------------------------------------------------------------------
@pytest.mark.parametrize("cls", [R.ReduceSum, R.ReduceMax, R.ReduceMin, R.ReduceProd])
def test_reductions_keep_weak_type(cls):
    r = bind(cls, weak((2, 3)), axes=(1,))
    assert r.weak_type and r.shape == (2,) and r.dtype == np.float32
    assert not bind(cls, np.ones((2, 3), np.float32), axes=(1,)).weak_type


@pytest.mark.parametrize("cls, x, message", [
    (R.ReduceSum, np.ones(3, bool), "expected numeric operands, but got bool[3]"),
    (R.ReduceProd, np.ones(3, bool), "expected numeric operands, but got bool[3]"),
    (R.ReduceMax, np.ones(3, np.complex64), "expected real or boolean operands, but got "
                                            "complex64[3]"),
    (R.ReduceMin, np.ones(3, np.complex64), "expected real or boolean operands, but got "
                                            "complex64[3]"),
    (R.ReduceAnd, np.ones(3, np.float32), "expected integer or boolean operands, but got "
                                          "float32[3]"),
    (R.ReduceOr, np.ones(3, bf16), "expected integer or boolean operands, but got bfloat16[3]"),
])
def test_reduction_operand_kinds(cls, x, message):
    expect_error(cls, [x], dict(axes=(0,)), message)


@pytest.mark.parametrize("axes, message", [
    ((2,), "expected axes to be in [0, 2), but got [2]"),
    ((-1,), "expected axes to be in [0, 2), but got [-1]"),
    ((1, 1), "expected axes to be unique, but got [1, 1]"),
])
def test_reduction_axes_errors(axes, message):
    for cls in (R.ReduceSum, R.ReduceMax, R.ReduceOr):
        x = np.ones((2, 3), np.int32)
        expect_error(cls, [x], dict(axes=axes), message)


def test_reduction_family():
    members = [R.ReduceSum, R.ReduceMax, R.ReduceMin, R.ReduceProd, R.ReduceAnd, R.ReduceOr]
    assert all(issubclass(c, R.Reduction) for c in members)
    assert [c.name for c in members] == ["irax.reduce_sum", "irax.reduce_max", "irax.reduce_min",
                                         "irax.reduce_prod", "irax.reduce_and", "irax.reduce_or"]


# ---- argmax, argmin ----------------------------------------------------------------------------
def arg_reference(x, axis, largest):
    """First NaN, else the first occurrence of the extreme value, element by element."""
    moved = np.moveaxis(x.astype(np.float64) if x.dtype != bool else x.astype(np.int8), axis, -1)
    out = np.zeros(moved.shape[:-1], np.int64)
    for idx in np.ndindex(*moved.shape[:-1]):
        row = moved[idx]
        nans = np.flatnonzero(np.isnan(row))
        if nans.size:
            out[idx] = nans[0]
            continue
        best = row.max() if largest else row.min()
        out[idx] = np.flatnonzero(row == best)[0]
    return out


@pytest.mark.parametrize("axis", [0, 1, 2])
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.uint8, bf16, np.bool_])
def test_argmax_argmin_with_ties(rng, axis, dtype):
    x = rng.integers(0, 3, (3, 4, 5)).astype(dtype)  # many ties
    for cls, largest in ((R.Argmax, True), (R.Argmin, False)):
        got = run(cls, x, axis=axis, index_dtype=np.int32)
        check(got, arg_reference(x, axis, largest).astype(np.int32))


@pytest.mark.parametrize("dtype", [np.float32, bf16])
def test_argmax_argmin_first_nan_wins(dtype):
    nan, inf = np.nan, np.inf
    x = np.array([[1.0, nan, 3.0, nan], [-inf, -inf, 2.0, 2.0], [nan, nan, nan, nan],
                  [inf, 1.0, nan, -inf], [0.0, -0.0, 5.0, 5.0]], dtype)
    check(run(R.Argmax, x, axis=1, index_dtype=np.int32), np.array([1, 2, 0, 2, 2], np.int32))
    check(run(R.Argmin, x, axis=1, index_dtype=np.int32), np.array([1, 0, 0, 2, 0], np.int32))
    check(run(R.Argmax, x, axis=0, index_dtype=np.int32), np.array([2, 0, 2, 0], np.int32))


def test_argmax_against_jax(rng):
    jnp = pytest.importorskip("jax.numpy")
    x = rng.standard_normal((6, 7)).astype(np.float32)
    x[rng.random((6, 7)) < 0.2] = np.nan
    x[2] = 1.0
    for axis in (0, 1):
        check(run(R.Argmax, x, axis=axis, index_dtype=np.int32),
              np.asarray(jnp.argmax(x, axis=axis)))
        check(run(R.Argmin, x, axis=axis, index_dtype=np.int32),
              np.asarray(jnp.argmin(x, axis=axis)))


def test_argmax_index_dtypes_and_rank():
    x = np.array([3, 9, 9, 1], np.float32)
    for dtype in (np.int8, np.uint16, np.int64):
        r = bind(R.Argmax, x, axis=0, index_dtype=dtype)
        assert r.shape == () and r.dtype == np.dtype(dtype) and int(r) == 1
        assert not r.weak_type
    w = bind(R.Argmin, weak((2, 3)), axis=1, index_dtype=np.int32)
    assert not w.weak_type and w.shape == (2,)
    assert R.Argmax.differentiable is False and R.Argmin.differentiable is False


@pytest.mark.parametrize("x, attrs, message", [
    (np.ones((2, 0), np.float32), dict(axis=1, index_dtype=np.int32),
     "expected a non-empty dimension 1, but got float32[2,0]"),
    (np.ones(3, np.complex64), dict(axis=0, index_dtype=np.int32),
     "expected real or boolean operands, but got complex64[3]"),
    (np.ones(3, np.float32), dict(axis=0, index_dtype=np.float32),
     "expected an integer index_dtype, but got float32"),
    (np.ones(3, np.float32), dict(axis=1, index_dtype=np.int32),
     "expected axis to be in [0, 1), but got [1]"),
])
def test_argmax_argmin_errors(x, attrs, message):
    expect_error(R.Argmax, [x], attrs, message)
    expect_error(R.Argmin, [x], attrs, message)


# ---- one compiled check over every op --------------------------------------------------------
def _many_reductions(x, nan_x, h, i, u, b, ties, empty):
    return [
        bind(R.ReduceSum, x, axes=(1,)), bind(R.ReduceSum, x, axes=(0, 1)),
        bind(R.ReduceSum, x, axes=()), bind(R.ReduceSum, i, axes=(0,)),
        bind(R.ReduceSum, u, axes=(1,)), bind(R.ReduceSum, h, axes=(0,)),
        bind(R.ReduceSum, empty, axes=(0,)), bind(R.ReduceProd, empty, axes=(0,)),
        bind(R.ReduceProd, x, axes=(0,)), bind(R.ReduceProd, i, axes=(1,)),
        bind(R.ReduceMax, nan_x, axes=(1,)), bind(R.ReduceMin, nan_x, axes=(1,)),
        bind(R.ReduceMax, nan_x, axes=(0,)), bind(R.ReduceMin, nan_x, axes=(0, 1)),
        bind(R.ReduceMax, i, axes=(1,)), bind(R.ReduceMin, u, axes=(0,)),
        bind(R.ReduceMax, h, axes=(1,)), bind(R.ReduceMin, h, axes=(1,)),
        bind(R.ReduceMax, b, axes=(0,)), bind(R.ReduceMin, b, axes=(1,)),
        bind(R.ReduceMax, empty, axes=(0,)), bind(R.ReduceMin, empty, axes=(0,)),
        bind(R.ReduceAnd, b, axes=(1,)), bind(R.ReduceOr, b, axes=(0,)),
        bind(R.ReduceAnd, i, axes=(0,)), bind(R.ReduceOr, u, axes=(1,)),
        bind(R.Argmax, nan_x, axis=1, index_dtype=np.int32),
        bind(R.Argmin, nan_x, axis=1, index_dtype=np.int32),
        bind(R.Argmax, nan_x, axis=0, index_dtype=np.int8),
        bind(R.Argmax, ties, axis=0, index_dtype=np.int32),
        bind(R.Argmin, ties, axis=1, index_dtype=np.uint8),
        bind(R.Argmax, h, axis=1, index_dtype=np.int32),
        bind(R.Argmin, u, axis=0, index_dtype=np.int32),
        bind(R.Argmax, b, axis=1, index_dtype=np.int32),
    ]


def test_jit_matches_eager_for_reductions(rng):
    nan, inf = np.nan, np.inf
    x = rng.uniform(0.5, 1.5, (3, 4)).astype(np.float32)
    nan_x = np.array([[1.0, nan, 3.0, nan], [-inf, -inf, 2.0, 2.0], [nan, nan, nan, nan],
                      [inf, 1.0, nan, -inf], [0.0, 4.0, 5.0, 5.0]], np.float32)
    h = rng.standard_normal((4, 8)).astype(bf16)
    i = rng.integers(-2**30, 2**30, (3, 4)).astype(np.int32)  # sums and products wrap
    u = rng.integers(0, 255, (3, 5)).astype(np.uint8)
    b = rng.integers(0, 2, (3, 4)).astype(bool)
    ties = rng.integers(0, 2, (6, 5)).astype(np.int32)
    empty = np.zeros((0, 3), np.float32)
    args = (x, nan_x, h, i, u, b, ties, empty)
    eager = _many_reductions(*args)
    compiled = irax.jit(_many_reductions)(*args)
    assert len(eager) == len(compiled)
    for n, (e, c) in enumerate(zip(eager, compiled)):
        e, c = np.asarray(e), np.asarray(c)
        assert e.dtype == c.dtype and e.shape == c.shape, n
        if e.dtype.kind == "f" or e.dtype == bf16:
            tol = 1e-2 if e.dtype == bf16 else 1e-5
            np.testing.assert_allclose(c.astype(np.float32), e.astype(np.float32), rtol=tol,
                                       atol=tol, err_msg=f"output {n}")
        else:
            np.testing.assert_array_equal(c, e, err_msg=f"output {n}")
