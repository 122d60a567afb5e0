"""The products and norms of ``jax.numpy.linalg``: matmul, tensordot, outer, cross,
diagonal, trace, matrix_transpose, vecdot, multi_dot, norm, vector_norm, matrix_norm.

The products are ``irax.numpy``'s over the last axes; the matrix norms of ord 2, -2 and
"nuc" take the singular values (``svdvals``, from the spectral functions).
"""

from __future__ import annotations

import numpy as np

from irax.core import dtypes
from irax.numpy import _util as U
from irax.numpy._einsum import einsum
from irax.numpy._linalg import diagonal as _diagonal
from irax.numpy._linalg import matmul as _matmul
from irax.numpy._linalg import tensordot as _tensordot
from irax.numpy._linalg import trace as _trace
from irax.numpy._logic import not_equal
from irax.numpy._math import conj, real, sqrt
from irax.numpy._math_array import cross as _cross
from irax.numpy._math_array import vecdot as _vecdot
from irax.numpy._reductions import max as max_
from irax.numpy._reductions import min as min_
from irax.numpy._reductions import sum as sum_
from irax.numpy._shape import expand_dims, moveaxis
from irax.numpy._shape import matrix_transpose as _matrix_transpose
from irax.numpy._ufuncs import abs as abs_
from irax.numpy._ufuncs import multiply, power
from irax.numpy.linalg._spectral import svdvals as _svdvals


def _arrays(name: str, *xs):
    U.check_arraylike(name, *xs)
    return [U.as_array(name, x) for x in xs]


def _ndim(x) -> int:
    return U.aval_of(x).ndim


# ---- products ---------------------------------------------------------------------------------
def matmul(x1, x2, /, *, precision=None, preferred_element_type=None):
    """The matrix product (``jax.numpy.linalg.matmul``)."""
    return _matmul(x1, x2, precision=precision, preferred_element_type=preferred_element_type)


def tensordot(x1, x2, /, *, axes=2, precision=None, preferred_element_type=None,
              out_sharding=None):
    """The tensor contraction over ``axes`` (``jax.numpy.linalg.tensordot``)."""
    return _tensordot(x1, x2, axes, precision=precision,
                      preferred_element_type=preferred_element_type)


def outer(x1, x2, /):
    """The outer product of two vectors (``jax.numpy.linalg.outer``)."""
    x1, x2 = _arrays("jnp.linalg.outer", x1, x2)
    if _ndim(x1) != 1 or _ndim(x2) != 1:
        raise ValueError(f"Input arrays must be one-dimensional, but they are "
                         f"x1.ndim={_ndim(x1)} x2.ndim={_ndim(x2)}")
    return multiply(expand_dims(x1, 1), expand_dims(x2, 0))


def cross(x1, x2, /, *, axis=-1):
    """The cross product of 3-vectors along ``axis`` (``jax.numpy.linalg.cross``)."""
    x1, x2 = _arrays("jnp.linalg.cross", x1, x2)
    n1, n2 = U.aval_of(x1).shape[axis], U.aval_of(x2).shape[axis]
    if n1 != 3 or n2 != 3:
        raise ValueError("Both input arrays must be (arrays of) 3-dimensional vectors, but "
                         f"they have x1.shape[axis]={n1} and x2.shape[axis]={n2}")
    return _cross(x1, x2, axis=axis)


def diagonal(x, /, *, offset: int = 0):
    """The diagonals of the last two axes (``jax.numpy.linalg.diagonal``)."""
    (x,) = _arrays("jnp.linalg.diagonal", x)
    return _diagonal(x, offset=offset, axis1=-2, axis2=-1)


def trace(x, /, *, offset: int = 0, dtype=None):
    """The traces of the last two axes (``jax.numpy.linalg.trace``)."""
    (x,) = _arrays("jnp.linalg.trace", x)
    return _trace(x, offset=offset, axis1=-2, axis2=-1, dtype=dtype)


def matrix_transpose(x, /):
    """The last two axes swapped (``jax.numpy.linalg.matrix_transpose``)."""
    (x,) = _arrays("jnp.linalg.matrix_transpose", x)
    if _ndim(x) < 2:
        raise ValueError(f"matrix_transpose requires at least 2 dimensions; got "
                         f"ndim={_ndim(x)}")
    return _matrix_transpose(x)


def vecdot(x1, x2, /, *, axis: int = -1, precision=None, preferred_element_type=None):
    """The conjugated dot product along ``axis`` (``jax.numpy.linalg.vecdot``)."""
    return _vecdot(x1, x2, axis=axis, precision=precision,
                   preferred_element_type=preferred_element_type)


def multi_dot(arrays, *, precision=None):
    """The product of a chain of matrices, in the cheapest order
    (``jax.numpy.linalg.multi_dot``)."""
    arrs = _arrays("jnp.linalg.multi_dot", *arrays)
    if len(arrs) < 2:
        raise ValueError(f"multi_dot requires at least two arrays; got len(arrays)={len(arrs)}")
    shapes = [U.aval_of(a).shape for a in arrs]
    if not (len(shapes[0]) in (1, 2) and len(shapes[-1]) in (1, 2)
            and all(len(s) == 2 for s in shapes[1:-1])):
        raise ValueError("multi_dot: input arrays must all be two-dimensional, except for the "
                         "first and last array which may be 1 or 2 dimensional. Got array "
                         f"shapes {shapes}")
    if any(a[-1] != b[0] for a, b in zip(shapes[:-1], shapes[1:])):
        raise ValueError("multi_dot: last dimension of each array must match first dimension "
                         f"of following array. Got array shapes {shapes}")
    axes = [(i, i + 1) for i in range(len(arrs))]
    if len(shapes[0]) == 1:
        axes[0] = axes[0][1:]
    if len(shapes[-1]) == 1:
        axes[-1] = axes[-1][:1]
    letters = "abcdefghijklmnopqrstuvwxyz"
    subs = ["".join(letters[i] for i in ax) for ax in axes]
    out = letters[axes[0][0]] if len(axes[0]) == 2 else ""
    out += letters[axes[-1][-1]] if len(axes[-1]) == 2 else ""
    return einsum(",".join(subs) + "->" + out, *arrs, optimize="auto", precision=precision)


