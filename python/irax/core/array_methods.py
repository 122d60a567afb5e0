"""``ArrayMethods``: the base of ``irax.Array`` and ``Tracer`` that carries NumPy's
operators and array methods.

The methods are implemented by ``irax.numpy`` and installed on this class when it is
imported (``irax.numpy._array_methods``), so that eager arrays and tracers behave
identically and the lower layers need not import the numerical library:

    x + 1        # ArrayMethods.__add__ -> irax.numpy.add(x, 1)
"""

from __future__ import annotations


class ArrayMethods:
    """Mixin: subclasses provide ``aval`` (shape, dtype, weak_type); operators and
    methods are installed by ``irax.numpy``."""

    __slots__ = ()

    @property
    def shape(self):
        return self.aval.shape

    @property
    def dtype(self):
        return self.aval.dtype

    @property
    def weak_type(self) -> bool:
        return self.aval.weak_type

    @property
    def ndim(self) -> int:
        return self.aval.ndim

    @property
    def size(self) -> int:
        return self.aval.size

    def __setitem__(self, idx, value):
        raise TypeError(
            f"{type(self).__name__!r} object does not support item assignment. JAX arrays are "
            "immutable. Instead of ``x[idx] = y``, use ``x = x.at[idx].set(y)`` or another "
            ".at[] method: https://docs.jax.dev/en/latest/_autosummary/jax.numpy.ndarray.at.html")

    def __iter__(self):
        if self.ndim == 0:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(self.shape[0]))


def install(methods: dict) -> None:
    """Sets the operators and methods of ``ArrayMethods`` (name -> function or property)."""
    for name, fn in methods.items():
        setattr(ArrayMethods, name, fn)
