"""irax.lax's special functions against jax.lax: values over every branch (poles, 0, inf,
NaN), dtypes and weak types, eagerly and under one jit; derivatives against JAX and finite
differences; vmap against a Python loop."""

import contextlib
import functools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.numpy.numpy_helpers import BF16, check

import irax
import irax.lax as lax

jax = pytest.importorskip("jax")
jlax = jax.lax

X = np.array([-7.5, -3.2, -2.0, -1.5, -0.5, -1e-3, 0.0, 1e-4, 0.3, 0.5, 0.9, 1.0, 1.5, 2.0,
              3.7, 5.0, 8.0, 10.0, 30.0, 100.0, np.inf, -np.inf, np.nan])
U = np.array([-1.0, -0.999, -0.7, -0.2, 0.0, 1e-6, 0.2, 0.5, 0.9, 0.99999, 1.0, 1.5, np.nan])


def _grid(*axes):
    return [g.ravel() for g in np.meshgrid(*axes, indexing="ij")]


GA, GX = _grid(np.array([0.0, 1e-3, 0.5, 1.0, 2.5, 10.0, 50.0, -1.0, np.nan]),
               np.array([0.0, 0.05, 0.5, 1.0, 2.0, 9.0, 60.0, np.inf, -1.0]))
BA, BB, BX = _grid(np.array([0.0, 0.1, 1.0, 2.5, 20.0]), np.array([0.2, 1.0, 3.0, 15.0]),
                   np.array([0.0, 0.1, 0.5, 0.8, 1.0, 1.2]))
ZX, ZQ = _grid(np.array([0.5, 1.0, 1.5, 2.0, 3.0, 4.5, 10.0]),
               np.array([-2.0, -1.5, 0.0, 0.5, 1.0, 2.0, 7.5, 30.0]))
PM, PX = _grid(np.array([0.0, 1.0, 2.0, 3.0, 0.5, -1.0]),
               np.array([-2.5, -1.0, 0.0, 0.3, 1.0, 2.5, 10.0]))

CASES = {
    "erf": (X,), "erfc": (X,), "erf_inv": (U,), "lgamma": (X,), "digamma": (X,),
    "bessel_i0e": (X,), "bessel_i1e": (X,), "zeta": (ZX, ZQ), "polygamma": (PM, PX),
    "igamma": (GA, GX), "igammac": (GA, GX), "igamma_grad_a": (GA, GX),
    "random_gamma_grad": (GA, GX), "betainc": (BA, BB, BX),
}
# (rtol, atol) per dtype; lgamma's zeros at 1 and 2 are rounded differently
TOL = {np.float32: (2e-5, 2e-6), np.float64: (1e-10, 1e-12)}
LOOSE = {"igamma_grad_a": 1e-4, "random_gamma_grad": 1e-4, "polygamma": 1e-4, "zeta": 1e-4}


@contextlib.contextmanager
def x64(on=True):
    saved = irax.config.jax_enable_x64, jax.config.jax_enable_x64
    irax.config.update("jax_enable_x64", on)
    jax.config.update("jax_enable_x64", on)
    try:
        yield
    finally:
        irax.config.update("jax_enable_x64", saved[0])
        jax.config.update("jax_enable_x64", saved[1])


def _tol(name, dt):
    r, a = TOL[dt]
    if dt == np.float32 and name in LOOSE:
        r = LOOSE[name]
    return r, a


@functools.lru_cache(maxsize=None)
def _reference(dt_name):
    """JAX's values of every case in one ``jax.jit`` (one XLA compile, not one per op)."""
    dt = np.dtype(dt_name)
    with x64(dt == np.float64):
        args = {n: [np.asarray(a, dt) for a in v] for n, v in CASES.items()}
        return jax.jit(lambda a: {n: getattr(jlax, n)(*v) for n, v in a.items()})(args)


