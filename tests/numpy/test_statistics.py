"""average, quantile, nanquantile, percentile, nanpercentile, median, nanmedian, nanvar, nanstd,
nancumsum, nancumprod, cov, corrcoef against JAX: eagerly, in one jit, over dtypes and shapes
(hypothesis), derivatives, vmap, x64 and errors."""

import numpy as np
import pytest
from family_helpers import (
    ALL,
    both_x64,
    check_tree,
    eager_vs_jax,
    grads_vs_jax,
    jax_call,
    jit_vs_jax,
    sample,
    vmap_vs_loop,
)
from hypothesis import given, settings
from hypothesis import strategies as st

import irax.numpy as inp

jax = pytest.importorskip("jax")
jjnp = pytest.importorskip("jax.numpy")

rng = np.random.default_rng(3)
F = rng.uniform(-3, 3, (4, 5)).astype(np.float32)
F3 = rng.uniform(-3, 3, (2, 3, 4)).astype(np.float32)
FN = F.copy()
FN[0, 1] = FN[2, 3] = np.nan
FN[3, :] = np.nan
I = rng.integers(-4, 5, (4, 5)).astype(np.int32)
H = rng.uniform(-3, 3, (6,)).astype(np.float16)
W = rng.uniform(0.1, 2, (5,)).astype(np.float32)
C = (rng.uniform(-2, 2, (3, 4)) + 1j * rng.uniform(-2, 2, (3, 4))).astype(np.complex64)
FW = np.int32([1, 2, 1, 3, 1])
Q = np.float32([0.0, 0.25, 0.5, 0.9, 1.0])

