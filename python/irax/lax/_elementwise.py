"""``irax.lax`` elementwise operations: one dtype, no implicit promotion.

As in JAX, operands must share one dtype (``irax.numpy`` promotes first) and one rank; size-1
dimensions and rank-0 operands broadcast. A Python scalar takes the dtype of the array operand
when weak promotion would keep that dtype (``lax.add(int8_array, 1)`` is int8), else its
default dtype (``lax.add(int32_array, 1.5)`` is a dtype error).

    lax.add(x, y)                                  # "irax.add"
    lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN)
    lax.integer_pow(x, 3)                          # (x * x) * x
"""

from __future__ import annotations

import enum

import numpy as np

from irax.core import dtypes
from irax.dialect import elementwise as E
from irax.frontend.trace import bind
from irax.lax import _util as U

# Kind names as JAX's messages spell them.
INT, FLOAT, COMPLEX, BOOL, SINT = "integer", "floating", "complexfloating", "bool", "signedinteger"
NUM = (INT, FLOAT, COMPLEX)
INEXACT = (FLOAT, COMPLEX)
INT_BOOL = (INT, BOOL)
ORDERED = (INT, FLOAT, BOOL)

_KIND_TEST = {
    INT: dtypes.is_int, FLOAT: dtypes.is_float, COMPLEX: dtypes.is_complex,
    BOOL: dtypes.is_bool, SINT: dtypes.is_signed,
}


def accepts(dtype, kinds) -> bool:
    return any(_KIND_TEST[k](dtype) for k in kinds)


def check_kind(name: str, dtype, kinds, position=None) -> None:
    if accepts(dtype, kinds):
        return
    dt, ks = dtypes.short_name(dtype), ", ".join(kinds)
    if position is None:
        raise TypeError(f"{name} does not accept dtype {dt}. Accepted dtypes are subtypes of "
                        f"{ks}.")
    raise TypeError(f"{name} does not accept dtype {dt} at position {position}. Accepted dtypes "
                    f"at position {position} are subtypes of {ks}.")


def resolve_scalars(args):
    """Python scalars take the dtype of the first array operand when weak promotion keeps it."""
    ref = next((U.aval_of(a) for a in args if not U.is_python_scalar(a)), None)
    out = []
    for a in args:
        if not U.is_python_scalar(a):
            out.append(a)
        elif ref is not None and dtypes.result_type(ref.dtype, a) == ref.dtype:
            out.append(U.convert(a, ref.dtype, weak=True))
        else:
            out.append(U.as_operand(a))
    return out


def broadcast_shape(name: str, shapes) -> tuple:
    """lax's broadcasting: equal ranks (rank 0 excepted), each dimension equal or 1."""
    ranked = [tuple(s) for s in shapes if len(s)]
    if not ranked:
        return ()
    if len({len(s) for s in ranked}) != 1:
        raise TypeError(f"{name}: arrays must have the same number of dimensions, got "
                        f"{set(len(s) for s in ranked)}")
    out = []
    for dims in zip(*ranked):
        sizes = set(dims) - {1}
        if len(sizes) > 1:
            raise TypeError(f"{name} got incompatible shapes for broadcasting: "
                            f"{', '.join(map(str, ranked))}.")
        out.append(sizes.pop() if sizes else 1)
    return tuple(out)


def prepare(name, args, kinds, tip=None, same_dtype=True):
    """Checks lax operands and broadcasts them to one shape; returns the bind operands."""
    args = resolve_scalars(args)
    avals = [U.aval_of(a) for a in args]
    for i, a in enumerate(avals):
        check_kind(name, a.dtype, kinds, i if len(avals) > 1 else None)
    if same_dtype and len({a.dtype for a in avals}) > 1:
        names = ", ".join(dtypes.short_name(a.dtype) for a in avals)
        hint = (f" (Tip: jnp.{tip} is a similar function that does automatic type promotion on "
                "inputs)." if tip else "")
        raise TypeError(f"lax.{name} requires arguments to have the same dtypes, got {names}."
                        + hint)
    shape = broadcast_shape(name, [a.shape for a in avals])
    return [_expand(x, a, shape) for x, a in zip(args, avals)]


def _expand(x, aval, shape):
    if aval.shape == shape:
        return x
    if aval.ndim == 0:
        return U.broadcast_to(x, shape)
    return U.broadcast_in_dim(x, shape, tuple(range(len(shape))))


