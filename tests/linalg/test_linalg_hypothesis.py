"""Hypothesis-driven differential tests of irax.numpy.linalg against jax.numpy.linalg:
drawn batch shapes, matrix sizes, dtypes and values (made well conditioned from the drawn
entries), eagerly (the ops' NumPy rules) and, over a fixed list of shapes, under ONE jit
per shape; values within dtype tolerance, dtypes and weak types exactly. Factors unique
only up to signs/phases (qr, eigh, svd) are compared through their invariants.

JAX compiles every function anew for every drawn shape (~1-2 s per example on these
cores), so the hypothesis examples take JAX's result dtypes, weak types and shapes from
``jax.eval_shape`` (tracing only) and their values from a 64-bit NumPy computation of the
same functions (cast to JAX's dtype); the fixed-shape tests compare with JAX's own values,
eagerly and under jit."""

import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import irax
import irax.numpy as jnp
from irax.core.errors import CompilationError

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "numpy"))
from numpy_helpers import check  # noqa: E402

jax = pytest.importorskip("jax")
jjnp = pytest.importorskip("jax.numpy")

F32, F64, C64, C128 = (np.dtype(d) for d in (np.float32, np.float64, np.complex64,
                                             np.complex128))
SETTINGS = settings(max_examples=15, deadline=None, derandomize=True)
#: relative tolerance of results of well-conditioned inputs (different algorithms agree
#: only to a few ulps times the condition number)
RTOL = {F32: 3e-4, C64: 3e-4, F64: 1e-10, C128: 1e-10}
VECTOR_ORDS = (None, 0, 1, 2, 3, -1, -2, 0.5, np.inf, -np.inf)
MATRIX_ORDS = (None, "fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf)


# ---- strategies ----------------------------------------------------------------------------
def batches():
    return st.lists(st.integers(1, 3), min_size=0, max_size=2).map(tuple)


def values(data, shape, dtype):
    """Drawn entries in [-2, 2] (real and imaginary parts) of ``dtype``."""
    el = st.floats(-2, 2, width=32, allow_subnormal=False)  # JAX's CPU flushes subnormals
    x = data.draw(hnp.arrays(np.float64, shape, elements=el))
    if np.dtype(dtype).kind == "c":
        x = x + 1j * data.draw(hnp.arrays(np.float64, shape, elements=el))
    return x.astype(dtype)


def _mH(x):
    return np.conj(np.swapaxes(x, -1, -2))


def shifted(a):
    """``a + c I`` with ``c`` above ``a``'s largest possible norm: singular values >= 1."""
    m, n = a.shape[-2:]
    c = 2 * max(m, n) * (1.5 if a.dtype.kind == "c" else 1) + 1
    return (a + c * np.eye(m, n)).astype(a.dtype)


def hermitian_pd(a):
    """``a a^H + n I``: Hermitian positive definite."""
    n = a.shape[-1]
    wide = a.astype(np.complex128 if a.dtype.kind == "c" else np.float64)
    return (wide @ _mH(wide) + n * np.eye(n)).astype(a.dtype)


# ---- comparisons ---------------------------------------------------------------------------
def close(got, want, msg, rtol=None):
    """``numpy_helpers.check`` (dtype, weak type, shape, values), with the tolerance of
    ``want``'s dtype, absolute relative to its largest entry (at least 0.1)."""
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want), (msg, type(got))
        for i, (g, w) in enumerate(zip(got, want)):
            close(g, w, f"{msg}[{i}]", rtol)
        return
    dt = np.dtype(want.dtype)
    r = RTOL.get(dt, 0) if rtol is None else rtol
    w = np.asarray(want)
    # (at least 0.1: sums that cancel and least-squares residuals near 0)
    scale = max(0.1, float(np.max(np.abs(w)))) if w.size and dt.kind in "fc" else 1.0
    check(got, want, rtol=r, atol=r * scale, msg=msg)