CASES = {
    "average": lambda m, f, f3, fn, i, h, w, c, q: m.average(f),
    "average_axis": lambda m, f, f3, fn, i, h, w, c, q: m.average(f, axis=1, weights=w),
    "average_ret": lambda m, f, f3, fn, i, h, w, c, q: m.average(f, axis=1, weights=w,
                                                                 returned=True, keepdims=True),
    "average_ret_nw": lambda m, f, f3, fn, i, h, w, c, q: m.average(f3, axis=(0, 2),
                                                                    returned=True),
    "average_full_w": lambda m, f, f3, fn, i, h, w, c, q: m.average(f, weights=f * f),
    "average_i": lambda m, f, f3, fn, i, h, w, c, q: m.average(i, axis=0, keepdims=True),
    "average_h": lambda m, f, f3, fn, i, h, w, c, q: m.average(h),
    "average_c": lambda m, f, f3, fn, i, h, w, c, q: m.average(c, axis=0),
    "quantile": lambda m, f, f3, fn, i, h, w, c, q: m.quantile(f, 0.3),
    "quantile_q": lambda m, f, f3, fn, i, h, w, c, q: m.quantile(f, q, axis=1, keepdims=True),
    "quantile_axes": lambda m, f, f3, fn, i, h, w, c, q: m.quantile(f3, q[1:3], axis=(0, 2)),
    "quantile_axes_kd": lambda m, f, f3, fn, i, h, w, c, q: m.quantile(f3, 0.7, axis=(2, 0),
                                                                       keepdims=True),
    "quantile_none_kd": lambda m, f, f3, fn, i, h, w, c, q: m.quantile(f3, q, keepdims=True),
    "quantile_i": lambda m, f, f3, fn, i, h, w, c, q: m.quantile(i, 0.5),
    "quantile_h": lambda m, f, f3, fn, i, h, w, c, q: m.quantile(h, q),
    "quantile_nan": lambda m, f, f3, fn, i, h, w, c, q: m.quantile(fn, q, axis=1),
    "quantile_lower": lambda m, f, f3, fn, i, h, w, c, q: m.quantile(f, q, 0, method="lower"),
    "quantile_higher": lambda m, f, f3, fn, i, h, w, c, q: m.quantile(f, q, 1, method="higher"),
    "quantile_mid": lambda m, f, f3, fn, i, h, w, c, q: m.quantile(f, q, method="midpoint"),
    "quantile_nearest": lambda m, f, f3, fn, i, h, w, c, q: m.quantile(f, q, 0,
                                                                       method="nearest"),
    "quantile_icdf": lambda m, f, f3, fn, i, h, w, c, q: m.quantile(f, q, 1,
                                                                    method="inverted_cdf"),
    "quantile_weights": lambda m, f, f3, fn, i, h, w, c, q: m.quantile(
        f, q, axis=1, method="inverted_cdf", weights=w),
    "nanquantile": lambda m, f, f3, fn, i, h, w, c, q: m.nanquantile(fn, 0.4, axis=1),
    "nanquantile_q": lambda m, f, f3, fn, i, h, w, c, q: m.nanquantile(fn, q, axis=0,
                                                                       method="nearest"),
    "nanquantile_all": lambda m, f, f3, fn, i, h, w, c, q: m.nanquantile(fn, q),
    "nanquantile_w": lambda m, f, f3, fn, i, h, w, c, q: m.nanquantile(
        fn, 0.5, axis=1, method="inverted_cdf", weights=w),
    "percentile": lambda m, f, f3, fn, i, h, w, c, q: m.percentile(f, 40),
    "percentile_q": lambda m, f, f3, fn, i, h, w, c, q: m.percentile(f, q * 100, axis=0),
    "percentile_i": lambda m, f, f3, fn, i, h, w, c, q: m.percentile(i, 75, method="lower"),
    "nanpercentile": lambda m, f, f3, fn, i, h, w, c, q: m.nanpercentile(fn, q * 100, axis=1),
    "median": lambda m, f, f3, fn, i, h, w, c, q: m.median(f, axis=0),
    "median_all": lambda m, f, f3, fn, i, h, w, c, q: m.median(f3, keepdims=True),
    "median_i": lambda m, f, f3, fn, i, h, w, c, q: m.median(i),
    "median_nan": lambda m, f, f3, fn, i, h, w, c, q: m.median(fn, axis=1),
    "nanmedian": lambda m, f, f3, fn, i, h, w, c, q: m.nanmedian(fn, axis=1),
    "nanmedian_all": lambda m, f, f3, fn, i, h, w, c, q: m.nanmedian(fn),
    "nanmedian_kd": lambda m, f, f3, fn, i, h, w, c, q: m.nanmedian(fn, axis=0, keepdims=True),
    "nanvar": lambda m, f, f3, fn, i, h, w, c, q: m.nanvar(fn, axis=1),
    "nanvar_all": lambda m, f, f3, fn, i, h, w, c, q: m.nanvar(fn, ddof=1),
    "nanvar_kd": lambda m, f, f3, fn, i, h, w, c, q: m.nanvar(fn, axis=0, keepdims=True),
    "nanvar_i": lambda m, f, f3, fn, i, h, w, c, q: m.nanvar(i),
    "nanvar_c": lambda m, f, f3, fn, i, h, w, c, q: m.nanvar(c, axis=1),
    "nanvar_where": lambda m, f, f3, fn, i, h, w, c, q: m.nanvar(fn, axis=1, where=f > 0),
    "nanvar_dtype": lambda m, f, f3, fn, i, h, w, c, q: m.nanvar(i, dtype=m.float16),
    "nanstd": lambda m, f, f3, fn, i, h, w, c, q: m.nanstd(fn, ddof=1),
    "nanstd_axis": lambda m, f, f3, fn, i, h, w, c, q: m.nanstd(fn, axis=1),
    "nanstd_h": lambda m, f, f3, fn, i, h, w, c, q: m.nanstd(h),
    "nancumsum": lambda m, f, f3, fn, i, h, w, c, q: m.nancumsum(fn, axis=1),
    "nancumsum_all": lambda m, f, f3, fn, i, h, w, c, q: m.nancumsum(fn),
    "nancumsum_i": lambda m, f, f3, fn, i, h, w, c, q: m.nancumsum(i, axis=0),
    "nancumsum_dtype": lambda m, f, f3, fn, i, h, w, c, q: m.nancumsum(i, dtype=m.float32),
    "nancumprod": lambda m, f, f3, fn, i, h, w, c, q: m.nancumprod(fn),
    "nancumprod_axis": lambda m, f, f3, fn, i, h, w, c, q: m.nancumprod(fn, axis=0),
    "nancumprod_i": lambda m, f, f3, fn, i, h, w, c, q: m.nancumprod(i % 3, axis=1),
    "cov": lambda m, f, f3, fn, i, h, w, c, q: m.cov(f),
    "cov_y": lambda m, f, f3, fn, i, h, w, c, q: m.cov(f[0], f[1]),
    "cov_y2d": lambda m, f, f3, fn, i, h, w, c, q: m.cov(f[:2], f[2:]),
    "cov_cols": lambda m, f, f3, fn, i, h, w, c, q: m.cov(f, rowvar=False, bias=True),
    "cov_ddof": lambda m, f, f3, fn, i, h, w, c, q: m.cov(f, ddof=2),
    "cov_i": lambda m, f, f3, fn, i, h, w, c, q: m.cov(i),
    "cov_1d": lambda m, f, f3, fn, i, h, w, c, q: m.cov(f[0]),
    "cov_c": lambda m, f, f3, fn, i, h, w, c, q: m.cov(c),
    "cov_fw": lambda m, f, f3, fn, i, h, w, c, q: m.cov(f, fweights=FW),
    "cov_aw": lambda m, f, f3, fn, i, h, w, c, q: m.cov(f, aweights=w, ddof=0),
    "cov_both": lambda m, f, f3, fn, i, h, w, c, q: m.cov(f, fweights=FW, aweights=w),
    "corrcoef": lambda m, f, f3, fn, i, h, w, c, q: m.corrcoef(f),
    "corrcoef_y": lambda m, f, f3, fn, i, h, w, c, q: m.corrcoef(f[0], f[1]),
    "corrcoef_cols": lambda m, f, f3, fn, i, h, w, c, q: m.corrcoef(i, rowvar=False),
    "corrcoef_1d": lambda m, f, f3, fn, i, h, w, c, q: m.corrcoef(f[0]),
    "corrcoef_c": lambda m, f, f3, fn, i, h, w, c, q: m.corrcoef(c),
}
ARGS = (F, F3, FN, I, H, W, C, Q)


