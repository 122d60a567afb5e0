"""Index tricks and index builders (``jax.numpy`` compatible): ``mgrid``, ``ogrid``, ``r_``,
``c_``, ``s_``, ``index_exp``, ``ix_``, ``indices``, ``meshgrid``, ``diag_indices``,
``tril_indices``/``triu_indices`` (and ``_from``), ``mask_indices``, ``unravel_index`` and
``ravel_multi_index``.

    jnp.mgrid[0:3, 0:2]          # dense (2, 3, 2) grid; a complex step is a point count
    jnp.r_[1, 2, jnp.arange(3)]  # concatenation along the first axis ('0,2' directives too)
    jnp.unravel_index(7, (2, 4)) # out-of-range flat indices clamp into the shape

Shapes and slice bounds must be concrete; the triangle indices are host constants.
"""

from __future__ import annotations

import math
import operator

import numpy as np

from irax.core import dtypes
from irax.core.errors import ConcretizationTypeError
from irax.frontend.tracer import Tracer
from irax.lax import _shape as LS
from irax.lax import _util as LU
from irax.numpy import _util as U
from irax.numpy._creation import arange, array, asarray, linspace, ones
from irax.numpy._indexing import nonzero
from irax.numpy._logic import clip, where
from irax.numpy._shape import concatenate, expand_dims, stack, transpose
from irax.numpy._ufuncs import add, multiply, remainder
from irax.numpy._ufuncs import divmod as divmod_

s_ = np.s_
index_exp = np.index_exp


def _concrete(x, context: str):
    if isinstance(x, Tracer):
        raise ConcretizationTypeError(x, context)
    return x


def _concrete_index(x, context: str) -> int:
    return operator.index(_concrete(x, context))


# ---- grids -------------------------------------------------------------------------------------
def meshgrid(*xi, copy: bool = True, sparse: bool = False, indexing: str = "xy"):
    """Coordinate arrays from 1-D coordinate vectors (a list; ``indexing`` 'xy' or 'ij')."""
    U.check_arraylike("meshgrid", *xi)
    args = [U.as_array("meshgrid", x) for x in xi]
    if not copy:
        raise ValueError("jax.numpy.meshgrid only supports copy=True")
    if indexing not in ("xy", "ij"):
        raise ValueError(f"Valid values for indexing are 'xy' and 'ij', got {indexing}")
    if any(U.aval_of(a).ndim != 1 for a in args):
        raise ValueError("Arguments to jax.numpy.meshgrid must be 1D, got shapes "
                         f"{[U.aval_of(a).shape for a in args]}")
    swap = indexing == "xy" and len(args) >= 2
    if swap:
        args[0], args[1] = args[1], args[0]
    sizes = [U.aval_of(a).shape[0] for a in args]
    out = []
    for i, a in enumerate(args):
        shape = [1] * len(args) if sparse else list(sizes)
        shape[i] = sizes[i]
        out.append(LU.broadcast_in_dim(a, shape, (i,)))
    if swap:
        out[0], out[1] = out[1], out[0]
    return out


def ix_(*args):
    """Open-mesh index arrays: argument ``i`` gets shape ``(1, ..., n_i, ..., 1)``."""
    U.check_arraylike("ix", *args)
    arrs = [U.as_array("ix", a) for a in args]
    out = []
    for i, a in enumerate(arrs):
        av = U.aval_of(a)
        if av.ndim != 1:
            raise ValueError(f"Arguments to jax.numpy.ix_ must be 1-dimensional, got shape "
                             f"{av.shape}")
        if av.dtype == np.bool_:
            raise NotImplementedError("Boolean arguments to jax.numpy.ix_ are not implemented")
        shape = [1] * len(arrs)
        shape[i] = av.shape[0]
        if av.size == 0:
            out.append(U.full(shape, 0, dtypes.canonicalize_dtype(np.intp)))
        else:
            out.append(LU.broadcast_in_dim(a, shape, (i,)))
    return tuple(out)


def indices(dimensions, dtype=None, sparse: bool = False):
    """The index grid of an array of shape ``dimensions`` (stacked, or sparse: a tuple)."""
    dt = dtypes.check_user_dtype(int if dtype is None else dtype, "indices")
    dims = tuple(_concrete_index(d, "dimensions argument of jnp.indices") for d in dimensions)
    out = []
    for i, n in enumerate(dims):
        shape = (1,) * i + (n,) + (1,) * (len(dims) - i - 1) if sparse else dims
        out.append(LU.broadcast_in_dim(LS.iota(dt, n), shape, (i,)))
    if sparse:
        return tuple(out)
    return stack(out, 0) if out else U.full((0,), 0, dt)


def _grid_1d(s: slice, op_name: str):
    start = _concrete(s.start, f"slice start of jnp.{op_name}") or 0
    stop = _concrete(s.stop, f"slice stop of jnp.{op_name}")
    step = _concrete(s.step, f"slice step of jnp.{op_name}") or 1
    if np.iscomplex(step):
        return linspace(start, stop, int(abs(step)))
    return arange(start, stop, step)


