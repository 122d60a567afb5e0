"""Shape manipulation against JAX, plus hypothesis-generated broadcasting."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy_helpers import check

import irax
import irax.numpy as jnp

jax = pytest.importorskip("jax")
jjnp = pytest.importorskip("jax.numpy")

A = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
V = np.arange(6, dtype=np.int32)

CASES = [
    lambda m: m.reshape(A, (4, 6)), lambda m: m.reshape(A, (-1, 4)), lambda m: m.reshape(A, -1),
    lambda m: m.reshape(A, (4, 6), order="F"), lambda m: m.ravel(A), lambda m: m.ravel(A, "F"),
    lambda m: m.transpose(A), lambda m: m.transpose(A, (1, 0, 2)),
    lambda m: m.transpose(A, (-1, 0, 1)), lambda m: m.swapaxes(A, 0, 2),
    lambda m: m.moveaxis(A, 0, -1), lambda m: m.moveaxis(A, (0, 1), (2, 0)),
    lambda m: m.expand_dims(V, 0), lambda m: m.expand_dims(V, (0, 2)),
    lambda m: m.expand_dims(V, -1), lambda m: m.squeeze(np.ones((1, 3, 1))),
    lambda m: m.squeeze(np.ones((1, 3, 1)), axis=2), lambda m: m.broadcast_to(V, (2, 6)),
    lambda m: m.broadcast_to(3, (2,)), lambda m: m.broadcast_arrays(V, np.ones((2, 1)))[0],
    lambda m: m.broadcast_arrays(V, np.ones((2, 1)))[1], lambda m: m.atleast_1d(3),
    lambda m: m.atleast_2d(V), lambda m: m.atleast_3d(V), lambda m: m.atleast_3d(A[0]),
    lambda m: m.concatenate([V, V]), lambda m: m.concatenate([A, A], axis=-1),
    lambda m: m.concatenate([A, A], axis=None), lambda m: m.concatenate([V, np.int8([1])]),
    lambda m: m.concatenate([V, V], dtype=m.float16), lambda m: m.concatenate(A),
    lambda m: m.stack([V, V]), lambda m: m.stack([V, V], axis=1), lambda m: m.stack([V, V], -1),
    lambda m: m.hstack([V, V]), lambda m: m.hstack([A, A]), lambda m: m.vstack([V, V]),
    lambda m: m.vstack([A, A]), lambda m: m.dstack([V, V]), lambda m: m.column_stack([V, V]),
    lambda m: m.split(V, 3)[1], lambda m: m.split(V, [1, 4])[2], lambda m: m.split(A, 2, 2)[0],
    lambda m: m.array_split(V, 4)[3], lambda m: m.flip(A), lambda m: m.flip(A, 1),
    lambda m: m.flip(A, (0, 2)), lambda m: m.fliplr(A[0]), lambda m: m.flipud(A[0]),
    lambda m: m.tile(V, 2), lambda m: m.tile(V, (2, 1)), lambda m: m.tile(A, (1, 2, 1)),
    lambda m: m.repeat(V, 2), lambda m: m.repeat(A, 2, axis=1),
    lambda m: m.repeat(V, np.array([1, 0, 2, 1, 1, 3])), lambda m: m.roll(V, 2),
    lambda m: m.roll(A, -1, axis=1), lambda m: m.roll(A, 5), lambda m: m.diagonal(A[0]),
    lambda m: m.diagonal(A, 1, 1, 2), lambda m: m.diagonal(A, -1, 1, 2), lambda m: m.trace(A[0]),
    lambda m: m.matrix_transpose(A), lambda m: m.permute_dims(A, (2, 0, 1)),
]


@pytest.mark.parametrize("i", range(len(CASES)))
def test_shape_functions_match_jax(i):
    check(CASES[i](jnp), CASES[i](jjnp), msg=str(i))


def test_shape_queries_and_methods():
    x = jnp.asarray(A)
    assert jnp.shape(x) == (2, 3, 4) and jnp.ndim(x) == 3 and jnp.size(x) == 24
    assert jnp.size(x, 1) == 3 and jnp.shape(3) == ()
    assert x.reshape(6, 4).shape == (6, 4) and x.reshape((6, -1)).shape == (6, 4)
    assert x.T.shape == (4, 3, 2) and x.transpose(1, 0, 2).shape == (3, 2, 4)
    assert x.mT.shape == (2, 4, 3) and x.ravel().shape == (24,) and x.flatten().shape == (24,)
    assert x.swapaxes(0, 1).shape == (3, 2, 4) and x[:1].squeeze().shape == (3, 4)
    assert jnp.broadcast_shapes((2, 1), (3,)) == (2, 3)
    assert len(list(jnp.asarray(V))) == 6


def test_shape_errors():
    with pytest.raises(TypeError, match=r"cannot reshape array of shape \(6,\) \(size 6\) into "
                                        r"shape \(4, 2\) \(size 8\)"):
        jnp.reshape(jnp.ones(6), (4, 2))
    with pytest.raises(TypeError, match="does not evenly divide 6"):
        jnp.reshape(jnp.ones(6), (-1, 4))
    with pytest.raises(TypeError, match=r"Cannot concatenate arrays with different numbers of "
                                        r"dimensions: got \(3,\), \(3, 1\)\."):
        jnp.concatenate([jnp.ones(3), jnp.ones((3, 1))])
    with pytest.raises(TypeError, match="differ in dimensions other than the one being "
                                        "concatenated"):
        jnp.concatenate([jnp.ones((2, 3)), jnp.ones((2, 4))])
    with pytest.raises(ValueError, match="Zero-dimensional arrays cannot be concatenated"):
        jnp.concatenate([jnp.ones(()), jnp.ones(())])
    with pytest.raises(ValueError, match="cannot select an axis to squeeze out"):
        jnp.squeeze(jnp.ones((2, 3)), 0)
    with pytest.raises(ValueError, match=r"irax\.numpy\.broadcast_to: incompatible shapes"):
        jnp.broadcast_to(jnp.ones(3), (4,))
    with pytest.raises(ValueError, match="All input arrays must have the same shape"):
        jnp.stack([jnp.ones(3), jnp.ones(4)])
    with pytest.raises(ValueError, match="equal division"):
        jnp.split(jnp.ones(5), 2)


def test_shape_functions_in_one_jit():
    def f(a, v):
        a, v = jnp.asarray(a), jnp.asarray(v)
        return [c(jnp) for c in CASES] + [a.reshape(6, 4) + v[:4], v[::-1]]

    got = irax.jit(lambda a, v: f(a, v))(A, V)
    want = f(A, V)
    for k, (g, w) in enumerate(zip(got, want)):
        check(g, w, msg=str(k))


_shapes = st.lists(st.integers(1, 3), min_size=0, max_size=3)


@settings(max_examples=60, deadline=None)
@given(_shapes, _shapes, st.booleans())
def test_broadcasting_matches_numpy(s1, s2, drop):
    """Random shapes: irax broadcasts exactly where NumPy does, with the same result."""
    if drop and s2:
        s2 = [1 if i % 2 else d for i, d in enumerate(s2)]
    x = np.arange(int(np.prod(s1)), dtype=np.float32).reshape(s1)
    y = np.arange(int(np.prod(s2)), dtype=np.int8).reshape(s2)
    try:
        want = x * 2 - y
    except ValueError:
        with pytest.raises(TypeError, match=r"irax\.numpy\.multiply|irax\.numpy\.subtract"):
            jnp.subtract(jnp.multiply(x, 2), y)
        return
    got = jnp.subtract(jnp.multiply(x, 2), y)
    assert got.shape == want.shape and got.dtype == np.float32
    np.testing.assert_array_equal(np.asarray(got), want)
    assert jnp.broadcast_shapes(tuple(s1), tuple(s2)) == np.broadcast_shapes(s1, s2)
