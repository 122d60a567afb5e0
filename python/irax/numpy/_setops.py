"""Set operations: unique (and unique_all/counts/inverse/values), isin, intersect1d,
setdiff1d, setxor1d, union1d (``jax.numpy`` compatible).

    jnp.unique(x)                               # needs a concrete x
    jnp.unique(x, size=4, fill_value=0)         # fixed size: works under jit
    jnp.isin(x, [1, 2, 3])

Without ``size`` the result shape depends on the values, so a traced (jit, vmap) argument
raises JAX's ``ConcretizationTypeError``; eagerly (also under eager grad) the computation
runs on the concrete value, so, as in JAX, no gradient flows through it. With ``size`` the
result is cut or padded (with ``fill_value``, default the smallest value).
"""

from __future__ import annotations

import math
import operator
from typing import NamedTuple

import numpy as np

from irax.core import dtypes
from irax.core.errors import NonConcreteBooleanIndexError
from irax.dialect import elementwise as E
from irax.frontend.trace import bind
from irax.frontend.tracer import Tracer
from irax.lax import _shape as LS
from irax.lax import _sorting as LSort
from irax.lax import _util as LU
from irax.numpy import _aux as X
from irax.numpy import _util as U
from irax.numpy._indexing import nonzero, take
from irax.numpy._logic import where
from irax.numpy._math import isnan
from irax.numpy._reductions import all as all_
from irax.numpy._reductions import any as any_
from irax.numpy._reductions import cumsum
from irax.numpy._reductions import max as max_
from irax.numpy._reductions import min as min_
from irax.numpy._reductions import sum as sum_
from irax.numpy._searching import lexsort, searchsorted
from irax.numpy._shape import concatenate, moveaxis, ravel

_SIZE_HINT = ("To make jnp.unique() compatible with JIT and other transforms, you can specify a "
              "concrete value for the size argument, which will determine the output size.")


class UniqueAllResult(NamedTuple):
    """What :func:`unique_all` returns."""
    values: object
    indices: object
    inverse_indices: object
    counts: object


class UniqueCountsResult(NamedTuple):
    """What :func:`unique_counts` returns."""
    values: object
    counts: object


class UniqueInverseResult(NamedTuple):
    """What :func:`unique_inverse` returns."""
    values: object
    inverse_indices: object


def _iota(n, dt=None):
    return LS.iota(dtypes.default_int_dtype() if dt is None else dt, n)


def _lt_iota(n, bound):
    """``arange(n) < bound`` for a scalar (possibly traced) integer ``bound``."""
    b = LU.convert(bound, dtypes.default_int_dtype())
    return U.cmp(_iota(n), LU.broadcast_to(b, (n,)), "LT")


def _count_true(mask):
    return sum_(mask, dtype=dtypes.default_int_dtype())


def _host_nonzero(mask):
    """The indices of a concrete 1-D mask, as a host int array."""
    m = X.concrete_value(mask)
    return LU.host_array(np.nonzero(m)[0].astype(dtypes.default_int_dtype()),
                         home=LU.home_of(mask))


# ---- unique -------------------------------------------------------------------------------------
def _neq(equal_nan, inexact):
    def neq(x, y):
        ne = U.cmp(x, y, "NE")
        if equal_nan and inexact:
            ne = bind(E.And, ne, bind(E.Not, bind(E.And, isnan(x), isnan(y))))
        return ne

    return neq


