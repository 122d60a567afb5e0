"""irax.scipy.linalg against jax.scipy.linalg: values, dtypes and weak types, eagerly (the
ops' NumPy rules) and under jit (every case in ONE compiled function: linalg compiles are
expensive), derivatives against JAX and finite differences, vmap against a Python loop,
JAX's errors for bad arguments."""

import functools
import warnings

import jax
import jax.scipy.linalg as jla
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import irax
import irax.scipy.linalg as la
from irax.config import config
from irax.test_util import check_grads

F32, C64 = np.dtype(np.float32), np.dtype(np.complex64)
TOL = {F32: 2e-4, C64: 2e-4, np.dtype(np.float64): 1e-9, np.dtype(np.complex128): 1e-9}


def check(got, want, *, tol=None, weak=True, msg=""):
    """``got`` (irax) matches ``want`` (JAX): tuple structure, dtype, weak type, values."""
    if isinstance(want, (tuple, list)):
        assert isinstance(got, (tuple, list)) and len(got) == len(want), (msg, type(got))
        for i, (g, w) in enumerate(zip(got, want)):
            check(g, w, tol=tol, weak=weak, msg=f"{msg}[{i}]")
        return
    assert isinstance(got, irax.Array), (msg, type(got))
    assert got.dtype == want.dtype, f"{msg}: dtype {got.dtype} != {want.dtype}"
    if weak:
        assert got.weak_type == want.weak_type, f"{msg}: weak {got.weak_type}"
    assert got.shape == want.shape, f"{msg}: shape {got.shape} != {want.shape}"
    t = TOL.get(np.dtype(want.dtype), 0) if tol is None else tol
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=t, atol=t,
                               equal_nan=True, err_msg=msg)


def general(shape, dtype, rng):
    a = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * rng.standard_normal(shape)
    if shape[-1] == shape[-2]:
        a = a + 2 * np.sqrt(shape[-1]) * np.eye(shape[-1])
    return a.astype(dtype)


def spd(shape, dtype, rng):
    a = general(shape, dtype, rng).astype(np.complex128)
    h = a @ np.conj(np.swapaxes(a, -1, -2)) / shape[-1] + np.eye(shape[-1])
    return (h if np.dtype(dtype).kind == "c" else h.real).astype(dtype)


