"""jnp.linalg's factorizations and solves (cholesky, qr, solve, inv, det, slogdet,
matrix_power, tensorsolve, tensorinv) and jax.lax.linalg's (cholesky, lu, qr,
triangular_solve, lu_pivots_to_permutation): differential against JAX and NumPy, eagerly
(the ops' NumPy rules), under jit (the kernels compiled by IREE), derivatives, vmap and
errors."""

import numpy as np
import pytest
from factor_helpers import both_x64, check, general, spd
from hypothesis import given, settings
from hypothesis import strategies as st

import irax
import irax.numpy as jnp
from irax import lax
from irax.test_util import check_grads

jax = pytest.importorskip("jax")
jjnp = pytest.importorskip("jax.numpy")
jlax = pytest.importorskip("jax.lax")

F32, F64, C64, C128 = (np.dtype(d) for d in (np.float32, np.float64, np.complex64,
                                             np.complex128))


def _cases(m, dt, rng, batch=(3,)):
    """``(name, fn(module) -> result)`` pairs covering every function on ``dt`` inputs."""
    a = general(batch + (4, 4), dt, rng)
    h = spd(batch + (4, 4), dt, rng)
    b = general(batch + (4, 2), dt, rng)
    v = general((4, 1), dt, rng)[:, 0]
    tall = general(batch + (5, 3), dt, rng)
    wide = general((3, 5), dt, rng)
    t = general((2, 3, 6), dt, rng)
    tri = np.tril(a)
    return {
        "solve": lambda M: M.linalg.solve(a, b),
        "solve vec": lambda M: M.linalg.solve(a, v),
        "solve bcast": lambda M: M.linalg.solve(a[:1], b),
        "inv": lambda M: M.linalg.inv(a),
        "det": lambda M: M.linalg.det(a),
        "det 2x2": lambda M: M.linalg.det(a[..., :2, :2]),
        "det 3x3": lambda M: M.linalg.det(a[..., :3, :3]),
        "det 1x1": lambda M: M.linalg.det(a[..., :1, :1]),
        "slogdet": lambda M: M.linalg.slogdet(a),
        "slogdet 2x2": lambda M: M.linalg.slogdet(-a[..., :2, :2]),
        "cholesky": lambda M: M.linalg.cholesky(h),
        "cholesky upper": lambda M: M.linalg.cholesky(h, upper=True),
        "qr": lambda M: M.linalg.qr(tall),
        "qr complete": lambda M: M.linalg.qr(tall, mode="complete"),
        "qr r": lambda M: M.linalg.qr(wide, mode="r"),
        "qr wide": lambda M: M.linalg.qr(wide),
        "matrix_power 5": lambda M: M.linalg.matrix_power(a, 5),
        "matrix_power -2": lambda M: M.linalg.matrix_power(a, -2),
        "matrix_power 0": lambda M: M.linalg.matrix_power(a, 0),
        "tensorsolve": lambda M: M.linalg.tensorsolve(a[0].reshape(2, 2, 4), b[0, :, 0]
                                                      .reshape(2, 2)),
        "tensorinv": lambda M: M.linalg.tensorinv(t.reshape(6, 2, 3), ind=1),
        "lax lu": lambda M: M.linalg.lu(tall) if M is not np else None,
        "lax tri left lower": lambda M: M.linalg.triangular_solve(
            tri, b, left_side=True, lower=True),
        "lax tri right upper T": lambda M: M.linalg.triangular_solve(
            np.swapaxes(tri, -1, -2), np.swapaxes(b, -1, -2), left_side=False,
            lower=False, transpose_a=True, conjugate_a=True, unit_diagonal=True),
        "lax tri vec": lambda M: M.linalg.triangular_solve(
            tri, b[..., 0], left_side=True, lower=True),
        "lax qr": lambda M: M.linalg.qr(wide, full_matrices=False),
        "lax cholesky": lambda M: M.linalg.cholesky(h),
    }


