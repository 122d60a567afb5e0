"""append, delete, insert, resize, rot90, rollaxis, unstack, block, dsplit, trim_zeros, diff,
ediff1d, copy and array_equiv against JAX: eagerly, in one jit, hypothesis shapes, derivatives,
vmap and errors."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from manip_helpers import (
    check_cases_eager,
    check_cases_jit,
    check_derivatives,
    check_error,
    check_vmap_loop,
    jit_of,
)
from numpy_helpers import check

import irax.numpy as jnp

jax = pytest.importorskip("jax")
jjnp = pytest.importorskip("jax.numpy")

R = np.random.default_rng(0)
F = R.standard_normal((3, 4)).astype(np.float32)
F3 = R.standard_normal((2, 3, 4)).astype(np.float32)
I = R.integers(-5, 6, (3, 4)).astype(np.int32)
U8 = R.integers(0, 200, (5,)).astype(np.uint8)
B = R.integers(0, 2, (6,)).astype(bool)
V = np.arange(7, dtype=np.float32)
W = ("weak", F)  # a weakly typed float32 argument
WV = ("weak", V)

# (name, fn(m, *args), args): each runs eagerly against JAX and all together in one jit.
CASES = [
    ("append", lambda m, x: m.append(x, 1.0), [F]),
    ("append_axis", lambda m, x, y: m.append(x, y, axis=0), [F, I]),
    ("append_weak", lambda m, x: m.append(x, 2), [W]),
    ("append_u8", lambda m, x: m.append(x, np.uint8(3)), [U8]),
    ("delete_int", lambda m, x: m.delete(x, 1, axis=1), [F]),
    ("delete_neg", lambda m, x: m.delete(x, -1), [F]),
    ("delete_arr", lambda m, x: m.delete(x, np.array([0, 2]), axis=0), [F]),
    ("delete_dup", lambda m, x: m.delete(x, np.array([1, 1, 3])), [V]),
    ("delete_bool", lambda m, x: m.delete(x, np.array([True, False, True, False]), axis=1), [F]),
    ("delete_slice", lambda m, x: m.delete(x, slice(1, None, 2), axis=1), [W]),
    ("delete_unique", lambda m, x: m.delete(x, np.array([5, -1, 0]),
                                            assume_unique_indices=True), [V]),
    ("insert_int", lambda m, x: m.insert(x, 2, 9.0), [V]),
    ("insert_axis", lambda m, x: m.insert(x, 1, 5.0, axis=0), [F]),
    ("insert_arr", lambda m, x, v: m.insert(x, np.array([1, 0, 1]), v, axis=1), [F, V[:3]]),
    ("insert_weak", lambda m, x: m.insert(x, np.array([4, -2]), 7), [WV]),
    ("insert_slice", lambda m, x: m.insert(x, slice(0, 4, 2), 3.5), [V]),
    ("insert_rows", lambda m, x, v: m.insert(x, 1, v, axis=1), [F, V[:3]]),
    ("insert_end", lambda m, x: m.insert(x, np.array([7, 100, -100]), np.array([1., 2, 3])),
     [V]),
    ("insert_int_vals", lambda m, x: m.insert(x, 0, 2.7), [I]),
    ("resize", lambda m, x: m.resize(x, (2, 7)), [F]),
    ("resize_small", lambda m, x: m.resize(x, 5), [W]),
    ("resize_empty", lambda m, x: m.resize(x, (0, 3)), [F]),
    ("rot90", lambda m, x: m.rot90(x), [F]),
    ("rot90_k2", lambda m, x: m.rot90(x, 2), [F3]),
    ("rot90_k3", lambda m, x: m.rot90(x, -1, axes=(2, 0)), [F3]),
    ("rot90_weak", lambda m, x: m.rot90(x, 5, axes=(1, 0)), [W]),
    ("rollaxis", lambda m, x: m.rollaxis(x, 2), [F3]),
    ("rollaxis_start", lambda m, x: m.rollaxis(x, 0, 3), [F3]),
    ("rollaxis_neg", lambda m, x: m.rollaxis(x, -1, -2), [F3]),
    ("unstack", lambda m, x: m.unstack(x), [F]),
    ("unstack_axis", lambda m, x: m.unstack(x, axis=-1), [F3]),
    ("block", lambda m, x, y: m.block([[x, y], [y, x]]), [F, I]),
    ("block_1d", lambda m, x: m.block([x, 1.0, x]), [V]),
    ("block_mixed", lambda m, x: m.block([[x], [np.ones((1, 4), np.float32)]]), [F]),
    ("block_3d", lambda m, x: m.block([[[x, x]]]), [F3]),
    ("dsplit", lambda m, x: m.dsplit(x, 2), [F3]),
    ("dsplit_idx", lambda m, x: m.dsplit(x, [1, 3]), [F3]),
    ("diff", lambda m, x: m.diff(x), [F]),
    ("diff_n2", lambda m, x: m.diff(x, 2, axis=0), [F]),
    ("diff_int", lambda m, x: m.diff(x, 3), [I]),
    ("diff_u8", lambda m, x: m.diff(x), [U8]),
    ("diff_bool", lambda m, x: m.diff(x), [B]),
    ("diff_prepend", lambda m, x: m.diff(x, prepend=1, append=np.zeros((3, 2), np.int8)), [W]),
    ("diff_n0", lambda m, x: m.diff(x, 0), [I]),
    ("ediff1d", lambda m, x: m.ediff1d(x), [F]),
    ("ediff1d_ends", lambda m, x: m.ediff1d(x, to_end=np.array([5, 6]), to_begin=1.5), [I]),
    ("ediff1d_weak", lambda m, x: m.ediff1d(x, to_begin=1), [WV]),
    ("copy", lambda m, x: m.copy(x), [W]),
    ("copy_scalar", lambda m: m.copy(1.0), []),
    ("array_equiv", lambda m, x: m.array_equiv(x, x[:1]), [F]),
    ("array_equiv_not", lambda m, x: m.array_equiv(x, x + 1), [F]),
]


@pytest.mark.parametrize("i", range(len(CASES)), ids=[c[0] for c in CASES])
def test_manipulation_matches_jax_eagerly(i):
    check_cases_eager(CASES, i)


def test_manipulation_cases_in_one_jit():
    check_cases_jit(CASES)


def test_concrete_only_functions_match_jax():
    x = np.array([[0, 0, 0], [0, 1, 2], [0, 0, 0], [3, 0, 0.]], np.float32)
    for case in [lambda m: m.trim_zeros(x), lambda m: m.trim_zeros(x, "f"),
                 lambda m: m.trim_zeros(x, "b", axis=0), lambda m: m.trim_zeros(x[0]),
                 lambda m: m.trim_zeros(np.array([0, 0, 1, 0]), "fb"),
                 lambda m: m.trim_zeros(x, "x"), lambda m: m.trim_zeros(x, axis=1),
                 lambda m: m.array_equiv([1, 2], [[1, 2], [1, 2]])]:
        check(case(jnp), case(jjnp))


def test_traced_indices_insert_and_delete_in_jit():
    """Traced positions: insert sorts them; delete needs assume_unique_indices."""
    x = np.arange(8, dtype=np.float32)

    def f(m, obj, vals, uniq):
        return (m.insert(x, obj, vals), m.insert(x.reshape(2, 4), obj[:1], 7.0, axis=1),
                m.delete(x, uniq, assume_unique_indices=True))

    args = (np.array([3, -1, 0], np.int32), np.array([10., 20., 30.], np.float32),
            np.array([6, 0, 2], np.int32))
    got = jit_of(jnp)(lambda *a: f(jnp, *a))(*args)
    want = f(jjnp, *args)
    for g, w in zip(got, want):
        check(g, w)


@settings(max_examples=6, deadline=None)
@given(st.lists(st.integers(1, 4), min_size=2, max_size=4), st.integers(-4, 4),
       st.data())
def test_rot90_diff_resize_hypothesis(shape, k, data):
    x = R.standard_normal(shape).astype(np.float32)
    nd = len(shape)
    a1 = data.draw(st.integers(0, nd - 1))
    a2 = data.draw(st.integers(0, nd - 1).filter(lambda a: a != a1))
    n = data.draw(st.integers(0, 3))
    new = tuple(data.draw(st.lists(st.integers(0, 5), min_size=1, max_size=3)))
    obj = data.draw(st.integers(-shape[a1], shape[a1] - 1))
    for fn in [lambda m: m.rot90(x, k, axes=(a1, a2)), lambda m: m.diff(x, n, axis=a1),
               lambda m: m.resize(x, new), lambda m: m.delete(x, obj, axis=a1),
               lambda m: m.insert(x, obj, 1.5, axis=a1), lambda m: m.rollaxis(x, a1, a2),
               lambda m: m.unstack(x, axis=a2)[0]]:
        check(fn(jnp), fn(jjnp))


@pytest.mark.parametrize("name,fn,args", [
    ("diff", lambda m, x: m.diff(x, 2, axis=0), [F]),
    ("diff_prepend", lambda m, x, p: m.diff(x, prepend=p), [F, F[:, :1]]),
    ("ediff1d", lambda m, x: m.ediff1d(x, to_begin=2.0), [F]),
    ("rot90", lambda m, x: m.rot90(x, 3, axes=(2, 1)), [F3]),
    ("insert", lambda m, x, v: m.insert(x, np.array([2, 0]), v, axis=1), [F, V[:2]]),
    ("delete", lambda m, x: m.delete(x, np.array([0, 3]), axis=1), [F]),
    ("delete_unique", lambda m, x: m.delete(x, np.array([0, 3]), assume_unique_indices=True),
     [V]),
    ("resize", lambda m, x: m.resize(x, (5, 5)), [F]),
    ("block", lambda m, x, y: m.block([[x], [y]]), [F, F]),
    ("append", lambda m, x, y: m.append(x, y), [F, V]),
    ("unstack", lambda m, x: m.unstack(x, axis=1)[2], [F]),
])
def test_manipulation_derivatives(name, fn, args):
    check_derivatives(name, fn, args, np.random.default_rng(1))


def test_manipulation_vmap_matches_loop():
    def fn(x, i, v):
        return (jnp.insert(x, i, v), jnp.delete(x, i, assume_unique_indices=True),
                jnp.diff(x, prepend=v), jnp.rot90(jnp.outer(x, x)), jnp.resize(x, (2, 5)),
                jnp.append(x, v), jnp.block([x, v, x]), jnp.ediff1d(x, to_end=v))

    xs = R.standard_normal((4, 6)).astype(np.float32)
    idx = np.array([0, 5, -1, 3], np.int32)
    vs = R.standard_normal((4,)).astype(np.float32)
    check_vmap_loop(fn, [xs, idx, vs], msg="manipulation")


ERRORS = [
    (lambda m: m.rot90(np.ones(3)), "rot90 requires its first argument to have ndim at least "
                                    "two"),
    (lambda m: m.rot90(np.ones((2, 2)), axes=(1, 1)), "Axes must be different"),
    (lambda m: m.rollaxis(np.ones((2, 2)), 0, 5), r"start=5 must satisfy -2<=start<=2"),
    (lambda m: m.unstack(np.float32(1)), "out of bounds"),
    (lambda m: m.block((1, 2)), "jax.numpy.block does not allow tuples"),
    (lambda m: m.block([]), "jax.numpy.block does not allow empty list arguments"),
    (lambda m: m.block([[1], 2]), "Mismatched list depths in jax.numpy.block"),
    (lambda m: m.dsplit(np.ones((2, 3)), 1), "tuple index out of range"),
    (lambda m: m.dsplit(np.ones((2, 3, 5)), 2), "array split does not result in an equal "
                                                "division"),
    (lambda m: m.diff(np.float32(1)), "diff requires input that is at least one dimensional"),
    (lambda m: m.diff(np.ones(3), -1), "order must be non-negative but got -1"),
    (lambda m: m.ediff1d(np.array([True, False])), "sub does not accept dtype bool"),
    (lambda m: m.append([1, 2], [3]), "requires ndarray or scalar arguments"),
    (lambda m: m.resize(np.ones(3), (-1, 2)), "all elements of `new_shape` must be "
                                              "non-negative"),
    (lambda m: m.copy(np.ones(2), order="F"), "Only implemented for order='K'"),
    (lambda m: m.array_equiv(np.ones(3), np.ones(4)), "incompatible shapes for broadcasting"),
    (lambda m: m.delete(np.arange(5), 7), "axis 7 is out of bounds for array of dimension 5"),
    (lambda m: m.delete(np.arange(5), [1, 2]), "delete requires ndarray or scalar arguments"),
    (lambda m: m.delete(np.arange(5), 1.5), r"got obj.dtype=float64; must be integer or bool"),
    (lambda m: m.delete(np.arange(5), np.array([True, False])), "for boolean indices, obj must "
                                                                "be one-dimensional"),
    (lambda m: m.delete(np.arange(5), np.array([1, 9])), "index 9 is out of bounds"),
    (lambda m: jit_of(m)(lambda o: m.delete(np.arange(5), o))(np.array([1, 2])),
     "'obj' array argument of jnp.delete()"),
    (lambda m: m.insert(np.arange(5), [1], 2), "insert requires ndarray or scalar arguments"),
    (lambda m: m.insert(np.arange(5), 1.0, 2), "index array must be integer typed"),
    (lambda m: m.insert(np.arange(5), np.ones((2, 2), int), 2), "obj must be a slice, a "
                                                                "one-dimensional array"),
    (lambda m: m.insert(np.arange(5), np.array([1, 2]), np.array([1, 2, 3])),
     r"Incompatible shapes for broadcasting: shapes=\[\(2,\), \(3,\)\]"),
    (lambda m: jit_of(m)(lambda x: m.trim_zeros(x))(np.ones(3)),
     "Error arose in the `filt` argument of trim_zeros()"),
    (lambda m: jit_of(m)(lambda n: m.diff(np.ones(4), n))(1), "Non-hashable static arguments"),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_manipulation_errors_match_jax(i):
    fn, pattern = ERRORS[i]
    check_error(fn, pattern)
