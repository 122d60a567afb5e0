"""Elementwise functions composed from the primitive ops (real floating-point operands).

float16/bfloat16 operands compute in float32 and round back once, as XLA does on CPU. The
formulas are XLA's (``chlo`` decompositions), accurate to a few ulp:

    asin(x)  = 2 atan2(x, 1 + sqrt(1 - x^2))
    acos(x)  = 2 atan2(sqrt(1 - x^2), 1 + x)            (pi at x = -1)
    sinh(x)  = (expm1(x) - expm1(-x)) / 2 for |x| < 1, else e^(x - ln 2) - e^(-x - ln 2)
    asinh(x) = sign(x) log1p(|x| + x^2 / (1 + sqrt(1 + x^2)))   (ln 2 + ln|x| for huge |x|)
"""

from __future__ import annotations

import functools

import numpy as np

from irax.core import dtypes
from irax.dialect import elementwise as E
from irax.frontend.trace import bind
from irax.lax import _util as U

_LN2 = float(np.log(2.0))


def _c(x, v):
    return U.full_like(x, v)


def _add(x, y):
    return bind(E.Add, x, y)


def _sub(x, y):
    return bind(E.Sub, x, y)


def _mul(x, y):
    return bind(E.Mul, x, y)


def _div(x, y):
    return bind(E.Div, x, y)


def _cmp(x, y, d):
    return bind(E.Compare, x, y, direction=d)


def _where(p, x, y):
    return bind(E.Select, p, x, y)


def upcast(fn):
    """Runs ``fn`` in float32 for float16/bfloat16 operands and converts the result back."""

    @functools.wraps(fn)
    def wrapped(x, *rest):
        a = U.aval_of(x)
        if a.dtype not in (dtypes.float16, dtypes.bfloat16):
            return fn(x, *rest)
        up = [U.convert(v, dtypes.float32, a.weak_type) for v in (x, *rest)]
        return U.convert(fn(*up), a.dtype, a.weak_type)

    return wrapped


@upcast
def asin_raw(x):
    one = _c(x, 1.0)
    root = bind(E.Sqrt, _sub(one, _mul(x, x)))
    return _mul(_c(x, 2.0), bind(E.Atan2, x, _add(one, root)))


@upcast
def acos_raw(x):
    one = _c(x, 1.0)
    root = bind(E.Sqrt, _sub(one, _mul(x, x)))
    r = _mul(_c(x, 2.0), bind(E.Atan2, root, _add(one, x)))
    return _where(_cmp(x, _c(x, -1.0), "EQ"), _c(x, np.pi), r)


def atan_raw(x):
    return bind(E.Atan2, x, _c(x, 1.0))


@upcast
def sinh_raw(x):
    small = _cmp(bind(E.Abs, x), _c(x, 1.0), "LT")
    s = _mul(_c(x, 0.5), _sub(bind(E.Expm1, x), bind(E.Expm1, bind(E.Neg, x))))
    ln_half = _c(x, -_LN2)
    big = _sub(bind(E.Exp, _add(x, ln_half)), bind(E.Exp, _add(bind(E.Neg, x), ln_half)))
    return _where(small, s, big)


@upcast
def cosh_raw(x):
    ln_half = _c(x, -_LN2)
    return _add(bind(E.Exp, _add(x, ln_half)), bind(E.Exp, _add(bind(E.Neg, x), ln_half)))


def _huge(x):
    return _c(x, float(np.sqrt(dtypes.finfo(U.aval_of(x).dtype).max)))


@upcast
def asinh_raw(x):
    a = bind(E.Abs, x)
    one = _c(x, 1.0)
    a2 = _mul(a, a)
    moderate = bind(E.Log1p, _add(a, _div(a2, _add(one, bind(E.Sqrt, _add(one, a2))))))
    large = _add(bind(E.Log, a), _c(x, _LN2))
    r = _where(_cmp(a, _huge(x), "GE"), large, moderate)
    return _mul(bind(E.Sign, x), r)


@upcast
def acosh_raw(x):
    one = _c(x, 1.0)
    root = _mul(bind(E.Sqrt, _add(x, one)), bind(E.Sqrt, _sub(x, one)))
    moderate = bind(E.Log, _add(x, root))
    large = _add(bind(E.Log, x), _c(x, _LN2))
    return _where(_cmp(x, _huge(x), "GE"), large, moderate)


@upcast
def atanh_raw(x):
    one = _c(x, 1.0)
    r = _mul(_c(x, 0.5), bind(E.Log1p, _div(_mul(_c(x, 2.0), x), _sub(one, x))))
    return _where(_cmp(bind(E.Abs, x), one, "GT"), _c(x, np.nan), r)
