"""Dtype and weak-type results of irax.numpy functions, checked against JAX (eager only: the
types come from ``jax.eval_shape``, so no JAX compilation is needed)."""

import itertools

import numpy as np
import pytest
from numpy_helpers import BF16, DTYPES, SCALARS

import irax
import irax.numpy as jnp

jax = pytest.importorskip("jax")
jjnp = pytest.importorskip("jax.numpy")

OPERANDS = DTYPES + SCALARS
BINARY = ["add", "subtract", "multiply", "true_divide", "floor_divide", "remainder", "power",
          "maximum", "minimum", "equal", "less", "arctan2", "logaddexp", "hypot",
          "bitwise_and", "left_shift", "right_shift", "logical_and", "fmax", "fmod", "copysign"]
UNARY = ["negative", "positive", "abs", "sign", "floor", "ceil", "trunc", "rint", "round",
         "square", "sqrt", "reciprocal", "exp", "exp2", "log", "log2", "sin", "tanh", "arcsin",
         "sinh", "arctanh", "cbrt", "invert", "logical_not", "isnan", "isinf", "isfinite", "real",
         "imag", "conj", "signbit", "expm1", "log10", "deg2rad", "arccosh", "cosh", "arctan"]


# Complex operands that irax does not support yet (it raises where JAX computes).
NO_COMPLEX = {"arctan2", "logaddexp", "arcsin", "arccos", "arctan", "sinh", "cosh", "arcsinh",
              "arccosh", "arctanh", "max", "min", "argmax",
              "argmin"}


def _complex(*ops):
    return any(op == 1j or (isinstance(op, np.dtype) and op.kind == "c") for op in ops)


def _value(op):
    """A value of dtype/scalar ``op`` for irax (np array) and a JAX abstract stand-in."""
    if not isinstance(op, np.dtype):
        return op, op
    return np.ones((2,), op), jax.ShapeDtypeStruct((2,), op)


def _jax_type(fn, *args):
    try:
        r = jax.eval_shape(fn, *args)
    except (TypeError, ValueError, NotImplementedError) as e:
        return type(e)
    return np.dtype(r.dtype), bool(r.weak_type) and np.dtype(r.dtype) != np.bool_


def _irax_type(fn, *args, traced=True):
    """The result type of ``fn``: traced like ``jax.eval_shape`` (no compilation), or eager."""
    try:
        r = irax.eval_shape(fn, *args) if traced else fn(*args)
    except (TypeError, ValueError, NotImplementedError) as e:
        return type(e)
    return np.dtype(r.dtype), bool(r.weak_type) and r.dtype != np.bool_


def _name(op):
    return op.name if isinstance(op, np.dtype) else f"py-{type(op).__name__}"


@pytest.mark.parametrize("name", BINARY)
def test_binary_result_types_match_jax(name):
    bad = []
    for a, b in itertools.product(OPERANDS, OPERANDS):
        (ia, ja), (ib, jb) = _value(a), _value(b)
        want = _jax_type(getattr(jjnp, name), ja, jb)
        got = _irax_type(getattr(jnp, name), ia, ib)
        if isinstance(want, type) and isinstance(got, type):
            continue  # both raise; messages are tested elsewhere
        if name in NO_COMPLEX and _complex(a, b) and got is NotImplementedError:
            continue
        if got != want:
            bad.append(f"{name}({_name(a)}, {_name(b)}): irax {got}, jax {want}")
        eager = _irax_type(getattr(jnp, name), ia, ib, traced=False)
        if eager != got and name != "power":  # a concrete int exponent is integer_pow
            bad.append(f"{name}({_name(a)}, {_name(b)}): eager {eager}, traced {got}")
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("name", UNARY)
def test_unary_result_types_match_jax(name):
    bad = []
    for a in OPERANDS:
        ia, ja = _value(a)
        want = _jax_type(getattr(jjnp, name), ja)
        got = _irax_type(getattr(jnp, name), ia)
        if isinstance(want, type) and isinstance(got, type):
            continue
        if name in NO_COMPLEX and _complex(a) and isinstance(got, type):
            continue
        if name in ("isinf", "isfinite", "isnan", "logical_not", "rint") and \
                not isinstance(a, np.dtype):
            got, want = got[0], want[0]  # JAX's weak flags of these are incidental
        if got != want:
            bad.append(f"{name}({_name(a)}): irax {got}, jax {want}")
    assert not bad, "\n".join(bad)


def test_where_and_concatenate_result_types_match_jax():
    bad = []
    for a, b in itertools.product(OPERANDS, OPERANDS):
        (ia, ja), (ib, jb) = _value(a), _value(b)
        want = _jax_type(lambda x, y: jjnp.where(True, x, y), ja, jb)
        got = _irax_type(lambda x, y: jnp.where(True, x, y), ia, ib)
        if got != want:
            bad.append(f"where({_name(a)}, {_name(b)}): irax {got}, jax {want}")
        if isinstance(a, np.dtype) and isinstance(b, np.dtype):
            want = _jax_type(lambda x, y: jjnp.concatenate([x, y]), ja, jb)
            got = _irax_type(lambda x, y: jnp.concatenate([x, y]), ia, ib)
            if got != want:
                bad.append(f"concatenate({_name(a)}, {_name(b)}): irax {got}, jax {want}")
    assert not bad, "\n".join(bad)


REDUCTIONS = ["sum", "prod", "max", "min", "mean", "var", "std", "any", "all", "argmax",
              "argmin", "cumsum", "cumprod"]


