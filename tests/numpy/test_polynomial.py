"""poly, polyadd, polysub, polymul, polydiv, polyder, polyint, polyval, polyfit and roots
against JAX: eagerly, in one jit (all but roots), hypothesis, derivatives, vmap and errors."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from manip_helpers import (
    check_cases_eager,
    check_cases_jit,
    check_derivatives,
    check_error,
    check_tree,
    check_vmap_loop,
    jit_of,
)
from numpy_helpers import check

import irax
import irax.numpy as jnp
from irax.test_util import check_grads

jax = pytest.importorskip("jax")
jjnp = pytest.importorskip("jax.numpy")

R = np.random.default_rng(0)
P = np.array([2.0, -3.0, 0.5, 1.0], np.float32)
Q = np.array([1.5, 2.0], np.float32)
PI = np.array([1, 0, -2, 3], np.int32)
Z = np.array([0.5, -1.0, 2.0], np.float32)
X = R.standard_normal((3, 4)).astype(np.float32)
XS = np.linspace(-1, 1, 9).astype(np.float32)
YS = (XS ** 2 - 0.5 * XS + 0.25 + 0.1 * R.standard_normal(9)).astype(np.float32)
Y2 = np.stack([YS, np.cos(XS)], 1).astype(np.float32)
WT = np.linspace(0.5, 1.5, 9).astype(np.float32)
C = np.array([1 + 1j, -2, 0.5j], np.complex64)

CASES = [
    ("poly", lambda m, z: m.poly(z), [Z]),
    ("poly_int", lambda m, z: m.poly(z), [np.array([1, 2], np.int32)]),
    ("poly_c", lambda m, z: m.poly(z), [C]),
    ("poly_empty", lambda m: m.poly(np.zeros(0, np.float32)), []),
    ("poly_scalar", lambda m: m.poly(3.0), []),
    ("polyadd", lambda m, a, b: m.polyadd(a, b), [P, Q]),
    ("polyadd_rev", lambda m, a, b: m.polyadd(a, b), [Q, PI]),
    ("polyadd_int", lambda m, a: m.polyadd(a, a[:2]), [PI]),
    ("polyadd_weak", lambda m, a: m.polyadd(a, np.array([1, 2])), [("weak", P)]),
    ("polyadd_2d", lambda m, a: m.polyadd(a, a[:1]), [X]),
    ("polysub", lambda m, a, b: m.polysub(a, b), [Q, P]),
    ("polysub_int", lambda m, a: m.polysub(a, np.array([1, 1], np.int32)), [PI]),
    ("polymul", lambda m, a, b: m.polymul(a, b), [P, Q]),
    ("polymul_int", lambda m, a: m.polymul(a, a), [PI]),
    ("polymul_c", lambda m, a, b: m.polymul(a, b), [C, Q]),
    ("polydiv", lambda m, a, b: m.polydiv(a, b), [P, Q]),
    ("polydiv_int", lambda m, a: m.polydiv(a, np.array([1, 2], np.int32)), [PI]),
    ("polydiv_short", lambda m, a, b: m.polydiv(a, b), [Q, P]),
    ("polydiv_same", lambda m, a: m.polydiv(a, a * 2), [P]),
    ("polyder", lambda m, p: m.polyder(p), [P]),
    ("polyder_2", lambda m, p: m.polyder(p, 2), [PI]),
    ("polyder_0", lambda m, p: m.polyder(p, 0), [P]),
    ("polyder_big", lambda m, p: m.polyder(p, 5), [P]),
    ("polyint", lambda m, p: m.polyint(p), [P]),
    ("polyint_k", lambda m, p: m.polyint(p, 2, k=np.array([1.0, -2.0])), [P]),
    ("polyint_ks", lambda m, p: m.polyint(p, 3, k=2), [PI]),
    ("polyint_0", lambda m, p: m.polyint(p, 0), [PI]),
    ("polyval", lambda m, p, x: m.polyval(p, x), [P, X]),
    ("polyval_int", lambda m, p, x: m.polyval(p, x), [PI, np.array([1, -2, 3], np.int32)]),
    ("polyval_mixed", lambda m, p, x: m.polyval(p, x), [PI, X]),
    ("polyval_weak", lambda m, p: m.polyval(p, 2.0), [P]),
    ("polyval_weak_p", lambda m, p, x: m.polyval(p, x), [("weak", Q), X]),
    ("polyval_unroll", lambda m, p, x: m.polyval(p, x, unroll=1), [P, X]),
    ("polyval_2d", lambda m, p, x: m.polyval(p, x), [X, X[0]]),
    ("polyval_c", lambda m, p: m.polyval(p, 1j), [C]),
    ("polyfit", lambda m, x, y: m.polyfit(x, y, 2), [XS, YS]),
    ("polyfit_1", lambda m, x, y: m.polyfit(x, y, 1), [XS, YS]),
    ("polyfit_w", lambda m, x, y, w: m.polyfit(x, y, 3, w=w), [XS, YS, WT]),
    ("polyfit_2d", lambda m, x, y: m.polyfit(x, y, 2), [XS, Y2]),
    ("polyfit_full", lambda m, x, y: m.polyfit(x, y, 2, full=True), [XS, YS]),
    ("polyfit_cov", lambda m, x, y: m.polyfit(x, y, 2, cov=True), [XS, YS]),
    ("polyfit_cov_un", lambda m, x, y: m.polyfit(x, y, 1, cov="unscaled"), [XS, YS]),
    ("polyfit_cov_2d", lambda m, x, y: m.polyfit(x, y, 2, cov=True), [XS, Y2]),
]


@pytest.mark.parametrize("i", range(len(CASES)), ids=[c[0] for c in CASES])
def test_polynomial_matches_jax_eagerly(i):
    check_cases_eager(CASES, i)


def test_polynomial_in_one_jit():
    check_cases_jit([c for c in CASES if not c[0].startswith("polyfit")] +
                    [c for c in CASES if c[0] in ("polyfit", "polyfit_w", "polyfit_2d")],
                    rtol=1e-4, atol=1e-4)


def _sorted(r):
    r = np.asarray(r)
    return r[np.lexsort((r.imag.round(4), r.real.round(4)))]


@pytest.mark.parametrize("p", [P, PI, np.array([0, 0, 1, -3, 2], np.float32),
                               np.array([1, 0, 1], np.float32), np.array([0, 0, 0], np.float32),
                               np.array([5.0], np.float32), C, np.array([0, 2, 0], np.int32)])
def test_roots_match_jax(p):
    for kw in ({}, {"strip_zeros": False}):
        got, want = jnp.roots(p, **kw), jjnp.roots(p, **kw)
        assert got.dtype == want.dtype and got.shape == want.shape, (got, want)
        np.testing.assert_allclose(_sorted(got), _sorted(want), rtol=1e-4, atol=1e-4)


def test_poly_of_matrix_eagerly():
    a = R.standard_normal((3, 3)).astype(np.float32)
    check(jnp.poly(a), jjnp.poly(a), rtol=1e-4, atol=1e-4)


@settings(max_examples=10, deadline=None)
@given(st.lists(st.floats(-3, 3, width=32), min_size=1, max_size=6),
       st.lists(st.floats(-3, 3, width=32), min_size=1, max_size=4), st.integers(0, 3))
def test_polynomial_hypothesis(a, b, m):
    a, b = np.array(a, np.float32), np.array(b, np.float32)
    b[0] = b[0] if abs(b[0]) > 0.5 else 1.0
    x = np.linspace(-2, 2, 5).astype(np.float32)
    for fn in [lambda mm: mm.polyadd(a, b), lambda mm: mm.polysub(a, b),
               lambda mm: mm.polymul(a, b), lambda mm: mm.polydiv(a, b),
               lambda mm: mm.polyder(a, m), lambda mm: mm.polyint(b, m, k=0.5),
               lambda mm: mm.polyval(a, x), lambda mm: mm.poly(b)]:
        check_tree(fn(jnp), fn(jjnp), rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("name,fn,args", [
    ("poly", lambda m, z: m.poly(z), [Z]),
    ("polyadd", lambda m, a, b: m.polyadd(a, b), [P, Q]),
    ("polysub", lambda m, a, b: m.polysub(a, b), [P, Q]),
    ("polymul", lambda m, a, b: m.polymul(a, b), [P, Q]),
    ("polydiv_q", lambda m, a, b: m.polydiv(a, b)[0], [P, Q]),
    ("polydiv_r", lambda m, a, b: m.polydiv(a, b)[1], [P, Q]),
    ("polyder", lambda m, p: m.polyder(p), [P]),
    ("polyint", lambda m, p: m.polyint(p, 2, k=1.0), [P]),
    ("polyval", lambda m, p, x: m.polyval(p, x), [P, X]),
])
def test_polynomial_derivatives(name, fn, args):
    check_derivatives(name, fn, args, np.random.default_rng(1))


def test_polyfit_derivatives_match_finite_differences():
    """JAX's own polyfit jvp is NaN (its lstsq SVD rule), so only finite differences."""
    check_grads(lambda y, w: jnp.polyfit(XS, y, 2, w=w), (YS, WT), order=1, modes=("fwd", "rev"),
                atol=2e-2, rtol=2e-2, eps=1e-2)


