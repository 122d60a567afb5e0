"""``mode``, ``rankdata`` and ``sem`` of ``jax.scipy.stats``."""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from irax import lax
from irax import numpy as jnp
from irax.core import dtypes
from irax.numpy import _util as U
from irax.transforms.vectorize import vmap

_POLICIES = ("propagate", "omit", "raise")


class ModeResult(NamedTuple):
    """``(mode, count)`` of ``jax.scipy.stats.mode``."""

    mode: object
    count: object


def _check_policy(name: str, nan_policy: str) -> None:
    if nan_policy not in _POLICIES:
        raise ValueError(f"Illegal nan_policy value {nan_policy!r}; expected one of "
                         "{'propagate', 'omit', 'raise'}")
    if nan_policy == "omit":
        raise NotImplementedError(f"Logic for `nan_policy` of {nan_policy} is not implemented")
    if nan_policy == "raise":
        raise NotImplementedError(f"In order to best JIT compile `{name}`, we cannot know "
                                  "whether `x` contains nans. Please check if nans exist in "
                                  f"`x` outside of the `{name}` function.")


def _default_float():
    return dtypes.canonicalize_dtype(np.float64)


def mode(a, axis: int | None = 0, nan_policy: str = "propagate", keepdims: bool = False):
    """``ModeResult(mode, count)``: the most frequent value along ``axis`` (the smallest of
    ties) and how often it occurs (``jax.scipy.stats.mode``)."""
    U.check_arraylike("mode", a)
    x = jnp.atleast_1d(a)
    _check_policy("mode", nan_policy)
    shape = x.shape
    if axis is not None:
        axis = U.canonical_axes(axis, x.ndim)[0]
    if keepdims:
        out_shape = tuple(1 if axis is None or i == axis else s for i, s in enumerate(shape))
    else:
        out_shape = () if axis is None else tuple(s for i, s in enumerate(shape) if i != axis)
    if axis is None:
        axis, x = 0, x.ravel()
    x = jnp.moveaxis(x, axis, 0)
    x = x.reshape(x.shape[0], math.prod(x.shape[1:]))

    def one(col):
        if col.size == 0:
            return (jnp.array(np.nan, _default_float()), jnp.array(0, _default_float()))
        vals, counts = jnp.unique(col, return_counts=True, size=col.size)
        return vals[jnp.argmax(counts)], counts.max()

    if x.shape[0] == 1:   # one value per column: itself, once (jnp.unique of size 1 under
        # vmap fails to compile in IREE, eagerly too)
        vals, counts = x[0], jnp.ones(x.shape[1:], np.int32)
    else:
        vals, counts = vmap(one, in_axes=1)(x)
    return ModeResult(vals.reshape(out_shape), counts.reshape(out_shape))


def _ranks(a, method: str):
    out_dtype = _default_float()
    arr, sorter = lax.sort_key_val(a, jnp.arange(a.size))
    inv = jnp.zeros_like(sorter).at[sorter].set(jnp.arange(a.size, dtype=sorter.dtype))
    if method == "ordinal":
        return (inv + 1).astype(out_dtype)
    obs = jnp.concatenate([jnp.array([True]), arr[1:] != arr[:-1]])
    dense = obs.cumsum()[inv]
    if method == "dense":
        return dense.astype(out_dtype)
    count = jnp.nonzero(obs, size=arr.size + 1, fill_value=obs.size)[0].astype(out_dtype)
    if method == "max":
        return count[dense]
    if method == "min":
        return count[dense - 1] + 1
    return 0.5 * (count[dense] + count[dense - 1] + 1)


def rankdata(a, method: str = "average", *, axis: int | None = None,
             nan_policy: str = "propagate"):
    """The ranks of ``a``'s values, 1-based, ties by ``method`` ("average", "min", "max",
    "dense", "ordinal"), flattened unless ``axis`` (``jax.scipy.stats.rankdata``); NaNs
    give all-NaN ranks."""
    U.check_arraylike("rankdata", a)
    _check_policy("rankdata", nan_policy)
    if method not in ("average", "min", "max", "dense", "ordinal"):
        raise ValueError(f"unknown method '{method}'")
    if axis is not None:
        return jnp.apply_along_axis(rankdata, axis, a, method)
    a = jnp.ravel(a)
    out_dtype = _default_float()
    return lax.cond(jnp.any(jnp.isnan(a)), lambda a: jnp.full_like(a, jnp.nan, out_dtype),
                    lambda a: _ranks(a, method), a)


def sem(a, axis: int | None = 0, ddof: int = 1, nan_policy: str = "propagate", *,
        keepdims: bool = False):
    """The standard error of the mean along ``axis`` (``jax.scipy.stats.sem``;
    ``nan_policy`` "propagate" or "omit")."""
    (b,) = U.promote_args_inexact("sem", a)
    if nan_policy == "propagate":
        size = b.size if axis is None else b.shape[axis]
        return b.std(axis, ddof=ddof, keepdims=keepdims) / jnp.sqrt(size).astype(b.dtype)
    if nan_policy == "omit":
        count = (~jnp.isnan(b)).sum(axis, keepdims=keepdims)
        return (jnp.nanstd(b, axis, ddof=ddof, keepdims=keepdims)
                / jnp.sqrt(count).astype(b.dtype))
    raise ValueError(f"{nan_policy} is not supported")
