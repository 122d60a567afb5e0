"""irax.nn's functions against jax.nn: values, dtypes and weak types eagerly and under one
jit per group, derivatives (JAX and finite differences), vmap against a Python loop, errors."""

import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import irax
import irax.nn as nn
import irax.numpy as jnp

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "numpy"))
from numpy_helpers import check  # noqa: E402

jax = pytest.importorskip("jax")
jjnp = pytest.importorskip("jax.numpy")
jnn = jax.nn

BF16 = np.dtype(ml_dtypes.bfloat16)
rng = np.random.default_rng(0)
F32 = rng.uniform(-4, 4, (3, 5)).astype(np.float32)
F32[0, :3] = [0.0, 1.0, -1.0]
F16 = F32.astype(np.float16)
BF = F32.astype(BF16)
POS = rng.uniform(0.05, 5, (7,)).astype(np.float32)
I32 = rng.integers(-5, 6, (6,)).astype(np.int32)
SPECIAL = np.array([0.0, -0.0, 6.0, -1.0, 1.0, 40.0, -40.0, np.inf, -np.inf, np.nan], np.float32)

# name -> inputs (arrays and Python scalars)
UNARY = {
    "relu": [F32, F16, BF, I32, 2.0, -3, SPECIAL], "relu6": [F32, BF, I32, SPECIAL, 7.0],
    "identity": [F32, I32, 1.5], "sigmoid": [F32, F16, BF, SPECIAL],
    "softplus": [F32, F16, BF, SPECIAL, I32, 1.0], "sparse_plus": [F32, BF, SPECIAL, 0.5],
    "soft_sign": [F32, F16, I32, 2.0], "sparse_sigmoid": [F32, BF, I32, 0.3],
    "silu": [F32, F16, BF, SPECIAL], "swish": [F32], "mish": [F32, F16, BF, 1.0],
    "log_sigmoid": [F32, F16, BF, SPECIAL], "elu": [F32, F16, BF, SPECIAL, 1.0],
    "leaky_relu": [F32, BF, I32, SPECIAL, -2.0], "hard_tanh": [F32, BF, I32, 3.0],
    "celu": [F32, F16, BF, SPECIAL], "selu": [F32, F16, BF, SPECIAL, -1.0],
    "gelu": [F32, F16, BF, SPECIAL, I32, 1.0], "hard_sigmoid": [F32, BF, I32, SPECIAL],
    "hard_silu": [F32, F16, BF, SPECIAL], "hard_swish": [F32], "tanh": [F32, F16, BF],
    "squareplus": [F32, F16, BF, I32, 2.0], "log1mexp": [POS, POS.astype(np.float16), 0.5],
}


def _tol(dt):
    dt = np.dtype(dt)
    return 2e-2 if dt.itemsize <= 2 else 2e-5


def _cmp(got, want, msg=""):
    check(got, want, rtol=_tol(want.dtype), atol=_tol(want.dtype), msg=msg)


def _jax_ref(fn, *args):
    """JAX's results of ``fn(jax.nn, *args)``: one jax.jit (op-by-op JAX is ~100x slower)."""
    return jax.jit(lambda *a: fn(jnn, *a))(*args)


def _all_unary(m):
    return {f"{n}{i}": getattr(m, n)(x) for n in sorted(UNARY) for i, x in enumerate(UNARY[n])}


def test_activations_eager_match_jax():
    want = _jax_ref(_all_unary)
    got = _all_unary(nn)
    for k in want:
        _cmp(got[k], want[k], msg=k)


def _parameters(m):
    out = {}
    for i, a in enumerate((0.5, 2.0, np.float32(0.1))):
        out[f"elu{i}"] = m.elu(F32, a)
        out[f"celu{i}"] = m.celu(F32, a)
        out[f"leaky_relu{i}"] = m.leaky_relu(F32, a)
        out[f"squareplus{i}"] = m.squareplus(F32, a)
    out["elu_bf16"] = m.elu(BF, 0.5)
    for i, x in enumerate((F32, F16, BF, SPECIAL, I32, 1.0)):
        out[f"gelu_exact{i}"] = m.gelu(x, approximate=False)
    out["gelu_tails"] = m.gelu(np.linspace(-12, 12, 97).astype(np.float32), False)
    for axis in (-1, 0):
        out[f"glu{axis}"] = m.glu(np.concatenate([F32, F32], axis=axis), axis)
    out["glu_f16"] = m.glu(F16[:, :4])
    return out


