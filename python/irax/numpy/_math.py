"""Transcendental and floating-point ufuncs (inexact promotion: ints and bool -> float32).

    exp, exp2, expm1, log, log2, log10, log1p, sqrt, rsqrt, cbrt, sin, cos, tan, arcsin, ...,
    logaddexp, logaddexp2, hypot, arctan2, copysign, real, imag, conj, isfinite, isnan, isinf
"""

from __future__ import annotations

import numpy as np

from irax.core import dtypes
from irax.dialect import elementwise as E
from irax.dialect.bitcast import BitcastConvert
from irax.frontend.trace import bind
from irax.lax import _math as M
from irax.lax import _math_complex as MC
from irax.lax._elementwise import conj_raw
from irax.numpy import _complex_special as CS
from irax.numpy import _util as U
from irax.numpy._fast import fast_unary
from irax.numpy._util import cmp, const, select
from irax.transforms.custom_derivatives import custom_jvp

_LN2 = float(np.log(2.0))


def _is_complex(x) -> bool:
    return dtypes.is_complex(U.aval_of(x).dtype)


def _unary(name, raw, real_only=False, doc="", op_cls=None):
    """The ufunc ``name`` computing ``raw`` in the inexact promotion of its operand;
    ``op_cls``: the op it is on real floats, for the eager fast path (``_fast``)."""
    def fn(x, /):
        if op_cls is not None:
            out = fast_unary(op_cls, x)
            if out is not None:
                return out
        (x,) = U.promote_args_inexact(name, x)
        if _is_complex(x) and real_only:
            raise U.dtype_error(name, U.aval_of(x).dtype, "floating")
        return raw(x)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc or f"Elementwise ``{name}`` in the inexact promotion of ``x``."
    return fn


def _op(op_cls):
    return lambda x: bind(op_cls, x)


def _with_complex(lax_name, raw, fix=None):
    """``raw`` for real ``x``, the complex function of ``lax_name`` for complex ``x``, with
    JAX's values at the special points ``fix(x, r)`` (``_complex_special``) selects."""
    fix = fix or CS.FIXES.get(lax_name)

    def fn(x):
        if not _is_complex(x):
            return raw(x)
        r = MC.COMPLEX_FUNCTIONS[lax_name](x)
        return fix(x, r) if fix else r

    return fn


def _expm1(x):
    r = bind(E.Expm1, x)
    return CS.real_axis_fix(_op(E.Expm1))(x, r) if _is_complex(x) else r


def _log_base(base):
    """``log(x) / log(base)`` (complex: per part); the constant is strong, as in JAX."""
    def fn(x):
        r = bind(E.Log, x)
        if _is_complex(x):
            ln = U.full_like(bind(E.Real, r), np.log(base), weak=False)
            return bind(E.Complex, bind(E.Div, bind(E.Real, r), ln),
                        bind(E.Div, bind(E.Imag, r), ln))
        return bind(E.Div, r, U.full_like(x, np.log(base), weak=False))

    return fn


def _exp2(x):
    return bind(E.Exp, bind(E.Mul, x, const(x, _LN2)))


exp = _unary("exp", _op(E.Exp), op_cls=E.Exp)
exp2 = _unary("exp2", _exp2)
expm1 = _unary("expm1", _expm1, op_cls=E.Expm1)
log = _unary("log", _op(E.Log), op_cls=E.Log)
log2 = _unary("log2", _log_base(2.0))
log10 = _unary("log10", _log_base(10.0))
log1p = _unary("log1p", _op(E.Log1p), op_cls=E.Log1p)
sqrt = _unary("sqrt", _op(E.Sqrt), op_cls=E.Sqrt)
rsqrt = _unary("rsqrt", _op(E.Rsqrt), op_cls=E.Rsqrt)
cbrt = _unary("cbrt", _op(E.Cbrt), real_only=True, op_cls=E.Cbrt)
sin = _unary("sin", _op(E.Sin), op_cls=E.Sin)
cos = _unary("cos", _op(E.Cos), op_cls=E.Cos)
tan = _unary("tan", _op(E.Tan), op_cls=E.Tan)
tanh = _unary("tanh", _op(E.Tanh), op_cls=E.Tanh)
arcsin = _unary("arcsin", _with_complex("asin", M.asin_raw))
arccos = _unary("arccos", _with_complex("acos", M.acos_raw))
arctan = _unary("arctan", _with_complex("atan", M.atan_raw))
sinh = _unary("sinh", _with_complex("sinh", M.sinh_raw, CS.real_axis_fix(M.sinh_raw)))
cosh = _unary("cosh", _with_complex("cosh", M.cosh_raw, CS.real_axis_fix(M.cosh_raw)))
arcsinh = _unary("arcsinh", _with_complex("asinh", M.asinh_raw))
arccosh = _unary("arccosh", _with_complex("acosh", M.acosh_raw))
arctanh = _unary("arctanh", _with_complex("atanh", M.atanh_raw))
asin, acos, atan = arcsin, arccos, arctan
asinh, acosh, atanh = arcsinh, arccosh, arctanh