def _unary_fn(name, op, kinds, doc=None):
    def fn(x):
        (x,) = prepare(name, [x], kinds)
        return bind(op, x)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc or f"Elementwise ``{name}`` (``jax.lax.{name}``)."
    return fn


def _binary_fn(name, op, kinds, tip=None):
    def fn(x, y):
        x, y = prepare(name, [x, y], kinds, tip)
        return bind(op, x, y)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Elementwise ``{name}`` of two arrays of one dtype (``jax.lax.{name}``)."
    return fn


neg = _unary_fn("neg", E.Neg, NUM)
sign = _unary_fn("sign", E.Sign, NUM)
floor = _unary_fn("floor", E.Floor, (FLOAT,))
ceil = _unary_fn("ceil", E.Ceil, (FLOAT,))
exp = _unary_fn("exp", E.Exp, INEXACT)
expm1 = _unary_fn("expm1", E.Expm1, INEXACT)
log = _unary_fn("log", E.Log, INEXACT)
log1p = _unary_fn("log1p", E.Log1p, INEXACT)
sin = _unary_fn("sin", E.Sin, INEXACT)
cos = _unary_fn("cos", E.Cos, INEXACT)
tan = _unary_fn("tan", E.Tan, INEXACT)
tanh = _unary_fn("tanh", E.Tanh, INEXACT)
sqrt = _unary_fn("sqrt", E.Sqrt, INEXACT)
rsqrt = _unary_fn("rsqrt", E.Rsqrt, INEXACT)
cbrt = _unary_fn("cbrt", E.Cbrt, (FLOAT,))
logistic = _unary_fn("logistic", E.Logistic, INEXACT)
bitwise_not = _unary_fn("not", E.Not, INT_BOOL)
is_finite = _unary_fn("is_finite", E.IsFinite, (FLOAT,))
abs = _unary_fn("abs", E.Abs, (FLOAT, COMPLEX, SINT))  # noqa: A001
real = _unary_fn("real", E.Real, (COMPLEX,))
imag = _unary_fn("imag", E.Imag, (COMPLEX,))

add = _binary_fn("add", E.Add, NUM, "add")
sub = _binary_fn("sub", E.Sub, NUM, "subtract")
mul = _binary_fn("mul", E.Mul, NUM, "multiply")
div = _binary_fn("div", E.Div, NUM, "divide")
rem = _binary_fn("rem", E.Rem, (INT, FLOAT))
pow = _binary_fn("pow", E.Pow, INEXACT)  # noqa: A001
max = _binary_fn("max", E.Max, NUM + (BOOL,), "maximum")  # noqa: A001
min = _binary_fn("min", E.Min, NUM + (BOOL,), "minimum")  # noqa: A001
atan2 = _binary_fn("atan2", E.Atan2, (FLOAT,))
bitwise_and = _binary_fn("and", E.And, INT_BOOL, "bitwise_and")
bitwise_or = _binary_fn("or", E.Or, INT_BOOL, "bitwise_or")
bitwise_xor = _binary_fn("xor", E.Xor, INT_BOOL, "bitwise_xor")
shift_left = _binary_fn("shift_left", E.ShiftLeft, (INT,), "left_shift")
shift_right_arithmetic = _binary_fn("shift_right_arithmetic", E.ShiftRightArithmetic, (INT,))
shift_right_logical = _binary_fn("shift_right_logical", E.ShiftRightLogical, (INT,))
complex = _binary_fn("complex", E.Complex, (FLOAT,))  # noqa: A001


def _compare_fn(name, direction, tip=None):
    kinds = NUM + (BOOL,) if direction in ("EQ", "NE") else ORDERED

    def fn(x, y):
        x, y = prepare(name, [x, y], kinds, tip)
        return bind(E.Compare, x, y, direction=direction)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Elementwise ``x {direction} y`` as bool (``jax.lax.{name}``)."
    return fn


eq = _compare_fn("eq", "EQ", "equal")
ne = _compare_fn("ne", "NE", "not_equal")
lt = _compare_fn("lt", "LT")
le = _compare_fn("le", "LE")
gt = _compare_fn("gt", "GT")
ge = _compare_fn("ge", "GE")


class RoundingMethod(enum.IntEnum):
    """How ``lax.round`` breaks ties."""

    AWAY_FROM_ZERO = 0
    TO_NEAREST_EVEN = 1


