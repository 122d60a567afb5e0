"""``irax.experimental``: APIs JAX keeps under ``jax.experimental``."""

from irax.frontend.host_callback import io_callback  # noqa: F401
