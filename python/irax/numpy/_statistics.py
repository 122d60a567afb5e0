"""Statistics: average, median, quantile, percentile (every JAX ``method``), their NaN-ignoring
forms, nanvar, nanstd, nancumsum, nancumprod, cov, corrcoef (``jax.numpy`` compatible).

    jnp.quantile(x, [0.25, 0.75], axis=0, method="nearest")
    jnp.nanmedian(x, axis=1, keepdims=True)
    jnp.average(x, axis=0, weights=w, returned=True)

Quantiles sort along the reduced axis (the reduced axes of a tuple are flattened into one)
and gather the two neighbouring order statistics; results have ``a``'s inexact dtype and are
strongly typed. The interpolation runs in ``q``'s dtype, as in JAX.
"""

from __future__ import annotations

import math
import operator

import numpy as np

from irax.core import dtypes
from irax.dialect import elementwise as E
from irax.frontend.trace import bind
from irax.lax import _elementwise as LE
from irax.lax import _shape as LS
from irax.lax import _sorting as LSort
from irax.lax import _util as LU
from irax.numpy import _aux as X
from irax.numpy import _util as U
from irax.numpy._linalg import diagonal, dot
from irax.numpy._logic import clip
from irax.numpy._logic import where as _where
from irax.numpy._math import conjugate, isnan, real, sqrt
from irax.numpy._reductions import _var_types, cumprod, cumsum, mean, nanmean
from irax.numpy._reductions import any as any_
from irax.numpy._reductions import sum as sum_
from irax.numpy._shape import atleast_2d, concatenate, ravel, squeeze, transpose
from irax.numpy._ufuncs import absolute, multiply, subtract, true_divide

_METHODS = ("linear", "lower", "higher", "midpoint", "nearest", "inverted_cdf")


def _axis_tuple(axis, ndim):
    """``axis`` as a tuple of non-negative axes in the given order (None: all)."""
    if axis is None:
        return tuple(range(ndim))
    axes = axis if isinstance(axis, (list, tuple)) else (axis,)
    out = tuple(LU.canonicalize_axis(operator.index(a), ndim) for a in axes)
    if len(set(out)) != len(out):
        raise ValueError(f"repeated axis in {tuple(axis)}")
    return out


# ---- average ------------------------------------------------------------------------------------
def average(a, axis=None, weights=None, returned: bool = False, keepdims: bool = False):
    """The (weighted) mean along ``axis``; with ``returned``, also the sum of the weights."""
    ax = _axis_tuple(axis, U.aval_of(a).ndim)
    if weights is None:
        U.check_arraylike("average", a)
        (a,) = U.promote_dtypes_inexact(a)
        avg = mean(a, axis=axis, keepdims=keepdims)
        n = U.aval_of(a).size if axis is None else math.prod(U.aval_of(a).shape[d] for d in ax)
        wsum = U.full((), n, U.aval_of(avg).dtype)
    else:
        U.check_arraylike("average", a, weights)
        a, w = U.promote_dtypes_inexact(a, weights)
        sa, sw = U.aval_of(a).shape, U.aval_of(w).shape
        if sa != sw:
            if axis is None:
                raise ValueError("Axis must be specified when shapes of a and weights differ.")
            if sw != tuple(sa[d] for d in ax):
                raise ValueError("Shape of weights must be consistent with shape of a along "
                                 "specified axis.")
            w = LU.transpose(w, tuple(int(p) for p in np.argsort(ax)))
            w = LU.reshape(w, tuple(d if i in ax else 1 for i, d in enumerate(sa)))
        wsum = sum_(w, axis=axis, keepdims=keepdims)
        avg = true_divide(sum_(multiply(a, w), axis=axis, keepdims=keepdims), wsum)
    if returned:
        if U.aval_of(avg).shape != U.aval_of(wsum).shape:
            wsum = LU.broadcast_to(wsum, U.aval_of(avg).shape)
        return avg, wsum
    return avg


