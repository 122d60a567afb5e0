"""Special functions the samplers need, written with irax ops in XLA's operation order (the
tables are irax.lax's).

``erf_inv`` follows XLA's CPU kernels (Giles' single- and double-precision polynomials with
FMA Horner steps), so float32 normal samples agree with JAX's to the last bit except where
``log1p`` itself differs. ``erf`` (truncated_normal's bounds), ``lgamma`` (poisson's
acceptance test; XLA's Lanczos formula and operation order, so poisson counts match JAX's
exactly up to rates ~1e3, beyond which the last bit of float32 ``log`` decides rare
acceptances) and ``tan`` (cauchy) are accurate approximations, not bit-for-bit copies of
XLA's. ``digamma`` and ``random_gamma_grad`` (gamma's derivative in its shape parameter,
two ``while_loop``s like XLA's) serve gamma's JVP.
"""

from __future__ import annotations

import numpy as np

from irax import lax
from irax import numpy as jnp
from irax.lax._special import (  # noqa: F401 - the tables the samplers share with lax
    _ERF32_P,
    _ERF32_Q,
    _ERF64_T,
    _ERF64_U,
    _ERFC64_P,
    _ERFC64_Q,
    _ERFC64_R,
    _ERFC64_S,
    _ERFINV32_LARGE,
    _ERFINV32_SMALL,
    _ERFINV64_A,
    _ERFINV64_B,
    _ERFINV64_C,
    _LANCZOS,
    _LANCZOS_BASE,
    _LANCZOS_G,
)
from irax.random._common import const, finfo, fma, polynomial, while_loop


def erf_inv(x):
    """The inverse error function on (-1, 1); +-inf at +-1, NaN outside."""
    w = lax.neg(lax.log1p(lax.neg(lax.mul(x, x))))
    if np.dtype(x.dtype).itemsize == 8:
        p = _erf_inv64_poly(w)
    else:
        small = lax.lt(w, const(w, 5.0))
        t = lax.select(small, lax.sub(w, const(w, 2.5)), lax.sub(lax.sqrt(w), const(w, 3.0)))
        p = lax.select(small, polynomial(t, _ERFINV32_SMALL), polynomial(t, _ERFINV32_LARGE))
    result = lax.mul(p, x)
    edge = lax.eq(lax.abs(x), const(x, 1.0))
    return lax.select(edge, lax.mul(x, const(x, np.inf)), result)


def _erf_inv64_poly(w):
    sw = lax.sqrt(w)
    pa = polynomial(lax.sub(w, const(w, 3.125)), _ERFINV64_A)
    pb = polynomial(lax.sub(sw, const(w, 3.25)), _ERFINV64_B)
    pc = polynomial(lax.sub(sw, const(w, 5.0)), _ERFINV64_C)
    return lax.select(lax.lt(w, const(w, 6.25)), pa,
                      lax.select(lax.lt(w, const(w, 16.0)), pb, pc))




def erf(x):
    """The error function (a few ulp in float32, ~1e-15 relative in float64)."""
    x = jnp.asarray(x)
    if np.dtype(x.dtype).itemsize == 8:
        return _erf64(x)
    xc = lax.clamp(const(x, -4.0), x, const(x, 4.0))
    z = lax.mul(xc, xc)
    return lax.div(lax.mul(xc, polynomial(z, _ERF32_P)), polynomial(z, _ERF32_Q))


def _erf64(x):
    ax = lax.abs(x)
    z = lax.mul(x, x)
    small = lax.div(lax.mul(x, polynomial(z, _ERF64_T)), polynomial(z, _ERF64_U))
    near = lax.lt(ax, const(x, 8.0))
    axs = lax.min(ax, const(x, 30.0))
    num = lax.select(near, polynomial(axs, _ERFC64_P), polynomial(axs, _ERFC64_R))
    den = lax.select(near, polynomial(axs, _ERFC64_Q), polynomial(axs, _ERFC64_S))
    erfc = lax.div(lax.mul(lax.exp(lax.neg(lax.mul(axs, axs))), num), den)
    big = lax.sub(const(x, 1.0), erfc)
    big = lax.select(lax.lt(x, const(x, 0.0)), lax.neg(big), big)
    return lax.select(lax.lt(ax, const(x, 1.0)), small, big)




def lgamma(x):
    """``log|Gamma(x)|`` for ``x >= 0.5`` (what poisson needs: ``lgamma(k + 1)``, k >= 0).
    Smaller inputs are clamped to 0.5."""
    x = lax.max(x, const(x, 0.5))
    z = lax.sub(x, const(x, 1.0))
    acc = lax.full_like(x, _LANCZOS_BASE)
    for i, c in enumerate(_LANCZOS):
        acc = lax.add(acc, lax.div(const(x, c), lax.add(z, const(x, i + 1.0))))
    half_g = _LANCZOS_G + 0.5
    t = lax.add(z, const(x, half_g))
    log_t = lax.add(const(x, np.log(half_g)), lax.log1p(lax.div(z, const(x, half_g))))
    # (z + 1/2 - t/log t) log t + log sqrt(2 pi), fused as XLA's CPU code fuses it
    lead = fma(lax.sub(lax.add(z, const(x, 0.5)), lax.div(t, log_t)), log_t,
               const(x, 0.5 * np.log(2 * np.pi)))
    return lax.add(lead, lax.log(acc))