class _Mgrid:
    """``mgrid[a:b:s, ...]``: a dense mesh grid, stacked (``jax.numpy.mgrid``)."""

    def __getitem__(self, key):
        if isinstance(key, slice):
            return _grid_1d(key, "mgrid")
        grids = U.promote_dtypes(*(_grid_1d(k, "mgrid") for k in key))
        out = meshgrid(*grids, indexing="ij", sparse=False)
        return stack(out, 0) if out else arange(0)


class _Ogrid:
    """``ogrid[a:b:s, ...]``: an open (sparse) mesh grid, a list (``jax.numpy.ogrid``)."""

    def __getitem__(self, key):
        if isinstance(key, slice):
            return _grid_1d(key, "ogrid")
        grids = U.promote_dtypes(*(_grid_1d(k, "ogrid") for k in key))
        return meshgrid(*grids, indexing="ij", sparse=True)


mgrid = _Mgrid()
ogrid = _Ogrid()


class _AxisConcat:
    """Concatenation by index syntax; a leading string ``'axis,ndmin,trans1d'`` (or 'r'/'c')
    changes how items are joined, as NumPy's ``r_``."""

    axis = 0
    ndmin = 1
    trans1d = -1
    op_name = "r_"

    def __getitem__(self, key):
        items = key if isinstance(key, tuple) else (key,)
        params = [self.axis, self.ndmin, self.trans1d, -1]
        if isinstance(items[0], str):
            params = self._directive(items[0], params)
            items = items[1:]
        axis, ndmin, trans1d, matrix = params
        out = []
        for item in items:
            if isinstance(item, slice):
                obj, item_ndim = _grid_1d(item, self.op_name), 0
            elif isinstance(item, str):
                raise ValueError("string directive must be placed at the beginning")
            else:
                obj = array(item)
                item_ndim = U.aval_of(obj).ndim
            obj = array(obj, ndmin=ndmin)
            if trans1d != -1 and ndmin - item_ndim > 0:
                order = tuple(range(ndmin))
                shift = ndmin - abs(ndmin + trans1d + 1) % ndmin
                obj = transpose(obj, order[shift:] + order[:shift])
            out.append(obj)
        res = concatenate(tuple(out), axis=axis)
        if matrix != -1 and U.aval_of(res).ndim == 1:
            res = expand_dims(res, matrix)
        return res

    @staticmethod
    def _directive(directive: str, params):
        if directive == "r":
            return params[:3] + [0]
        if directive == "c":
            return params[:3] + [1]
        vec = directive.split(",")
        vec = vec + params[len(vec):] if len(vec) < 4 else vec[:3] + [params[-1]]
        try:
            return [int(v) for v in vec]
        except ValueError as err:
            raise ValueError(f"could not understand directive {directive!r}") from err

    def __len__(self) -> int:
        return 0


class RClass(_AxisConcat):
    """``r_[...]``: concatenation along the first axis (``jax.numpy.r_``)."""


class CClass(_AxisConcat):
    """``c_[...]``: concatenation along the last axis, 1-D items as columns
    (``jax.numpy.c_``)."""

    axis = -1
    ndmin = 2
    trans1d = 0
    op_name = "c_"


r_ = RClass()
c_ = CClass()


# ---- diagonal and triangle indices -----------------------------------------------------------
def diag_indices(n: int, ndim: int = 2):
    """The indices of the main diagonal of an ``n``-sided array of rank ``ndim``."""
    n = _concrete_index(n, "'n' argument of jnp.diag_indices()")
    ndim = _concrete_index(ndim, "'ndim' argument of jnp.diag_indices()")
    if n < 0:
        raise ValueError(f"n argument to diag_indices must be nonnegative, got {n}")
    if ndim < 0:
        raise ValueError(f"ndim argument to diag_indices must be nonnegative, got {ndim}")
    dt = dtypes.default_int_dtype() if n <= np.iinfo(np.int32).max else \
        dtypes.canonicalize_dtype(np.int64)
    return (LS.iota(dt, n),) * ndim


def diag_indices_from(arr):
    """``diag_indices`` for the (equal-sided, at least 2-D) shape of ``arr``."""
    x = U.as_array("diag_indices_from", arr)
    s = U.aval_of(x).shape
    if len(s) < 2:
        raise ValueError("input array must be at least 2-d")
    if len(set(s)) != 1:
        raise ValueError("All dimensions of input must be of equal length")
    return diag_indices(s[0], ndim=len(s))


def _tri_args(n, k, m):
    n = _concrete_index(n, "n argument of jnp.triu_indices")
    k = _concrete_index(k, "k argument of jnp.triu_indices")
    m = n if m is None else _concrete_index(m, "m argument of jnp.triu_indices")
    return n, k, m


def _index_pair(rows, cols):
    it = dtypes.default_int_dtype()
    return LU.host_array(rows.astype(it)), LU.host_array(cols.astype(it))


def triu_indices(n, k=0, m=None):
    """Row and column indices of the upper triangle (from diagonal ``k``), row-major."""
    n, k, m = _tri_args(n, k, m)
    return _index_pair(*np.nonzero(~np.tri(n, m, k - 1, dtype=bool)))