def test_activation_parameters_eager():
    want = _jax_ref(_parameters)
    got = _parameters(nn)
    for k in want:
        _cmp(got[k], want[k], msg=k)


def _in_one_jit(m, f, b, h, p):
    outs = {}
    for n in sorted(UNARY):
        outs[n] = getattr(m, n)(p if n == "log1mexp" else f)
        outs[n + "_bf16"] = getattr(m, n)(p.astype(BF16) if n == "log1mexp" else b)
    outs["gelu_exact"] = m.gelu(f, approximate=False)
    outs["gelu_exact_f16"] = m.gelu(h, approximate=False)
    outs["gelu_f16"] = m.gelu(h)
    outs["glu"] = m.glu(f[:, :4])
    outs["elu_a"] = m.elu(f, 0.5)
    outs["relu_scalar"] = m.relu(2.0)
    return outs


def test_activations_in_one_jit_match_eager():
    """Every activation (and gelu exact, glu) on f32/bf16/f16 in one compiled module, against
    the eager results (which test_activations_eager_match_jax compares with JAX)."""
    args = (F32, BF, F16, POS)
    got = irax.jit(lambda *a: _in_one_jit(nn, *a))(*args)
    want = _in_one_jit(nn, *args)
    for k in want:
        _cmp(got[k], want[k], msg=k)
    ref = jax.jit(lambda f: jnn.gelu(f, approximate=False))(F16)  # the f32 detour of f16
    _cmp(got["gelu_exact_f16"], ref, "gelu_exact_f16 vs jax")


# ---- softmax family ---------------------------------------------------------------------------
X3 = rng.normal(size=(2, 3, 4)).astype(np.float32)
MASK = rng.uniform(size=(2, 3, 4)) > 0.3
MASK[0, 0] = False  # a fully masked row
B3 = rng.uniform(-1, 2, (2, 3, 4)).astype(np.float32)


def _softmax_cases(m, x, mask, b):
    """(name, thunk) pairs over module ``m`` (irax.nn or jax.nn)."""
    cases = {}
    for axis in (-1, (0, 2), None):
        cases[f"softmax{axis}"] = m.softmax(x, axis=axis)
        cases[f"log_softmax{axis}"] = m.log_softmax(x, axis=axis)
        cases[f"logsumexp{axis}"] = m.logsumexp(x, axis=axis, keepdims=axis != -1)
    cases["logmeanexp"] = m.logmeanexp(x, axis=0)
    cases["standardize"] = m.standardize(x, axis=(0, 2))
    cases["softmax_where"] = m.softmax(x, where=mask)
    cases["log_softmax_where"] = m.log_softmax(x, axis=1, where=mask)
    cases["logsumexp_where"] = m.logsumexp(x, axis=-1, where=mask)
    cases["logmeanexp_where"] = m.logmeanexp(x, axis=(1, 2), where=mask, keepdims=True)
    cases["standardize_where"] = m.standardize(x, axis=-1, where=mask[:1] | True)
    cases["standardize_stable"] = m.standardize(x, axis=(0, 1), algorithm="stable",
                                                epsilon=1e-3)
    cases["standardize_mv"] = m.standardize(x, mean=0.5, variance=2.0)
    cases["logsumexp_b"] = m.logsumexp(x, axis=-1, b=b)
    lse, sign = m.logsumexp(x, axis=1, b=b, return_sign=True)
    cases["logsumexp_b_sign"], cases["sign"] = lse, sign
    cases["logsumexp_b_where"] = m.logsumexp(x, axis=None, b=b, where=mask)
    cases["softmax_bf16"] = m.softmax(x.astype(BF16))
    cases["logsumexp_f16"] = m.logsumexp(x.astype(np.float16), axis=-1)
    cases["logsumexp_int"] = m.logsumexp(np.arange(4, dtype=np.int32))
    return cases


