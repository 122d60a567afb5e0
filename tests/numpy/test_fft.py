"""``irax.numpy.fft`` (all 18 names), ``irax.lax.fft`` and the ``irax.fft`` op against real
JAX: values (within a tolerance relative to the norm of the input), dtypes and weak types,
eagerly and under jit (every case in one compiled function), power-of-two, short, prime
(Bluestein) and composite (four-step) lengths, 1-d to 5-d, norms, n / s / axes, errors,
derivatives (against JAX and finite differences) and vmap (against a Python loop)."""

import functools
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import irax
import irax.numpy as jnp
from irax import lax
from irax.test_util import check_grads

jax = pytest.importorskip("jax")
jjnp = pytest.importorskip("jax.numpy")

rng = np.random.default_rng(0)


def R(*s):
    return rng.standard_normal(s).astype(np.float32)


def C(*s):
    return (rng.standard_normal(s) + 1j * rng.standard_normal(s)).astype(np.complex64)


def I(*s):  # noqa: E743
    return rng.integers(-5, 5, s).astype(np.int32)


# (name, array args, keyword args): every name, every norm, n / s / axes, odd lengths
CASES = [
    ("fft", (R(8),), {}), ("fft", (C(7),), {}), ("fft", (I(12),), {}),
    ("fft", (R(3, 13),), {"axis": 0}), ("fft", (R(4, 6),), {"n": 9}),
    ("fft", (R(4, 6),), {"n": 3, "norm": "ortho"}), ("fft", (C(100),), {"norm": "forward"}),
    ("fft", (C(67),), {}), ("fft", (R(2, 130),), {"norm": "backward"}),
    ("fft", (np.array([1.0, 2.0, 3.0], np.float16),), {}),
    ("ifft", (C(12),), {}), ("ifft", (R(5, 7),), {"axis": 0, "norm": "ortho"}),
    ("ifft", (C(16),), {"n": 20, "norm": "forward"}), ("ifft", (C(2, 13),), {}),
    ("rfft", (R(8),), {}), ("rfft", (R(13),), {"norm": "ortho"}),
    ("rfft", (I(3, 12),), {"axis": 0, "n": 5}), ("rfft", (R(100),), {}),
    ("rfft", (np.array([True, False, True]),), {}), ("rfft", (R(2, 96),), {"norm": "forward"}),
    ("irfft", (C(5),), {}), ("irfft", (C(7),), {"n": 13}),
    ("irfft", (C(4, 3),), {"axis": 0, "norm": "forward"}), ("irfft", (R(6),), {}),
    ("irfft", (C(51),), {"norm": "ortho"}), ("irfft", (C(3, 9),), {"n": 16}),
    ("hfft", (C(5),), {}), ("hfft", (C(7),), {"n": 13, "norm": "ortho"}),
    ("hfft", (R(4, 3),), {"axis": 0}), ("hfft", (C(6),), {"norm": "forward"}),
    ("ihfft", (R(8),), {}), ("ihfft", (R(7),), {"n": 10, "norm": "forward"}),
    ("ihfft", (I(3, 5),), {"axis": 0}), ("ihfft", (R(12),), {"norm": "ortho"}),
    ("fft2", (R(4, 6),), {}), ("fft2", (C(2, 3, 5),), {"axes": (0, 2), "s": (4, 4)}),
    ("fft2", (R(3, 4),), {"norm": "ortho"}), ("fft2", (I(5, 7),), {"axes": (1, 0)}),
    ("ifft2", (C(6, 7),), {}), ("ifft2", (C(6, 7),), {"s": (3, 8), "norm": "forward"}),
    ("rfft2", (R(6, 7),), {}), ("rfft2", (R(2, 6, 7),), {"axes": (0, 1)}),
    ("rfft2", (R(4, 8),), {"norm": "ortho"}),
    ("irfft2", (C(6, 4),), {}), ("irfft2", (C(6, 4),), {"s": (5, 9)}),
    ("fftn", (R(2, 3, 4),), {}), ("fftn", (C(2, 3, 4, 5),), {}),
    ("fftn", (R(3, 4),), {"s": (5,)}), ("fftn", (R(3, 4),), {"axes": (0,)}),
    ("fftn", (R(3, 4),), {"axes": ()}),
    ("fftn", (R(2, 3, 4),), {"axes": (-1, 0), "s": (3, 3), "norm": "ortho"}),
    ("ifftn", (C(2, 3, 4),), {}), ("ifftn", (C(2, 3, 4, 2, 2),), {"norm": "forward"}),
    ("rfftn", (R(2, 3, 4),), {}), ("rfftn", (R(2, 3, 4, 5),), {}),
    ("rfftn", (R(2, 3, 4),), {"axes": (2, 0)}), ("rfftn", (I(4, 6),), {"s": (3, 7)}),
    ("irfftn", (C(2, 3, 4),), {}), ("irfftn", (C(2, 3, 4, 5),), {}),
    ("irfftn", (C(2, 3, 4),), {"axes": (0, 1), "s": (3, 5)}),
    ("fftshift", (R(5, 6),), {}), ("fftshift", (I(5, 6),), {"axes": 0}),
    ("fftshift", (R(5, 6, 3),), {"axes": (0, 2)}), ("fftshift", (C(4),), {"axes": [-1]}),
    ("ifftshift", (R(5, 6),), {}), ("ifftshift", (I(5, 6),), {"axes": -1}),
    ("ifftshift", (R(3, 4, 5),), {"axes": (2, 1)}),
]
FREQ_CASES = [
    ("fftfreq", (8,), {}), ("fftfreq", (7,), {"d": 0.5}), ("fftfreq", (5,), {"dtype": np.float16}),
    ("fftfreq", (6,), {"d": 2}), ("fftfreq", (6,), {"dtype": np.int32}), ("fftfreq", (1,), {}),
    ("rfftfreq", (8,), {}), ("rfftfreq", (7,), {"d": 0.1}),
    ("rfftfreq", (9,), {"dtype": np.float16}),
    ("rfftfreq", (10,), {"d": 3}),
]


