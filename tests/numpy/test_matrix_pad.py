"""diag, diagflat, fill_diagonal, kron, tril, triu, vander and pad (every mode, and a
callable) against JAX: eagerly, in one jit, hypothesis, derivatives, vmap and errors."""

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

import irax.numpy as jnp

jax = pytest.importorskip("jax")
jjnp = pytest.importorskip("jax.numpy")

R = np.random.default_rng(0)
F = R.standard_normal((3, 4)).astype(np.float32)
F3 = R.standard_normal((2, 3, 3)).astype(np.float32)
SQ = R.standard_normal((4, 4)).astype(np.float32)
I = R.integers(-5, 6, (3, 4)).astype(np.int32)
U8 = R.integers(0, 9, (4,)).astype(np.uint8)
B = R.integers(0, 2, (3, 3)).astype(bool)
V = np.arange(1, 6, dtype=np.float32)
C = (R.standard_normal((2, 3)) + 1j * R.standard_normal((2, 3))).astype(np.complex64)
W = ("weak", F)
WV = ("weak", V)


def _mk_pad_fn(m):
    def pad_with(vector, pad_width, iaxis, kwargs):
        n = vector.shape[0]
        pos = m.arange(n)
        fill = kwargs.get("padder", 10)
        inside = (pos >= pad_width[0]) & (pos < n - pad_width[1])
        return m.where(inside, vector, fill + iaxis)
    return pad_with


MATRIX = [
    ("diag_v", lambda m, v: m.diag(v), [V]),
    ("diag_v_k", lambda m, v: m.diag(v, k=2), [V]),
    ("diag_v_neg", lambda m, v: m.diag(v, -1), [WV]),
    ("diag_m", lambda m, x: m.diag(x), [F]),
    ("diag_m_k", lambda m, x: m.diag(x, 1), [I]),
    ("diag_m_far", lambda m, x: m.diag(x, -5), [F]),
    ("diag_bool", lambda m, x: m.diag(x), [B]),
    ("diagflat", lambda m, x: m.diagflat(x), [F[:2, :2]]),
    ("diagflat_k", lambda m, v: m.diagflat(v, -2), [U8]),
    ("diagflat_weak", lambda m, v: m.diagflat(v, 1), [WV]),
    ("tril", lambda m, x: m.tril(x), [F]),
    ("tril_k", lambda m, x: m.tril(x, -1), [F3]),
    ("tril_k2", lambda m, x: m.tril(x, 2), [W]),
    ("tril_bool", lambda m, x: m.tril(x), [B]),
    ("triu", lambda m, x: m.triu(x), [I]),
    ("triu_k", lambda m, x: m.triu(x, 1), [F3]),
    ("triu_c", lambda m, x: m.triu(x, -1), [C]),
    ("kron", lambda m, a, b: m.kron(a, b), [F[:2, :2], I]),
    ("kron_1d", lambda m, a, b: m.kron(a, b), [V, U8]),
    ("kron_nd", lambda m, a, b: m.kron(a, b), [V[:2], F3]),
    ("kron_weak", lambda m, a: m.kron(a, 2.0), [WV]),
    ("vander", lambda m, x: m.vander(x), [V]),
    ("vander_n", lambda m, x: m.vander(x, 3, increasing=True), [V]),
    ("vander_int", lambda m, x: m.vander(x, 4), [U8]),
    ("vander_weak", lambda m, x: m.vander(x, 2), [WV]),
    ("vander_0", lambda m, x: m.vander(x, 0), [V]),
    ("fill_diag", lambda m, x: m.fill_diagonal(x, 7.0, inplace=False), [SQ]),
    ("fill_diag_tall", lambda m, x: m.fill_diagonal(x.reshape(8, 2), 3, inplace=False), [SQ]),
    ("fill_diag_vals", lambda m, x, v: m.fill_diagonal(x, v[:3], inplace=False), [F, V]),
    ("fill_diag_int", lambda m, x: m.fill_diagonal(x, 2.7, inplace=False), [I]),
    ("fill_diag_3d", lambda m: m.fill_diagonal(np.zeros((3, 3, 3), np.float32), 1.0,
                                               inplace=False), []),
]

