"""Exponential, sine/cosine integrals and the dilogarithm of ``jax.scipy.special``: expi,
exp1, expn, sici, spence."""

from __future__ import annotations

import numpy as np

from irax import lax
from irax import numpy as jnp
from irax.core import dtypes
from irax.numpy._util import promote_args_inexact
from irax.scipy.special._common import K
from irax.scipy.special._gamma import gammaln
from irax.transforms.custom_derivatives import custom_jvp

_EULER = float(np.euler_gamma)


def _pv(coeffs, x):
    return jnp.polyval(np.array(coeffs, dtype=x.dtype), x)


# ---- expi: rational approximations on (0, 2], (2, 4], ..., (32, 64] (Cephes ei.c) ----------
_EI1 = ((-5.350447357812543, 218.50491688166133, -4176.572384826693, 55411.76756393557,
         -331338.13311781443, 1592627.1633849454),
        (1.0, -52.505479591128626, 1259.6161867867906, -17565.495819735348, 149306.2117002726,
         -729494.9239640528, 1592627.1633849454))
_EIK = [
    ((0.019818085032596897, -1.2716456259849176, -2.0881603356812284, 2.7555445091879367,
      -0.44095070487016, 0.046656238059358916, -0.0015450426796734852, 7.059980605299618e-05),
     (1.0, 1.4764986709149215, 0.5629177174822436, 0.16990178978793072, 0.02291647179034212,
      0.0044501504397287525, 0.00017274396122065214, 3.953167195549672e-05)),
    ((-1.3732153758712087, -0.7084559133740839, 1.580806855547941, -0.2601500427425623,
      0.029946746941137137, -0.001038086040188744, 4.371064420753005e-05,
      2.141783679522603e-06),
     (1.0, 0.8585231423622028, 0.4483285822873995, 0.07687932158124476, 0.024498682410218877,
      0.0008832165941927797, 0.00045909522995113536, -4.729848351866523e-06,
      2.66519553739071e-06)),
    ((-2.1069346016919166, 1.7327338696646881, -0.2423619178935842, 0.02322724180937566,
      0.00023728804404931798, -8.343219561192553e-05, 1.3634087956052505e-05,
      -3.655412321999254e-07, 1.4649417339759612e-08, 6.17640786371036e-10),
     (1.0, -0.2298062239901678, 0.11050770414740378, -0.015665429666307924,
      0.002761106850817353, -0.00020891480122840484, 1.7085289388076754e-05,
      -4.4593117963566865e-07, 1.3946349303538475e-08, 6.150865933977338e-10)),
    ((-0.24581193676740204, -0.14833822533220778, 0.07248291795735552, -0.013483156873809405,
      0.001342775069788637, -7.942465637159712e-05, 2.644179518984236e-06,
      -4.239473659313765e-08),
     (1.0, -0.10442259084438711, -0.26764531281014026, 0.09695000254621984,
      -0.01601745692712991, 0.001496414899205908, -8.462452563778485e-05,
      2.7289384034767266e-06, -4.239462431819542e-08)),
    ((0.12125611181054567, -0.5823133179043894, 0.2348887314557017, -0.030400343181132484,
      0.0015100821468651906, -2.5231370954995714e-05),
     (1.0, -1.002252150365854, 0.2928709694872224, -0.03337004338674008,
      0.0015605448811273888, -2.5231370936032347e-05)),
    ((-0.7657847078286127, 0.6886192415566705, -0.2132598113545206, 0.033461075523841935,
      -0.003076541477344756, 0.00017471193164549074, -6.1037116822741705e-06,
      1.218032765428652e-07, -1.0860761027932903e-09),
     (1.0, -1.8888028686623086, 1.066691687211409, -0.27519159823063805,
      0.039308526882338234, -0.003414684558602365, 0.00018668443707035555,
      -6.345146083130515e-06, 1.239754287483207e-07, -1.0860761027931265e-09)),
]


def _ei_first(x):
    a, b = _EI1
    return x * (_pv(a, x) / _pv(b, x)) + _EULER + jnp.log(x)


def _ei_k(coeffs):
    a, b = coeffs

    def fn(x):
        one = K(x, 1.0)
        w = one / x
        f = w * (_pv(a, w) / _pv(b, w)) + one
        return jnp.exp(x) * w * f

    return fn


