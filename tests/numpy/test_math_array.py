"""cross, vecdot, matvec, vecmat, gradient, interp, trapezoid, unwrap, packbits, unpackbits
against JAX: eagerly, in one jit, over dtypes and shapes (hypothesis), derivatives, vmap, x64
and errors."""

import numpy as np
import pytest
from family_helpers import (
    FLOATS,
    INTS,
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

rng = np.random.default_rng(1)
F = rng.uniform(-3, 3, (4, 5)).astype(np.float32)
F1 = rng.uniform(-4, 4, (9,)).astype(np.float32)
S = np.sort(rng.uniform(-3, 3, (6,))).astype(np.float32)
V3 = rng.uniform(-1, 1, (4, 3)).astype(np.float32)
I = rng.integers(-8, 9, (4, 5)).astype(np.int32)
U8 = rng.integers(0, 256, (3, 4)).astype(np.uint8)
C = (rng.uniform(-2, 2, (4, 3)) + 1j * rng.uniform(-2, 2, (4, 3))).astype(np.complex64)

CASES = {
    "cross": lambda m, f, f1, s, v, i, u, c: m.cross(v, v[::-1]),
    "cross_2_3": lambda m, f, f1, s, v, i, u, c: m.cross(v[:, :2], v),
    "cross_2_2": lambda m, f, f1, s, v, i, u, c: m.cross(v[:, :2], v[:, 1:]),
    "cross_axis": lambda m, f, f1, s, v, i, u, c: m.cross(v.T, v.T, axis=0),
    "cross_axes": lambda m, f, f1, s, v, i, u, c: m.cross(v, v.T, axisb=0, axisc=0),
    "cross_i": lambda m, f, f1, s, v, i, u, c: m.cross(i[:, :3], i[:, 2:]),
    "cross_c": lambda m, f, f1, s, v, i, u, c: m.cross(c, c[::-1]),
    "vecdot": lambda m, f, f1, s, v, i, u, c: m.vecdot(v, v[::-1]),
    "vecdot_axis": lambda m, f, f1, s, v, i, u, c: m.vecdot(f, f, axis=0),
    "vecdot_bcast": lambda m, f, f1, s, v, i, u, c: m.vecdot(f, f[0]),
    "vecdot_c": lambda m, f, f1, s, v, i, u, c: m.vecdot(c, c[::-1]),
    "vecdot_i": lambda m, f, f1, s, v, i, u, c: m.vecdot(i, f),
    "matvec": lambda m, f, f1, s, v, i, u, c: m.matvec(f, f[0]),
    "matvec_b": lambda m, f, f1, s, v, i, u, c: m.matvec(f.reshape(2, 2, 5), f[:2]),
    "matvec_c": lambda m, f, f1, s, v, i, u, c: m.matvec(c.T, c[:, 0]),
    "vecmat": lambda m, f, f1, s, v, i, u, c: m.vecmat(f[:, 0], f),
    "vecmat_c": lambda m, f, f1, s, v, i, u, c: m.vecmat(c[:, 0], c),
    "vecmat_i": lambda m, f, f1, s, v, i, u, c: m.vecmat(i[:, 1], i),
    "gradient": lambda m, f, f1, s, v, i, u, c: m.gradient(f),
    "gradient_1d": lambda m, f, f1, s, v, i, u, c: m.gradient(f1, 0.5),
    "gradient_axis": lambda m, f, f1, s, v, i, u, c: m.gradient(f, axis=1),
    "gradient_axes": lambda m, f, f1, s, v, i, u, c: m.gradient(f, 2.0, 3.0, axis=(0, -1)),
    "gradient_coords": lambda m, f, f1, s, v, i, u, c: m.gradient(f1[:6], s),
    "gradient_i": lambda m, f, f1, s, v, i, u, c: m.gradient(i),
    "interp": lambda m, f, f1, s, v, i, u, c: m.interp(f1, s, s * 2),
    "interp_lr": lambda m, f, f1, s, v, i, u, c: m.interp(f1, s, s, left=0, right=1),
    "interp_period": lambda m, f, f1, s, v, i, u, c: m.interp(f1, s, s ** 2, period=2.0),
    "interp_c": lambda m, f, f1, s, v, i, u, c: m.interp(f1, s, c[:2].ravel()),
    "interp_i": lambda m, f, f1, s, v, i, u, c: m.interp(i, s, s),
    "trapezoid": lambda m, f, f1, s, v, i, u, c: m.trapezoid(f),
    "trapezoid_x": lambda m, f, f1, s, v, i, u, c: m.trapezoid(f, f[0]),
    "trapezoid_x2d": lambda m, f, f1, s, v, i, u, c: m.trapezoid(f, f, axis=0),
    "trapezoid_dx": lambda m, f, f1, s, v, i, u, c: m.trapezoid(f, dx=0.3, axis=0),
    "trapezoid_i": lambda m, f, f1, s, v, i, u, c: m.trapezoid(i, axis=0),
    "trapezoid_c": lambda m, f, f1, s, v, i, u, c: m.trapezoid(c),
    "unwrap": lambda m, f, f1, s, v, i, u, c: m.unwrap(f * 3),
    "unwrap_axis": lambda m, f, f1, s, v, i, u, c: m.unwrap(f * 3, axis=0, discont=4.0),
    "unwrap_period": lambda m, f, f1, s, v, i, u, c: m.unwrap(f1, period=3.0),
    "unwrap_i": lambda m, f, f1, s, v, i, u, c: m.unwrap(i * 3),
    "unwrap_i_period": lambda m, f, f1, s, v, i, u, c: m.unwrap(i * 3, period=8),
    "packbits": lambda m, f, f1, s, v, i, u, c: m.packbits(i > 0),
    "packbits_axis": lambda m, f, f1, s, v, i, u, c: m.packbits(i, axis=1, bitorder="little"),
    "packbits_u": lambda m, f, f1, s, v, i, u, c: m.packbits(u, axis=0),
    "unpackbits": lambda m, f, f1, s, v, i, u, c: m.unpackbits(u),
    "unpackbits_axis": lambda m, f, f1, s, v, i, u, c: m.unpackbits(u, axis=1, count=5),
    "unpackbits_little": lambda m, f, f1, s, v, i, u, c: m.unpackbits(u, axis=0, count=-3,
                                                                      bitorder="little"),
    "unpackbits_more": lambda m, f, f1, s, v, i, u, c: m.unpackbits(u, count=40),
}
ARGS = (F, F1, S, V3, I, U8, C)


def test_eager_cases_match_jax():
    eager_vs_jax(CASES, ARGS, rtol=2e-5, atol=2e-5)


def test_all_cases_in_one_jit_match_jax():
    jit_vs_jax(CASES, ARGS, rtol=2e-5, atol=2e-5)


@settings(max_examples=25, deadline=None, derandomize=True)
@given(name=st.sampled_from(["cross", "vecdot", "matvec", "vecmat", "gradient", "interp",
                             "trapezoid", "unwrap", "packbits"]),
       dt=st.sampled_from(INTS + FLOATS + [np.dtype(np.bool_), np.dtype(np.complex64)]),
       n=st.integers(2, 5), batch=st.lists(st.integers(1, 3), max_size=2),
       seed=st.integers(0, 2 ** 16))
def test_hypothesis_dtypes_shapes_match_jax(name, dt, n, batch, seed):
    r = np.random.default_rng(seed)
    shape = tuple(batch) + (n if name != "cross" else 3,)
    x, y = sample(shape, dt, r), sample(shape, dt, r)
    xp = np.sort(sample((n,), np.float32, r))
    calls = {
        "cross": lambda m: m.cross(x, y), "vecdot": lambda m: m.vecdot(x, y),
        "matvec": lambda m: m.matvec(x[..., None, :], y),
        "vecmat": lambda m: m.vecmat(x, y[..., None]),
        "gradient": lambda m: m.gradient(x, axis=-1), "trapezoid": lambda m: m.trapezoid(x, y),
        "unwrap": lambda m: m.unwrap(x), "packbits": lambda m: m.packbits(x, axis=-1),
        "interp": lambda m: m.interp(x, xp, y.ravel()[:n]),
    }
    try:
        want = jax_call(calls[name])
    except (TypeError, ValueError) as e:
        with pytest.raises(type(e)):
            calls[name](inp)
        return
    check_tree(calls[name](inp), want, rtol=2e-5, atol=2e-5, msg=f"{name} {dt} {shape}")


def test_x64_dtypes_match_jax():
    x = rng.uniform(-3, 3, (4, 3))
    i = rng.integers(-5, 5, (4, 3))
    with both_x64():
        for f in (lambda m: m.cross(x, x[::-1]), lambda m: m.vecdot(x, i),
                  lambda m: m.matvec(x, x[0]), lambda m: m.gradient(x), lambda m: m.gradient(i),
                  lambda m: m.trapezoid(i), lambda m: m.unwrap(x * 4), lambda m: m.unwrap(i * 3),
                  lambda m: m.interp(x[0], np.sort(x[1]), x[2]), lambda m: m.packbits(i),
                  lambda m: m.cross(i, i[::-1])):
            check_tree(f(inp), f(jjnp), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name,f,args", [
    ("cross", lambda m, a, b: m.cross(a, b), (V3, V3[::-1])),
    ("vecdot", lambda m, a, b: m.vecdot(a, b), (V3, V3[::-1])),
    ("matvec", lambda m, a, b: m.matvec(a, b), (F, F[0])),
    ("vecmat", lambda m, a, b: m.vecmat(a, b), (F[:, 0], F)),
    ("gradient", lambda m, a: m.gradient(a), (F,)),
    ("interp", lambda m, x, xp, fp: m.interp(x, xp, fp), (F1 * 0.5, S, S ** 2)),
    ("trapezoid", lambda m, y, x: m.trapezoid(y, x), (F, F[0])),
    ("unwrap", lambda m, a: m.unwrap(a * 3), (F,)),
])
def test_derivatives_match_jax_and_finite_differences(name, f, args):
    grads_vs_jax(f, args, eps=1e-3, fd=name != "interp")


