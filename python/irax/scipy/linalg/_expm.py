"""The matrix exponential (``jax.scipy.linalg.expm``) and its Frechet derivative
(``expm_frechet``).

    expm(a)                                  # Pade approximant with scaling and squaring
    expm_a, l = expm_frechet(a, e)           # l = d/dt expm(a + t e) at t = 0

As JAX: the Pade degree is chosen from ``a``'s 1-norm (3, 5, 7 for float32/complex64; up to
13 for 64-bit), ``a`` is scaled by ``2**s`` and the result squared ``s`` times (at most
``max_squarings``, NaN beyond); the derivative is the JVP of that computation.
"""

from __future__ import annotations

import functools

import numpy as np

from irax import lax
from irax import numpy as jnp
from irax.numpy import _util as U
from irax.numpy import linalg as jnp_linalg
from irax.scipy.linalg._decomp import solve_triangular
from irax.transforms.autodiff import jvp

# (threshold of the 1-norm for each Pade degree, the norm beyond which a is scaled)
_PADE = {
    32: ((0.4258730016922831, 1.880152677804762), 3.92572478313866, (3, 5, 7)),
    64: ((0.01495585217958292, 0.253939833006323, 0.9504178996162932, 2.097847961257068),
         5.371920351148152, (3, 5, 7, 9, 13)),
}
# Pade coefficients b_0..b_d of each degree d
_COEFFS = {
    3: (120.0, 60.0, 12.0, 1.0),
    5: (30240.0, 15120.0, 3360.0, 420.0, 30.0, 1.0),
    7: (17297280.0, 8648640.0, 1995840.0, 277200.0, 25200.0, 1512.0, 56.0, 1.0),
    9: (17643225600.0, 8821612800.0, 2075673600.0, 302702400.0, 30270240.0, 2162160.0,
        110880.0, 3960.0, 90.0, 1.0),
    13: (64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0,
         129060195264000.0, 10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0,
         40840800.0, 960960.0, 16380.0, 182.0, 1.0),
}


def _pade(degree: int, a):
    """``(U, V)``: the odd and even parts of the degree-``degree`` Pade numerator."""
    b = _COEFFS[degree]
    ident = jnp.eye(U.aval_of(a).shape[-1], dtype=U.aval_of(a).dtype)
    a2 = jnp.matmul(a, a)
    if degree == 13:
        a4 = jnp.matmul(a2, a2)
        a6 = jnp.matmul(a4, a2)
        u = jnp.matmul(a, jnp.matmul(a6, b[13] * a6 + b[11] * a4 + b[9] * a2)
                   + b[7] * a6 + b[5] * a4 + b[3] * a2 + b[1] * ident)
        v = (jnp.matmul(a6, b[12] * a6 + b[10] * a4 + b[8] * a2) + b[6] * a6 + b[4] * a4
             + b[2] * a2 + b[0] * ident)
        return u, v
    powers = [ident, a2]
    while len(powers) <= degree // 2:
        powers.append(jnp.matmul(powers[-1], a2) if len(powers) > 2 else jnp.matmul(a2, a2))
    odd = even = None      # summed from the highest power down, as JAX
    for i in reversed(range(len(powers))):
        t_odd, t_even = b[2 * i + 1] * powers[i], b[2 * i] * powers[i]
        odd = t_odd if odd is None else odd + t_odd
        even = t_even if even is None else even + t_even
    return jnp.matmul(a, odd), even


def _scale(a):
    """``(a / 2**s, norm1, s, degrees, thresholds)``: ``a`` scaled below the largest Pade
    degree's bound (``s`` per matrix of the batch)."""
    dt = np.dtype(U.aval_of(a).dtype)
    if dt not in (np.float32, np.float64, np.complex64, np.complex128):
        raise TypeError(f"A.dtype={dt} is not supported.")
    conds, maxnorm, degrees = _PADE[64 if dt in (np.float64, np.complex128) else 32]
    norm1 = jnp.linalg.norm(a, 1, axis=(-2, -1))
    n_squarings = jnp.maximum(0, jnp.floor(jnp.log2(norm1 / maxnorm)))
    a = a / (2 ** U.convert(n_squarings, dt))[..., None, None]
    idx = jnp.digitize(norm1, jnp.asarray(np.array(conds, U.aval_of(norm1).dtype)))
    return a, n_squarings, idx, degrees