def _sorted_mask(ar, axis, equal_nan):
    """The rows along ``axis`` sorted lexicographically, the first-of-a-run mask, the perm."""
    aux = moveaxis(ar, axis, 0)
    dt = U.aval_of(aux).dtype
    if dtypes.is_complex(dt):  # any NaN part counts as one NaN, as in JAX
        aux = U.select(isnan(aux), U.full_like(aux, complex(np.nan, 0)), aux)
    n, *rest = U.aval_of(aux).shape
    inner = math.prod(rest)
    if inner == 0:
        n = 1
        perm = U.full((1,), 0, dtypes.default_int_dtype())
    elif not rest:  # 1-D: the values travel with the sort (no gather back from the input)
        iota = LS.iota(X.int_dtype_for_dim(n) if n > np.iinfo(np.int32).max else
                       dtypes.default_int_dtype(), n)
        aux, perm = LSort.sort_key_val(aux, iota)
    else:
        rows = LU.reshape(aux, (n, inner))
        keys = [X.index_axis(rows, 1, j) for j in range(inner)][::-1]
        perm = lexsort(keys)
    if rest or inner == 0:
        aux = take(aux, perm, axis=0, mode="clip") if U.aval_of(aux).size else \
            U.full((n, *rest), 0, dt)
    if U.aval_of(aux).size:
        neq = _neq(equal_nan, dtypes.is_inexact(dt))
        diff = neq(X.slice_axis(aux, 0, 1, None), X.slice_axis(aux, 0, None, -1))
        if len(rest):
            diff = any_(diff, axis=tuple(range(1, 1 + len(rest))))
        mask = concatenate([U.full((1,), True, np.bool_), diff])
    else:
        mask = U.full((n,), False, np.bool_)
    return aux, mask, perm


def _unique(ar, axis, return_index=False, return_inverse=False, return_counts=False,
            equal_nan=True, size=None, fill_value=None, return_true_size=False):
    axis = LU.canonicalize_axis(axis, U.aval_of(ar).ndim)
    n_axis = U.aval_of(ar).shape[axis]
    if n_axis == 0 and size and fill_value is None:
        raise ValueError("jnp.unique: for zero-sized input with nonzero size argument, "
                         "fill_value must be specified")
    aux, mask, perm = _sorted_mask(ar, axis, equal_nan)
    has = U.aval_of(aux).size > 0
    if size is None:
        ind = _host_nonzero(mask)
    else:
        ind = nonzero(mask, size=size)[0]
    result = take(aux, ind, axis=0, mode="clip") if has else aux
    if size is not None and fill_value is not None:
        fill = LU.convert(U.as_array("unique", fill_value), U.aval_of(result).dtype)
        rshape = U.aval_of(result).shape
        if rshape[0]:
            valid = LU.broadcast_in_dim(_lt_iota(size, _count_true(mask)), rshape, (0,))
            result = where(valid, result, fill)
        else:
            result = LU.broadcast_to(fill, (size, *rshape[1:]))
    ret = [moveaxis(result, 0, axis)]
    it = dtypes.default_int_dtype()
    if return_index:
        ret.append(take(perm, ind, mode="clip") if has else perm)
    if return_inverse:
        if has:
            imask = bind(E.Sub, cumsum(mask), U.full((U.aval_of(mask).shape[0],), 1, it))
            ret.append(take(imask, X.inverse_permutation(LU.convert(perm, it)), mode="clip"))
        else:
            ret.append(U.full((n_axis,), 0, it))
    if return_counts:
        ret.append(_counts(mask, size, has, n_axis))
    if return_true_size:
        ret.append(_count_true(mask))
    return ret[0] if len(ret) == 1 else tuple(ret)


def _counts(mask, size, has, n_axis):
    it = dtypes.default_int_dtype()
    if not has:
        return U.full((1,), n_axis, it) if n_axis else U.full((0,), 0, it)
    n = U.aval_of(mask).shape[0]
    end = U.full((1,), n, it)
    if size is None:
        idx = concatenate([_host_nonzero(mask), end])
    else:
        idx = nonzero(mask, size=size + 1)[0]
        tail = X.slice_axis(idx, 0, 1, None)
        tail = where(U.cmp(tail, U.full_like(tail, 0), "NE"), tail, n)
        idx = concatenate([X.slice_axis(idx, 0, 0, 1), tail])
    return X.diff1(idx, 0)


