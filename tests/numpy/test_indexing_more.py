"""take_along_axis, put, put_along_axis, place, choose, compress and extract against JAX:
out-of-bounds modes (gathers clamp or fill, scatters drop), eagerly, in one jit, hypothesis,
derivatives, vmap and errors (data-dependent sizes need size= under jit)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from manip_helpers import (
    check_cases_eager,
    check_cases_jit,
    check_derivatives,
    check_error,
    check_tree,
    check_vmap_loop,
    jit_of,
)

import irax.numpy as jnp

jax = pytest.importorskip("jax")
jjnp = pytest.importorskip("jax.numpy")

R = np.random.default_rng(0)
F = R.standard_normal((3, 4)).astype(np.float32)
I = R.integers(-5, 6, (3, 4)).astype(np.int32)
V = np.arange(6, dtype=np.float32)
IDX = np.array([[0, 3, 1, 2], [2, 2, 0, 1], [1, 0, 3, 3]], np.int32)
OOB = np.array([[0, 7, -1, -9], [4, 2, 0, 1], [1, 0, 5, 3]], np.int32)
MASK = F > 0
CH = R.integers(0, 3, (3, 4)).astype(np.int32)
CH_OOB = np.array([[0, 5, -1, 2], [3, -4, 1, 0], [2, 2, 7, 1]], np.int32)
W = ("weak", F)

CASES = [
    ("tala", lambda m, x, i: m.take_along_axis(x, i, 1), [F, IDX]),
    ("tala_0", lambda m, x, i: m.take_along_axis(x, i[:2] % 3, 0), [F, IDX]),
    ("tala_none", lambda m, x: m.take_along_axis(x, np.array([11, 0, 5]), None), [F]),
    ("tala_oob", lambda m, x, i: m.take_along_axis(x, i, 1), [F, OOB]),
    ("tala_clip", lambda m, x, i: m.take_along_axis(x, i, 1, mode="clip"), [I, OOB]),
    ("tala_fill", lambda m, x, i: m.take_along_axis(x, i, 1, mode="fill"), [F, OOB]),
    ("tala_fill_v", lambda m, x, i: m.take_along_axis(x, i, 1, mode="fill", fill_value=-1),
     [I, OOB]),
    ("tala_bcast", lambda m, x, i: m.take_along_axis(x, i[:1], 1), [F, IDX]),
    ("tala_weak", lambda m, x, i: m.take_along_axis(x, i, -1), [W, IDX]),
    ("put", lambda m, x: m.put(x, np.array([0, 5, 11]), 9.0, inplace=False), [F]),
    ("put_vals", lambda m, x, v: m.put(x, np.array([1, 3, 1]), v[:3], inplace=False), [F, V]),
    ("put_cycle", lambda m, x: m.put(x, np.array([0, 1, 2, 3]), np.array([7, 8]),
                                     inplace=False), [I]),
    ("put_oob", lambda m, x: m.put(x, np.array([-1, 20, 2]), 5.0, inplace=False), [F]),
    ("put_clip", lambda m, x: m.put(x, np.array([-1, 20, 2]), 5.0, mode="clip",
                                    inplace=False), [F]),
    ("put_wrap", lambda m, x: m.put(x, np.array([-1, 20, 2]), 5.0, mode="wrap",
                                    inplace=False), [I]),
    ("put_weak", lambda m, x: m.put(x, 3, 2, inplace=False), [W]),
    ("pala", lambda m, x, i, v: m.put_along_axis(x, i[:, :1], v[:3, None], 1, inplace=False),
     [F, IDX, V]),
    ("pala_scalar", lambda m, x, i: m.put_along_axis(x, i, 0.5, 1, inplace=False), [F, IDX]),
    ("pala_0", lambda m, x, i: m.put_along_axis(x, i[:1] % 3, -3, 0, inplace=False), [I, IDX]),
    ("pala_none", lambda m, x: m.put_along_axis(x, np.array([0, 7]), 4.0, None,
                                                inplace=False), [F]),
    ("pala_oob", lambda m, x, i: m.put_along_axis(x, i, 9.0, 1, inplace=False), [F, OOB]),
    ("pala_clip", lambda m, x, i: m.put_along_axis(x, i, 9, 1, inplace=False, mode="clip"),
     [I, OOB]),
    ("place", lambda m, x, k: m.place(x, k, np.array([10.0, 20.0]), inplace=False),
     [F, MASK]),
    ("place_int", lambda m, x, k: m.place(x, k, np.array([1, 2, 3]), inplace=False),
     [I, MASK]),
    ("choose", lambda m, c, a, b: m.choose(c, [a, b, a * 2]), [CH, F, F + 1]),
    ("choose_bcast", lambda m, c: m.choose(c, [0.5, np.arange(4.0), F]), [CH]),
    ("choose_wrap", lambda m, c, a, b: m.choose(c, [a, b, a + b], mode="wrap"),
     [CH_OOB, F, I]),
    ("choose_clip", lambda m, c, a, b: m.choose(c, [a, b, a - b], mode="clip"),
     [CH_OOB, I, I]),
    ("choose_weak", lambda m, c, a: m.choose(c, [a, 1.0, 2.0]), [CH, W]),
    ("compress_size", lambda m, x: m.compress(np.array([True, False, True]), x, axis=0,
                                              size=3), [F]),
    ("compress_fill", lambda m, c, x: m.compress(c, x, size=8, fill_value=-2.0),
     [MASK.ravel(), F]),
    ("compress_short", lambda m, c, x: m.compress(c, x, axis=1, size=2), [MASK[0], I]),
    ("extract_size", lambda m, c, x: m.extract(c, x, size=5), [MASK, F]),
    ("extract_fill", lambda m, c, x: m.extract(c, x, size=12, fill_value=7), [MASK, I]),
]


@pytest.mark.parametrize("i", range(len(CASES)), ids=[c[0] for c in CASES])
def test_indexing_more_matches_jax_eagerly(i):
    check_cases_eager(CASES, i)


def test_indexing_more_in_one_jit():
    # choose's default mode='raise' needs a concrete `a` (JAX's error under jit)
    check_cases_jit([c for c in CASES if c[0] not in ("choose", "choose_bcast", "choose_weak")])


def test_concrete_only_matches_jax():
    for fn in [lambda m: m.choose(CH_OOB % 3, [F, F * 2, F * 3]),
               lambda m: m.compress(MASK[0], F, axis=1),
               lambda m: m.compress(np.array([1, 0, 1]), F, axis=0),
               lambda m: m.compress(MASK.ravel(), F),
               lambda m: m.extract(MASK, F), lambda m: m.extract(I, I),
               lambda m: m.place(F, MASK, np.array([5.0]), inplace=False)]:
        check_tree(fn(jnp), fn(jjnp))


@settings(max_examples=5, deadline=None)
@given(st.lists(st.integers(1, 4), min_size=1, max_size=3), st.data())
def test_indexing_more_hypothesis(shape, data):
    x = R.standard_normal(shape).astype(np.float32)
    axis = data.draw(st.integers(0, len(shape) - 1))
    n = shape[axis]
    ishape = list(shape)
    ishape[axis] = data.draw(st.integers(1, 3))
    idx = R.integers(-2 * n, 2 * n, ishape).astype(np.int32)
    mode = data.draw(st.sampled_from([None, "clip", "fill"]))
    pmode = data.draw(st.sampled_from([None, "clip", "wrap"]))
    flat = R.integers(-x.size - 2, x.size + 2, (3,)).astype(np.int32)
    mask = x > 0
    for fn in [lambda m: m.take_along_axis(x, idx, axis, mode=mode),
               lambda m: m.put_along_axis(x, idx % n, 3.0, axis, inplace=False),
               lambda m: m.put(x, flat, np.array([1.0, 2, 3]), mode=pmode, inplace=False),
               lambda m: m.compress(mask.ravel(), x, size=min(4, x.size)),
               lambda m: m.choose(mask.astype(np.int32), [x, -x])]:
        check_tree(fn(jnp), fn(jjnp))


@pytest.mark.parametrize("name,fn,args", [
    ("tala", lambda m, x: m.take_along_axis(x, IDX, 1), [F]),
    ("tala_fill", lambda m, x: m.take_along_axis(x, OOB, 1, mode="fill", fill_value=0.0),
     [F]),
    ("put", lambda m, x, v: m.put(x, np.array([1, 3, 11]), v, inplace=False), [F, V[:3]]),
    ("pala", lambda m, x, v: m.put_along_axis(x, IDX[:, :1], v, 1, inplace=False),
     [F, V[:3, None]]),
    ("place", lambda m, x: m.place(x, MASK, np.array([1.0, 2.0]), inplace=False), [F]),
    ("choose", lambda m, a, b: m.choose(CH % 2, [a, b]), [F, F]),
    ("compress", lambda m, x: m.compress(MASK[0], x, axis=1, size=3), [F]),
    ("extract", lambda m, x: m.extract(MASK, x, size=4), [F]),
])
def test_indexing_more_derivatives(name, fn, args):
    check_derivatives(name, fn, args, np.random.default_rng(1))


def test_indexing_more_vmap_matches_loop():
    def fn(x, i, c, v):
        return (jnp.take_along_axis(x, i, 0), jnp.take_along_axis(x, i, 0, mode="fill"),
                jnp.put(x, i, v, inplace=False), jnp.put(x, i, v, mode="wrap", inplace=False),
                jnp.put_along_axis(x, i % 4, v, 0, inplace=False),
                jnp.choose(c, [x, v, -x], mode="clip"), jnp.compress(x > 0, x, size=3),
                jnp.extract(x > 0, x, size=2, fill_value=v[0]),
                jnp.place(x, x > 0, v, inplace=False))

    xs = R.standard_normal((3, 4)).astype(np.float32)
    iss = R.integers(-6, 6, (3, 4)).astype(np.int32)
    cs = R.integers(-1, 4, (3, 4)).astype(np.int32)
    vs = R.standard_normal((3, 4)).astype(np.float32)
    check_vmap_loop(fn, [xs, iss, cs, vs], msg="indexing more")


ERRORS = [
    (lambda m: m.take_along_axis(F, IDX.astype(np.float32), 1), "must be of integer type"),
    (lambda m: m.take_along_axis(F, IDX[0], 1), "must have the same number of dimensions"),
    (lambda m: m.take_along_axis(F, IDX, 1, mode="x"), "Invalid mode|mode"),
    (lambda m: m.put(F, 0, 1.0), "inplace=False"),
    (lambda m: m.put(F, 0, 1.0, mode="raise", inplace=False), "mode='raise'|mode"),
    (lambda m: m.put_along_axis(F, IDX, 1.0, 1), "inplace=False"),
    (lambda m: m.place(F, MASK, 1.0), "inplace=False"),
    (lambda m: m.place(F, MASK[0], np.ones(2), inplace=False), "shape|size"),
    (lambda m: m.choose(CH_OOB, [F, F, F]), "invalid entry in choice array"),
    (lambda m: m.choose(CH, [F, F], mode="foo"), "mode|invalid"),
    (lambda m: jit_of(m)(lambda c: m.choose(c, [F, F]))(CH), "mode='raise'|raise"),
    (lambda m: m.choose(CH % 2, [F[:2], F]), "broadcast|shapes"),
    (lambda m: m.compress(np.ones((2, 2), bool), F), "condition must be a 1D array"),
    (lambda m: jit_of(m)(lambda c: m.compress(c, F, axis=1))(MASK[0]),
     "Attempted boolean conversion of traced array"),
    (lambda m: jit_of(m)(lambda c: m.extract(c, F))(MASK),
     "Attempted boolean conversion of traced array"),
    (lambda m: m.compress(MASK[0], F, axis=1, out=np.ones(2)), "out"),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_indexing_more_errors_match_jax(i):
    fn, pattern = ERRORS[i]
    check_error(fn, pattern)
