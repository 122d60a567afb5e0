"""Float powers of negative and zero bases under jit follow C's pow as JAX does (IREE 3.13
computed exp(y * log(x)): NaN for (-2.) ** 3., and for 0. ** 0.)."""

import numpy as np
import pytest

import irax
import irax.numpy as jnp

jax = pytest.importorskip("jax")


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_float_power_matches_jax_on_the_special_cases(dtype):
    x = np.array([-2., -0., 2., -3., -0., -0., -np.inf, -np.inf, -2, -0.5, np.nan, -2., 0., 1.,
                  -1.5, 0.], dtype)
    y = np.array([3., -3., 0.5, 2., 3., -2., 3., 0.5, 0.5, np.inf, 0., -np.inf, 0., np.nan,
                  -3., -1.], dtype)
    want = np.asarray(jax.jit(jax.numpy.power)(x, y))
    got = np.asarray(irax.jit(jnp.power)(x, y))
    np.testing.assert_allclose(got, want, rtol=2e-6 if dtype == np.float32 else 2e-3)
    finite = ~np.isnan(want)
    np.testing.assert_array_equal(np.signbit(got[finite]), np.signbit(want[finite]))