def test_vmap_matches_loop():
    vmap_vs_loop(lambda v: inp.cross(v, V3[0]), V3)
    vmap_vs_loop(lambda a: inp.gradient(a), F)
    vmap_vs_loop(lambda a: inp.interp(a, S, S * 2), F)
    vmap_vs_loop(lambda a: inp.trapezoid(a, F[0]), F)
    vmap_vs_loop(lambda a: inp.unwrap(a * 3), F, in_axes=1)
    vmap_vs_loop(lambda a: inp.unpackbits(a), U8)


def _same_error(f):
    try:
        f(jjnp)
    except Exception as e:  # noqa: BLE001 - JAX's error type is the oracle
        with pytest.raises(type(e)):
            f(inp)
    else:
        raise AssertionError("JAX accepted it")


@pytest.mark.parametrize("f", [
    lambda m: m.cross(V3[:, :1], V3),
    lambda m: m.cross(V3, V3, axisa=3),
    lambda m: m.vecdot(F, V3),
    lambda m: m.vecdot(F, F, axis=2),
    lambda m: m.matvec(F, F[:, 0]),
    lambda m: m.vecmat(F, F[0]),
    lambda m: m.gradient(F, axis=2),
    lambda m: m.gradient(F, 1.0, 2.0, 3.0),
    lambda m: m.gradient(F[:1]),
    lambda m: m.interp(F1, F, F),
    lambda m: m.interp(F1, S, S[:3]),
    lambda m: m.trapezoid(F, axis=3),
    lambda m: m.unwrap(F, axis=2),
    lambda m: m.packbits(F),
    lambda m: m.packbits(U8, bitorder="middle"),
    lambda m: m.unpackbits(F),
    lambda m: m.unpackbits(I),
])
def test_errors_match_jax(f):
    _same_error(f)
