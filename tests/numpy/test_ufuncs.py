"""Values of irax.numpy ufuncs against JAX and NumPy, eagerly and under one jit per group."""

import numpy as np
import pytest
from numpy_helpers import check, sample

import irax
import irax.numpy as jnp

jax = pytest.importorskip("jax")
jjnp = pytest.importorskip("jax.numpy")

rng = np.random.default_rng(0)
F = sample((7,), np.float32, rng)
POS = rng.uniform(0.1, 4.0, (7,)).astype(np.float32)
UNIT = rng.uniform(-0.95, 0.95, (7,)).astype(np.float32)
BIG = rng.uniform(1.05, 30.0, (7,)).astype(np.float32)
I = sample((7,), np.int32, rng)
I8 = sample((7,), np.int8, rng)
U8 = sample((7,), np.uint8, rng)
B = sample((7,), np.bool_, rng)
C = sample((7,), np.complex64, rng)
H = sample((7,), np.float16, rng)
SPECIAL = np.array([0.0, -0.0, 0.5, 1.5, 2.5, -0.5, -2.5, np.inf, -np.inf, np.nan], np.float32)

UNARY = {
    # name: inputs
    "negative": [F, I, I8, U8, C, 2, 2.5], "positive": [F, B, 3], "abs": [F, I, C, B, U8, -2],
    "sign": [F, I, C, U8, SPECIAL], "floor": [F, I, SPECIAL, H], "ceil": [F, B, SPECIAL],
    "trunc": [F, I, SPECIAL], "rint": [F, I, C, SPECIAL], "round": [F, I, C, SPECIAL, H],
    "square": [F, I8, B, C, 3], "sqrt": [POS, I, C, 4], "cbrt": [F, I],
    "reciprocal": [POS, I, C], "exp": [F, I8, C, H], "exp2": [F, I], "expm1": [F],
    "log": [POS, C, 2], "log2": [POS, C, I], "log10": [POS], "log1p": [POS],
    "sin": [F, C, H], "cos": [F], "tan": [UNIT], "tanh": [F],
    "arcsin": [UNIT, H], "arccos": [UNIT, np.array([-1.0, 1.0], np.float32)], "arctan": [F],
    "sinh": [F, BIG, SPECIAL], "cosh": [F, BIG], "arcsinh": [F, BIG, np.float32([1e30, -1e30])],
    "arccosh": [BIG, np.float32([1.0, 1e30])], "arctanh": [UNIT, np.float32([1.0, -1.0, 2.0])],
    "deg2rad": [F], "rad2deg": [F], "isnan": [SPECIAL, I, C], "isinf": [SPECIAL, I],
    "isfinite": [SPECIAL, I, C], "signbit": [SPECIAL[:7], I], "invert": [I, U8, B],
    "bitwise_not": [I8], "logical_not": [F, I, B], "real": [C, F, I], "imag": [C, F],
    "conj": [C, F], "isposinf": [SPECIAL], "isneginf": [SPECIAL], "angle": [C, F],
}


def _unary_cases():
    for name, inputs in UNARY.items():
        for k, x in enumerate(inputs):
            yield name, k, x


@pytest.mark.parametrize("name,k,x", [pytest.param(n, k, x, id=f"{n}-{k}")
                                      for n, k, x in _unary_cases()])
def test_unary_matches_jax(name, k, x):
    got = getattr(jnp, name)(x)
    want = getattr(jjnp, name)(x)
    weak = name not in ("rint", "isinf", "isfinite", "isnan", "logical_not")
    loose = ("sinh", "cosh", "arcsinh", "arccosh", "arctanh", "arcsin", "arccos", "exp2", "log2",
             "log10")
    rtol = 2e-5 if name in loose and np.asarray(x).dtype != np.float16 else None
    check(got, want, rtol=rtol, atol=2e-6 if rtol else None, weak=weak, msg=f"{name}({x!r})")


BINARY_PAIRS = [(F, POS), (I, I8), (U8, U8[::-1]), (F, 2), (3, I), (B, B[::-1]), (C, C[::-1]),
                (H, F), (I, np.int32([1, -1, 2, -2, 3, -3, 0]))]
