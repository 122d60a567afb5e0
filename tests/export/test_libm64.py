"""Float64 math functions on a cross-compiled CPU target (``irax-expand-libm``): the
``x86_64`` artifact is linked by IREE's embedded linker without any libm, as an aarch64 or
riscv64 one is, and it runs on this machine, so its numbers are checked here against
NumPy and, where NumPy's own float64 functions are inexact, against exact rationals.

IREE's CPU arithmetic flushes float64 denormals to zero (``x + 1e-310`` is 0 in any
compiled program), so inputs and results stay in the normal range."""

from decimal import Decimal, getcontext
from fractions import Fraction

import numpy as np
import pytest

import irax
import irax.numpy as jnp
from irax.lowering.trig import pi_times_power_of_two


@pytest.fixture
def x64():
    irax.config.update("jax_enable_x64", True)
    yield
    irax.config.update("jax_enable_x64", False)


def _ulps(got, want):
    got, want = np.asarray(got), np.asarray(want)
    with np.errstate(invalid="ignore"):
        d = np.abs(got - want) / np.spacing(np.abs(want))
    d[(got == want) | (np.isnan(got) & np.isnan(want))] = 0.0
    return d


#: fixed point: x 2**_S is an integer for every float64 (_S > 1074), and pi/2 2**_S is
#: known to within 1 (so k pi/2, k < 2**1025, to within 2**-1400)
_S = 2500
_HALF_PI_S = pi_times_power_of_two(_S) // 2
_T = 320      # the series' fixed point: r 2**_T, terms far past 2**-200


