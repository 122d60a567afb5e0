"""Array creation: values, dtypes and weak types against JAX; jit-compatibility."""

import numpy as np
import pytest
from numpy_helpers import check

import irax
import irax.numpy as jnp
from irax.errors import ConcretizationTypeError

jax = pytest.importorskip("jax")
jjnp = pytest.importorskip("jax.numpy")

CASES = [
    lambda m: m.array(1), lambda m: m.array(1.0), lambda m: m.array(True), lambda m: m.array(1j),
    lambda m: m.asarray(1), lambda m: m.array([1, 2]), lambda m: m.array([1, 2.0]),
    lambda m: m.array([True, 2]), lambda m: m.array([m.int8(1), 2]),
    lambda m: m.array([m.asarray(1), 2]), lambda m: m.array([[1, 2], [3, 4]], dtype=m.int8),
    lambda m: m.array([]), lambda m: m.array([[]]), lambda m: m.array(np.arange(3)),
    lambda m: m.array(np.zeros(2)), lambda m: m.array(1, ndmin=2),
    lambda m: m.array(m.asarray(1)), lambda m: m.array(m.asarray(1), m.int32),
    lambda m: m.array([np.float64(1), 2]), lambda m: m.array((1, (2)), m.float16),
    lambda m: m.full((2,), 3), lambda m: m.full((2, 2), m.array([1, 2])),
    lambda m: m.full((2,), 3, m.float32), lambda m: m.full(3, 2.5),
    lambda m: m.zeros(2), lambda m: m.zeros((2,), int), lambda m: m.ones((2, 1), m.bool_),
    lambda m: m.empty((2,)), lambda m: m.zeros_like(m.asarray(1.0)), lambda m: m.zeros_like(1.0),
    lambda m: m.full_like(m.ones(2, m.int8), 3.7), lambda m: m.ones_like(m.ones(2), shape=(3,)),
    lambda m: m.ones_like(np.ones(2, np.int8), dtype=m.float16), lambda m: m.arange(3),
    lambda m: m.arange(3.0), lambda m: m.arange(1, 2, 0.3), lambda m: m.arange(5, dtype=m.float16),
    lambda m: m.arange(-3), lambda m: m.arange(m.uint8(3)), lambda m: m.arange(np.int64(3)),
    lambda m: m.arange(2.5), lambda m: m.arange(10, 2, -3), lambda m: m.linspace(0, 1, 5),
    lambda m: m.linspace(0, 10, 4, dtype=int), lambda m: m.linspace(2.0, 3.0, 1),
    lambda m: m.linspace(2.0, 3.0, 0), lambda m: m.linspace(m.array([0.0, 1.0]), 2.0, 3, axis=-1),
    lambda m: m.linspace(-1, 1, 7, endpoint=False), lambda m: m.eye(2, 3, k=1),
    lambda m: m.eye(3, k=-1, dtype=m.int8), lambda m: m.identity(2, m.int32),
    lambda m: m.float32(1), lambda m: m.float32([1, 2]), lambda m: m.bool_(1),
    lambda m: m.uint8(200.7), lambda m: m.astype(m.asarray(1.5), m.int32),
    lambda m: m.asarray(1.5).astype(float), lambda m: m.astype(m.array([1.7, -1.7, np.nan]),
                                                               m.uint8),
    lambda m: m.array([1.5, 2.5]).astype(bool), lambda m: m.tri(3, 2, dtype=m.int32),
]


@pytest.mark.parametrize("i", range(len(CASES)))
def test_creation_matches_jax(i):
    check(CASES[i](jnp), CASES[i](jjnp), msg=str(i))


def test_linspace_retstep():
    got, step = jnp.linspace(0.0, 1.0, 4, endpoint=False, retstep=True)
    want, wstep = jjnp.linspace(0.0, 1.0, 4, endpoint=False, retstep=True)
    check(got, want)
    check(step, wstep)


def test_array_errors():
    with pytest.raises(TypeError, match="not a valid irax array type"):
        jnp.array("abc")
    with pytest.raises(ValueError, match="inhomogeneous"):
        jnp.array([[1, 2], [3]])
    with pytest.raises(OverflowError, match="Python int 2147483648 too large to convert to "
                                            "int32"):
        jnp.array(2**31)


def test_creation_under_jit():
    def f(x):
        return (jnp.array([x, 2 * x]), jnp.array([[x, 1.0], [2.0, x]]), jnp.zeros(3) + x,
                jnp.arange(4) * x, jnp.linspace(0.0, x, 5), jnp.full((2,), x),
                jnp.full_like(jnp.ones(3), x), jnp.eye(2) * x, jnp.asarray(x, jnp.int32))

    x = np.float32(3.0)
    for got, want in zip(irax.jit(f)(x), f(x)):
        check(got, want)


def test_traced_shapes_and_arange_arguments_raise():
    with pytest.raises(ConcretizationTypeError, match="It arose in the jnp.arange argument "
                                                      "'stop'"):
        irax.jit(lambda n: jnp.arange(n))(3)
    with pytest.raises(ConcretizationTypeError, match="argument 'start'"):
        irax.jit(lambda n: jnp.arange(n, 5))(3)
    with pytest.raises(TypeError, match="Shapes must be 1D sequences of concrete values of "
                                        "integer type"):
        irax.jit(lambda n: jnp.zeros(n))(3)


def test_asarray_takes_numpy_arrays_of_ml_dtypes_as_jax_does():
    import ml_dtypes

    for dt in (ml_dtypes.bfloat16, ml_dtypes.float8_e4m3fn, ml_dtypes.int4):
        x = np.array([-0.0, -1.5, 2.5, 1.0]).astype(dt)
        got = jnp.asarray(x)
        assert got.dtype == np.dtype(dt)
        np.testing.assert_array_equal(np.asarray(got), x)


def test_copies_are_distinct_arrays_and_asarray_is_not_a_copy():
    x = jnp.ones(3)
    for y in (jnp.copy(x), jnp.array(x), jnp.array(x, copy=True), jnp.asarray(x, copy=True)):
        assert y is not x
        check(y, jjnp.ones(3))
    assert jnp.asarray(x) is x