def _cases(dt, rng):
    """``name -> fn(module)``: every function on ``dt`` inputs (small, batched)."""
    a = general((2, 4, 4), dt, rng)
    h = spd((2, 4, 4), dt, rng)
    b = general((2, 4, 3), dt, rng)
    v = general((4, 1), dt, rng)[:, 0]
    tall = general((5, 3), dt, rng)
    wide = general((2, 5), dt, rng)
    tri = np.triu(a)
    small = (a[0] / 8).astype(dt)
    return {
        "cholesky": lambda M: M.cholesky(h),
        "cholesky lower": lambda M: M.cholesky(h, lower=True),
        "cho_solve": lambda M: M.cho_solve(M.cho_factor(h), b),
        "cho_solve lower vec": lambda M: M.cho_solve(M.cho_factor(h[0], lower=True), v),
        "solve_triangular": lambda M: M.solve_triangular(tri, b),
        "solve_triangular T lower unit": lambda M: M.solve_triangular(
            np.swapaxes(tri, -1, -2), b, trans="T", lower=True, unit_diagonal=True),
        "solve_triangular C vec": lambda M: M.solve_triangular(tri[0], v, trans=2),
        "solve_triangular bcast": lambda M: M.solve_triangular(tri[0], b),
        "lu": lambda M: M.lu(a[0]),
        "lu wide": lambda M: M.lu(tall.T),
        "lu tall permute_l": lambda M: M.lu(tall, permute_l=True),
        "lu_factor": lambda M: M.lu_factor(a),
        "lu_solve": lambda M: M.lu_solve(M.lu_factor(a), b),
        "lu_solve trans 1": lambda M: M.lu_solve(M.lu_factor(a[0]), b[0], trans=1),
        "lu_solve trans 2 vec": lambda M: M.lu_solve(M.lu_factor(a[0]), v, trans=2),
        "qr": lambda M: M.qr(tall),
        "qr economic": lambda M: M.qr(tall, mode="economic"),
        "qr r": lambda M: M.qr(a, mode="r"),
        "qr_multiply right": lambda M: M.qr_multiply(tall, wide),
        "qr_multiply left": lambda M: M.qr_multiply(tall, b[0, :3], mode="left"),
        "qr_multiply conj vec": lambda M: M.qr_multiply(tall, tall[:, 0], conjugate=True),
        "solve": lambda M: M.solve(a, b),
        "solve sym": lambda M: M.solve(h, b, assume_a="sym"),
        "solve pos": lambda M: M.solve(h, b, assume_a="pos"),
        "solve pos lower vec": lambda M: M.solve(h, b[..., 0], assume_a="pos", lower=True),
        "det": lambda M: M.det(a),
        "inv": lambda M: M.inv(a),
        "eigh vals": lambda M: M.eigh(h, eigvals_only=True),
        "svd vals": lambda M: M.svd(a, compute_uv=False),
        "polar": lambda M: M.polar(a),
        "polar left svd": lambda M: M.polar(tall.T, side="left", method="svd"),
        "expm": lambda M: M.expm(small),
        "expm scaled": lambda M: M.expm(a / 2),
        "expm batch": lambda M: M.expm(a / 6),
        "expm upper": lambda M: M.expm(np.triu(small), upper_triangular=True),
        "expm_frechet": lambda M: M.expm_frechet(small, a[1] / 4),
        "expm_frechet only": lambda M: M.expm_frechet(small, a[1] / 4, compute_expm=False),
        "hessenberg": lambda M: M.hessenberg(a),
        "hessenberg calc_q": lambda M: M.hessenberg(a[0], calc_q=True),
        "eigh_tridiagonal": lambda M: M.eigh_tridiagonal(
            np.real(a[0, 0]).astype(dt), a[0, 1, :3], eigvals_only=True),
        "eigh_tridiagonal select": lambda M: M.eigh_tridiagonal(
            np.real(a[1, 0]).astype(dt), a[1, 1, :3], eigvals_only=True, select="i",
            select_range=(1, 2)),
    }


def _matrix_cases(rng):
    """The special matrices (no decomposition; dtype promotion matters)."""
    x = rng.standard_normal(4).astype(np.float32)
    y = rng.standard_normal((2, 3)).astype(np.float32)
    i = np.arange(1, 5, dtype=np.int32)
    return {
        "block_diag": lambda M: M.block_diag(y, x[:2], np.ones((2, 2), np.int32)),
        "block_diag ints": lambda M: M.block_diag(np.eye(2, dtype=np.int32), i[:3]),
        "block_diag none": lambda M: M.block_diag(),
        "toeplitz": lambda M: M.toeplitz(x, y[0]),
        "toeplitz c only": lambda M: M.toeplitz(x + 1j * x),
        "toeplitz batch": lambda M: M.toeplitz(y, x),
        "toeplitz ints": lambda M: M.toeplitz(i),
        "hankel": lambda M: M.hankel(x, y[0]),
        "hankel c only": lambda M: M.hankel(i),
        "circulant": lambda M: M.circulant(x),
        "circulant batch": lambda M: M.circulant(y),
        "leslie": lambda M: M.leslie(x, y[0]),
        "companion": lambda M: M.companion(x),
        "companion ints": lambda M: M.companion(i),
        "fiedler": lambda M: M.fiedler(x),
        "fiedler ints": lambda M: M.fiedler(i),
        "fiedler_companion": lambda M: M.fiedler_companion(np.arange(1.0, 8.0, dtype=np.float32)),
        "fiedler_companion 3": lambda M: M.fiedler_companion(i[:3]),
        "fiedler_companion 2": lambda M: M.fiedler_companion(x[:2]),
        "convolution_matrix": lambda M: M.convolution_matrix(x[:3], 5),
        "convolution_matrix same": lambda M: M.convolution_matrix(x, 3, "same"),
        "convolution_matrix valid": lambda M: M.convolution_matrix(x, 6, "valid"),
        "hilbert": lambda M: M.hilbert(5),
        "invhilbert": lambda M: M.invhilbert(4),
        "pascal": lambda M: M.pascal(5),
        "pascal lower": lambda M: M.pascal(4, "lower"),
        "invpascal": lambda M: M.invpascal(4),
        "invpascal upper": lambda M: M.invpascal(5, kind="upper"),
        "helmert": lambda M: M.helmert(5),
        "helmert full": lambda M: M.helmert(4, full=True),
        "hadamard": lambda M: M.hadamard(8),
        "hadamard f32": lambda M: M.hadamard(4, dtype=np.float32),
        "dft": lambda M: M.dft(4),
        "dft sqrtn": lambda M: M.dft(5, "sqrtn"),
    }