def meta(got, want, msg):
    """Same dtype, weak type and shape (for factors only unique up to phases)."""
    assert got.dtype == np.dtype(want.dtype), f"{msg}: dtype {got.dtype} != {want.dtype}"
    assert got.weak_type == want.weak_type, f"{msg}: weak_type"
    assert got.shape == tuple(want.shape), f"{msg}: shape {got.shape} != {want.shape}"


def allclose(x, y, dt, msg, scale=1.0):
    r = RTOL[np.dtype(dt)]
    np.testing.assert_allclose(np.asarray(x), np.asarray(y), rtol=r, atol=r * scale,
                               err_msg=msg)


def orthonormal_columns(q, dt, msg):
    q = np.asarray(q)
    allclose(_mH(q) @ q, np.broadcast_to(np.eye(q.shape[-1]), q.shape[:-2] + (q.shape[-1],) * 2),
             dt, msg)


def distinct(vals, gap=1e-2):
    """Whether the (sorted, batched) values are pairwise apart: their vectors are unique
    up to phase."""
    v = np.sort(np.asarray(vals), axis=-1)
    return v.shape[-1] < 2 or bool(np.all(np.diff(v, axis=-1) > gap * max(1, np.abs(v).max())))


def same_up_to_phase(x, y, dt, msg):
    """Columns of ``x`` and ``y`` equal up to a unit-modulus factor each."""
    x, y = np.asarray(x), np.asarray(y)
    allclose(np.abs(x), np.abs(y), dt, msg)
    inner = np.sum(np.conj(x) * y, axis=-2)  # per column: |<x, y>| = 1
    allclose(np.abs(inner), np.ones_like(np.abs(inner)), dt, msg)


# ---- reference values: JAX's dtypes / weak types / shapes, NumPy's 64-bit values ----------
class Ref:
    """JAX's abstract result (dtype, weak type, shape) carrying reference values."""

    def __init__(self, spec, value):
        self.dtype, self.weak_type, self.shape = np.dtype(spec.dtype), spec.weak_type, spec.shape
        self.value = np.asarray(value).astype(self.dtype)
        assert self.value.shape == tuple(self.shape), (self.value.shape, self.shape)

    def __array__(self, dtype=None, copy=None):
        return self.value if dtype is None else self.value.astype(dtype)


def _wide(x):
    if isinstance(x, np.ndarray) and x.dtype.kind in "fc":
        return x.astype(np.complex128 if x.dtype.kind == "c" else np.float64)
    if isinstance(x, list):
        return [_wide(y) for y in x]
    return x


def _np_lstsq(a, b):
    b2 = b[:, None] if b.ndim == 1 else b
    x, _, rank, s = np.linalg.lstsq(a, b2)
    r = b2 - a @ x
    return x.reshape(a.shape[1:] + b.shape[1:]), np.sum(np.real(r * np.conj(r)), axis=0), rank, s


def _np_matrix_rank(m, eps):
    s = np.linalg.svd(m, compute_uv=False)
    return np.sum(s > s.max(axis=-1, keepdims=True) * max(m.shape[-2:]) * eps, axis=-1)


class _NumpyLinalg:
    """``numpy.linalg`` with JAX's conventions where they differ (residuals always
    computed, the rank threshold of the input's precision)."""

    def __init__(self, eps):
        self.eps = eps

    def __getattr__(self, name):
        return getattr(np.linalg, name)

    def lstsq(self, a, b):
        return _np_lstsq(a, b)

    def matrix_rank(self, m):
        return _np_matrix_rank(m, self.eps)


class NumpyRef:
    def __init__(self, dtype):
        self.linalg = _NumpyLinalg(np.finfo(dtype).eps)


def reference(fns, args):
    """``fns(module, *args)``: JAX's abstract results with NumPy's 64-bit values."""
    spec = jax.eval_shape(lambda *a: fns(jjnp, *a), *args)
    dt = next(a.dtype for a in args if isinstance(a, np.ndarray))
    with np.errstate(divide="ignore"):
        vals = fns(NumpyRef(dt), *_wide(list(args)))
    return jax.tree.map(Ref, spec, vals)


