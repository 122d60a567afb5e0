"""``sort`` and ``argsort`` (``jax.numpy`` compatible), on ``irax.sort``.

    jnp.sort(x)                       # ascending along the last axis: NaNs last
    jnp.argsort(x, descending=True)   # equal entries keep their input order

Both are stable by default; ``axis=None`` sorts the flattened array.
"""

from __future__ import annotations

import numpy as np

from irax.core import dtypes
from irax.dialect import elementwise as E
from irax.frontend.trace import bind
from irax.lax import _shape as LS
from irax.lax import _sorting as LSort
from irax.lax import _util as LU
from irax.numpy import _util as U


def _prepare(name, a, axis, kind, order):
    U.check_arraylike(name, a)
    if kind is not None:
        raise TypeError(f"'kind' argument to {name} is not supported. Use stable=True or "
                        "stable=False to specify sort stability.")
    if order is not None:
        raise TypeError(f"'order' argument to {name} is not supported.")
    x = U.as_array(name, a)
    if axis is None:
        x = LU.reshape(x, (U.aval_of(x).size,))
        axis = 0
    return x, LU.canonicalize_axis(axis, U.aval_of(x).ndim)


def sort(a, axis: int | None = -1, *, kind=None, order=None, stable: bool = True,
         descending: bool = False):
    """A sorted copy of ``a`` along ``axis`` (flattened when None): NaNs last, -0.0 and
    +0.0 equal, complex by (real, imag)."""
    x, axis = _prepare("sort", a, axis, kind, order)
    if descending and not _is_float(x):  # equal integers are alike: sort ~x instead
        return _not(LSort.sort(_not(x), dimension=axis, is_stable=stable))
    out = LSort.sort(x, dimension=axis, is_stable=stable)
    return LS.rev(out, (axis,)) if descending else out


def argsort(a, axis: int | None = -1, *, kind=None, order=None, stable: bool = True,
            descending: bool = False, dtype=None):
    """The indices that sort ``a`` along ``axis`` (flattened when None), of the default int
    dtype unless ``dtype`` is given. A stable descending sort keeps equal entries in input
    order."""
    x, axis = _prepare("argsort", a, axis, kind, order)
    shape = U.aval_of(x).shape
    if dtype is not None:
        index = dtypes.check_user_dtype(dtype, "argsort")
    elif shape[axis] > np.iinfo(np.int32).max:
        index = dtypes.canonicalize_dtype(np.int64)
    else:
        index = dtypes.default_int_dtype()
    iota = LS.broadcasted_iota(index, shape, axis)
    if descending and not _is_float(x):  # ~x sorts integers and booleans the other way
        return LSort.sort_key_val(_not(x), iota, dimension=axis, is_stable=stable)[1]
    if descending and stable:  # reversed, so that reversing the result restores tie order
        x, iota = LS.rev(x, (axis,)), LS.rev(iota, (axis,))
    _, idx = LSort.sort_key_val(x, iota, dimension=axis, is_stable=stable)
    return LS.rev(idx, (axis,)) if descending else idx


def _is_float(x) -> bool:
    return dtypes.is_inexact(U.aval_of(x).dtype)


def _not(x):
    return bind(E.Not, x)
