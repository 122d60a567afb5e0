"""Matrix builders: ``diag``, ``diagflat``, ``tril``, ``triu``, ``kron``, ``vander`` and
``fill_diagonal`` (``jax.numpy`` compatible).

    jnp.diag(v, k=1)            # a matrix with v on diagonal 1; of a matrix, its diagonal
    jnp.tril(m, k=-1)           # zeros above diagonal -1 (any leading batch dims)
    jnp.fill_diagonal(a, 7, inplace=False)

The masks (``tri``, ``eye``) are host constants of static shape; the values go through
``select``, so every function is differentiable in its array arguments and batches.
"""

from __future__ import annotations

import builtins
import math
import operator

import numpy as np

from irax.core.errors import ConcretizationTypeError
from irax.frontend.tracer import Tracer
from irax.lax import _elementwise as LE
from irax.lax import _shape as LS
from irax.lax import _util as LU
from irax.numpy import _util as U
from irax.numpy._creation import tri_mask
from irax.numpy._linalg import diagonal
from irax.numpy._shape import concatenate, ravel, stack, tile
from irax.numpy._ufuncs import multiply


def _static_int(x, what: str) -> int:
    if isinstance(x, Tracer):
        raise ConcretizationTypeError(x, what)
    return operator.index(x)


def _masked(mask, x, zero_where_true: bool = False):
    """``x`` where the mask (a host array, or traced for symbolic sizes; broadcast over
    leading dims) is True, else 0."""
    a = U.aval_of(x)
    if isinstance(mask, np.ndarray):
        mask = LU.host_array(np.asarray(mask, bool))
    m = LU.broadcast_to(mask, a.shape)
    zeros = U.full_like(x, 0, weak=a.weak_type)
    return U.select(m, zeros, x) if zero_where_true else U.select(m, x, zeros)


def tril(m, k: int = 0):
    """``m`` with the elements above diagonal ``k`` zeroed (of the last two axes)."""
    x = U.as_array("tril", m)
    s = U.aval_of(x).shape
    if len(s) < 2:
        raise ValueError("Argument to jax.numpy.tril must be at least 2D")
    return _masked(tri_mask(s[-2], s[-1], operator.index(k)), x)


def triu(m, k: int = 0):
    """``m`` with the elements below diagonal ``k`` zeroed (of the last two axes)."""
    x = U.as_array("triu", m)
    s = U.aval_of(x).shape
    if len(s) < 2:
        raise ValueError("Argument to jax.numpy.triu must be at least 2D")
    return _masked(tri_mask(s[-2], s[-1], operator.index(k) - 1), x, True)


def diag(v, k: int = 0):
    """The matrix with the 1-D ``v`` on diagonal ``k``, or diagonal ``k`` of the 2-D ``v``."""
    x = U.as_array("diag", v)
    k = operator.index(k)
    s = U.aval_of(x).shape
    if len(s) == 2:
        return diagonal(x, offset=k)
    if len(s) != 1:
        raise ValueError("diag input must be 1d or 2d")
    n = s[0] + builtins.abs(k)
    zero = U.full((), 0, U.aval_of(x).dtype, U.aval_of(x).weak_type)
    col = LS.pad(x, zero, [(builtins.max(0, -k), builtins.max(0, k), 0)])
    col = LU.broadcast_in_dim(col, (n, n), (0,))
    return U.select(LU.host_array(np.eye(n, k=k, dtype=bool)), col, U.full_like(col, 0))


def diagflat(v, k: int = 0):
    """The 2-D array with the flattened ``v`` on diagonal ``k`` (a strongly typed result)."""
    U.check_arraylike("diagflat", v)
    x = ravel(U.as_array("diagflat", v))
    out = diag(x, operator.index(k))
    return LU.convert(out, U.aval_of(out).dtype, weak=False)


