"""The eager fast path of ``+ - * /`` and of ``jnp.add`` ... ``jnp.sin``, ``jnp.exp`` ... on
concrete float arrays (``numpy/_fast.py``) gives what the full path gives (the same calls
with the fast path switched off): dtype, weak type and bits, and JAX's results."""

import jax
import jax.numpy as jjnp
import ml_dtypes
import numpy as np
import pytest

import irax
import irax.numpy as jnp
from irax.numpy import _fast


def _lib(a):
    """The numpy module of ``a``'s library (the JAX references call the same lambdas)."""
    return jjnp if isinstance(a, jax.Array) else jnp


OPS = {"add": (lambda a, b: a + b, lambda a, b: b + a, jnp.add),
       "sub": (lambda a, b: a - b, lambda a, b: b - a, jnp.subtract),
       "mul": (lambda a, b: a * b, lambda a, b: b * a, jnp.multiply),
       "div": (lambda a, b: a / b, lambda a, b: b / a, jnp.true_divide),
       "max": (lambda a, b: _lib(a).maximum(a, b), lambda a, b: _lib(a).maximum(b, a),
               jnp.maximum),
       "min": (lambda a, b: _lib(a).minimum(a, b), lambda a, b: _lib(a).minimum(b, a),
               jnp.minimum)}
DTYPES = [np.float16, ml_dtypes.bfloat16, np.float32]


@pytest.fixture
def full(monkeypatch):
    """``full(f, *args)``: ``f`` with the fast paths off (no dtype qualifies)."""
    def call(f, *args):
        with monkeypatch.context() as m:
            for name in ("_FAST_FLOATS", "_REDUCE_FLOATS", "_DIRECT"):
                m.setattr(_fast, name, frozenset())
            return f(*args)
    return call


def _same(a, b):
    assert type(a) is irax.Array and type(b) is irax.Array
    assert a.aval == b.aval and a.aval.weak_type == b.aval.weak_type
    np.testing.assert_array_equal(np.asarray(a).reshape(-1).view(np.uint8),
                                  np.asarray(b).reshape(-1).view(np.uint8))


@pytest.mark.parametrize("op", list(OPS))
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("other", [1.0001, -3, 0.0, float("inf"), float("nan"), 1e300,
                                   70000, 2 ** 31 - 1, True])
def test_with_python_scalars_as_the_full_path_and_jax(op, dtype, other, full):
    fwd, rev, fn = OPS[op]
    x = np.array([0.5, -2.25, 3.0e3, 0.0], dtype)
    a = jnp.asarray(x)
    for got in (fwd(a, other), fn(a, other)):
        _same(got, full(fn, a, other))
    for got in (rev(a, other), fn(other, a)):
        _same(got, full(fn, other, a))
    j = jjnp.asarray(x)
    for got, want in ((fwd(a, other), fwd(j, other)), (rev(a, other), rev(j, other))):
        assert got.dtype == want.dtype and got.aval.weak_type == want.weak_type
        np.testing.assert_allclose(np.asarray(got, np.float64), np.asarray(want, np.float64),
                                   rtol=1e-2 if dtype != np.float32 else 1e-7)


@pytest.mark.parametrize("op", list(OPS))
def test_with_arrays_and_weak_types(op, full):
    fwd, _, fn = OPS[op]
    x = jnp.asarray(np.array([1.5, -2.0, 7.0], np.float32))
    weak = irax.lax.broadcast(jnp.asarray(2.5), (3,))      # weakly typed float32
    assert weak.aval.weak_type
    for a, b in ((x, x), (weak, weak), (x, weak), (weak, x)):
        _same(fwd(a, b), full(fn, a, b))
        _same(fn(a, b), full(fn, a, b))
    jw = jax.lax.broadcast(jax.numpy.asarray(2.5), (3,))
    assert fwd(weak, weak).aval.weak_type == fwd(jw, jw).weak_type