def _expi_pos(x):
    """Each interval's approximation evaluated at a point inside it, then selected; the
    last one serves everything outside (0, 64] as well, as in JAX."""
    out = _ei_k(_EIK[-1])(x)
    first = (x > 0) & (x <= 2.0)
    out = jnp.where(first, _ei_first(jnp.clip(x, 1e-30, 2.0)), out)
    for i, coeffs in enumerate(_EIK[:-1], start=1):
        lo, hi = 2.0 ** i, 2.0 ** (i + 1)
        out = jnp.where((x > lo) & (x <= hi), _ei_k(coeffs)(jnp.clip(x, lo, hi)), out)
    return out


@custom_jvp
def _expi(x):
    neg = -exp1(-jnp.where(x < 0, x, -1.0))
    return jnp.where(x < 0, neg, _expi_pos(x))


@_expi.defjvp
def _expi_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return _expi(x), jnp.exp(x) / x * t


def expi(x):
    """The exponential integral ``Ei(x)`` (``jax.scipy.special.expi``)."""
    (x,) = promote_args_inexact("expi", x)
    if jnp.iscomplexobj(x):
        raise ValueError("expi does not support complex-valued inputs.")
    return _expi(x)


# ---- expn (Cephes expn.c), computed on whole arrays: each loop runs until every element it
# serves has converged ---------------------------------------------------------------------
def _eps(x):
    return float(dtypes.finfo(x.dtype).eps)


def _expn_series(x, n, on):
    """``E_n(x)`` for ``0 < x <= 1``: the power series."""
    eps = _eps(x)
    zero, one = jnp.zeros_like(x), jnp.ones_like(x)
    psi = lax.digamma(jnp.maximum(n, 1)) - jnp.log(x)   # -gamma - log x + H_{n-1}
    n1 = jnp.where(n == 1, 2 * one, n)
    ans = jnp.where(n == 1, zero, one / (one - n1))
    z = -x

    def body(s):
        act, xk, yk, pk, ans = s
        xk1 = xk + one
        yk1 = yk * (z / xk1)
        pk1 = pk + one
        ans1 = ans + jnp.where(pk1 != 0, yk1 / pk1, zero)
        t = jnp.where(ans1 != 0, jnp.abs(yk1 / ans1), one)
        new = [jnp.where(act, v, o) for v, o in zip((xk1, yk1, pk1, ans1), s[1:])]
        return (act & (t > eps), *new)

    s = lax.while_loop(lambda s: jnp.any(s[0]), body, (on, zero, one, one - n, ans))
    return z ** (n - 1) * psi / jnp.exp(gammaln(n)) - s[4]


def _expn_fraction(x, n, on):
    """``E_n(x)`` for ``x > 1``: the continued fraction (convergents rescaled by 2^57)."""
    big = 1.4411518807585587e17
    eps = _eps(x)
    zero, one = jnp.zeros_like(x), jnp.ones_like(x)

    def body(s):
        act, k, pkm2, qkm2, pkm1, qkm1, ans, r = s
        k1 = k + 1
        odd = jnp.fmod(k1, 2) == 1
        yk = jnp.where(odd, one, x)
        xk = jnp.where(odd, n + (k1 - 1) / 2, k1 / 2)
        pk = pkm1 * yk + pkm2 * xk
        qk = qkm1 * yk + qkm2 * xk
        nz = qk != 0
        r1 = jnp.where(nz, pk / qk, r)
        t = jnp.where(nz, jnp.abs((ans - r1) / r1), one)
        ans1 = jnp.where(nz, r1, ans)
        is_big = jnp.abs(pk) > big
        p2, p1, q2, q1 = (jnp.where(is_big, v / big, v) for v in (pkm1, pk, qkm1, qk))
        new = (k1, p2, q2, p1, q1, ans1, r1)
        new = [jnp.where(act, v, o) for v, o in zip(new, s[1:])]
        return (act & (t > eps), *new)

    init = (on, one, one, x, one, x + n, one / (x + n), zero)
    return lax.while_loop(lambda s: jnp.any(s[0]), body, init)[6] * jnp.exp(-x)


def _expn_large_n(x, n):
    xk = x + n
    yk = 1 / (xk * xk)
    t = n
    ans = yk * t * (6 * x * x - 8 * t * x + t * t)
    ans = yk * (ans + t * (t - 2 * x))
    ans = yk * (ans + t)
    return (ans + 1) * jnp.exp(-x) / xk


