"""Dtypes IREE cannot carry fail under jit with a TypeError naming the limit (never a raw
compiler dump) and still work eagerly."""

import numpy as np
import pytest

import irax
import irax.numpy as jnp


@pytest.mark.parametrize("name", ["int4", "float8_e3m4"])
def test_an_unsupported_dtype_argument_raises_a_clear_type_error(name):
    x = jnp.zeros(4, getattr(jnp, name))
    np.testing.assert_array_equal(np.asarray((x + x).astype(jnp.float32)), np.zeros(4))
    with pytest.raises(TypeError, match="eagerly"):
        irax.jit(lambda v: v + v)(x)


def test_an_odd_sized_sub_byte_intermediate_raises_a_clear_type_error():
    with pytest.raises(TypeError, match="not a whole number of bytes"):
        irax.jit(lambda v: v.astype(jnp.int4).astype(jnp.float32))(jnp.ones(3))


def test_an_exotic_float_intermediate_compiles():
    out = irax.jit(lambda v: v.astype(jnp.float8_e3m4).astype(jnp.float32))(jnp.ones(3))
    np.testing.assert_array_equal(np.asarray(out), np.ones(3, np.float32))
