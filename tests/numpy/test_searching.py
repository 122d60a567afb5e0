"""searchsorted (every method), digitize, lexsort, sort_complex, partition, argpartition,
nanargmax, nanargmin against JAX: eagerly, in one jit, over dtypes and shapes (hypothesis),
vmap, x64 and errors."""

import numpy as np
import pytest
from family_helpers import (
    ALL,
    both_x64,
    check_tree,
    eager_vs_jax,
    jax_call,
    jit_vs_jax,
    sample,
    vmap_vs_loop,
)
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy_helpers import BF16

import irax
import irax.numpy as inp

jax = pytest.importorskip("jax")
jjnp = pytest.importorskip("jax.numpy")

rng = np.random.default_rng(2)
F = rng.uniform(-3, 3, (4, 5)).astype(np.float32)
SPECIAL = np.float32([np.nan, -np.inf, -1.0, -0.0, 0.0, 0.0, 2.0, np.inf, np.nan])
S = np.sort(np.concatenate([rng.uniform(-3, 3, (5,)), [0.0, 0.0, 1.5]])).astype(np.float32)
FN = F.copy()
FN[0, 1] = FN[2, 3] = np.nan
FN[3, :] = np.nan
I = rng.integers(-4, 5, (4, 5)).astype(np.int32)
SI = np.sort(rng.integers(-4, 5, (7,))).astype(np.int32)
U8 = rng.integers(0, 9, (4, 5)).astype(np.uint8)
C = (rng.integers(-2, 3, (6,)) + 1j * rng.integers(-2, 3, (6,))).astype(np.complex64)

CASES = {
    "ss": lambda m, f, s, sp, fn, i, si, u, c: m.searchsorted(s, f),
    "ss_right": lambda m, f, s, sp, fn, i, si, u, c: m.searchsorted(s, f, side="right"),
    "ss_special": lambda m, f, s, sp, fn, i, si, u, c: m.searchsorted(m.sort(sp), sp),
    "ss_special_r": lambda m, f, s, sp, fn, i, si, u, c: m.searchsorted(m.sort(sp), sp,
                                                                         side="right"),
    "ss_int": lambda m, f, s, sp, fn, i, si, u, c: m.searchsorted(si, i),
    "ss_int_r": lambda m, f, s, sp, fn, i, si, u, c: m.searchsorted(si, i, side="right"),
    "ss_mixed": lambda m, f, s, sp, fn, i, si, u, c: m.searchsorted(si, f),
    "ss_scalar": lambda m, f, s, sp, fn, i, si, u, c: m.searchsorted(s, 0.5),
    "ss_sorter": lambda m, f, s, sp, fn, i, si, u, c: m.searchsorted(f[0], f[1],
                                                                      sorter=m.argsort(f[0])),
    "ss_compare_all": lambda m, f, s, sp, fn, i, si, u, c: m.searchsorted(
        s, f, side="right", method="compare_all"),
    "ss_sort": lambda m, f, s, sp, fn, i, si, u, c: m.searchsorted(s, f, method="sort"),
    "ss_sort_r": lambda m, f, s, sp, fn, i, si, u, c: m.searchsorted(s, sp, "right",
                                                                      method="sort"),
    "ss_unrolled": lambda m, f, s, sp, fn, i, si, u, c: m.searchsorted(
        si, i, method="scan_unrolled"),
    "ss_complex": lambda m, f, s, sp, fn, i, si, u, c: m.searchsorted(m.sort(c), c),
    "ss_uint": lambda m, f, s, sp, fn, i, si, u, c: m.searchsorted(m.sort(u[0]), u),
    "digitize": lambda m, f, s, sp, fn, i, si, u, c: m.digitize(f, s),
    "digitize_right": lambda m, f, s, sp, fn, i, si, u, c: m.digitize(f, s, right=True),
    "digitize_down": lambda m, f, s, sp, fn, i, si, u, c: m.digitize(f, s[::-1]),
    "digitize_down_r": lambda m, f, s, sp, fn, i, si, u, c: m.digitize(i, si[::-1], True),
    "digitize_method": lambda m, f, s, sp, fn, i, si, u, c: m.digitize(f, s, method="sort"),
    "lexsort": lambda m, f, s, sp, fn, i, si, u, c: m.lexsort((i[0], i[1])),
    "lexsort_axis0": lambda m, f, s, sp, fn, i, si, u, c: m.lexsort([i, f], axis=0),
    "lexsort_3": lambda m, f, s, sp, fn, i, si, u, c: m.lexsort([f, i % 2, u % 2]),
    "lexsort_one": lambda m, f, s, sp, fn, i, si, u, c: m.lexsort([sp]),
    "sort_complex": lambda m, f, s, sp, fn, i, si, u, c: m.sort_complex(i),
    "sort_complex_c": lambda m, f, s, sp, fn, i, si, u, c: m.sort_complex(c),
    "sort_complex_f": lambda m, f, s, sp, fn, i, si, u, c: m.sort_complex(f),
    "partition": lambda m, f, s, sp, fn, i, si, u, c: m.partition(f, 2),
    "partition_0": lambda m, f, s, sp, fn, i, si, u, c: m.partition(f, 0, axis=0),
    "partition_last": lambda m, f, s, sp, fn, i, si, u, c: m.partition(i, -1),
    "partition_u": lambda m, f, s, sp, fn, i, si, u, c: m.partition(u, 1, axis=0),
    "nanargmax": lambda m, f, s, sp, fn, i, si, u, c: m.nanargmax(fn),
    "nanargmax_axis": lambda m, f, s, sp, fn, i, si, u, c: m.nanargmax(fn, axis=1),
    "nanargmin_axis": lambda m, f, s, sp, fn, i, si, u, c: m.nanargmin(fn, axis=0,
                                                                        keepdims=True),
    "nanargmin_int": lambda m, f, s, sp, fn, i, si, u, c: m.nanargmin(i, axis=1),
    "nanargmax_inf": lambda m, f, s, sp, fn, i, si, u, c: m.nanargmax(m.float32([np.nan,
                                                                                  -np.inf])),
}
ARGS = (F, S, SPECIAL, FN, I, SI, U8, C)


