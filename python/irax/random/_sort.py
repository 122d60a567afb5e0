"""Stable sorting and top-k for the samplers, on the ``irax.sort`` op.

Eagerly the op runs its NumPy reference (a stable lexsort); under jit/vmap it lowers to
one ``stablehlo.sort``. Both give JAX's results exactly: equal keys keep their input order
(``sort_key_val``) and ``top_k`` puts the lower index first among equal values.
"""

from __future__ import annotations

from irax import lax


def sort_key_val(keys, values, axis: int):
    """``values`` reordered along ``axis`` by a stable sort of ``keys`` (same shape)."""
    return lax.sort_key_val(keys, values, dimension=axis, is_stable=True)[1]


def top_k_indices(x, k: int):
    """Indices of the ``k`` largest entries of the last axis, largest first (ties: lower
    index first), as ``lax.top_k``."""
    return lax.top_k(x, k)[1]
