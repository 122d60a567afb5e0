"""``hessenberg`` of ``jax.scipy.linalg``: ``a = q h q^H`` with ``h`` upper Hessenberg, by
Householder reflections with LAPACK's sign convention (``?gehrd``/``?larfg``), one per
column (the matrix size is static: the loop unrolls)."""

from __future__ import annotations

import numpy as np

from irax import numpy as jnp
from irax.core import dtypes
from irax.numpy import _util as U


def _reflector(x):
    """``(v, tau, beta)`` with ``(I - tau v v^H)^H x = beta e_1`` and ``v[0] = 1``
    (LAPACK's ``?larfg``; ``tau = 0`` where nothing is to be eliminated)."""
    dt = U.aval_of(x).dtype
    alpha = x[..., 0]
    rest = x[..., 1:]
    xnorm2 = jnp.sum(jnp.real(rest * jnp.conj(rest)), axis=-1)
    ar, ai = jnp.real(alpha), jnp.imag(alpha)
    skip = (xnorm2 == 0) & (ai == 0)
    norm = jnp.sqrt(ar * ar + ai * ai + xnorm2)
    beta = -jnp.where(ar >= 0, 1.0, -1.0).astype(ar.dtype) * norm
    safe_beta = jnp.where(skip, 1.0, beta).astype(ar.dtype)
    tau = ((safe_beta - ar) / safe_beta - 1j * ai / safe_beta) if dtypes.is_complex(dt) else \
        (safe_beta - ar) / safe_beta
    denom = jnp.where(skip, 1.0, alpha - beta.astype(dt)).astype(dt)
    v = jnp.concatenate([jnp.ones_like(alpha)[..., None], rest / denom[..., None]], axis=-1)
    tau = jnp.where(skip, 0.0, tau).astype(dt)
    return v, tau, jnp.where(skip, ar, beta)


def hessenberg(a, *, calc_q: bool = False, overwrite_a: bool = False,
               check_finite: bool = True):
    """``h`` (or ``(h, q)``): the upper Hessenberg form of square matrices, ``a = q h q^H``
    (``jax.scipy.linalg.hessenberg``)."""
    del overwrite_a, check_finite
    a = jnp.asarray(a)
    dt = U.aval_of(a).dtype
    if not dtypes.is_inexact(dt):
        raise TypeError(f"hessenberg does not accept dtype {np.dtype(dt).name} at position 0. "
                        "Accepted dtypes at position 0 are subtypes of floating, "
                        "complexfloating.")
    n = U.aval_of(a).shape[-1]
    if n == 0:
        return (jnp.zeros_like(a), jnp.zeros_like(a)) if calc_q else jnp.zeros_like(a)
    q = jnp.broadcast_to(jnp.eye(n, dtype=dt), U.aval_of(a).shape)
    for k in range(n - 1):   # the last one makes a complex subdiagonal entry real
        v, tau, _ = _reflector(a[..., k + 1:, k])
        v = jnp.concatenate([jnp.zeros(v.shape[:-1] + (k + 1,), dt), v], axis=-1)
        t = tau[..., None, None]
        vc = jnp.conj(v)
        # a := H^H a H with H = I - tau v v^H
        a = a - jnp.conj(t) * v[..., :, None] * jnp.einsum("...i,...ij->...j", vc, a)[..., None, :]
        a = a - t * jnp.einsum("...ij,...j->...i", a, v)[..., :, None] * vc[..., None, :]
        q = q - t * jnp.einsum("...ij,...j->...i", q, v)[..., :, None] * vc[..., None, :]
    h = jnp.where(np.triu(np.ones((n, n), bool), -1), a, jnp.zeros((), dt))
    return (h, q) if calc_q else h
