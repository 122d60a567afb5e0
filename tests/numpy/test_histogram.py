"""bincount, histogram, histogram2d, histogramdd, histogram_bin_edges against JAX: eagerly,
in one jit, over dtypes and shapes (hypothesis), gradients of the weights, vmap, x64, and
bincount without ``length`` under jit raising JAX's error."""

import numpy as np
import pytest
from family_helpers import (
    FLOATS,
    INTS,
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

import irax
import irax.numpy as inp
from irax.core.errors import ConcretizationTypeError

jax = pytest.importorskip("jax")
jjnp = pytest.importorskip("jax.numpy")

rng = np.random.default_rng(5)
F = rng.uniform(-3, 3, (4, 5)).astype(np.float32)
V3 = rng.uniform(-1, 1, (10, 3)).astype(np.float32)
X = rng.integers(0, 6, (9,)).astype(np.int32)
XN = rng.integers(-2, 8, (9,)).astype(np.int32)
W = rng.uniform(0, 1, (9,)).astype(np.float32)
E = np.float32([-3.0, -1.0, 0.0, 0.5, 3.0])
I = rng.integers(0, 4, (4, 5)).astype(np.int32)

SIZED = {
    "bincount_length": lambda m, f, v, x, xn, w, e, i: m.bincount(x, length=8),
    "bincount_cut": lambda m, f, v, x, xn, w, e, i: m.bincount(xn, length=3),
    "bincount_weights": lambda m, f, v, x, xn, w, e, i: m.bincount(x, w, length=7),
    "bincount_bool": lambda m, f, v, x, xn, w, e, i: m.bincount(x > 2, length=2),
    "bincount_int_w": lambda m, f, v, x, xn, w, e, i: m.bincount(x, x, length=6),
    "histogram": lambda m, f, v, x, xn, w, e, i: m.histogram(f),
    "histogram_bins": lambda m, f, v, x, xn, w, e, i: m.histogram(f, bins=4),
    "histogram_edges": lambda m, f, v, x, xn, w, e, i: m.histogram(f, bins=e),
    "histogram_density": lambda m, f, v, x, xn, w, e, i: m.histogram(f, bins=e, density=True),
    "histogram_range": lambda m, f, v, x, xn, w, e, i: m.histogram(i, bins=4, range=(0, 3),
                                                                    weights=f),
    "histogram_i": lambda m, f, v, x, xn, w, e, i: m.histogram(i, bins=3),
    "histogram_w_density": lambda m, f, v, x, xn, w, e, i: m.histogram(
        x, bins=5, weights=w, density=True),
    "histogram_traced_range": lambda m, f, v, x, xn, w, e, i: m.histogram(
        f, bins=3, range=(f[0, 0], f[0, 0] + 2)),
    "bin_edges": lambda m, f, v, x, xn, w, e, i: m.histogram_bin_edges(f, 5),
    "bin_edges_i": lambda m, f, v, x, xn, w, e, i: m.histogram_bin_edges(i),
    "bin_edges_range": lambda m, f, v, x, xn, w, e, i: m.histogram_bin_edges(f, 3,
                                                                              range=(1, 1)),
    "bin_edges_array": lambda m, f, v, x, xn, w, e, i: m.histogram_bin_edges(i, e),
    "histogram2d": lambda m, f, v, x, xn, w, e, i: m.histogram2d(v[:, 0], v[:, 1], bins=3),
    "histogram2d_bins": lambda m, f, v, x, xn, w, e, i: m.histogram2d(
        v[:, 0], v[:, 1], bins=[2, 4], density=True),
    "histogram2d_edges": lambda m, f, v, x, xn, w, e, i: m.histogram2d(
        v[:, 0], v[:, 1], bins=e, range=[(-1, 1), (-1, 1)]),
    "histogram2d_w": lambda m, f, v, x, xn, w, e, i: m.histogram2d(
        v[:9, 0], v[:9, 2], bins=(e, 3), weights=w),
    "histogram2d_list": lambda m, f, v, x, xn, w, e, i: m.histogram2d(
        v[:, 0], v[:, 1], bins=[-1.0, 0.0, 0.5, 1.0]),
    "histogramdd": lambda m, f, v, x, xn, w, e, i: m.histogramdd(v, bins=2,
                                                                  weights=v[:, 0]),
    "histogramdd_density": lambda m, f, v, x, xn, w, e, i: m.histogramdd(
        v, bins=[2, 3, e], density=True),
    "histogramdd_range": lambda m, f, v, x, xn, w, e, i: m.histogramdd(
        v, bins=3, range=[(-1, 1), None, (0, 1)]),
}
ARGS = (F, V3, X, XN, W, E, I)


def test_eager_cases_match_jax():
    eager_vs_jax(SIZED, ARGS, rtol=1e-5, atol=1e-5)


def test_all_cases_in_one_jit_match_jax():
    jit_vs_jax(SIZED, ARGS, rtol=1e-5, atol=1e-5)


def test_bincount_without_length_eagerly():
    for f in (lambda m: m.bincount(X), lambda m: m.bincount(XN, minlength=12),
              lambda m: m.bincount(X, W), lambda m: m.bincount(np.zeros(0, np.int32)),
              lambda m: m.bincount(np.int8([1, 1, 3])), lambda m: m.bincount(XN, minlength=2)):
        check_tree(f(inp), f(jjnp))


@settings(max_examples=15, deadline=None, derandomize=True)
@given(dt=st.sampled_from(INTS + [np.dtype(np.bool_)]), n=st.integers(0, 8),
       length=st.sampled_from([None, 1, 4]), weighted=st.booleans(),
       seed=st.integers(0, 2 ** 16))
def test_hypothesis_bincount_match_jax(dt, n, length, weighted, seed):
    r = np.random.default_rng(seed)
    x = sample((n,), dt, r, 0, 5)
    w = sample((n,), np.float32, r) if weighted else None
    call = lambda m: m.bincount(x, w, length=length)  # noqa: E731
    check_tree(call(inp), call(jjnp) if length is None else jax_call(call), msg=f"{dt} {n}")


@settings(max_examples=15, deadline=None, derandomize=True)
@given(dt=st.sampled_from(INTS + FLOATS), shape=st.sampled_from([(5,), (2, 3)]),
       bins=st.sampled_from([1, 2, 4]), density=st.booleans(), seed=st.integers(0, 2 ** 16))
def test_hypothesis_histogram_match_jax(dt, shape, bins, density, seed):
    """(Bin counts that make edges inexact are left out: XLA's fused multiply-adds move
    linspace's edges by an ulp, and a value on an edge changes bins.)"""
    r = np.random.default_rng(seed)
    x = sample(shape, dt, r)
    w = sample(shape, np.float32, r, 0, 2)

    def call(m):
        s = np.stack([x.ravel(), w.ravel()], 1)
        return (m.histogram(x, bins, density=density), m.histogram(x, bins, weights=w),
                m.histogram_bin_edges(x, bins), m.histogramdd(s, bins, density=density))

    check_tree(call(inp), jax_call(call), rtol=1e-2 if dt in FLOATS[::2] else 1e-5,
               atol=1e-2 if dt in FLOATS[::2] else 1e-5, msg=f"{dt} {shape} {bins}")


def test_x64_dtypes_match_jax():
    x = rng.uniform(-3, 3, (12,))
    i = rng.integers(0, 5, (12,))
    with both_x64():
        for f in (lambda m: m.bincount(i), lambda m: m.bincount(i, x, length=3),
                  lambda m: m.histogram(x, 4), lambda m: m.histogram(i, 3, weights=x),
                  lambda m: m.histogram_bin_edges(i, 2),
                  lambda m: m.histogram2d(x, x[::-1], bins=2)):
            check_tree(f(inp), f(jjnp), rtol=1e-10, atol=1e-10)


def test_gradients_of_weights_match_jax():
    def f(m, w):
        h, _ = m.histogram(X.astype(np.float32), bins=3, weights=w, density=True)
        return m.sum(h * m.arange(3.0)) + m.sum(m.bincount(X, w, length=4) ** 2)

    check_tree(irax.grad(lambda w: f(inp, w))(W), jax.grad(lambda w: f(jjnp, w))(W),
               rtol=1e-5, atol=1e-5)


def test_vmap_matches_loop():
    vmap_vs_loop(lambda a: inp.bincount(a, length=6), I)
    vmap_vs_loop(lambda a: inp.histogram(a, bins=E)[0], F)
    vmap_vs_loop(lambda w: inp.bincount(X, w, length=6), np.stack([W, W * 2]))


def test_bincount_without_length_under_jit_raises_like_jax():
    with pytest.raises(ConcretizationTypeError, match="length"):
        irax.jit(inp.bincount)(X)
    with pytest.raises(jax.errors.ConcretizationTypeError):
        jax.jit(jjnp.bincount)(X)
    with pytest.raises(ConcretizationTypeError):
        irax.jit(lambda a: inp.histogram(a, bins=a.shape[0] + a.astype(int)[0, 0]))(F)


def _same_error(f):
    try:
        f(jjnp)
    except Exception as e:  # noqa: BLE001 - JAX's error type is the oracle
        with pytest.raises(type(e)):
            f(inp)
    else:
        raise AssertionError("JAX accepted it")


@pytest.mark.parametrize("f", [
    lambda m: m.bincount(F[0]),
    lambda m: m.bincount(I),
    lambda m: m.bincount(X, W[:3]),
    lambda m: m.histogram(F, weights=W),
    lambda m: m.histogram(F, bins="auto"),
    lambda m: m.histogram(F, range=(1, 2, 3)),
    lambda m: m.histogramdd(V3, weights=W),
    lambda m: m.histogramdd(V3, bins=[2, 2]),
    lambda m: m.histogramdd(V3, range=[(0, 1)]),
    lambda m: m.histogram_bin_edges(F, bins=2.5),
])
def test_errors_match_jax(f):
    _same_error(f)
