"""Printing and files (``jax.numpy`` compatible): ``array_repr``, ``array_str``,
``get_printoptions``, ``set_printoptions``, ``printoptions``, ``load``, ``save``, ``savez``
and ``iterable``.

    with jnp.printoptions(precision=2):
        print(x)                      # irax arrays print through NumPy, as JAX's do
    jnp.save(f, x); y = jnp.load(f)   # bfloat16 survives the round trip

As in JAX, these are NumPy's own functions (``save``, ``savez``, ``array_repr``,
``array_str``, ``iterable``, the print options), except ``load``, which turns a loaded
``.npy`` array into an ``irax.Array`` and recovers ``bfloat16`` (which NumPy stores as 2-byte
void).
"""

from __future__ import annotations

import numpy as np

from irax.core import dtypes
from irax.lax import _util as LU
from irax.numpy._creation import asarray

array_repr = np.array_repr
array_str = np.array_str
iterable = np.iterable
save = np.save
savez = np.savez


def get_printoptions():
    """NumPy's print options (``numpy.get_printoptions``), which irax arrays print with."""
    return np.get_printoptions()


def set_printoptions(*args, **kwargs):
    """Sets NumPy's print options (``numpy.set_printoptions``)."""
    return np.set_printoptions(*args, **kwargs)


def printoptions(*args, **kwargs):
    """A context manager setting NumPy's print options (``numpy.printoptions``)."""
    return np.printoptions(*args, **kwargs)


def load(file, *args, **kwargs):
    """``numpy.load``; an ``.npy`` array becomes an ``irax.Array`` (2-byte void data is read
    as bfloat16), anything else (``.npz`` archives, unsupported dtypes) is returned as NumPy
    gives it."""
    out = np.load(file, *args, **kwargs)
    if isinstance(out, np.ndarray):
        if out.dtype == "V2":
            out = out.view(dtypes.bfloat16)
        try:
            out = asarray(out) if out.dtype != dtypes.bfloat16 else LU.host_array(out)
        except (TypeError, AssertionError):
            pass
    return out
