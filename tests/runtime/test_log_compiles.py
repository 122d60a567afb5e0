"""jax_log_compiles: each jitted specialization made ready logs one WARNING naming the
function and its argument types (as JAX's flag); off by default."""

import logging

import numpy as np

import irax
import irax.numpy as jnp


def _scaled_sine(x, y):
    return jnp.sin(x) * y


def test_log_compiles_names_the_function_and_its_argument_types(caplog):
    caplog.set_level(logging.WARNING, logger="irax")
    irax.jit(_scaled_sine)(np.ones(3, np.float32), 2.0)
    assert not [r for r in caplog.records if "_scaled_sine" in r.getMessage()]
    with irax.config.override("jax_log_compiles", True):
        irax.jit(_scaled_sine)(np.ones((2, 3), np.int32), np.float32(2.0))
    msgs = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert any("jit(_scaled_sine) compiled for arguments (int32[2,3], float32[])" in m
               for m in msgs), msgs