def deg2rad(x, /):
    (x,) = U.promote_args_inexact("deg2rad", x)
    return bind(E.Mul, x, const(x, np.pi / 180))


def rad2deg(x, /):
    (x,) = U.promote_args_inexact("rad2deg", x)
    return bind(E.Mul, x, const(x, 180 / np.pi))


radians, degrees = deg2rad, rad2deg


def arctan2(x1, x2, /):
    x1, x2 = U.promote_args_inexact("arctan2", x1, x2)
    if _is_complex(x1):
        raise NotImplementedError("irax.numpy.arctan2 does not support complex inputs yet")
    return bind(E.Atan2, x1, x2)


atan2 = arctan2


def _logaddexp(name, x1, x2, exp_fn, log1p_scale):
    x1, x2 = U.promote_args_inexact(name, x1, x2)
    if _is_complex(x1):
        raise NotImplementedError(f"irax.numpy.{name} does not support complex inputs yet")
    amax = bind(E.Max, x1, x2)
    delta = bind(E.Sub, x1, x2)
    tail = bind(E.Log1p, exp_fn(bind(E.Neg, bind(E.Abs, delta))))
    if log1p_scale != 1.0:
        tail = bind(E.Mul, tail, const(tail, log1p_scale))
    return select(cmp(delta, delta, "NE"), bind(E.Add, x1, x2), bind(E.Add, amax, tail))


def _logaddexp_rule(name, exp_fn, log1p_scale):
    """The function with JAX's derivative: ``d out = t1 e^(x1 - out) + t2 e^(x2 - out)``
    (base 2 for logaddexp2; ``+inf`` read as 0, as JAX does),
    which splits a tie evenly: the composition's ``|x1 - x2|`` has derivative 1 at 0."""

    @custom_jvp
    def fn(x1, x2):
        return _logaddexp(name, x1, x2, exp_fn, log1p_scale)

    @fn.defjvp
    def fn_jvp(primals, tangents):
        (x1, x2), (t1, t2) = primals, tangents
        out = fn(x1, x2)

        def finite(v):
            return select(cmp(v, const(v, np.inf), "EQ"), const(v, 0), v)

        def weight(x):
            return exp_fn(bind(E.Sub, finite(x), finite(out)))

        return out, bind(E.Add, bind(E.Mul, t1, weight(x1)), bind(E.Mul, t2, weight(x2)))

    return fn


_logaddexp_e = _logaddexp_rule("logaddexp", lambda v: bind(E.Exp, v), 1.0)
_logaddexp_2 = _logaddexp_rule("logaddexp2", _exp2, 1 / _LN2)


def logaddexp(x1, x2, /):
    """``log(exp(x1) + exp(x2))`` without overflow: ``max + log1p(exp(-|x1 - x2|))``."""
    return _logaddexp_e(*U.promote_args_inexact("logaddexp", x1, x2))


def logaddexp2(x1, x2, /):
    """``log2(2**x1 + 2**x2)`` without overflow."""
    return _logaddexp_2(*U.promote_args_inexact("logaddexp2", x1, x2))


