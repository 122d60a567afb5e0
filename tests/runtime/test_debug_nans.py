"""jax_debug_nans / jax_debug_infs under jit (as JAX): a NaN (inf) in a jitted call's
results raises FloatingPointError naming the function and the first op that produced it
(found by running the traced ops one by one); off by default, and silent on clean data."""

import numpy as np
import pytest

import irax
import irax.numpy as jnp


def _log_of_sine(x):
    return jnp.log(jnp.sin(x)) * 2.0


def _reciprocal(x):
    return 1.0 / x


def test_off_by_default_and_on_names_function_and_op():
    f = irax.jit(_log_of_sine)
    bad = np.array([1.0, -1.0], np.float32)
    assert np.isnan(np.asarray(f(bad))[1])          # the flag off: NaN returned
    with irax.config.override("jax_debug_nans", True):
        with pytest.raises(FloatingPointError,
                           match=r"invalid value \(nan\) encountered in jit\(_log_of_sine\): "
                                 r"first produced by 'irax.log'"):
            f(bad)
        np.testing.assert_allclose(f(np.array([1.0, 2.0], np.float32)),
                                   2 * np.log(np.sin([1.0, 2.0])), rtol=1e-6)
        with pytest.raises(FloatingPointError, match="an argument of _reciprocal already"):
            irax.jit(_reciprocal)(np.array([np.nan], np.float32))


def test_infs_only_with_debug_infs():
    g = irax.jit(_reciprocal)
    zeros = np.zeros(2, np.float32)
    with irax.config.override("jax_debug_nans", True):
        assert np.isinf(np.asarray(g(zeros))).all()   # an inf is not a NaN
        with irax.config.override("jax_debug_infs", True):
            with pytest.raises(FloatingPointError,
                               match=r"invalid value \(inf\) encountered in "
                                     r"jit\(_reciprocal\): first produced by 'irax.div'"):
                g(zeros)


def test_context_managers_set_the_flags_for_a_block():
    with irax.debug_nans():
        assert irax.config.jax_debug_nans
        with pytest.raises(FloatingPointError, match="jit\\(_log_of_sine\\)"):
            irax.jit(_log_of_sine)(np.array([-1.0], np.float32))
    with irax.debug_infs(), irax.log_compiles():
        assert irax.config.jax_debug_infs and irax.config.jax_log_compiles
    assert not (irax.config.jax_debug_nans or irax.config.jax_debug_infs or
                irax.config.jax_log_compiles)


def test_the_producing_op_is_named_with_the_users_line():
    import inspect

    line = inspect.getsourcelines(_log_of_sine)[1] + 1   # the body's line
    with irax.config.override("jax_debug_nans", True):
        with pytest.raises(FloatingPointError,
                           match=rf"first produced by 'irax.log' at loc\(\"_log_of_sine\"\("
                                 rf"\"{__file__}\":{line}:0\)\)"):
            irax.jit(_log_of_sine)(np.array([-1.0], np.float32))


def test_eager_ops_are_checked_one_by_one_as_jax_does():
    x = jnp.array([1.0, 4.0])
    with irax.config.override("jax_debug_nans", True):
        np.testing.assert_allclose(jnp.sqrt(x), [1.0, 2.0])          # clean: no error
        with pytest.raises(FloatingPointError, match=r"invalid value \(nan\) encountered "
                                                     r"in log"):
            jnp.log(-x)
        assert np.isinf(np.asarray(1.0 / (x - 1.0))[0])              # an inf is no NaN
        with irax.config.override("jax_debug_infs", True):
            with pytest.raises(FloatingPointError, match=r"\(inf\) encountered in div"):
                1.0 / (x - 1.0)                                       # the operator path
            with pytest.raises(FloatingPointError, match=r"\(inf\) encountered in exp"):
                jnp.exp(jnp.array([100.0], jnp.bfloat16))
            assert float(jnp.max(x)) == 4.0      # a reduction's -inf start is no result
    assert np.isnan(np.asarray(jnp.log(-x))).all()                   # off again


def test_bfloat16_results_are_checked_under_jit():
    f = irax.jit(lambda x: jnp.log(x) * 2)
    with irax.config.override("jax_debug_nans", True):
        with pytest.raises(FloatingPointError, match="first produced by 'irax.log'"):
            f(jnp.array([-1.0, 1.0], jnp.bfloat16))
