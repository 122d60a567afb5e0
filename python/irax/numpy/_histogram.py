"""Histograms and bin counts: histogram, histogram2d, histogramdd, histogram_bin_edges,
bincount (``jax.numpy`` compatible).

    jnp.bincount(x, length=5)                    # a static length: works under jit
    jnp.histogram(x, bins=4, range=(0.0, 1.0))   # (counts, edges)

``bincount`` without ``length`` reads ``x.max() + 1`` from a concrete ``x``; a traced ``x``
raises JAX's ``ConcretizationTypeError``. Values past the end are dropped, negative ones
count in bin 0 (JAX's rule).
"""

from __future__ import annotations

import builtins
import math
import operator

import numpy as np

from irax.core import dtypes
from irax.dialect import elementwise as E
from irax.frontend.trace import bind
from irax.frontend.tracer import Tracer
from irax.lax import _util as LU
from irax.numpy import _aux as X
from irax.numpy import _util as U
from irax.numpy._creation import linspace
from irax.numpy._index_tricks import ravel_multi_index
from irax.numpy._logic import clip, where
from irax.numpy._reductions import max as max_
from irax.numpy._reductions import min as min_
from irax.numpy._reductions import sum as sum_
from irax.numpy._searching import searchsorted
from irax.numpy._shape import reshape, stack
from irax.numpy._ufuncs import true_divide


def _static_int(v, context: str) -> int:
    if isinstance(v, Tracer):
        v = X.concrete_or_error(v, context)
    return operator.index(v if not isinstance(v, np.ndarray) else v.item())


def bincount(x, weights=None, minlength: int = 0, *, length: int | None = None,
             out_sharding=None):
    """The number of occurrences (or summed ``weights``) of each non-negative int in ``x``
    (JAX's ``bincount``)."""
    del out_sharding
    x = U.as_array("bincount", x)
    dt = U.aval_of(x).dtype
    if dt == np.bool_:
        x = LU.convert(x, np.int32)
    elif not dtypes.is_int(dt):
        raise TypeError(f"x argument to bincount must have an integer type; got {dt}")
    if U.aval_of(x).ndim != 1:
        raise ValueError("only 1-dimensional input supported.")
    minlength = _static_int(minlength, "The error occurred because of argument 'minlength' of "
                                       "jnp.bincount.")
    if length is None:
        v = X.concrete_or_error(x, "The error occurred because of argument 'x' of "
                                   "jnp.bincount. To avoid this error, pass a static `length` "
                                   "argument.")
        length = max(minlength, v.size and int(max(0, v.max())) + 1)
    else:
        length = _static_int(length, "The error occurred because of argument 'length' of "
                                     "jnp.bincount.")
    n = U.aval_of(x).shape[0]
    if weights is None:
        w = U.full((n,), 1, dtypes.default_int_dtype())
    else:
        w = U.as_array("bincount", weights)
        if U.aval_of(w).shape != U.aval_of(x).shape:
            raise ValueError(f"type of weights must match type of x. Got x.shape="
                             f"{U.aval_of(x).shape} and weights.shape={U.aval_of(w).shape}")
        w = LU.convert(w, U.aval_of(w).dtype, False)
        if U.aval_of(w).dtype == np.bool_:
            w = LU.convert(w, dtypes.default_int_dtype())
    idx = clip(x, 0)
    return X.scatter_add_1d(length, idx, w)


def histogram_bin_edges(a, bins=10, range=None, weights=None):  # noqa: A002 - NumPy's name
    """The edges of the bins ``histogram`` would use (JAX's ``histogram_bin_edges``)."""
    del weights
    if isinstance(bins, str):
        raise NotImplementedError("string values for `bins` not implemented.")
    U.check_arraylike("histogram_bin_edges", a, bins)
    arr = U.as_array("histogram_bin_edges", a)
    dt = dtypes.to_inexact_dtype(U.aval_of(arr).dtype)
    if np.ndim(bins) == 1 or (hasattr(bins, "aval") and U.aval_of(bins).ndim == 1):
        return LU.convert(U.as_array("histogram_bin_edges", bins), dt, False)
    nbins = _static_int(bins, "bins argument of histogram_bin_edges")
    if range is None:
        lo, hi = min_(arr), max_(arr)
    else:
        if not _is_pair(range):
            raise ValueError(f"`range` must be either None or a sequence of scalars, got "
                             f"{range}")
        lo, hi = range[0], range[1]
    lo, hi = LU.convert(U.as_array("histogram_bin_edges", lo), dt, False), \
        LU.convert(U.as_array("histogram_bin_edges", hi), dt, False)
    same = U.cmp(lo, hi, "EQ")
    lo2 = where(same, bind(E.Sub, lo, U.full((), 0.5, dt)), lo)
    hi2 = where(same, bind(E.Add, hi, U.full((), 0.5, dt)), hi)
    return linspace(lo2, hi2, nbins + 1, dtype=dt)


