"""Comparisons, logical and bitwise ufuncs, selection (where, select, clip), isclose.

    where(c, x, y)       # x and y promote together; c, x, y broadcast together
    where(c)             # nonzero(c): needs a concrete c
    clip(x, min=0, max=1)
"""

from __future__ import annotations

import numpy as np

from irax.core import dtypes
from irax.dialect import elementwise as E
from irax.frontend.trace import bind
from irax.lax._elementwise import check_kind
from irax.numpy import _util as U
from irax.numpy._fast import either, fast_binary, fast_compare, fast_select
from irax.numpy._math import isinf, isnan
from irax.numpy._util import cmp, select, to_bool


def _complex_compare(x, y, direction):
    """Lexicographic order of (real, imag) pairs."""
    xr, xi, yr, yi = bind(E.Real, x), bind(E.Imag, x), bind(E.Real, y), bind(E.Imag, y)
    strict = direction[0] + "T"
    tie = bind(E.And, cmp(xr, yr, "EQ"), cmp(xi, yi, direction))
    return bind(E.Or, cmp(xr, yr, strict), tie)


def _compare(name, direction):
    def fn(x, y, /):
        out = either(fast_compare, E.Compare, x, y, direction)    # the eager fast path
        if out is not None:
            return out
        x, y = U.promote_args(name, x, y)
        if direction not in ("EQ", "NE") and dtypes.is_complex(U.aval_of(x).dtype):
            return _complex_compare(x, y, direction)
        return cmp(x, y, direction)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Elementwise ``x {direction} y`` after promotion, as bool."
    return fn


equal = _compare("equal", "EQ")
not_equal = _compare("not_equal", "NE")
less = _compare("less", "LT")
less_equal = _compare("less_equal", "LE")
greater = _compare("greater", "GT")
greater_equal = _compare("greater_equal", "GE")


def _logical(name, op):
    def fn(x, y, /):
        x, y = U.promote_args(name, x, y)
        return bind(op, to_bool(x), to_bool(y))

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Elementwise logical {name[8:]} of the operands' truth values."
    return fn


logical_and = _logical("logical_and", E.And)
logical_or = _logical("logical_or", E.Or)
logical_xor = _logical("logical_xor", E.Xor)


def logical_not(x, /):
    (x,) = U.promote_args("logical_not", x)
    return bind(E.Not, to_bool(x))


def _bitwise(name, op, lax_name):
    def fn(x, y, /):
        x, y = U.promote_args(name, x, y)
        check_kind(lax_name, U.aval_of(x).dtype, ("integer", "bool"), 0)
        return bind(op, x, y)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Elementwise bitwise {lax_name} of integer or bool operands."
    return fn


bitwise_and = _bitwise("bitwise_and", E.And, "and")
bitwise_or = _bitwise("bitwise_or", E.Or, "or")
bitwise_xor = _bitwise("bitwise_xor", E.Xor, "xor")


def bitwise_not(x, /):
    (x,) = U.promote_args("bitwise_not", x)
    check_kind("not", U.aval_of(x).dtype, ("integer", "bool"))
    return bind(E.Not, x)


invert = bitwise_invert = bitwise_not


def _shift_args(name, x, y, lax_name):
    x, y = U.promote_args_numeric(name, x, y)
    check_kind(lax_name, U.aval_of(x).dtype, ("integer",), 0)
    return x, y


def left_shift(x, y, /):
    x, y = _shift_args("left_shift", x, y, "shift_left")
    return bind(E.ShiftLeft, x, y)


def right_shift(x, y, /):
    """Arithmetic shift for signed integers, logical for unsigned."""
    x, y = _shift_args("right_shift", x, y, "shift_right_arithmetic")
    op = E.ShiftRightLogical if dtypes.is_unsigned(U.aval_of(x).dtype) else E.ShiftRightArithmetic
    return bind(op, x, y)


bitwise_left_shift, bitwise_right_shift = left_shift, right_shift


def maximum(x, y, /):
    """Elementwise maximum; NaN propagates."""
    out = either(fast_binary, E.Max, x, y)
    if out is not None:
        return out
    x, y = U.promote_args("maximum", x, y)
    return bind(E.Max, x, y)


def minimum(x, y, /):
    """Elementwise minimum; NaN propagates."""
    out = either(fast_binary, E.Min, x, y)
    if out is not None:
        return out
    x, y = U.promote_args("minimum", x, y)
    return bind(E.Min, x, y)