@functools.lru_cache(maxsize=None)
def _reference(kind: str):
    """``(cases, JAX's results)`` of a case set, JAX's from ONE jitted function (XLA
    compiles are the slow part of these tests), shared by the eager and jit tests."""
    if kind == "matrices":
        cases = _matrix_cases(np.random.default_rng(1))
    else:
        cases = _cases(np.dtype(kind), np.random.default_rng(0))
        if kind == "complex64":   # the float32 run covers the rest
            cases = {k: f for k, f in cases.items() if not k.startswith(("expm ", "qr_m", "lu "))}
    keys = list(cases)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        wants = dict(zip(keys, jax.jit(lambda: [cases[k](jla) for k in keys])()))
    return cases, wants


def _tol(key):
    return 1e-5 if "inv" in key or "pascal" in key else None


@pytest.mark.parametrize("dt", [F32, C64], ids=str)
def test_eager_matches_jax(dt):
    cases, wants = _reference(dt.name)
    for key, fn in cases.items():
        check(fn(la), wants[key], msg=key)


def test_special_matrices_match_jax():
    cases, wants = _reference("matrices")
    for key, fn in cases.items():
        check(fn(la), wants[key], tol=_tol(key), msg=key)


def test_many_functions_in_one_jit_match_eager_and_jax():
    """One compiled function holds every float32 case and the special matrices."""
    (cases, wants), (mcases, mwants) = _reference("float32"), _reference("matrices")
    cases = {**cases, **{f"m {k}": f for k, f in mcases.items()}}
    wants = {**wants, **{f"m {k}": w for k, w in mwants.items()}}
    keys = list(cases)

    def everything():
        return [cases[k](la) for k in keys]

    got = irax.jit(everything)()
    eager = everything()
    for k, g, e in zip(keys, got, eager):
        check(g, wants[k], tol=_tol(k), msg=f"jit {k}")
        check(g, e, tol=_tol(k), msg=f"jit vs eager {k}")


def _orthonormal_columns(q, tol=2e-4):
    q = np.asarray(q)
    eye = np.eye(q.shape[-1])
    np.testing.assert_allclose(np.conj(np.swapaxes(q, -1, -2)) @ q,
                               np.broadcast_to(eye, q.shape[:-2] + eye.shape), atol=tol)