BINARY = ["add", "subtract", "multiply", "true_divide", "floor_divide", "remainder", "fmod",
          "power", "maximum", "minimum", "fmax", "fmin", "equal", "not_equal", "less",
          "less_equal", "greater", "greater_equal", "logical_and", "logical_or", "logical_xor",
          "bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift", "arctan2",
          "hypot", "logaddexp", "logaddexp2", "copysign"]


def _binary_cases():
    for name in BINARY:
        for k, (x, y) in enumerate(BINARY_PAIRS):
            yield name, k, x, y


@pytest.mark.parametrize("name,k,x,y", [pytest.param(n, k, x, y, id=f"{n}-{k}")
                                        for n, k, x, y in _binary_cases()])
def test_binary_matches_jax(name, k, x, y):
    try:
        want = getattr(jjnp, name)(x, y)
    except (TypeError, ValueError, NotImplementedError) as e:
        with pytest.raises(type(e)):
            getattr(jnp, name)(x, y)
        return
    try:
        got = getattr(jnp, name)(x, y)
    except NotImplementedError:
        assert np.iscomplexobj(x) or np.iscomplexobj(y)  # documented gaps
        return
    rtol = 1e-5 if name in ("power", "logaddexp2", "hypot") else None
    check(got, want, rtol=rtol, atol=1e-5 if rtol else None, msg=f"{name}({x!r}, {y!r})")


def test_rsqrt_matches_numpy():
    check(jnp.rsqrt(POS), 1 / np.sqrt(POS), rtol=2e-6)


def test_divmod_and_integer_division_semantics():
    x = np.int32([7, -7, 7, -7, 0, 5, -5, np.iinfo(np.int32).min])
    y = np.int32([2, 2, -2, -2, 0, 0, 0, -1])
    for fn in ("floor_divide", "remainder", "fmod"):
        check(getattr(jnp, fn)(x, y), getattr(jjnp, fn)(x, y), msg=fn)
    q, r = jnp.divmod(x, y)
    np.testing.assert_array_equal(np.asarray(q), [3, -4, -4, 3, -1, -2, -2, x[-1]])
    np.testing.assert_array_equal(np.asarray(r), [1, 1, -1, -1, 0, 0, 0, 0])
    u = np.uint8([7, 0, 255])
    check(jnp.floor_divide(u, np.uint8([2, 0, 0])), jjnp.floor_divide(u, np.uint8([2, 0, 0])))
    fx = np.float32([5.5, -5.5, 1.0, -1.0, 0.0, -0.0, 4.0, 3.0])
    fy = np.float32([2.0, 2.0, 0.0, 0.0, 0.0, 2.0, -2.0, np.inf])
    for fn in ("floor_divide", "remainder", "fmod"):
        got, want = getattr(jnp, fn)(fx, fy), getattr(jjnp, fn)(fx, fy)
        check(got, want, msg=fn)
        np.testing.assert_array_equal(np.signbit(np.asarray(got)), np.signbit(np.asarray(want)))
    q, r = jnp.divmod(fx, fy)
    wq, wr = jjnp.divmod(fx, fy)
    check(q, wq)
    check(r, wr)


def test_power_special_cases():
    check(jnp.power(2, jnp.array([64, 65, 3])), jjnp.power(2, jjnp.array([64, 65, 3])))
    check(jnp.array([2.0, -8.0]) ** 3, jjnp.array([2.0, -8.0]) ** 3)
    check(jnp.float32(-8.0) ** (1 / 3), jjnp.float32(-8.0) ** (1 / 3))
    check(jnp.array([0.0, np.nan, 2.0]) ** 0, jjnp.array([0.0, np.nan, 2.0]) ** 0)
    check(jnp.array([2.0, 4.0]) ** -2, jjnp.array([2.0, 4.0]) ** -2)
    check(jnp.power(jnp.int8(2), jnp.int32(3)), jjnp.power(jjnp.int8(2), jjnp.int32(3)))
    check(jnp.power(np.float16([2.0]), np.int32([3])), jjnp.power(np.float16([2.0]),
                                                                  np.int32([3])))
    with pytest.raises(TypeError, match=r"Integers cannot be raised to negative powers, got "
                                        r"integer_pow\(int32\[2\], -1\)"):
        jnp.array([1, 2]) ** -1