def _run(cases, key, module, lax_module):
    fn = cases[key]
    return fn(lax_module if key.startswith("lax") else module)


def _jax_all(cases, keys=None):
    """JAX's results of ``cases`` from one jitted function (one XLA compilation)."""
    keys = list(cases) if keys is None else keys
    out = jax.jit(lambda: [_run(cases, k, jjnp, jlax) for k in keys])()
    return dict(zip(keys, out))


def _compare(got, want, msg, **kw):
    if isinstance(want, (list, tuple)) and not hasattr(want, "_fields"):
        got, want = tuple(got), tuple(want)
    elif hasattr(want, "_fields"):
        assert type(got).__name__ == type(want).__name__, msg
        got, want = tuple(got), tuple(want)
    check(got, want, msg=msg, **kw)


DTYPES = [F32, C64]


@pytest.mark.parametrize("dt", DTYPES, ids=str)
def test_eager_matches_jax(dt):
    rng = np.random.default_rng(0)
    cases = _cases(None, dt, rng)
    wants = _jax_all(cases)
    for key in cases:
        _compare(_run(cases, key, jnp, lax), wants[key], key)


def test_eager_float64_matches_jax_and_numpy():
    rng = np.random.default_rng(1)
    with both_x64():
        for dt in (F64, C128):
            cases = _cases(None, dt, rng)
            if dt == C128:
                cases = {k: cases[k] for k in ("solve", "inv", "det", "slogdet", "cholesky",
                                               "qr", "lax lu", "lax tri right upper T")}
            wants = _jax_all(cases)
            for key in cases:
                _compare(_run(cases, key, jnp, lax), wants[key], f"{key} {dt}")
        a = general((2, 6, 6), F64, rng)
        np.testing.assert_allclose(np.asarray(jnp.linalg.inv(a)), np.linalg.inv(a),
                                   rtol=1e-10, atol=1e-12)


def test_integer_and_weak_inputs_promote_as_jax():
    a = np.array([[2, 1], [1, 3]], np.int32)
    a3 = np.array([[4, 1, 0], [1, 3, 1], [0, 1, 2]], np.int8)
    for name, f in {"inv": lambda M: M.linalg.inv(a), "det": lambda M: M.linalg.det(a3),
                    "det4": lambda M: M.linalg.det(np.eye(4, dtype=np.int32)),
                    "slogdet": lambda M: M.linalg.slogdet(a3),
                    "solve": lambda M: M.linalg.solve(a, np.array([1, 2], np.int32)),
                    "cholesky": lambda M: M.linalg.cholesky(a),
                    "qr": lambda M: M.linalg.qr(a3),
                    "matrix_power": lambda M: M.linalg.matrix_power(a, 3),
                    "bool": lambda M: M.linalg.det(np.eye(3, dtype=bool)),
                    "lax cholesky": lambda M: (lax if M is jnp else jlax).linalg.cholesky(
                        a + 2 * np.eye(2, dtype=np.int32)),
                    "weak": lambda M: M.linalg.inv(M.asarray(a) * 1.0 + 0.5)}.items():
        check(f(jnp), f(jjnp), msg=name)


def test_not_positive_definite_gives_nans_like_jax():
    a = np.array([[[1.0, 2.0], [2.0, 1.0]], [[2.0, 0.0], [0.0, 3.0]]], np.float32)
    check(jnp.linalg.cholesky(a), jjnp.linalg.cholesky(a))
    check(irax.jit(jnp.linalg.cholesky)(a), jjnp.linalg.cholesky(a))


def test_singular_matrices_match_jax():
    a = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]], np.float32)
    check(jnp.linalg.det(a), jjnp.linalg.det(a), atol=1e-5)
    a4 = np.zeros((4, 4), np.float32)
    check(jnp.linalg.slogdet(a4), jjnp.linalg.slogdet(a4))
    check(jnp.linalg.det(a4), jjnp.linalg.det(a4))


