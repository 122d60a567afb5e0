"""Arithmetic ufuncs: promotion, broadcasting and JAX's integer/float semantics.

    add, subtract, multiply (bool: or / and), true_divide (inexact promotion),
    floor_divide, remainder, divmod, fmod (XLA's x/0 = -1 made Pythonic, notes 2.6),
    power (static int exponent -> integer_pow; int ** int array -> 6-step binary powering),
    negative, positive, abs, sign, floor, ceil, trunc, rint, round, square, reciprocal
"""

from __future__ import annotations

import operator

import numpy as np

from irax.core import dtypes
from irax.dialect import elementwise as E
from irax.frontend.trace import bind
from irax.frontend.tracer import Tracer
from irax.lax._elementwise import check_kind, integer_pow_raw
from irax.numpy import _util as U
from irax.numpy._fast import either, fast_binary
from irax.numpy._util import cmp, const, select


def _is(kind, x) -> bool:
    dt = U.aval_of(x).dtype
    return {"int": dtypes.is_int, "uint": dtypes.is_unsigned, "sint": dtypes.is_signed,
            "bool": dtypes.is_bool, "complex": dtypes.is_complex, "float": dtypes.is_float,
            }[kind](dt)


def _fast(op_cls, x, y):
    """The eager fast path (``_fast.fast_binary``) of ``x (op) y``, or None."""
    return either(fast_binary, op_cls, x, y)


def add(x, y, /):
    """``x + y``; bool operands give ``x or y``."""
    out = _fast(E.Add, x, y)
    if out is not None:
        return out
    x, y = U.promote_args("add", x, y)
    return bind(E.Or if _is("bool", x) else E.Add, x, y)


def subtract(x, y, /):
    out = _fast(E.Sub, x, y)
    if out is not None:
        return out
    x, y = U.promote_args("subtract", x, y)
    check_kind("sub", U.aval_of(x).dtype, ("integer", "floating", "complexfloating"), 0)
    return bind(E.Sub, x, y)


def multiply(x, y, /):
    """``x * y``; bool operands give ``x and y``."""
    out = _fast(E.Mul, x, y)
    if out is not None:
        return out
    x, y = U.promote_args("multiply", x, y)
    return bind(E.And if _is("bool", x) else E.Mul, x, y)


def true_divide(x, y, /):
    """``x / y`` in the inexact promotion of the operands (int32 / int32 is float32)."""
    out = _fast(E.Div, x, y)
    if out is not None:
        return out
    x, y = U.promote_args_inexact("true_divide", x, y)
    return bind(E.Div, x, y)


divide = true_divide


def _float_divmod(x, y):
    """Python's float ``divmod``: the remainder has the divisor's sign."""
    mod = bind(E.Rem, x, y)
    corrected = select(cmp(y, const(y, 0), "EQ"), x, bind(E.Sub, x, mod))
    div = bind(E.Div, corrected, y)
    ind = bind(E.And, cmp(mod, const(mod, 0), "NE"),
               cmp(bind(E.Sign, y), bind(E.Sign, mod), "NE"))
    mod = select(ind, bind(E.Add, mod, y), mod)
    div = select(ind, bind(E.Sub, div, const(div, 1)), div)
    return bind(E.RoundAfz, div), mod


def _check_not_complex(name, x, message=None):
    if _is("complex", x):
        raise TypeError(message or f"{name} does not support complex-valued inputs")


def floor_divide(x, y, /):
    """``x // y``. Integer ``x // 0`` follows XLA (-1 quotient): -2 for x != 0, -1 for 0."""
    x, y = U.promote_args_numeric("floor_divide", x, y)
    if _is("uint", x):
        return bind(E.Div, x, y)
    if _is("sint", x):
        q = bind(E.Div, x, y)
        fix = bind(E.And, cmp(bind(E.Sign, x), bind(E.Sign, y), "NE"),
                   cmp(bind(E.Rem, x, y), const(x, 0), "NE"))
        return select(fix, bind(E.Sub, q, const(q, 1)), q)
    _check_not_complex("floor_divide", x)
    return _float_divmod(x, y)[0]


def _rem_message(x):
    return (f"rem does not accept dtype {dtypes.short_name(U.aval_of(x).dtype)} at position 0. "
            "Accepted dtypes at position 0 are subtypes of integer, floating.")


def remainder(x, y, /):
    """``x % y`` with the divisor's sign (Python's); integer ``x % 0`` is 0."""
    x, y = U.promote_args_numeric("remainder", x, y)
    _check_not_complex("remainder", x, _rem_message(x))
    zero = const(x, 0)
    if _is("int", y):
        y = select(cmp(y, zero, "EQ"), const(y, 1), y)
    m = bind(E.Rem, x, y)
    plus = bind(E.And, cmp(cmp(m, zero, "LT"), cmp(y, zero, "LT"), "NE"), cmp(m, zero, "NE"))
    return select(plus, bind(E.Add, m, y), m)


mod = remainder


def fmod(x, y, /):
    """C's ``fmod``: the remainder has the dividend's sign; integer ``x fmod 0`` is 0."""
    U.check_arraylike("fmod", x, y)
    int_result = dtypes.is_int(dtypes.result_type(x, y))
    x, y = U.promote_args_numeric("fmod", x, y)
    _check_not_complex("fmod", x, _rem_message(x))
    if int_result:
        y = select(cmp(y, const(y, 0), "EQ"), const(y, 1), y)
    return bind(E.Rem, x, y)


