"""Gamma, beta and zeta families of ``jax.scipy.special``."""

from __future__ import annotations

import operator

import numpy as np

from irax import lax
from irax import numpy as jnp
from irax.core import dtypes
from irax.core.compat import partial_support
from irax.frontend.tracer import Tracer
from irax.numpy._util import aval_of, promote_args_inexact
from irax.scipy.special._common import K, no_complex, scalar_int
from irax.transforms.autodiff import jvp
from irax.transforms.custom_derivatives import custom_jvp


def gammaln(x):
    """``log|Gamma(x)|`` (``jax.scipy.special.gammaln``)."""
    (x,) = promote_args_inexact("gammaln", x)
    return lax.lgamma(x)


def gammasgn(x):
    """The sign of ``Gamma(x)`` (``jax.scipy.special.gammasgn``): NaN at the poles."""
    (x,) = promote_args_inexact("gammasgn", x)
    no_complex("gammasgn", x)
    fl = lax.floor(x)
    neg = x < 0
    nan = (neg & (x == fl)) | jnp.isnan(x)
    minus = (neg & (jnp.fmod(fl, 2) != 0)) | ((x == 0) & jnp.signbit(x))
    typ = np.dtype(aval_of(x).dtype).type
    return jnp.select([nan, minus], [typ(np.nan), typ(-1.0)], typ(1.0))


@partial_support("real arguments only (complex raises NotImplementedError)")
def loggamma(x):
    """``log Gamma(x)`` for real ``x > 0`` (NaN elsewhere) (``jax.scipy.special.loggamma``;
    complex arguments are not supported)."""
    (x,) = promote_args_inexact("loggamma", x)
    if dtypes.is_complex(aval_of(x).dtype):
        raise NotImplementedError("irax.scipy.special.loggamma: complex arguments are not "
                                  "supported yet")
    return jnp.where(x > 0, lax.lgamma(x), np.nan)


@partial_support("real arguments only (complex raises NotImplementedError)")
def gamma(x):
    """``Gamma(x)`` (``jax.scipy.special.gamma``; real arguments)."""
    (x,) = promote_args_inexact("gamma", x)
    if dtypes.is_complex(aval_of(x).dtype):
        raise NotImplementedError("irax.scipy.special.gamma: complex arguments are not "
                                  "supported yet")
    return gammasgn(x) * lax.exp(lax.lgamma(x))


_ALGDIV = (0.833333333333333e-01, -0.277777777760991e-02, 0.793650666825390e-03,
           -0.595202931351870e-03, 0.837308034031215e-03, -0.165322962780713e-02)


def _algdiv(a, b):
    """``log Gamma(b) - log Gamma(a + b)`` for ``b >= 8`` (a <= b), cdflib's series."""
    h = a / b
    cc = h / (1 + h)
    x = cc
    d = b + (a - 0.5)
    x2 = x * x
    s3 = 1.0 + (x + x2)
    s5 = 1.0 + (x + x2 * s3)
    s7 = 1.0 + (x + x2 * s5)
    s9 = 1.0 + (x + x2 * s7)
    s11 = 1.0 + (x + x2 * s9)
    t = (1.0 / b) ** 2
    c0, c1, c2, c3, c4, c5 = _ALGDIV
    w = ((((c5 * s11 * t + c4 * s9) * t + c3 * s7) * t + c2 * s5) * t + c1 * s3) * t + c0
    w = w * (cc / b)
    u = d * lax.log1p(a / b)
    v = a * (lax.log(b) - 1.0)
    return jnp.where(u <= v, (w - v) - u, (w - u) - v)


def betaln(a, b):
    """``log|B(a, b)|`` (``jax.scipy.special.betaln``), accurate for large arguments."""
    a, b = promote_args_inexact("betaln", a, b)
    a, b = jnp.minimum(a, b), jnp.maximum(a, b)
    small_b = lax.lgamma(a) + (lax.lgamma(b) - lax.lgamma(a + b))
    large_b = lax.lgamma(a) + _algdiv(a, b)
    return jnp.where(b < 8, small_b, large_b)