def _case_id(case):
    name, args, kw = case
    shapes = ",".join("x".join(map(str, np.shape(a))) for a in args if np.ndim(a))
    return f"{name}[{shapes}]{kw}".replace(" ", "")


def close(got, want, x=None, msg=""):
    """dtype, weak type and shape exactly; values within a tolerance relative to the norm of
    the input ``x`` (and of the result)."""
    assert isinstance(got, irax.Array), (msg, type(got))
    assert got.dtype == want.dtype, f"{msg}: dtype {got.dtype} != {want.dtype}"
    assert got.weak_type == want.weak_type, f"{msg}: weak {got.weak_type} != {want.weak_type}"
    assert got.shape == want.shape, f"{msg}: shape {got.shape} != {want.shape}"
    g, w = np.asarray(got), np.asarray(want)
    if w.size == 0:
        return
    if w.dtype.kind not in "fc":
        np.testing.assert_array_equal(g, w, err_msg=msg)
        return
    rtol = {2: 2e-3, 4: 2e-6, 8: 2e-6, 16: 1e-13}[w.dtype.itemsize]
    scale = max(1.0, float(np.abs(w.astype(np.complex128)).max()),
                0.0 if x is None else float(np.linalg.norm(np.asarray(x, np.complex128))))
    err = float(np.abs(g.astype(np.complex128) - w).max())
    assert err <= rtol * scale, f"{msg}: error {err:.3g} > {rtol:.1g} * {scale:.3g}"


# The cases of the one jitted module: each lowering path (native power-of-two c2c / rfft /
# irfft, the DFT matmul for short lengths, four-step, Bluestein, n-d by rotation, length 1)
CASES_JIT = [0, 1, 2, 4, 5, 7, 8, 10, 14, 15, 17, 18, 20, 21, 24, 25, 26, 30, 36, 39, 41, 44,
             46, 49, 55, 57, 60]


@functools.lru_cache(maxsize=None)
def _want(i):
    """JAX's result of ``CASES[i]`` (each one a JAX compile: computed once)."""
    name, args, kw = (CASES + FREQ_CASES)[i]
    return getattr(jjnp.fft, name)(*args, **kw)


# ---- eager and jit against JAX ---------------------------------------------------------------
@pytest.mark.parametrize("i", range(len(CASES + FREQ_CASES)),
                         ids=[_case_id(c) for c in CASES + FREQ_CASES])
def test_eager_matches_jax(i):
    name, args, kw = (CASES + FREQ_CASES)[i]
    got = getattr(jnp.fft, name)(*args, **kw)
    close(got, _want(i), args[0] if np.ndim(args[0]) else None, _case_id((name, args, kw)))


def test_cases_in_one_jit_match_eager_and_jax():
    """One compiled module holding a case of each lowering path (one IREE compile)."""
    cases = [CASES[i] for i in CASES_JIT]

    def everything(*arrays):
        return [getattr(jnp.fft, name)(a, **kw) for (name, _, kw), a in zip(cases, arrays)]

    arrays = [args[0] for _, args, _ in cases]
    got = irax.jit(everything)(*arrays)
    eager = everything(*arrays)
    for i, case, g, e, a in zip(CASES_JIT, cases, got, eager, arrays):
        close(g, _want(i), a, f"jit vs jax {_case_id(case)}")
        close(g, e, a, f"jit vs eager {_case_id(case)}")