@pytest.mark.parametrize("dt", [F32, C64], ids=str)
def test_eigh_and_svd_reconstruct_and_match_jax_values(dt):
    rng = np.random.default_rng(3)
    h = spd((2, 5, 5), dt, rng)
    a = general((2, 5, 3), dt, rng)
    w, v = la.eigh(h)
    jw, _ = jla.eigh(h)
    check(w, jw)
    assert v.dtype == dt and not v.weak_type
    _orthonormal_columns(v)
    rec = np.asarray(v) @ (np.asarray(w)[..., None] * np.conj(np.swapaxes(np.asarray(v), -1, -2)))
    np.testing.assert_allclose(rec, h, atol=1e-4 * 10)
    u, s, vh = la.svd(a, full_matrices=False)
    check(s, jla.svd(a, compute_uv=False))
    _orthonormal_columns(u)
    np.testing.assert_allclose(np.asarray(u) * np.asarray(s)[..., None, :] @ np.asarray(vh), a,
                               atol=1e-4 * 10)
    u, s, vh = la.svd(a)
    assert u.shape == (2, 5, 5) and vh.shape == (2, 3, 3)
    d, e = np.real(h[0, 0]).astype(dt), h[0, 1, :4]
    w, v = la.eigh_tridiagonal(d, e)
    check(w, jla.eigh_tridiagonal(d, e, eigvals_only=True))
    assert v.dtype == dt
    t = np.diag(d) + np.diag(e, 1) + np.diag(np.conj(e), -1)
    np.testing.assert_allclose(t @ np.asarray(v), np.asarray(v) * np.asarray(w), atol=1e-4)


def test_integer_and_weak_inputs_promote_as_jax():
    a = np.array([[4, 1, 0], [1, 3, 1], [0, 1, 2]], np.int32)
    b = np.array([1, 2, 3], np.int8)
    cases = {
        "cholesky": lambda M: M.cholesky(a),
        "cho_solve": lambda M: M.cho_solve((M.cholesky(a), False), b),
        "solve_triangular": lambda M: M.solve_triangular(np.triu(a), b),
        "lu": lambda M: M.lu(a),
        "lu_solve": lambda M: M.lu_solve(M.lu_factor(a), b),
        "qr": lambda M: M.qr(a),
        "solve pos": lambda M: M.solve(a, b, assume_a="pos"),
        "expm": lambda M: M.expm(a),
        "expm bool": lambda M: M.expm(np.eye(2, dtype=bool)),
        "det": lambda M: M.det(a),
        "toeplitz weak": lambda M: M.toeplitz(2.0),
        "circulant weak": lambda M: M.circulant(3.0),
        "fiedler weak": lambda M: M.fiedler(3),
    }
    wants = jax.jit(lambda: {k: f(jla) for k, f in cases.items()})()
    for name, f in cases.items():
        check(f(la), wants[name], msg=name)


def test_float64_expm_uses_pade13_like_jax():
    rng = np.random.default_rng(4)
    config.update("jax_enable_x64", True)
    jax.config.update("jax_enable_x64", True)
    try:
        scales = np.array([0.005, 0.1, 0.5, 1.5, 4.0, 40.0])   # every Pade degree, squaring
        a = rng.standard_normal((6, 4, 4)) * scales[:, None, None]
        c = (rng.standard_normal((3, 3)) + 1j * rng.standard_normal((3, 3))) * 2

        def run(M):
            return [M.expm(x) for x in a] + [M.expm(a), M.expm(c), M.expm_frechet(c, c.T)]

        for i, (g, w) in enumerate(zip(run(la), jax.jit(lambda: run(jla))())):
            check(g, w, msg=f"case {i}")
    finally:
        config.update("jax_enable_x64", False)
        jax.config.update("jax_enable_x64", False)


def test_expm_overflowing_squarings_give_nan_like_jax():
    a = np.eye(2, dtype=np.float32) * 1e6
    check(la.expm(a, max_squarings=4), jla.expm(a, max_squarings=4))
    check(la.expm(np.eye(2, dtype=np.float32) * 30), jla.expm(np.eye(2, dtype=np.float32) * 30),
          tol=1e-4)


_JAX_EXPM = jax.jit(jla.expm)