# ---- quantiles ----------------------------------------------------------------------------------
def _check_q(q):
    dt = U.aval_of(q).dtype
    if dt == np.bool_:
        LE.check_kind("mul", dt, ("integer", "floating", "complexfloating"), 0)
    LE.check_kind("floor", dt, ("floating",))
    if U.aval_of(q).ndim > 1:
        raise ValueError(f"q must be have rank <= 1, got shape {U.aval_of(q).shape}")


def _layout(a, w, axis, keepdims):
    """``a`` (and ``w``) with the reduced axes flattened into the last one; the final shape
    of a keepdims result (or None)."""
    nd = U.aval_of(a).ndim
    shape = U.aval_of(a).shape
    if axis is None:
        keep = [1] * nd if keepdims else None
        a, w = ravel(a), None if w is None else ravel(w)
        return a, w, keep, None
    if isinstance(axis, (list, tuple)):
        axes = _axis_tuple(axis, nd)
        keep = [1 if i in axes else d for i, d in enumerate(shape)] if keepdims else None
        rest = [i for i in range(nd) if i not in axes]
        perm = tuple(rest) + tuple(sorted(axes))
        new = tuple(shape[i] for i in rest) + (math.prod(shape[i] for i in axes),)
        a = LU.reshape(LU.transpose(a, perm), new)
        w = None if w is None else LU.reshape(LU.transpose(w, perm), new)
        return a, w, keep, None
    ax = LU.canonicalize_axis(operator.index(axis), nd)
    perm = tuple(i for i in range(nd) if i != ax) + (ax,)
    a = LU.transpose(a, perm)
    w = None if w is None else LU.transpose(w, perm)
    return a, w, None, ax if keepdims else None


def _gather_last(a_t, idx):
    """``a_t[..., idx]`` per slice: ``a_t`` is ``B + (n,)``, ``idx`` is ``Q + B`` int32."""
    batch = U.aval_of(a_t).shape[:-1]
    n = U.aval_of(a_t).shape[-1]
    ishape = U.aval_of(idx).shape
    nb = math.prod(batch)
    offs = LU.reshape(bind(E.Mul, LS.iota(np.int32, nb), U.full((nb,), n, np.int32)), batch)
    offs = LU.broadcast_in_dim(offs, ishape, tuple(range(len(ishape) - len(batch), len(ishape))))
    return X.gather_1d(ravel(a_t), bind(E.Add, LU.convert(idx, np.int32), offs))


def _expand_q(q, batch):
    qs = U.aval_of(q).shape
    return LU.broadcast_in_dim(q, qs + batch, tuple(range(len(qs))))


def _order_stats(a_t, q, squash):
    """Values and weights of the two order statistics around each quantile ``q``."""
    batch, n = U.aval_of(a_t).shape[:-1], U.aval_of(a_t).shape[-1]
    qd = U.aval_of(q).dtype
    qq = _expand_q(q, batch)
    if squash:
        counts = sum_(bind(E.Not, isnan(a_t)), axis=-1, dtype=qd)
        counts = LU.broadcast_in_dim(counts, U.aval_of(qq).shape,
                                     tuple(range(U.aval_of(q).ndim, U.aval_of(qq).ndim)))
    else:
        counts = U.full(U.aval_of(qq).shape, n, qd)
    one = U.full_like(qq, 1)
    last = bind(E.Sub, counts, one)
    pos = bind(E.Mul, qq, last)
    low, high = bind(E.Floor, pos), bind(E.Ceil, pos)
    hw = bind(E.Sub, pos, low)
    lw = bind(E.Sub, one, hw)
    zero = U.full_like(qq, 0)
    low = bind(E.Max, zero, bind(E.Min, low, last))
    high = bind(E.Max, zero, bind(E.Min, high, last))
    lv = _gather_last(a_t, LU.convert(low, np.int32))
    hv = _gather_last(a_t, LU.convert(high, np.int32))
    return lv, hv, lw, hw