def test_accuracy_of_long_transforms_against_numpy():
    """Native power-of-two (4096), four-step (1000 = 8 * 125, 3000 = 8 * 375, 675 = 45 * 15),
    Bluestein (prime 1009, 2 * 1009) lengths in float32, against NumPy's double precision at
    1e-4 relative."""
    lengths = (4096, 1000, 3000, 675, 1009, 2018)
    xs = [rng.standard_normal(n).astype(np.float32) for n in lengths]

    def transforms(*xs):
        return [(jnp.fft.fft(x), jnp.fft.rfft(x) if len(x) % 1000 == 0 else None,
                 jnp.fft.irfft(jnp.fft.rfft(x), n=len(x)) if len(x) == 1000 else None)
                for x in xs]

    for x, (f, r, back) in zip(xs, irax.jit(transforms)(*xs)):
        want = np.fft.fft(x.astype(np.float64))
        for got, w in ((f, want), (r, want[:len(x) // 2 + 1])):
            if got is None:
                continue
            err = np.linalg.norm(np.asarray(got) - w) / np.linalg.norm(w)
            assert err < 1e-4 and np.abs(np.asarray(got) - w).max() < 1e-4 * np.abs(w).max(), \
                (len(x), err)
        if back is not None:
            np.testing.assert_allclose(np.asarray(back), x, atol=1e-4 * np.abs(x).max())


@settings(max_examples=15, deadline=None)
@given(shape=st.lists(st.integers(1, 9), min_size=1, max_size=3),
       k=st.integers(1, 3), kind=st.sampled_from(["fftn", "ifftn", "rfftn", "irfftn"]),
       norm=st.sampled_from([None, "backward", "ortho", "forward"]),
       pad=st.integers(-2, 3), seed=st.integers(0, 2**16))
def test_hypothesis_nd_transforms_match_jax(shape, k, kind, norm, pad, seed):
    r = np.random.default_rng(seed)
    x = r.standard_normal(shape).astype(np.float32)
    if kind in ("ifftn", "irfftn"):
        x = (x + 1j * r.standard_normal(shape)).astype(np.complex64)
    k = min(k, len(shape))
    axes = tuple(int(a) for a in r.permutation(len(shape))[:k])
    s = tuple(max(1, shape[a] + pad) for a in axes)
    for kw in ({"axes": axes}, {"axes": axes, "s": s}, {"s": s[-1:]}):
        close(getattr(jnp.fft, kind)(x, norm=norm, **kw),
              getattr(jjnp.fft, kind)(x, norm=norm, **kw), x, f"{kind} {shape} {kw} {norm}")


def test_x64_dtypes_and_values(x64):
    jax.config.update("jax_enable_x64", True)
    try:
        x = rng.standard_normal((6, 12))
        z = x + 1j * rng.standard_normal((6, 12))
        cases = [("fft", x), ("rfft", x[:, :8]), ("ifft", z[:, :8]), ("irfft", z[:, :5]),
                 ("hfft", z[0]), ("ihfft", x[0, :7]), ("fft2", x[:4, :4]), ("irfftn", z[:3, :3]),
                 ("fft", np.arange(5)), ("rfft", x[0, :100])]

        def f(*arrays):
            return [getattr(jnp.fft, n)(a) for (n, _), a in zip(cases, arrays)]

        got = irax.jit(f)(*[a for _, a in cases])
        for (n, a), g in zip(cases, got):
            want = getattr(jjnp.fft, n)(a)
            close(getattr(jnp.fft, n)(a), want, a, f"eager {n}")
            close(g, want, a, f"jit {n}")
        for n, kw in (("fftfreq", {}), ("rfftfreq", {"d": 0.3}), ("fftfreq", {"dtype": "float32"})):
            close(getattr(jnp.fft, n)(7, **kw), getattr(jjnp.fft, n)(7, **kw), msg=n)
    finally:
        jax.config.update("jax_enable_x64", False)


def test_weak_inputs_give_strong_transforms_and_weak_shifts():
    wi, wj = jnp.broadcast_to(jnp.asarray(1.5), (4,)), jjnp.broadcast_to(jjnp.asarray(1.5), (4,))
    assert wi.weak_type and wj.weak_type
    for name in ("fft", "rfft", "ifft", "ihfft", "fftshift", "ifftshift"):
        close(getattr(jnp.fft, name)(wi), getattr(jjnp.fft, name)(wj), wi, name)


# ---- errors ------------------------------------------------------------------------------------
X2 = np.ones((3, 4), np.float32)
ERRORS = [
    ("fft", (X2,), {"axis": 2}), ("fft", (X2,), {"axis": -3}), ("fft", (X2,), {"n": 0}),
    ("fft", (X2,), {"n": -2}), ("irfft", (X2,), {"n": 0}), ("fftn", (X2,), {"s": (0, 2)}),
    ("fftn", (X2,), {"s": (2, 2), "axes": (0,)}), ("fftn", (X2,), {"axes": (0, 0)}),
    ("fftn", (X2,), {"axes": (0, -2)}), ("rfftn", (X2,), {"axes": (0, 5)}),
    ("fft", (X2,), {"axis": (0, 1)}), ("hfft", (X2,), {"axis": (0,)}),
    ("fft2", (X2,), {"axes": (0,)}), ("fft2", (np.ones(3, np.float32),), {}),
    ("fft", (X2,), {"norm": "bad"}), ("fft", (np.float32(1),), {}),
    ("rfft", (X2.astype(np.complex64),), {}), ("ihfft", (X2.astype(np.complex64),), {}),
    ("fft", ([1.0, 2.0],), {}), ("ifftn", (X2,), {"s": (2.5,)}), ("ifft", (X2,), {"n": 2.0}),
    ("fftfreq", ([3],), {}), ("fftfreq", (3,), {"d": [1]}), ("rfftfreq", ((3,),), {}),
    ("fftshift", (X2,), {"axes": 3}),
]


@pytest.mark.parametrize("case", ERRORS, ids=_case_id)
def test_errors_match_jax(case):
    name, args, kw = case
    with pytest.raises(Exception) as want:
        getattr(jjnp.fft, name)(*args, **kw)
    with pytest.raises(type(want.value)) as got:
        getattr(jnp.fft, name)(*args, **kw)
    expected = str(want.value).replace("jax.numpy", "irax.numpy").replace("(0, 0)", "[0, 0]")
    if "ndarray or scalar" not in expected:  # that one names the public function
        assert str(got.value) == expected


def test_lax_fft_types_and_errors():
    x, z = R(3, 8), C(3, 8)
    for t, a, n in ((lax.FftType.FFT, z, (8,)), ("ifft", z, (3, 8)), ("RFFT", x, (8,)),
                    ("irfft", z[:, :5], (8,)), ("fft", x, (3, 8)), ("fft", I(3, 8), ()),
                    ("rfft", I(2, 6), (6,))):
        jt = jax.lax.FftType(int(t)) if isinstance(t, lax.FftType) else t
        close(lax.fft(a, t, n), jax.lax.fft(a, jt, n), a, f"{t} {n}")
    assert [t.name for t in lax.FftType] == [t.name for t in jax.lax.FftType]
    assert [int(t) for t in lax.FftType] == [int(t) for t in jax.lax.FftType]
    for bad, exc in (("fftt", ValueError), (7, TypeError)):
        with pytest.raises(exc, match="Unknown FFT type"):
            lax.fft(z, bad, (8,))
    with pytest.raises(ValueError, match="only real valued inputs supported for rfft"):
        lax.fft(z, "rfft", (8,))
    with pytest.raises(ValueError, match="must have at least as many input dimensions"):
        lax.fft(z, "fft", (1, 3, 8))
    with pytest.raises(ValueError, match="minor dimensions must be equal to fft_lengths"):
        lax.fft(z, "fft", (4,))
    with pytest.raises(ValueError, match="IRFFT"):
        lax.fft(z, "irfft", (8,))


# ---- derivatives and vmap -----------------------------------------------------------------------
GRAD_CASES = [
    ("fft", C(7), {}), ("ifft", C(12), {"norm": "ortho"}), ("rfft", R(8), {}),
    ("rfft", R(4, 6), {"n": 9, "axis": 0}), ("irfft", C(4), {"n": 7}), ("hfft", C(5), {}),
    ("ihfft", R(6), {}), ("irfft2", C(4, 4), {}), ("rfftn", R(2, 3, 5), {"norm": "forward"}),
    ("irfft", C(51), {}), ("fft", R(4, 6), {"n": 3}),
]


def _like(a):
    return R(*a.shape) if a.dtype == np.float32 else C(*a.shape)


def test_jvp_and_vjp_match_jax_eagerly_and_under_jit():
    tangents = [_like(x) for _, x, _ in GRAD_CASES]
    cts = [_like(np.asarray(getattr(jjnp.fft, n)(x, **kw))) for n, x, kw in GRAD_CASES]

    def fn(name, kw):
        return lambda a: getattr(jnp.fft, name)(a, **kw)

    def all_vjps(*args):
        k = len(GRAD_CASES)
        return [irax.vjp(fn(n, kw), x)[1](ct)[0]
                for (n, _, kw), x, ct in zip(GRAD_CASES, args[:k], args[k:])]

    jitted = irax.jit(all_vjps)(*[x for _, x, _ in GRAD_CASES], *cts)
    for (name, x, kw), t, ct, jv in zip(GRAD_CASES, tangents, cts, jitted):
        fj = lambda a, name=name, kw=kw: getattr(jjnp.fft, name)(a, **kw)  # noqa: E731
        msg = f"{name} {x.shape} {kw}"
        _, tj = jax.jvp(fj, (x,), (t,))
        _, ti = irax.jvp(fn(name, kw), (x,), (t,))
        close(ti, tj, t, f"jvp {msg}")
        want = jax.vjp(fj, x)[1](ct)[0]
        close(irax.vjp(fn(name, kw), x)[1](ct)[0], want, ct, f"vjp {msg}")
        close(jv, want, ct, f"jit vjp {msg}")


def test_check_grads_finite_differences():
    x = np.linspace(-1, 1, 7, dtype=np.float32)
    check_grads(lambda x: (lambda z: jnp.real(z * jnp.conj(z)))(jnp.fft.rfft(x)), (x,), order=2)
    check_grads(lambda z: jnp.fft.irfft(z, n=7), (x[:4].astype(np.complex64) + 0.5j,), order=1)
    check_grads(lambda z: jnp.fft.hfft(z, norm="ortho"), (x[:5] * (1 - 0.5j),), order=1)
    check_grads(jnp.fft.fft2, (x[:6].reshape(2, 3),), order=1, atol=1e-2, rtol=1e-2)
    check_grads(lambda a: jnp.fft.ifftn(a, s=(4, 2)), (x[:6].reshape(2, 3) * 1j,), order=1,
                atol=1e-2, rtol=1e-2)


VMAP_CASES = [("fft", C(3, 8), {}), ("rfft", R(3, 7), {"n": 9}), ("irfft", C(3, 5), {}),
              ("fft2", R(3, 4, 5), {}), ("irfftn", C(3, 4, 3), {"norm": "ortho"}),
              ("ihfft", R(3, 6), {}), ("fftshift", R(3, 5), {})]


@pytest.mark.parametrize("in_axis", [0, 1])
def test_vmap_matches_python_loop(in_axis):
    def loop(name, x, kw):
        return jnp.stack([getattr(jnp.fft, name)(r, **kw) for r in x])

    args = [np.moveaxis(x, 0, in_axis) for _, x, _ in VMAP_CASES]

    def batched(*args):
        return [irax.vmap(lambda a, n=n, kw=kw: getattr(jnp.fft, n)(a, **kw), in_axes=in_axis)(x)
                for (n, _, kw), x in zip(VMAP_CASES, args)]

    eager = batched(*args)
    jitted = irax.jit(batched)(*args) if in_axis == 1 else eager
    for (name, x, kw), e, j in zip(VMAP_CASES, eager, jitted):
        want = loop(name, x, kw)
        close(e, want, x, f"vmap {name}")
        close(j, want, x, f"jit vmap {name}")


def test_lax_fft_vmap_and_grad_compose():
    x = R(4, 6)
    g = irax.grad(lambda a: jnp.sum(jnp.abs(irax.vmap(jnp.fft.rfft)(a)) ** 2))(x)
    want = jax.grad(lambda a: jjnp.sum(jjnp.abs(jax.vmap(jjnp.fft.rfft)(a)) ** 2))(x)
    close(g, want, x, "grad of vmap")
    h = irax.vmap(irax.grad(lambda a: jnp.real(jnp.fft.fft(a)[1])))(x)
    want = jax.vmap(jax.grad(lambda a: jjnp.real(jjnp.fft.fft(a)[1])))(x)
    close(h, want, x, "vmap of grad")


def test_names_match_jax():
    names = {n for n in dir(jjnp.fft) if not n.startswith("_")}
    assert names <= set(dir(jnp.fft)), names - set(dir(jnp.fft))
    assert len(jnp.fft.__all__) == 18 and set(jnp.fft.__all__) <= names
    assert re.search("jax.numpy.fft.fft", jnp.fft.fft.__doc__)
