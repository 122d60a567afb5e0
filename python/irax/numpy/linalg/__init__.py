"""irax.numpy.linalg: ``jax.numpy.linalg``.

Factorizations and solves (``_factor.py``) are built on the decomposition ops
(``irax.cholesky``, ``irax.lu``, ``irax.qr``, ``irax.triangular_solve``); the thin
products and norms are in ``_basic.py``; the spectral functions (eigh, svd and what is
built on them) in ``_spectral.py``.
"""

#: names whose irax version is deliberately incomplete, and why
__irax_partial__: dict[str, str] = {
    "qr": "mode='raw' (Householder reflectors) is not supported",
    "slogdet": "method='qr' is not supported (the default, 'lu', is)",
}

# isort: off
# ---- factorizations and basic functions (part 1) ----
from irax.numpy.linalg._basic import (  # noqa: F401
    cross, diagonal, matmul, matrix_norm, matrix_transpose, multi_dot, norm, outer, tensordot,
    trace, vecdot, vector_norm,
)
from irax.numpy.linalg._factor import (  # noqa: F401
    EighResult, QRResult, SlogdetResult, SVDResult, cholesky, det, inv, matrix_power, qr,
    slogdet, solve, tensorinv, tensorsolve,
)
# ---- spectral functions (part 2): add ONE import block from _spectral below ----
from irax.numpy.linalg._spectral import (  # noqa: F401
    EigResult, cond, eig, eigh, eigvals, eigvalsh, lstsq, matrix_rank, pinv, svd, svdvals,
)

__irax_partial__.update({
    "eig": "eager only (LAPACK geev via NumPy on concrete arrays): not under jit/vmap/grad",
    "eigvals": "eager only (LAPACK geev via NumPy on concrete arrays): not under jit/vmap/grad",
})
# isort: on
