"""Fixtures shared by the multi-device tests."""

import pytest

import irax
from irax.config import config


@pytest.fixture(scope="module")
def mesh():
    """A 2x2 mesh ("x", "y") of 4 CPU devices (Explicit axes, make_mesh's default)."""
    old = config.jax_num_cpu_devices
    config.update("jax_num_cpu_devices", 4)
    try:
        yield irax.make_mesh((2, 2), ("x", "y"))
    finally:
        config.update("jax_num_cpu_devices", old)
