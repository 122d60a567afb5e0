"""``irax.errors``: the exceptions irax raises, named like ``jax.errors`` (defined in
:mod:`irax.core.errors`)."""

from irax.core.errors import (  # noqa: F401
    CompilationError,
    ConcretizationTypeError,
    IRError,
    JAXTypeError,
    NonConcreteBooleanIndexError,
    OutOfMemoryError,
    TracerArrayConversionError,
    TracerBoolConversionError,
    TracerIntegerConversionError,
    TypePromotionError,
    UnexpectedTracerError,
)