# ---- the functions, for either module ------------------------------------------------------
def square_fns(M, g, h, b, bv, p, k):
    """Functions of a well-conditioned ``g``, a Hermitian p.d. ``h`` and right-hand sides."""
    la = M.linalg
    return {
        "solve": la.solve(g, b), "solve vec": la.solve(g, bv), "inv": la.inv(g),
        "det": la.det(g), "slogdet": tuple(la.slogdet(g)),
        "matrix_power": la.matrix_power(g, p), "cholesky": la.cholesky(h),
        "cholesky upper": la.cholesky(h, upper=True), "eigvalsh": la.eigvalsh(h),
        "eigvalsh U": la.eigvalsh(h, UPLO="U"), "trace": la.trace(g),
        "trace offset": la.trace(g, offset=k), "diagonal": la.diagonal(g, offset=-k),
        "matrix_transpose": la.matrix_transpose(g), "eigh": tuple(la.eigh(h)),
        "norm 2x": la.norm(g, ord=2, axis=(-2, -1)),
    }


def rect_fns(M, w, wd, b):
    """Functions of a well-conditioned ``m x n`` ``w``, a rank-deficient ``wd`` and ``b``
    (the right-hand side of the 2-D ``lstsq``)."""
    la = M.linalg
    w2 = w.reshape(w.shape[-2:]) if w.ndim == 2 else w[(0,) * (w.ndim - 2)]
    out = {
        "qr": tuple(la.qr(w)), "qr complete": tuple(la.qr(w, mode="complete")),
        "qr r": la.qr(w, mode="r"),
        "svd full": tuple(la.svd(w)), "svd thin": tuple(la.svd(w, full_matrices=False)),
        "svd s": la.svd(w, compute_uv=False), "pinv": la.pinv(w),
        "matrix_rank": la.matrix_rank(w), "matrix_rank deficient": la.matrix_rank(wd),
        "lstsq": tuple(la.lstsq(w2, b)), "lstsq vec": tuple(la.lstsq(w2, b[:, 0])),
    }
    for o in MATRIX_ORDS:
        out[f"norm {o}"] = la.norm(w, ord=o, axis=(-2, -1))
    out["norm keepdims"] = la.norm(w, ord="nuc", axis=(-1, -2), keepdims=True)
    out["matrix_norm"] = la.matrix_norm(w, ord=1)
    return out


def vector_fns(M, x, y, x3, y3, chain, tsa, tsb, tia):
    """Vector norms and products, multi_dot, tensorsolve and tensorinv."""
    la = M.linalg
    out = {f"norm {o}": la.norm(x, ord=o, axis=-1) for o in VECTOR_ORDS}
    out["norm flat"] = la.norm(x)
    out["vector_norm keepdims"] = la.vector_norm(x, ord=1, keepdims=True)
    out["vecdot"] = la.vecdot(x, y)
    out["outer"] = la.outer(x.reshape(-1)[:4], y.reshape(-1))
    out["cross"] = la.cross(x3, y3)
    out["multi_dot"] = la.multi_dot(chain)
    out["tensorsolve"] = la.tensorsolve(tsa, tsb)
    out["tensorinv"] = la.tensorinv(tia, ind=1)
    return out


# ---- invariant checks ----------------------------------------------------------------------
def compare_square(got, want, h, dt):
    for name, w in want.items():
        if name != "eigh":
            close(got[name], w, name)
    (gw, gv), (ww, wv) = got["eigh"], want["eigh"]
    meta(gw, ww, "eigh w")
    meta(gv, wv, "eigh v")
    scale = float(np.abs(ww).max())
    allclose(gw, ww, dt, "eigh w", scale)
    orthonormal_columns(gv, dt, "eigh v orthonormal")
    gv = np.asarray(gv)
    allclose((gv * np.asarray(gw)[..., None, :]) @ _mH(gv), h, dt, "eigh reconstruction",
             scale)
    if distinct(ww):
        same_up_to_phase(gv, wv, dt, "eigh v")


