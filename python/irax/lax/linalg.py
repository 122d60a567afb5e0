"""irax.lax.linalg: ``jax.lax.linalg``'s factorizations on the decomposition ops.

    l = lax.linalg.cholesky(a)                       # lower factor, a = l @ l^H
    lu, pivots, perm = lax.linalg.lu(a)              # perm: P a = L U
    q, r = lax.linalg.qr(a, full_matrices=False)
    x = lax.linalg.triangular_solve(l, b, left_side=True, lower=True)

No dtype promotion (as in JAX): the operands are float32/64 or complex64/128 matrices with
any leading batch dimensions; integers raise JAX's ``TypeError``.
"""

from __future__ import annotations

import operator

import numpy as np

from irax.core import dtypes
from irax.dialect import linalg_decompositions as D
from irax.frontend.trace import bind
from irax.lax import _elementwise as LE
from irax.lax import _shape as LS
from irax.lax import _util as U

__all__ = ["cholesky", "lu", "lu_pivots_to_permutation", "qr", "triangular_solve"]

# ---- spectral decompositions (part 2): eigh and svd on irax.eigh / irax.svd ----
from irax.lax._linalg_spectral import eigh, svd  # noqa: E402, F401

__all__ += ["eigh", "svd"]


def _operand(name: str, x, position: int = 0):
    """``x`` as an operand: rank >= 2, float or complex (JAX's TypeErrors otherwise)."""
    x = U.as_operand(x)
    a = U.aval_of(x)
    if not dtypes.is_inexact(a.dtype) or np.dtype(a.dtype) not in D.FACTOR_DTYPES:
        raise TypeError(f"{name} does not accept dtype {np.dtype(a.dtype).name} at position "
                        f"{position}. Accepted dtypes at position {position} are subtypes of "
                        "floating, complexfloating.")
    if a.ndim < 2:
        raise TypeError(f"Input {position} to {name} must have rank at least 2, but got "
                        f"shape={a.shape}")
    return x


def _mT(x):
    n = U.aval_of(x).ndim
    return LS.transpose(x, (*range(n - 2), n - 1, n - 2))


def _tril(x, k: int = 0):
    a = U.aval_of(x)
    shape = a.shape[-2:]
    i = LS.broadcasted_iota(np.int32, shape, 0)
    j = LS.broadcasted_iota(np.int32, shape, 1)
    mask = LS.broadcast_in_dim(LE.le(j, LE.add(i, np.int32(k))), a.shape,
                               (a.ndim - 2, a.ndim - 1))
    return LE.select(mask, x, LS.full_like(x, 0))


def symmetrize(x):
    """``(x + x^H) / 2``."""
    xt = _mT(x)
    if dtypes.is_complex(U.aval_of(x).dtype):
        xt = LE.conj(xt)
    return LE.div(LE.add(x, xt), LS.full_like(x, 2))


def cholesky(x, *, symmetrize_input: bool = True):
    """The lower Cholesky factor of Hermitian positive definite matrices (NaNs in the lower
    triangle where the factorization fails) (``jax.lax.linalg.cholesky``)."""
    x = U.as_operand(x)
    dt = U.aval_of(x).dtype
    if symmetrize_input and not dtypes.is_inexact(dt):   # (x + x^H) / 2 is inexact in JAX
        x = U.convert(x, dtypes.to_inexact_dtype(dt))
    x = _operand("cholesky", x)
    a = U.aval_of(x)
    if a.shape[-1] != a.shape[-2]:
        raise ValueError(f"The input to cholesky must be a square matrix. Got shape "
                         f"{a.shape[-2:]}.")
    if symmetrize_input:
        x = symmetrize(x)
    return _tril(bind(D.Cholesky, x))


def triangular_solve(a, b, *, left_side: bool = False, lower: bool = False,
                     transpose_a: bool = False, conjugate_a: bool = False,
                     unit_diagonal: bool = False):
    """``X`` with ``op(a) X = b`` (``left_side``) or ``X op(a) = b`` for triangular ``a``
    (``jax.lax.linalg.triangular_solve``); ``b`` one rank lower than ``a`` is a vector."""
    a = _operand("triangular_solve", a, 0)
    b = U.as_operand(b)
    av, bv = U.aval_of(a), U.aval_of(b)
    if bv.dtype != av.dtype:
        raise TypeError(f"triangular_solve requires arguments to have the same dtypes, got "
                        f"{np.dtype(av.dtype).name}, {np.dtype(bv.dtype).name}")
    conjugate_a = bool(conjugate_a) and dtypes.is_complex(av.dtype)
    singleton = bv.ndim == av.ndim - 1
    if singleton:
        b = LS.expand_dims(b, (bv.ndim if left_side else bv.ndim - 1,))
        bv = U.aval_of(b)
    if av.shape[-1] != av.shape[-2]:
        raise ValueError(f"The first input to triangular_solve must be a square matrix. Got "
                         f"shape {av.shape[-2:]}.")
    common = bv.shape[-2] if left_side else bv.shape[-1]
    if bv.ndim != av.ndim or av.shape[:-2] != bv.shape[:-2] or av.shape[-1] != common:
        raise ValueError(f"Incompatible shapes for arguments to triangular_solve: "
                         f"{av.shape} and {bv.shape}.")
    out = bind(D.TriangularSolve, a, b, left_side=bool(left_side), lower=bool(lower),
               transpose_a=bool(transpose_a), conjugate_a=conjugate_a,
               unit_diagonal=bool(unit_diagonal))
    if singleton:
        out = LS.squeeze(out, (bv.ndim - 1 if left_side else bv.ndim - 2,))
    return out


def lu(x):
    """``(lu, pivots, permutation)`` of the LU decomposition with partial pivoting,
    ``P x = L U`` (``jax.lax.linalg.lu``)."""
    x = _operand("lu", x)
    lu_, pivots, perm = bind(D.Lu, x)
    return lu_, pivots, perm


def lu_pivots_to_permutation(pivots, permutation_size: int):
    """The permutation made by the row swaps ``pivots`` (int32, ``(..., k)``)
    (``jax.lax.linalg.lu_pivots_to_permutation``)."""
    pivots = U.as_operand(pivots)
    a = U.aval_of(pivots)
    size = operator.index(permutation_size)
    if a.ndim < 1:
        raise TypeError(f"Input 0 to lu_pivots_to_permutation must have rank at least 1, but "
                        f"got shape={a.shape}")
    if np.dtype(a.dtype) != np.int32:
        raise TypeError(f"lu_pivots_to_permutation does not accept dtype "
                        f"{np.dtype(a.dtype).name} at position 0. Accepted dtypes at position "
                        "0 are subtypes of int32.")
    if size < a.shape[-1]:
        raise ValueError(f"Output permutation size {size} has to exceed the trailing "
                         f"dimension of the pivots. Got pivots size {a.shape[-1]}")
    return bind(D.LuPivotsToPermutation, pivots, permutation_size=size)


def qr(x, *, pivoting: bool = False, full_matrices: bool = True, use_magma=None):
    """``(q, r)`` of the QR decomposition (``jax.lax.linalg.qr``; no ``pivoting``)."""
    if pivoting:
        raise NotImplementedError("irax.lax.linalg.qr: pivoting=True is not supported")
    x = _operand("qr", x)
    q, r = bind(D.Qr, x, full_matrices=bool(full_matrices))
    return q, r