def _is_pair(r) -> bool:
    """Whether ``r`` is two scalars (a sequence of traced scalars included)."""
    if isinstance(r, (list, tuple)):
        return len(r) == 2 and all(U.aval_of(v).ndim == 0 for v in r)
    return U.aval_of(r).shape == (2,)


def _bin_index(x, edges):
    """``searchsorted(edges, x, 'right')`` with the last edge counted in the last bin."""
    idx = searchsorted(edges, x, side="right")
    last = X.index_axis(edges, 0, -1)
    at_end = U.cmp(x, LU.broadcast_to(last, U.aval_of(x).shape), "EQ")
    return where(at_end, bind(E.Sub, idx, U.full_like(idx, 1)), idx)


def histogram(a, bins=10, range=None, weights=None, density=None):  # noqa: A002
    """The counts (or summed ``weights``) of ``a`` in each bin, and the bin edges (JAX's
    ``histogram``)."""
    if weights is None:
        U.check_arraylike("histogram", a, bins)
        a, = U.promote_dtypes_inexact(U.as_array("histogram", a))
        w = U.full_like(a, 1)
    else:
        U.check_arraylike("histogram", a, bins, weights)
        if np.shape(a) != np.shape(weights):
            raise ValueError("weights should have the same shape as a.")
        a, w = U.promote_dtypes_inexact(U.as_array("histogram", a),
                                        U.as_array("histogram", weights))
    edges = histogram_bin_edges(a, bins, range, w)
    a, w = LU.reshape(a, (U.aval_of(a).size,)), LU.reshape(w, (U.aval_of(w).size,))
    nedges = U.aval_of(edges).shape[0]
    w = LU.convert(w, U.aval_of(w).dtype, False)
    counts = X.slice_axis(X.scatter_add_1d(nedges, _bin_index(a, edges), w), 0, 1, None)
    if density:
        widths = X.diff1(edges, 0)
        counts = true_divide(true_divide(counts, widths), sum_(counts))
    return counts, edges


def histogram2d(x, y, bins=10, range=None, weights=None, density=None):  # noqa: A002
    """The 2-D histogram of points ``(x, y)`` and the edges along each (JAX's
    ``histogram2d``)."""
    U.check_arraylike("histogram2d", x, y)
    try:
        nb = len(bins)
    except TypeError:
        nb = 1
    if nb not in (1, 2):
        edges = U.as_array("histogram2d", np.asarray(bins) if isinstance(bins, list) else bins)
        bins = [edges, edges]
    sample = stack([U.as_array("histogram2d", x), U.as_array("histogram2d", y)], axis=1)
    hist, edges = histogramdd(sample, bins, range, weights, density)
    return hist, edges[0], edges[1]


def histogramdd(sample, bins=10, range=None, weights=None, density=None):  # noqa: A002
    """The D-dimensional histogram of the ``(N, D)`` ``sample`` and the edges along each
    dimension (JAX's ``histogramdd``)."""
    if weights is None:
        s, = U.promote_dtypes_inexact(U.as_array("histogramdd", sample))
    else:
        U.check_arraylike("histogramdd", sample, weights)
        if np.shape(weights) != np.shape(sample)[:1]:
            raise ValueError("should have one weight for each sample.")
        s, weights = U.promote_dtypes_inexact(U.as_array("histogramdd", sample),
                                              U.as_array("histogramdd", weights))
    shape = U.aval_of(s).shape
    if len(shape) != 2:
        raise ValueError(f"too many values to unpack (expected 2), sample.shape={shape}")
    n, d = shape
    if range is not None and (len(range) != d or any(r is not None and not _is_pair(r)
                                                     for r in range)):
        raise ValueError(f"For sample.shape={(n, d)}, range must be a sequence of {d} pairs or "
                         f"Nones; got range={range}")
    try:
        per_dim = list(bins)
    except TypeError:
        per_dim = d * [bins]
    else:
        if len(per_dim) != d:
            raise ValueError("should be a bin for each dimension.")
    idxs, edges_all = [], []
    for i in builtins.range(d):
        col = X.index_axis(s, 1, i)
        edges = histogram_bin_edges(col, per_dim[i], None if range is None else range[i])
        idxs.append(_bin_index(col, edges))
        edges_all.append(edges)
    nbins = tuple(U.aval_of(e).shape[0] + 1 for e in edges_all)
    flat = ravel_multi_index(tuple(idxs), nbins, mode="clip")
    hist = reshape(bincount(flat, weights, length=math.prod(nbins)), nbins)
    for ax in builtins.range(d):
        hist = X.slice_axis(hist, ax, 1, -1)
    if density:
        hist = LU.convert(hist, U.aval_of(s).dtype, False)
        hist = true_divide(hist, sum_(hist))
        for ax, e in enumerate(edges_all):
            shp = [1] * d
            shp[ax] = U.aval_of(e).shape[0] - 1
            hist = true_divide(hist, LU.reshape(X.diff1(e, 0), tuple(shp)))
    return hist, edges_all
