"""Float32 sin, cos, tan, atan2 (arctan, arcsin, arccos) and cbrt under jit are within an
ulp of the exact value for every magnitude, and keep C99's signed zeros and infinities.

IREE 3.13 expands these float32 functions into polynomials with a float32 argument
reduction: ``sin(-1e-10)`` was ``6e-08``, ``sin(1e5)`` 8 % off, ``sin(1e30)`` ``-inf``,
``atan2(-1e-34, -1.)`` ``+pi``, ``cbrt(inf)`` NaN (``irax-legalize-iree`` now rewrites them:
``lowering/trig.py``). The reference is NumPy in float64.
"""

import warnings

import ml_dtypes
import numpy as np

import irax
import irax.numpy as jnp

_rng = np.random.default_rng(7)
_MAG = 10.0 ** _rng.uniform(-37, 38.5, 3000)
X = np.concatenate([_MAG, -_MAG, _rng.uniform(-10, 10, 1000),
                    np.float32(np.pi / 2) * np.arange(-300, 300),      # near multiples of pi/2
                    [2.0 ** 28, 2.0 ** 28 - 16, 3.4e38, 8.2e21, 1e-30, -1e-10, 1e5]]
                   ).astype(np.float32)
Y = _rng.permutation(X)
UNARY = {"sin": np.sin, "cos": np.cos, "tan": np.tan, "arctan": np.arctan, "cbrt": np.cbrt}
BOUNDED = {"arcsin": np.arcsin, "arccos": np.arccos}


def _ulps(got, ref):
    """|got - ref| in float32 ulps of the reference (NaN where both are NaN: 0); results
    near float32's subnormals count in units of 4x its smallest normal (IREE, like XLA on
    CPU, flushes subnormal intermediates to zero)."""
    got = np.asarray(got).astype(np.float64)
    ulp = np.spacing(np.abs(ref.astype(np.float32))).astype(np.float64)
    tiny = 4 * np.float64(np.finfo(np.float32).smallest_normal)
    err = np.abs(got - ref) / np.maximum(ulp, tiny)
    return np.where(np.isnan(got) & np.isnan(ref), 0.0, err)


def test_float32_elementary_functions_are_within_an_ulp_everywhere():
    u = np.clip(X / 10.0, -1, 1).astype(np.float32)
    f = irax.jit(lambda x, y, u: ({n: getattr(jnp, n)(x) for n in UNARY}
                                  | {n: getattr(jnp, n)(u) for n in BOUNDED}
                                  | {"arctan2": jnp.arctan2(x, y)}))
    got = f(X, Y, u)
    x64, y64, u64 = X.astype(np.float64), Y.astype(np.float64), u.astype(np.float64)
    refs = ({n: fn(x64) for n, fn in UNARY.items()} | {n: fn(u64) for n, fn in BOUNDED.items()}
            | {"arctan2": np.arctan2(x64, y64)})
    for name, ref in refs.items():
        err = _ulps(got[name], ref)
        worst = int(np.argmax(err))
        bound = 2.0 if name in BOUNDED else 1.0     # arcsin, arccos: float32 formulas on atan2
        assert err.max() <= bound, (name, X[worst], np.asarray(got[name])[worst], ref[worst])


def test_signed_zeros_infinities_and_nan_follow_c99():
    z = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -1e-30], np.float32)
    ys, xs = np.meshgrid(np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, -1e-34],
                                  np.float32),
                         np.array([0.0, -0.0, 2.0, -2.0, np.inf, -np.inf, np.nan, 1e-34],
                                  np.float32))
    got = irax.jit(lambda z, y, x: (jnp.sin(z), jnp.tan(z), jnp.cos(z), jnp.cbrt(z),
                                    jnp.arctan(z), jnp.arctan2(y, x)))(z, ys, xs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = (np.sin(z), np.tan(z), np.cos(z), np.cbrt(z), np.arctan(z), np.arctan2(ys, xs))
    for name, g, w in zip(("sin", "tan", "cos", "cbrt", "arctan", "arctan2"), got, want):
        g = np.asarray(g)
        np.testing.assert_allclose(g, w, rtol=2e-7, atol=0, err_msg=name)
        np.testing.assert_array_equal(np.signbit(g) & ~np.isnan(g), np.signbit(w) & ~np.isnan(w),
                                      err_msg=f"{name} sign")


def test_half_precision_and_complex64_use_the_exact_reduction():
    x16 = np.array([1e4, -3e4, -1e-4, 0.5, 6e4], np.float16)
    xb = np.array([1e30, -1e5, -1e-10, 3.0], ml_dtypes.bfloat16)
    zc = (np.array([987449.44, -3.0, 1e5, 0.25]) + 1j * np.array([0.077, 2.0, -1.5, 30.0])
          ).astype(np.complex64)
    got = irax.jit(lambda a, b, c: (jnp.sin(a), jnp.cos(b), jnp.sin(c), jnp.cos(c),
                                    jnp.exp(c), jnp.tan(c)))(x16, xb, zc)
    want = (np.sin(x16.astype(np.float64)), np.cos(xb.astype(np.float64)),
            np.sin(zc.astype(np.complex128)), np.cos(zc.astype(np.complex128)),
            np.exp(zc.astype(np.complex128)), np.tan(zc.astype(np.complex128)))
    assert (got[0].dtype, got[1].dtype, got[2].dtype) == (x16.dtype, xb.dtype, zc.dtype)
    for (g, w), tol in zip(zip(got, want), (1e-3, 1e-2, 5e-6, 5e-6, 5e-6, 5e-6)):
        np.testing.assert_allclose(np.asarray(g).astype(w.dtype), w, rtol=tol, atol=0)