def tril_indices(n, k=0, m=None):
    """Row and column indices of the lower triangle (to diagonal ``k``), row-major."""
    n, k, m = _tri_args(n, k, m)
    return _index_pair(*np.nonzero(np.tri(n, m, k, dtype=bool)))


def _shape_2d(arr, name):
    shape = arr.shape if hasattr(arr, "shape") else U.aval_of(U.as_array(name, arr)).shape
    if len(shape) != 2:
        raise ValueError("Only 2-D inputs are accepted")
    return shape


def triu_indices_from(arr, k: int = 0):
    s = _shape_2d(arr, "triu_indices_from")
    return triu_indices(s[0], k=k, m=s[1])


def tril_indices_from(arr, k: int = 0):
    s = _shape_2d(arr, "tril_indices_from")
    return tril_indices(s[0], k=k, m=s[1])


def mask_indices(n: int, mask_func, k: int = 0, *, size: int | None = None):
    """``nonzero(mask_func(ones((n, n)), k), size=size)``."""
    i, j = nonzero(mask_func(ones((n, n)), k), size=size)
    return i, j


# ---- flat and multi-dimensional indices -------------------------------------------------------
def unravel_index(indices, shape):
    """The coordinates in ``shape`` of flat ``indices``; out-of-range indices clamp."""
    idx = U.as_array("unravel_index", indices)
    try:
        shape = list(shape)
    except TypeError:
        shape = [shape]
    if any(np.ndim(s) != 0 for s in shape):
        raise ValueError("unravel_index: shape should be a scalar or 1D sequence.")
    out = [None] * len(shape)
    for i in reversed(range(len(shape))):
        idx, out[i] = divmod_(idx, shape[i])
    too_big = U.cmp(idx, U.full_like(idx, 0), "GT")
    unsigned = dtypes.is_unsigned(U.aval_of(idx).dtype)
    too_small = None if unsigned else U.cmp(idx, U.full_like(idx, -1), "LT")
    res = []
    for s, i in zip(shape, out):
        low = i if too_small is None else where(too_small, 0, i)
        res.append(where(too_big, s - 1, low))
    return tuple(res)


def _check_ravel_dtype(multi, dims, dtype):
    if dtype is None:
        dt = dtypes.result_type(int, *multi)
    else:
        dt = dtypes.check_user_dtype(dtype, "ravel_multi_index")
    if not dtypes.is_int(dt):
        raise ValueError(f"dtype={dt!r} is not an integer type.")
    if math.prod(dims) - 1 > dtypes.iinfo(dt).max:
        raise ValueError(f"jnp.ravel_multi_index: dtype={dt!r} not large enough to hold "
                         f"flattened index for dims={dims}. Use the dtype argument to pass a "
                         "suitable dtype (e.g. dtype=np.min_scalar_type(prod(dims))).")
    return dt


def ravel_multi_index(multi_index, dims, mode: str = "raise", order: str = "C", *,
                      dtype=None):
    """Flat indices of the coordinate arrays ``multi_index`` in an array of shape ``dims``;
    ``mode`` 'raise' (concrete indices only), 'wrap', 'clip' or 'ignore'."""
    assert len(multi_index) == len(dims), \
        f"len(multi_index)={len(multi_index)} != len(dims)={len(dims)}"
    dims = tuple(_concrete_index(d, "in `dims` argument of ravel_multi_index().") for d in dims)
    U.check_arraylike("ravel_multi_index", *multi_index)
    multi = [U.as_array("ravel_multi_index", i) for i in multi_index]
    dt = _check_ravel_dtype(multi, dims, dtype)
    for i in multi:
        if mode == "raise":
            _concrete(i, "The error occurred because ravel_multi_index was jit-compiled with "
                         "mode='raise'. Use mode='wrap' or mode='clip' instead.")
        if not dtypes.is_int(U.aval_of(i).dtype):
            raise TypeError("only int indices permitted")
    if mode == "raise":
        for i, d in zip(multi, dims):
            v = np.asarray(LU.host_data(i))
            if np.any((v < 0) | (v >= d)):
                raise ValueError("invalid entry in coordinates array")
    elif mode == "clip":
        multi = [clip(i, 0, d - 1) for i, d in zip(multi, dims)]
    elif mode == "wrap":
        multi = [remainder(i, d) for i, d in zip(multi, dims)]
    elif mode != "ignore":
        raise ValueError(f"invalid mode={mode!r}. Expected 'raise', 'wrap', 'clip', or 'ignore'.")
    if order == "F":
        strides = np.cumprod((1,) + dims[:-1])
    elif order == "C":
        strides = np.cumprod((1,) + dims[1:][::-1])[::-1]
    else:
        raise ValueError(f"invalid order={order!r}. Expected 'C' or 'F'")
    result = asarray(0, dtype=dt)
    for i, s in zip(multi, strides):
        result = add(result, multiply(LU.convert(i, dt), int(s)))
    return result