@settings(max_examples=15, deadline=None)
@given(st.sampled_from([1, 3]), st.floats(0.01, 6.0), st.integers(0, 2 ** 16))
def test_expm_hypothesis_matches_jax(n, scale, seed):
    a = (np.random.default_rng(seed).standard_normal((n, n)) * scale / n).astype(np.float32)
    want = _JAX_EXPM(a)
    check(la.expm(a), want, tol=2e-4 * max(1.0, float(np.abs(want).max())))


# ---- derivatives -------------------------------------------------------------------------
def _grad_cases(rng):
    a = (rng.standard_normal((3, 3)) / 2).astype(np.float32)
    h = spd((3, 3), F32, rng)
    b = rng.standard_normal((3, 2)).astype(np.float32)
    tri = np.triu(a) + 3 * np.eye(3, dtype=np.float32)
    return a, {
        "expm": lambda M, x: M.expm(x),
        "expm squared": lambda M, x: M.expm(3 * x),
        "solve_triangular a": lambda M, x: M.solve_triangular(tri + x, b),
        "solve_triangular b": lambda M, x: M.solve_triangular(tri, x[:, :2], trans=1),
        "cho_solve": lambda M, x: M.cho_solve(M.cho_factor(h + x @ x.T), b),
        "solve pos": lambda M, x: M.solve(h + x, b, assume_a="pos"),
        "solve pos lower": lambda M, x: M.solve(h + x, b, assume_a="pos", lower=True),
        "lu_solve": lambda M, x: M.lu_solve(M.lu_factor(h + x), b, trans=1),
        "lu": lambda M, x: M.lu(h + x)[1],
        "det": lambda M, x: M.det(h + x),
        "expm_frechet": lambda M, x: M.expm_frechet(x, h / 4, compute_expm=False),
    }


def test_jvp_and_vjp_match_jax():
    rng = np.random.default_rng(5)
    a, cases = _grad_cases(rng)
    t = rng.standard_normal(a.shape).astype(np.float32)
    def both(ad, M, f):
        y, dy = ad.jvp(lambda x: f(M, x), (a,), (t,))
        (g,) = ad.vjp(lambda x: f(M, x), a)[1](ad.numpy.cos(y))
        return y, dy, g

    wants = jax.jit(lambda: {n: both(jax, jla, f) for n, f in cases.items()})()
    for name, f in cases.items():
        check(both(irax, la, f), tuple(wants[name]), tol=1e-3, msg=name)


def test_derivatives_match_finite_differences():
    rng = np.random.default_rng(6)
    a, cases = _grad_cases(rng)
    for name in ("expm", "solve_triangular a", "cho_solve", "solve pos"):
        check_grads(lambda x, f=cases[name]: f(la, x), (a.astype(np.float64),), order=1,
                    atol=5e-2, rtol=5e-2)


def test_grad_under_jit_matches_jax():
    rng = np.random.default_rng(7)
    a = (rng.standard_normal((3, 3)) / 2).astype(np.float32)

    def loss(M, x):
        return (M.expm(x) ** 2).sum() + M.solve_triangular(x + 3 * np.eye(3), x).sum()

    g = irax.jit(irax.grad(lambda x: loss(la, x)))(a)
    check(g, jax.grad(lambda x: loss(jla, x))(a), tol=1e-3)


# ---- vmap ------------------------------------------------------------------------------------
def test_vmap_matches_python_loop():
    rng = np.random.default_rng(8)
    a = (rng.standard_normal((3, 3, 3)) / 2).astype(np.float32)
    h = spd((3, 3, 3), F32, rng)
    b = rng.standard_normal((3, 3, 2)).astype(np.float32)
    fns = {
        "expm": (lambda a, h, b: la.expm(a)),
        "solve_triangular": (lambda a, h, b: la.solve_triangular(a + 3 * np.eye(3), b)),
        "cho_solve": (lambda a, h, b: la.cho_solve(la.cho_factor(h), b)),
        "solve pos": (lambda a, h, b: la.solve(h, b, assume_a="pos")),
        "lu_solve": (lambda a, h, b: la.lu_solve(la.lu_factor(h), b)),
        "toeplitz": (lambda a, h, b: la.toeplitz(a[0], b[:, 0])),
    }
    for name, f in fns.items():
        got = irax.vmap(f)(a, h, b)
        for i in range(3):
            want = f(a[i], h[i], b[i])
            np.testing.assert_allclose(np.asarray(got[i]), np.asarray(want), rtol=1e-4,
                                       atol=1e-4, err_msg=name)