def _interpolate(method, lv, hv, lw, hw):
    qd = U.aval_of(lw).dtype
    if method == "linear":
        return bind(E.Add, bind(E.Mul, LU.convert(lv, qd), lw), bind(E.Mul, LU.convert(hv, qd), hw))
    if method == "lower":
        return lv
    if method == "higher":
        return hv
    if method == "nearest":
        return U.select(U.cmp(hw, U.full_like(hw, 0.5), "LE"), lv, hv)
    return bind(E.Mul, bind(E.Add, lv, hv), U.full_like(lv, 0.5))  # midpoint


def _inverted_cdf(a_t, w, q, squash):
    batch, n = U.aval_of(a_t).shape[:-1], U.aval_of(a_t).shape[-1]
    qd = U.aval_of(q).dtype
    if w is None:
        w = U.full_like(a_t, 1.0, weak=False)
    zero = U.full_like(w, 0)
    bad = bind(E.Or, U.cmp(w, zero, "LT"), isnan(w))
    nan_data = isnan(a_t)
    clean = U.select(bind(E.Or, bad, nan_data), zero, w)
    cum = cumsum(clean, axis=-1)
    total = X.index_axis(cum, len(batch), -1)
    target = multiply(_expand_q(q, batch), total)
    tshape = U.aval_of(target).shape
    big = tshape + (n,)
    cum_b = LU.broadcast_in_dim(cum, big, tuple(range(len(big) - len(batch) - 1, len(big))))
    tgt_b = LU.broadcast_in_dim(target, big, tuple(range(len(tshape))))
    idx = sum_(U.cmp(cum_b, LU.convert(tgt_b, U.aval_of(cum_b).dtype), "LT"), axis=-1,
               dtype=dtypes.default_int_dtype())
    if squash:
        valid = sum_(bind(E.Not, nan_data), axis=-1, dtype=qd)
    else:
        valid = U.full(batch, n, qd)
    limit = LU.convert(bind(E.Sub, valid, U.full_like(valid, 1)), dtypes.default_int_dtype())
    bdims = tuple(range(len(tshape) - len(batch), len(tshape)))
    limit = LU.broadcast_in_dim(limit, tshape, bdims)
    limit = LU.convert(limit, U.aval_of(idx).dtype)
    idx = bind(E.Max, U.full_like(idx, 0), bind(E.Min, idx, limit))
    result = _gather_last(a_t, idx)
    if squash:
        nan_slice = U.cmp(valid, U.full_like(valid, 0), "EQ")
    else:
        nan_slice = any_(nan_data, axis=-1)
    force = bind(E.Or, any_(bad, axis=-1), nan_slice)
    force = LU.broadcast_in_dim(force, tshape, bdims)
    return U.select(force, U.full_like(result, np.nan), result)


def _quantile(name, a, q, axis, method, keepdims, squash, weights):
    if method not in _METHODS:
        raise ValueError("method can only be 'linear', 'lower', 'higher', 'midpoint', 'nearest' "
                         "or 'inverted_cdf'")
    nd = U.aval_of(a).ndim
    w = None
    if weights is not None:
        if dtypes.is_complex(U.aval_of(weights).dtype):
            raise ValueError("Weights cannot be complex types.")
        if method != "inverted_cdf":
            raise NotImplementedError(f"{method} doesn't support weights. Only method "
                                      "'inverted_cdf' supports weights.")
        a, w = U.promote_dtypes_inexact(a, weights)
        sa, sw = U.aval_of(a).shape, U.aval_of(w).shape
        if sw != sa:
            if axis is None:
                raise ValueError("Weights shape must match 'a' shape when axis is None.")
            ax = _axis_tuple(axis, nd)
            if sw != tuple(sa[d] for d in ax):
                raise ValueError(f"Weights shape {sw} must match reduction axes "
                                 f"{tuple(sa[d] for d in ax)}")
            w = LU.broadcast_in_dim(w, sa, ax)
    else:
        (a,) = U.promote_dtypes_inexact(a)
    a_dt = U.aval_of(a).dtype
    if dtypes.is_complex(a_dt):
        raise ValueError("quantile does not support complex input, as the operation is poorly "
                         "defined.")
    a_t, w, keep, keep_axis = _layout(a, w, axis, keepdims)
    q = U.as_array(name, q)
    _check_q(q)
    tshape = U.aval_of(a_t).shape
    if U.aval_of(a_t).size == 0 and tshape[-1] > 0:  # no slices: an empty result, as JAX's
        result = U.full(tuple(U.aval_of(q).shape) + tuple(tshape[:-1]), 0, a_dt)
    else:
        result = _sorted_quantile(a_t, w, q, method, squash)
    qn = U.aval_of(q).ndim
    if keep is not None:
        result = LU.reshape(result, tuple(U.aval_of(q).shape) + tuple(keep))
    elif keep_axis is not None:
        result = LS.expand_dims(result, (qn + keep_axis,))
    return LU.convert(result, a_dt)