def beta(a, b):
    """The beta function ``B(a, b)`` (``jax.scipy.special.beta``)."""
    a, b = promote_args_inexact("beta", a, b)
    no_complex("beta", a)
    sign = gammasgn(a) * gammasgn(b) * gammasgn(a + b)
    return sign * lax.exp(betaln(a, b))


def betainc(a, b, x):
    """The regularized incomplete beta function (``jax.scipy.special.betainc``)."""
    a, b, x = promote_args_inexact("betainc", a, b, x)
    no_complex("betainc", x)
    return lax.betainc(a, b, x)


def factorial(n, exact: bool = False):
    """``n!`` as ``Gamma(n + 1)``, 0 for negative ``n`` (``jax.scipy.special.factorial``)."""
    if exact:
        raise NotImplementedError("factorial with exact=True")
    (n,) = promote_args_inexact("factorial", n)
    return jnp.where(n < 0, 0, lax.exp(lax.lgamma(n + 1)))


def comb(N, k, *, repetition: bool = False):
    """The binomial coefficient ``N choose k`` (``jax.scipy.special.comb``)."""
    N, k = promote_args_inexact("comb", N, k)  # noqa: N806 - scipy's name
    if repetition:
        result = comb(N + k - 1, k, repetition=False)
        return jnp.where((k == 0) & (N >= 0), 1.0, result)
    ok = (k <= N) & (N >= 0) & (k >= 0)
    n_ = jnp.where(ok, N, 0.0)
    k_ = jnp.where(ok, k, 0.0)
    result = lax.exp(gammaln(n_ + 1) - gammaln(k_ + 1) - gammaln(n_ + 1 - k_))
    return jnp.where(ok, result, 0.0)


def digamma(x):
    """``psi(x)``, the logarithmic derivative of Gamma (``jax.scipy.special.digamma``)."""
    (x,) = promote_args_inexact("digamma", x)
    return lax.digamma(x)


def gammainc(a, x):
    """The regularized lower incomplete gamma function (``jax.scipy.special.gammainc``)."""
    a, x = promote_args_inexact("gammainc", a, x)
    return lax.igamma(a, x)


def gammaincc(a, x):
    """The regularized upper incomplete gamma function (``jax.scipy.special.gammaincc``)."""
    a, x = promote_args_inexact("gammaincc", a, x)
    return lax.igammac(a, x)


def multigammaln(a, d):
    """The log of the multivariate gamma function (``jax.scipy.special.multigammaln``)."""
    if isinstance(d, Tracer):
        raise TypeError("irax.scipy.special.multigammaln: the d argument of multigammaln "
                        "must be a concrete integer, got a traced value")
    d = operator.index(int(np.asarray(d))) if not isinstance(d, int) else d
    a, d_ = promote_args_inexact("multigammaln", a, d)
    cst = K(a, 0.25) * d_ * (d_ - K(a, 1)) * lax.log(K(a, np.pi))
    b = jnp.arange(d, dtype=d_.dtype) / K(a, 2)
    terms = gammaln(jnp.expand_dims(a, axis=-1) - jnp.expand_dims(b, tuple(range(a.ndim))))
    return jnp.sum(terms, axis=-1) + cst


def polygamma(n, x):
    """``psi^(n)(x)``, the n-th derivative of digamma (``jax.scipy.special.polygamma``)."""
    n_dt = aval_of(n).dtype
    if not dtypes.is_int(n_dt):
        raise ValueError(f"Argument `n` to polygamma must be of integer type. Got dtype "
                         f"{np.dtype(n_dt)}.")
    n, x = promote_args_inexact("polygamma", n, x)
    if dtypes.is_complex(aval_of(x).dtype):
        raise ValueError("polygamma does not support complex-valued inputs.")
    return lax.polygamma(n, x)


