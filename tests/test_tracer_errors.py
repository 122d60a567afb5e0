"""Errors of traced values: concretization, leaked tracers, conversions."""

import numpy as np
import pytest

import irax
import irax.numpy as jnp
from irax import errors


def test_python_if_on_traced_value_under_jit():
    def relu_branchy(x):
        if x > 0:
            return x
        return -x

    f = irax.jit(relu_branchy)
    with pytest.raises(errors.ConcretizationTypeError) as info:
        f(1.0)
    msg = str(info.value)
    assert isinstance(info.value, TypeError)
    assert isinstance(info.value, errors.TracerBoolConversionError)
    assert msg.startswith("Attempted boolean conversion of traced array with shape bool[].")
    assert "relu_branchy" in msg
    assert "static_argnums" in msg and "lax.cond" in msg


def test_same_function_works_eagerly_and_with_static_argnums():
    def branchy(x):
        return x * 2 if x > 0 else x * 3

    assert float(branchy(jnp.asarray(2.0))) == 4.0
    f = irax.jit(branchy, static_argnums=0)
    assert float(f(2.0)) == 4.0 and float(f(-1.0)) == -3.0


def test_int_float_index_item_on_tracer():
    @irax.jit
    def f(x):
        return int(x)

    with pytest.raises(errors.ConcretizationTypeError,
                       match="Abstract tracer value encountered where concrete value is expected"):
        f(1)

    @irax.jit
    def g(x):
        return float(x)

    with pytest.raises(errors.ConcretizationTypeError, match="`float` function"):
        g(1.0)

    @irax.jit
    def h(x):
        return list(range(x))

    with pytest.raises(errors.TracerIntegerConversionError,
                       match=r"The __index__\(\) method was called on traced array with shape "
                             r"int32\[\]"):
        h(3)

    @irax.jit
    def k(x):
        return x.item()

    with pytest.raises(errors.ConcretizationTypeError, match="item"):
        k(1.0)


def test_numpy_conversion_of_tracer():
    @irax.jit
    def f(x):
        return np.sin(np.asarray(x))

    with pytest.raises(errors.TracerArrayConversionError,
                       match=r"__array__\(\) was called on traced array with shape float32\[3\]"):
        f(np.ones(3, np.float32))


def test_leaked_tracer_is_detected():
    leaked = []

    @irax.jit
    def f(x):
        leaked.append(x)
        return x + 1

    f(np.ones(2, np.float32))
    with pytest.raises(errors.UnexpectedTracerError,
                       match="Encountered an unexpected tracer.*float32\\[2\\]"):
        leaked[0] + 1
    g = irax.jit(lambda y: y + leaked[0])
    with pytest.raises(errors.UnexpectedTracerError):
        g(np.ones(2, np.float32))


def test_tracer_repr_and_properties():
    seen = {}

    @irax.jit
    def f(x):
        seen["repr"] = repr(x)
        seen["props"] = (x.shape, x.dtype, x.ndim, x.size, len(x))
        return x

    f(np.ones((3, 2), np.float32))
    assert seen["repr"] == "Traced<ShapedArray(float32[3,2])>"
    assert seen["props"] == ((3, 2), np.float32, 2, 6, 3)


def test_tracer_is_unhashable_and_immutable():
    @irax.jit
    def f(x):
        with pytest.raises(TypeError, match="unhashable"):
            hash(x)
        with pytest.raises(TypeError, match="immutable"):
            x[0] = 1.0
        return x

    f(np.ones(3, np.float32))