def round(x, rounding_method=RoundingMethod.AWAY_FROM_ZERO):  # noqa: A001
    """Rounds to the nearest integer; ties away from zero unless ``TO_NEAREST_EVEN``."""
    (x,) = prepare("round", [x], (FLOAT,))
    method = RoundingMethod(int(rounding_method))
    return bind(E.RoundEven if method == RoundingMethod.TO_NEAREST_EVEN else E.RoundAfz, x)


def conj(x):
    """Complex conjugate; a real operand becomes complex (``jax.lax.conj``)."""
    (x,) = prepare("conj", [x], (FLOAT, COMPLEX))
    return conj_raw(x)


def conj_raw(x):
    a = U.aval_of(x)
    if not dtypes.is_complex(a.dtype):
        x = U.convert(x, dtypes.to_complex_dtype(a.dtype), a.weak_type)
    return bind(E.Complex, bind(E.Real, x), bind(E.Neg, bind(E.Imag, x)))


def exp2(x):
    """``2 ** x`` as ``exp(x * log(2))``."""
    (x,) = prepare("exp2", [x], INEXACT)
    return bind(E.Exp, bind(E.Mul, x, U.full_like(x, np.log(2))))


def square(x):
    (x,) = prepare("square", [x], NUM)
    return bind(E.Mul, x, x)


def integer_pow(x, y: int):
    """``x ** y`` for a static integer ``y`` by square-and-multiply, in ``x``'s dtype."""
    (x,) = prepare("integer_pow", [x], NUM)
    return integer_pow_raw(x, y)


def integer_pow_raw(x, y: int):
    a = U.aval_of(x)
    if y < 0 and dtypes.is_int(a.dtype):
        raise TypeError(f"Integers cannot be raised to negative powers, got "
                        f"integer_pow({a.str_short()}, {y})")
    if y == 0:
        return U.full_like(x, 1, weak=a.weak_type)
    n, acc = -y if y < 0 else y, None
    while n > 0:
        if n & 1:
            acc = x if acc is None else bind(E.Mul, acc, x)
        n >>= 1
        if n > 0:
            x = bind(E.Mul, x, x)
    return bind(E.Div, U.full_like(acc, 1), acc) if y < 0 else acc


def select(pred, on_true, on_false):
    """``pred ? on_true : on_false`` elementwise; ``pred`` is bool, rank 0 or the cases' shape."""
    on_true, on_false = resolve_scalars([on_true, on_false])
    t, f = U.aval_of(on_true), U.aval_of(on_false)
    if t.shape != f.shape:
        raise TypeError(f"select cases must have the same shapes, got [{t.shape}, {f.shape}].")
    if t.dtype != f.dtype:
        raise TypeError(f"lax.select requires arguments to have the same dtypes, got "
                        f"{dtypes.short_name(t.dtype)}, {dtypes.short_name(f.dtype)}.")
    p = U.aval_of(pred)
    if p.dtype != np.bool_:
        raise TypeError(f"select `which` must be boolean type, got {dtypes.short_name(p.dtype)}.")
    if p.shape not in ((), t.shape):
        raise TypeError(f"select `which` must be scalar or have the same shape as cases, got "
                        f"`which` shape {p.shape} but case shape {t.shape}.")
    return bind(E.Select, U.as_operand(pred), on_true, on_false)


def clamp(min, x, max):  # noqa: A002
    """``min(max(x, min), max)`` with ``min``/``max`` rank 0 or of ``x``'s shape."""
    lo, x, hi = resolve_scalars([min, x, max])
    xa = U.aval_of(x)
    for bound in (lo, hi):
        b = U.aval_of(bound)
        if b.shape not in ((), xa.shape):
            raise TypeError(f"clamp requires min.shape == operand.shape or min.shape == (), "
                            f"got {b.shape}.")
        if b.dtype != xa.dtype:
            raise TypeError(f"lax.clamp requires arguments to have the same dtypes, got "
                            f"{dtypes.short_name(b.dtype)}, {dtypes.short_name(xa.dtype)}.")
    lo, hi = U.broadcast_to(lo, xa.shape), U.broadcast_to(hi, xa.shape)
    return bind(E.Min, bind(E.Max, x, lo), hi)


def convert_element_type(operand, new_dtype):
    """``operand`` as ``new_dtype`` (canonicalised); the result is strongly typed."""
    dt = dtypes.canonicalize_dtype(new_dtype)
    return U.convert(operand, dt, weak=False)