def _check_svd(g, wt, w, dt, name):
    gu, gs, gvh = (np.asarray(x) for x in g)
    for i, (x, y) in enumerate(zip(g, wt)):
        meta(x, y, f"{name}[{i}]")
    scale = float(np.abs(np.asarray(wt[1])).max(initial=1))
    allclose(gs, wt[1], dt, f"{name} s", scale)
    k = gs.shape[-1]
    orthonormal_columns(gu, dt, f"{name} u")
    orthonormal_columns(_mH(gvh), dt, f"{name} vh")
    allclose((gu[..., :k] * gs[..., None, :]) @ gvh[..., :k, :], w, dt,
             f"{name} reconstruction", scale)
    if distinct(gs):
        same_up_to_phase(gu[..., :k], np.asarray(wt[0])[..., :k], dt, f"{name} u")
        same_up_to_phase(_mH(gvh)[..., :k], _mH(np.asarray(wt[2]))[..., :k], dt,
                         f"{name} vh")


def _check_qr(g, wt, w, dt, name):
    (gq, gr), (wq, wr) = g, wt
    meta(gq, wq, f"{name} q")
    meta(gr, wr, f"{name} r")
    gq, gr = np.asarray(gq), np.asarray(gr)
    scale = float(np.abs(w).max(initial=1))
    k = min(w.shape[-2:])
    allclose(gq @ gr, w, dt, f"{name} reconstruction", scale)
    orthonormal_columns(gq, dt, f"{name} q orthonormal")
    assert np.all(np.tril(gr, -1) == 0), f"{name}: r not upper triangular"
    allclose(np.abs(gr), np.abs(np.asarray(wr)), dt, f"{name} |r|", scale)
    same_up_to_phase(gq[..., :k], np.asarray(wq)[..., :k], dt, f"{name} q")


def compare_rect(got, want, w, dt):
    for name in ("svd full", "svd thin"):
        _check_svd(got[name], want[name], w, dt, name)
    for name in ("qr", "qr complete"):
        _check_qr(got[name], want[name], w, dt, name)
    scale = float(np.abs(w).max(initial=1))
    meta(got["qr r"], want["qr r"], "qr r")
    allclose(np.abs(np.asarray(got["qr r"])), np.abs(np.asarray(want["qr r"])), dt, "qr r",
             scale)
    for name, wt in want.items():
        if not name.startswith(("svd full", "svd thin", "qr")):
            close(got[name], wt, name)


def compare(got, want, msg=""):
    for name, w in want.items():
        close(got[name], w, f"{msg}{name}")


# ---- inputs drawn by hypothesis ------------------------------------------------------------
def square_inputs(data, dtypes):
    batch, n = data.draw(batches()), data.draw(st.integers(1, 6))
    dt = data.draw(st.sampled_from(dtypes))
    g = shifted(values(data, batch + (n, n), dt))
    h = hermitian_pd(values(data, batch + (n, n), dt))
    b = values(data, batch + (n, data.draw(st.integers(1, 3))), dt)
    bv = values(data, (n,), dt)
    p, k = data.draw(st.integers(-2, 3)), data.draw(st.integers(0, n))
    return dt, (g, h, b, bv), (p, k)


def rect_inputs(data, dtypes):
    batch, m, n = data.draw(batches()), data.draw(st.integers(1, 6)), data.draw(st.integers(1, 6))
    dt = data.draw(st.sampled_from(dtypes))
    w = shifted(values(data, batch + (m, n), dt))
    zero = data.draw(st.integers(0, n))  # the number of leading zero columns
    wd = w.copy()
    wd[..., :zero] = 0
    b = values(data, (m, data.draw(st.integers(1, 3))), dt)
    return dt, (w, wd, b)