def test_polynomial_vmap_matches_loop():
    def fn(p, x, z):
        return (jnp.polyval(p, x), jnp.polyadd(p, z), jnp.polymul(p, z), jnp.polydiv(p, z),
                jnp.polyder(p), jnp.polyint(p, k=z[0]), jnp.poly(z), jnp.polysub(z, p))

    ps = R.standard_normal((3, 4)).astype(np.float32)
    xs = R.standard_normal((3, 5)).astype(np.float32)
    zs = (R.standard_normal((3, 2)) + 2).astype(np.float32)
    check_vmap_loop(fn, [ps, xs, zs], msg="polynomial")


def test_polyfit_vmap_matches_loop():
    ys = np.stack([YS, YS * 2, np.sin(XS)]).astype(np.float32)
    check_vmap_loop(lambda y: jnp.polyfit(XS, y, 2), [ys], msg="polyfit")


def test_roots_is_eager_only():
    with pytest.raises(irax.errors.ConcretizationTypeError, match="strip_zeros=False"):
        irax.jit(lambda p: jnp.roots(p))(P)
    with pytest.raises(NotImplementedError, match="eigvals runs only eagerly"):
        irax.jit(lambda p: jnp.roots(p, strip_zeros=False))(P)
    assert "roots" in jnp.__irax_partial__