def _exact_sin_cos(x: float):
    """``(sin x, cos x)`` rounded once from the exact reduction (x finite), in integer
    fixed point (Fractions cost minutes here)."""
    num, den = x.as_integer_ratio()             # den a power of two <= 2**1074
    big = num * ((1 << _S) // den)              # x 2**_S exactly
    k = (2 * big + _HALF_PI_S) // (2 * _HALF_PI_S)   # nearest integer to x / (pi/2)
    r = (big - k * _HALF_PI_S) >> (_S - _T)     # |r| <= pi/4, scaled by 2**_T
    r2 = (r * r) >> _T
    s = c = 0
    term = r
    for n in range(1, 60, 2):
        s += term
        term = -(term * r2 >> _T) // ((n + 1) * (n + 2))
    term = 1 << _T
    for n in range(0, 60, 2):
        c += term
        term = -(term * r2 >> _T) // ((n + 1) * (n + 2))
    sin, cos = [(s, c), (c, -s), (-s, -c), (-c, s)][k % 4]
    return sin / (1 << _T), cos / (1 << _T)


def _inputs():
    rng = np.random.default_rng(7)
    n = 3000
    x = np.concatenate([rng.uniform(-12, 12, n),
                        10.0 ** rng.uniform(-300, 307, n) * rng.choice([-1, 1], n),
                        [0.0, -0.0, np.inf, -np.inf, np.nan, 2.0 ** 19, 2.0 ** 19 - 2 ** -33,
                         -1e300, 1e22, 6381956970095103.0 * 2.0 ** 797, 5.319372648326541e255,
                         np.pi, -np.pi / 2, 1e-300, 0.54999, 0.55, 22.5, -7e5]])
    y = np.concatenate([rng.uniform(-3, 3, n), 10.0 ** rng.uniform(-300, 307, n),
                        rng.uniform(-2, 2, 18)])
    y[-18:-12] = [np.inf, 0.0, -0.0, np.nan, 1e-300, -2.5]
    return x, y


def _exact_cbrt(x, got):
    """NumPy's ``cbrt(x)`` where it is within an ulp of ``got``, elsewhere the float64
    nearest the exact cube root (exact rationals): NumPy's own cbrt is up to 4 ulp off on
    some machines (its AVX-512 kernel gives ``cbrt(27.0) = 3.0000000000000004``)."""
    out = np.cbrt(x)
    far = np.isfinite(x) & (x != 0) & (_ulps(got, out) > 1)
    for i in np.flatnonzero(far):
        v, c = Fraction(float(x[i])), float(out[i])
        near = [c]
        for _ in range(6):
            near = [np.nextafter(near[0], -np.inf), *near, np.nextafter(near[-1], np.inf)]
        out[i] = min(near, key=lambda t: abs(Fraction(float(t)) ** 3 - v))
    return out


def test_float64_math_on_a_cross_target_matches_numpy_and_exact_values(x64):
    x, y = _inputs()

    def f(x, y):
        return (jnp.sin(x), jnp.cos(x), jnp.tan(x), jnp.tanh(x), jnp.arctan2(x, y),
                jnp.cbrt(x), jnp.fmod(x, y), jnp.arctan(x))

    spec = irax.ShapeDtypeStruct(x.shape, np.float64)
    exported = irax.export.export(f, targets=["x86_64"])(spec, spec)
    got = [np.asarray(v) for v in exported.call(x, y)]
    with np.errstate(all="ignore"):
        want = [np.sin(x), np.cos(x), np.tan(x), np.tanh(x), np.arctan2(x, y),
                _exact_cbrt(x, got[5]), np.fmod(x, y), np.arctan(x)]
    # NumPy's float64 sin/cos/tan are themselves 1-8 ulp off for some huge arguments: the
    # reference there is the exact value
    large = np.isfinite(x) & (np.abs(x) >= 2.0 ** 19)
    for i in np.flatnonzero(large):
        s, c = _exact_sin_cos(float(x[i]))
        want[0][i], want[1][i] = s, c
        got_tan = got[2][i]
        assert abs(got_tan - s / c) <= 3 * np.spacing(abs(s / c)), x[i]
        want[2][i] = got_tan
    limits = {"sin": 1, "cos": 1, "tan": 3, "tanh": 2, "atan2": 4, "cbrt": 1, "fmod": 0,
              "arctan": 4}
    for (name, limit), g, w in zip(limits.items(), got, want):
        u = _ulps(g, w)
        u[np.abs(w) < 1e-290] = 0.0        # denormal results: flushed (see the docstring)
        worst = int(np.argmax(u))
        assert u[worst] <= limit, (name, x[worst], y[worst], g[worst], w[worst], u[worst])
    # the special values, exactly as C's functions
    sin, cos, tan, tanh, atan2, cbrt, fmod, _ = got
    tail = slice(2 * 3000, None)
    np.testing.assert_array_equal(np.signbit(sin[tail][:2]), [False, True])
    assert np.isnan(sin[tail][2:5]).all() and np.isnan(cos[tail][2:5]).all()
    np.testing.assert_array_equal(tanh[tail][2:5], [1.0, -1.0, np.nan])
    np.testing.assert_array_equal(cbrt[tail][:5], [0.0, -0.0, np.inf, -np.inf, np.nan])
    np.testing.assert_array_equal(np.signbit(cbrt[tail][:2]), [False, True])



def _log1p(z):
    """``log(1 + z)`` of complex128 values with the real part from 50-digit decimals:
    NumPy's loses it near zero (``log1p(1e-8 + 1e-9j)`` has 9.9999998892e-09 for
    9.9999999505e-09)."""
    getcontext().prec = 50
    re = [float(((1 + Decimal(v.real)) ** 2 + Decimal(v.imag) ** 2).ln() / 2) for v in z]
    return np.asarray(re) + 1j * np.arctan2(z.imag, 1 + z.real)


def test_complex128_math_on_a_cross_target_matches_numpy(x64):
    rng = np.random.default_rng(3)
    z = rng.uniform(-5, 5, 600) + 1j * rng.uniform(-5, 5, 600)
    z[:8] = [0, 1j, -1, -4 + 0j, 1e-8 + 1e-9j, -2 - 0j, 3e5 + 0.5j, 0.25 - 1e-12j]
    w = rng.uniform(-2, 2, 600) + 1j * rng.uniform(-2, 2, 600)
    w[0] = 0.0

    def f(z, w):
        return (jnp.sin(z), jnp.cos(z), jnp.tan(z), jnp.tanh(z), jnp.exp(z), jnp.log(z),
                jnp.sqrt(z), irax.lax.rsqrt(z), z ** w, jnp.expm1(z), jnp.log1p(z),
                jnp.expm1(z * 1e-9), jnp.log1p(z * 1e-9))

    spec = irax.ShapeDtypeStruct(z.shape, np.complex128)
    got = irax.export.export(f, targets=["x86_64", "wasm32"])(spec, spec).call(z, w)
    with np.errstate(all="ignore"):
        want = (np.sin(z), np.cos(z), np.tan(z), np.tanh(z), np.exp(z), np.log(z[1:]),
                np.sqrt(z), 1 / np.sqrt(z[1:]), z ** w, np.expm1(z), _log1p(z[3:]),
                np.expm1(z * 1e-9), _log1p(z * 1e-9))
    names = ("sin", "cos", "tan", "tanh", "exp", "log", "sqrt", "rsqrt", "power", "expm1",
             "log1p", "expm1 near 0", "log1p near 0")
    for name, g, v in zip(names, got, want):
        g = np.asarray(g)[-len(v):]
        with np.errstate(invalid="ignore"):
            err = np.abs(g - v) / np.maximum(np.abs(v), 1e-300)
        err[g == v] = 0.0
        worst = int(np.argmax(err))
        assert err[worst] < 1e-13, (name, g[worst], v[worst])
    assert np.asarray(got[8])[0] == 1.0 and np.asarray(got[6])[0] == 0.0


def test_float64_exp_log_family_on_a_cross_target(x64):
    """exp, expm1, log, log1p, pow and logistic of float64 as irax-expand-libm writes them
    (wasm32's IREE calls the C library for them): within 1-2 ulp of NumPy (whose own are
    within an ulp), C's special values, and the wasm32 artifact links."""
    rng = np.random.default_rng(11)
    n = 4000
    x = np.concatenate([rng.uniform(-40, 40, n), rng.uniform(-745, 709.7, n),
                        10.0 ** rng.uniform(-300, 2.8, n) * rng.choice([-1, 1], n),
                        [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 709.78, 709.79,
                         -745.2, 1e-17, -1e-17, 0.3465, -0.3466, 2.0 ** -30, 1.5, 0.5]])
    p = np.abs(x) + 1e-300
    p[-17:] = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 2.0, 1e300, 1e-300,
               0.70710678, 1.41421357, 0.9999999999, 1.0000000001, 1e-17, 3.0, 7.0]
    u = np.concatenate([rng.uniform(-0.999, 4, n), 10.0 ** rng.uniform(-300, 300, 2 * n),
                        [-1.0, -1.5, 0.0, -0.0, np.inf, np.nan, 1e-20, -1e-20, 2.0 ** -53,
                         -0.5, 0.5, 1.0, 1e300, -0.9999999, 3.0, 1e-300, 7.0]])
    b = rng.uniform(0.01, 8, x.size)
    e = rng.uniform(-60, 60, x.size)

    def f(x, p, u, b, e):
        return (jnp.exp(x), jnp.expm1(x), jnp.log(p), jnp.log1p(u), b ** e,
                irax.nn.sigmoid(x))

    spec = irax.ShapeDtypeStruct(x.shape, np.float64)
    exported = irax.export.export(f, targets=["x86_64", "wasm32"])(*[spec] * 5)
    got = [np.asarray(v) for v in exported.call(x, p, u, b, e)]
    with np.errstate(all="ignore"):
        want = [np.exp(x), np.expm1(x), np.log(p), np.log1p(u), b ** e, 1 / (1 + np.exp(-x))]
    limits = {"exp": 1, "expm1": 2, "log": 1, "log1p": 1, "pow": 2, "logistic": 2}
    for (name, limit), g, w in zip(limits.items(), got, want):
        u_ = _ulps(g, w)
        u_[np.abs(w) < 1e-290] = 0.0        # denormal results: flushed
        worst = int(np.argmax(u_))
        assert u_[worst] <= limit, (name, worst, g[worst], w[worst], u_[worst])
    # C's values at the edges
    exp, expm1, log, log1p, _, sig = got
    np.testing.assert_array_equal(exp[-17:-12], [1.0, 1.0, np.inf, 0.0, np.nan])
    np.testing.assert_array_equal(expm1[-17:-12], [0.0, -0.0, np.inf, -1.0, np.nan])
    assert np.signbit(expm1[-16]) and exp[-9] == np.inf and exp[-8] == 0.0
    np.testing.assert_array_equal(log[-17:-12], [-np.inf, -np.inf, np.inf, np.nan, np.nan])
    np.testing.assert_array_equal(log1p[-17:-11], [-np.inf, np.nan, 0.0, -0.0, np.inf, np.nan])
    assert np.signbit(log1p[-14])
    np.testing.assert_array_equal(sig[-17:-12], [0.5, 0.5, 1.0, 0.0, np.nan])
    # pow's special cases, as C's
    xs = np.array([0.0, -0.0, -0.0, 0.0, -2.0, -2.0, -2.0, np.inf, -np.inf, -np.inf, 0.5,
                   2.0, -1.0, 1.0, np.nan, np.nan, 2.0, -8.0])
    ys = np.array([-1.0, -1.0, 3.0, 2.5, 3.0, 2.0, 0.5, -2.0, 3.0, -3.0, -np.inf, np.inf,
                   np.inf, np.nan, 0.0, 1.0, 1024.0, 1.0 / 3.0])
    s = irax.ShapeDtypeStruct(xs.shape, np.float64)
    pw = np.asarray(irax.export.export(lambda a, b: a ** b, targets=["x86_64"])(s, s)
                    .call(xs, ys))
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(pw, np.power(xs, ys))
        want = np.power(xs, ys)
        np.testing.assert_array_equal(np.signbit(pw)[~np.isnan(want)],
                                      np.signbit(want)[~np.isnan(want)])


