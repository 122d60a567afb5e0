"""``irax.config``: irax's options, like ``jax.config`` (defined in
:mod:`irax.core.config`)."""

from irax.core.config import Config, config  # noqa: F401