def vector_inputs(data, dtypes):
    batch, n = data.draw(batches()), data.draw(st.integers(1, 6))
    dt = data.draw(st.sampled_from(dtypes))
    x, y = values(data, batch + (n,), dt), values(data, batch + (n,), dt)
    x3, y3 = values(data, batch + (3,), dt), values(data, batch + (3,), dt)
    dims = data.draw(st.lists(st.integers(1, 4), min_size=3, max_size=5))
    chain = [values(data, (dims[i], dims[i + 1]), dt) for i in range(len(dims) - 1)]
    if data.draw(st.booleans()):
        chain[0] = chain[0][0]
    if data.draw(st.booleans()):
        chain[-1] = chain[-1][:, 0]
    p, q = data.draw(st.integers(1, 3)), data.draw(st.integers(1, 2))
    sq = shifted(values(data, (p * q, p * q), dt))
    tsa, tsb = sq.reshape(p, q, p * q), values(data, (p, q), dt)
    tia = sq.reshape(p * q, p, q)
    return dt, (x, y, x3, y3, chain, tsa, tsb, tia)


# ---- eager hypothesis tests ----------------------------------------------------------------
def _square(p, k):
    return lambda M, *a: square_fns(M, *a, p, k)


def run_square(dt, arrays, p, k):
    fns = _square(p, k)
    compare_square(fns(jnp, *arrays), reference(fns, arrays), arrays[1], dt)


def run_rect(dt, arrays):
    compare_rect(rect_fns(jnp, *arrays), reference(rect_fns, arrays), arrays[0], dt)


def run_vector(dt, arrays):
    compare(vector_fns(jnp, *arrays), reference(vector_fns, arrays))


@SETTINGS
@given(data=st.data())
def test_square_functions_match_jax(data):
    dt, arrays, (p, k) = square_inputs(data, (F32, C64))
    run_square(dt, arrays, p, k)


@SETTINGS
@given(data=st.data())
def test_rectangular_functions_match_jax(data):
    run_rect(*rect_inputs(data, (F32, C64)))


@SETTINGS
@given(data=st.data())
def test_vector_functions_match_jax(data):
    run_vector(*vector_inputs(data, (F32, C64)))


@pytest.fixture
def jax_x64(x64):
    """64-bit types in JAX too (the ``x64`` fixture sets irax's)."""
    jax.config.update("jax_enable_x64", True)
    try:
        yield
    finally:
        jax.config.update("jax_enable_x64", False)