def test_float64_rounding_on_a_cross_target(x64):
    """floor, ceil, trunc, round and rint of float64 without the C library (a generic
    x86-64 calls it for ceil and trunc, wasm32 for round): exact, signs of zeros kept."""
    rng = np.random.default_rng(5)
    x = np.concatenate([rng.uniform(-10, 10, 500), 10.0 ** rng.uniform(-5, 17, 200),
                        -(10.0 ** rng.uniform(-5, 17, 200)),
                        [0.0, -0.0, 0.5, -0.5, 1.5, 2.5, -2.5, 0.49999999999999994,
                         2.0 ** 52 + 1, -(2.0 ** 52) - 1, 2.0 ** 51 + 0.5, np.inf, -np.inf,
                         np.nan, 1e300, -1e-300]])

    def f(v):
        return jnp.floor(v), jnp.ceil(v), jnp.trunc(v), jnp.round(v), jnp.rint(v)

    spec = irax.ShapeDtypeStruct(x.shape, np.float64)
    got = irax.export.export(f, targets=["x86_64", "wasm32"])(spec).call(x)
    want = (np.floor(x), np.ceil(x), np.trunc(x), np.round(x), np.rint(x))
    for name, g, w in zip(("floor", "ceil", "trunc", "round", "rint"), got, want):
        g = np.asarray(g)
        np.testing.assert_array_equal(g, w, err_msg=name)
        np.testing.assert_array_equal(np.signbit(g)[~np.isnan(w)], np.signbit(w)[~np.isnan(w)],
                                      err_msg=name)