def hypot(x1, x2, /):
    """``sqrt(x1**2 + x2**2)`` without intermediate overflow."""
    x1, x2 = U.promote_args_inexact("hypot", x1, x2)
    if _is_complex(x1):
        raise ValueError("irax.numpy.hypot is not well defined for complex-valued inputs. "
                         "Please convert to real values first, such as by using abs(x)")
    a1, a2 = bind(E.Abs, x1), bind(E.Abs, x2)
    # JAX's result is strongly typed unless the operands are weak scalars
    inf = U.full_like(a1, np.inf, weak=U.aval_of(a1).ndim == 0)
    any_inf = bind(E.Or, cmp(a1, inf, "EQ"), cmp(a2, inf, "EQ"))
    hi, lo = bind(E.Max, a1, a2), bind(E.Min, a1, a2)
    zero = cmp(hi, const(hi, 0), "EQ")
    ratio = bind(E.Div, lo, select(zero, const(hi, 1), hi))
    r = bind(E.Mul, hi, bind(E.Sqrt, bind(E.Add, const(hi, 1), bind(E.Mul, ratio, ratio))))
    return select(any_inf, inf, select(zero, hi, r))


def signbit(x, /):
    """True where the sign bit is set, ``-0.0`` and ``-NaN`` included (``jnp.signbit``)."""
    x = U.as_array("signbit", x)
    dt = U.aval_of(x).dtype
    if dtypes.is_unsigned(dt) or dtypes.is_bool(dt):
        return U.full_like(x, False, np.bool_)
    if dtypes.is_int(dt):
        return cmp(x, const(x, 0), "LT")
    if dtypes.is_complex(dt):
        raise ValueError(f"irax.numpy.signbit is not well defined for {dt}")
    # the sign bit itself, read as a signed integer of the same width (-0. and -NaN too)
    bits = bind(BitcastConvert, x, new_dtype=np.dtype(f"int{dt.itemsize * 8}"))
    return cmp(bits, const(bits, 0), "LT")


def copysign(x1, x2, /):
    x1, x2 = U.promote_args_inexact("copysign", x1, x2)
    if _is_complex(x1):
        raise TypeError("copysign does not support complex-valued inputs")
    mag = bind(E.Abs, x1)
    return select(signbit(x2), bind(E.Neg, mag), mag)


# ---- complex parts ------------------------------------------------------------------------------
def real(val, /):
    x = U.as_array("real", val)
    return bind(E.Real, x) if _is_complex(x) else x


def imag(val, /):
    x = U.as_array("imag", val)
    return bind(E.Imag, x) if _is_complex(x) else U.full_like(x, 0, weak=U.aval_of(x).weak_type)


def conjugate(x, /):
    x = U.as_array("conjugate", x)
    return conj_raw(x) if _is_complex(x) else x


conj = conjugate


def angle(z, deg: bool = False):
    (z,) = U.promote_args_inexact("angle", z)
    re, im = (bind(E.Real, z), bind(E.Imag, z)) if _is_complex(z) else (z, const(z, 0))
    r = bind(E.Atan2, im, re)
    return bind(E.Mul, r, const(r, 180 / np.pi)) if deg else r


# ---- classification ---------------------------------------------------------------------------
def _classify(name, float_fn, combine, empty_value):
    def fn(x, /):
        x = U.as_array(name, x)
        dt = U.aval_of(x).dtype
        if not dtypes.is_inexact(dt):
            return U.full_like(x, empty_value, np.bool_)
        if dtypes.is_complex(dt):
            return bind(combine, float_fn(bind(E.Real, x)), float_fn(bind(E.Imag, x)))
        return float_fn(x)

    fn.__name__ = fn.__qualname__ = name
    return fn


def _isinf(x):
    return cmp(bind(E.Abs, x), const(x, np.inf), "EQ")


isfinite = _classify("isfinite", lambda x: bind(E.IsFinite, x), E.And, True)
isnan = _classify("isnan", lambda x: cmp(x, x, "NE"), E.Or, False)
isinf = _classify("isinf", _isinf, E.Or, False)


def isposinf(x, /):
    x = U.as_array("isposinf", x)
    if not dtypes.is_float(U.aval_of(x).dtype):
        return U.full_like(x, False, np.bool_)
    return cmp(x, const(x, np.inf), "EQ")


def isneginf(x, /):
    x = U.as_array("isneginf", x)
    if not dtypes.is_float(U.aval_of(x).dtype):
        return U.full_like(x, False, np.bool_)
    return cmp(x, const(x, -np.inf), "EQ")


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    x = U.as_array("nan_to_num", x)
    dt = U.aval_of(x).dtype
    if not dtypes.is_float(dt):
        return x
    info = dtypes.finfo(dt)
    x = select(isnan(x), const(x, nan), x)
    x = select(isposinf(x), const(x, info.max if posinf is None else posinf), x)
    return select(isneginf(x), const(x, info.min if neginf is None else neginf), x)