@pytest.mark.parametrize("name", REDUCTIONS)
def test_reduction_result_types_match_jax(name):
    bad = []
    for a in DTYPES:
        ia, ja = _value(a)
        want = _jax_type(getattr(jjnp, name), ja)
        got = _irax_type(getattr(jnp, name), ia)
        if isinstance(want, type) and isinstance(got, type):
            continue
        if name in NO_COMPLEX and _complex(a) and isinstance(got, type):
            continue
        if got != want:
            bad.append(f"{name}({_name(a)}): irax {got}, jax {want}")
    assert not bad, "\n".join(bad)


# notes 2.7: twenty representative results (x32)
REPRESENTATIVE = [
    (lambda m: m.float32(1) + 1, "float32", False, 2.0),
    (lambda m: m.float32(1) + 1.0, "float32", False, 2.0),
    (lambda m: m.ones(2, m.int8) + m.ones(2, m.uint8), "int16", False, 2),
    (lambda m: m.ones(2, m.int32) + m.ones(2, m.uint32), "int32", False, 2),
    (lambda m: m.ones(2, m.bfloat16) + m.ones(2, m.float16), "float32", False, 2),
    (lambda m: m.ones(2, m.int32) + m.ones(2, m.float16), "float16", False, 2),
    (lambda m: m.ones(2, m.int8) + 1, "int8", False, 2),
    (lambda m: m.ones(2, m.int8) + 1.0, "float32", True, 2.0),
    (lambda m: m.ones(2, m.bool_) + 1, "int32", True, 2),
    (lambda m: m.ones(2, m.bool_) + True, "bool", False, True),
    (lambda m: m.ones(2, m.float16) + 1j, "complex64", False, 1 + 1j),
    (lambda m: m.ones(2, m.float32) + np.ones(2, np.float64), "float32", False, 2.0),
    (lambda m: m.add(1, 1.0), "float32", True, 2.0),
    (lambda m: m.ones(2, m.int32) / m.ones(2, m.int32), "float32", False, 1.0),
    (lambda m: m.ones(2, m.int32) // m.ones(2, m.int32), "int32", False, 1),
    (lambda m: m.ones(2, m.int32) ** 2, "int32", False, 1),
    (lambda m: m.ones(2, m.int32) ** 2.0, "float32", True, 1.0),
    (lambda m: m.sum(m.ones(3, m.bool_)), "int32", False, 3),
    (lambda m: m.sum(m.ones(3, m.uint8)), "uint32", False, 3),
    (lambda m: m.mean(m.ones(3, m.int32)), "float32", False, 1.0),
    (lambda m: m.mean(m.ones(3, m.float16)), "float16", False, 1.0),
    (lambda m: m.argmax(m.ones(3, m.float32)), "int32", False, 0),
    (lambda m: m.where(True, m.ones(2, m.int8), 1.0), "float32", True, 1.0),
    (lambda m: m.concatenate([m.ones(2, m.int8), m.ones(2, m.uint8)]), "int16", False, 1),
]


@pytest.mark.parametrize("i", range(len(REPRESENTATIVE)))
def test_representative_results(i):
    fn, dtype, weak, value = REPRESENTATIVE[i]
    got = fn(jnp)
    assert got.dtype == np.dtype(dtype) if dtype != "bfloat16" else BF16
    assert got.weak_type == weak
    np.testing.assert_array_equal(np.asarray(got), np.broadcast_to(np.asarray(value, got.dtype),
                                                                   got.shape))
    want = fn(jjnp)
    assert want.dtype == got.dtype and want.weak_type == got.weak_type


def test_python_int_overflow_and_wraparound():
    assert int(jnp.int8(0) + 1000) == -24
    assert int(jnp.uint8(3) - 5) == 254
    with pytest.raises(OverflowError, match="too large to convert to int32"):
        jnp.array(2**31)
    with pytest.raises(OverflowError):
        jnp.int8(0) + 2**31
    assert int(jnp.array(2**31, jnp.uint32)) == 2**31


def test_x64_promotions(x64):
    assert (jnp.ones(2, jnp.int32) + jnp.ones(2, jnp.uint32)).dtype == np.int64
    r = jnp.ones(2, jnp.int64) + jnp.ones(2, jnp.uint64)
    assert r.dtype == np.float64 and r.weak_type
    assert jnp.asarray(1).dtype == np.int64 and jnp.asarray(1.0).dtype == np.float64
    assert (jnp.ones(2, jnp.int32) / 2).dtype == np.float32
    assert jnp.arange(3).dtype == np.int64 and jnp.argmax(jnp.ones(3)).dtype == np.int64


def test_explicit_64_bit_dtype_warns_in_x32():
    with pytest.warns(UserWarning, match="Explicitly requested dtype float64 requested in zeros"):
        z = jnp.zeros(2, jnp.float64)
    assert z.dtype == np.float32


def test_scalar_types_are_dtypes_and_constructors():
    assert np.dtype(jnp.float32) == np.float32 and np.dtype(jnp.bfloat16) == BF16
    x = jnp.float32(1)
    assert x.dtype == np.float32 and not x.weak_type and x.shape == ()
    assert jnp.int8([1, 2]).dtype == np.int8
    assert jnp.issubdtype(jnp.bfloat16, jnp.floating)
    assert jnp.issubdtype(jnp.int8, jnp.signedinteger)
    assert jnp.result_type(jnp.int8, 1.0) == np.float32
    assert jnp.promote_types(jnp.int8, jnp.uint8) == np.int16
    assert jnp.finfo(jnp.bfloat16).bits == 16 and jnp.iinfo(jnp.int8).max == 127
    assert isinstance(jnp.arange(3), jnp.ndarray)
    assert jnp.float32 == np.float32 and hash(jnp.float32) == hash(np.float32)
