"""Miscellaneous lax ops: ``irax.reduce_precision`` (``jax.lax.reduce_precision``).

    %y = "irax.reduce_precision"(%x) {exponent_bits = 5 : i64, mantissa_bits = 10 : i64}
           : (tensor<3xf32>) -> tensor<3xf32>

Each element is rounded (to nearest, ties to even) to a float of ``exponent_bits`` exponent
and ``mantissa_bits`` mantissa bits and stored back in its own dtype: too large values
become infinities, too small ones (signed) zeros, NaN stays NaN. The op is linear (its JVP
and transpose apply it to the tangent / cotangent, as JAX's).
"""

from __future__ import annotations

import numpy as np

from irax.core import dtypes
from irax.dialect import attrs as A
from irax.dialect import raising as R
from irax.dialect import sharding as S
from irax.dialect.base import Op, OpError
from irax.dialect.elementwise import batch_elementwise


def _layout(dt) -> tuple[int, int]:
    info = dtypes.finfo(dt)
    return int(info.nexp), int(info.nmant)


def reduce_precision_bits(u: np.ndarray, nexp: int, nmant: int, exponent_bits: int,
                          mantissa_bits: int) -> np.ndarray:
    """The rounding on the unsigned bit patterns ``u`` of floats with ``nexp``/``nmant``
    exponent/mantissa bits (NaNs are the caller's)."""
    ut = u.dtype.type
    width = u.dtype.itemsize * 8
    if mantissa_bits < nmant:
        shift = nmant - mantissa_bits
        last = 1 << shift
        bias = ((u & ut(last)) >> ut(shift)) + ut((last >> 1) - 1)
        u = (u + bias) & ut(((1 << width) - 1) ^ (last - 1))
    if exponent_bits < nexp:
        exp_mask = ((1 << nexp) - 1) << nmant
        sign = u & ut(1 << (nexp + nmant))
        native, reduced = (1 << (nexp - 1)) - 1, (1 << (exponent_bits - 1)) - 1
        e = u & ut(exp_mask)
        over = e > ut((native + reduced) << nmant)
        under = e <= ut((native - reduced) << nmant)
        u = np.where(over, sign | ut(exp_mask), np.where(under, sign, u)).astype(u.dtype)
    return u


class ReducePrecision(Op):
    """StableHLO reduce_precision: round to ``exponent_bits``/``mantissa_bits`` and back."""

    name = "irax.reduce_precision"
    shard = classmethod(S.elementwise)
    num_operands = 1
    attributes = {"exponent_bits": A.I64, "mantissa_bits": A.I64}
    raises_from = "stablehlo.reduce_precision"
    #: JAX's rule: the tangent (cotangent) rounded the same way, a straight-through surrogate
    surrogate_derivative = True

    @classmethod
    def raise_attrs(cls, op):
        return {"exponent_bits": R.i64(op, "exponent_bits"),
                "mantissa_bits": R.i64(op, "mantissa_bits")}

    @classmethod
    def infer(cls, x, *, exponent_bits, mantissa_bits):
        if not dtypes.is_float(x.dtype):
            raise OpError(f"expected a floating-point operand, but got {x.str_short()}")
        if exponent_bits < 1 or mantissa_bits < 0:
            raise OpError(f"expected exponent_bits >= 1 and mantissa_bits >= 0, but got "
                          f"{exponent_bits} and {mantissa_bits}")
        return x

    @classmethod
    def evaluate(cls, x, *, exponent_bits, mantissa_bits):
        nexp, nmant = _layout(x.dtype)
        u = np.ascontiguousarray(x).view(np.dtype(f"u{x.dtype.itemsize}"))
        r = reduce_precision_bits(u, nexp, nmant, exponent_bits, mantissa_bits).view(x.dtype)
        return np.where(np.isnan(x), x, r)

    @classmethod
    def lower(cls, lb, x, *, exponent_bits, mantissa_bits):
        return lb.op("stablehlo.reduce_precision", [x],
                     exponent_bits=lb.attr(f"{int(exponent_bits)} : i32"),
                     mantissa_bits=lb.attr(f"{int(mantissa_bits)} : i32"))

    @classmethod
    def jvp(cls, b, primals, tangents, outs, **attrs):
        return b.emit(cls, [b.instantiate(tangents[0], b.aval(primals[0]))], **attrs)[0]

    @classmethod
    def transpose(cls, b, ct, x, **attrs):
        return (b.emit(cls, [ct], **attrs)[0],)

    batch = classmethod(batch_elementwise)