# ---- norms ------------------------------------------------------------------------------------
def _inexact(name, x):
    U.check_arraylike(name, x)
    return U.promote_dtypes_inexact(x)[0]


def _sqsum(x, axis, keepdims):
    return sqrt(sum_(real(multiply(x, conj(x))), axis=axis, keepdims=keepdims))


def vector_norm(x, /, *, axis=None, keepdims: bool = False, ord=2):
    """The vector ``ord``-norm over ``axis`` (all axes: the flattened array)
    (``jax.numpy.linalg.vector_norm``)."""
    (x,) = _arrays("jnp.linalg.vector_norm", x)   # no promotion (as JAX)
    if ord is None or (not isinstance(ord, str) and ord == 2):
        return _sqsum(x, axis, keepdims)
    if isinstance(ord, str):
        msg = f"Invalid order '{ord}' for vector norm."
        if ord == "inf":
            msg += "Use 'jax.numpy.inf' instead."
        if ord == "-inf":
            msg += "Use '-jax.numpy.inf' instead."
        raise ValueError(msg)
    if ord == np.inf:
        return max_(abs_(x), axis=axis, keepdims=keepdims, initial=0)
    if ord == -np.inf:
        return min_(abs_(x), axis=axis, keepdims=keepdims)
    if ord == 0:
        dt = U.aval_of(x).dtype
        rdt = dtypes.real_dtype(dt) if dtypes.is_complex(dt) else dt
        return sum_(not_equal(x, 0), dtype=rdt, axis=axis, keepdims=keepdims)
    if ord == 1:
        return sum_(abs_(x), axis=axis, keepdims=keepdims)
    ax = abs_(x)
    rdt = U.aval_of(ax).dtype
    p = np.asarray(ord, rdt)
    return power(sum_(power(ax, p), axis=axis, keepdims=keepdims),
                 np.asarray(1.0 / p, rdt))


def _matrix_norm_axes(x, ord, row, col, keepdims):
    if ord is None or ord in ("f", "fro"):
        return _sqsum(x, (row, col), keepdims)
    if ord in (1, -1):
        c = col - 1 if not keepdims and col > row else col
        red = max_ if ord == 1 else min_
        extra = {"initial": 0} if ord == 1 else {}
        return red(sum_(abs_(x), axis=row, keepdims=keepdims), axis=c, keepdims=keepdims,
                   **extra)
    if ord in (np.inf, -np.inf):
        r = row - 1 if not keepdims and row > col else row
        red = max_ if ord == np.inf else min_
        extra = {"initial": 0} if ord == np.inf else {}
        return red(sum_(abs_(x), axis=col, keepdims=keepdims), axis=r, keepdims=keepdims,
                   **extra)
    if ord in ("nuc", 2, -2):
        s = _svdvals(moveaxis(x, (row, col), (-2, -1)))
        if ord == 2:
            y = max_(s, axis=-1, initial=0)
        elif ord == -2:
            y = min_(s, axis=-1)
        else:
            y = sum_(s, axis=-1)
        return expand_dims(y, (row, col)) if keepdims else y
    raise ValueError(f"Invalid order '{ord}' for matrix norm.")


def _canonical_axis(axis, nd):
    a = int(axis)
    if not -nd <= a < nd:
        raise ValueError(f"axis {a} is out of bounds for array of dimension {nd}")
    return a % nd


def norm(x, ord=None, axis=None, keepdims: bool = False):
    """The vector or matrix norm (``jax.numpy.linalg.norm``): a vector norm over one axis,
    a matrix norm over two; ``axis`` None: the whole array (ord None) or its 1 or 2 axes."""
    x = _inexact("jnp.linalg.norm", x)
    nd = _ndim(x)
    if axis is None:
        if ord is None:
            return _sqsum(x, None, keepdims)
        axis = tuple(range(nd))
    elif isinstance(axis, tuple):
        axis = tuple(_canonical_axis(a, nd) for a in axis)
    else:
        axis = (_canonical_axis(axis, nd),)
    if len(axis) == 1:
        return vector_norm(x, ord=2 if ord is None else ord, axis=axis, keepdims=keepdims)
    if len(axis) == 2:
        return _matrix_norm_axes(x, ord, axis[0], axis[1], keepdims)
    raise ValueError(f"Improper number of axes for norm: axis={axis}. Pass one axis to "
                     "compute a vector-norm, or two axes to compute a matrix-norm.")


def matrix_norm(x, /, *, keepdims: bool = False, ord="fro"):
    """The matrix ``ord``-norm over the last two axes (``jax.numpy.linalg.matrix_norm``)."""
    U.check_arraylike("jnp.linalg.matrix_norm", x)
    return norm(x, ord=ord, keepdims=keepdims, axis=(-2, -1))