def test_rounding_and_clip():
    x = np.float32([0.5, 1.5, 2.5, -0.5, -1.5, 2.675, np.nan])
    check(jnp.round(x), jjnp.round(x))
    check(jnp.round(x, 2), jjnp.round(x, 2))
    check(jnp.round(np.float16([2.675, 1.25]), 1), jjnp.round(np.float16([2.675, 1.25]), 1))
    check(jnp.round(np.int32([15, 25]), 1), jjnp.round(np.int32([15, 25]), 1))
    with pytest.raises(NotImplementedError, match="decimals < 0"):
        jnp.round(np.int32([15]), -1)
    y = np.float32([-2, 0.5, 3, np.nan])
    check(jnp.clip(y, min=0, max=1), jjnp.clip(y, min=0, max=1))
    check(jnp.clip(y, max=0.25), jjnp.clip(y, max=0.25))
    check(jnp.clip(np.int8([-5, 5]), 1.5, 2), jjnp.clip(np.int8([-5, 5]), 1.5, 2))
    check(jnp.clip(y, 2, 1), jjnp.clip(y, 2, 1))
    with pytest.raises(TypeError, match="unexpected keyword argument"):
        jnp.clip(y, a_min=0)


def test_where_select_isclose():
    c = np.array([True, False, True])
    check(jnp.where(c, np.int8([1, 2, 3]), 1.0), jjnp.where(c, np.int8([1, 2, 3]), 1.0))
    check(jnp.where(c[:, None], 1, np.zeros((3, 2), np.float16)),
          jjnp.where(c[:, None], 1, np.zeros((3, 2), np.float16)))
    check(jnp.where(np.int32([0, 2, 0]), 5, 6), jjnp.where(np.int32([0, 2, 0]), 5, 6))
    with pytest.raises(TypeError, match="where requires ndarray or scalar arguments, got "
                                        "<class 'NoneType'> at position 2."):
        jnp.where(c, 1)
    conds = [np.array([True, False, False]), np.array([True, True, False])]
    check(jnp.select(conds, [1, np.float32([5, 6, 7])], default=-1),
          jjnp.select(conds, [1, np.float32([5, 6, 7])], default=-1))
    a = np.float32([1.0, np.nan, np.inf, -np.inf, 1.0, 0.0])
    b = np.float32([1.0 + 1e-6, np.nan, np.inf, np.inf, 1.1, 1e-9])
    check(jnp.isclose(a, b), jjnp.isclose(a, b))
    check(jnp.isclose(a, b, equal_nan=True), jjnp.isclose(a, b, equal_nan=True))
    check(jnp.isclose(np.int32([1, 2]), 1), jjnp.isclose(np.int32([1, 2]), 1))
    assert bool(jnp.allclose(a[:1], b[:1])) and not bool(jnp.allclose(a, b))
    assert bool(jnp.array_equal(np.arange(3), jnp.arange(3)))


def test_nan_and_signed_zero_semantics():
    s = SPECIAL
    check(jnp.maximum(s, 0.0), jjnp.maximum(s, 0.0))
    check(jnp.fmax(s, 0.0), jjnp.fmax(s, 0.0))
    check(jnp.fmin(np.float32([np.nan, np.nan]), np.float32([np.nan, 1])),
          jjnp.fmin(np.float32([np.nan, np.nan]), np.float32([np.nan, 1])))
    check(jnp.logaddexp(np.float32([1000, -np.inf, np.inf, np.nan]),
                        np.float32([1000, -np.inf, 1, 1])),
          jjnp.logaddexp(np.float32([1000, -np.inf, np.inf, np.nan]),
                         np.float32([1000, -np.inf, 1, 1])))
    check(jnp.hypot(np.float32([3e30, np.inf, 0]), np.float32([4e30, np.nan, 0])),
          jjnp.hypot(np.float32([3e30, np.inf, 0]), np.float32([4e30, np.nan, 0])))
    check(jnp.sign(np.float32([-0.0, np.nan])), jjnp.sign(np.float32([-0.0, np.nan])))
    check(jnp.abs(np.int32([np.iinfo(np.int32).min])), jjnp.abs(np.int32([-2**31])))
    check(jnp.negative(np.uint8([1])), jjnp.negative(np.uint8([1])))