def test_softmax_family_eager_and_jit_match_jax():
    args = (X3, MASK, B3)
    want = _jax_ref(_softmax_cases, *args)
    eager = _softmax_cases(nn, *args)
    compiled = irax.jit(lambda *a: _softmax_cases(nn, *a))(*args)
    for k in want:
        _cmp(eager[k], want[k], msg="eager " + k)
        _cmp(compiled[k], want[k], msg="jit " + k)


ROWS = np.array([[1000.0, 1000.0, 0.0], [-np.inf, -np.inf, -np.inf], [np.inf, 1.0, 0.0],
                 [np.nan, 1.0, 0.0], [-np.inf, 0.0, 1.0]], np.float32)


def _special(m):
    out = {f: getattr(m, f)(ROWS, axis=-1)
           for f in ("softmax", "log_softmax", "logsumexp", "logmeanexp")}
    out["b<0"] = m.logsumexp(ROWS, axis=-1, b=-1.0)
    out["scalar"], out["scalar_sign"] = m.logsumexp(1.0, return_sign=True)
    return out


def test_softmax_special_values():
    want = _jax_ref(_special)
    got = _special(nn)
    for k in want:
        _cmp(got[k], want[k], k)


ONE_HOT_X = (np.array([0, 2, 5, -1]), np.arange(6).reshape(2, 3), 1, np.int8(2))
ONE_HOT_KW = ({}, {"axis": 0}, {"dtype": jnp.int8}, {"axis": -2, "dtype": jnp.bfloat16},
              {"dtype": bool})


def _one_hots(m):
    return {(i, j): m.one_hot(x, 4, **kw) for i, x in enumerate(ONE_HOT_X)
            for j, kw in enumerate(ONE_HOT_KW) if not (kw.get("axis") == -2 and np.ndim(x) == 0)}


def test_one_hot():
    want = _jax_ref(_one_hots)
    got = _one_hots(nn)
    for k in want:
        check(got[k], want[k], msg=str(k))
    got = irax.jit(lambda i: nn.one_hot(i, 3, axis=0))(np.array([2, 0, 7], np.int32))
    np.testing.assert_array_equal(np.asarray(got), np.arange(3)[:, None] == [2, 0, 7])
    with pytest.warns(DeprecationWarning, match="integer-typed"):
        got = nn.one_hot(np.array([0.0, 1.0], np.float32), 2)
    np.testing.assert_array_equal(np.asarray(got), np.eye(2))
    named = irax.vmap(lambda i: nn.one_hot(i, 3, axis="b"), axis_name="b")(
        np.array([2, 1, 1], np.int32))
    np.testing.assert_array_equal(np.asarray(named), [0.0, 1.0, 0.0])
    with pytest.raises(ValueError, match="num_classes to match"):
        irax.vmap(lambda i: nn.one_hot(i, 4, axis="b"), axis_name="b")(np.arange(3))
    with pytest.raises(TypeError, match="num_classes"):
        irax.jit(lambda n: nn.one_hot(np.arange(3), n))(3)


# ---- derivatives --------------------------------------------------------------------------------
def _grad_fns(m, np_):
    """name -> differentiable function of one (3, 5) array, over module ``m`` (irax.nn or
    jax.nn) and its numpy ``np_``."""
    w5 = np_.arange(5.0)
    fns = {n: getattr(m, n) for n in (
        "relu", "relu6", "gelu", "silu", "elu", "celu", "selu", "softplus", "mish",
        "log_sigmoid", "sparse_plus", "hard_silu", "squareplus", "soft_sign", "leaky_relu",
        "hard_tanh", "standardize", "sigmoid", "sparse_sigmoid")}
    fns.update({
        "gelu_exact": lambda x: m.gelu(x, approximate=False),
        "log1mexp": lambda x: m.log1mexp(np_.abs(x) + 0.1),
        "softmax": lambda x: m.softmax(x) * w5,
        "softmax_where": lambda x: m.softmax(x, where=x > -1) * w5,
        "log_softmax": lambda x: m.log_softmax(x, axis=0) * w5,
        "logsumexp": lambda x: m.logsumexp(x, axis=-1),
        "logsumexp_where": lambda x: m.logsumexp(x, axis=-1, where=x > -1),
        "logsumexp_b": lambda x: m.logsumexp(x, axis=0, b=np_.arange(1.0, 6.0)),
        "logmeanexp": lambda x: m.logmeanexp(x, axis=1, where=x < 2),
    })
    return fns