def lgamma_positive(x):
    """``log Gamma(x)`` for ``x > 0``: ``lgamma(x + 1) - log(x)`` below 0.5."""
    small = lax.lt(x, const(x, 0.5))
    shifted = lax.sub(lgamma(lax.add(x, const(x, 1.0))), lax.log(x))
    return lax.select(small, shifted, lgamma(x))


# Bernoulli-number terms of digamma's asymptotic series: B_2k / (2k), k = 1..6
_DIGAMMA_ASYMPTOTIC = (-691.0 / 32760.0, 1.0 / 132.0, -1.0 / 240.0, 1.0 / 252.0,
                       -1.0 / 120.0, 1.0 / 12.0)


def digamma(x):
    """``psi(x) = d/dx log Gamma(x)`` for ``x > 0``: the recurrence
    ``psi(x) = psi(x + 1) - 1/x`` up to 10, then the asymptotic series."""
    acc = lax.full_like(x, 0.0)
    ten = const(x, 10.0)
    for _ in range(10):
        small = lax.lt(x, ten)
        acc = lax.sub(acc, lax.select(small, lax.div(const(x, 1.0), x), lax.full_like(x, 0.0)))
        x = lax.select(small, lax.add(x, const(x, 1.0)), x)
    inv2 = lax.div(const(x, 1.0), lax.mul(x, x))
    series = lax.mul(inv2, polynomial(inv2, _DIGAMMA_ASYMPTOTIC))
    half = lax.div(const(x, 0.5), x)
    return lax.add(acc, lax.sub(lax.sub(lax.log(x), half), series))


def random_gamma_grad(a, x):
    """``d x / d a`` for a Gamma(a, 1) sample ``x`` held at a fixed quantile (implicit
    reparameterization, what JAX's ``lax.random_gamma_grad`` computes): minus the
    derivative of the regularized incomplete gamma function ``P(a, x)`` with respect to
    ``a`` over its derivative with respect to ``x``. ``P``'s series for ``x <= max(1, a)``,
    the continued fraction of ``Q = 1 - P`` otherwise, each iterated to float precision
    (NaN outside the domain ``a > 0``, ``x >= 0``)."""
    nan = lax.bitwise_or(lax.ne(a, a), lax.ne(x, x))
    x_zero = lax.eq(x, const(x, 0.0))
    domain = lax.bitwise_or(lax.lt(x, const(x, 0.0)), lax.le(a, const(a, 0.0)))
    use_fraction = lax.bitwise_and(lax.gt(x, const(x, 1.0)), lax.gt(x, a))
    info = finfo(x.dtype)
    log_ax = lax.sub(lax.sub(lax.mul(a, lax.log(x)), x), lgamma_positive(a))
    underflow = lax.lt(log_ax, const(x, -np.log(float(info.max))))
    off = lax.bitwise_or(lax.bitwise_or(x_zero, domain), lax.bitwise_or(underflow, nan))
    enabled = lax.bitwise_not(off)
    eps = float(info.eps)
    series = _series_grad(a, x, lax.bitwise_and(enabled, lax.bitwise_not(use_fraction)), eps)
    fraction = _fraction_grad(a, x, lax.bitwise_and(enabled, use_fraction), eps)
    out = lax.select(use_fraction, fraction, series)
    out = lax.select(x_zero, lax.full_like(out, 0.0), out)
    return lax.select(lax.bitwise_or(domain, nan), lax.full_like(out, np.nan), out)


def _series_grad(a, x, enabled, eps):
    """``-(dP/da) / (dP/dx)`` from ``P(a, x) = x^a e^-x / Gamma(a + 1) * sum_n c_n`` with
    ``c_0 = 1``, ``c_n = c_{n-1} x / (a + n)``."""
    def more(s):
        return jnp.any(s[0])

    def step(s):
        on, r, c, ans, dc, dans = s
        r1 = lax.add(r, const(r, 1.0))
        x_r = lax.div(x, r1)
        dc1 = lax.sub(lax.mul(dc, x_r), lax.div(lax.mul(c, x), lax.mul(r1, r1)))
        dans1 = lax.add(dans, dc1)
        c1 = lax.mul(c, x_r)
        ans1 = lax.add(ans, c1)
        again = lax.bitwise_and(on, lax.gt(lax.abs(lax.div(dc1, dans1)), const(x, eps)))
        new = [lax.select(on, n, o) for n, o in zip((r1, c1, ans1, dc1, dans1), s[1:])]
        return (again, *new)

    one, zero = lax.full_like(x, 1.0), lax.full_like(x, 0.0)
    _, _, _, ans, _, dans = while_loop(more, step, (enabled, a, one, one, zero, zero))
    dlog_ax = lax.sub(lax.log(x), digamma(lax.add(a, const(a, 1.0))))
    return lax.div(lax.mul(lax.neg(lax.add(dans, lax.mul(ans, dlog_ax))), x), a)


