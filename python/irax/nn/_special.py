"""``erfc``, which ``gelu(approximate=False)`` needs (irax.lax has no erfc yet).

Follows XLA's kernel: ``1 - erf(x)`` for ``|x| <= 1``; beyond, ``exp(-x*x) / |x| * P(1/x^2)``
with Cephes' float32 (``erfcf``) or float64 (``ndtr.c``) rational approximations, and
``2 - erfc(-x)`` for negative x. float16 and bfloat16 are computed in float32.
"""

from __future__ import annotations

import numpy as np

from irax import lax
from irax.lax import _util as LU
from irax.random._common import const, polynomial
from irax.random._special import (
    _ERFC64_P,
    _ERFC64_Q,
    _ERFC64_R,
    _ERFC64_S,
    erf,
)

# Cephes erfcf: |x| < 2 and |x| >= 2, as polynomials in 1/x^2
_ERFC32_P = (2.326819970068386e-2, -1.387039388740657e-1, 3.687424674597105e-1,
             -5.824733027278666e-1, 6.210004621745983e-1, -4.944515323274145e-1,
             3.404879937665872e-1, -2.741127028184656e-1, 5.638259427386472e-1)
_ERFC32_R = (-1.047766399936249e1, 1.297719955372516e1, -7.495518717768503e0,
             2.921019019210786e0, -1.015265279202700e0, 4.218463358204948e-1,
             -2.820767439740514e-1, 5.641895067754075e-1)
_MAXLOG32 = 88.72283905206835
_MAXLOG64 = 7.09782712893383996843e2


def _tail32(x):
    ax = lax.abs(x)
    x2 = lax.mul(x, x)
    z = lax.exp(lax.neg(x2))
    q = lax.div(const(x, 1.0), ax)
    y = lax.mul(q, q)
    p = lax.select(lax.lt(ax, const(x, 2.0)), polynomial(y, _ERFC32_P), polynomial(y, _ERFC32_R))
    out = lax.mul(lax.mul(z, q), p)
    return lax.select(lax.gt(x2, const(x, _MAXLOG32)), lax.full_like(out, 0), out)


def _tail64(x):
    ax = lax.abs(x)
    x2 = lax.mul(x, x)
    z = lax.exp(lax.neg(x2))
    near = lax.lt(ax, const(x, 8.0))
    num = lax.select(near, polynomial(ax, _ERFC64_P), polynomial(ax, _ERFC64_R))
    den = lax.select(near, polynomial(ax, _ERFC64_Q), polynomial(ax, _ERFC64_S))
    out = lax.div(lax.mul(z, num), den)
    return lax.select(lax.gt(x2, const(x, _MAXLOG64)), lax.full_like(out, 0), out)


def erfc(x):
    """The complementary error function ``1 - erf(x)`` of a float array (``lax.erfc``)."""
    dt = np.dtype(x.dtype)
    wide = dt.itemsize == 8
    xc = x if dt.itemsize >= 4 else LU.convert(x, np.float32)
    big = lax.gt(lax.abs(xc), const(xc, 1.0))
    safe = lax.select(big, xc, lax.full_like(xc, 2.0))  # no 1/0 (nor NaN gradients) at 0
    tail = _tail64(safe) if wide else _tail32(safe)
    tail = lax.select(lax.lt(xc, const(xc, 0.0)), lax.sub(const(xc, 2.0), tail), tail)
    small = lax.sub(const(xc, 1.0), erf(xc))
    out = lax.select(big, tail, small)
    return out if xc is x else LU.convert(out, dt)