def _static_size(size, what):
    if size is None:
        return None
    if isinstance(size, Tracer):
        X.concrete_or_error(size, f"The error arose for the size argument of {what}. "
                            + _SIZE_HINT)
    return operator.index(size if isinstance(size, int) else
                          np.asarray(LU.host_data(size)).item())


def unique(ar, return_index: bool = False, return_inverse: bool = False,
           return_counts: bool = False, axis=None, *, equal_nan: bool = True, size=None,
           fill_value=None, sorted: bool = True):  # noqa: A002 - NumPy's name
    """The sorted unique values of ``ar`` (rows along ``axis``), optionally with the first
    indices, the inverse indices and the counts."""
    del sorted
    arr = U.as_array("unique", ar)
    if size is None:  # JAX computes on the concrete value: no gradient flows
        v = X.concrete_or_error(arr, "The error arose for the first argument of jnp.unique(). "
                                + _SIZE_HINT)
        arr = LU.host_array(v.astype(U.aval_of(arr).dtype), U.aval_of(arr).weak_type,
                            LU.home_of(arr))
    size = _static_size(size, "jnp.unique()")
    shape = U.aval_of(arr).shape
    if axis is None:
        arr, ax = ravel(arr), 0
    else:
        ax = LU.canonicalize_axis(axis, len(shape))
    result = _unique(arr, ax, return_index, return_inverse, return_counts, equal_nan=equal_nan,
                     size=size, fill_value=fill_value)
    if return_inverse and axis is None:
        i = 2 if return_index else 1
        result = (*result[:i], LU.reshape(result[i], shape), *result[i + 1:])
    return result


def unique_all(x, /, *, size=None, fill_value=None):
    """Values, first indices, inverse indices and counts (NaNs are distinct)."""
    U.check_arraylike("unique_all", x)
    return UniqueAllResult(*unique(x, return_index=True, return_inverse=True, return_counts=True,
                                   equal_nan=False, size=size, fill_value=fill_value))


def unique_counts(x, /, *, size=None, fill_value=None):
    U.check_arraylike("unique_counts", x)
    return UniqueCountsResult(*unique(x, return_counts=True, equal_nan=False, size=size,
                                      fill_value=fill_value))


def unique_inverse(x, /, *, size=None, fill_value=None):
    U.check_arraylike("unique_inverse", x)
    return UniqueInverseResult(*unique(x, return_inverse=True, equal_nan=False, size=size,
                                       fill_value=fill_value))


def unique_values(x, /, *, size=None, fill_value=None):
    U.check_arraylike("unique_values", x)
    return unique(x, equal_nan=False, size=size, fill_value=fill_value)


# ---- membership ---------------------------------------------------------------------------------
def _in1d(ar1, ar2, invert, method="auto"):
    U.check_arraylike("in1d", ar1, ar2)
    a1, a2 = U.promote_dtypes(ar1, ar2)
    a1, a2 = ravel(a1), ravel(a2)
    n1, n2 = U.aval_of(a1).shape[0], U.aval_of(a2).shape[0]
    if method not in ("auto", "compare_all", "binary_search", "sort"):
        raise ValueError(f"method={method!r} is not implemented; options are 'compare_all', "
                         "'binary_search', 'sort', and 'auto'")
    if n1 == 0 or n2 == 0:
        return U.full((n1,), invert, np.bool_)
    if method in ("auto", "compare_all"):
        big = (n1, n2)
        x = LU.broadcast_in_dim(a1, big, (0,))
        y = LU.broadcast_in_dim(a2, big, (1,))
        if invert:
            return all_(U.cmp(x, y, "NE"), axis=-1)
        return any_(U.cmp(x, y, "EQ"), axis=-1)
    # 'binary_search' (and 'sort', which gives the same answers): look each value up
    s = LSort.sort(a2)
    found = take(s, searchsorted(s, a1), mode="clip")
    return U.cmp(a1, found, "NE" if invert else "EQ")


