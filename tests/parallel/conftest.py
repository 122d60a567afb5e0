"""Fixtures shared by the multi-device tests."""

import pytest

import irax
from irax.config import config
from irax.transforms import spmd


@pytest.fixture(scope="module")
def four_devices():
    """Four CPU devices for the module's tests."""
    old = config.jax_num_cpu_devices
    config.update("jax_num_cpu_devices", 4)
    try:
        yield irax.devices()
    finally:
        config.update("jax_num_cpu_devices", old)


@pytest.fixture(scope="module")
def mesh():
    """A 2x2 mesh ("x", "y") of 4 CPU devices (Explicit axes, make_mesh's default), on a
    machine taken to have cores to spare (so that top-level maps may run a program per
    device on threads, ``spmd.cores``)."""
    old = config.jax_num_cpu_devices
    config.update("jax_num_cpu_devices", 4)
    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(spmd, "cores", lambda: 64)
            yield irax.make_mesh((2, 2), ("x", "y"))
    finally:
        config.update("jax_num_cpu_devices", old)