def _p_q(u, v):
    return u + v, -u + v


def _expm_2d(a, upper_triangular: bool, max_squarings: int):
    """One matrix, as JAX: ``switch`` on the Pade degree, ``cond`` for too many squarings,
    a ``scan`` of conditional squarings."""
    a, n_squarings, idx, degrees = _scale(a)
    p, q = _p_q(*lax.switch(idx, [functools.partial(_pade, d) for d in degrees], a))

    def compute(a, p, q):
        r = solve_triangular(q, p) if upper_triangular else jnp_linalg.solve(q, p)

        def step(c, i):
            return lax.cond(i < n_squarings, lambda x: jnp.matmul(x, x), lambda x: x, c), None

        steps = jnp.arange(max_squarings, dtype=U.aval_of(n_squarings).dtype)
        return lax.scan(step, r, steps)[0]

    def nan(a, p, q):
        return jnp.full_like(a, np.nan)

    return lax.cond(n_squarings > max_squarings, nan, compute, a, p, q)


def _expm_batch(a, upper_triangular: bool, max_squarings: int):
    """A batch of matrices: what ``vmap`` makes of ``_expm_2d`` (every Pade degree and
    squaring computed, the right ones selected per matrix)."""
    a, n_squarings, idx, degrees = _scale(a)
    u = v = None
    for i, d in enumerate(degrees):
        ud, vd = _pade(d, a)
        pick = (idx == i)[..., None, None] if i < len(degrees) - 1 else \
            (idx >= i)[..., None, None]
        u = ud if u is None else jnp.where(pick, ud, u)
        v = vd if v is None else jnp.where(pick, vd, v)
    p, q = _p_q(u, v)
    r = solve_triangular(q, p) if upper_triangular else jnp_linalg.solve(q, p)
    n = n_squarings[..., None, None]

    def step(c, i):
        return jnp.where(i < n, jnp.matmul(c, c), c), None

    r = lax.scan(step, r, jnp.arange(max_squarings, dtype=U.aval_of(n).dtype))[0]
    return jnp.where(n > max_squarings, jnp.full_like(r, np.nan), r)


def expm(A, *, upper_triangular: bool = False, max_squarings: int = 16):  # noqa: N803
    """The matrix exponential by Pade approximation with scaling and squaring
    (``jax.scipy.linalg.expm``); leading dims are a batch."""
    (a,) = U.promote_dtypes_inexact(jnp.asarray(A))
    s = U.aval_of(a).shape
    if len(s) < 2 or s[-1] != s[-2]:
        raise ValueError(f"Expected A to be a (batched) square matrix, got A.shape={s!r}.")
    fn = _expm_batch if len(s) > 2 else _expm_2d
    return fn(a, upper_triangular=bool(upper_triangular), max_squarings=int(max_squarings))


def expm_frechet(A, E, *, method=None, compute_expm: bool = True):  # noqa: N803
    """``(expm(A), L)`` with ``L`` the Frechet derivative of ``expm`` at ``A`` in the
    direction ``E`` (``L`` alone without ``compute_expm``) (``jax.scipy.linalg.expm_frechet``)."""
    del method
    a, e = jnp.asarray(A), jnp.asarray(E)
    sa, se = U.aval_of(a).shape, U.aval_of(e).shape
    if len(sa) < 2 or sa[-2] != sa[-1]:
        raise ValueError(f"expected A to be a (batched) square matrix, got A.shape={sa}")
    if len(se) < 2 or se[-2] != se[-1]:
        raise ValueError(f"expected E to be a (batched) square matrix, got E.shape={se}")
    if sa != se:
        raise ValueError(f"expected A and E to be the same shape, got A.shape={sa} "
                         f"E.shape={se}")
    expm_a, frechet = jvp(functools.partial(expm, upper_triangular=False, max_squarings=16),
                          (a,), (e,))
    return (expm_a, frechet) if compute_expm else frechet