def isin(element, test_elements, assume_unique: bool = False, invert: bool = False, *,
         method="auto"):
    """Whether each element of ``element`` is in ``test_elements`` (elementwise bool)."""
    U.check_arraylike("isin", element, test_elements)
    r = _in1d(element, test_elements, invert, method)
    return LU.reshape(r, U.aval_of(element).shape)


# ---- union / difference / xor / intersection ----------------------------------------------------
def union1d(ar1, ar2, *, size=None, fill_value=None):
    """The sorted unique values of both arrays."""
    U.check_arraylike("union1d", ar1, ar2)
    if size is None:
        X.concrete_or_error(ar1, "The error arose in union1d()")
        X.concrete_or_error(ar2, "The error arose in union1d()")
    else:
        size = _static_size(size, "union1d()")
    return unique(concatenate((ar1, ar2), axis=None), size=size, fill_value=fill_value)


def setdiff1d(ar1, ar2, assume_unique: bool = False, *, size=None, fill_value=None):
    """The sorted unique values of ``ar1`` not in ``ar2``."""
    U.check_arraylike("setdiff1d", ar1, ar2)
    a1, a2 = ravel(U.as_array("setdiff1d", ar1)), ravel(U.as_array("setdiff1d", ar2))
    if size is None:
        X.concrete_or_error(a1, "The error arose in setdiff1d()")
    else:
        size = _static_size(size, "setdiff1d()")
    dt = U.aval_of(a1).dtype
    fill = LU.convert(U.as_array("setdiff1d", 0 if fill_value is None else fill_value), dt,
                      U.aval_of(a1).weak_type)
    n1 = U.aval_of(a1).shape[0]
    if n1 == 0:
        return LU.broadcast_to(fill, (size or 0,))
    if not assume_unique:
        a1 = unique(a1, size=size and n1)
    mask = _in1d(a1, a2, invert=True)
    if size is None:
        return take(a1, _host_nonzero(mask), mode="clip")
    if not assume_unique:
        first = LU.broadcast_to(X.index_axis(a1, 0, 0), (n1,))
        n_unique = bind(E.Sub, U.full((), n1 + 1, dtypes.default_int_dtype()),
                        _count_true(U.cmp(a1, first, "EQ")))
        mask = bind(E.And, _lt_iota(n1, n_unique), mask)
    picked = take(a1, nonzero(mask, size=size)[0], mode="clip")
    return where(_lt_iota(size, _count_true(mask)), picked, fill)


def _concat_unique(a1, a2):
    """The unique values of ``a1`` then of ``a2`` (each padded), and their total count."""
    u1, n1 = _unique(a1, 0, size=U.aval_of(a1).size, return_true_size=True)
    u2, n2 = _unique(a2, 0, size=U.aval_of(a2).size, return_true_size=True)
    dt = dtypes.result_type(u1, u2)
    arr = U.full((U.aval_of(u1).size + U.aval_of(u2).size,), 0, dt)
    arr = LS.dynamic_update_slice(arr, LU.convert(u1, dt), (0,))
    arr = LS.dynamic_update_slice(arr, LU.convert(u2, dt), (n1,))
    return arr, bind(E.Add, n1, n2)


def _fill_tail(vals, count, fill_value):
    keep = _lt_iota(U.aval_of(vals).shape[0], count)
    if fill_value is None:
        vals = where(keep, vals, max_(vals))
        return where(keep, vals, min_(vals))
    return where(keep, vals, fill_value)