PAD = [
    ("const", lambda m, x: m.pad(x, 1), [F]),
    ("const_pairs", lambda m, x: m.pad(x, ((1, 2), (0, 3)), constant_values=5), [I]),
    ("const_vals", lambda m, x: m.pad(x, (2, 1), constant_values=((1.5, 2.5), (3, 4))), [F]),
    ("const_weak", lambda m, x: m.pad(x, 2, constant_values=3), [W]),
    ("const_u8", lambda m, x: m.pad(x, (0, 2), constant_values=7), [U8]),
    ("const_bool", lambda m, x: m.pad(x, 1, constant_values=True), [B]),
    ("wrap", lambda m, x: m.pad(x, ((2, 1), (5, 6)), mode="wrap"), [F]),
    ("wrap_1d", lambda m, x: m.pad(x, 12, mode="wrap"), [V]),
    ("reflect", lambda m, x: m.pad(x, ((1, 2), (3, 3)), mode="reflect"), [F]),
    ("reflect_long", lambda m, x: m.pad(x, (9, 7), mode="reflect"), [V]),
    ("reflect_odd", lambda m, x: m.pad(x, (6, 4), mode="reflect", reflect_type="odd"), [V]),
    ("symmetric", lambda m, x: m.pad(x, ((2, 0), (4, 5)), mode="symmetric"), [I]),
    ("symmetric_long", lambda m, x: m.pad(x, (11, 3), mode="symmetric"), [V]),
    ("symmetric_odd", lambda m, x: m.pad(x, (7, 8), mode="symmetric", reflect_type="odd"),
     [WV]),
    ("reflect_one", lambda m, x: m.pad(x, 3, mode="reflect"), [V[:1]]),
    # the after side reflects chunks of the original length (a fixed bug)
    ("reflect_asym", lambda m, x: m.pad(x, (1, 4), mode="reflect"), [V[:3]]),
    ("reflect_asym_odd", lambda m, x: m.pad(x, (3, 6), mode="reflect", reflect_type="odd"),
     [V[:3]]),
    ("symmetric_asym", lambda m, x: m.pad(x, ((2, 7), (1, 5)), mode="symmetric",
                                          reflect_type="odd"), [F]),
    ("edge", lambda m, x: m.pad(x, ((1, 2), (3, 0)), mode="edge"), [F]),
    ("edge_int", lambda m, x: m.pad(x, 2, mode="edge"), [U8]),
    ("ramp", lambda m, x: m.pad(x, ((2, 3), (1, 4)), mode="linear_ramp"), [F]),
    ("ramp_ends", lambda m, x: m.pad(x, (3, 2), mode="linear_ramp", end_values=(5, -2)), [V]),
    ("ramp_int", lambda m, x: m.pad(x, 3, mode="linear_ramp", end_values=-7), [I]),
    ("ramp_weak", lambda m, x: m.pad(x, 2, mode="linear_ramp", end_values=((1, 2), (3, 4))),
     [W]),
    ("maximum", lambda m, x: m.pad(x, ((1, 2), (2, 1)), mode="maximum"), [F]),
    ("maximum_len", lambda m, x: m.pad(x, 2, mode="maximum", stat_length=2), [I]),
    ("minimum", lambda m, x: m.pad(x, (1, 3), mode="minimum", stat_length=((1, 3), (2, 2))),
     [F]),
    ("mean", lambda m, x: m.pad(x, 2, mode="mean"), [F]),
    ("mean_int", lambda m, x: m.pad(x, (1, 2), mode="mean", stat_length=3), [I]),
    ("mean_weak", lambda m, x: m.pad(x, 1, mode="mean", stat_length=(2, 1)), [WV]),
    ("median", lambda m, x: m.pad(x, ((1, 1), (2, 3)), mode="median"), [F]),
    ("median_len", lambda m, x: m.pad(x, 2, mode="median", stat_length=2), [I]),
    ("empty_shape", lambda m, x: m.pad(x, ((1, 1), (2, 0)), mode="empty").shape, [F]),
    ("zero_width", lambda m, x: m.pad(x, 0, mode="reflect"), [F]),
    ("scalar", lambda m: m.pad(np.float32(3), 2), []),
    ("callable", lambda m, x: m.pad(x, 2, _mk_pad_fn(m)), [F]),
    ("callable_kw", lambda m, x: m.pad(x, (1, 2), _mk_pad_fn(m), padder=-3), [V]),
]