def test_eager_cases_match_jax():
    eager_vs_jax(CASES, ARGS)


def test_all_cases_in_one_jit_match_jax():
    jit_vs_jax(CASES, ARGS)


def _check_argpartition(idx, x, kth, axis):
    """The indices of argpartition need only partition like JAX's: same values at kth, the
    smaller ones before and larger after, and a permutation."""
    idx = np.asarray(idx)
    got = np.take_along_axis(x, idx, axis)
    want = np.sort(x, axis=axis)
    np.testing.assert_array_equal(np.take(got, kth, axis), np.take(want, kth, axis))
    lo = np.sort(np.take(got, range(kth), axis), axis=axis)
    np.testing.assert_array_equal(lo, np.take(want, range(kth), axis))
    np.testing.assert_array_equal(np.sort(idx, axis=axis),
                                  np.broadcast_to(np.expand_dims(np.arange(x.shape[axis]),
                                                                 [d for d in range(x.ndim)
                                                                  if d != axis % x.ndim]),
                                                  x.shape))


def test_argpartition_partitions_eagerly_and_under_jit():
    for kth, axis in ((2, -1), (1, 0), (4, -1), (0, 1)):
        for x in (F, I):
            idx = inp.argpartition(x, kth, axis=axis)
            want = jjnp.argpartition(x, kth, axis=axis)
            assert idx.dtype == want.dtype and idx.shape == want.shape
            _check_argpartition(idx, x, kth, axis)
    _check_argpartition(irax.jit(lambda x: inp.argpartition(x, 2))(F), F, 2, -1)


@settings(max_examples=12, deadline=None, derandomize=True)
@given(dt=st.sampled_from(ALL), n=st.integers(0, 6), qshape=st.lists(st.integers(0, 3),
                                                                       max_size=2),
       side=st.sampled_from(["left", "right"]),
       method=st.sampled_from(["scan", "scan_unrolled", "compare_all", "sort"]),
       seed=st.integers(0, 2 ** 16))
def test_hypothesis_searchsorted_digitize_match_jax(dt, n, qshape, side, method, seed):
    r = np.random.default_rng(seed)
    a = np.sort(sample((n,), dt, r, -3, 3))
    v = sample(tuple(qshape), dt, r, -4, 4)
    call = lambda m: m.searchsorted(a, v, side=side, method=method)  # noqa: E731
    check_tree(call(inp), jax_call(call), msg=f"{dt} {side} {method}")
    if dt.kind != "c" and n:
        call = lambda m: m.digitize(v, a, right=side == "left")  # noqa: E731
        check_tree(call(inp), jax_call(call), msg=f"digitize {dt}")


