"""More array creation (``jax.numpy`` compatible): ``logspace``, ``geomspace``,
``fromfunction``, ``frombuffer``, ``fromstring``, ``from_dlpack``; ``fromfile`` and
``fromiter`` raise, as in JAX (they may be impure).

    jnp.logspace(0, 2, 3)                    # [1, 10, 100] (base 10)
    jnp.geomspace(1, 1000, 4)                # [1, 10, 100, 1000]
    jnp.fromfunction(lambda i, j: i + j, (2, 3))   # the function is vmapped over the grid

The host readers go through NumPy and then ``asarray`` (canonical dtypes: float64 data
becomes float32 while 64-bit types are off).
"""

from __future__ import annotations

import operator

import numpy as np

from irax.core import dtypes
from irax.core.errors import ConcretizationTypeError
from irax.frontend.tracer import Tracer
from irax.lax import _util as LU
from irax.numpy import _util as U
from irax.numpy._creation import arange, asarray, linspace
from irax.numpy._math import log10
from irax.numpy._ufuncs import multiply, power, sign, true_divide
from irax.transforms.placement import device_put
from irax.transforms.vectorize import vmap

_IMPURE = ("jnp.{0}() is not implemented because it may be non-pure and thus unsafe for use "
           "with JIT and other JAX transformations. Consider using jnp.asarray(np.{0}(...)) "
           "instead, although care should be taken if np.{0} is used within a jax "
           "transformations because of its potential side-effect of consuming the {1} object; "
           "for more information see "
           "https://docs.jax.dev/en/latest/notebooks/Common_Gotchas_in_JAX.html#pure-functions")


def _static_index(x, context: str) -> int:
    if isinstance(x, Tracer):
        raise ConcretizationTypeError(x, context)
    return operator.index(x)


def _space_dtype(name, start, stop, dtype):
    if dtype is None:
        return dtypes.to_inexact_dtype(dtypes.result_type(start, stop))
    return dtypes.check_user_dtype(dtype, name)


def logspace(start, stop, num: int = 50, endpoint: bool = True, base=10.0, dtype=None,
             axis: int = 0):
    """``base ** linspace(start, stop, num)``."""
    num = _static_index(num, "'num' argument of jnp.logspace")
    axis = _static_index(axis, "'axis' argument of jnp.logspace")
    U.check_arraylike("logspace", start, stop)
    dt = _space_dtype("logspace", start, stop, dtype)
    comp = dtypes.to_inexact_dtype(dt)
    start, stop = LU.convert(start, comp), LU.convert(stop, comp)
    lin = linspace(start, stop, num, endpoint=endpoint, axis=axis)
    return LU.convert(power(base, lin), dt)


def geomspace(start, stop, num: int = 50, endpoint: bool = True, dtype=None, axis: int = 0):
    """``num`` samples from ``start`` to ``stop`` evenly spaced on a log scale (negative
    ranges keep their sign)."""
    num = _static_index(num, "'num' argument of jnp.geomspace")
    axis = _static_index(axis, "'axis' argument of jnp.geomspace")
    U.check_arraylike("geomspace", start, stop)
    dt = _space_dtype("geomspace", start, stop, dtype)
    comp = dtypes.to_inexact_dtype(dt)
    start, stop = LU.convert(start, comp), LU.convert(stop, comp)
    s = sign(start)
    res = multiply(s, logspace(log10(true_divide(start, s)), log10(true_divide(stop, s)), num,
                               endpoint=endpoint, base=10.0, dtype=comp, axis=0))
    nd = U.aval_of(res).ndim
    axis = LU.canonicalize_axis(axis, nd)
    if axis:
        res = LU.transpose(res, (*range(1, axis + 1), 0, *range(axis + 1, nd)))
    return LU.convert(res, dt)


def fromfunction(function, shape, *, dtype=float, **kwargs):
    """``function`` applied to the index grid of ``shape`` (vmapped over each axis, as in
    JAX: it sees scalar indices of ``dtype``)."""
    try:
        shape = tuple(_static_index(d, "shape argument of jnp.fromfunction()")
                      for d in (shape if isinstance(shape, (tuple, list)) else (shape,)))
    except TypeError:
        raise TypeError("Shapes must be 1D sequences of concrete values of integer type, got "
                        f"{shape}. shape argument of jnp.fromfunction().") from None

    def fun(*idx):
        return function(*idx, **kwargs)

    mapped = fun
    for i in range(len(shape)):
        in_axes = [0 if i == j else None for j in range(len(shape))]
        mapped = vmap(mapped, in_axes=tuple(in_axes[::-1]))
    return mapped(*(arange(s, dtype=dtype) for s in shape))


def frombuffer(buffer, dtype=float, count: int = -1, offset: int = 0):
    """An array of the bytes of ``buffer`` read as ``dtype`` (through NumPy)."""
    return asarray(np.frombuffer(buffer=buffer, dtype=dtype, count=count, offset=offset))


def fromstring(string: str, dtype=float, count: int = -1, *, sep: str):
    """An array of the numbers in the text ``string`` separated by ``sep`` (through NumPy)."""
    return asarray(np.fromstring(string, dtype=dtype, count=count, sep=sep))


def fromfile(*args, **kwargs):
    """Not implemented: reading a file is impure (JAX raises the same)."""
    raise NotImplementedError(_IMPURE.format("fromfile", "file"))


def fromiter(*args, **kwargs):
    """Not implemented: consuming an iterator is impure (JAX raises the same)."""
    raise NotImplementedError(_IMPURE.format("fromiter", "iterable"))


def from_dlpack(x, /, *, device=None, copy: bool | None = None):
    """An array from an object of the DLPack protocol (``__dlpack__``), copied to the host
    and then to ``device``; its dtype is canonicalised."""
    if not (hasattr(x, "__dlpack__") and hasattr(x, "__dlpack_device__")):
        raise TypeError("The array passed to from_dlpack must have __dlpack__ and "
                        "__dlpack_device__ methods.")
    out = asarray(np.array(np.from_dlpack(x), copy=True))
    return out if device is None else device_put(out, device)
