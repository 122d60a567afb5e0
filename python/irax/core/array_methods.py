"""NumPy operators and array methods shared by ``irax.Array`` and ``Tracer``.

Every operator forwards to the ``irax.numpy`` function of the same meaning, so eager
arrays and tracers behave identically (eager values run the same rules on NumPy).
"""

from __future__ import annotations

import importlib

_jnp = None


def _np():
    global _jnp
    if _jnp is None:
        _jnp = importlib.import_module("irax.numpy")
    return _jnp


def _binary(name, reflected=False):
    if reflected:
        def op(self, other):
            return getattr(_np(), name)(other, self)
    else:
        def op(self, other):
            return getattr(_np(), name)(self, other)
    op.__name__ = name
    return op


def _unary(name):
    def op(self):
        return getattr(_np(), name)(self)
    op.__name__ = name
    return op


def _method(name):
    def method(self, *args, **kwargs):
        return getattr(_np(), name)(self, *args, **kwargs)
    method.__name__ = name
    return method


class ArrayMethods:
    """Mixin: subclasses provide ``aval`` (shape, dtype, weak_type)."""

    __slots__ = ()

    __add__ = _binary("add")
    __radd__ = _binary("add", True)
    __sub__ = _binary("subtract")
    __rsub__ = _binary("subtract", True)
    __mul__ = _binary("multiply")
    __rmul__ = _binary("multiply", True)
    __truediv__ = _binary("true_divide")
    __rtruediv__ = _binary("true_divide", True)
    __floordiv__ = _binary("floor_divide")
    __rfloordiv__ = _binary("floor_divide", True)
    __mod__ = _binary("remainder")
    __rmod__ = _binary("remainder", True)
    __pow__ = _binary("power")
    __rpow__ = _binary("power", True)
    __matmul__ = _binary("matmul")
    __rmatmul__ = _binary("matmul", True)
    __and__ = _binary("bitwise_and")
    __rand__ = _binary("bitwise_and", True)
    __or__ = _binary("bitwise_or")
    __ror__ = _binary("bitwise_or", True)
    __xor__ = _binary("bitwise_xor")
    __rxor__ = _binary("bitwise_xor", True)
    __lshift__ = _binary("left_shift")
    __rlshift__ = _binary("left_shift", True)
    __rshift__ = _binary("right_shift")
    __rrshift__ = _binary("right_shift", True)
    __lt__ = _binary("less")
    __le__ = _binary("less_equal")
    __gt__ = _binary("greater")
    __ge__ = _binary("greater_equal")
    __eq__ = _binary("equal")
    __ne__ = _binary("not_equal")
    __neg__ = _unary("negative")
    __pos__ = _unary("positive")
    __abs__ = _unary("abs")
    __invert__ = _unary("invert")

    def __divmod__(self, other):
        return _np().divmod(self, other)

    def __rdivmod__(self, other):
        return _np().divmod(other, self)

    def __getitem__(self, idx):
        return _np()._index(self, idx)

    def __setitem__(self, idx, value):
        raise TypeError(
            f"{type(self).__name__!r} object does not support item assignment. JAX arrays are "
            "immutable. Instead of ``x[idx] = y``, use ``x = x.at[idx].set(y)`` or another "
            ".at[] method: https://docs.jax.dev/en/latest/_autosummary/jax.numpy.ndarray.at.html")

    def __iter__(self):
        if self.ndim == 0:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(self.shape[0]))

    @property
    def T(self):
        return _np().transpose(self)

    @property
    def mT(self):
        return _np().swapaxes(self, -1, -2)

    @property
    def real(self):
        return _np().real(self)

    @property
    def imag(self):
        return _np().imag(self)

    def reshape(self, *shape, order="C"):
        if len(shape) == 1 and not isinstance(shape[0], int):
            shape = shape[0]
        return _np().reshape(self, shape, order=order)

    def transpose(self, *axes):
        if len(axes) == 1 and (axes[0] is None or not isinstance(axes[0], int)):
            axes = axes[0]
        return _np().transpose(self, axes or None)

    astype = _method("astype")
    sum = _method("sum")
    mean = _method("mean")
    max = _method("max")
    min = _method("min")
    prod = _method("prod")
    any = _method("any")
    all = _method("all")
    argmax = _method("argmax")
    argmin = _method("argmin")
    sort = _method("sort")
    argsort = _method("argsort")
    swapaxes = _method("swapaxes")
    squeeze = _method("squeeze")
    ravel = _method("ravel")
    flatten = _method("ravel")
    dot = _method("dot")
    clip = _method("clip")
    round = _method("round")
    conj = _method("conjugate")
    conjugate = _method("conjugate")
    var = _method("var")
    std = _method("std")
    cumsum = _method("cumsum")
    __round__ = _method("round")
