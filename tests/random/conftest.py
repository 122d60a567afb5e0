import pytest


@pytest.fixture
def jax_config():
    """Sets the same flags in JAX and irax; restores both."""
    jax = pytest.importorskip("jax")
    from irax.config import config

    saved = {n: (getattr(jax.config, n), config.read(n))
             for n in ("jax_threefry_partitionable", "jax_enable_x64")}

    def set_flags(**flags):
        for n, v in flags.items():
            jax.config.update(n, v)
            config.update(n, v)

    yield set_flags
    for n, (jv, iv) in saved.items():
        jax.config.update(n, jv)
        config.update(n, iv)