def fmax(x1, x2, /):
    """Elementwise maximum ignoring NaN (a NaN is returned only where both are NaN)."""
    x1, x2 = U.promote_args("fmax", x1, x2)
    if not dtypes.is_inexact(U.aval_of(x1).dtype):
        return bind(E.Max, x1, x2)
    return select(bind(E.Or, greater(x1, x2), isnan(x2)), x1, x2)


def fmin(x1, x2, /):
    """Elementwise minimum ignoring NaN."""
    x1, x2 = U.promote_args("fmin", x1, x2)
    if not dtypes.is_inexact(U.aval_of(x1).dtype):
        return bind(E.Min, x1, x2)
    return select(bind(E.Or, less(x1, x2), isnan(x2)), x1, x2)


def where(condition, x=None, y=None, /, *, size=None, fill_value=None):
    """``condition ? x : y`` elementwise (the one-argument form is ``_indexing.where``)."""
    for i, v in enumerate((condition, x, y)):
        if v is None:
            raise TypeError(f"where requires ndarray or scalar arguments, got {type(v)} at "
                            f"position {i}.")
    if size is not None or fill_value is not None:
        raise ValueError("size and fill_value arguments cannot be used in three-term where "
                         "function.")
    out = fast_select(condition, x, y)        # the eager fast path
    if out is not None:
        return out
    U.check_arraylike("where", condition, x, y)
    c = to_bool(U.as_array("where", condition))
    x, y = U.promote_dtypes(x, y)
    c, x, y = U.broadcast_all("where", [c, x, y])
    return select(c, x, y)


def select_(condlist, choicelist, default=0):
    """The first choice whose condition holds, else ``default`` (``jnp.select``)."""
    if len(condlist) != len(choicelist):
        raise ValueError(f"condlist must have length equal to choicelist ({len(condlist)} vs "
                         f"{len(choicelist)})")
    if not condlist:
        raise ValueError("condlist must be non-empty")
    U.check_arraylike("select", *condlist, *choicelist, default)
    for c in condlist:
        if U.aval_of(c).dtype != np.bool_:
            raise ValueError(f"condlist must be boolean arrays, got {U.aval_of(c).str_short()}")
    choices = U.promote_dtypes(default, *choicelist)
    arrays = U.broadcast_all("select", list(condlist) + choices)
    conds, out, picks = arrays[:len(condlist)], arrays[len(condlist)], arrays[len(condlist) + 1:]
    for c, v in zip(reversed(conds), reversed(picks)):
        out = select(c, v, out)
    return out


select_.__name__ = select_.__qualname__ = "select"


def clip(arr=None, /, min=None, max=None):  # noqa: A002
    """``minimum(maximum(arr, min), max)``: ``max`` wins where ``min > max``; NaN propagates."""
    if arr is None:
        raise ValueError("No input was provided to the clip function.")
    U.check_arraylike("clip", arr)
    if dtypes.is_complex(U.aval_of(arr).dtype):
        raise ValueError("Clip received a complex value either through the input or the min/max "
                         "keywords. Complex values have no ordering and cannot be clipped.")
    out = U.as_array("clip", arr)
    if min is not None:
        out = maximum(min, out)
    if max is not None:
        out = minimum(max, out)
    return out


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan: bool = False):
    """``|a - b| <= atol + rtol * |b|``, with infinities equal only to themselves."""
    a, b = U.promote_args("isclose", a, b)
    if not dtypes.is_inexact(U.aval_of(a).dtype):
        return cmp(a, b, "EQ")
    a, b = U.promote_args_inexact("isclose", a, b)
    real = dtypes.real_dtype(U.aval_of(a).dtype)
    rtol = U.broadcast_to_like(U.convert(rtol, real), a)
    atol = U.broadcast_to_like(U.convert(atol, real), a)
    abs_b = bind(E.Abs, b)
    out = cmp(bind(E.Abs, bind(E.Sub, a, b)), bind(E.Add, atol, bind(E.Mul, rtol, abs_b)), "LE")
    a_inf, b_inf = isinf(a), isinf(b)
    out = bind(E.And, out, bind(E.Not, bind(E.Or, a_inf, b_inf)))
    same_inf = bind(E.And, bind(E.And, a_inf, b_inf), cmp(a, b, "EQ"))
    out = bind(E.Or, out, same_inf)
    a_nan, b_nan = isnan(a), isnan(b)
    out = bind(E.And, out, bind(E.Not, bind(E.Or, a_nan, b_nan)))
    if equal_nan:
        out = bind(E.Or, out, bind(E.And, a_nan, b_nan))
    return out
