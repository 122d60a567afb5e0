"""The Python array API standard's entry points for ``irax.numpy`` (``jax.numpy``'s).

    xp = x.__array_namespace__()          # irax.numpy
    info = xp.__array_namespace_info__()
    info.default_dtypes()                 # {"real floating": float32, ...}
    xp.cumulative_sum(x, axis=0, include_initial=True)

Everything else the standard names is the ``irax.numpy`` function of that name.
"""

from __future__ import annotations

import numpy as np

from irax.core import dtypes
from irax.dialect import elementwise as E
from irax.lax import _shape as LS
from irax.lax import _util as LU
from irax.numpy import _util as U
from irax.numpy._reductions import _cumulative
from irax.runtime.devices import devices as _devices

#: the version of the standard ``irax.numpy`` follows (as ``jax.numpy``'s)
__array_api_version__ = "2024.12"


def namespace(jnp, api_version=None):
    """``x.__array_namespace__(api_version=...)``: the ``irax.numpy`` module ``jnp``."""
    if api_version is not None and api_version != __array_api_version__:
        raise ValueError(f"api_version={api_version!r} is not available; available versions "
                         f"are: {[__array_api_version__]}")
    return jnp


# ---- __array_namespace_info__ ----------------------------------------------------------------
_API_DTYPES = {"bool", "int8", "int16", "int32", "uint8", "uint16", "uint32", "float32",
               "complex64"}
_API_DTYPES_64 = {"int64", "uint64", "float64", "complex128"}
_KINDS = {
    "bool": ("bool",),
    "signed integer": ("int8", "int16", "int32", "int64"),
    "unsigned integer": ("uint8", "uint16", "uint32", "uint64"),
    "real floating": ("float32", "float64"),
    "complex floating": ("complex64", "complex128"),
}
_KINDS["integral"] = _KINDS["signed integer"] + _KINDS["unsigned integer"]
_KINDS["numeric"] = _KINDS["integral"] + _KINDS["real floating"] + _KINDS["complex floating"]


class ArrayNamespaceInfo:
    """What ``irax.numpy`` supports, in the standard's terms
    (``jax.numpy.__array_namespace_info__()``)."""

    _capabilities = {"boolean indexing": False,  # under transformations
                     "data-dependent shapes": False,  # under transformations
                     "max dimensions": 64}

    def capabilities(self) -> dict:
        """Boolean indexing and data-dependent shapes: not under jit (as JAX)."""
        return dict(self._capabilities)

    def default_device(self):
        """None: arrays are uncommitted, placed where they are used."""
        return None

    def devices(self) -> list:
        """None (uncommitted) and every device."""
        return [None, *_devices()]

    def default_dtypes(self, *, device=None) -> dict:
        """The default dtypes (64-bit ones only with ``jax_enable_x64``)."""
        del device  # the same on every device
        return {"real floating": dtypes.default_float_dtype(),
                "complex floating": dtypes.default_complex_dtype(),
                "integral": dtypes.default_int_dtype(),
                "indexing": dtypes.default_int_dtype()}

    def dtypes(self, *, device=None, kind=None) -> dict:
        """The standard's dtypes of ``kind`` (a kind name or a tuple of them; all numeric and
        bool ones for None), by name."""
        del device
        allowed = _API_DTYPES | (_API_DTYPES_64 if dtypes.default_int_dtype().itemsize == 8
                                 else set())
        kinds = ("numeric", "bool") if kind is None else \
            kind if isinstance(kind, tuple) else (kind,)
        out = {}
        for k in kinds:
            if k not in _KINDS:
                raise KeyError(k)
            out.update({n: np.dtype(n) for n in _KINDS[k] if n in allowed})
        return out


def __array_namespace_info__() -> ArrayNamespaceInfo:
    """The standard's inspection namespace (``jax.numpy.__array_namespace_info__``)."""
    return ArrayNamespaceInfo()


# ---- the standard's cumulative functions -----------------------------------------------------
def _cumulative_api(name, what, x, axis, dtype, include_initial, op, bool_op, fill, promote,
                    initial):
    x = U.as_array(name, x)
    nd = U.aval_of(x).ndim
    if nd == 0:
        raise ValueError(f"The input must be non-scalar to take a cumulative {what}, however a "
                         "scalar value or scalar array was given.")
    if axis is None:
        if nd > 1:
            raise ValueError(f"The input array has rank {nd}, however axis was not set to an "
                             "explicit value. The axis argument is only optional for "
                             "one-dimensional arrays.")
        axis = 0
    axis = LU.canonicalize_axis(axis, nd)
    out = _cumulative(name, x, axis, dtype, op, bool_op, fill, promote)
    if not include_initial:
        return out
    oa = U.aval_of(out)
    config = [(0, 0, 0)] * oa.ndim
    config[axis] = (1, 0, 0)
    return LS.pad(out, U.full((), initial, oa.dtype), config)


def cumulative_sum(x, /, *, axis=None, dtype=None, include_initial=False):
    """Inclusive (or with ``include_initial``, exclusive then total) sums along ``axis``
    (``jax.numpy.cumulative_sum``); small integers promote as for ``sum``."""
    return _cumulative_api("cumulative_sum", "sum", x, axis, dtype, include_initial, E.Add,
                           E.Or, "sum", True, 0)


def cumulative_prod(x, /, *, axis=None, dtype=None, include_initial=False):
    """Products along ``axis`` (``jax.numpy.cumulative_prod``)."""
    return _cumulative_api("cumulative_prod", "product", x, axis, dtype, include_initial,
                           E.Mul, E.And, "prod", False, 1)
