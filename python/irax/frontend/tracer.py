"""``Tracer``: the stand-in for an array while a function is being traced.

A tracer wraps one SSA value of the function under construction plus its abstract value.
It supports NumPy's operators and array methods (through ``ArrayMethods``), and refuses to
become a concrete Python value (``bool``, ``int``, ``np.asarray``) with JAX's errors.
"""

from __future__ import annotations

from irax.core.abstract import ShapedArray
from irax.core.array_methods import ArrayMethods
from irax.core.errors import (
    ConcretizationTypeError,
    TracerArrayConversionError,
    TracerBoolConversionError,
    TracerIntegerConversionError,
)


class Tracer(ArrayMethods):
    __slots__ = ("_trace", "_value", "aval", "_const_of", "_concrete")
    __array_priority__ = 1000

    def __init__(self, trace, value, aval: ShapedArray):
        self._trace = trace
        self._value = value
        self.aval = aval
        self._const_of = None
        self._concrete = None

    def __len__(self) -> int:
        if not self.aval.shape:
            raise TypeError("len() of unsized object")
        return self.aval.shape[0]

    # A concrete tracer (eager grad) answers with its value, as JAX's JVP tracers do.
    def __bool__(self):
        if self._concrete is not None:
            return bool(self._concrete)
        raise TracerBoolConversionError(self)

    def __int__(self):
        if self._concrete is not None:
            return int(self._concrete)
        raise ConcretizationTypeError(
            self, "The problem arose with the `int` function. If trying to convert the data "
            "type of a value, try using `x.astype(int)` or `irax.numpy.array(x, int)` instead.")

    def __float__(self):
        if self._concrete is not None:
            return float(self._concrete)
        raise ConcretizationTypeError(
            self, "The problem arose with the `float` function. If trying to convert the data "
            "type of a value, try using `x.astype(float)` or `irax.numpy.array(x, float)` "
            "instead.")

    def __complex__(self):
        raise ConcretizationTypeError(self, "The problem arose with the `complex` function.")

    def __index__(self):
        if self._concrete is not None and self.dtype.kind in "iub":
            return int(self._concrete)
        raise TracerIntegerConversionError(self)

    def __array__(self, dtype=None, copy=None):
        raise TracerArrayConversionError(self)

    def item(self, *args):
        if self._concrete is not None:
            return self._concrete.item(*args)
        raise ConcretizationTypeError(self, "This occurred in the item() method of irax.Array")

    def tolist(self):
        if self._concrete is not None:
            return self._concrete.tolist()
        raise ConcretizationTypeError(self, "This occurred in the tolist() method of irax.Array")

    def __hash__(self):
        raise TypeError(f"unhashable type: {type(self).__name__}")

    def __repr__(self) -> str:
        return f"Traced<{self.aval!r}>"