# ---- errors ----------------------------------------------------------------------------------
def _raises_like_jax(fn):
    """``fn(la)`` raises the exception type ``fn(jla)`` raises, with the same message."""
    with pytest.raises(Exception) as want:
        fn(jla)
    with pytest.raises(want.type) as got:
        fn(la)
    return str(got.value), str(want.value)


def test_errors_match_jax():
    sq = np.eye(3, dtype=np.float32)
    for fn in (lambda M: M.expm(np.ones((2, 3), np.float32)),
               lambda M: M.expm(np.ones(3, np.float32)),
               lambda M: M.solve(sq, sq, assume_a="banana"),
               lambda M: M.solve_triangular(sq, sq, trans=3),
               lambda M: M.qr(sq, mode="raw"),
               lambda M: M.polar(np.ones(3, np.float32)),
               lambda M: M.polar(sq, side="up"),
               lambda M: M.polar(np.ones((2, 3), np.float32)),
               lambda M: M.polar(sq, method="newton"),
               lambda M: M.expm_frechet(sq, np.eye(2, dtype=np.float32)),
               lambda M: M.block_diag(np.ones((2, 2, 2))),
               lambda M: M.hadamard(6),
               lambda M: M.helmert(0),
               lambda M: M.dft(4, "half"),
               lambda M: M.leslie(np.ones(3), np.ones(3)),
               lambda M: M.companion(np.ones(1)),
               lambda M: M.convolution_matrix(np.ones(3), 0),
               lambda M: M.convolution_matrix(np.ones(3), 2, "wide"),
               lambda M: M.pascal(3, "diag"),
               lambda M: M.hankel(1.0),
               lambda M: M.eigh(sq, sq),
               lambda M: M.hessenberg(np.eye(3, dtype=np.int32)),
               lambda M: M.eigh_tridiagonal(np.ones(3, np.float32), np.ones(2, np.int32)),
               lambda M: M.eigh_tridiagonal(np.ones(3), np.ones(2), select="v"),
               lambda M: M.eigh_tridiagonal(np.ones(3, np.float32), np.ones(2, np.float32),
                                            select="i", select_range=(2, 1))):
        got, want = _raises_like_jax(fn)
        assert got.split(", got")[0] == want.split(", got")[0], (got, want)


def test_shape_errors_are_value_errors():
    sq = np.eye(3, dtype=np.float32)
    with pytest.raises(ValueError):
        la.cho_solve((sq, False), np.ones(4, np.float32))
    with pytest.raises(ValueError):
        la.solve_triangular(sq, np.ones((4, 2), np.float32))
    with pytest.raises(ValueError):
        la.solve(sq, np.ones((4, 2), np.float32), assume_a="pos")
    with pytest.raises(ValueError):
        la.qr_multiply(np.ones((4, 3), np.float32), np.ones((2, 2), np.float32), mode="left")


def test_deprecated_batched_vector_solves_warn_like_jax():
    tri = np.triu(np.eye(3, dtype=np.float32) * 2 + 1)
    b = np.ones((2, 3), np.float32)
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        out = la.solve_triangular(np.broadcast_to(tri, (2, 3, 3)), b)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = jla.solve_triangular(np.broadcast_to(tri, (2, 3, 3)), b)
    assert any(issubclass(w.category, FutureWarning) for w in got)
    check(out, want)