def test_other_cases_take_the_full_path():
    i = jnp.arange(3)
    assert (i * 2).dtype == np.int32 and (i * 2.5).dtype == np.float32
    x = jnp.ones(3, np.float32)
    assert (x * np.float64(2)).dtype == np.float32
    with pytest.raises(OverflowError, match="too large"):
        x + 2 ** 31                                          # JAX: OverflowError too
    assert (x * jnp.ones((2, 3), np.float32)).shape == (2, 3)
    with pytest.raises(TypeError, match="incompatible shapes"):
        x * jnp.ones(4, np.float32)
    out = irax.jit(lambda v: v * 2.0 + 1)(x)               # traced: staged, not evaluated
    np.testing.assert_array_equal(np.asarray(out), np.full(3, 3.0, np.float32))


UNARY = ("sin", "cos", "tan", "tanh", "exp", "expm1", "log", "log1p", "sqrt", "rsqrt", "cbrt")


@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("dtype", DTYPES + [np.float64])
def test_unary_functions_as_the_full_path_and_jax(name, dtype, full):
    x = np.array([0.5, -2.25, 3.0e3, 0.0, -0.0, 1e-3, np.inf, np.nan], dtype)
    fn = getattr(jnp, name) if name != "rsqrt" else irax.lax.rsqrt
    a = jnp.asarray(x)
    _same(fn(a), full(fn, a))
    weak = irax.lax.broadcast(jnp.asarray(0.75), (3,))
    _same(fn(weak), full(fn, weak))
    if dtype != np.float64:
        jfn = getattr(jjnp, name) if name != "rsqrt" else jax.lax.rsqrt
        want = np.asarray(jfn(jjnp.asarray(x)), np.float64)
        with np.errstate(invalid="ignore"):
            np.testing.assert_allclose(np.asarray(fn(a), np.float64), want,
                                       rtol=1e-2 if dtype != np.float32 else 2e-6)