def _setxor_sized(a1, a2, fill_value, assume_unique, size):
    if U.aval_of(a1).size + U.aval_of(a2).size == 0:
        vals = U.full((size,), 0, U.aval_of(a1).dtype)
        return _fill_tail(vals, U.full((), 0, dtypes.default_int_dtype()), fill_value)
    if assume_unique:
        aux = LSort.sort(concatenate([a1, a2]))
        n = U.aval_of(aux).shape[0]
        diff = U.cmp(X.slice_axis(aux, 0, 1, None), X.slice_axis(aux, 0, None, -1), "NE")
        flag = concatenate([U.full((1,), n > 0, np.bool_), diff, U.full((1,), True, np.bool_)])
    else:
        arr, num = _concat_unique(a1, a2)
        n = U.aval_of(arr).shape[0]
        mask = _lt_iota(n + 1, bind(E.Add, num, U.full((), 1, U.aval_of(num).dtype)))
        _, aux = LSort.sort([bind(E.Not, X.slice_axis(mask, 0, 1, None)), arr], num_keys=2)
        diff = U.cmp(X.slice_axis(aux, 0, 1, None), X.slice_axis(aux, 0, None, -1), "NE")
        flag = concatenate([U.full((1,), n > 0, np.bool_), diff, U.full((1,), False, np.bool_)])
        at_num = U.cmp(_iota(n + 1), LU.broadcast_to(LU.convert(num, dtypes.default_int_dtype()),
                                                      (n + 1,)), "EQ")
        flag = bind(E.And, mask, bind(E.Or, flag, at_num))
    keep = bind(E.And, X.slice_axis(flag, 0, 1, None), X.slice_axis(flag, 0, None, -1))
    count = _count_true(keep)
    if U.aval_of(aux).size:
        idx = nonzero(keep, size=size, fill_value=U.aval_of(aux).size)[0]
        vals = take(aux, idx, mode="fill", fill_value=0)
    else:
        vals = U.full((size,), 0, U.aval_of(aux).dtype)
    return _fill_tail(vals, count, fill_value)


def setxor1d(ar1, ar2, assume_unique: bool = False, *, size=None, fill_value=None):
    """The sorted values in exactly one of the arrays."""
    U.check_arraylike("setxor1d", ar1, ar2)
    a1, a2 = U.promote_dtypes(ravel(ar1), ravel(ar2))
    if size is not None:
        return _setxor_sized(a1, a2, fill_value, assume_unique, _static_size(size, "setxor1d()"))
    if not assume_unique:
        a1, a2 = unique(a1), unique(a2)
    aux = concatenate((a1, a2))
    if U.aval_of(aux).size == 0:
        return aux
    aux = LSort.sort(aux)
    diff = U.cmp(X.slice_axis(aux, 0, 1, None), X.slice_axis(aux, 0, None, -1), "NE")
    flag = concatenate([U.full((1,), True, np.bool_), diff, U.full((1,), True, np.bool_)])
    keep = bind(E.And, X.slice_axis(flag, 0, 1, None), X.slice_axis(flag, 0, None, -1))
    if X.concrete_value(keep) is None:
        raise NonConcreteBooleanIndexError(keep)
    return take(aux, _host_nonzero(keep), mode="clip")


def _sorted_with_mask(a1, a2, return_indices):
    arr = concatenate((a1, a2))
    n = U.aval_of(arr).shape[0]
    if return_indices:
        iota = LS.iota(X.int_dtype_for_dim(n), n)
        aux, indices = LSort.sort_key_val(arr, iota)
    else:
        aux, indices = LSort.sort(arr), None
    mask = U.cmp(X.slice_axis(aux, 0, 1, None), X.slice_axis(aux, 0, None, -1), "EQ")
    return aux, mask, indices


