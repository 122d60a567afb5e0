"""``irax.lax``'s asin, acos, atan, sinh, cosh, asinh, acosh and atanh: ``_math``'s real
formulas, and for complex operands the complex functions here.

The complex hyperbolic and inverse trigonometric functions, from complex ``log``,
``log1p``, ``sqrt`` and the real functions of ``_math`` (principal branches, NumPy's and
JAX's branch cuts):

    sinh(a + ib)  = sinh a cos b + i cosh a sin b
    cosh(a + ib)  = cosh a cos b + i sinh a sin b
    asin, acos, acosh, atanh: Kahan's formulas ("Branch cuts for complex elementary
    functions", 1987), whose square roots of 1 - z and 1 + z each keep their own branch
    cut, so that the signed zeros of the cuts pick the side as NumPy and JAX do
    asinh(z)      = -i asin(i z)          atan(z) = -i atanh(i z)
"""

from __future__ import annotations

import numpy as np

from irax.core import dtypes
from irax.dialect import elementwise as E
from irax.frontend.trace import bind
from irax.lax import _math as M
from irax.lax import _util as U
from irax.lax._elementwise import COMPLEX, FLOAT, prepare


def _parts(z):
    return bind(E.Real, z), bind(E.Imag, z)


def _complex(re, im):
    return bind(E.Complex, re, im)


def _c(z, value):
    return U.full_like(z, value)


def _times_i(z):            # i z
    re, im = _parts(z)
    return _complex(bind(E.Neg, im), re)


def _times_minus_i(z):      # -i z
    re, im = _parts(z)
    return _complex(im, bind(E.Neg, re))


def complex_sinh(z):
    a, b = _parts(z)
    return _complex(M._mul(M.sinh_raw(a), bind(E.Cos, b)), M._mul(M.cosh_raw(a), bind(E.Sin, b)))


def complex_cosh(z):
    a, b = _parts(z)
    return _complex(M._mul(M.cosh_raw(a), bind(E.Cos, b)), M._mul(M.sinh_raw(a), bind(E.Sin, b)))


def _negative(v):
    """``v``'s sign bit, ``-0.`` included (``1 / v < 0``); False for NaN."""
    return M._cmp(M._div(U.full_like(v, 1.0), v), U.full_like(v, 0.0), "LT")


def _conj(z):
    re, im = _parts(z)
    return _complex(re, bind(E.Neg, im))


def _upper_roots(a, b):
    """``sqrt(1 - z)`` and ``sqrt(1 + z)`` for ``z = a + ib`` with ``a, b >= 0``: the first
    as ``conj(sqrt((1 - a) + ib))`` (on the cut ``1 - z`` is ``(1 - a) - 0j``, whose root
    is ``-i sqrt(a - 1)``; IREE's complex sqrt ignores the sign of a zero imaginary part,
    so only roots of upper half-plane values are taken)."""
    one = U.full_like(a, 1.0)
    s = _conj(bind(E.Sqrt, _complex(M._sub(one, a), b)))
    return s, bind(E.Sqrt, _complex(M._add(one, a), b))


def _quadrant(z):
    x, y = _parts(z)
    return bind(E.Abs, x), bind(E.Abs, y), _negative(x), _negative(y)


def _signed(v, negative):
    return M._where(negative, bind(E.Neg, v), v)


def complex_asin(z):
    """Kahan's formula in the first quadrant, ``s = sqrt(1 - z)``, ``t = sqrt(1 + z)``:
    asin z = atan2(Re z, Re(s t)) + i asinh(Im(conj(s) t)); asin is odd and
    ``asin(conj z) = conj(asin z)``, which puts both signs back (C99's branch cuts)."""
    a, b, x_neg, y_neg = _quadrant(z)
    s, t = _upper_roots(a, b)
    st_re, _ = _parts(M._mul(s, t))
    _, im = _parts(M._mul(_conj(s), t))
    return _complex(_signed(bind(E.Atan2, a, st_re), x_neg), _signed(M.asinh_raw(im), y_neg))


def _acos_parts(z):
    """``acos`` of ``z`` as (re, im): Kahan's 2 atan2(Re s, Re t) + i asinh(Im(conj(t) s))
    in the first quadrant, then ``acos(-conj w) = pi - conj(acos w)`` and
    ``acos(conj z) = conj(acos z)``."""
    a, b, x_neg, y_neg = _quadrant(z)
    s, t = _upper_roots(a, b)
    (s_re, _), (t_re, _) = _parts(s), _parts(t)
    _, im = _parts(M._mul(_conj(t), s))
    re = M._mul(U.full_like(s_re, 2.0), bind(E.Atan2, s_re, t_re))
    re = M._where(x_neg, M._sub(U.full_like(re, np.pi), re), re)
    return re, _signed(M.asinh_raw(im), y_neg)


def complex_acos(z):
    return _complex(*_acos_parts(z))


def complex_asinh(z):
    return _times_minus_i(complex_asin(_times_i(z)))


def complex_acosh(z):
    """``i acos(z)`` on the upper half-plane (its real part is then >= 0), conjugated
    below it: acosh(conj z) = conj(acosh z)."""
    x, y = _parts(z)
    re, im = _acos_parts(_complex(x, bind(E.Abs, y)))
    return _complex(bind(E.Neg, im), _signed(re, _negative(y)))


def complex_atanh(z):
    """Kahan's: atanh(x + iy) = log1p(4x / ((1 - x)^2 + y^2)) / 4
    + i atan2(2y, (1 - x)(1 + x) - y^2) / 2."""
    x, y = _parts(z)
    one = U.full_like(x, 1.0)
    omx = M._sub(one, x)
    den = M._add(M._mul(omx, omx), M._mul(y, y))
    re = M._mul(U.full_like(x, 0.25), bind(E.Log1p, M._div(M._mul(U.full_like(x, 4.0), x), den)))
    im = bind(E.Atan2, M._mul(U.full_like(y, 2.0), y),
              M._sub(M._mul(omx, M._add(one, x)), M._mul(y, y)))
    return _complex(re, M._mul(U.full_like(im, 0.5), im))


def complex_atan(z):
    return _times_minus_i(complex_atanh(_times_i(z)))


#: name -> the complex function
COMPLEX_FUNCTIONS = {"asin": complex_asin, "acos": complex_acos, "atan": complex_atan,
                     "sinh": complex_sinh, "cosh": complex_cosh, "asinh": complex_asinh,
                     "acosh": complex_acosh, "atanh": complex_atanh}


def _public(name, raw):
    def fn(x):
        (x,) = prepare(name, [x], (FLOAT, COMPLEX))
        if dtypes.is_complex(U.aval_of(x).dtype):
            return COMPLEX_FUNCTIONS[name](x)
        return raw(x)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Elementwise ``{name}`` (``jax.lax.{name}``), real or complex."
    return fn


asin = _public("asin", M.asin_raw)
acos = _public("acos", M.acos_raw)
atan = _public("atan", M.atan_raw)
sinh = _public("sinh", M.sinh_raw)
cosh = _public("cosh", M.cosh_raw)
asinh = _public("asinh", M.asinh_raw)
acosh = _public("acosh", M.acosh_raw)
atanh = _public("atanh", M.atanh_raw)