def _sorted_quantile(a_t, w, q, method, squash):
    """The quantiles ``q`` of each last-axis slice of ``a_t`` (``Q + B``)."""
    if squash:
        a_t = _where(isnan(a_t), np.nan, a_t)
    else:
        a_t = _where(any_(isnan(a_t), axis=-1, keepdims=True), np.nan, a_t)
    if w is not None:
        a_t, w = LSort.sort_key_val(a_t, w, dimension=-1)
    else:
        a_t = LSort.sort(a_t, dimension=-1)
    if method == "inverted_cdf":
        return _inverted_cdf(a_t, w, q, squash)
    return _interpolate(method, *_order_stats(a_t, q, squash))


def _check_unsupported(name, out, overwrite_input):
    if overwrite_input or out is not None:
        raise ValueError(f"jax.numpy.{name} does not support overwrite_input=True or out != None")


def quantile(a, q, axis=None, out=None, overwrite_input: bool = False, method: str = "linear",
             keepdims: bool = False, *, weights=None):
    """The ``q``-th quantiles (``0 <= q <= 1``, scalar or 1-D) of ``a`` along ``axis``;
    NaN where a slice holds a NaN."""
    U.check_arraylike("quantile", a, q)
    if weights is not None:
        U.check_arraylike("quantile", weights)
    _check_unsupported("quantile", out, overwrite_input)
    return _quantile("quantile", a, q, axis, method, keepdims, False, weights)


def nanquantile(a, q, axis=None, out=None, overwrite_input: bool = False,
                method: str = "linear", keepdims: bool = False, *, weights=None):
    """``quantile`` ignoring NaNs (NaN where a slice is all NaN)."""
    U.check_arraylike("nanquantile", a, q)
    if weights is not None:
        U.check_arraylike("nanquantile", weights)
    _check_unsupported("nanquantile", out, overwrite_input)
    return _quantile("nanquantile", a, q, axis, method, keepdims, True, weights)


def _percent(name, q):
    (q,) = U.promote_dtypes_inexact(U.as_array(name, q))
    return true_divide(q, 100)


def percentile(a, q, axis=None, out=None, overwrite_input: bool = False, method: str = "linear",
               keepdims: bool = False, *, weights=None, out_sharding=None):
    """The ``q``-th percentiles (``0 <= q <= 100``) of ``a`` along ``axis`` (``out_sharding``
    is accepted and ignored: one device)."""
    del out_sharding
    U.check_arraylike("percentile", a, q)
    if weights is not None:
        U.check_arraylike("percentile", weights)
    return quantile(a, _percent("percentile", q), axis=axis, out=out,
                    overwrite_input=overwrite_input, method=method, keepdims=keepdims,
                    weights=weights)


def nanpercentile(a, q, axis=None, out=None, overwrite_input: bool = False,
                  method: str = "linear", keepdims: bool = False, *, weights=None):
    """``percentile`` ignoring NaNs."""
    U.check_arraylike("nanpercentile", a, q)
    if weights is not None:
        U.check_arraylike("nanpercentile", weights)
    return nanquantile(a, _percent("nanpercentile", q), axis=axis, out=out,
                       overwrite_input=overwrite_input, method=method, keepdims=keepdims,
                       weights=weights)


