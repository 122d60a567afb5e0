"""Regressions of narrow float and integer dtypes under jit (found while testing tiered
jit): float8_e5m2 results raised NumPy's "data type '<f1' not understood"; float8_e8m0fnu
arithmetic compiled and came out wrong (2 + 2 = 2); a constant of float8_e4m3 or int4
failed in lowering with a raw IRError."""

import ml_dtypes
import numpy as np
import pytest

import irax
import irax.numpy as jnp


@pytest.mark.parametrize("name", ["float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz",
                                  "float8_e5m2fnuz", "bfloat16"])
def test_float8_results_leave_compiled_code(name):
    d = getattr(ml_dtypes, name)
    x = np.asarray([1, 2, 4, 0.5, -1.5]).astype(d)
    f = irax.jit(lambda v: (v, v + v * v))
    same, out = f(x)
    assert same.dtype == x.dtype and out.dtype == x.dtype
    np.testing.assert_array_equal(np.asarray(same).astype(np.float32), x.astype(np.float32))
    np.testing.assert_array_equal(np.asarray(out).astype(np.float32),
                                  (x + x * x).astype(np.float32))


def test_float8_e8m0fnu_arithmetic_is_refused_and_conversions_work():
    d = ml_dtypes.float8_e8m0fnu
    x = np.asarray([1, 2, 4, 0.5]).astype(d)
    with pytest.raises(TypeError, match=r"irax: IREE cannot compile .*<lambda> correctly: it "
                                        r"computes stablehlo.add on f8E8M0FNU"):
        irax.jit(lambda v: v + v)(x)
    np.testing.assert_array_equal(np.asarray(jnp.asarray(x) + jnp.asarray(x)).astype(float),
                                  [2, 4, 8, 1])            # eagerly: right
    as_f32 = irax.jit(lambda v: (v.astype(np.float32) * 2).astype(d))(x)
    np.testing.assert_array_equal(np.asarray(as_f32).astype(float), [2, 4, 8, 1])


@pytest.mark.parametrize("name", ["float8_e4m3", "int4"])
def test_constants_of_narrow_dtypes_lower(name):
    d = getattr(ml_dtypes, name)
    x = np.arange(1, 5).astype(d)
    with pytest.raises(TypeError, match="irax: (IREE cannot compile|arrays of dtype)"):
        irax.jit(lambda v: v * 2 + 1)(x)                   # IREE's limit, said clearly
    got = jnp.asarray(x) * 2 + 1                            # eagerly: right, in x's dtype
    want = x.astype(np.float64) * 2 + 1          # exact here; int4 wraps, as in JAX (NumPy's
    if name == "int4":                           # own int4 arithmetic promotes to int8 with
        want = (want + 8) % 16 - 8               # ml_dtypes 0.6, wraps with 0.7)
    assert got.dtype == d
    np.testing.assert_array_equal(np.asarray(got).astype(np.float64), want)
    text = irax.jit(lambda v: v * 2 + 1).lower(x).as_text("iree")
    assert "stablehlo.multiply" in text