def test_eager_cases_match_jax():
    eager_vs_jax(CASES, ARGS, rtol=2e-5, atol=2e-5)


def test_all_cases_in_one_jit_match_jax():
    jit_vs_jax(CASES, ARGS, rtol=2e-5, atol=2e-5)


def test_python_scalars_and_lists():
    for f in (lambda m: m.average(m.asarray([1, 2, 3])), lambda m: m.median(m.asarray(3)),
              lambda m: m.quantile(m.asarray([1.0, 2.0]), 0.5), lambda m: m.nanvar(2.0),
              lambda m: m.cov(m.asarray([1.0, 2.0, 4.0])), lambda m: m.nancumsum(3),
              lambda m: m.percentile(m.arange(5), m.asarray([10, 90]))):
        check_tree(f(inp), f(jjnp))


NAMES = ["average", "quantile", "nanquantile", "percentile", "nanpercentile", "median",
         "nanmedian", "nanvar", "nanstd", "nancumsum", "nancumprod", "cov", "corrcoef"]


@settings(max_examples=20, deadline=None, derandomize=True)
@given(name=st.sampled_from(NAMES), dt=st.sampled_from(ALL),
       shape=st.sampled_from([(3,), (2, 3), (1, 4), (3, 1, 2), (0,), (2, 0)]), data=st.data(),
       seed=st.integers(0, 2 ** 16))
def test_hypothesis_dtypes_shapes_match_jax(name, dt, shape, data, seed):
    r = np.random.default_rng(seed)
    x = sample(shape, dt, r, -3, 3)
    if dt.kind == "f" and name.startswith("nan"):
        x = np.where(r.uniform(size=shape) < 0.3, np.nan, x).astype(dt)
    axis = data.draw(st.sampled_from([None] + list(range(-len(shape), len(shape)))))
    if name in ("quantile", "nanquantile", "percentile", "nanpercentile"):
        q = 0.3 if "quantile" in name else 70.0
        call = lambda m: getattr(m, name)(x, q, axis=axis)  # noqa: E731
    elif name in ("cov", "corrcoef"):
        call = lambda m: getattr(m, name)(x, rowvar=axis != 0)  # noqa: E731
    else:
        call = lambda m: getattr(m, name)(x, axis=axis)  # noqa: E731
    try:
        want = jax_call(call)
    except (TypeError, ValueError, IndexError) as e:
        # quantiles of empty slices fail in both, with the gather's error or JAX's IndexError
        with pytest.raises((TypeError, IndexError, ValueError) if 0 in shape else type(e)):
            call(inp)
        return
    check_tree(call(inp), want, rtol=2e-3, atol=2e-3, msg=f"{name} {dt} {shape} {axis}")