@pytest.mark.parametrize("dt", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_values_match_jax_eagerly(name, dt):
    want = _reference(np.dtype(dt).name)[name]
    with x64(dt == np.float64):
        got = getattr(lax, name)(*[np.asarray(a, dt) for a in CASES[name]])
        r, a = _tol(name, dt)
        check(got, want, rtol=r, atol=a, msg=name)


HALF = ("erf", "erfc", "lgamma", "digamma", "bessel_i0e", "bessel_i1e", "erf_inv")


def _half(m, x, u, a, b):
    out = {n: getattr(m, n)(u if n == "erf_inv" else x) for n in HALF}
    out["igamma"] = m.igamma(a, m.abs(x))
    out["betainc"] = m.betainc(a, a, b)
    return out


@pytest.mark.parametrize("dt", [np.float16, BF16], ids=["f16", "bf16"])
def test_half_precision_computes_in_float32(dt):
    x = np.array([-2.5, -0.5, 0.1, 0.5, 1.0, 3.0, 9.0], dt)
    u = np.array([-0.9, -0.2, 0.0, 0.3, 0.7, 0.9, -0.5], dt)
    a, b = np.abs(x) + np.asarray(0.5, dt), np.array([0.1, 0.3, 0.5, 0.6, 0.9, 0.2, 0.4], dt)
    want = jax.jit(functools.partial(_half, jlax))(x, u, a, b)
    got = _half(lax, x, u, a, b)
    for n in want:
        check(got[n], want[n], rtol=2e-2, atol=2e-2, msg=n)


def test_python_scalars_stay_weak():
    for name, args in [("erf", (0.5,)), ("lgamma", (3.5,)), ("igamma", (2.0, 1.0)),
                       ("betainc", (1.0, 2.0, 0.5)), ("zeta", (2.0, 1.0)),
                       ("polygamma", (1.0, 2.0)), ("bessel_i1e", (-1.0,))]:
        check(getattr(lax, name)(*args), getattr(jlax, name)(*args), msg=name)


def test_integer_and_mixed_operands_raise_like_jax():
    for name, args in [("erf", (np.int32(1),)), ("lgamma", (np.arange(3),)),
                       ("igamma", (np.float32(1), np.int32(2))),
                       ("betainc", (np.int32(1), np.float32(1), np.float32(0.5)))]:
        with pytest.raises(TypeError) as theirs:
            getattr(jlax, name)(*args)
        with pytest.raises(TypeError) as ours:
            getattr(lax, name)(*args)
        assert "does not accept dtype int32" in str(theirs.value)
        assert str(ours.value).split(" Accepted")[0] == str(theirs.value).split(" Accepted")[0]
    with x64(), pytest.raises(TypeError, match="lax.igamma requires arguments to have the same"):
        lax.igamma(np.float32(1), np.float64(2))


def test_many_in_one_jit_match_eager():
    """The cheap functions in one compiled module, the loop-based ones in another."""
    f32 = [np.asarray(a, np.float32) for a in (X, U, ZX, ZQ, PM, PX)]

    def closed_form(x, u, zx, zq, pm, px):
        out = {n: getattr(lax, n)(x) for n in ("erf", "erfc", "lgamma", "digamma",
                                                "bessel_i0e", "bessel_i1e")}
        out["erf_inv"] = lax.erf_inv(u)
        out["zeta"] = lax.zeta(zx, zq)
        out["polygamma"] = lax.polygamma(pm, px)
        return out

    g = [np.asarray(a, np.float32) for a in (GA, GX, BA, BB, BX)]

    def loops(a, x, ba, bb, bx):
        return {"igamma": lax.igamma(a, x), "igammac": lax.igammac(a, x),
                "betainc": lax.betainc(ba, bb, bx)}

    for fn, args in [(closed_form, f32), (loops, g)]:
        compiled, eager = irax.jit(fn)(*args), fn(*args)
        for k in eager:
            check(compiled[k], eager[k], rtol=1e-5, atol=1e-6, msg=k)


UNARY = ("erf", "erfc", "lgamma", "digamma", "bessel_i0e", "bessel_i1e")


@jax.jit
def _unary_reference(x):
    return {n: getattr(jlax, n)(x) for n in UNARY}


@settings(max_examples=20, deadline=None)
@given(st.lists(st.floats(-30, 30, width=32, allow_subnormal=False), min_size=6, max_size=6))
def test_hypothesis_gamma_and_erf_values(values):
    x = np.array(values, np.float32)   # one shape: JAX's reference compiles once
    want = _unary_reference(x)
    for name in UNARY:
        # near the poles of digamma/lgamma, values are large and ill-conditioned
        check(getattr(lax, name)(x), want[name],
              rtol=5e-4 if name in ("digamma", "lgamma") else 2e-5, atol=2e-5, msg=name)


@jax.jit
def _incomplete_reference(a, x, u):
    return jlax.igamma(a, x), jlax.igammac(a, x), jlax.betainc(a, a + 1, u)


@settings(max_examples=15, deadline=None)
@given(st.floats(0.0625, 30.0, width=32), st.floats(0.0, 40.0, allow_subnormal=False, width=32),
       st.floats(0.0, 1.0, allow_subnormal=False, width=32))
def test_hypothesis_incomplete_gamma_and_beta(a, x, u):
    # float32 values without subnormals (width=32): float64 draws like 1.4e-45 became
    # float32 subnormals, which JAX's XLA flushes to zero and irax's eager NumPy keeps
    a, x, u = (np.array([v], np.float32) for v in (a, x, u))
    got = (lax.igamma(a, x), lax.igammac(a, x), lax.betainc(a, a + 1, u))
    for g, w in zip(got, _incomplete_reference(a, x, u)):
        check(g, w, rtol=1e-4, atol=1e-6)


# ---- derivatives ----------------------------------------------------------------------------
DERIV = {  # name: (args, argnums)
    "erf": ((np.array([-2.0, -0.3, 0.0, 0.7, 3.0]),), (0,)),
    "erfc": ((np.array([-2.0, -0.3, 0.0, 0.7, 3.0]),), (0,)),
    "erf_inv": ((np.array([-0.9, -0.3, 0.0, 0.5, 0.95]),), (0,)),
    "lgamma": ((np.array([-2.5, 0.3, 1.0, 2.5, 7.0]),), (0,)),
    "digamma": ((np.array([-2.5, 0.3, 1.0, 2.5, 7.0]),), (0,)),
    "bessel_i0e": ((np.array([-3.0, -0.5, 0.4, 2.0, 9.0]),), (0,)),
    "bessel_i1e": ((np.array([-3.0, -0.5, 0.4, 2.0, 9.0]),), (0,)),
    "polygamma": ((np.array([1.0, 2.0, 1.0]), np.array([0.5, 1.5, 4.0])), (1,)),
    "igamma": ((np.array([0.5, 2.0, 5.0]), np.array([0.3, 3.0, 4.0])), (0, 1)),
    "igammac": ((np.array([0.5, 2.0, 5.0]), np.array([0.3, 3.0, 4.0])), (0, 1)),
    "betainc": ((np.array([0.5, 2.0, 5.0]), np.array([1.5, 2.0, 0.7]),
                 np.array([0.2, 0.5, 0.9])), (2,)),
}


@pytest.mark.parametrize("name", sorted(DERIV))
def test_gradients_match_jax_and_finite_differences(name):
    args, argnums = DERIV[name]
    with x64():
        def ours(*a):
            return getattr(lax, name)(*a).sum()

        def theirs(*a):
            return getattr(jlax, name)(*a).sum()

        got = irax.grad(ours, argnums=argnums)(*args)
        want = jax.grad(theirs, argnums=argnums)(*args)
        for k, g, w in zip(argnums, got, want):
            np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-6, atol=1e-9,
                                       err_msg=f"{name} d/d{k}")
            h = 1e-6
            up = list(args)
            dn = list(args)
            up[k], dn[k] = args[k] + h, args[k] - h
            fd = (np.asarray(getattr(lax, name)(*up)) - np.asarray(getattr(lax, name)(*dn)))
            np.testing.assert_allclose(np.asarray(g), fd / (2 * h), rtol=1e-4, atol=1e-6,
                                       err_msg=f"{name} finite differences d/d{k}")