def kron(a, b):
    """The Kronecker product of ``a`` and ``b`` (after promotion; ranks padded with 1s)."""
    U.check_arraylike("kron", a, b)
    a, b = U.promote_dtypes(U.as_array("kron", a), U.as_array("kron", b))
    sa, sb = U.aval_of(a).shape, U.aval_of(b).shape
    nd = builtins.max(len(sa), len(sb))
    sa, sb = (1,) * (nd - len(sa)) + sa, (1,) * (nd - len(sb)) + sb
    a2 = LU.reshape(a, tuple(d for n in sa for d in (n, 1)))
    b2 = LU.reshape(b, tuple(d for n in sb for d in (1, n)))
    big = tuple(d for p, q in zip(sa, sb) for d in (p, q))
    prod = multiply(LU.broadcast_to(a2, big), LU.broadcast_to(b2, big))
    return LU.reshape(prod, tuple(p * q for p, q in zip(sa, sb)))


def vander(x, N: int | None = None, increasing: bool = False):
    """The Vandermonde matrix of the 1-D ``x``: columns ``x**(N-1), ..., x**0`` (or
    increasing powers)."""
    v = U.as_array("vander", x)
    a = U.aval_of(v)
    if a.ndim != 1:
        raise ValueError("x must be a one-dimensional array")
    N = a.shape[0] if N is None else _static_int(N, "'N' argument of jnp.vander()")
    if N < 0:
        raise ValueError("N must be nonnegative")
    powers = range(N) if increasing else range(N - 1, -1, -1)
    if N == 0 or a.shape[0] == 0:
        return U.full((a.shape[0], N), 0, a.dtype)
    # integer_pow per column, not `power` with an array of float exponents: IREE's powf is
    # NaN for negative bases even at integral exponents (JAX's XLA pow is not).
    cols = [LU.convert(LE.integer_pow(v, p), a.dtype, weak=False) for p in powers]
    return stack(cols, 1)


def _tile_to_size(x, size: int):
    """The 1-D ``x`` repeated (and cut) to length ``size`` (JAX's ``_tile_to_size``)."""
    n = U.aval_of(x).shape[0]
    if n < size:
        x = tile(x, math.ceil(size / n))
    return LS.slice(x, (0,), (size,)) if U.aval_of(x).shape[0] > size else x


def fill_diagonal(a, val, wrap: bool = False, *, inplace: bool = True):
    """``a`` with its main diagonal (all indices equal) set to ``val`` (cycled), as a new
    array: JAX arrays are immutable, so ``inplace=False`` is required."""
    if inplace:
        raise NotImplementedError("JAX arrays are immutable, must use inplace=False")
    if wrap:
        raise NotImplementedError("wrap=True is not implemented, must use wrap=False")
    U.check_arraylike("fill_diagonal", a, val)
    x = U.as_array("fill_diagonal", a)
    ax = U.aval_of(x)
    if ax.ndim < 2:
        raise ValueError("array must be at least 2-d")
    if ax.ndim > 2 and any(n != ax.shape[0] for n in ax.shape[1:]):
        raise ValueError("All dimensions of input must be of equal length")
    n = builtins.min(ax.shape)
    if ax.size == 0:
        return x
    vals = LU.convert(U.as_array("fill_diagonal", val), ax.dtype, ax.weak_type)
    mask = np.ones(ax.shape, bool)
    grids = np.indices(ax.shape, sparse=True)
    for g in grids[1:]:
        mask &= grids[0] == g
    if U.aval_of(vals).ndim == 0:
        column = LU.broadcast_to(vals, ax.shape)
    else:
        column = _tile_to_size(ravel(vals), n)
        if ax.shape[0] > n:
            filler = U.full((ax.shape[0] - n,), 0, ax.dtype, ax.weak_type)
            column = concatenate([column, filler])
        column = LU.broadcast_in_dim(column, ax.shape, (0,))
    return U.select(LU.host_array(mask), column, x)

