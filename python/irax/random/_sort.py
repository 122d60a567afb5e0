"""Stable sorting and top-k for the samplers (irax has no sort op yet).

Concrete (eager) inputs use NumPy's stable sort. Traced inputs (jit, vmap) use a
comparison-counting sort: the rank of element ``i`` along the axis is the number of keys
that sort before it (smaller, or equal at a lower index), which costs O(n**2) work and
memory per row, so it suits the small axes samplers usually see.
"""

from __future__ import annotations

import numpy as np

from irax import lax
from irax import numpy as jnp
from irax.lax import _util as lu
from irax.random._common import is_traced


def _ranks(keys, descending: bool):
    """``rank[..., i]``: the sorted position of element ``i`` of the last axis (stable)."""
    n = keys.shape[-1]
    a = jnp.expand_dims(keys, -1)     # (..., n, 1): element i
    b = jnp.expand_dims(keys, -2)     # (..., 1, n): element j
    before = (b > a) if descending else (b < a)
    idx = lax.iota(np.int32, n)
    lower = jnp.expand_dims(idx, -1) > jnp.expand_dims(idx, 0)   # (n, n): j < i
    before = before | ((b == a) & lower)
    return jnp.sum(before.astype(np.int32), axis=-1)


def _inverse(rank, k: int):
    """``perm[..., p]`` = the ``i`` with ``rank[..., i] == p``, for ``p < k``."""
    n = rank.shape[-1]
    pos = lax.iota(np.int32, k)
    hit = jnp.expand_dims(rank, -1) == pos                       # (..., n, k)
    idx = jnp.expand_dims(lax.iota(np.int32, n), -1)              # (n, 1)
    return jnp.sum(jnp.where(hit, idx, 0), axis=-2).astype(np.int32)


def argsort_last(keys, descending: bool = False, k: int | None = None):
    """Indices of a stable sort of the last axis (the first ``k`` of them)."""
    n = keys.shape[-1]
    k = n if k is None else k
    if not is_traced(keys):
        data = lu.host_data(keys)
        if descending:
            data = ~data if data.dtype.kind == "u" else -data.astype(
                np.int64 if data.dtype.kind == "i" else data.dtype)
        order = np.argsort(data, axis=-1, kind="stable")
        return lu.host_array(order[..., :k].astype(np.int32))
    return _inverse(_ranks(keys, descending), k)


def take_along_last(x, idx):
    """``x[..., idx[..., j]]`` row by row (``np.take_along_axis`` on the last axis)."""
    if not is_traced(x, idx):
        return lu.host_array(np.take_along_axis(lu.host_data(x), lu.host_data(idx), -1),
                             weak=lu.aval_of(x).weak_type)
    lead = tuple(x.shape[:-1])
    n, k = x.shape[-1], idx.shape[-1]
    rows = int(np.prod(lead)) if lead else 1
    offsets = lax.mul(lax.iota(np.int32, rows), np.int32(n))
    flat_idx = jnp.reshape(idx, (rows, k)) + jnp.expand_dims(offsets, -1)
    out = jnp.take(jnp.reshape(x, (rows * n,)), jnp.reshape(flat_idx, (rows * k,)))
    return jnp.reshape(out, lead + (k,))


def sort_key_val(keys, values, axis: int):
    """``values`` reordered along ``axis`` by a stable sort of ``keys`` (same shape)."""
    keys = jnp.moveaxis(keys, axis, -1)
    vals = jnp.moveaxis(values, axis, -1)
    out = take_along_last(vals, argsort_last(keys))
    return jnp.moveaxis(out, -1, axis)


def top_k_indices(x, k: int):
    """Indices of the ``k`` largest entries of the last axis, largest first (ties: lower
    index first), as ``lax.top_k``."""
    return argsort_last(x, descending=True, k=k)
