import numpy as np
import pytest


@pytest.fixture
def x64():
    """Runs a test with 64-bit types enabled."""
    from irax.config import config

    config.update("jax_enable_x64", True)
    try:
        yield
    finally:
        config.update("jax_enable_x64", False)


@pytest.fixture
def rng():
    return np.random.default_rng(0)
