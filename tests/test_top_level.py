"""The top-level names JAX user code touches besides the transformations: irax.typing,
irax.dtypes, irax.typeof, irax.jacobian, ShapeDtypeStruct and irax.test_util, against
JAX's behaviour."""

import typing

import jax
import jax.numpy as jj
import jax.test_util
import numpy as np
import pytest

import irax
import irax.numpy as jnp
import irax.random
from irax.test_util import check_grads


def test_typing_names_accept_what_jax_accepts():
    from irax.typing import ArrayLike, DTypeLike

    members = typing.get_args(ArrayLike)
    for value in (jnp.ones(2), np.ones(2), np.float32(1), True, 1, 1.0, 1j):
        assert isinstance(value, members)
    assert not isinstance("a", members)
    assert {str, np.dtype} <= set(typing.get_args(DTypeLike))

    def annotated(x: ArrayLike, dtype: DTypeLike | None = None) -> irax.Array:
        return jnp.asarray(x, dtype)

    assert annotated(2, "float32").dtype == np.float32
    assert irax.jit(lambda x: annotated(x) * 2)(1.0) == 2.0


def test_dtypes_module_matches_jax():
    ours = {n for n in dir(irax.dtypes) if not n.startswith("_")}
    assert {n for n in dir(jax.dtypes) if not n.startswith("_")} <= ours
    for dt in ("float64", "int64", "uint64", "complex128", "bfloat16", "int4"):
        assert irax.dtypes.canonicalize_dtype(dt) == jax.dtypes.canonicalize_dtype(dt)
        assert irax.dtypes.itemsize_bits(dt) == jax.dtypes.itemsize_bits(dt)
    for value in (1, 1.0, 1j, True, np.int8(3), jnp.ones(2, jnp.uint8)):
        want = jax.dtypes.scalar_type_of(value if not isinstance(value, irax.Array)
                                         else np.asarray(value))
        assert irax.dtypes.scalar_type_of(value) is want
    assert irax.dtypes.result_type(1, 2.0, return_weak_type_flag=True) == \
        jax.dtypes.result_type(1, 2.0, return_weak_type_flag=True)
    key = irax.random.key(0)
    assert irax.dtypes.issubdtype(key.dtype, irax.dtypes.prng_key)
    assert irax.dtypes.issubdtype(key.dtype, irax.dtypes.extended)
    assert not irax.dtypes.issubdtype(key.dtype, jnp.floating)
    assert not irax.dtypes.issubdtype(jnp.float32, irax.dtypes.extended)
    assert irax.dtypes.float0 == jax.dtypes.float0
    assert issubclass(irax.dtypes.TypePromotionError, ValueError)


@pytest.mark.parametrize("value", [1.0, 3, True, 1j, np.float64(2), np.ones((2, 3)),
                                   np.arange(3, dtype=np.uint8)])
def test_typeof_matches_jax(value):
    got, want = irax.typeof(value), jax.typeof(value)
    assert str(got) == str(want)
    assert (got.shape, got.dtype, got.weak_type) == (want.shape, want.dtype, want.weak_type)


def test_typeof_arrays_tracers_and_errors():
    assert str(irax.typeof(jnp.ones((2, 3)))) == str(jax.typeof(jj.ones((2, 3)))) == \
        "float32[2,3]"
    seen = []
    irax.jit(lambda x: seen.append(str(irax.typeof(x))) or x)(2.0)
    assert seen == [str(jax.typeof(2.0))] == ["~float32[]"]
    with pytest.raises(TypeError, match="'a' of type <class 'str'> is not a valid JAX type"):
        irax.typeof("a")


def test_jacobian_is_jacrev():
    assert irax.jacobian is irax.jacrev
    x = np.array([0.3, -1.2], np.float32)
    f = lambda x: jnp.stack([jnp.sin(x[0]) * x[1], x[0] ** 2])  # noqa: E731
    jf = lambda x: jj.stack([jj.sin(x[0]) * x[1], x[0] ** 2])  # noqa: E731
    np.testing.assert_allclose(irax.jacobian(f)(x), jax.jacobian(jf)(x), rtol=1e-6)


def test_device_put_takes_jaxs_src_hint():
    """``src`` (where the value is, JAX's hint between processes) is accepted and changes
    nothing in one process."""
    dev = irax.devices()[0]
    x = irax.device_put(np.arange(3.0), dev, src=dev)
    assert x.committed and x.devices() == {dev}
    np.testing.assert_array_equal(np.asarray(x), np.arange(3.0))


def test_shape_dtype_struct_as_in_jax():
    for args in [((2, 3), jnp.float32), ((2,), jnp.float64), ((), "int8")]:
        ours, theirs = irax.ShapeDtypeStruct(*args), jax.ShapeDtypeStruct(*args)
        assert repr(ours) == repr(theirs)
        assert (ours.shape, ours.dtype, ours.size, ours.ndim, ours.weak_type) == \
            (theirs.shape, theirs.dtype, theirs.size, theirs.ndim, theirs.weak_type)
    s = irax.ShapeDtypeStruct((2,), jnp.float32)
    assert repr(s.update(weak_type=True)) == repr(
        jax.ShapeDtypeStruct((2,), jj.float32).update(weak_type=True))
    assert s.update(shape=(4,)).shape == (4,) and s == irax.ShapeDtypeStruct((2,), "float32")
    assert hash(s) == hash(irax.ShapeDtypeStruct((2,), np.float32))
    with pytest.raises(ValueError, match="ShapeDtypeStruct: dtype must be specified."):
        irax.ShapeDtypeStruct((2,), None)
    # a float64 struct is float32 once it stands for an argument (x64 off), as in JAX
    out = irax.eval_shape(lambda x: x * 2, irax.ShapeDtypeStruct((2,), jnp.float64))
    assert out.dtype == jax.eval_shape(lambda x: x * 2,
                                       jax.ShapeDtypeStruct((2,), jj.float64)).dtype


def test_check_grads_passes_where_jax_does():
    x = np.array([[0.2, -0.7, 1.1]], np.float32)
    y = np.array([0.5, 2.0, -1.0], np.float32)
    check_grads(lambda a, b: jnp.sum(jnp.tanh(a) * b ** 2), (x, y), order=2)
    jax.test_util.check_grads(lambda a, b: jj.sum(jj.tanh(a) * b ** 2), (x, y), order=2)
    check_grads(jnp.sin, (0.5,), order=3, modes=("fwd",))
    check_grads(lambda z: jnp.abs(z) ** 2, (np.array([1 + 2j, 0.5 - 1j], np.complex64),),
                order=1, modes=("rev",))
    check_grads(lambda t: {"s": t["a"] * t["b"]}, ({"a": 1.5, "b": -2.0},), order=1)


def test_check_grads_catches_a_wrong_derivative():
    @irax.custom_jvp
    def f(x):
        return jnp.sin(x)

    f.defjvp(lambda p, t: (jnp.sin(p[0]), 2.0 * t[0]))
    with pytest.raises(AssertionError, match="JVP tangent"):
        check_grads(f, (0.3,), order=1, modes=("fwd",))

    @irax.custom_vjp
    def g(x):
        return jnp.sin(x)

    g.defvjp(lambda x: (jnp.sin(x), x), lambda x, ct: (ct * 3.0,))
    with pytest.raises(AssertionError, match="VJP cotangent projection"):
        check_grads(g, (0.3,), order=1, modes=("rev",))
    with pytest.raises(ValueError, match="modes must be among"):
        check_grads(jnp.sin, (0.3,), order=1, modes=("lin",))