def intersect1d(ar1, ar2, assume_unique: bool = False, return_indices: bool = False, *,
                size=None, fill_value=None):
    """The sorted values in both arrays (and, with ``return_indices``, where each first
    occurs in each array)."""
    U.check_arraylike("intersect1d", ar1, ar2)
    a1, a2 = U.promote_dtypes(ar1, ar2)
    a1, a2 = ravel(a1), ravel(a2)
    if size is not None:
        return _intersect_sized(a1, a2, fill_value, assume_unique,
                                _static_size(size, "intersect1d()"), return_indices)
    ind1 = ind2 = None
    if not assume_unique:
        if return_indices:
            a1, ind1 = unique(a1, return_index=True)
            a2, ind2 = unique(a2, return_index=True)
        else:
            a1, a2 = unique(a1), unique(a2)
    if U.aval_of(a1).size + U.aval_of(a2).size == 0:
        empty_idx = U.full((0,), 0, dtypes.default_int_dtype())
        return (a1, empty_idx, empty_idx) if return_indices else a1
    aux, mask, sort_idx = _sorted_with_mask(a1, a2, return_indices)
    if X.concrete_value(mask) is None:
        raise NonConcreteBooleanIndexError(mask)
    pick = _host_nonzero(mask)
    out = take(aux, pick, mode="clip")
    if not return_indices:
        return out
    i1 = take(sort_idx, pick, mode="clip")
    i2 = bind(E.Sub, take(X.slice_axis(sort_idx, 0, 1, None), pick, mode="clip"),
              U.full_like(i1, U.aval_of(a1).size))
    if not assume_unique:
        i1, i2 = take(ind1, i1, mode="clip"), take(ind2, i2, mode="clip")
    return out, i1, i2


def _intersect_sized(a1, a2, fill_value, assume_unique, size, return_indices):
    it = dtypes.default_int_dtype()
    n1, n2 = U.aval_of(a1).size, U.aval_of(a2).size
    if assume_unique:
        ind1, nu1 = _iota(n1), U.full((), n1, it)
        ind2 = _iota(n2)
        arr = concatenate([a1, a2])
        aux, sort_idx = LSort.sort([arr, _iota(n1 + n2)], num_keys=1)
        mask = U.full((n1 + n2,), True, np.bool_)
    else:
        u1, ind1, nu1 = _unique(a1, 0, size=n1, return_index=True, return_true_size=True,
                                fill_value=0)
        u2, ind2, nu2 = _unique(a2, 0, size=n2, return_index=True, return_true_size=True,
                                fill_value=0)
        dt = dtypes.result_type(u1, u2)
        arr = U.full((n1 + n2,), 0, dt)
        arr = LS.dynamic_update_slice(arr, LU.convert(u1, dt), (0,))
        arr = LS.dynamic_update_slice(arr, LU.convert(u2, dt), (nu1,))
        mask = _lt_iota(n1 + n2, bind(E.Add, nu1, nu2))
        _, aux, sort_idx = LSort.sort([bind(E.Not, mask), arr, _iota(n1 + n2)], num_keys=2)
    total = U.aval_of(aux).size
    same = U.cmp(X.slice_axis(aux, 0, 1, None), X.slice_axis(aux, 0, None, -1), "EQ")
    aux_mask = bind(E.And, same, X.slice_axis(mask, 0, 1, None))
    count = _count_true(aux_mask)
    if total:
        val_idx = nonzero(aux_mask, size=size, fill_value=total)[0]
        vals = take(aux, val_idx, mode="fill", fill_value=0)
    else:
        val_idx = U.full((0,), 0, it)
        vals = U.full((size,), 0, U.aval_of(aux).dtype)
    vals = _fill_tail(vals, count, fill_value)
    if not return_indices:
        return vals
    keep = _lt_iota(U.aval_of(val_idx).shape[0], count)
    i1 = take(sort_idx, val_idx, mode="fill", fill_value=n1)
    i1 = where(keep, i1, n1)
    i2 = bind(E.Sub, take(sort_idx, bind(E.Add, val_idx, U.full_like(val_idx, 1)), mode="fill",
                          fill_value=n2), LU.broadcast_to(LU.convert(nu1, it),
                                                          U.aval_of(val_idx).shape))
    i2 = where(keep, i2, n2)
    if not assume_unique:
        i1 = take(ind1, i1, mode="fill", fill_value=U.aval_of(ind1).size)
        i2 = take(ind2, i2, mode="fill", fill_value=U.aval_of(ind2).size)
    return vals, i1, i2