CASES = [("matrix " + n, f, a) for n, f, a in MATRIX] + [("pad " + n, f, a) for n, f, a in PAD]
# `empty` padding values are unspecified: only the shape is compared (eagerly).
JIT_CASES = [c for c in CASES if c[0] != "pad empty_shape"]


def _shape_safe(cases, i):
    name, fn, args = cases[i]
    if name == "pad empty_shape":
        assert fn(jnp, *args) == fn(jjnp, *args)
        got = jnp.pad(F, ((1, 1), (2, 0)), mode="empty")
        assert got.dtype == np.float32 and np.array_equal(np.asarray(got)[1:4, 2:], F)
        return
    check_cases_eager(cases, i)


@pytest.mark.parametrize("i", range(len(CASES)), ids=[c[0] for c in CASES])
def test_matrix_and_pad_match_jax_eagerly(i):
    _shape_safe(CASES, i)


def test_matrix_and_pad_in_one_jit():
    check_cases_jit(JIT_CASES)


@settings(max_examples=8, deadline=None)
@given(st.lists(st.integers(1, 5), min_size=1, max_size=3), st.data())
def test_pad_hypothesis(shape, data):
    x = R.standard_normal(shape).astype(np.float32)
    pw = [(data.draw(st.integers(0, 7)), data.draw(st.integers(0, 7))) for _ in shape]
    mode = data.draw(st.sampled_from(["constant", "wrap", "reflect", "symmetric", "edge",
                                      "linear_ramp", "maximum", "minimum", "mean", "median"]))
    kw = {}
    if mode in ("reflect", "symmetric"):
        kw["reflect_type"] = data.draw(st.sampled_from(["even", "odd"]))
    if mode in ("maximum", "minimum", "mean", "median") and data.draw(st.booleans()):
        kw["stat_length"] = data.draw(st.integers(1, 6))
    k = data.draw(st.integers(-4, 4))
    nv = data.draw(st.integers(0, 4)) or None
    fns = [lambda m: m.pad(x, pw, mode=mode, **kw)]
    if len(shape) >= 2:
        fns += [lambda m: m.tril(x, k), lambda m: m.triu(x, k), lambda m: m.diag(x[..., 0, :]
                if len(shape) == 3 else x, k)]
    fns += [lambda m: m.vander(x.ravel()[:4], nv),
            lambda m: m.kron(x, x[..., :2])]
    for fn in fns:
        check_tree(fn(jnp), fn(jjnp), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name,fn,args", [
    ("diag", lambda m, v: m.diag(v, 1), [V]),
    ("diag_m", lambda m, x: m.diag(x, -1), [F]),
    ("diagflat", lambda m, x: m.diagflat(x), [F[:2]]),
    ("tril", lambda m, x: m.tril(x, 1), [F3]),
    ("triu", lambda m, x: m.triu(x), [F]),
    ("kron", lambda m, a, b: m.kron(a, b), [F[:2, :2], F]),
    ("vander", lambda m, x: m.vander(x, 4), [V[:3]]),
    ("fill_diagonal", lambda m, x, v: m.fill_diagonal(x, v, inplace=False), [SQ, V[:4]]),
    ("pad_reflect", lambda m, x: m.pad(x, (2, 3), mode="reflect"), [F]),
    ("pad_wrap", lambda m, x: m.pad(x, (4, 1), mode="wrap"), [F]),
    ("pad_ramp", lambda m, x: m.pad(x, (2, 2), mode="linear_ramp", end_values=1.0), [F]),
    ("pad_mean", lambda m, x: m.pad(x, 2, mode="mean", stat_length=2), [F]),
    ("pad_max", lambda m, x: m.pad(x, 1, mode="maximum"), [F]),
    ("pad_const", lambda m, x, c: m.pad(x, 1, constant_values=c), [F, np.float32(2.0)]),
])
def test_matrix_pad_derivatives(name, fn, args):
    check_derivatives(name, fn, args, np.random.default_rng(1))