@settings(max_examples=10, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # set once for all
@given(data=st.data())
def test_64_bit_functions_match_jax(jax_x64, data):
    dt, arrays, (p, k) = square_inputs(data, (F64, C128))
    run_square(dt, arrays, p, k)
    run_rect(*rect_inputs(data, (dt,)))
    run_vector(*vector_inputs(data, (dt,)))


# ---- under jit: one function per shape -----------------------------------------------------
def _rand(rng, shape, dt):
    x = rng.uniform(-2, 2, shape)
    if np.dtype(dt).kind == "c":
        x = x + 1j * rng.uniform(-2, 2, shape)
    return x.astype(dt)


def _jit_inputs(dt, batch, n, m, rn, vn, rng):
    g, h = shifted(_rand(rng, batch + (n, n), dt)), hermitian_pd(_rand(rng, batch + (n, n), dt))
    sq = (g, h, _rand(rng, batch + (n, 2), dt), _rand(rng, (n,), dt))
    w = shifted(_rand(rng, batch + (m, rn), dt))
    wd = w.copy()
    wd[..., :1] = 0
    rect = (w, wd, _rand(rng, (m, 2), dt))
    t = shifted(_rand(rng, (4, 4), dt))
    vec = (_rand(rng, batch + (vn,), dt), _rand(rng, batch + (vn,), dt),
           _rand(rng, batch + (3,), dt), _rand(rng, batch + (3,), dt),
           [_rand(rng, (3,), dt), _rand(rng, (3, 2), dt), _rand(rng, (2, 4), dt)],
           t.reshape(2, 2, 4), _rand(rng, (2, 2), dt), t.reshape(4, 2, 2))
    return sq, rect, vec


SQUARE_A = ("solve", "solve vec", "inv", "det", "slogdet", "matrix_power", "cholesky",
            "cholesky upper")


def _only(d, keys, keep=True):
    return {k: v for k, v in d.items() if (k in keys) == keep}


def _square_vector(part):
    """The square functions (``part``: all, the first or the second half) and, with all
    or the first half, the vector functions, of ``(sq, vec)``."""
    def fn(M, sq, vec):
        d = square_fns(M, *sq, 3, 1)
        d = d if part is None else _only(d, SQUARE_A, part == "A")
        return d, (vector_fns(M, *vec) if part != "B" else {})
    return fn


def _rect(M, sq, rect, vec):
    return rect_fns(M, *rect)


def _compare_group(got, want, inputs):
    sq, rect, vec = inputs
    dt = sq[0].dtype
    if isinstance(want, dict):
        compare_rect(got, want, rect[0], dt)
        return
    if "eigh" in want[0]:
        compare_square(got[0], want[0], sq[1], dt)
    else:
        compare(got[0], want[0])
    compare(got[1], want[1])


#: (dtype, batch, n, (m, n) of the rectangular inputs, vector length, the groups of
#: functions jitted together: one compile each). IREE rejects the complex64 module of all
#: square functions (see the xfail below), hence the groups.
JIT_SHAPES = [(F32, (2,), 3, 4, 3, 5, (None, "rect")), (C64, (), 4, 3, 5, 2, ("A", "B", "rect"))]
#: results whose jitted values are known to be wrong (none)
JIT_KNOWN_BAD: dict = {}


def _group_fn(part):
    if part == "rect":
        return _rect
    return lambda M, sq, rect, vec: _square_vector(part)(M, sq, vec)


@pytest.mark.parametrize("dt,batch,n,m,rn,vn,parts", JIT_SHAPES)
def test_everything_under_jit_matches_jax(dt, batch, n, m, rn, vn, parts):
    """All functions, eagerly and under irax.jit, against JAX's (jitted) values."""
    inputs = _jit_inputs(dt, batch, n, m, rn, vn, np.random.default_rng(n))
    for part in parts:
        fn = _group_fn(part)
        want = jax.jit(lambda *a, fn=fn: fn(jjnp, *a))(*inputs)
        _compare_group(fn(jnp, *inputs), want, inputs)
        got = irax.jit(lambda *a, fn=fn: fn(jnp, *a))(*inputs)
        bad = JIT_KNOWN_BAD.get(f"{'F32' if dt == F32 else 'C64'} {part}", ())
        if bad:
            got, want = _only(got, bad, False), _only(want, bad, False)
        _compare_group(got, want, inputs)


def test_lstsq_in_one_jit_with_the_rectangular_functions():
    """Regression: compiled with direct command-buffer bindings
    (--iree-hal-indirect-command-buffers=false), IREE 3.13 returned wrong lstsq x and
    residuals from this module (lstsq alone, or with half of the others, was right)."""
    inputs = _jit_inputs(F32, (2,), 3, 4, 3, 5, np.random.default_rng(3))
    got = irax.jit(lambda *a: _rect(jnp, *a))(*inputs)
    want = rect_fns(jjnp, *inputs[1])
    compare(_only(got, ("lstsq", "lstsq vec")), _only(want, ("lstsq", "lstsq vec")))


@pytest.mark.xfail(strict=True, raises=CompilationError, reason="irax/IREE bug: the "
                   "complex64 module of all of square_fns fails to compile ('scf.while' op ... "
                   "region branch point has 6 operands, but region successor needs 8 inputs); "
                   "each half compiles")
def test_all_square_functions_in_one_complex_jit():
    sq = _jit_inputs(C64, (), 4, 3, 5, 2, np.random.default_rng(4))[0]
    irax.jit(lambda *a: square_fns(jnp, *a, 3, 1))(*sq)
