"""``eigh`` and ``svd`` of ``jax.lax.linalg`` on the ``irax.eigh`` and ``irax.svd`` ops.

    v, w = lax.linalg.eigh(x)                      # x = v @ diag(w) @ v^H, w ascending
    u, s, vh = lax.linalg.svd(x, full_matrices=False)
    s = lax.linalg.svd(x, compute_uv=False)
"""

from __future__ import annotations

from irax.core import dtypes
from irax.dialect import elementwise as E
from irax.dialect.linalg_spectral import Eigh, Svd
from irax.frontend.trace import bind
from irax.lax import _util as U
from irax.lax._elementwise import conj_raw


def _matrix_operand(name: str, x):
    """``x`` as an operand of rank >= 2 (JAX's TypeError otherwise)."""
    x = U.as_operand(x)
    a = U.aval_of(x)
    if a.ndim < 2:
        raise TypeError(f"Input 0 to {name} must have rank at least 2, but got "
                        f"shape={a.shape}")
    return x


def _check_inexact(name: str, x):
    dt = U.aval_of(x).dtype
    if not dtypes.is_inexact(dt) or dt.itemsize < 4:
        raise TypeError(f"{name} does not accept dtype {dtypes.short_name(dt)} at position 0. "
                        f"Accepted dtypes at position 0 are subtypes of floating, "
                        f"complexfloating.")


def adjoint(x):
    """The conjugate transpose of the matrices ``x`` (trailing two dims)."""
    n = U.aval_of(x).ndim
    t = U.transpose(x, (*range(n - 2), n - 1, n - 2))
    return conj_raw(t) if dtypes.is_complex(U.aval_of(x).dtype) else t


def symmetrize(x):
    """``(x + x^H) / 2`` (``jax.lax.linalg.symmetrize``)."""
    return bind(E.Div, bind(E.Add, x, adjoint(x)), U.full_like(x, 2, weak=False))


def _check_subset(subset_by_index, k: int) -> None:
    if subset_by_index is not None and tuple(subset_by_index) != (0, k):
        raise NotImplementedError("subset_by_index not supported on CPU and GPU")


def eigh(x, *, lower: bool = True, symmetrize_input: bool = True,
         sort_eigenvalues: bool = True, subset_by_index=None, implementation=None):
    """``(v, w)``: eigenvectors (columns) and ascending eigenvalues of Hermitian matrices
    (``jax.lax.linalg.eigh``). Without ``symmetrize_input`` only the ``lower`` (or upper)
    triangle is read. Eigenvalues are always sorted."""
    del sort_eigenvalues, implementation
    x = _matrix_operand("eigh", x)
    a = U.aval_of(x)
    if a.shape[-1] != a.shape[-2]:
        # JAX: symmetrizing fails to add x and x^H (TypeError), else its shape rule fails
        err = TypeError if symmetrize_input else ValueError
        raise err("Argument to symmetric eigendecomposition must have shape [..., n, n], "
                  f"got shape {a.shape}")
    if symmetrize_input and not dtypes.is_inexact(a.dtype):
        x = U.convert(x, dtypes.to_inexact_dtype(a.dtype))
    _check_inexact("eigh", x)
    _check_subset(subset_by_index, a.shape[-1])
    if symmetrize_input:
        x = symmetrize(x)
    v, w = bind(Eigh, x, lower=bool(lower))
    return v, w


def svd(x, *, full_matrices: bool = True, compute_uv: bool = True, subset_by_index=None,
        algorithm=None):
    """``(u, s, vh)`` with ``x = u @ diag(s) @ vh`` and ``s`` descending, or ``s`` alone
    without ``compute_uv`` (``jax.lax.linalg.svd``)."""
    del algorithm
    x = _matrix_operand("svd", x)
    _check_inexact("svd", x)
    m, n = U.aval_of(x).shape[-2:]
    if subset_by_index is not None and full_matrices and \
            tuple(subset_by_index) != (0, min(m, n)):
        raise ValueError("full_matrices and subset_by_index cannot both be set")
    _check_subset(subset_by_index, min(m, n))
    out = bind(Svd, x, full_matrices=bool(full_matrices), compute_uv=bool(compute_uv))
    if not compute_uv:
        return out
    s, u, vh = out
    return u, s, vh

