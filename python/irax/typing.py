"""``irax.typing``: the annotation types of ``jax.typing``.

    def f(x: irax.typing.ArrayLike, dtype: irax.typing.DTypeLike | None = None): ...

``ArrayLike`` is what ``jnp.asarray`` accepts as one array: an ``irax.Array`` (or a tracer
of one), a NumPy array or scalar, or a Python bool/int/float/complex. ``DTypeLike`` is what
a ``dtype=`` argument accepts: a name, a scalar type, a NumPy dtype, or anything with a
``dtype`` attribute.
"""

from __future__ import annotations

from typing import Any, Protocol, Union, runtime_checkable

import numpy as np

from irax.frontend.tracer import Tracer
from irax.runtime.array import Array


@runtime_checkable
class SupportsDType(Protocol):
    """Anything with a ``dtype`` attribute (``jnp.float32``, an array)."""

    @property
    def dtype(self) -> np.dtype: ...


ArrayLike = Union[Array, Tracer, np.ndarray, np.bool_, np.number, bool, int, float, complex]
DTypeLike = Union[str, type[Any], np.dtype, SupportsDType]

__all__ = ["ArrayLike", "DTypeLike"]