@pytest.mark.parametrize("name", ["sum", "prod", "max", "min"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_reductions_as_the_full_path_and_jax(name, dtype, full):
    fn, jfn = getattr(jnp, name), getattr(jjnp, name)
    x = np.array([[0.5, -2.25, 3.0], [1e3, 0.0, -0.0], [7.0, 1.5, np.inf]], dtype)
    a = jnp.asarray(x)
    weak = irax.lax.broadcast(jnp.asarray(0.75), (3, 2))
    for arr in (a, weak):
        for axis in (None, 0, 1, (0, 1), -1):
            for keepdims in (False, True):
                _same(fn(arr, axis=axis, keepdims=keepdims),
                      full(lambda v, ax=axis, k=keepdims: fn(v, axis=ax, keepdims=k), arr))
    with np.errstate(invalid="ignore"):
        np.testing.assert_allclose(np.asarray(fn(a, axis=0), np.float64),
                                   np.asarray(jfn(jjnp.asarray(x), axis=0), np.float64),
                                   rtol=1e-3 if dtype == np.float16 else 1e-6)
    if name in ("max", "min"):
        with pytest.raises(ValueError, match="zero-size array"):
            fn(jnp.zeros((0, 2), dtype), axis=0)


def test_no_numpy_warnings_and_the_callers_error_state_is_kept(full):
    """Overflow, 0/0 and inf-inf compute IEEE results silently (as compiled code does),
    also for 0-d arrays, whatever NumPy's error state, which is the caller's again after."""
    import warnings
    big = jnp.asarray(np.float32(3e38))
    vec = jnp.asarray(np.array([3e38, 0.0, np.inf], np.float32))
    before = np.geterr()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(all="raise"):
            for a in (big, vec):
                for f in (lambda v: v * 10.0, lambda v: v / 0.0, lambda v: v - v, jnp.exp):
                    _same(f(a), full(f, a))
            np.testing.assert_array_equal(np.asarray(vec * 10.0), [np.inf, 0.0, np.inf])
            with pytest.raises(FloatingPointError):
                np.float32(3e38) * np.float32(10)        # the caller's state still raises
    assert np.geterr() == before
    assert (big * 2.0).shape == () and (big * 2.0).dtype == np.float32


@pytest.mark.parametrize("dtype", DTYPES)
def test_comparisons_as_the_full_path_and_jax(dtype, full):
    """``< <= > >= == !=`` and their jnp functions with a Python scalar (either side) or
    an array of the same type: bools equal to the full path's and JAX's, NaN unordered."""
    x = np.array([0.5, -2.25, np.nan, 0.0, np.inf, 3.0], dtype)
    a, j = jnp.asarray(x), jjnp.asarray(x)
    fns = ["less", "less_equal", "greater", "greater_equal", "equal", "not_equal"]
    ops = [lambda p, q: p < q, lambda p, q: p <= q, lambda p, q: p > q,
           lambda p, q: p >= q, lambda p, q: p == q, lambda p, q: p != q]
    for name, op in zip(fns, ops):
        for other in (0.5, -3, float("nan"), float("inf"), a):
            jo = j if other is a else other
            for got, want, ref in ((op(a, other), op(j, jo), full(op, a, other)),
                                   (op(other, a), op(jo, j), full(op, other, a)),
                                   (getattr(jnp, name)(other, a),
                                    getattr(jjnp, name)(jo, j),
                                    full(getattr(jnp, name), other, a))):
                _same(got, ref)
                assert got.dtype == np.bool_ and not got.aval.weak_type
                np.testing.assert_array_equal(np.asarray(got), np.asarray(want), err_msg=name)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_where_as_the_full_path_and_jax(dtype, full):
    x = np.array([[0.5, -2.25, 3.0], [1e3, 0.0, -0.0]], dtype)
    a, b = jnp.asarray(x), jnp.asarray(x[::-1].copy())
    weak = irax.lax.broadcast(jnp.asarray(0.75), (2, 3))
    c = a > 0.25
    for args in ((c, a, b), (c, a, 0.0), (c, -1, a), (c, weak, 2.5), (c, a, weak),
                 (np.asarray(c), a, b)):
        _same(jnp.where(*args), full(jnp.where, *args))
    want = jjnp.where(jjnp.asarray(x) > 0.25, jjnp.asarray(x), 0.0)
    np.testing.assert_array_equal(np.asarray(jnp.where(c, a, 0.0)), np.asarray(want))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_mean_as_the_full_path_and_jax(dtype, full):
    x = np.array([[0.5, -2.25, 3.0], [1e3, 0.0, -0.0], [7.0, 1.5, 0.1]], dtype)
    a = jnp.asarray(x)
    weak = irax.lax.broadcast(jnp.asarray(0.75), (3, 2))
    for arr in (a, weak):
        for axis in (None, 0, 1, (0, 1), -1):
            for keepdims in (False, True):
                _same(jnp.mean(arr, axis=axis, keepdims=keepdims),
                      full(lambda v, ax=axis, k=keepdims: jnp.mean(v, axis=ax, keepdims=k), arr))
    np.testing.assert_allclose(np.asarray(jnp.mean(a, axis=0), np.float64),
                               np.asarray(jjnp.mean(jjnp.asarray(x), axis=0), np.float64),
                               rtol=1e-3 if dtype == np.float16 else 1e-6)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_matmul_as_the_full_path_and_jax(dtype, full):
    rng = np.random.default_rng(0)
    shapes = [((3, 4), (4,)), ((4,), (4, 5)), ((3, 4), (4, 5)), ((4,), (4,)),
              ((2, 3, 4), (4, 5))]        # the last: batched, the full path
    for sa, sb in shapes:
        x, y = rng.standard_normal(sa).astype(dtype), rng.standard_normal(sb).astype(dtype)
        a, b = jnp.asarray(x), jnp.asarray(y)
        for f in (lambda p, q: p @ q, jnp.matmul, jnp.dot):
            _same(f(a, b), full(f, a, b))
        np.testing.assert_allclose(np.asarray(a @ b), np.asarray(jjnp.asarray(x) @ y),
                                   rtol=1e-5 if dtype == np.float32 else 1e-12, atol=1e-6)
    weak = irax.lax.broadcast(jnp.asarray(0.75), (4,))
    m = jnp.asarray(np.ones((3, 4), np.float32))
    _same(m @ weak, full(jnp.matmul, m, weak))      # weak and strong: promotion decides
    with pytest.raises(TypeError):
        jnp.matmul(m, jnp.ones((5,), np.float32))