def _fraction_grad(a, x, enabled, eps):
    """``-(dP/da) / (dP/dx) = (dQ/da) / (dP/dx)`` from the continued fraction of
    ``Q(a, x)`` (convergents ``p_k / q_k`` and their derivatives in ``a``, rescaled when
    they grow; at most 2000 terms)."""
    big = const(x, 1.0 / eps)
    small = const(x, eps)

    def more(s):
        return lax.bitwise_and(lax.lt(s[1], const(s[1], 2000.0)), jnp.any(s[0]))

    def step(s):
        on, n, ans, y, z, p1, q1, p2, q2, dp2, dq2, dp1, dq1, dans = s
        n = lax.add(n, const(n, 1.0))
        y1 = lax.add(y, const(y, 1.0))
        z1 = lax.add(z, const(z, 2.0))
        yc = lax.mul(y1, n)
        pk = lax.sub(lax.mul(p1, z1), lax.mul(p2, yc))
        qk = lax.sub(lax.mul(q1, z1), lax.mul(q2, yc))
        nonzero = lax.ne(qk, const(qk, 0.0))
        ans1 = lax.select(nonzero, lax.div(pk, qk), ans)
        dpk = lax.add(lax.sub(lax.sub(lax.mul(dp1, z1), p1), lax.mul(dp2, yc)), lax.mul(p2, n))
        dqk = lax.add(lax.sub(lax.sub(lax.mul(dq1, z1), q1), lax.mul(dq2, yc)), lax.mul(q2, n))
        dans1 = lax.select(nonzero, lax.div(lax.sub(dpk, lax.mul(ans1, dqk)), qk), dans)
        change = lax.select(nonzero, lax.abs(lax.sub(dans1, dans)), lax.full_like(dans, 1.0))
        rescale = lax.gt(lax.abs(pk), big)
        shifted = [lax.select(rescale, lax.mul(v, small), v)
                   for v in (p1, q1, pk, qk, dp1, dq1, dpk, dqk)]
        p2n, q2n, p1n, q1n, dp2n, dq2n, dp1n, dq1n = shifted
        again = lax.bitwise_and(on, lax.gt(change, small))
        new = (ans1, y1, z1, p1n, q1n, p2n, q2n, dp2n, dq2n, dp1n, dq1n, dans1)
        olds = (ans, y, z, p1, q1, p2, q2, dp2, dq2, dp1, dq1, dans)
        kept = [lax.select(on, v, o) for v, o in zip(new, olds)]
        return (again, n, *kept)

    one = const(x, 1.0)
    y = lax.sub(one, a)
    z = lax.add(lax.add(x, y), one)
    p1 = lax.add(x, one)
    q1 = lax.mul(z, x)
    ans = lax.div(p1, q1)
    zero = lax.full_like(x, 0.0)
    dq1 = lax.neg(x)
    dans = lax.div(lax.neg(lax.mul(ans, dq1)), q1)
    state = (enabled, np.zeros((), x.dtype), ans, y, z, p1, q1, lax.full_like(x, 1.0), x,
             zero, zero, zero, dq1, dans)
    out = while_loop(more, step, state)
    ans, dans = out[2], out[13]
    dlog_ax = lax.sub(lax.log(x), digamma(a))
    return lax.mul(lax.add(dans, lax.mul(ans, dlog_ax)), x)


# Cephes tanf (|x| <= pi/4): tan x = x + x^3 P(x^2)
_TAN32_P = (9.38540185543e-3, 3.11992232697e-3, 2.44301354525e-2, 5.34112807005e-2,
            1.33387994085e-1, 3.33331568548e-1)


def tan(x):
    """``tan`` on (-pi/2, pi/2), accurate to a few ulp up to the poles: float32 arguments
    beyond pi/4 use ``tan x = 1 / tan(pi/2 - x)`` with pi/2 split in two words (IREE's
    float32 tan, sin and cos lose up to ~1e-3 relative accuracy near pi/2; its float64 tan
    is accurate and used as is)."""
    if np.dtype(x.dtype).itemsize == 8:
        return lax.tan(x)
    hi = np.array(np.pi / 2, x.dtype)
    lo = np.array(np.pi / 2 - float(hi), x.dtype)
    ax = lax.abs(x)
    far = lax.gt(ax, const(x, np.pi / 4))
    r = lax.select(far, lax.add(lax.sub(hi, ax), lo), ax)
    z = lax.mul(r, r)
    t = lax.add(r, lax.mul(lax.mul(z, r), polynomial(z, _TAN32_P)))
    t = lax.select(far, lax.div(const(x, 1.0), t), t)
    return lax.mul(lax.sign(x), t)
