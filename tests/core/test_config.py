"""irax.config: update validates names and values like jax.config.update; override sets
an option for one block and restores what it found."""

import numpy as np
import pytest

import irax
import irax.numpy as jnp


def test_update_rejects_unknown_names():
    with pytest.raises(AttributeError, match="unrecognized config option: jax_no_such"):
        irax.config.update("jax_no_such", True)


def test_update_rejects_bad_values_naming_the_option_and_what_it_expects():
    before = irax.config.irax_cpu_threads
    with pytest.raises(ValueError, match="irax.config.update: option irax_cpu_threads: "
                                         "expected a non-negative integer, got -2"):
        irax.config.update("irax_cpu_threads", -2)
    with pytest.raises(ValueError, match="option jax_num_cpu_devices: expected an integer, "
                                         "got 'two'"):
        irax.config.update("jax_num_cpu_devices", "two")
    assert irax.config.irax_cpu_threads == before


def test_override_restores_the_value_it_found_even_on_error():
    before = irax.config.jax_enable_x64
    with irax.config.override("jax_enable_x64", not before):
        assert irax.config.jax_enable_x64 is (not before)
    assert irax.config.jax_enable_x64 is before
    with pytest.raises(RuntimeError, match="inside"):
        with irax.config.override("jax_enable_x64", not before):
            raise RuntimeError("inside")
    assert irax.config.jax_enable_x64 is before
    with pytest.raises(AttributeError, match="unrecognized config option: jax_no_such"):
        with irax.config.override("jax_no_such", 1):
            pass


def test_override_of_a_traced_option_changes_what_jit_traces():
    f = irax.jit(lambda x: x * 2)
    with irax.config.override("jax_enable_x64", True):
        assert f(np.float64(1.5)).dtype == np.float64
    assert f(np.float64(1.5)).dtype == np.float32
    assert jnp.asarray(1.5).dtype == np.float32