def _grads(m, np_, grad, x, w):
    out = {}
    for n, f in _grad_fns(m, np_).items():
        def loss(v, f=f):
            y = f(v)
            return (y * w.reshape(-1)[:y.size].reshape(y.shape)).sum()
        out[n] = grad(loss)(x)
    return out


# the functions with custom rules, masks or selects: compared with JAX's derivatives (the
# others, smooth compositions, with finite differences: JAX compiles slowly)
VS_JAX = ("relu", "relu6", "gelu", "gelu_exact", "softplus", "elu", "hard_silu", "log1mexp",
          "softmax", "softmax_where", "log_softmax", "logsumexp_where", "logsumexp_b",
          "logmeanexp", "standardize", "sparse_plus")


def test_gradients_in_one_jit_match_jax_and_finite_differences():
    """vjp (grad of a weighted sum) of every differentiable function, one compile."""
    w = rng.normal(size=F32.shape).astype(np.float32)
    x = np.where(np.isin(F32, [0.0, 1.0, -1.0]), F32 + np.float32(0.013), F32)  # no kinks
    got = irax.jit(lambda x, w: _grads(nn, jnp, irax.grad, x, w))(x, w)
    want = jax.jit(lambda x, w: {n: v for n, v in _grads(jnn, jjnp, jax.grad, x, w).items()
                                 if n in VS_JAX})(x, w)
    for n in want:
        _cmp(got[n], want[n], msg=n)
    fns = _grad_fns(nn, jnp)
    for n in sorted(set(got) - set(VS_JAX)):
        def loss(v, f=fns[n]):
            y = f(v)
            return (y * w.reshape(-1)[:y.size].reshape(y.shape)).sum()
        np.testing.assert_allclose(np.asarray(got[n]), _fd(loss, x), rtol=3e-2, atol=3e-2,
                                   err_msg=n)


KINKS = ("relu", "relu6", "hard_sigmoid", "hard_silu", "elu", "celu", "leaky_relu",
         "sparse_plus", "sparse_sigmoid", "hard_tanh", "gelu", "squareplus", "softplus")


def _kinks(m, grad, pts):
    return {n: [grad(getattr(m, n))(p) for p in pts] for n in KINKS}


def test_custom_derivatives_at_kinks_eager():
    """Eager derivatives at the kinks (relu'(0) = 0, relu6'(6) = 0, ...) against JAX."""
    pts = [np.float32(p) for p in (0.0, 6.0, -3.0, 1.0, -1.0)]
    got = _kinks(nn, irax.grad, pts)
    want = jax.jit(lambda *p: _kinks(jnn, jax.grad, p))(*pts)
    for n in KINKS:
        for p, g, w in zip(pts, got[n], want[n]):
            _cmp(g, w, msg=f"{n}'({p})")
    # jvp of softmax (its custom rule) against JAX, and relu at 0
    t = np.cos(X3)
    for g, w in zip(irax.jvp(nn.softmax, (X3,), (t,)),
                    jax.jit(lambda x, t: jax.jvp(jnn.softmax, (x,), (t,)))(X3, t)):
        _cmp(g, w, "softmax jvp")
    _, tan = irax.jvp(nn.relu, (np.float32(0.0),), (np.float32(1.0),))
    assert float(tan) == 0.0


def _fd(f, x, eps=1e-3):
    x = np.asarray(x, np.float64)
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = eps
        g[i] = (float(f((x + e).astype(np.float32))) - float(f((x - e).astype(np.float32)))) / (
            2 * eps)
    return g


@pytest.mark.parametrize("name", ["gelu_exact", "softmax", "logsumexp_where", "mish",
                                  "log_softmax", "standardize"])
def test_gradients_match_finite_differences(name):
    f = _grad_fns(nn, jnp)[name]
    x = rng.uniform(-2, 2, (3, 5)).astype(np.float32)

    def loss(v):
        return f(v).sum() if name != "standardize" else (f(v) * jnp.arange(5.0)).sum()

    np.testing.assert_allclose(np.asarray(irax.grad(loss)(x)), _fd(loss, x), rtol=2e-2,
                               atol=2e-2)