def median(a, axis=None, out=None, overwrite_input: bool = False, keepdims: bool = False):
    """The median along ``axis`` (the midpoint of the middle pair for even counts)."""
    U.check_arraylike("median", a)
    return quantile(a, 0.5, axis=axis, out=out, overwrite_input=overwrite_input,
                    keepdims=keepdims, method="midpoint")


def nanmedian(a, axis=None, out=None, overwrite_input: bool = False, keepdims: bool = False):
    """The median ignoring NaNs."""
    U.check_arraylike("nanmedian", a)
    return nanquantile(a, 0.5, axis=axis, out=out, overwrite_input=overwrite_input,
                       keepdims=keepdims, method="midpoint")


# ---- NaN-ignoring moments and scans -------------------------------------------------------------
def nanvar(a, axis=None, dtype=None, out=None, ddof=0, keepdims: bool = False, where=None,
           mean=None):
    """The variance ignoring NaNs: ``sum((x - nanmean)^2) / (count - ddof)``, NaN when
    ``count <= ddof``."""
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.nanvar is not supported.")
    x = U.as_array("nanvar", a)
    if dtype is not None:
        dtype = dtypes.check_user_dtype(dtype, "nanvar")
    comp, result_dt = _var_types(U.aval_of(x).dtype, dtype)
    x = LU.convert(x, comp)
    if mean is None:
        mu = nanmean(x, axis, dtype=comp, keepdims=True, where=where)
    else:
        mu = LU.convert(U.as_array("nanvar", mean), comp)
    nan = isnan(x)
    centered = _where(nan, 0, subtract(x, mu))
    if dtypes.is_complex(comp):
        centered = real(multiply(centered, conjugate(centered)))
    else:
        centered = multiply(centered, centered)
    count = sum_(bind(E.Not, nan), axis=axis, keepdims=keepdims, where=where)
    count = subtract(count, ddof)
    empty = U.cmp(count, U.full_like(count, 0), "LE")
    total = sum_(centered, axis, keepdims=keepdims, where=where)
    total = _where(empty, np.nan, total)
    divisor = _where(empty, 1, count)
    r = bind(E.Div, total, LU.convert(divisor, U.aval_of(total).dtype))
    return LU.convert(r, result_dt)


def nanstd(a, axis=None, dtype=None, out=None, ddof=0, keepdims: bool = False, where=None,
           mean=None):
    """``sqrt(nanvar(...))``."""
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.nanstd is not supported.")
    v = nanvar(a, axis, dtype, None, ddof, keepdims, where=where, mean=mean)
    return bind(E.Sqrt, v)


def _nan_cumulative(name, fn, fill, a, axis, dtype, out):
    if out is not None:
        raise NotImplementedError(f"The 'out' argument to jnp.{name} is not supported")
    x = U.as_array(name, a)
    if axis is None or U.aval_of(x).ndim == 0:
        x, axis = ravel(x), 0
    if dtypes.is_inexact(U.aval_of(x).dtype):
        x = U.select(isnan(x), U.full_like(x, fill), x)
    return fn(x, axis=axis, dtype=dtype)


def nancumsum(a, axis=None, dtype=None, out=None):
    """``cumsum`` with NaNs taken as 0."""
    return _nan_cumulative("nancumsum", cumsum, 0, a, axis, dtype, out)


def nancumprod(a, axis=None, dtype=None, out=None):
    """``cumprod`` with NaNs taken as 1."""
    return _nan_cumulative("nancumprod", cumprod, 1, a, axis, dtype, out)


# ---- covariance ---------------------------------------------------------------------------------
def _sample_weights(name, w, n, integer):
    w = U.as_array("cov", w)
    if U.aval_of(w).ndim > 1:
        raise RuntimeError(f"cannot handle multidimensional {name}")
    if U.aval_of(w).shape[0] != n:
        raise RuntimeError(f"incompatible numbers of samples and {name}")
    if integer and not dtypes.is_int(U.aval_of(w).dtype):
        raise TypeError("fweights must be integer.")
    return absolute(w)


