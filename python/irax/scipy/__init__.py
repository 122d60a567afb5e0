"""irax.scipy: ``jax.scipy``'s special functions, linear algebra and statistics."""

from irax.scipy import linalg, special, stats  # noqa: F401
