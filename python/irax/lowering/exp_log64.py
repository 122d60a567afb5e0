"""Float64 ``exp``, ``expm1``, ``log``, ``log1p``, ``pow`` and ``logistic`` in plain
StableHLO arithmetic, for CPU targets whose IREE build calls the C library for them
(wasm32: ``undefined symbol: exp``); ``irax-expand-libm`` uses them for every
cross-compiled CPU target, so that one expansion serves all of them.

    exp x    x = k ln2 + r, |r| <= ln2/2: ln2 in two pieces (the first of 42 bits, so
             k ln2_hi is exact for every k that matters and x - k ln2_hi is exact by
             Sterbenz), r as r + dr; exp r - 1 by its Taylor polynomial (degree 14:
             0.35**15/15! < 2**-63), then (1 + p) 2**k scaled in two steps
    expm1 x  the same p: p + dr (1 + p) for k = 0, (p + 1 - 2**-k) 2**k above, 2**k (1 + p)
             - 1 below
    log x    x = m 2**e with m in [sqrt(1/2), sqrt(2)), f = m - 1 (exact), s = f / (2 + f)
             in double-double, log m = 2 atanh s = 2s + 2 s**3 (1/3 + s**2/5 + ...),
             11 terms (s**2 <= 0.0295), e ln2 added in double-double
    log1p x  log of 1 + x taken as a double-double (uh + ul): log uh + ul / uh
    pow x y  exp(y log|x|) with log|x| in double-double and y times it as an exact
             product; C's special cases (integer y for x < 0, zeros, infinities, NaN)
    logistic 1 / (1 + exp(-x))
    complex128 expm1 and log1p from these, without cancellation near zero

Each is within an ulp or two of the exact value (``tests/export/test_libm64.py``);
results in the denormal range are flushed to zero, as IREE's CPU code does anyway.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from irax.dialect import mlir
from irax.lowering.libm64 import F64Ops, atan2_64, complex_parts
from irax.lowering.trig import ROUNDER, pieces


def _ln2(bits: int) -> Fraction:
    """ln 2 to within ``2**-bits`` (its series, sum of 1 / (k 2**k), in integers)."""
    guard = bits + 16
    total = sum((1 << guard) // (k << k) for k in range(1, guard + 1))
    return Fraction(total >> 16, 1 << bits)


_LN2 = _ln2(230)
_LN2_HI, _LN2_LO = pieces(_LN2, (42, 53))
_INV_LN2 = float(1 / _LN2)
#: exp r - 1 = r (1 + r/2 + r**2/6 + ...): the coefficients of r**1 .. r**14
_EXPM1 = [1.0 / math.factorial(n) for n in range(1, 15)]
#: 2 atanh s = 2s + 2 s**3 P(s**2), P's coefficients 1/3, 1/5, ... (11 terms)
_ATANH = [2.0 / (2 * n + 3) for n in range(11)]
_EXP_MAX = 709.782712893384       # exp overflows above (the largest x with a finite exp)
_EXP_MIN = -745.1332191019412     # exp rounds to zero below
_SQRT_HALF = math.sqrt(0.5)




def _to_int(f, kf):
    """The int64 value of the integer float64 ``kf`` (``|kf| < 2**51``: added to ROUNDER,
    1.5 2**52, it sits in the low significand bits; bits, not a conversion: IREE's
    float-to-integer conversion calls the C library's ``trunc``)."""
    return f.iop("subtract", f.bits(f("add", kf, f.c(ROUNDER))), f.bits(f.c(ROUNDER)))


def _to_float(f, k):
    """The float64 value of the int64 ``k`` (``|k| < 2**51``)."""
    v = f.lb.op("stablehlo.bitcast_convert", [f.iop("add", f.bits(f.c(ROUNDER)), k)], f.aval)
    return f("subtract", v, f.c(ROUNDER))


def _rint(f, v):
    """``v`` rounded to the nearest integer, ties to even (adding and subtracting 2**52
    rounds so, exactly, below 2**52; from there on ``v`` is an integer)."""
    a = f("abs", v)
    near = f.sign_of(v, f("subtract", f("add", a, f.c(2.0 ** 52)), f.c(2.0 ** 52)))
    return f.select(f.lt(a, f.c(2.0 ** 52)), near, v)


def _floor(f, v):
    """``floor(v)``: ``rint(v)``, one less where that went up."""
    near = _rint(f, v)
    return f.select(f.lt(v, near), f("subtract", near, f.c(1.0)), near)


def floor(lb, x):
    """``floor`` of the float64 value ``x`` without the C library (a cross-compiled
    x86-64 without SSE4.1 calls ``floor``, ``ceil`` and ``trunc`` there, wasm32 ``round``)."""
    f = F64Ops(lb, mlir.aval_of(x).shape)
    return _floor(f, x)


def ceil(lb, x):
    """``ceil`` of the float64 value ``x`` (``-floor(-x)``)."""
    f = F64Ops(lb, mlir.aval_of(x).shape)
    return f("negate", _floor(f, f("negate", x)))


def round_even(lb, x):
    """``x`` rounded to the nearest integer, ties to even (float64)."""
    f = F64Ops(lb, mlir.aval_of(x).shape)
    return _rint(f, x)


def round_afz(lb, x):
    """``x`` rounded to the nearest integer, ties away from zero (float64)."""
    f = F64Ops(lb, mlir.aval_of(x).shape)
    a = f("abs", x)
    t = _floor(f, a)
    up = f.lb.op("stablehlo.not", [f.lt(f("subtract", a, t), f.c(0.5))], f.bool)
    return f.sign_of(x, f.select(up, f("add", t, f.c(1.0)), t))


def _nan_or(f, x, value):
    return f.select(f.lb.compare(x, x, "NE"), x, value)


def _scale(f, y, k):
    """``y 2**k`` for int64 ``k`` in -2044 .. 2046 (two steps, only the last rounds)."""
    k1 = f.iop("divide", k, f.ints(2))
    return f("multiply", f("multiply", y, f.power_of_two(k1)),
             f.power_of_two(f.iop("subtract", k, k1)))


def _reduce(f, x, xl=None):
    """``(k, r, dr, p)``: ``x (+ xl) = k ln2 + r + dr``, ``p = exp(r) - 1``; ``x`` is
    clamped to where that is exact (the callers select their overflow values)."""
    xc = f.lb.op("stablehlo.clamp", [f.c(-746.0), x, f.c(710.0)], f.aval)
    kf = f.round(f.mul_c(xc, _INV_LN2))
    hi = f("subtract", xc, f.mul_c(kf, _LN2_HI))
    lo = f.mul_c(kf, _LN2_LO)
    r, dr = f.fast_two_sum(hi, f("negate", lo))
    if xl is not None:
        dr = f("add", dr, xl)
    p = f("multiply", r, f.poly(_EXPM1, r))
    return _to_int(f, kf), r, dr, p


def _exp(f, x, xl=None):
    k, _, dr, p = _reduce(f, x, xl)
    # exp(r + dr) = (1 + p)(1 + dr): 1 + (p + dr (1 + p))
    m = f("add", f.c(1.0), f("add", p, f("multiply", dr, f("add", f.c(1.0), p))))
    out = _scale(f, m, k)
    out = f.select(f.lt(f.c(_EXP_MAX), x), f.c(np.inf), out)
    return f.select(f.lt(x, f.c(_EXP_MIN)), f.c(0.0), out)


def exp(lb, x):
    """``exp`` of the float64 value ``x``."""
    f = F64Ops(lb, mlir.aval_of(x).shape)
    return _nan_or(f, x, _exp(f, x))


def expm1(lb, x):
    """``expm1`` of the float64 value ``x``."""
    f = F64Ops(lb, mlir.aval_of(x).shape)
    k, _, dr, p = _reduce(f, x)
    q = f("add", p, f("multiply", dr, f("add", f.c(1.0), p)))        # exp(r + dr) - 1
    kc = f.iop("clamp", f.ints(-1100), k, f.ints(1100))
    up = _scale(f, f("add", q, f("subtract", f.c(1.0), f.power_of_two(
        f.iop("negate", f.iop("minimum", kc, f.ints(1000)))))), kc)   # k >= 1
    down = f("subtract", _scale(f, f("add", f.c(1.0), q), kc), f.c(1.0))  # k <= -1
    zero = f.lb.compare(k, f.ints(0), "EQ")
    out = f.select(zero, q, f.select(f.lb.compare(k, f.ints(0), "GT"), up, down))
    out = f.select(f.lt(f.c(_EXP_MAX), x), f.c(np.inf), out)
    out = f.select(f.lt(x, f.c(-40.0)), f.c(-1.0), out)
    return _nan_or(f, x, out)


def _log_parts(f, u):
    """``log u`` as ``hi + lo`` (``u`` positive and normal), ``|lo|`` a few percent of
    ``|hi|`` at most."""
    e = f.iop("subtract", f.exponent(u), f.ints(1023))
    mbits = f.iop("or", f.iop("and", f.bits(u), f.ints((1 << 52) - 1)), f.ints(1023 << 52))
    m = f.lb.op("stablehlo.bitcast_convert", [mbits], f.aval)        # u 2**-e, in [1, 2)
    big = f.lt(f.c(2 * _SQRT_HALF), m)
    m = f.select(big, f.mul_c(m, 0.5), m)
    e = f.lb.op("stablehlo.select", [big, f.iop("add", e, f.ints(1)), e], f.i64)
    fm = f("subtract", m, f.c(1.0))                                   # exact
    dh, dl = f.fast_two_sum(f.c(2.0), fm)                             # 2 + f, exactly
    sh = f("divide", fm, dh)
    ph, pl = f.two_product(sh, dh)
    sl = f("divide", f("subtract", f("subtract", f("subtract", fm, ph), pl),
                       f("multiply", sh, dl)), dh)
    s2 = f("multiply", sh, sh)
    tail = f("add", f.mul_c(sl, 2.0), f("multiply", f("multiply", sh, s2), f.poly(_ATANH, s2)))
    ef = _to_float(f, e)
    hi, err = f.two_sum(f.mul_c(ef, _LN2_HI), f.mul_c(sh, 2.0))
    return hi, f("add", f("add", err, tail), f.mul_c(ef, _LN2_LO))


def _log_specials(f, x, out, at_zero):
    """C's values: NaN below ``at_zero``, -inf at it, +inf and NaN kept."""
    out = f.select(f.lb.compare(x, f.c(at_zero), "EQ"), f.c(-np.inf), out)
    out = f.select(f.lt(x, f.c(at_zero)), f.c(np.nan), out)
    out = f.select(f.lb.compare(x, f.c(np.inf), "EQ"), x, out)
    return _nan_or(f, x, out)


def log(lb, x):
    """``log`` of the float64 value ``x`` (denormal inputs count as zero)."""
    f = F64Ops(lb, mlir.aval_of(x).shape)
    pos = f.select(f.lt(x, f.c(2.0 ** -1022)), f.c(1.0), x)          # placeholder below
    hi, lo = _log_parts(f, pos)
    denormal = f.lb.op("stablehlo.and", [f.lt(f.c(0.0), x), f.lt(x, f.c(2.0 ** -1022))],
                       f.bool)
    return _log_specials(f, f.select(denormal, f.c(0.0), x), f("add", hi, lo), 0.0)


def log1p(lb, x):
    """``log1p`` of the float64 value ``x``."""
    f = F64Ops(lb, mlir.aval_of(x).shape)
    small = f.lt(f("abs", x), f.c(1.0))
    a, b = f.select(small, f.c(1.0), x), f.select(small, x, f.c(1.0))
    uh, ul = f.fast_two_sum(a, b)                                     # 1 + x exactly
    safe = f.select(f.lt(uh, f.c(2.0 ** -1022)), f.c(1.0), uh)
    hi, lo = _log_parts(f, safe)
    out = f("add", hi, f("add", lo, f("divide", ul, safe)))
    out = f.select(f.lt(f("abs", x), f.c(2.0 ** -54)), x, out)       # keeps -0.0 and tiny x
    return _log_specials(f, x, out, -1.0)


def logistic(lb, x):
    """``1 / (1 + exp(-x))`` of the float64 value ``x``."""
    f = F64Ops(lb, mlir.aval_of(x).shape)
    e = _exp(f, f("negate", x))
    return _nan_or(f, x, f("divide", f.c(1.0), f("add", f.c(1.0), e)))


def power(lb, x, y):
    """C's ``pow(x, y)`` of float64 values: ``exp(y log|x|)``, the sign of an odd integer
    power of a negative ``x``, and C's special cases."""
    f = F64Ops(lb, mlir.aval_of(x).shape)
    a = f("abs", x)
    safe = f.select(f.lt(a, f.c(2.0 ** -1022)), f.c(1.0), a)
    safe = f.select(f.lb.compare(safe, f.c(np.inf), "EQ"), f.c(1.0), safe)
    hi, lo = _log_parts(f, safe)
    lh, ll = f.fast_two_sum(hi, lo)
    ph, pl = f.two_product(y, lh)
    pl = f("add", pl, f("multiply", y, ll))
    zh, zl = f.fast_two_sum(ph, pl)
    mag = f.select(f.lt(f.c(_EXP_MAX), zh), f.c(np.inf), _exp(f, zh, zl))
    # y an integer: |y| below 2**53 with y == floor(y); odd when y / 2 is not an integer
    integer = f.lb.compare(_floor(f, y), y, "EQ")
    half = f.mul_c(y, 0.5)
    odd = f.lb.op("stablehlo.and", [integer, f.lb.compare(_floor(f, half), half, "NE")],
                  f.bool)
    neg = f.lt(x, f.c(0.0))
    out = f.select(f.lb.op("stablehlo.and", [neg, odd], f.bool), f("negate", mag), mag)
    out = f.select(f.lb.op("stablehlo.and", [neg, f.lb.op("stablehlo.not", [integer], f.bool)],
                           f.bool), f.c(np.nan), out)
    # zeros and infinities of x: |x|**y is 0 or inf, signed for odd integer y and x < 0
    inf_y = f.lb.compare(f("abs", y), f.c(np.inf), "EQ")
    zero = f.lb.compare(a, f.c(0.0), "EQ")
    at_zero = f.select(f.lt(y, f.c(0.0)), f.c(np.inf), f.c(0.0))
    at_inf = f.select(f.lt(y, f.c(0.0)), f.c(0.0), f.c(np.inf))
    signed = f.lb.op("stablehlo.and", [odd, f.lb.op("stablehlo.not", [inf_y], f.bool)],
                     f.bool)
    edge = f.select(zero, at_zero, at_inf)
    edge = f.select(signed, f.sign_of(x, edge), edge)
    out = f.select(f.lb.op("stablehlo.or", [zero, f.lb.compare(a, f.c(np.inf), "EQ")],
                           f.bool), edge, out)
    # infinite y: |x| against 1
    y_inf = f.select(f.lt(a, f.c(1.0)), f.select(f.lt(y, f.c(0.0)), f.c(np.inf), f.c(0.0)),
                     f.select(f.lt(y, f.c(0.0)), f.c(0.0), f.c(np.inf)))
    y_inf = f.select(f.lb.compare(a, f.c(1.0), "EQ"), f.c(1.0), y_inf)
    out = f.select(f.lb.op("stablehlo.and", [inf_y, f.lb.compare(a, a, "EQ")], f.bool),
                   y_inf, out)
    out = f.select(f.lb.op("stablehlo.or", [f.lb.compare(x, x, "NE"),
                                            f.lb.compare(y, y, "NE")], f.bool),
                   f.c(np.nan), out)
    # pow(x, 0) = 1 and pow(1, y) = 1, NaN included
    one = f.lb.op("stablehlo.or", [f.lb.compare(y, f.c(0.0), "EQ"),
                                   f.lb.compare(x, f.c(1.0), "EQ")], f.bool)
    return f.select(one, f.c(1.0), out)


def complex_expm1(lb, z):
    """``exp(z) - 1`` of the complex128 value ``z = x + iy`` without cancellation near
    zero: ``expm1(x) cos y - 2 sin(y/2)**2 + i exp(x) sin y``."""
    f, x, y = complex_parts(lb, z)
    em1 = f("exponential_minus_one", x)
    half = f("sine", f.mul_c(y, 0.5))
    re = f("subtract", f("multiply", em1, f("cosine", y)),
           f.mul_c(f("multiply", half, half), 2.0))
    im = f("multiply", f("exponential", x), f("sine", y))
    # y = 0: the real line exactly (sin 0 is 0 whatever exp x is)
    im = f.select(lb.compare(y, f.c(0.0), "EQ"), y, im)
    return lb.op("stablehlo.complex", [re, im], mlir.aval_of(z))


def complex_log1p(lb, z):
    """``log(1 + z)`` of the complex128 value ``z = x + iy``: near zero the real part is
    ``log1p(x (2 + x) + y**2) / 2`` (no rounding of 1 + x), elsewhere ``log|1 + z|``;
    the imaginary part ``atan2(y, 1 + x)``."""
    f, x, y = complex_parts(lb, z)
    aval = mlir.aval_of(z)
    one_x = f("add", f.c(1.0), x)
    near = lb.op("stablehlo.and", [f.lt(f("abs", x), f.c(0.5)), f.lt(f("abs", y), f.c(0.5))],
                 f.bool)
    t = f("add", f("multiply", x, f("add", f.c(2.0), x)), f("multiply", y, y))
    small = f.mul_c(f("log_plus_one", t), 0.5)
    far = f("log", lb.op("stablehlo.abs", [lb.op("stablehlo.complex", [one_x, y], aval)],
                         f.aval))
    return lb.op("stablehlo.complex", [f.select(near, small, far), atan2_64(lb, y, one_x)],
                 aval)