def test_matrix_pad_vmap_matches_loop():
    def fn(x, v):
        return (jnp.diag(v), jnp.diag(x, 1), jnp.tril(x), jnp.triu(x, -1), jnp.kron(v, x),
                jnp.vander(v, 3), jnp.fill_diagonal(x, v[0], inplace=False),
                jnp.pad(x, (1, 2), mode="reflect"), jnp.pad(v, 2, mode="median"),
                jnp.pad(x, 1, constant_values=v[1]), jnp.pad(v, (3, 1), mode="linear_ramp"),
                jnp.diagflat(v, -1))

    xs = R.standard_normal((3, 4, 4)).astype(np.float32)
    vs = R.standard_normal((3, 4)).astype(np.float32)
    check_vmap_loop(fn, [xs, vs], msg="matrix/pad")


ERRORS = [
    (lambda m: m.diag(np.ones((2, 2, 2))), "diag input must be 1d or 2d"),
    (lambda m: m.tril(np.ones(3)), "Argument to jax.numpy.tril must be at least 2D"),
    (lambda m: m.triu(np.float32(1)), "Argument to jax.numpy.triu must be at least 2D"),
    (lambda m: m.vander(np.ones((2, 2))), "x must be a one-dimensional array"),
    (lambda m: m.vander(np.ones(2), -1), "N must be nonnegative"),
    (lambda m: m.fill_diagonal(np.ones((2, 2)), 1), "must use inplace=False"),
    (lambda m: m.fill_diagonal(np.ones((4, 2)), 1, wrap=True, inplace=False),
     "wrap=True is not implemented"),
    (lambda m: m.fill_diagonal(np.ones(2), 1, inplace=False), "array must be at least 2-d"),
    (lambda m: m.fill_diagonal(np.ones((2, 3, 3)), 1, inplace=False),
     "All dimensions of input must be of equal length"),
    (lambda m: m.pad(np.ones(3), 1, mode="foo"), "Unimplemented padding mode 'foo'"),
    (lambda m: m.pad(np.ones(3), 1, mode="edge", constant_values=2),
     "unsupported keyword arguments for mode 'edge'"),
    (lambda m: m.pad(np.ones(3), -1), "index can't contain negative values"),
    (lambda m: m.pad(np.ones(3), 1.5), "`pad_width` must be of integral type"),
    (lambda m: m.pad(np.ones((2, 2)), ((1, 2, 3),)), "pad_width"),
    (lambda m: m.pad(np.zeros((0, 2)), 1, mode="wrap"), "empty axis"),
    (lambda m: m.pad(np.zeros((0, 2)), ((1, 0), (1, 1)), mode="reflect"), "empty axis"),
    (lambda m: m.pad(np.ones(3), 1, mode="reflect", reflect_type="x"), "^$"),
    (lambda m: jit_of(m)(lambda p: m.pad(np.ones(3), p))(1), "pad_width"),
    (lambda m: m.kron([1, 2], np.ones(2)), "requires ndarray or scalar arguments"),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_matrix_pad_errors_match_jax(i):
    fn, pattern = ERRORS[i]
    check_error(fn, pattern)