ERRORS = [
    (lambda m: m.poly(np.ones((2, 3))), "input must be 1d or non-empty square 2d array"),
    (lambda m: m.polyadd([1, 2], np.ones(2)), "requires ndarray or scalar arguments"),
    (lambda m: m.polyder(P, -1), "Order of derivative must be positive"),
    (lambda m: m.polyint(P, -1), "Order of integral must be positive"),
    (lambda m: m.polyint(P, 2, k=np.ones(3)), "k must be a scalar or a rank-1 array"),
    (lambda m: m.polyfit(XS, YS, -1), "expected deg >= 0"),
    (lambda m: m.polyfit(X, YS, 1), "expected 1D vector for x"),
    (lambda m: m.polyfit(XS[:0], YS[:0], 1), "expected non-empty vector for x"),
    (lambda m: m.polyfit(XS, np.ones((9, 2, 2)), 1), "expected 1D or 2D array for y"),
    (lambda m: m.polyfit(XS, YS[:4], 1), "expected x and y to have same length"),
    (lambda m: m.polyfit(XS, YS, 1, w=np.ones((9, 1))), "expected a 1-d array for weights"),
    (lambda m: m.polyfit(XS, YS, 1, w=np.ones(3)), "expected w and y to have the same length"),
    (lambda m: m.polyfit(XS[:3], YS[:3], 2, cov=True), "number of data points must exceed"),
    (lambda m: m.roots(np.ones((2, 2))), "Input must be a rank-1 array"),
    (lambda m: jit_of(m)(lambda p: m.roots(p))(P), "strip_zeros=False"),
    (lambda m: jit_of(m)(lambda p, n: m.polyder(p, n))(P, 1), "Non-hashable static arguments"),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_polynomial_errors_match_jax(i):
    fn, pattern = ERRORS[i]
    check_error(fn, pattern)
