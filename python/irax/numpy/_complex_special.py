"""JAX's values of complex acos, acosh, asinh, atanh, sinh, cosh and expm1 at special points.

``irax.lax``'s complex formulas give NaN where an infinite part meets an ``inf - inf`` or
``0 * inf`` inside them, and keep the sign of a zero imaginary part where XLA (so JAX)
returns ``+0``; these wrappers select JAX's results there and leave every other point to
the formula:

- acos, acosh, asinh, atanh: where a part is infinite (C99 Annex G's values, as JAX gives
  them; a ``-0`` imaginary part counts as ``+0``, as in XLA's algorithms);
- sinh, cosh, expm1: where the imaginary part is zero (either sign), the result is the real
  function of the real part plus ``+0j``.
"""

from __future__ import annotations

import numpy as np

from irax.dialect import elementwise as E
from irax.frontend.trace import bind
from irax.numpy._util import cmp, const, select


def _parts(z):
    return bind(E.Real, z), bind(E.Imag, z)


def _isinf(v):
    return cmp(bind(E.Abs, v), const(v, np.inf), "EQ")


def _isnan(v):
    return cmp(v, v, "NE")


def _negative(v):
    """``v < 0`` (False for ``-0`` and NaN, as XLA's sign tests)."""
    return cmp(v, const(v, 0), "LT")


def _any_inf(x, y):
    return bind(E.Or, _isinf(x), _isinf(y))


def _angle_of_infinite(x, y):
    """``atan2(Y, x)`` with ``Y = |y|`` for infinite ``y``, NaN for NaN ``y``, else 0: the
    angle of the point at infinity that ``x + iy`` (with an infinite part) stands for,
    measured in the upper half-plane."""
    big = select(_isinf(y), bind(E.Abs, y), select(_isnan(y), y, const(y, 0)))
    return bind(E.Atan2, big, x)


def _fix_acos(z, r):
    x, y = _parts(z)
    inf = const(y, np.inf)
    special = bind(E.Complex, _angle_of_infinite(x, y),
                   select(_negative(y), inf, bind(E.Neg, inf)))
    return select(_any_inf(x, y), special, r)


def _fix_acosh(z, r):
    x, y = _parts(z)
    angle = _angle_of_infinite(x, y)
    special = bind(E.Complex, const(x, np.inf), select(_negative(y), bind(E.Neg, angle), angle))
    return select(_any_inf(x, y), special, r)


def _copysign(mag, sign):
    """``|mag|`` with the sign bit of ``sign`` (``-0`` included)."""
    neg = bind(E.Or, _negative(sign),
               bind(E.And, cmp(sign, const(sign, 0), "EQ"),
                    _negative(bind(E.Div, const(sign, 1), sign))))
    m = bind(E.Abs, mag)
    return select(neg, bind(E.Neg, m), m)


def _fix_asinh(z, r):
    x, y = _parts(z)
    inf = const(x, np.inf)
    re = select(_negative(x), bind(E.Neg, inf), inf)
    angle = _angle_of_infinite(bind(E.Abs, x), y)
    special = bind(E.Complex, re, select(_isnan(angle), angle, _copysign(angle, y)))
    return select(_any_inf(x, y), special, r)


def _fix_atanh(z, r):
    x, y = _parts(z)
    zero = const(x, 0)
    half_pi = const(y, np.pi / 2)
    # -0 for a negative or NaN real part (JAX's), +0 otherwise
    neg = bind(E.Or, _negative(x), _isnan(x))
    special = bind(E.Complex, select(neg, bind(E.Neg, zero), zero),
                   select(_negative(y), bind(E.Neg, half_pi), half_pi))
    return select(bind(E.And, _any_inf(x, y), bind(E.Not, _isnan(y))), special, r)


def real_axis_fix(real_fn):
    """``fix(z, r)``: ``real_fn(Re z) + 0j`` where ``Im z`` is zero (either sign), a ``-0``
    real part made ``+0`` (sinh, cosh, expm1: XLA's formulas give ``+0`` there)."""
    def fix(z, r):
        x, y = _parts(z)
        re = bind(E.Add, real_fn(x), const(x, 0.0))
        return select(cmp(y, const(y, 0), "EQ"), bind(E.Complex, re, const(y, 0)), r)

    return fix


#: lax name -> ``fix(z, r)``: JAX's value of the function at ``z`` given the formula's ``r``
FIXES = {"acos": _fix_acos, "acosh": _fix_acosh, "asinh": _fix_asinh, "atanh": _fix_atanh}
