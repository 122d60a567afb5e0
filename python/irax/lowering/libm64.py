"""Float64 ``sin``, ``cos``, ``tan``, ``tanh``, ``atan2``, ``cbrt`` and ``fmod`` in plain
StableHLO arithmetic: what ``irax-expand-libm`` makes of them for a cross-compiled CPU
target. IREE 3.13 leaves these float64 functions to the C library (``undefined symbol:
sin``): the host build links the system's, an artifact for another machine has none.

sin, cos, tan (``|x| = k pi/2 + r``, ``r`` as a double-double ``rh + rl``):

    |x| < 2**19: Cody-Waite, pi/2 as pieces of 33, 33, 33 and 53 bits (k p_i exact for
                 the first three), subtracted in double-double
    elsewhere:   |x| = m 2**(E - 1075), m = mh 2**26 + ml (27 and 26 bits), so
                 |x| 2/pi mod 4 = mh T(E + 26) + ml T(E) mod 4, T(E) = 2**(E - 1075) 2/pi
                 mod 4 read from a table in seven 26-bit pieces t_j (every mh t_j and
                 ml t_j exact); the two leading products are taken mod 4 exactly, the
                 nearest integer k comes off the first, and the fourteen terms are summed
                 with Ogita, Rump and Oishi's SumK (K = 3: as if in triple precision),
                 so that even the closest approach to a multiple of pi/2 (~2**-61) keeps
                 its 53 bits

then Taylor polynomials in ``rh`` with ``rl``'s first-order term, the quadrant ``k mod 4``
picks and signs them, as ``trig.py`` does for float32.

    tanh x   = its Taylor series below |x| = 0.55, 1 - 2 / (exp(2|x|) + 1) above, 1 past 22
    atan2    = trig.py's method with twelve Taylor terms
    cbrt x   = a Newton step from exp(log|x| / 3) (|x| < 2**-900 scaled by 2**900 first),
               x's sign; zeros and infinities kept
    fmod x y = rounds of r <- r - trunc(r / b') b' with b' = |y| 2**j, j 50 below the
               exponent gap, exact (Dekker's product, Sterbenz's subtraction): the gap of
               two float64 values is below 2150, so 43 rounds finish every element
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction

import numpy as np

from irax.core.abstract import ShapedArray
from irax.dialect import mlir
from irax.lowering.trig import F64, atan2, complex_trig, pi_times_power_of_two, pieces

_PRECISION = 1400
_TWO_OVER_PI = Fraction(1 << (_PRECISION + 1), pi_times_power_of_two(_PRECISION))
_HALF_PI = Fraction(pi_times_power_of_two(_PRECISION), 1 << (_PRECISION + 1))
_CW_PIECES = pieces(_HALF_PI, (33, 33, 33, 53))
_HALF_PI_HI, _HALF_PI_LO = pieces(_HALF_PI, (53, 53))
#: below this |x| takes Cody-Waite's reduction (k < 2**19: k p_i exact for 33-bit p_i)
_CW_LIMIT = 2.0 ** 19
#: the biased exponent of 2**19, and the last row the table needs (2046 + 26)
_FIRST_E, _LAST_E = 1023 + 19, 2046 + 26
_PIECE_BITS, _PIECES = 26, 7
_SIN = [(-1) ** k / math.factorial(2 * k + 1) for k in range(1, 9)]     # r**3 .. r**17
_COS = [(-1) ** k / math.factorial(2 * k) for k in range(2, 10)]        # r**4 .. r**18
_FMOD_ROUNDS, _FMOD_STEP = 43, 50
_SPLITTER = 2.0 ** 27 + 1.0


@functools.cache
def _table() -> np.ndarray:
    """``[_PIECES, rows]``: the 26-bit pieces of ``T(E)`` for ``E`` from ``_FIRST_E`` to
    ``_LAST_E``; piece ``j`` holds the bits at places ``2**(1 - 26 j)`` .. ``2**(-24 - 26 j)``
    (truncation below ``2**-180``). Computed on first use (~0.1 s: not at import)."""
    rows = []
    for e in range(_FIRST_E, _LAST_E + 1):
        t = (_TWO_OVER_PI * Fraction(2) ** (e - 1075)) % 4
        cum = [Fraction(math.floor(t * 2 ** (24 + _PIECE_BITS * j)), 2 ** (24 + _PIECE_BITS * j))
               for j in range(_PIECES)]
        rows.append([float(c - (cum[j - 1] if j else 0)) for j, c in enumerate(cum)])
    return np.asarray(rows, np.float64).T.copy()


class F64Ops(F64):
    """``F64`` plus the integer views and exact products float64 reductions need."""

    def __init__(self, lb, shape):
        super().__init__(lb, shape)
        self.i64 = ShapedArray(shape, np.dtype(np.int64))
        self.bool = ShapedArray(shape, np.dtype(np.bool_))

    def ints(self, v):
        return self.lb.constant(np.full(self.aval.shape, v, np.int64))

    def iop(self, name, *xs):
        return self.lb.op(f"stablehlo.{name}", list(xs), self.i64)

    def lt(self, a, b):
        return self.lb.compare(a, b, "LT")

    def bits(self, x):
        return self.lb.op("stablehlo.bitcast_convert", [x], self.i64)

    def exponent(self, x):
        """The biased exponent field of ``x`` (int64)."""
        return self.iop("and", self.iop("shift_right_logical", self.bits(x), self.ints(52)),
                        self.ints(0x7FF))

    def power_of_two(self, e):
        """``2**e`` for int64 ``e`` in -1022 .. 1023."""
        return self.lb.op("stablehlo.bitcast_convert",
                          [self.iop("shift_left", self.iop("add", e, self.ints(1023)),
                                    self.ints(52))], self.aval)

    def fast_two_sum(self, a, b):
        """``a + b`` as ``s + e`` exactly, for ``|a| >= |b|``."""
        s = self("add", a, b)
        return s, self("subtract", b, self("subtract", s, a))

    def split(self, a):
        c = self.mul_c(a, _SPLITTER)
        hi = self("subtract", c, self("subtract", c, a))
        return hi, self("subtract", a, hi)

    def two_product(self, a, b):
        """``a * b`` as ``p + e`` exactly (Dekker's product)."""
        p = self("multiply", a, b)
        ah, al = self.split(a)
        bh, bl = self.split(b)
        e = self("add", self("add", self("subtract", self("multiply", ah, bh), p),
                             self("multiply", ah, bl)), self("multiply", al, bh))
        return p, self("add", e, self("multiply", al, bl))

    def sign_of(self, x, value):
        """``|value|`` with ``x``'s sign bit."""
        magnitude = self.iop("and", self.bits(value), self.ints(0x7FFFFFFFFFFFFFFF))
        sign = self.iop("and", self.bits(x), self.ints(-0x8000000000000000))
        return self.lb.op("stablehlo.bitcast_convert", [self.iop("or", magnitude, sign)],
                          self.aval)


def _sum_k(f: F64Ops, terms):
    """``sum(terms)`` as a double-double, as accurate as in triple precision (SumK, K=3)."""
    xs = list(terms)
    for _ in range(2):
        for i in range(1, len(xs)):
            xs[i], xs[i - 1] = f.two_sum(xs[i], xs[i - 1])
    lo = xs[0]
    for v in xs[1:-1]:
        lo = f("add", lo, v)
    return f.fast_two_sum(xs[-1], lo)


def _cody_waite(f: F64Ops, a):
    k = f.round(f.mul_c(a, float(_TWO_OVER_PI)))
    p1, p2, p3, p4 = _CW_PIECES
    r1 = f("subtract", a, f.mul_c(k, p1))
    h, lo = f.two_sum(r1, f("negate", f.mul_c(k, p2)))
    h, lo2 = f.two_sum(h, f("negate", f.mul_c(k, p3)))
    lo = f("subtract", f("add", lo, lo2), f.mul_c(k, p4))
    rh, rl = f.fast_two_sum(h, lo)
    return k, rh, rl


def _payne_hanek(f: F64Ops, a):
    lb, shape = f.lb, f.aval.shape
    bits = f.bits(a)
    e = f.exponent(a)
    m = f.iop("or", f.iop("and", bits, f.ints((1 << 52) - 1)), f.ints(1 << 52))
    mh = f("convert", f.iop("shift_right_logical", m, f.ints(26)))
    ml = f("convert", f.iop("and", m, f.ints((1 << 26) - 1)))
    i32 = ShapedArray(shape + (1,), np.dtype(np.int32))
    table = _table()
    last = table.shape[1] - 1

    def rows(offset):
        row = f.iop("clamp", f.ints(0), f.iop("subtract", e, f.ints(_FIRST_E - offset)),
                    f.ints(last))
        return lb.op("stablehlo.reshape", [lb.op("stablehlo.convert", [row],
                                                 ShapedArray(shape, np.dtype(np.int32)))],
                     i32)

    dn = lb.attr(f"#stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0], "
                 f"index_vector_dim = {len(shape)}>")

    def piece(j, row):
        return lb.create("stablehlo.gather", [lb.constant(table[j]), row], [lb.type(f.aval)],
                         {"dimension_numbers": dn, "slice_sizes": lb.i64s([1])}).results[0]

    hi_rows, lo_rows = rows(26), rows(0)
    p = [f("multiply", mh, piece(j, hi_rows)) for j in range(_PIECES)]
    q = [f("multiply", ml, piece(j, lo_rows)) for j in range(_PIECES)]

    def mod4(v):
        return f("subtract", v, f.mul_c(f.round(f.mul_c(v, 0.25)), 4.0))

    head = f("add", mod4(p[0]), mod4(q[0]))            # exact: multiples of 2**-24 below 4
    p1 = mod4(p[1])
    k = f.round(f("add", f("add", head, p1), q[1]))
    head = f("subtract", head, k)                       # exact
    terms = [head, p1, q[1]] + [v for j in range(2, _PIECES) for v in (p[j], q[j])]
    fh, fl = _sum_k(f, terms[::-1])
    ph, pl = f.two_product(fh, f.c(_HALF_PI_HI))
    pl = f("add", pl, f("add", f.mul_c(fh, _HALF_PI_LO), f.mul_c(fl, _HALF_PI_HI)))
    rh, rl = f.fast_two_sum(ph, pl)
    return k, rh, rl


def sin_cos_tan(lb, x, which: str):
    """``sin``, ``cos`` or ``tan`` (``which``) of the float64 value ``x``."""
    aval = mlir.aval_of(x)
    f = F64Ops(lb, aval.shape)
    a = f("abs", x)
    small = f.lt(a, f.c(_CW_LIMIT))
    k1, rh1, rl1 = _cody_waite(f, a)
    k2, rh2, rl2 = _payne_hanek(f, a)
    k, rh, rl = (f.select(small, u, v) for u, v in ((k1, k2), (rh1, rh2), (rl1, rl2)))
    z = f("multiply", rh, rh)
    hz = f.mul_c(z, 0.5)
    s = f("add", rh, f("add", f("multiply", f("multiply", rh, z), f.poly(_SIN, z)),
                       f("multiply", rl, f("subtract", f.c(1.0), hz))))
    w = f("subtract", f.c(1.0), hz)
    c = f("add", w, f("add", f("subtract", f("subtract", f.c(1.0), w), hz),
                      f("subtract", f("multiply", f("multiply", z, z), f.poly(_COS, z)),
                        f("multiply", rh, rl))))
    quadrant = f.iop("convert", k)

    def has(q, bit):
        return lb.compare(f.iop("and", q, f.ints(bit)), f.ints(bit), "EQ")

    def signed(q, odd_value, even_value):
        v = f.select(has(q, 1), odd_value, even_value)
        return f.select(has(q, 2), f("negate", v), v)

    next_quadrant = f.iop("add", quadrant, f.ints(1))
    if which == "cos":
        out = signed(next_quadrant, c, s)
    else:
        out = signed(quadrant, c, s)
        if which == "tan":
            out = f("divide", out, signed(next_quadrant, c, s))
        negative = f.lt(f.bits(x), f.ints(0))
        out = f.select(negative, f("negate", out), out)
    finite = lb.op("stablehlo.is_finite", [x], f.bool)
    return f.select(finite, out, f.c(np.nan))


def _tanh_series(terms: int) -> list[float]:
    """Taylor coefficients of ``tanh x / x`` in ``x**2``: ``2**2n (2**2n - 1) B_2n /
    (2n)!`` (Bernoulli numbers from their recurrence)."""
    b = [Fraction(1)]
    for m in range(1, 2 * terms + 1):
        b.append(-sum(math.comb(m + 1, i) * b[i] for i in range(m)) / (m + 1))
    return [float(4 ** n * (4 ** n - 1) * b[2 * n] / math.factorial(2 * n))
            for n in range(1, terms + 1)]


#: tanh's Taylor series on |x| < 0.55 (each term ~(2x/pi)**2 = 0.12 of the last)
_TANH = _tanh_series(19)


def tanh(lb, x):
    """``tanh`` of the float64 value ``x``: its Taylor series below ``|x| = 0.55`` (IREE's
    float64 ``expm1`` is 1e-9 off near zero), ``1 - 2 / (exp(2|x|) + 1)`` above, 1 past 22,
    with ``x``'s sign."""
    f = F64Ops(lb, mlir.aval_of(x).shape)
    a = f("abs", x)
    series = f("multiply", a, f.poly(_TANH, f("multiply", a, a)))
    big = f("subtract", f.c(1.0), f("divide", f.c(2.0), f("add", f("exponential",
                                                                    f.mul_c(a, 2.0)),
                                                              f.c(1.0))))
    out = f.select(f.lt(a, f.c(0.55)), series, big)
    out = f.select(f.lt(f.c(22.0), a), f.c(1.0), out)
    return f.select(lb.compare(x, x, "NE"), x, f.sign_of(x, out))


def atan2_64(lb, y, x):
    """``atan2(y, x)`` of float64 values (``trig.atan2`` with float64's Taylor terms)."""
    return atan2(lb, y, x, terms=12)


def cbrt(lb, x):
    """``cbrt`` of the float64 value ``x``."""
    f = F64Ops(lb, mlir.aval_of(x).shape)
    a = f("abs", x)
    # below 2**-900 the step's y**3 - a would be a (flushed) denormal: cbrt(a 2**900) 2**-300
    tiny = f.lt(a, f.c(2.0 ** -900))
    s = f.select(tiny, f.c(2.0 ** 900), f.c(1.0))
    a_s = f("multiply", a, s)
    y = f("exponential", f.mul_c(f("log", a_s), 1.0 / 3.0))
    y2 = f("multiply", y, y)
    y = f("subtract", y, f("divide", f("subtract", f("multiply", y2, y), a_s),
                           f.mul_c(y2, 3.0)))
    y = f("multiply", y, f.select(tiny, f.c(2.0 ** -300), f.c(1.0)))
    plain = lb.op("stablehlo.and", [lb.op("stablehlo.is_finite", [a], f.bool),
                                    lb.compare(a, f.c(0.0), "NE")], f.bool)
    return f.sign_of(x, f.select(plain, y, a))


def fmod(lb, x, y):
    """C's ``fmod(x, y)`` (the remainder with ``x``'s sign) of float64 values, exact."""
    f = F64Ops(lb, mlir.aval_of(x).shape)
    r, b = f("abs", x), f("abs", y)
    # the exponent of b, denormals included (b 2**64 is exact)
    tiny = f.lt(b, f.c(2.0 ** -1000))
    eb = f.lb.op("stablehlo.select", [tiny, f.iop("subtract", f.exponent(f.mul_c(b, 2.0 ** 64)),
                                                  f.ints(64)), f.exponent(b)], f.i64)
    for _ in range(_FMOD_ROUNDS):
        j = f.iop("maximum", f.iop("subtract", f.iop("subtract", f.exponent(r), eb),
                                   f.ints(_FMOD_STEP)), f.ints(0))
        j1 = f.iop("minimum", j, f.ints(1000))
        j2 = f.iop("minimum", f.iop("subtract", j, j1), f.ints(1000))
        bj = b
        for part in (j1, j2, f.iop("subtract", f.iop("subtract", j, j1), j2)):
            bj = f("multiply", bj, f.power_of_two(part))
        # near the bottom of the range Dekker's partial products would underflow: there
        # r < bj 2**52 is tiny too, so the round runs on both scaled by 2**600 (exact)
        scale = f.select(f.lt(bj, f.c(2.0 ** -900)), f.c(2.0 ** 600), f.c(1.0))
        rs, bs = f("multiply", r, scale), f("multiply", bj, scale)
        q = f("floor", f("divide", rs, bs))
        ph, pl = f.two_product(q, bs)
        rem = f("subtract", f("subtract", rs, ph), pl)
        rem = f.select(f.lt(rem, f.c(0.0)), f("add", rem, bs), rem)
        rem = f.select(f.lt(rem, bs), rem, f("subtract", rem, bs))
        r = f.select(f.lt(r, b), r, f("divide", rem, scale))
    bad = lb.op("stablehlo.or", [lb.op("stablehlo.not", [lb.op("stablehlo.is_finite", [x],
                                                                f.bool)], f.bool),
                                 lb.compare(y, f.c(0.0), "EQ")], f.bool)
    nan_y = lb.compare(y, y, "NE")
    out = f.select(lb.op("stablehlo.or", [bad, nan_y], f.bool), f.c(np.nan), f.sign_of(x, r))
    return out


def complex_trig64(lb, z, which: str):
    """``sin``, ``cos``, ``tan`` or ``exp`` of the complex128 value ``z`` (``trig.py``'s
    formulas on float64 parts, with this module's sine and cosine)."""
    return complex_trig(lb, z, which, real_trig=sin_cos_tan)


def complex_parts(lb, z):
    aval = mlir.aval_of(z)
    f = F64Ops(lb, aval.shape)
    return f, lb.op("stablehlo.real", [z], f.aval), lb.op("stablehlo.imag", [z], f.aval)


def complex_log(lb, z):
    """``log z = log|z| + i atan2(im z, re z)`` of the complex128 value ``z`` (IREE's own
    expansion calls the C library's ``atan2``)."""
    f, a, b = complex_parts(lb, z)
    modulus = lb.op("stablehlo.abs", [z], f.aval)
    return lb.op("stablehlo.complex", [f("log", modulus), atan2_64(lb, b, a)],
                 mlir.aval_of(z))


def complex_sqrt(lb, z):
    """The principal ``sqrt`` of the complex128 value ``z``, without polar form (IREE's
    calls ``atan2``): ``t = sqrt(|re|/2 + |z|/2)``; ``(t, im / 2t)`` for ``re >= 0``, else
    ``(|im| / 2t, t with im's sign)``; zero gives ``(0, im)``, an infinite ``im`` ``(inf, im)``."""
    f, a, b = complex_parts(lb, z)
    modulus = lb.op("stablehlo.abs", [z], f.aval)
    t = f("sqrt", f("add", f.mul_c(f("abs", a), 0.5), f.mul_c(modulus, 0.5)))
    half = f("divide", b, f.mul_c(t, 2.0))
    negative = f.lt(a, f.c(0.0))
    re = f.select(negative, f("abs", half), t)
    im = f.select(negative, f.sign_of(b, t), half)
    zero = lb.compare(modulus, f.c(0.0), "EQ")
    re, im = f.select(zero, f.c(0.0), re), f.select(zero, b, im)
    inf_im = lb.compare(f("abs", b), f.c(np.inf), "EQ")
    re, im = f.select(inf_im, f.c(np.inf), re), f.select(inf_im, b, im)
    return lb.op("stablehlo.complex", [re, im], mlir.aval_of(z))


def complex_tanh(lb, z):
    """``tanh z = -i tan(iz)`` of the complex128 value ``z``."""
    f, a, b = complex_parts(lb, z)
    aval = mlir.aval_of(z)
    t = complex_trig64(lb, lb.op("stablehlo.complex", [f("negate", b), a], aval), "tan")
    p = lb.op("stablehlo.real", [t], f.aval)
    q = lb.op("stablehlo.imag", [t], f.aval)
    return lb.op("stablehlo.complex", [q, f("negate", p)], aval)


def complex_rsqrt(lb, z):
    """``1 / sqrt z`` of the complex128 value ``z``."""
    aval = mlir.aval_of(z)
    one = lb.constant(np.ones(aval.shape, np.complex128))
    return lb.op("stablehlo.divide", [one, complex_sqrt(lb, z)], aval)


def complex_power(lb, x, y):
    """``x ** y = exp(y log x)`` of complex128 values; ``0 ** y`` is 1 for ``y == 0``, else
    0 (IREE's own expansion calls ``atan2``)."""
    aval = mlir.aval_of(x)
    out = complex_trig64(lb, lb.op("stablehlo.multiply", [y, complex_log(lb, x)], aval), "exp")
    zero = lb.constant(np.zeros(aval.shape, np.complex128))
    x0 = lb.compare(x, zero, "EQ")
    y0 = lb.compare(y, zero, "EQ")
    special = lb.op("stablehlo.select", [y0, lb.constant(np.ones(aval.shape, np.complex128)),
                                         zero], aval)
    return lb.op("stablehlo.select", [x0, special, out], aval)