def divmod(x, y, /):  # noqa: A001
    """``(x // y, x % y)``."""
    if _is("int", U.promote_dtypes_numeric(x, y)[0]):
        return floor_divide(x, y), remainder(x, y)
    x, y = U.promote_args_numeric("divmod", x, y)
    _check_not_complex("divmod", x)
    return _float_divmod(x, y)


def _static_int(x):
    if isinstance(x, Tracer) or U.aval_of(x).ndim:
        return None
    try:
        return operator.index(x)
    except TypeError:
        return None


def power(x, y, /):
    """``x ** y``. A concrete integer exponent uses square-and-multiply in ``x``'s dtype."""
    U.check_arraylike("power", x, y)
    n = _static_int(y)
    if n is not None:
        (x,) = U.promote_dtypes_numeric(x)
        return integer_pow_raw(x, n)
    xa, ya = U.aval_of(x), U.aval_of(y)
    xp, yp = U.promote_args_numeric("power", x, y)
    if _is("int", xp):
        return _pow_int_int(xp, yp)
    if dtypes.is_inexact(xa.dtype) and dtypes.is_int(ya.dtype):
        # float/complex base, integer exponent: the base's dtype, no promotion
        x = U.convert(x, xa.dtype, xa.weak_type)
        y = U.convert(y, xa.dtype, ya.weak_type)
        x, y = U.broadcast_all("power", [x, y])
        return bind(E.Pow, x, y)
    x, y = U.promote_args_inexact("power", x, y)
    return bind(E.Pow, x, y)


def _pow_int_int(x, y):
    """Binary exponentiation over the low 6 bits of ``y`` (anything larger overflows)."""
    zero, one = U.full_like(y, 0, weak=False), U.full_like(y, 1, weak=False)
    acc = select(bind(E.And, cmp(x, zero, "EQ"), cmp(y, zero, "NE")), zero, one)
    for _ in range(6):
        bit = cmp(bind(E.And, y, one), zero, "NE")
        acc = select(bit, bind(E.Mul, acc, x), acc)
        x = bind(E.Mul, x, x)
        y = bind(E.ShiftRightLogical, y, one)
    return acc


def negative(x, /):
    (x,) = U.promote_args("negative", x)
    check_kind("neg", U.aval_of(x).dtype, ("integer", "floating", "complexfloating"))
    return bind(E.Neg, x)


def positive(x, /):
    return U.as_array("positive", x)


def absolute(x, /):
    """``|x|``; complex operands give their real magnitude; unsigned and bool are unchanged."""
    x = U.as_array("absolute", x)
    if _is("uint", x) or _is("bool", x):
        return x
    return bind(E.Abs, x)


abs = absolute  # noqa: A001


def sign(x, /):
    x = U.as_array("sign", x)
    check_kind("sign", U.aval_of(x).dtype, ("integer", "floating", "complexfloating"))
    return bind(E.Sign, x)


def _rounding(name, op):
    def fn(x, /):
        x = U.as_array(name, x)
        if _is("int", x) or _is("bool", x):
            return x
        check_kind(name, U.aval_of(x).dtype, ("floating",))
        return bind(op, x)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Elementwise {name}; integer and bool operands are returned unchanged."
    return fn


floor = _rounding("floor", E.Floor)
ceil = _rounding("ceil", E.Ceil)


def trunc(x, /):
    """Rounds toward zero; integer and bool operands are returned unchanged."""
    x = U.as_array("trunc", x)
    if _is("int", x) or _is("bool", x):
        return x
    check_kind("lt", U.aval_of(x).dtype, ("integer", "floating", "bool"), 0)
    return select(cmp(x, const(x, 0), "LT"), bind(E.Ceil, x), bind(E.Floor, x))


fix = trunc


def _round_complex(x, fn):
    if not _is("complex", x):
        return fn(x)
    return bind(E.Complex, fn(bind(E.Real, x)), fn(bind(E.Imag, x)))


def rint(x, /):
    """Rounds half to even, in the inexact promotion of ``x``."""
    (x,) = U.promote_args_inexact("rint", x)
    return _round_complex(x, lambda v: bind(E.RoundEven, v))


def round(a, decimals: int = 0, out=None):  # noqa: A001
    """Rounds half to even at ``decimals`` digits: ``round_even(a * 10**d) / 10**d``."""
    if out is not None:
        raise NotImplementedError("The 'out' argument to irax.numpy.round is not supported.")
    a = U.as_array("round", a)
    decimals = operator.index(decimals)
    if _is("int", a):
        if decimals < 0:
            raise NotImplementedError("integer np.round not implemented for decimals < 0")
        return a
    if _is("bool", a):
        raise ValueError("data type <class 'numpy.bool'> not inexact")

    def round_float(x):
        if decimals == 0:
            return bind(E.RoundEven, x)
        xa = U.aval_of(x)
        up = xa.dtype == np.float16
        if up:
            x = U.convert(x, np.float32, xa.weak_type)
        factor = const(x, 10.0 ** decimals)
        r = bind(E.Div, bind(E.RoundEven, bind(E.Mul, x, factor)), factor)
        return U.convert(r, xa.dtype, xa.weak_type) if up else r

    return _round_complex(a, round_float)


around = round


def square(x, /):
    (x,) = U.promote_args_numeric("square", x)
    return bind(E.Mul, x, x)


def reciprocal(x, /):
    (x,) = U.promote_args_inexact("reciprocal", x)
    return bind(E.Div, const(x, 1), x)
