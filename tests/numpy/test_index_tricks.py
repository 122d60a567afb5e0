"""mgrid, ogrid, r_, c_, s_, index_exp, ix_, indices, meshgrid, diag_indices(_from),
tril/triu_indices(_from), mask_indices, unravel_index and ravel_multi_index against JAX:
eagerly, in one jit, hypothesis, vmap and errors."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from manip_helpers import (
    check_cases_eager,
    check_cases_jit,
    check_error,
    check_tree,
    check_vmap_loop,
    jit_of,
)

import irax.numpy as jnp

jax = pytest.importorskip("jax")
jjnp = pytest.importorskip("jax.numpy")

R = np.random.default_rng(0)
X = np.arange(4, dtype=np.float32)
Y = np.array([1.5, -2.0, 3.0], np.float32)
I3 = np.array([2, 0, 1], np.int32)
FLAT = np.array([0, 5, 11, 12, -1, -13, 7], np.int32)
U8 = np.array([0, 3, 250], np.uint8)
MI = (np.array([0, 1, 2, 3], np.int32), np.array([0, 4, -1, 2], np.int32))

CASES = [
    ("meshgrid_xy", lambda m, a, b: m.meshgrid(a, b), [X, Y]),
    ("meshgrid_ij", lambda m, a, b: m.meshgrid(a, b, indexing="ij"), [X, Y]),
    ("meshgrid_sparse", lambda m, a, b, c: m.meshgrid(a, b, c, sparse=True), [X, Y, I3]),
    ("meshgrid_one", lambda m, a: m.meshgrid(a), [X]),
    ("meshgrid_weak", lambda m, a, b: m.meshgrid(a, b), [("weak", X), I3]),
    ("ix_", lambda m, a, b: m.ix_(a, b), [I3, X]),
    ("ix_empty", lambda m, a: m.ix_(a, np.zeros(0, np.int32)), [I3]),
    ("indices", lambda m: m.indices((2, 3)), []),
    ("indices_sparse", lambda m: m.indices((2, 3, 1), sparse=True), []),
    ("indices_dtype", lambda m: m.indices((3,), dtype=np.int8), []),
    ("indices_empty", lambda m: m.indices(()), []),
    ("mgrid", lambda m: m.mgrid[0:3, 1:5:2], []),
    ("mgrid_1d", lambda m: m.mgrid[-1:2], []),
    ("mgrid_complex", lambda m: m.mgrid[0:1:5j, 0:3], []),
    ("mgrid_float", lambda m: m.mgrid[0:1:0.25], []),
    ("ogrid", lambda m: m.ogrid[0:3, 1:5:2], []),
    ("ogrid_complex", lambda m: m.ogrid[-1:1:3j, 0:2], []),
    ("r_", lambda m, a, b: m.r_[a, 1, b], [X, Y]),
    ("r_slice", lambda m: m.r_[0:3, 7, 2:0:-1], []),
    ("r_weak", lambda m, a: m.r_[a, 2.5], [("weak", X)]),
    ("r_directive", lambda m, a: m.r_["0,2", a, a], [X]),
    ("r_directive3", lambda m, a: m.r_["0,2,0", a, a], [X]),
    ("r_directive_axis", lambda m, a: m.r_["1,2", a, a], [X]),
    ("r_matrix", lambda m, a: m.r_["r", a, a], [X]),
    ("r_cmat", lambda m, a: m.r_["c", a, a], [X]),
    ("c_", lambda m, a: m.c_[a, a * 2], [X]),
    ("c_2d", lambda m, a: m.c_[a.reshape(2, 2), a.reshape(2, 2)], [X]),
    ("c_scalar", lambda m, a: m.c_[a, a, 1:5], [X]),
    ("diag_indices", lambda m: m.diag_indices(3), []),
    ("diag_indices_3", lambda m: m.diag_indices(2, ndim=3), []),
    ("diag_indices_from", lambda m: m.diag_indices_from(np.ones((3, 3, 3))), []),
    ("tril_indices", lambda m: m.tril_indices(4), []),
    ("tril_indices_k", lambda m: m.tril_indices(3, k=-1, m=5), []),
    ("triu_indices", lambda m: m.triu_indices(4, 1), []),
    ("triu_indices_m", lambda m: m.triu_indices(3, k=-2, m=2), []),
    ("tril_indices_from", lambda m: m.tril_indices_from(np.ones((3, 4)), k=1), []),
    ("triu_indices_from", lambda m: m.triu_indices_from(np.ones((4, 2))), []),
    ("mask_indices", lambda m: m.mask_indices(3, m.triu), []),
    ("mask_indices_k", lambda m: m.mask_indices(4, m.tril, -1), []),
    ("unravel", lambda m, i: m.unravel_index(i, (3, 4)), [FLAT]),
    ("unravel_scalar", lambda m: m.unravel_index(7, (2, 4)), []),
    ("unravel_int", lambda m, i: m.unravel_index(i, 5), [FLAT]),
    ("unravel_u8", lambda m, i: m.unravel_index(i, (4, 5, 13)), [U8]),
    ("ravel_clip", lambda m, a, b: m.ravel_multi_index((a, b), (3, 4), mode="clip"), list(MI)),
    ("ravel_wrap", lambda m, a, b: m.ravel_multi_index((a, b), (3, 4), mode="wrap"), list(MI)),
    ("ravel_wrap_f", lambda m, a, b: m.ravel_multi_index((a, b), (3, 4), mode="wrap",
                                                         order="F"), list(MI)),
    ("ravel_ignore", lambda m, a, b: m.ravel_multi_index((a, b), (4, 5), mode="ignore"),
     list(MI)),
    ("ravel_dtype", lambda m, a, b: m.ravel_multi_index((a, b), (3, 4), mode="clip",
                                                        dtype=np.int16), list(MI)),
    ("ravel_u8", lambda m, a: m.ravel_multi_index((a,), (200,), mode="clip"), [U8]),
]


@pytest.mark.parametrize("i", range(len(CASES)), ids=[c[0] for c in CASES])
def test_index_tricks_match_jax_eagerly(i):
    check_cases_eager(CASES, i)


def test_index_tricks_in_one_jit():
    check_cases_jit(CASES)


def test_static_helpers_match_numpy_and_jax():
    assert jnp.s_[1:2, ::3] == jjnp.s_[1:2, ::3]
    assert jnp.index_exp[1, :] == jjnp.index_exp[1, :]
    assert len(jnp.r_) == len(jjnp.r_) and len(jnp.c_) == len(jjnp.c_)
    a, b = np.array([1, 2], np.int32), np.array([0, 3], np.int32)
    check_tree(jnp.ravel_multi_index((a, b), (3, 4)), jjnp.ravel_multi_index((a, b), (3, 4)))


@settings(max_examples=6, deadline=None)
@given(st.lists(st.integers(1, 4), min_size=1, max_size=3), st.data())
def test_unravel_ravel_hypothesis(shape, data):
    n = int(np.prod(shape))
    flat = np.array(data.draw(st.lists(st.integers(-2 * n, 2 * n), min_size=1, max_size=6)),
                    np.int32)
    mode = data.draw(st.sampled_from(["clip", "wrap"]))
    k = data.draw(st.integers(-3, 3))
    mm = data.draw(st.integers(1, 4))
    for fn in [lambda m: m.unravel_index(flat, shape),
               lambda m: m.ravel_multi_index(tuple(np.resize(flat, (len(shape), 2))), shape,
                                             mode=mode),
               lambda m: m.tril_indices(shape[0], k, mm), lambda m: m.triu_indices(mm, k),
               lambda m: m.indices(shape, sparse=bool(k % 2)),
               lambda m: m.mgrid[tuple(slice(0, s) for s in shape)]]:
        check_tree(fn(jnp), fn(jjnp))


def test_index_tricks_vmap_matches_loop():
    def fn(flat, a, b):
        return (jnp.unravel_index(flat, (3, 4)),
                jnp.ravel_multi_index((a, b), (3, 4), mode="wrap"),
                jnp.meshgrid(a, b), jnp.ix_(a, b), jnp.r_[a, b], jnp.c_[a, b])

    flat = R.integers(-15, 15, (3, 5)).astype(np.int32)
    a = R.integers(-5, 5, (3, 4)).astype(np.int32)
    b = R.integers(-5, 5, (3, 4)).astype(np.int32)
    check_vmap_loop(fn, [flat, a, b], msg="index tricks")


ERRORS = [
    (lambda m: m.meshgrid(np.ones((2, 2))), "Arguments to jax.numpy.meshgrid must be 1D"),
    (lambda m: m.meshgrid([1, 2]), "requires ndarray or scalar arguments"),
    (lambda m: m.meshgrid(np.ones(2), indexing="xx"), "Valid values for indexing are"),
    (lambda m: m.meshgrid(np.ones(2), copy=False), "only supports copy=True"),
    (lambda m: m.ix_(np.ones((2, 2))), "must be 1-dimensional"),
    (lambda m: m.ix_(np.array([True, False])), "Boolean arguments to jax.numpy.ix_"),
    (lambda m: m.diag_indices(-1), "n argument to diag_indices must be nonnegative"),
    (lambda m: m.diag_indices(2, -1), "ndim argument to diag_indices must be nonnegative"),
    (lambda m: m.diag_indices_from(np.ones(3)), "input array must be at least 2-d"),
    (lambda m: m.diag_indices_from(np.ones((2, 3))), "All dimensions of input must be of "
                                                     "equal length"),
    (lambda m: m.tril_indices_from(np.ones(3)), "Only 2-D inputs are accepted"),
    (lambda m: m.r_["0,2", "x"], "string directive must be placed at the beginning"),
    (lambda m: m.r_["a,b", 1], "could not understand directive"),
    (lambda m: m.unravel_index(1, [(2,)]), "shape should be a scalar or 1D sequence"),
    (lambda m: m.ravel_multi_index((np.array([5]),), (3,)), "invalid entry in coordinates"),
    (lambda m: m.ravel_multi_index((np.array([1.0]),), (3,), mode="clip"),
     "is not an integer type"),
    (lambda m: m.ravel_multi_index((np.array([1]),), (3,), mode="x"), "invalid mode="),
    (lambda m: m.ravel_multi_index((np.array([1]),), (3,), order="X"), "invalid order="),
    (lambda m: m.ravel_multi_index((np.array([1]),), (300,), dtype=np.int8),
     "not large enough to hold flattened index"),
    (lambda m: m.ravel_multi_index((np.array([1]),), (3,), dtype=np.float32),
     "is not an integer type"),
    (lambda m: jit_of(m)(lambda i: m.ravel_multi_index((i,), (3,)))(np.array([1])),
     "mode='raise'"),
    (lambda m: jit_of(m)(lambda n: m.tril_indices(n))(3), "tril_indices|triu_indices"),
    (lambda m: jit_of(m)(lambda n: m.indices((n, 2)))(3), "dimensions argument of jnp.indices"),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_index_tricks_errors_match_jax(i):
    fn, pattern = ERRORS[i]
    check_error(fn, pattern)