# ---- vmap ---------------------------------------------------------------------------------------
def test_vmap_matches_python_loop():
    fns = {
        "softmax_where": lambda x, m: nn.softmax(x, where=m),
        "log_softmax": lambda x, m: nn.log_softmax(x, axis=0),
        "logsumexp": lambda x, m: nn.logsumexp(x, axis=-1, b=m.astype(np.float32)),
        "standardize": lambda x, m: nn.standardize(x, where=m, algorithm="stable"),
        "gelu": lambda x, m: nn.gelu(x, approximate=False),
        "relu": lambda x, m: nn.relu(x),
        "one_hot": lambda x, m: nn.one_hot(m.astype(np.int32), 2),
        "glu": lambda x, m: nn.glu(x, axis=-1),
    }

    def every(x, m):  # one vmap (one compile) for all of them
        return {n: f(x, m) for n, f in fns.items()}

    def loss(x, m):  # the derivatives of the functions with custom rules or masks
        return sum((jnp.cos(jnp.arange(y.size, dtype=np.float32)).reshape(y.shape) * y).sum()
                   for n, y in every(x, m).items() if n in ("softmax_where", "relu", "logsumexp"))

    got = irax.vmap(every)(X3, MASK)
    gotg = irax.vmap(irax.grad(loss))(X3, MASK)
    for i in range(X3.shape[0]):
        want = every(X3[i], MASK[i])
        for n in fns:
            np.testing.assert_allclose(np.asarray(got[n])[i], np.asarray(want[n]), rtol=1e-5,
                                       atol=1e-6, err_msg=n)
        np.testing.assert_allclose(np.asarray(gotg)[i], np.asarray(irax.grad(loss)(X3[i], MASK[i])),
                                   rtol=1e-5, atol=1e-5)


# ---- hypothesis ---------------------------------------------------------------------------------
HYP = ("softmax", "log_softmax", "logsumexp", "gelu", "softplus", "log_sigmoid", "selu", "mish",
       "standardize", "relu6")
_JAX_HYP = jax.jit(lambda x: {n: getattr(jnn, n)(x) for n in HYP})


@settings(max_examples=10, deadline=None)
@given(st.lists(st.floats(-30, 30, width=32), min_size=6, max_size=6),
       st.sampled_from([np.float32, np.float16, BF16]))
def test_hypothesis_eager_matches_jax(vals, dt):
    x = np.array(vals, np.float32).astype(dt)
    want = _JAX_HYP(x)  # one JAX compile per dtype
    for n in HYP:
        _cmp(getattr(nn, n)(x), want[n], msg=f"{n}({x})")


# ---- errors -------------------------------------------------------------------------------------
def test_errors():
    with pytest.raises(TypeError, match="relu6? requires ndarray|requires ndarray"):
        nn.silu([1.0, 2.0])
    with pytest.raises(ValueError, match="Unknown algorithm 'bad'"):
        nn.standardize(F32, algorithm="bad")
    with pytest.raises(AssertionError, match="divisible by 2"):
        nn.glu(F32)
    with pytest.raises(ValueError, match="duplicate value in 'axis'"):
        nn.logsumexp(F32, axis=(0, 0))
    with pytest.raises(TypeError, match="standardize requires ndarray"):
        nn.standardize(F32, mean=[0.0])


X64_NAMES = ("softmax", "log_softmax", "logsumexp", "gelu", "silu", "standardize", "relu")


def _x64(m, x):
    out = {n: getattr(m, n)(x) for n in X64_NAMES}
    out["gelu_exact"] = m.gelu(x, False)
    out["one_hot"] = m.one_hot(np.arange(3), 3)
    out["relu_scalar"] = m.relu(2.0)
    return out


def test_x64_softmax_and_activations(x64):
    jax.config.update("jax_enable_x64", True)
    try:
        x = np.linspace(-9, 9, 15).reshape(3, 5)
        want = _jax_ref(_x64, x)
        got = _x64(nn, x)
        for k in want:
            check(got[k], want[k], rtol=1e-12, atol=1e-12, msg=k)
    finally:
        jax.config.update("jax_enable_x64", False)