def test_jvp_under_jit_matches_jax():
    x = np.array([0.3, 1.7, 4.0], np.float32)

    def f(x):
        return lax.lgamma(x) + lax.erf(x) * lax.digamma(x) + lax.igamma(x, 2.0 * x)

    def g(x):
        return jlax.lgamma(x) + jlax.erf(x) * jlax.digamma(x) + jlax.igamma(x, 2.0 * x)

    t = np.ones_like(x)
    p, d = irax.jit(lambda x, t: irax.jvp(f, (x,), (t,)))(x, t)
    wp, wd = jax.jvp(g, (x,), (t,))
    check(p, wp, rtol=1e-5, atol=1e-6)
    check(d, wd, rtol=1e-4, atol=1e-5)


def test_vmap_matches_a_python_loop():
    a = np.array([[0.5, 2.0], [3.0, 0.1], [8.0, 1.0]], np.float32)
    x = np.array([[0.2, 2.5], [1.0, 0.3], [9.0, 4.0]], np.float32)

    def f(a, x):
        return lax.igamma(a, x) + lax.lgamma(a) * lax.zeta(a + 1.0, x + 1.0)

    got = irax.vmap(f)(a, x)
    want = np.stack([np.asarray(f(a[i], x[i])) for i in range(3)])
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6, atol=1e-7)
    u = np.array([0.1, 0.5, 0.9], np.float32)
    got = irax.vmap(lax.betainc, in_axes=(0, None, 0))(a[:, 0], np.float32(2.0), u)
    want = np.array([float(lax.betainc(a[i, 0], np.float32(2.0), u[i])) for i in range(3)])
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6)