@settings(max_examples=12, deadline=None, derandomize=True)
@given(dt=st.sampled_from([d for d in ALL if d.kind != "c" and d != BF16]),
       shape=st.lists(st.integers(1, 4), min_size=1, max_size=3), data=st.data(),
       seed=st.integers(0, 2 ** 16))
def test_hypothesis_partition_lexsort_nanarg_match_jax(dt, shape, data, seed):
    r = np.random.default_rng(seed)
    x = sample(tuple(shape), dt, r, -3, 3)
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    kth = data.draw(st.integers(0, shape[axis] - 1))
    y = sample(tuple(shape), dt, r, -3, 3)
    xn = np.where(r.uniform(size=x.shape) < 0.3, np.nan, x).astype(dt) if dt.kind == "f" else x

    def call(m):
        out = [m.lexsort((x, y), axis=axis), m.nanargmax(xn, axis=axis), m.nanargmin(xn),
               m.sort_complex(x)]
        return out + ([m.partition(x, kth, axis)] if dt != np.bool_ else [])

    check_tree(call(inp), jax_call(call), msg=f"{dt} {shape} {axis} {kth}")
    if dt != np.bool_:
        _check_argpartition(inp.argpartition(x, kth, axis), x, kth, axis)


def test_x64_dtypes_match_jax():
    x = rng.uniform(-3, 3, (4, 5))
    i = rng.integers(-5, 5, (4, 5))
    with both_x64():
        for f in (lambda m: m.searchsorted(np.sort(x[0]), x),
                  lambda m: m.digitize(i, np.array([-1, 2])),
                  lambda m: m.lexsort((x[0], i[0])), lambda m: m.sort_complex(x),
                  lambda m: m.partition(x, 3), lambda m: m.nanargmax(x, axis=0),
                  lambda m: m.searchsorted(np.sort(i[0]), i, method="sort")):
            check_tree(f(inp), f(jjnp), rtol=1e-12, atol=1e-12)
        idx = inp.argpartition(i, 2)
        assert idx.dtype == jjnp.argpartition(i, 2).dtype
        _check_argpartition(idx, i, 2, -1)


def test_vmap_matches_loop():
    vmap_vs_loop(lambda v: inp.searchsorted(S, v), F)
    vmap_vs_loop(lambda a: inp.searchsorted(a, 0.5), np.sort(F, axis=1))
    vmap_vs_loop(lambda a: inp.partition(a, 1), F, in_axes=1)
    vmap_vs_loop(lambda a: inp.nanargmax(a), FN[:3])
    vmap_vs_loop(lambda a: inp.lexsort((a, I[0])), I)
    vmap_vs_loop(lambda a: inp.digitize(a, S), F)


def _same_error(f):
    try:
        f(jjnp)
    except Exception as e:  # noqa: BLE001 - JAX's error type is the oracle
        with pytest.raises(type(e)):
            f(inp)
    else:
        raise AssertionError("JAX accepted it")


@pytest.mark.parametrize("f", [
    lambda m: m.searchsorted(F, F),
    lambda m: m.searchsorted(S, F, side="middle"),
    lambda m: m.searchsorted(S, F, method="magic"),
    lambda m: m.digitize(F, F),
    lambda m: m.lexsort([]),
    lambda m: m.lexsort([F, F[0]]),
    lambda m: m.lexsort([F], axis=2),
    lambda m: m.partition(F, 5),
    lambda m: m.partition(F, 1, axis=2),
    lambda m: m.partition(C, 1),
    lambda m: m.argpartition(F, -6),
    lambda m: m.nanargmax(F, axis=2),
    lambda m: m.nanargmin(F, out=F),
])
def test_errors_match_jax(f):
    _same_error(f)


def test_traced_kth_raises():
    """kth must be static: irax raises TracerIntegerConversionError (a TypeError); JAX, whose
    kth is a static argument of its jit, raises ValueError (unhashable tracer)."""
    with pytest.raises(TypeError, match="__index__"):
        irax.jit(lambda k: inp.partition(F, k))(1)
    with pytest.raises(ValueError):
        jax.jit(lambda k: jjnp.partition(F, k))(1)
