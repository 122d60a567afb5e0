"""``jnp.convolve``, ``jnp.correlate`` and the window functions (``bartlett``, ``blackman``,
``hamming``, ``hanning``, ``kaiser``) against real JAX: values, dtypes and weak types,
eagerly and under jit (one compiled function), derivatives and vmap."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy_helpers import check

import irax
import irax.numpy as jnp
from irax.test_util import check_grads

jax = pytest.importorskip("jax")
jjnp = pytest.importorskip("jax.numpy")

rng = np.random.default_rng(0)


def R(n):
    return rng.standard_normal(n).astype(np.float32)


def C(n):
    return (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(np.complex64)


def I(n, dt=np.int32):  # noqa: E743
    return rng.integers(-3, 4, n).astype(dt)


PAIRS = [(R(5), R(3)), (R(3), R(5)), (R(4), R(4)), (R(1), R(6)), (R(10), R(1)), (C(6), C(3)),
         (C(3), C(7)), (I(7), I(2, np.int8)), (R(7), C(2)), (I(4, np.uint8), R(6)),
         (R(6).astype(np.float16), R(3).astype(np.float16))]
MODES = ("full", "same", "valid")
CONV_CASES = [(op, mode, i) for op in ("convolve", "correlate") for mode in MODES
              for i in range(len(PAIRS))]


def _tol(dt):
    return 1e-2 if np.dtype(dt) == np.float16 else 2e-5


@pytest.mark.parametrize("op", ["convolve", "correlate"])
@pytest.mark.parametrize("mode", MODES)
def test_eager_matches_jax(op, mode):
    for a, v in PAIRS:
        want = getattr(jjnp, op)(a, v, mode=mode)
        check(getattr(jnp, op)(a, v, mode=mode), want, rtol=_tol(want.dtype),
              msg=f"{op} {mode} {a.dtype}{a.shape} {v.dtype}{v.shape}")


def test_default_modes_precision_and_preferred_element_type():
    a, v = R(6), R(3)
    check(jnp.convolve(a, v), jjnp.convolve(a, v), rtol=2e-5)
    check(jnp.correlate(a, v), jjnp.correlate(a, v), rtol=2e-5)
    for op in ("convolve", "correlate"):
        for pet in (np.int32, np.int16):
            x, y = I(7, np.int8), I(3, np.int8)
            check(getattr(jnp, op)(x, y, "same", preferred_element_type=pet),
                  getattr(jjnp, op)(x, y, "same", preferred_element_type=pet), msg=op)
        check(getattr(jnp, op)(a, v, "full", precision="highest",
                               preferred_element_type=np.float32),
              getattr(jjnp, op)(a, v, "full", precision="highest",
                                preferred_element_type=np.float32), rtol=2e-5, msg=op)
        check(getattr(jnp, op)(a, v, precision=jax.lax.Precision.HIGHEST),
              getattr(jjnp, op)(a, v, precision=jax.lax.Precision.HIGHEST), rtol=2e-5)


def test_cases_in_one_jit_match_eager():
    """Every (op, mode, pair) in one compiled module."""
    def everything(*flat):
        return [getattr(jnp, op)(flat[2 * i], flat[2 * i + 1], mode=mode)
                for op, mode, i in CONV_CASES]

    flat = [x for op, mode, i in CONV_CASES for x in PAIRS[i]]
    got = irax.jit(everything)(*flat)
    for (op, mode, i), g in zip(CONV_CASES, got):
        want = getattr(jjnp, op)(*PAIRS[i], mode=mode)
        check(g, want, rtol=_tol(want.dtype), msg=f"jit {op} {mode} {i}")


@settings(max_examples=20, deadline=None)
@given(n=st.integers(1, 12), m=st.integers(1, 12), mode=st.sampled_from(MODES),
       op=st.sampled_from(["convolve", "correlate"]), cplx=st.booleans(),
       seed=st.integers(0, 2**16))
def test_hypothesis_against_jax(n, m, mode, op, cplx, seed):
    r = np.random.default_rng(seed)
    a, v = r.standard_normal(n).astype(np.float32), r.standard_normal(m).astype(np.float32)
    if cplx:
        v = (v + 1j * r.standard_normal(m)).astype(np.complex64)
    want = getattr(jjnp, op)(a, v, mode=mode)
    check(getattr(jnp, op)(a, v, mode=mode), want, rtol=2e-5,
          atol=2e-5 * max(1, float(np.abs(want).max())))


def test_errors_match_jax():
    for args, kw in (((np.ones((2, 3)), np.ones(2)), {}), ((np.ones(3), np.float32(2)), {}),
                     ((np.ones(0), np.ones(2)), {}), ((np.ones(3), np.ones(2)), {"mode": "x"}),
                     (([1.0, 2.0], np.ones(2)), {})):
        for op in ("convolve", "correlate"):
            with pytest.raises(Exception) as want:
                getattr(jjnp, op)(*args, **kw)
            with pytest.raises(type(want.value)) as got:
                getattr(jnp, op)(*args, **kw)
            if "ndarray or scalar" not in str(want.value):
                assert str(got.value) == str(want.value)


def test_derivatives_match_jax_and_finite_differences():
    for op in ("convolve", "correlate"):
        for mode in MODES:
            for a, v in ((R(5), R(3)), (R(2), R(4)), (C(4), C(3))):
                def fi(a, v, op=op, mode=mode):
                    return getattr(jnp, op)(a, v, mode=mode)

                def fj(a, v, op=op, mode=mode):
                    return getattr(jjnp, op)(a, v, mode=mode)

                ta, tv = (R(len(a)), R(len(v))) if a.dtype == np.float32 else (C(len(a)),
                                                                               C(len(v)))
                msg = f"{op} {mode} {a.dtype} {len(a)} {len(v)}"
                check(irax.jvp(fi, (a, v), (ta, tv))[1], jax.jvp(fj, (a, v), (ta, tv))[1],
                      rtol=2e-5, msg=f"jvp {msg}")
                yj, pj = jax.vjp(fj, a, v)
                ct = (R(yj.shape[0]) if yj.dtype == np.float32 else C(yj.shape[0]))
                for g, w in zip(irax.vjp(fi, a, v)[1](ct), pj(ct)):
                    check(g, w, rtol=2e-5, msg=f"vjp {msg}")
    check_grads(lambda a, v: jnp.convolve(a, v, mode="same"), (R(5), R(3)), order=2,
                atol=1e-2, rtol=1e-2)
    check_grads(lambda a, v: jnp.correlate(a, v, mode="full"), (C(4), C(2)), order=1,
                atol=1e-2, rtol=1e-2)


def test_jit_grad_and_vmap_match_loop_and_jax():
    a, v = R((4, 6)), R((4, 3))

    def f(a, v):
        return (irax.vmap(lambda x, y: jnp.convolve(x, y, mode="same"))(a, v),
                irax.vmap(jnp.correlate, in_axes=(0, None))(a, v[0]),
                irax.vmap(lambda x: jnp.convolve(x, v[1]), in_axes=1)(a.T),
                irax.grad(lambda x, y: jnp.sum(jnp.correlate(x, y, "full") ** 2),
                          argnums=(0, 1))(a[0], v[0]))

    for got in (f(a, v), irax.jit(f)(a, v)):
        check(got[0], jnp.stack([jnp.convolve(x, y, mode="same") for x, y in zip(a, v)]),
              rtol=2e-5)
        check(got[1], jnp.stack([jnp.correlate(x, v[0]) for x in a]), rtol=2e-5)
        check(got[2], jnp.stack([jnp.convolve(x, v[1]) for x in a]), rtol=2e-5)
        want = jax.grad(lambda x, y: jjnp.sum(jjnp.correlate(x, y, "full") ** 2),
                        argnums=(0, 1))(a[0], v[0])
        for g, w in zip(got[3], want):
            check(g, w, rtol=1e-4)


# ---- windows -----------------------------------------------------------------------------------
WINDOWS = ("bartlett", "blackman", "hamming", "hanning")


def test_windows_match_jax():
    for name in WINDOWS:
        for M in (0, 1, 2, 5, 6, 17, 5.7, np.int32(8)):
            check(getattr(jnp, name)(M), getattr(jjnp, name)(M), rtol=1e-6, atol=1e-6,
                  msg=f"{name} {M}")
    for M in (0, 1, 2, 5, 16):
        for beta in (0.0, 2.5, np.float32(8.6), 14, jjnp.float32(1.5)):
            check(jnp.kaiser(M, np.asarray(beta) if not isinstance(beta, (int, float)) else beta),
                  jjnp.kaiser(M, beta), rtol=1e-5, atol=1e-6, msg=f"kaiser {M} {beta}")


def test_windows_under_jit_and_errors():
    def f(beta):
        return [getattr(jnp, n)(9) for n in WINDOWS] + [jnp.kaiser(9, beta), jnp.kaiser(4, 2.0)]

    got = irax.jit(f)(np.float32(3.0))
    want = [getattr(jjnp, n)(9) for n in WINDOWS] + [jjnp.kaiser(9, np.float32(3.0)),
                                                     jjnp.kaiser(4, 2.0)]
    for g, w in zip(got, want):
        check(g, w, rtol=1e-5, atol=1e-6)
    g = irax.grad(lambda b: jnp.sum(jnp.kaiser(7, b)))(np.float32(2.0))
    check(g, jax.grad(lambda b: jjnp.sum(jjnp.kaiser(7, b)))(np.float32(2.0)), rtol=1e-4)
    with pytest.raises(irax.errors.ConcretizationTypeError, match="M argument of jnp.hamming"):
        irax.jit(jnp.hamming)(5)
    with pytest.raises(TypeError, match="nonnegative"):
        jnp.bartlett(-1)


def test_unsigned_and_bool_operands_under_jit():
    """IREE 3.13 reads a narrow unsigned operand converted inside a dot as signed: the
    values here are >= 128."""
    a, b = np.array([253, 1, 255, 2], np.uint8), np.array([200, 100, 3], np.uint8)

    def f(a, b):
        return ([jnp.convolve(a, b, preferred_element_type=t) for t in (np.uint8, np.uint16,
                                                                       np.int32, np.float32)]
                + [jnp.correlate(a, b, "full"), jnp.convolve(a > 2, b > 2, "same"),
                   jnp.fft.rfft(a), jnp.fft.rfft(a > 2), jnp.fft.fft(b.astype(np.uint16))])

    want = ([jjnp.convolve(a, b, preferred_element_type=t) for t in (np.uint8, np.uint16,
                                                                    np.int32, np.float32)]
            + [jjnp.correlate(a, b, "full"), jjnp.convolve(a > 2, b > 2, "same"),
               jjnp.fft.rfft(a), jjnp.fft.rfft(a > 2), jjnp.fft.fft(b.astype(np.uint16))])
    for got in (f(a, b), irax.jit(f)(a, b)):
        for g, w in zip(got, want):
            check(g, w, rtol=2e-5, atol=1e-3)
