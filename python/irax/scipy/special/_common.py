"""Helpers shared by the ``irax.scipy.special`` modules."""

from __future__ import annotations

import operator

import numpy as np

from irax.core import dtypes
from irax.frontend.tracer import Tracer
from irax.lax import _util as U
from irax.numpy._util import aval_of


def K(x, value):  # noqa: N802 - short on purpose: used in every formula
    """``value`` as a constant for ``x`` (JAX's ``_lax_const``): a Python scalar when ``x``
    is weakly typed (so results stay weak), else a NumPy scalar of ``x``'s dtype."""
    a = aval_of(x)
    if a.weak_type:
        kind = np.dtype(a.dtype).kind
        return complex(value) if kind == "c" else int(value) if kind in "iu" else float(value)
    return np.asarray(value, dtype=a.dtype)[()]


def full_like(x, value):
    """``lax.full_like(x, value)`` keeping ``x``'s weak type, as JAX's does."""
    a = aval_of(x)
    return U.full(a.shape, value, a.dtype, a.weak_type)


def no_complex(name: str, x) -> None:
    if dtypes.is_complex(aval_of(x).dtype):
        raise ValueError(f"{name} does not support complex-valued inputs.")


def scalar_int(n, what: str) -> int:
    """A concrete Python integer (JAX's ``concrete_or_error(operator.index, ...)``)."""
    if isinstance(n, Tracer):
        raise TypeError(f"{what}: a concrete integer is required, got a traced value "
                        f"{n.aval.str_short()}")
    return operator.index(n if isinstance(n, int) else np.asarray(n).item())


def float_dtype_only(name: str, x, kinds=(np.float32, np.float64)):
    """JAX's ``TypeError`` for the functions that accept only float32/float64."""
    dt = np.dtype(aval_of(x).dtype)
    if dt not in [np.dtype(k) for k in kinds]:
        raise TypeError(f"x.dtype={dt} is not supported, see docstring for supported types.")
    return dt