def test_x64_dtypes_match_jax():
    x = rng.uniform(-3, 3, (4, 5))
    xn = x.copy()
    xn[1, 2] = np.nan
    i = rng.integers(-5, 5, (4, 5))
    with both_x64():
        for f in (lambda m: m.average(x, axis=1), lambda m: m.average(i),
                  lambda m: m.quantile(x, 0.3, axis=0), lambda m: m.quantile(i, 0.5),
                  lambda m: m.nanmedian(xn, axis=1), lambda m: m.nanvar(xn),
                  lambda m: m.nanstd(i), lambda m: m.nancumsum(xn, axis=1),
                  lambda m: m.nancumprod(i), lambda m: m.cov(x), lambda m: m.cov(i),
                  lambda m: m.corrcoef(x), lambda m: m.percentile(i, 30)):
            check_tree(f(inp), f(jjnp), rtol=1e-10, atol=1e-10)


X1 = np.float32([0.3, -1.2, 2.5, 0.7, 1.9])


def _nan_at(m, a, k):
    return m.where(np.arange(5) == k, m.nan, a)


@pytest.mark.parametrize("name,f,args", [
    ("average", lambda m, a, w: m.average(a, weights=w), (X1, W)),
    ("quantile", lambda m, a: m.quantile(a, 0.3), (X1,)),
    ("percentile", lambda m, a: m.percentile(a, m.asarray([10.0, 60.0])), (X1,)),
    ("median", lambda m, a: m.median(a), (X1,)),
    ("nanquantile", lambda m, a: m.nanquantile(_nan_at(m, a, 1), 0.6), (X1,)),
    ("nanmedian", lambda m, a: m.nanmedian(_nan_at(m, a, 0)), (X1,)),
    ("nanvar", lambda m, a: m.nanvar(_nan_at(m, a, 2)), (X1,)),
    ("nanstd", lambda m, a: m.nanstd(_nan_at(m, a, 2), ddof=1), (X1,)),
    ("nancumsum", lambda m, a: m.nancumsum(_nan_at(m, a, 2)), (X1,)),
    ("nancumprod", lambda m, a: m.nancumprod(_nan_at(m, a, 2)), (X1,)),
    ("cov", lambda m, a: m.cov(a), (F[:3],)),
    ("corrcoef", lambda m, a: m.corrcoef(a), (F[:3],)),
])
def test_derivatives_match_jax_and_finite_differences(name, f, args):
    grads_vs_jax(f, args, eps=1e-3)


def test_vmap_matches_loop():
    vmap_vs_loop(lambda a: inp.quantile(a, 0.3), F)
    vmap_vs_loop(lambda a: inp.nanmedian(a), FN)
    vmap_vs_loop(lambda a: inp.average(a, weights=W), F)
    vmap_vs_loop(lambda a: inp.nanvar(a), FN, in_axes=1)
    vmap_vs_loop(lambda a: inp.cov(a), F3)
    vmap_vs_loop(lambda a: inp.nancumsum(a), FN)


def _same_error(f):
    try:
        f(jjnp)
    except Exception as e:  # noqa: BLE001 - JAX's error type is the oracle
        with pytest.raises(type(e)):
            f(inp)
    else:
        raise AssertionError("JAX accepted it")


@pytest.mark.parametrize("f", [
    lambda m: m.average(F, axis=2),
    lambda m: m.average(F, weights=W),
    lambda m: m.average(F, axis=0, weights=W),
    lambda m: m.quantile(F, 0.5, axis=2),
    lambda m: m.quantile(F, 0.5, method="magic"),
    lambda m: m.quantile(F, np.ones((2, 2), np.float32)),
    lambda m: m.quantile(F, 1),
    lambda m: m.quantile(C, 0.5),
    lambda m: m.quantile(F, 0.5, out=F),
    lambda m: m.quantile(F, 0.5, axis=1, weights=W),
    lambda m: m.quantile(F, 0.5, axis=(1, 1)),
    lambda m: m.nanpercentile(F, [10, 50]),
    lambda m: m.median(F, axis=3),
    lambda m: m.nanvar(F, axis=2),
    lambda m: m.nancumsum(F, axis=2),
    lambda m: m.cov(F3),
    lambda m: m.cov(F, fweights=np.float32([1, 2, 1, 3, 1])),
    lambda m: m.cov(F, aweights=W[:3]),
    lambda m: m.corrcoef(F3),
])
def test_errors_match_jax(f):
    _same_error(f)