def test_many_functions_in_one_jit_match_eager_and_jax():
    """One compiled function per dtype holds every case (few IREE compilations)."""
    rng = np.random.default_rng(2)
    for dt in DTYPES:
        cases = _cases(None, dt, rng)
        keys = [k for k in cases if dt == F32 or k in ("solve", "inv", "det", "slogdet",
                                                       "cholesky", "qr", "lax lu")]

        def everything(keys=keys, cases=cases):
            return [_run(cases, k, jnp, lax) for k in keys]

        got = irax.jit(everything)()
        eager = everything()
        wants = _jax_all(cases, keys)
        for k, g, e in zip(keys, got, eager):
            _compare(g, wants[k], f"jit {k} {dt}")
            _compare(g, e, f"jit vs eager {k} {dt}", weak=False)


def test_float64_jit_matches_numpy():
    rng = np.random.default_rng(3)
    with both_x64():
        a = general((2, 8, 8), F64, rng)
        h = spd((2, 8, 8), F64, rng)
        b = general((2, 8, 3), F64, rng)
        f = irax.jit(lambda a, h, b: (jnp.linalg.solve(a, b), jnp.linalg.inv(a),
                                      jnp.linalg.cholesky(h), *jnp.linalg.qr(a)))
        got = f(a, h, b)
        want = (np.linalg.solve(a, b), np.linalg.inv(a), np.linalg.cholesky(h),
                *np.linalg.qr(a))
        for g, w in zip(got, want):
            assert g.dtype == F64
            np.testing.assert_allclose(np.asarray(g), w, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("n", [512])
def test_large_matrices_under_jit_match_numpy(n):
    """The accuracy acceptance: solve, inv, cholesky and qr of a well-conditioned
    ``n x n`` float32 matrix (and a batch of 2 at n/4) within 1e-4 relative of NumPy."""
    rng = np.random.default_rng(4)
    a = (rng.standard_normal((n, n)) + np.sqrt(n) * np.eye(n)).astype(np.float32)
    h = spd((n, n), F32, rng)
    b = rng.standard_normal((n, 3)).astype(np.float32)
    ab = general((2, n // 4, n // 4), F32, rng)

    def four(a, h, b, ab):
        return (jnp.linalg.solve(a, b), jnp.linalg.inv(a), jnp.linalg.cholesky(h),
                *jnp.linalg.qr(a), jnp.linalg.inv(ab))

    got = irax.jit(four)(a, h, b, ab)
    want = (np.linalg.solve(a, b), np.linalg.inv(a), np.linalg.cholesky(h), *np.linalg.qr(a),
            np.linalg.inv(ab))
    for i, (g, w) in enumerate(zip(got, want)):
        g = np.asarray(g)
        err = np.linalg.norm(g - w) / np.linalg.norm(w)
        assert err < 1e-4, (i, err)
        assert np.abs(g - w).max() <= 1e-4 * np.abs(w).max() * 10, i


# ---- derivatives ------------------------------------------------------------------------------
def _losses(dt, rng):
    w = general((4, 2), dt, rng)
    t = general((4, 4), dt, rng)

    def r(M, x):
        return M.real(x) if np.dtype(dt).kind == "c" else x

    return {
        "solve": lambda M, a: r(M, M.linalg.solve(a, w) * w).sum(),
        "inv": lambda M, a: r(M, M.linalg.inv(a) * t).sum(),
        "det": lambda M, a: r(M, M.linalg.det(a) * 1.5),
        "det 3x3": lambda M, a: r(M, M.linalg.det(a[:3, :3])),
        "slogdet": lambda M, a: M.linalg.slogdet(a)[1] + r(M, M.linalg.slogdet(a)[0]),
        "cholesky": lambda M, a: r(M, M.linalg.cholesky(a @ M.conj(a.T)) * t).sum(),
        "qr": lambda M, a: r(M, (M.linalg.qr(a[:, :3])[0] * t[:, :3]).sum()
                             + (M.linalg.qr(a[:, :3])[1] * t[:3, :3]).sum()),
        "qr wide": lambda M, a: r(M, (M.linalg.qr(a[:3])[0] * t[:3, :3]).sum()
                                  + (M.linalg.qr(a[:3])[1] * t[:3]).sum()),
        "qr complete": lambda M, a: r(M, (M.linalg.qr(a[:, :3], mode="complete")[0] * t)
                                      .sum()),
        "tri": lambda M, a: r(M, _lax_of(M).linalg.triangular_solve(
            a, w, left_side=True, lower=True) * w).sum(),
        "lu": lambda M, a: r(M, _lax_of(M).linalg.lu(a)[0] * t).sum(),
    }


def _lax_of(M):
    return lax if M is jnp else jlax


@pytest.mark.parametrize("dt", DTYPES, ids=str)
def test_grad_and_jvp_match_jax(dt):
    rng = np.random.default_rng(5)
    a = general((4, 4), dt, rng)
    da = general((4, 4), dt, rng)
    losses = _losses(dt, rng)
    if dt == C64:
        losses = {k: losses[k] for k in ("solve", "det", "slogdet", "cholesky", "qr",
                                         "qr complete", "lu")}

    def jax_all(a, da):
        return [(jax.grad(lambda x, f=f: f(jjnp, x))(a),
                 jax.jvp(lambda x, f=f: f(jjnp, x), (a,), (da,))[1]) for f in losses.values()]

    for name, f, (gj, tj) in zip(losses, losses.values(), jax.jit(jax_all)(a, da)):
        gi = irax.grad(lambda x, f=f: f(jnp, x))(a)
        check(gi, gj, rtol=1e-3, atol=1e-3, msg=f"grad {name}")
        _, ti = irax.jvp(lambda x, f=f: f(jnp, x), (a,), (da,))
        check(ti, tj, rtol=1e-3, atol=1e-3, msg=f"jvp {name}", weak=False)


def test_derivatives_match_finite_differences():
    rng = np.random.default_rng(6)
    with both_x64():
        a = general((3, 3), F64, rng)
        h = spd((3, 3), F64, rng)
        b = general((3, 2), F64, rng)
        check_grads(lambda a, b: jnp.linalg.solve(a, b), (a, b), order=1)
        check_grads(jnp.linalg.inv, (a,), order=1)
        check_grads(jnp.linalg.det, (general((4, 4), F64, rng),), order=1)
        check_grads(lambda a: jnp.linalg.slogdet(a)[1], (a,), order=1)
        check_grads(lambda h: jnp.linalg.cholesky(h + h.T), (h,), order=1)
        check_grads(lambda x: jnp.linalg.qr(x), (general((4, 3), F64, rng),), order=1)
        check_grads(lambda x: lax.linalg.lu(x)[0], (general((3, 4), F64, rng),), order=1)
        check_grads(lambda a, b: lax.linalg.triangular_solve(a, b, left_side=False,
                                                             lower=False),
                    (np.triu(a) + 3 * np.eye(3), b.T), order=1)


def test_grad_under_jit_matches_eager():
    rng = np.random.default_rng(7)
    a = general((4, 4), F32, rng)
    losses = _losses(F32, rng)

    keys = ["solve", "det", "cholesky", "qr", "lu"]

    def grads(a):
        return [irax.grad(lambda x, k=k: losses[k](jnp, x))(a) for k in keys]

    for k, g, e in zip(keys, irax.jit(grads)(a), grads(a)):
        check(g, e, rtol=1e-4, atol=1e-4, weak=False, msg=k)


# ---- vmap -------------------------------------------------------------------------------------
def test_vmap_matches_a_python_loop():
    rng = np.random.default_rng(8)
    a = general((4, 3, 4), F32, rng)            # mapped over axis 1
    h = spd((3, 4, 4), F32, rng)
    b = general((4, 2), F32, rng)

    def f(a, h):
        return (jnp.linalg.solve(a, b), jnp.linalg.inv(a), jnp.linalg.det(a),
                jnp.linalg.slogdet(a)[1], jnp.linalg.cholesky(h), *jnp.linalg.qr(a),
                *lax.linalg.lu(a), lax.linalg.triangular_solve(a, b, left_side=True,
                                                                lower=True))

    got = irax.vmap(f, in_axes=(1, 0))(a, h)
    loop = [f(a[:, i], h[i]) for i in range(3)]
    for k, g in enumerate(got):
        w = np.stack([np.asarray(o[k]) for o in loop])
        assert g.dtype == w.dtype, k
        np.testing.assert_allclose(np.asarray(g), w, rtol=1e-4, atol=1e-4, err_msg=str(k))
    # one operand batched, the other not (triangular_solve broadcasts the unbatched one)
    bs = general((3, 4, 2), F32, rng)
    got = irax.vmap(lambda b: lax.linalg.triangular_solve(a[:, 0], b, left_side=True,
                                                          lower=True))(bs)
    want = np.stack([np.linalg.solve(np.tril(a[:, 0]), bs[i]) for i in range(3)])
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-4, atol=1e-4)


# ---- lu pivots ----------------------------------------------------------------------------------
def test_lu_pivots_to_permutation_matches_jax():
    piv = np.array([[2, 2, 3], [0, 3, 3], [1, 1, 2]], np.int32)
    for size in (3, 4, 5):
        if size < 4 and piv.max() >= size:
            continue
        check(lax.linalg.lu_pivots_to_permutation(piv, size),
              jlax.linalg.lu_pivots_to_permutation(piv, size))
    with pytest.raises(ValueError):
        lax.linalg.lu_pivots_to_permutation(piv, 2)


@settings(max_examples=10, deadline=None)
@given(st.integers(1, 6), st.integers(1, 6), st.lists(st.integers(1, 3), max_size=2),
       st.integers(0, 2 ** 16))
def test_lu_reconstructs_and_pivots_like_jax(m, n, batch, seed):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((*batch, m, n)).astype(np.float32)
    lu, piv, perm = lax.linalg.lu(a)
    jlu, jpiv, jperm = jlax.linalg.lu(a)
    check(piv, jpiv)
    check(perm, jperm)
    check(lu, jlu, rtol=1e-4, atol=1e-4)


@settings(max_examples=10, deadline=None)
@given(st.integers(1, 6), st.lists(st.integers(1, 3), max_size=2), st.integers(1, 3),
       st.booleans(), st.integers(0, 2 ** 16))
def test_solve_broadcasting_matches_numpy(n, batch, k, vector, seed):
    rng = np.random.default_rng(seed)
    a = general((*batch, n, n), F32, rng)
    b = (rng.standard_normal(n).astype(np.float32) if vector
         else general((1,) * len(batch) + (n, k), F32, rng))
    got = jnp.linalg.solve(a, b)
    assert got.dtype == F32 and not got.weak_type
    np.testing.assert_allclose(np.asarray(got), np.linalg.solve(a, b), rtol=1e-4, atol=1e-5)


# ---- errors ----------------------------------------------------------------------------------
def _same_error(f):
    try:
        f(jjnp, jlax)
    except Exception as e:  # noqa: BLE001 - whatever JAX raises, irax raises its type
        with pytest.raises(type(e)):
            f(jnp, lax)
        return
    raise AssertionError("JAX accepted the input")


@pytest.mark.parametrize("case", [
    lambda M, L: M.linalg.inv(np.ones((3, 4), np.float32)),
    lambda M, L: M.linalg.inv(np.ones((3,), np.float32)),
    lambda M, L: M.linalg.det(np.ones((3, 4), np.float32)),
    lambda M, L: M.linalg.slogdet(np.ones((2, 3), np.float32)),
    lambda M, L: M.linalg.solve(np.ones((3, 3), np.float32), np.ones((4,), np.float32)),
    lambda M, L: M.linalg.solve(np.ones((3, 3), np.float32), np.ones((2, 3), np.float32)),
    lambda M, L: M.linalg.solve(np.ones((3,), np.float32), np.ones((3,), np.float32)),
    lambda M, L: M.linalg.qr(np.ones((3,), np.float32)),
    lambda M, L: M.linalg.qr(np.ones((3, 3), np.float32), mode="bad"),
    lambda M, L: M.linalg.matrix_power(np.ones((3, 4), np.float32), 2),
    lambda M, L: M.linalg.matrix_power(np.ones((3,), np.float32), 2),
    lambda M, L: M.linalg.matrix_power(np.ones((3, 3), np.float32), 1.5),
    lambda M, L: M.linalg.cholesky(np.ones((2, 3), np.float32)),
    lambda M, L: M.linalg.tensorinv(np.ones((2, 3), np.float32), ind=1),
    lambda M, L: M.linalg.tensorinv(np.ones((2, 2), np.float32), ind=0),
    lambda M, L: M.linalg.tensorsolve(np.ones((2, 3), np.float32), np.ones(3, np.float32)),
    lambda M, L: M.linalg.inv([[1.0, 0.0], [0.0, 1.0]]),
    lambda M, L: L.linalg.lu(np.ones(3, np.float32)),
    lambda M, L: L.linalg.qr(np.ones((3, 3), np.int32)),
    lambda M, L: L.linalg.cholesky(np.ones((3, 3), np.int32), symmetrize_input=False),
    lambda M, L: L.linalg.triangular_solve(np.ones((3, 3), np.float32),
                                           np.ones((4, 2), np.float32), left_side=True),
], ids=lambda f: "")
def test_bad_inputs_raise_jax_error_types(case):
    _same_error(case)


def test_empty_and_1x1_matrices_match_jax():
    cases = {}
    for shape in [(0, 0), (2, 0, 0), (3, 1, 1)]:
        a = np.full(shape, 2.0, np.float32)
        cases.update({
            f"inv {shape}": lambda M, a=a: M.linalg.inv(a),
            f"det {shape}": lambda M, a=a: M.linalg.det(a),
            f"slogdet {shape}": lambda M, a=a: M.linalg.slogdet(a),
            f"cholesky {shape}": lambda M, a=a: M.linalg.cholesky(a),
            f"qr {shape}": lambda M, a=a: M.linalg.qr(a),
            f"solve {shape}": lambda M, a=a: M.linalg.solve(a, a)})
    e = np.ones((0, 3), np.float32)
    cases.update({"qr 0x3": lambda M: M.linalg.qr(e),
                  "qr 3x0 complete": lambda M: M.linalg.qr(e.T, mode="complete"),
                  "lax lu 3x0": lambda M: M.linalg.lu(e.T)})
    wants = _jax_all(cases)
    jitted = irax.jit(lambda: [_run(cases, k, jnp, lax) for k in cases])()
    for k, j in zip(cases, jitted):
        _compare(_run(cases, k, jnp, lax), wants[k], k)
        _compare(j, wants[k], f"jit {k}")


def test_det_gradient_of_singular_matrices_matches_jax():
    """det's JVP is the adjugate's (JAX's custom rule): finite at rank n - 1, zero below."""
    rng = np.random.default_rng(9)
    a = rng.standard_normal((3, 5, 5)).astype(np.float32)
    a[1, :, 4] = a[1, :, 0] + a[1, :, 1]                  # rank 4
    a[2, :, 3], a[2, :, 4] = a[2, :, 0], a[2, :, 1]       # rank 3
    want = jax.jit(jax.grad(lambda x: jjnp.linalg.det(x).sum()))(a)
    check(irax.grad(lambda x: jnp.linalg.det(x).sum())(a), want, rtol=1e-4, atol=1e-4)
    check(irax.jit(irax.grad(lambda x: jnp.linalg.det(x).sum()))(a), want, rtol=1e-4,
          atol=1e-4)
