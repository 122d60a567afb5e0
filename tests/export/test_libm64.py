"""Float64 math functions on a cross-compiled CPU target (``irax-expand-libm``): the
``x86_64`` artifact is linked by IREE's embedded linker without any libm, as an aarch64 or
riscv64 one is, and it runs on this machine, so its numbers are checked here against
NumPy and, where NumPy's own float64 functions are inexact, against exact rationals.

IREE's CPU arithmetic flushes float64 denormals to zero (``x + 1e-310`` is 0 in any
compiled program), so inputs and results stay in the normal range."""

import math
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


_HALF_PI = Fraction(pi_times_power_of_two(2400), 1 << 2401)


def _exact_sin_cos(x: float):
    """``(sin x, cos x)`` rounded once from the exact reduction (x finite)."""
    v = Fraction(x)
    k = math.floor(v / _HALF_PI + Fraction(1, 2))
    r = v - k * _HALF_PI
    s = c = Fraction(0)
    term = r
    for n in range(1, 40, 2):         # |r| <= pi/4: 20 terms are far past 2**-200
        s += term
        term = -term * r * r / ((n + 1) * (n + 2))
    term = Fraction(1)
    for n in range(0, 40, 2):
        c += term
        term = -term * r * r / ((n + 1) * (n + 2))
    sin, cos = [(s, c), (c, -s), (-s, -c), (-c, s)][k % 4]
    return float(sin), float(cos)


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



def test_complex128_math_on_a_cross_target_matches_numpy(x64):
    rng = np.random.default_rng(3)
    z = rng.uniform(-5, 5, 600) + 1j * rng.uniform(-5, 5, 600)
    z[:8] = [0, 1j, -1, -4 + 0j, 1e-8 + 1e-9j, -2 - 0j, 3e5 + 0.5j, 0.25 - 1e-12j]
    w = rng.uniform(-2, 2, 600) + 1j * rng.uniform(-2, 2, 600)
    w[0] = 0.0

    def f(z, w):
        return (jnp.sin(z), jnp.cos(z), jnp.tan(z), jnp.tanh(z), jnp.exp(z), jnp.log(z),
                jnp.sqrt(z), irax.lax.rsqrt(z), z ** w)

    spec = irax.ShapeDtypeStruct(z.shape, np.complex128)
    got = irax.export.export(f, targets=["x86_64"])(spec, spec).call(z, w)
    with np.errstate(all="ignore"):
        want = (np.sin(z), np.cos(z), np.tan(z), np.tanh(z), np.exp(z), np.log(z[1:]),
                np.sqrt(z), 1 / np.sqrt(z[1:]), z ** w)
    names = ("sin", "cos", "tan", "tanh", "exp", "log", "sqrt", "rsqrt", "power")
    for name, g, v in zip(names, got, want):
        g = np.asarray(g)[-len(v):]
        with np.errstate(invalid="ignore"):
            err = np.abs(g - v) / np.maximum(np.abs(v), 1e-300)
        err[g == v] = 0.0
        worst = int(np.argmax(err))
        assert err[worst] < 1e-13, (name, g[worst], v[worst])
    assert np.asarray(got[8])[0] == 1.0 and np.asarray(got[6])[0] == 0.0
