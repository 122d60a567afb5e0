"""Indexing (notes 3): basic, advanced (gather, clamping), masks, errors, take, nonzero."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy_helpers import check

import irax
import irax.numpy as jnp
from irax.errors import ConcretizationTypeError, NonConcreteBooleanIndexError

jax = pytest.importorskip("jax")
jjnp = pytest.importorskip("jax.numpy")

X = np.arange(5, dtype=np.int32)
Y = np.arange(60, dtype=np.float32).reshape(3, 4, 5)
Z = np.arange(12, dtype=np.float32).reshape(3, 4)
IDX = [
    (X, 2), (X, -1), (X, 7), (X, -6), (X, slice(1, 4)), (X, slice(None, None, -2)),
    (X, slice(3, 10)), (X, slice(-10, 2)), (X, slice(4, 1, -1)), (X, slice(1, 3, -1)),
    (X, None), (X, Ellipsis), (X, (Ellipsis, None)), (X, np.array([0, 4, 5, 7, -1, -5, -6, -100])),
    (X, np.array([[0, 1], [2, 3]])), (X, np.array([True, False, True, False, True])),
    (X, True), (X, False), (X, np.array(2)), (X, np.int64(3)), (X, ()),
    (Y, (1, 2, 3)), (Y, (1, Ellipsis, 1)), (Y, (Ellipsis, None, 1)), (Y, (0, slice(None), [1, 2])),
    (Y, (slice(None), [0, 1], None, [1, 2])), (Y, ([0, 2], slice(1, 3), [4, 0])),
    (Y, (slice(None), [[0], [3]], [1, 2, 4])), (Y, (Ellipsis, [0, -1])), (Y, (None, 1, None)),
    (Y, (slice(None, None, 2), slice(None, None, -3), slice(1, None, 2))),
    (Y, (np.array([[True, False, True, False]] * 3),)), (Y, (1, np.array([True, False] * 2))),
    (Y, (np.array([0, 2]), np.array([[1], [3]]))), (Y, (-1, -1, -1)), (Y, (5, 7, 9)),
    (Z, (slice(None), np.array([3, -4, 9, -9]))), (Z, (np.array(-1), slice(0, 2))),
    (Z, (0, Ellipsis)), (Z, (np.array([0, 1]), 2)),
]


@pytest.mark.parametrize("i", range(len(IDX)))
def test_getitem_matches_jax(i):
    x, idx = IDX[i]
    check(jnp.asarray(x)[idx], jjnp.asarray(x)[idx], msg=f"{x.shape}[{idx!r}]")


def test_getitem_under_jit_one_module():
    """Static, traced-scalar and traced-array indices in one compiled function."""
    def f(x, y, z, i, j, arr):
        outs = [jnp.asarray(a)[idx] for a, idx in IDX]  # concrete masks work under jit
        outs += [x[i], x[j], y[i, j], y[:, i], y[i, 1:3], z[arr], z[:, arr], y[arr, i],
                 z[i, arr], x[-i]]
        return outs

    args = (X, Y, Z, np.int32(2), np.int32(-1), np.int32([0, 3, -1, 9]))
    got = irax.jit(f)(*args)
    want = f(*(jnp.asarray(a) for a in args))
    assert len(got) == len(want)
    for k, (g, w) in enumerate(zip(got, want)):
        check(g, w, msg=str(k))
    jx = [jjnp.asarray(a) for a in args]
    check(got[-10], jx[0][jx[3]])
    check(got[-7], jx[1][:, jx[3]])
    check(got[-5], jx[2][jx[5]])
    check(got[-3], jx[1][jx[5], jx[3]])


def test_index_errors():
    x = jnp.arange(5)
    with pytest.raises(IndexError, match="Too many indices: array is 1-dimensional, but 2 were "
                                         "indexed"):
        x[0, 0]
    with pytest.raises(TypeError, match="Indexer must have integer or boolean type, got indexer "
                                        "with type float64"):
        x[1.0]
    with pytest.raises(TypeError, match="got indexer with type float32"):
        x[jnp.array(1.0)]
    with pytest.raises(TypeError, match="non-tuple sequence for multidimensional indexing"):
        x[[0, 1]]
    with pytest.raises(IndexError, match="single ellipsis"):
        x[..., ...]
    with pytest.raises(IndexError, match=r"boolean index did not match shape of indexed array in "
                                         r"index 0: got \(2,\), expected \[5\]"):
        x[np.array([True, False])]
    with pytest.raises(TypeError, match="string indexing"):
        x["a"]
    with pytest.raises(NonConcreteBooleanIndexError, match=r"Array boolean indices must be "
                                                           r"concrete; got bool\[5\]"):
        irax.jit(lambda m: x[m])(np.ones(5, bool))
    with pytest.raises(IndexError, match="Slice entries must be static integers"):
        irax.jit(lambda i: x[i:])(1)
    with pytest.raises(TypeError, match="immutable"):
        x[0] = 1


def test_take_modes_and_nonzero():
    a = np.arange(5.0, dtype=np.float32)
    i = np.array([0, 6, -1, -7])
    check(jnp.take(a, i), jjnp.take(a, i))
    check(jnp.take(a, i, mode="clip"), jjnp.take(a, i, mode="clip"))
    check(jnp.take(X, i, mode="wrap"), jjnp.take(X, i, mode="wrap"))
    check(jnp.take(X, i), jjnp.take(X, i))
    check(jnp.take(np.uint8([1, 2]), np.array([5])), jjnp.take(np.uint8([1, 2]), np.array([5])))
    check(jnp.take(Y, np.array([[0, 2]]), axis=1), jjnp.take(Y, np.array([[0, 2]]), axis=1))
    check(jnp.take(Y, np.array([3, 0]), axis=-1, fill_value=-1.0),
          jjnp.take(Y, np.array([3, 0]), axis=-1, fill_value=-1.0))
    with pytest.raises(NotImplementedError, match="'raise' mode"):
        jnp.take(a, i, mode="raise")
    m = np.array([[0, 1], [1, 0]])
    for g, w in zip(jnp.nonzero(m), jjnp.nonzero(m)):
        check(g, w)
    for g, w in zip(jnp.where(m), jjnp.where(m)):
        check(g, w)
    check(jnp.where(np.array([0, 1, 1]), size=4, fill_value=9)[0],
          jjnp.where(np.array([0, 1, 1]), size=4, fill_value=9)[0])
    check(jnp.flatnonzero(m), jjnp.flatnonzero(m))
    check(jnp.argwhere(m), jjnp.argwhere(m))


def test_nonzero_under_jit():
    m = np.array([[0, 3, 0], [2, 0, 5]])
    got = irax.jit(lambda c: jnp.nonzero(c, size=4, fill_value=-1))(m)
    want = jjnp.nonzero(m, size=4, fill_value=-1)
    for g, w in zip(got, want):
        check(g, w)
    with pytest.raises(ConcretizationTypeError, match="The size argument of jnp.nonzero must be "
                                                      "statically specified"):
        irax.jit(lambda c: jnp.where(c))(m)


_bound = st.one_of(st.none(), st.integers(-7, 7))
_slices = st.builds(slice, _bound, _bound, st.one_of(st.none(), st.integers(-3, 3).filter(bool)))
_entry = st.one_of(_slices, st.integers(-4, 3), st.just(None), st.just(Ellipsis))


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(1, 4), min_size=1, max_size=3), st.lists(_entry, max_size=4))
def test_basic_indexing_matches_numpy(shape, idx):
    """Random ints/slices/None/Ellipsis: NumPy's result, except that JAX clamps integers."""
    x = np.arange(int(np.prod(shape))).reshape(shape).astype(np.int32)
    idx = tuple(idx)
    if sum(e is Ellipsis for e in idx) > 1:
        return
    try:
        want = x[idx]
    except IndexError:
        return  # too many indices, or an out-of-bounds int (JAX clamps; covered above)
    got = jnp.asarray(x)[idx]
    assert got.shape == want.shape and got.dtype == np.int32
    np.testing.assert_array_equal(np.asarray(got), want)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 4), min_size=2, max_size=3), st.data())
def test_advanced_indexing_matches_numpy(shape, data):
    x = np.arange(int(np.prod(shape))).reshape(shape).astype(np.float32)
    n = len(shape)
    kinds = data.draw(st.lists(st.sampled_from(["arr", "slice", "int"]), min_size=1,
                               max_size=n))
    idx = []
    for d, k in enumerate(kinds):
        if k == "arr":
            idx.append(np.array(data.draw(st.lists(st.integers(-shape[d], shape[d] - 1),
                                                   min_size=2, max_size=2))))
        elif k == "int":
            idx.append(data.draw(st.integers(-shape[d], shape[d] - 1)))
        else:
            idx.append(slice(None, None, data.draw(st.sampled_from([1, -1, 2]))))
    want = x[tuple(idx)]
    got = jnp.asarray(x)[tuple(idx)]
    assert got.shape == want.shape
    np.testing.assert_array_equal(np.asarray(got), want)