def test_error_messages():
    with pytest.raises(TypeError, match=r"^irax\.numpy\.add: incompatible shapes for "
                                        r"broadcasting: \(3,\) and \(4,\)$"):
        jnp.add(jnp.ones(3), jnp.ones(4))
    with pytest.raises(TypeError, match=r"irax\.numpy\.subtract: incompatible shapes"):
        jnp.ones(3) - jnp.ones((2, 4))
    with pytest.raises(TypeError, match=r"add requires ndarray or scalar arguments, got "
                                        r"<class 'list'> at position 0\."):
        jnp.add([1, 2], 1)
    with pytest.raises(TypeError, match="sub does not accept dtype bool"):
        jnp.subtract(np.array([True]), True)
    with pytest.raises(TypeError, match="neg does not accept dtype bool"):
        -jnp.array([True])
    with pytest.raises(TypeError, match="floor_divide does not support complex-valued inputs"):
        jnp.floor_divide(1j, 1)
    with pytest.raises(TypeError, match="not does not accept dtype float32"):
        ~jnp.ones(2)


def test_operators_forward_to_ufuncs():
    x, y = jnp.arange(1, 5), jnp.arange(4, 0, -1)
    a, b = np.arange(1, 5), np.arange(4, 0, -1)
    pairs = [(x + y, a + b), (x - y, a - b), (x * y, a * b), (x / y, a / b), (x // y, a // b),
             (x % y, a % b), (x ** 2, a ** 2), (2 ** x, 2 ** a), (x & y, a & b), (x | y, a | b),
             (x ^ y, a ^ b), (x << 1, a << 1), (x >> 1, a >> 1), (x < y, a < b),
             (x <= y, a <= b), (x > y, a > b), (x >= y, a >= b), (x == y, a == b),
             (x != y, a != b), (-x, -a), (+x, +a), (abs(-x), a), (~x, ~a), (1 - x, 1 - a),
             (10 / x, 10 / a), (10 // x, 10 // a), (10 % x, 10 % a)]
    for got, want in pairs:
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6)
    q, r = divmod(x, y)
    np.testing.assert_array_equal(np.asarray(q), a // b)
    assert round(jnp.float32(2.5)) == 2.0


def test_many_ufuncs_in_one_jit_match_eager_and_jax():
    """One compiled module holding every unary and binary ufunc (one IREE compile)."""
    unary = [n for n in UNARY if n not in ("angle",)]
    binary = [n for n in BINARY if n not in ("left_shift", "right_shift", "bitwise_and",
                                             "bitwise_or", "bitwise_xor")]

    def fn(f, pos, unit, i, i8, c):
        outs = {}
        for n in unary:
            x = {"tan": unit, "arcsin": unit, "arccos": unit, "arctanh": unit, "log": pos,
                 "log2": pos, "log10": pos, "log1p": pos, "sqrt": pos, "rsqrt": pos,
                 "arccosh": pos + 1.0}.get(n, f)
            if n in ("invert", "bitwise_not"):
                x = i
            outs[n] = getattr(jnp, n)(x)
        for n in binary:
            outs[n] = getattr(jnp, n)(f, pos)
        for n in ("floor_divide", "remainder", "power", "left_shift", "right_shift",
                  "bitwise_xor", "maximum"):
            outs["int_" + n] = getattr(jnp, n)(i8, jnp.abs(i8) % 5)
        outs["c_mul"] = c * c
        outs["c_abs"] = jnp.abs(c)
        outs["c_conj"] = jnp.conj(c)
        outs["c_less"] = c < c[::-1]
        outs["int_pow3"] = i ** 3
        return outs

    args = (F, POS, UNIT, I, I8, C)
    compiled = irax.jit(fn)(*args)
    eager = fn(*args)
    assert set(compiled) == set(eager)
    for k in eager:
        check(compiled[k], eager[k], rtol=3e-6, atol=3e-6, msg=k)
