"""Exceptions raised by irax, named and shaped like ``jax.errors``."""

from __future__ import annotations

_DOCS = "See https://docs.jax.dev/en/latest/errors.html#jax.errors."


class JAXTypeError(TypeError):
    pass


class ConcretizationTypeError(TypeError):
    """A traced (abstract) value was used where a concrete Python value is needed."""

    def __init__(self, tracer, context: str = ""):
        aval = getattr(tracer, "aval", None)
        what = aval.str_short() if aval is not None else str(tracer)
        msg = (f"Abstract tracer value encountered where concrete value is expected: "
               f"traced array with shape {what}\n{context}")
        msg += _trace_origin(tracer)
        msg += _CONCRETE_HINT + _DOCS + type(self).__name__
        super().__init__(msg)


_CONCRETE_HINT = (
    "\nIf the value depends only on static arguments, mark them with static_argnums or "
    "static_argnames in irax.jit; for control flow on traced values use irax.lax.cond, "
    "irax.lax.while_loop or irax.numpy.where instead of Python `if`/`while`.\n")


def _trace_origin(tracer) -> str:
    trace = getattr(tracer, "_trace", None)
    where = getattr(trace, "origin", None)
    if not where:
        return ""
    return f"\nThe error occurred while tracing the function {where}."


class TracerBoolConversionError(ConcretizationTypeError):
    def __init__(self, tracer):
        aval = tracer.aval
        TypeError.__init__(
            self,
            f"Attempted boolean conversion of traced array with shape {aval.str_short()}."
            + _trace_origin(tracer) + _CONCRETE_HINT + _DOCS + "TracerBoolConversionError")


class TracerIntegerConversionError(TypeError):
    def __init__(self, tracer):
        super().__init__(
            f"The __index__() method was called on traced array with shape "
            f"{tracer.aval.str_short()}." + _trace_origin(tracer) + _CONCRETE_HINT + _DOCS
            + "TracerIntegerConversionError")


class TracerArrayConversionError(TypeError):
    def __init__(self, tracer):
        super().__init__(
            f"The numpy.ndarray conversion method __array__() was called on traced array with "
            f"shape {tracer.aval.str_short()}." + _trace_origin(tracer)
            + "\nUse irax.numpy functions instead of numpy ones inside transformed functions.\n"
            + _DOCS + "TracerArrayConversionError")


class UnexpectedTracerError(Exception):
    def __init__(self, tracer):
        super().__init__(
            f"Encountered an unexpected tracer. A function transformed by irax had a side effect, "
            f"allowing for a reference to an intermediate value with type "
            f"{tracer.aval.str_short()} to escape the scope of the transformation."
            + _trace_origin(tracer)
            + "\nReturn the value from the transformed function instead of storing it.\n"
            + _DOCS + "UnexpectedTracerError")


class NonConcreteBooleanIndexError(IndexError):
    def __init__(self, tracer):
        super().__init__(
            f"Array boolean indices must be concrete; got {tracer.aval.str_short()}\n"
            "Use irax.numpy.where(mask, x, y) instead of boolean indexing under jit.")


class IRError(ValueError):
    """Invalid irax IR: the message is an MLIR-style diagnostic ('irax.add' op ...)."""


class OutOfMemoryError(MemoryError):
    """An allocation that cannot succeed, on the host or on a device; the message names
    the op or function, the shape and the bytes."""


def byte_count(n: int) -> str:
    """``n`` bytes for a message: ``4.00 TB``, ``12 bytes``."""
    for unit, size in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if n >= size:
            return f"{n / size:.2f} {unit}"
    return f"{n} bytes"


class CompilationError(RuntimeError):
    """IREE failed to compile a module; the message carries IREE's diagnostics."""


class TypePromotionError(ValueError):
    pass
