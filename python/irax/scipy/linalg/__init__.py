"""irax.scipy.linalg: ``jax.scipy.linalg``.

Factorizations and solves (``_decomp.py``) on ``irax.lax.linalg`` and
``irax.numpy.linalg``; the matrix exponential and its Frechet derivative (``_expm.py``);
the special matrices (``_matrices.py``). Not here: what needs a non-symmetric eigensolver
or the Schur form (schur, sqrtm, funm, rsf2csf, solve_sylvester) (see ``__irax_partial__``
for what the others leave out).
"""

from irax.scipy.linalg._decomp import (  # noqa: F401
    cho_factor,
    cho_solve,
    cholesky,
    det,
    eigh,
    inv,
    lu,
    lu_factor,
    lu_solve,
    polar,
    qr,
    qr_multiply,
    solve,
    solve_triangular,
    svd,
)
from irax.scipy.linalg._expm import expm, expm_frechet  # noqa: F401
from irax.scipy.linalg._hessenberg import hessenberg  # noqa: F401
from irax.scipy.linalg._matrices import (  # noqa: F401
    block_diag,
    circulant,
    companion,
    convolution_matrix,
    dft,
    fiedler,
    fiedler_companion,
    hadamard,
    hankel,
    helmert,
    hilbert,
    invhilbert,
    invpascal,
    leslie,
    pascal,
    toeplitz,
)
from irax.scipy.linalg._tridiagonal import eigh_tridiagonal  # noqa: F401

#: names whose irax version is deliberately incomplete, and why
__irax_partial__: dict[str, str] = {
    "qr": "pivoting=True is not supported",
    "qr_multiply": "pivoting=True is not supported",
    "polar": "method='qdwh' is computed by the SVD (same result, not JAX's iteration)",
    "eigh_tridiagonal": "by the dense eigh (not Sturm bisection); select='v' not supported "
                        "(as JAX); eigenvectors agree up to phase",
}