def _promote_ranks(*xs):
    """JAX's rank promotion of ``promote_args``: leading 1s, no broadcasting."""
    nd = max(U.aval_of(x).ndim for x in xs)
    return [LU.reshape(x, (1,) * (nd - U.aval_of(x).ndim) + U.aval_of(x).shape) for x in xs]


def cov(m, y=None, rowvar: bool = True, bias: bool = False, ddof=None, fweights=None,
        aweights=None, dtype=None):
    """The covariance matrix of the variables in the rows (``rowvar``) or columns of ``m``
    (and ``y``), with frequency and analytic weights."""
    if y is not None:
        U.check_arraylike("cov", m, y)
        m, y = _promote_ranks(*U.promote_dtypes_inexact(m, y))
        if U.aval_of(y).ndim > 2:
            raise ValueError("y has more than 2 dimensions")
    else:
        U.check_arraylike("cov", m)
        (m,) = U.promote_dtypes_inexact(m)
    if U.aval_of(m).ndim > 2:
        raise ValueError("m has more than 2 dimensions")
    if dtype is not None and not dtypes.issubdtype(dtype, np.inexact):
        raise ValueError(f"cov: dtype must be a subclass of float or complex; got dtype={dtype!r}")
    x = atleast_2d(m)
    if not rowvar and U.aval_of(m).ndim != 1:
        x = transpose(x)
    if U.aval_of(x).shape[0] == 0:
        return U.full((0, 0), 0, dtypes.default_float_dtype())
    if y is not None:
        ya = atleast_2d(y)
        if not rowvar and U.aval_of(ya).shape[0] != 1:
            ya = transpose(ya)
        x = concatenate((x, ya), axis=0)
    nv, ns = U.aval_of(x).shape
    if ns == 0:
        return U.full(() if nv == 1 else (nv, nv), np.nan, U.aval_of(x).dtype)
    if ddof is None:
        ddof = 1 if bias == 0 else 0
    w = fw = aw = None
    if fweights is not None:
        fw = _sample_weights("fweights", fweights, ns, True)
        w = fw
    if aweights is not None:
        aw = _sample_weights("aweights", aweights, ns, False)
        w = aw if w is None else multiply(w, aw)
    if dtype is not None:
        dt = dtypes.check_user_dtype(dtype, "cov")
        x = LU.convert(x, dt)
        w = None if w is None else LU.convert(w, dt)
    avg, wsum = average(x, axis=1, weights=w, returned=True)
    wsum = X.index_axis(wsum, 0, 0)
    if w is None:
        f = ns - ddof
    elif ddof == 0:
        f = wsum
    elif aw is None:
        f = subtract(wsum, ddof)
    else:
        f = subtract(wsum, true_divide(multiply(ddof, sum_(multiply(w, aw))), wsum))
    x = subtract(x, LU.reshape(avg, (nv, 1)))
    xt = transpose(x) if w is None else transpose(multiply(x, LU.reshape(w, (1, ns))))
    return squeeze(true_divide(dot(x, conjugate(xt)), f))


def corrcoef(x, y=None, rowvar: bool = True, dtype=None):
    """The Pearson correlation coefficients, clipped to [-1, 1] (real and imaginary parts)."""
    U.check_arraylike("corrcoef", x)
    if dtype is not None and not dtypes.issubdtype(dtype, np.inexact):
        raise ValueError(f"corrcoef: dtype must be a subclass of float or complex; got "
                         f"dtype={dtype!r}")
    c = cov(x, y, rowvar, dtype=dtype)
    if U.aval_of(c).ndim == 0:
        return true_divide(c, c)
    d = diagonal(c)
    std = LU.convert(sqrt(real(d)), U.aval_of(c).dtype)
    n = U.aval_of(std).shape[0]
    c = true_divide(true_divide(c, LU.reshape(std, (n, 1))), LU.reshape(std, (1, n)))
    re = clip(real(c), -1, 1)
    if dtypes.is_complex(U.aval_of(c).dtype):
        im = clip(bind(E.Imag, c), -1, 1)
        return bind(E.Complex, re, im)
    return re