def _expn_raw(n, x):
    zero_x = x == 0
    bad = (n < 0) | (x < 0)
    large_n = n >= 5000
    plain = ~(bad | zero_x | (n == 0) | large_n)
    use_frac = plain & (x > 1)
    use_series = plain & (x <= 1)
    sx = jnp.where(use_series, x, 0.5)
    fx = jnp.where(use_frac, x, 2.0)
    out = jnp.where(x > 1, _expn_fraction(fx, n, use_frac), _expn_series(sx, n, use_series))
    out = jnp.where(large_n, _expn_large_n(x, n), out)
    out = jnp.where((n == 0) & (x >= 0), jnp.exp(-x) / x, out)
    n1 = jnp.where(n == 1, n + n, n)
    out = jnp.where(zero_x & (n >= 2), 1 / n1, out)
    out = jnp.where(zero_x & (n < 2), np.inf, out)
    out = jnp.where(bad | jnp.isnan(x) | jnp.isnan(n), np.nan, out)
    return jnp.where(jnp.isposinf(x) & ~bad, np.nan, out)


@custom_jvp
def _expn(n, x):
    return _expn_raw(n, x)


@_expn.defjvp
def _expn_jvp(primals, tangents):
    """Derivative in ``x`` only (JAX's ``n`` is a non-differentiable argument)."""
    (n, x), (_, t) = primals, tangents
    return _expn(n, x), lax.mul(lax.neg(t), _expn(lax.sub(n, K(n, 1)), x))


def expn(n, x):
    """The generalized exponential integral ``E_n(x)`` (``jax.scipy.special.expn``)."""
    n, x = promote_args_inexact("expn", n, x)
    if jnp.iscomplexobj(x):
        raise ValueError("expn does not support complex-valued inputs.")
    return _expn(n, x)


def exp1(x):
    """The exponential integral ``E_1(x)`` (``jax.scipy.special.exp1``)."""
    (x,) = promote_args_inexact("exp1", x)
    if jnp.iscomplexobj(x):
        raise ValueError("exp1 does not support complex-valued inputs.")
    return expn(1, x)


# ---- sici -----------------------------------------------------------------------------------
_SN = (-8.391678279103039e-11, 4.625917144270128e-08, -9.757593038436328e-06,
       0.0009769454381704354, -0.04134703162294066, 1.0)
_SD = (2.0326926619595193e-12, 1.279978911799433e-09, 4.418278428012189e-07,
       9.964121220438756e-05, 0.01420852393261499, 1.0)
_CN = (2.0252400238910228e-11, -1.3524950491579076e-08, 3.593250514199931e-06,
       -0.0004740072068734079, 0.028915965260755523, -1.0)
_CD = (4.077460400618806e-12, 3.067809975818878e-09, 1.2321035568588342e-06,
       0.00031744202477503275, 0.051002805623644606, 4.0)
_FN4 = (4.236128628922166, 5.4593771716181285, 1.6208328770153833, 0.16700661183132304,
        0.006810201324725182, 0.00010893658065032867, 5.489002234213736e-07)
_FD4 = (1, 8.16496634205391, 7.308288225055645, 1.867922579501842, 0.1787920529631499,
        0.007017106683227897, 0.00011003435715391573, 5.489002527562557e-07)
_GN4 = (0.08710016989731142, 0.6113791099522193, 0.3971802963923375, 0.07485277376284691,
        0.005388686814621773, 0.00016199979459893403, 1.9796387414096365e-06,
        7.825790407440903e-09)
_GD4 = (1, 1.6440220241335535, 0.666296701268988, 0.09887717612776888, 0.006223963454417684,
        0.0001732210814741771, 2.0265918208634397e-06, 7.825792189335346e-09)
_FN8 = (0.4558808734704653, 0.7137152741001467, 0.16030015822231947, 0.01160642294081244,
        0.00034955644244785906, 4.8621543082645475e-06, 3.200927900910049e-08,
        9.41779576128513e-11, 9.70507110881952e-14)
_FD8 = (1.0, 0.9174636118736841, 0.17868554533207454, 0.012225359477197129,
        0.00035869648188185157, 4.924350643178815e-06, 3.21956939101046e-08,
        9.437205903502767e-11, 9.70507110881952e-14)
_GN8 = (0.6973599534432762, 0.33041097930563207, 0.03848787676499743, 0.001717182390523479,
        3.4894116550227946e-05, 3.471311670841167e-07, 1.7040445278204452e-09,
        3.859459254302766e-12, 3.1404009894636335e-15)