def test_float64_library_functions_link_for_every_cross_target(x64):
    """What irax builds on exp, log and the roundings beyond the functions the tests above
    link (arcsin, erf ... sinc, complex arcsin and arctan) links for wasm32 and a generic
    x86-64 without a C library (compile only: no wasm32 runtime here). sinh, cosh,
    arccos, arctanh, arcsinh and their complex forms are the exp, log, sqrt and atan2
    linked above, composed."""
    from irax.scipy import special as sp

    def f(x, z):
        return (jnp.arcsin(x), sp.erf(x), sp.erfinv(x), sp.gammaln(x), sp.digamma(x),
                jnp.exp2(x), jnp.log10(x), jnp.logaddexp(x, x), jnp.hypot(x, x),
                jnp.mod(x, 3.0), jnp.i0(x), jnp.sinc(x), jnp.arcsin(z), jnp.arctan(z))

    specs = (irax.ShapeDtypeStruct((8,), np.float64), irax.ShapeDtypeStruct((8,), np.complex128))
    exported = irax.export.export(f, targets=["wasm32", "x86_64"])(*specs)
    assert sorted(exported.targets) == ["wasm32", "x86_64"]
    x = np.linspace(-0.9, 0.9, 8)
    got = exported.call(x, x + 0.5j)
    np.testing.assert_allclose(np.asarray(got[0]), np.arcsin(x), rtol=1e-14)
    np.testing.assert_allclose(np.asarray(got[12]), np.arcsin(x + 0.5j), rtol=1e-13)