# B_2k / (2k)! denominators of the Euler-Maclaurin tail
_BERNOULLI = np.array([12, -720, 30240, -1209600, 47900160, -1307674368000 / 691, 74724249600,
                       -10670622842880000 / 3617, 5109094217170944000 / 43867,
                       -802857662698291200000 / 174611, 14101100039391805440000 / 77683,
                       -1693824136731743669452800000 / 236364091,
                       186134520519971831808000000 / 657931,
                       -37893265687455865519472640000000 / 3392780147,
                       759790291646040068357842010112000000 / 1723168255201,
                       -134196726836183700385281186201600000000 / 7709321041217])


def _zeta_series(s, a):
    """Hurwitz zeta by Euler-Maclaurin with N = M = 8 (float32) or 16 terms (Johansson 2015,
    formula 5): differentiable in both arguments, used for zeta's JVP."""
    dt = np.dtype(aval_of(a).dtype)
    n = 8 if dt == np.float32 else 16
    typ = dt.type
    s_, a_ = jnp.expand_dims(s, -1), jnp.expand_dims(a, -1)
    k = jnp.expand_dims(np.arange(n, dtype=dt), tuple(range(a.ndim)))
    head = jnp.sum((a_ + k) ** -s_, -1)
    integral = lax.div((a + typ(n)) ** (typ(1) - s), s - typ(1))
    t0 = (a + typ(n)) ** -s
    m = jnp.expand_dims(np.arange(2 * n, dtype=dt), tuple(range(s.ndim)))
    t1 = jnp.cumprod((s_ + m) / (a_ + typ(n)), -1)[..., ::2]
    t1 = jnp.clip(t1, max=dtypes.finfo(dt).max)
    coefs = np.expand_dims(np.array(_BERNOULLI[:t1.shape[-1]], dtype=dt), tuple(range(a.ndim)))
    return head + integral + t0 * (typ(0.5) + (t1 / coefs).sum(-1))


@custom_jvp
def _zeta(x, q):
    return lax.zeta(x, q)


@_zeta.defjvp
def _zeta_jvp(primals, tangents):
    return _zeta(*primals), jvp(_zeta_series, primals, tangents)[1]


def zeta(x, q=None):
    """The Hurwitz zeta function ``zeta(x, q)`` (``jax.scipy.special.zeta``; the Riemann
    zeta function, ``q=None``, is not implemented, as in JAX)."""
    if q is None:
        raise NotImplementedError("Riemann zeta function not implemented; pass q != None to "
                                  "compute the Hurwitz Zeta function.")
    x, q = promote_args_inexact("zeta", x, q)
    return _zeta(x, q)


@custom_jvp
def _poch(z, m):
    return jnp.where(m == 0.0, jnp.array(1, dtype=z.dtype), gamma(z + m) / gamma(z))


@_poch.defjvp
def _poch_jvp(primals, tangents):
    (z, m), (tz, tm) = primals, tangents
    out = _poch(z, m)
    dz = (digamma(z + m) - digamma(z)) * out
    dm = digamma(z + m) * out
    return out, dz * tz + dm * tm


def poch(z, m):
    """The Pochhammer symbol ``Gamma(z + m) / Gamma(z)`` (``jax.scipy.special.poch``)."""
    z, m = promote_args_inexact("poch", z, m)
    if dtypes.is_complex(aval_of(z).dtype):
        raise ValueError("jnp.poch does not support complex-valued inputs.")
    return _poch(z, m)


def bernoulli(n: int):
    """The Bernoulli numbers ``B_0 .. B_n`` (``jax.scipy.special.bernoulli``)."""
    n = scalar_int(n, "Argument n of bernoulli")
    if n < 0:
        raise ValueError("n must be a non-negative integer.")
    b3 = jnp.array([1, -1 / 2, 1 / 6])
    if n < 3:
        return b3[:n + 1]
    bn = jnp.zeros(n + 1).at[:3].set(b3)
    m = jnp.arange(4, n + 1, 2, dtype=bn.dtype)
    q1 = 1.0 / np.pi ** 2 * jnp.cumprod(-(m - 1) * m / 4 / np.pi ** 2)
    k = jnp.arange(2, 50, dtype=bn.dtype)
    q2 = jnp.sum(k[:, None] ** (-m[None, :]), axis=0)
    return bn.at[4::2].set(q1 * (1 + q2))