_GD8 = (1.0, 1.6854889881101165, 0.48785225869530496, 0.04679131942596258,
        0.0019028442667439953, 3.684755044425611e-05, 3.5704322344374083e-07,
        1.7269374896631615e-09, 3.878301660239547e-12, 3.1404009894636335e-15)


def _sici_series(x):
    t = x * x
    si = x * _pv(_SN, t) / _pv(_SD, t)
    ci = _EULER + jnp.log(x) + t * _pv(_CN, t) / _pv(_CD, t)
    return jnp.where(x == 0, 0.0, si), jnp.where(x == 0, -np.inf, ci)


def _sici_asympt(x):
    s, c = jnp.sin(x), jnp.cos(x)
    z = 1.0 / (x * x)
    f4 = _pv(_FN4, z) / (x * _pv(_FD4, z))
    g4 = z * _pv(_GN4, z) / _pv(_GD4, z)
    f8 = _pv(_FN8, z) / (x * _pv(_FD8, z))
    g8 = z * _pv(_GN8, z) / _pv(_GD8, z)
    mask = x < 8.0
    f = jnp.where(mask, f4, f8)
    g = jnp.where(mask, g4, g8)
    return np.pi / 2 - f * c - g * s, f * s - g * c


def _sici_far(x):
    si = np.pi / 2 - jnp.cos(x) / x
    ci = jnp.sin(x) / x
    return jnp.where(jnp.isposinf(x), np.pi / 2, si), jnp.where(jnp.isposinf(x), 0.0, ci)


@custom_jvp
def _sici(x):
    ax = jnp.abs(x)
    ss, cs = _sici_series(ax)
    sa, ca = _sici_asympt(ax)
    sf, cf = _sici_far(ax)
    c1 = ax <= 4
    c2 = (ax > 4) & (ax <= 1e9)
    si = jnp.sign(x) * jnp.select([c1, c2], [ss, sa], sf)
    ci = jnp.where(jnp.isneginf(x), np.nan, jnp.select([c1, c2], [cs, ca], cf))
    return si, ci


@_sici.defjvp
def _sici_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return _sici(x), (jnp.sinc(x / np.pi) * t, jnp.cos(x) / x * t)


def sici(x):
    """The sine and cosine integrals ``(Si(x), Ci(x))`` (``jax.scipy.special.sici``)."""
    (x,) = promote_args_inexact("sici", x)
    if jnp.iscomplexobj(x):
        raise ValueError(f"Argument `x` to sici must be real-valued. Got dtype {x.dtype}.")
    return _sici(x)


# ---- spence ---------------------------------------------------------------------------------
_SPENCE_A = (4.6512858607399003e-05, 0.007315890452380947, 0.13384763957830903,
             0.8796913117545303, 2.7114985119655346, 4.256971560081218, 3.297713409852251,
             1.0)
_SPENCE_B = (0.0006909904889125533, 0.02540437639325444, 0.2829748606025681,
             1.4117259775183106, 3.6380053334513707, 5.03278880143317, 3.547713409852251, 1.0)


def _spence_calc(x):
    gt2 = x > 2.0
    x = jnp.piecewise(x, [gt2], [lambda v: 1.0 / v, lambda v: v])
    gt15 = x > 1.5
    lt05 = x < 0.5
    gt2 = gt2 | gt15
    w = jnp.piecewise(x, [gt15, lt05], [lambda v: 1.0 / v - 1.0, lambda v: -v,
                                        lambda v: v - 1.0])
    y = -w * _pv(_SPENCE_A, w) / _pv(_SPENCE_B, w)
    y = jnp.where(lt05, np.pi ** 2 / 6.0 - jnp.log(x) * jnp.log(1.0 - x) - y, y)
    return jnp.where(gt2, -0.5 * jnp.log(x) ** 2 - y, y)


def spence(x):
    """Spence's function (the dilogarithm ``Li_2(1 - x)``) (``jax.scipy.special.spence``;
    float32/float64 only)."""
    x = jnp.asarray(x)
    dt = np.dtype(x.dtype)
    if dt not in (np.float32, np.float64):
        raise TypeError(f"x.dtype={dt} is not supported, see docstring for supported types.")
    return jnp.piecewise(x, [x < 0.0, x == 1.0, x == 0.0],
                         [np.nan, 0, np.pi ** 2 / 6, _spence_calc])
