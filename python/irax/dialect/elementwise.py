"""Elementwise ops: unary math, binary arithmetic, comparisons, select, convert.

Operands of a binary op have one shape and one dtype (``irax.numpy`` promotes and
broadcasts before it binds); results keep the shape.

    %y = "irax.sin"(%x) : (tensor<3xf32>) -> tensor<3xf32>
    %z = "irax.add"(%x, %y) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %p = "irax.compare"(%x, %y) {direction = "LT"} : (...) -> tensor<3xi1>
"""

from __future__ import annotations

import numpy as np

from irax.core import dtypes, fp_errors
from irax.core.abstract import ShapedArray
from irax.dialect import attrs as A
from irax.dialect import mlir
from irax.dialect import raising as R
from irax.dialect import sharding as S
from irax.dialect.base import Op, OpError, weak_of
from irax.dialect.folding import is_splat, producer, same_type

# Operand kinds an op accepts, checked by ``_check_kind``.
FLOAT = "floating-point"
INEXACT = "floating-point or complex"
INT = "integer"
INT_OR_BOOL = "integer or boolean"
NUMBER = "numeric"
COMPLEX = "complex"
ANY = "any"


def _kind_ok(dtype: np.dtype, kind: str) -> bool:
    if kind == ANY:
        return True
    if kind == FLOAT:
        return dtypes.is_float(dtype)
    if kind == INEXACT:
        return dtypes.is_inexact(dtype)
    if kind == INT:
        return dtypes.is_int(dtype)
    if kind == INT_OR_BOOL:
        return dtypes.is_int(dtype) or dtype == np.bool_
    if kind == COMPLEX:
        return dtypes.is_complex(dtype)
    return dtype != np.bool_  # NUMBER


def _check_kind(aval: ShapedArray, kind: str) -> None:
    if not _kind_ok(aval.dtype, kind):
        raise OpError(f"expected {kind} operands, but got {aval.str_short()}")


def batch_elementwise(cls, b, args, dims, **attrs):
    """Moves every operand's batch dimension to the first batched operand's position
    (materializing it for unbatched operands); the result is batched there too."""
    d = next(d for d in dims if d is not None)
    xs = [b.matchaxis(x, xd, d) for x, xd in zip(args, dims)]
    outs = b.emit(cls, xs, **attrs)
    return outs, [d] * len(outs)


class _LoweringName:
    """``raises_from`` of a one-to-one op (irax-raise-stablehlo): the StableHLO op it lowers
    to, ``lowers_to``."""

    def __get__(self, obj, cls):
        return cls.lowers_to


class ElementwiseUnary(Op):
    """``y = f(x)`` elementwise. Members set ``lowers_to`` and ``evaluate``."""
    shard = classmethod(S.elementwise)

    num_operands = 1
    operand_kind: str = NUMBER
    lowers_to: str = ""
    raises_from = _LoweringName()

    @classmethod
    def infer(cls, x):
        _check_kind(x, cls.operand_kind)
        return x

    @classmethod
    def evaluate_list(cls, arrays, attrs, out_avals):
        (x,) = arrays
        token = fp_errors.ignore()
        try:
            if x.dtype in dtypes.LOW_PRECISION_FLOATS and cls.operand_kind in (FLOAT, INEXACT):
                return [np.asarray(cls.evaluate(x.astype(np.float32), **attrs)).astype(x.dtype)]
            return super().evaluate_list(arrays, attrs, out_avals)
        finally:
            fp_errors.restore(token)

    @classmethod
    def lower(cls, lb, x):
        return lb.op(cls.lowers_to, [x])

    #: ``derivative(b, x, y)``: dy/dx at ``x`` (``y = f(x)``), for the family's jvp
    derivative = None
    batch = classmethod(batch_elementwise)

    @classmethod
    def jvp(cls, b, primals, tangents, outs):
        return b.mul(tangents[0], cls.derivative(b, primals[0], outs[0]))


class ElementwiseBinary(Op):
    """``z = f(x, y)`` elementwise on operands of one shape and dtype."""
    shard = classmethod(S.elementwise)

    num_operands = 2
    operand_kind: str = NUMBER
    lowers_to: str = ""
    raises_from = _LoweringName()

    @classmethod
    def infer(cls, x, y):
        if x.shape != y.shape or x.dtype != y.dtype:
            raise OpError(f"expected operands of the same shape and dtype, but got "
                          f"{x.str_short()} and {y.str_short()}")
        _check_kind(x, cls.operand_kind)
        return ShapedArray(x.shape, x.dtype, weak_of(x, y))

    @classmethod
    def evaluate_list(cls, arrays, attrs, out_avals):
        x, y = arrays
        token = fp_errors.ignore()
        try:
            if x.dtype in dtypes.LOW_PRECISION_FLOATS and cls.operand_kind in (FLOAT, INEXACT):
                r = cls.evaluate(x.astype(np.float32), y.astype(np.float32), **attrs)
                return [np.asarray(r).astype(x.dtype)]
            return super().evaluate_list(arrays, attrs, out_avals)
        finally:
            fp_errors.restore(token)

    @classmethod
    def lower(cls, lb, x, y):
        return lb.op(cls.lowers_to, [x, y])

    batch = classmethod(batch_elementwise)


# ---- unary math -----------------------------------------------------------------------------
def _unary(cls_name, op_name, lowers_to, fn, kind=INEXACT, differentiable=True, doc="",
           derivative=None, **rules):
    """A unary op; ``derivative(b, x, y)`` is dy/dx (None when not differentiable)."""
    cls = type(cls_name, (ElementwiseUnary,), {
        "name": op_name, "lowers_to": lowers_to, "evaluate": staticmethod(fn),
        "operand_kind": kind, "differentiable": differentiable,
        "derivative": staticmethod(derivative) if derivative else None,
        "__doc__": doc or f"Elementwise {op_name[5:]}; lowers to {lowers_to}.", **rules})
    return cls



def _neg_jvp(cls, b, primals, tangents, outs):
    return b.neg(tangents[0])


def _neg_transpose(cls, b, ct, x):
    return (b.neg(ct),)


def _neg_fold(cls, operands, consts, results):
    """``neg(neg(x)) -> x``."""
    inner_cls, inner = producer(operands[0])
    if inner_cls is cls:
        return [inner.operands[0]]
    return super(cls, cls).fold(operands, consts, results)


def _rsqrt(x):
    return 1 / np.sqrt(x)


def _logistic(x):
    return 1 / (1 + np.exp(-x))


def _round_afz(x):
    return np.copysign(np.floor(np.abs(x) + 0.5), x)  # keeps -0. (StableHLO's)


def _sign(x):
    if x.dtype.kind == "c":
        mag = np.abs(x)
        return np.where(mag == 0, 0, x / np.where(mag == 0, 1, mag))
    if x.dtype.kind == "u":
        return (x != 0).astype(x.dtype)
    if x.dtype.kind == "i":
        return np.sign(x)
    return np.where(x == 0, x, np.sign(x))  # sign(-0.) is -0., as StableHLO's


Neg = _unary("Neg", "irax.neg", "stablehlo.negate", np.negative, NUMBER,
             jvp=classmethod(_neg_jvp), transpose=classmethod(_neg_transpose),
             fold=classmethod(_neg_fold))
# piecewise constant: zero derivative almost everywhere, as in JAX
Sign = _unary("Sign", "irax.sign", "stablehlo.sign", _sign, NUMBER, differentiable=False)
Floor = _unary("Floor", "irax.floor", "stablehlo.floor", np.floor, FLOAT, differentiable=False)
Ceil = _unary("Ceil", "irax.ceil", "stablehlo.ceil", np.ceil, FLOAT, differentiable=False)
RoundEven = _unary("RoundEven", "irax.round_nearest_even", "stablehlo.round_nearest_even",
                   np.rint, FLOAT, differentiable=False)
RoundAfz = _unary("RoundAfz", "irax.round_nearest_afz", "stablehlo.round_nearest_afz",
                  _round_afz, FLOAT, differentiable=False)
Exp = _unary("Exp", "irax.exp", "stablehlo.exponential", np.exp,
             derivative=lambda b, x, y: y)
Expm1 = _unary("Expm1", "irax.expm1", "stablehlo.exponential_minus_one", np.expm1,
               derivative=lambda b, x, y: b.add(y, b.full_like(y, 1)))
Log = _unary("Log", "irax.log", "stablehlo.log", np.log,
             derivative=lambda b, x, y: b.div(b.full_like(x, 1), x))
Log1p = _unary("Log1p", "irax.log1p", "stablehlo.log_plus_one", np.log1p,
               derivative=lambda b, x, y: b.div(b.full_like(x, 1), b.add(x, b.full_like(x, 1))))
# float32 sin/cos/tan become about 140 StableHLO ops each (lowering/trig.py's exact
# reduction); weighted 20 for unrolling: 4 steps of a sine a trip compile in 2.2 s and
# run a 1000-step scan in 1.4 ms, 32 steps take 9.9 s and 1.0 ms (docs/performance.md)
Sin = _unary("Sin", "irax.sin", "stablehlo.sine", np.sin,
             derivative=lambda b, x, y: b.cos(x), lowered_size=20)
Cos = _unary("Cos", "irax.cos", "stablehlo.cosine", np.cos,
             derivative=lambda b, x, y: b.neg(b.sin(x)), lowered_size=20)
Tan = _unary("Tan", "irax.tan", "stablehlo.tan", np.tan,
             derivative=lambda b, x, y: b.add(b.full_like(y, 1), b.mul(y, y)), lowered_size=20)
Tanh = _unary("Tanh", "irax.tanh", "stablehlo.tanh", np.tanh,
              derivative=lambda b, x, y: b.sub(b.full_like(y, 1), b.mul(y, y)))
Sqrt = _unary("Sqrt", "irax.sqrt", "stablehlo.sqrt", np.sqrt,
              derivative=lambda b, x, y: b.div(b.full_like(y, 0.5), y))
Rsqrt = _unary("Rsqrt", "irax.rsqrt", "stablehlo.rsqrt", _rsqrt,
               derivative=lambda b, x, y: b.mul(b.full_like(y, -0.5), b.div(y, x)))
Cbrt = _unary("Cbrt", "irax.cbrt", "stablehlo.cbrt", np.cbrt, FLOAT,
              derivative=lambda b, x, y: b.div(b.full_like(y, 1 / 3), b.mul(y, y)))
Logistic = _unary("Logistic", "irax.logistic", "stablehlo.logistic", _logistic,
                  derivative=lambda b, x, y: b.mul(y, b.sub(b.full_like(y, 1), y)))
Not = _unary("Not", "irax.not", "stablehlo.not", np.invert, INT_OR_BOOL, differentiable=False)


class Abs(ElementwiseUnary):
    """``%y = "irax.abs"(%x)``; the result of a complex operand is its real magnitude:
    ``(tensor<3xcomplex<f32>>) -> tensor<3xf32>``."""

    name = "irax.abs"
    operand_kind = NUMBER
    lowers_to = "stablehlo.abs"
    evaluate = staticmethod(np.abs)

    @classmethod
    def infer(cls, x):
        _check_kind(x, NUMBER)
        return x.update(dtype=dtypes.real_dtype(x.dtype))

    @classmethod
    def jvp(cls, b, primals, tangents, outs):
        (x,), (dx,), (y,) = primals, tangents, outs
        if dtypes.is_complex(b.aval(x).dtype):  # d|z| = Re(conj(z) dz) / |z|, 0 at z = 0 (JAX)
            conj = b.complex(b.real(x), b.neg(b.imag(x)))
            zero = b.compare(y, b.full_like(y, 0), direction="EQ")
            return b.div(b.real(b.mul(conj, dx)), b.select(zero, b.full_like(y, 1), y))
        # grad(abs)(0) == 1, as in JAX
        nonneg = b.compare(x, b.full_like(x, 0), direction="GE")
        return b.select(nonneg, dx, b.neg(dx))


class Real(ElementwiseUnary):
    """``%y = "irax.real"(%z) : (tensor<3xcomplex<f32>>) -> tensor<3xf32>``"""

    name = "irax.real"
    operand_kind = COMPLEX
    lowers_to = "stablehlo.real"
    evaluate = staticmethod(np.real)

    @classmethod
    def infer(cls, x):
        _check_kind(x, COMPLEX)
        return x.update(dtype=dtypes.real_dtype(x.dtype))

    @classmethod
    def jvp(cls, b, primals, tangents, outs):
        return b.emit(cls, [tangents[0]])[0]

    @classmethod
    def transpose(cls, b, ct, z):
        return (b.complex(ct, b.full_like(ct, 0)),)


class Imag(Real):
    """``%y = "irax.imag"(%z) : (tensor<3xcomplex<f32>>) -> tensor<3xf32>``"""

    name = "irax.imag"
    lowers_to = "stablehlo.imag"
    evaluate = staticmethod(np.imag)

    @classmethod
    def transpose(cls, b, ct, z):  # JAX's convention: imag^T(ct) = -i ct
        return (b.complex(b.full_like(ct, 0), b.neg(ct)),)


class IsFinite(ElementwiseUnary):
    """``%p = "irax.is_finite"(%x) : (tensor<3xf32>) -> tensor<3xi1>``"""

    name = "irax.is_finite"
    operand_kind = FLOAT
    differentiable = False
    lowers_to = "stablehlo.is_finite"
    evaluate = staticmethod(np.isfinite)

    @classmethod
    def infer(cls, x):
        _check_kind(x, FLOAT)
        return ShapedArray(x.shape, np.bool_)

    @classmethod
    def lower(cls, lb, x):
        return lb.op("stablehlo.is_finite", [x])


# ---- binary arithmetic ------------------------------------------------------------------------
def _int_div(x, y):
    if x.dtype.kind not in "iu":
        return np.divide(x, y)
    zero = y == 0
    safe = np.where(zero, 1, y).astype(y.dtype)
    q = (x - np.fmod(x, safe)) // safe
    all_ones = np.array(-1).astype(x.dtype)
    return np.where(zero, all_ones, q)


def _int_rem(x, y):
    if x.dtype.kind not in "iu":
        return np.fmod(x, y)
    zero = y == 0
    return np.where(zero, x, np.fmod(x, np.where(zero, 1, y).astype(y.dtype)))


def _shift_left(x, y):
    bits = x.dtype.itemsize * 8
    oob = (y < 0) | (y >= bits)
    return np.where(oob, 0, np.left_shift(x, np.where(oob, 0, y).astype(y.dtype)))


def _shift_right_arith(x, y):
    bits = x.dtype.itemsize * 8
    oob = (y < 0) | (y >= bits)
    signed = x.view(np.dtype(f"i{x.dtype.itemsize}"))
    clamped = np.where(oob, bits - 1, y).astype(signed.dtype)
    return np.right_shift(signed, clamped).view(x.dtype)


def _shift_right_logical(x, y):
    bits = x.dtype.itemsize * 8
    oob = (y < 0) | (y >= bits)
    unsigned = x.view(np.dtype(f"u{x.dtype.itemsize}"))
    r = np.right_shift(unsigned, np.where(oob, 0, y).astype(unsigned.dtype))
    return np.where(oob, 0, r).astype(unsigned.dtype).view(x.dtype)


def _binary(cls_name, op_name, lowers_to, fn, kind=NUMBER, differentiable=True, jvp=None,
            transpose=None, identity=None):
    """A binary op; ``jvp(b, x, y, dx, dy, z)`` and ``transpose(b, ct, x, y)`` are its
    derivative rules (tangents may be None); ``identity(x, y, cx, cy, z)`` is the operand
    it folds to (``cx``/``cy``: constant operand values or None), or None."""
    rules = {}
    if identity is not None:
        rules["fold"] = classmethod(lambda cls, operands, consts, results: _fold_identity(
            cls, identity, operands, consts, results))
    if jvp is not None:
        rules["jvp"] = classmethod(lambda cls, b, p, t, o: jvp(b, *p, *t, o[0]))
    if transpose is not None:
        rules["transpose"] = classmethod(lambda cls, b, ct, x, y: transpose(b, ct, x, y))
    return type(cls_name, (ElementwiseBinary,), {
        "name": op_name, "lowers_to": lowers_to, "evaluate": staticmethod(fn),
        "operand_kind": kind, "differentiable": differentiable, **rules,
        "__doc__": f"Elementwise {op_name[5:]}; lowers to {lowers_to}."})


def _fold_identity(cls, identity, operands, consts, results):
    same = identity(*operands, *consts, results[0])
    if same is not None and same_type(same, results[0]):
        return [same]
    return super(cls, cls).fold(operands, consts, results)


def _unit(one):
    """``x op one -> x`` and, when ``commutes``, ``one op x -> x`` (exact in IEEE
    arithmetic for x * 1, x / 1, x - 0)."""

    def right(x, y, cx, cy, z):
        return x if is_splat(cy, one) else None

    def both(x, y, cx, cy, z):
        return x if is_splat(cy, one) else y if is_splat(cx, one) else None

    return right, both


def _int_zero_add(x, y, cx, cy, z):
    """``x + 0 -> x`` for integers only: for floats ``-0.0 + 0.0`` is ``+0.0``."""
    if mlir.aval_of(x).dtype.kind not in "iu":
        return None
    return x if is_splat(cy, 0) else y if is_splat(cx, 0) else None


def _bool_absorbing(absorbing):
    """Boolean ``x | True -> True`` (``absorbing=True``) or ``x & False -> False``, and
    ``x | False -> x`` / ``x & True -> x`` (``irax-simplify``; under jit
    ``irax-legalize-iree`` does the same on StableHLO)."""

    def fold(x, y, cx, cy, z):
        if mlir.aval_of(x).dtype != np.bool_ or not same_type(x, y):
            return None
        for v, c, other in ((y, cy, x), (x, cx, y)):
            if is_splat(c, absorbing):
                return v
            if is_splat(c, not absorbing):
                return other
        return None

    return fold


def _mul_jvp(b, x, y, dx, dy, z):
    return b.add_any(b.scale(dx, y), b.scale(dy, x))


def _mul_transpose(b, ct, x, y):
    if b.is_linear(x) and b.is_linear(y):
        raise OpError("is not linear: both operands are tangents")
    return (b.mul(ct, y), None) if b.is_linear(x) else (None, b.mul(x, ct))


def _div_jvp(b, x, y, dx, dy, z):  # d(x/y) = dx/y - z dy/y
    num = b.sub_any(dx, b.scale(dy, z))
    return b.div(num, y)


def _div_transpose(b, ct, x, y):
    if b.is_linear(y):
        raise OpError("is not linear in its divisor")
    return (b.div(ct, y), None)


def _rem_jvp(b, x, y, dx, dy, z):  # x rem y = x - y * trunc(x / y)
    q = b.div(b.sub(x, z), y)
    return b.sub_any(dx, b.scale(dy, q))


def _pow_jvp(b, x, y, dx, dy, z):
    one = b.full_like(y, 1)
    by_x = None if dx is None else b.mul(dx, b.mul(y, b.pow(x, b.sub(y, one))))
    if dy is None:
        return by_x
    # z * log(x), taken as 0 where x == 0 (JAX's convention)
    zero = b.full_like(x, 0)
    is_zero = b.compare(x, zero, direction="EQ")
    log_x = b.log(b.select(is_zero, one, x))
    return b.add_any(by_x, b.mul(dy, b.select(is_zero, zero, b.mul(z, log_x))))


def _minmax_jvp(direction):
    def jvp(b, x, y, dx, dy, z):
        """The tangent of the chosen operand; ties share it half and half (as JAX)."""
        one, half, zero = b.full_like(x, 1), b.full_like(x, 0.5), b.full_like(x, 0)
        wins = b.compare(x, y, direction=direction)
        tie = b.compare(x, y, direction="EQ")
        wx = b.select(tie, half, b.select(wins, one, zero))
        wy = b.sub(one, wx)
        return b.add_any(b.scale(dx, wx), b.scale(dy, wy))

    return jvp


def _atan2_jvp(b, x, y, dx, dy, z):  # d atan2(x, y) = (y dx - x dy) / (x^2 + y^2)
    denom = b.add(b.mul(x, x), b.mul(y, y))
    return b.div(b.sub_any(b.scale(dx, y), b.scale(dy, x)), denom)


Add = _binary("Add", "irax.add", "stablehlo.add", np.add, ANY,
              jvp=lambda b, x, y, dx, dy, z: b.add_any(dx, dy),
              transpose=lambda b, ct, x, y: (ct, ct), identity=_int_zero_add)
Sub = _binary("Sub", "irax.sub", "stablehlo.subtract", np.subtract,
              jvp=lambda b, x, y, dx, dy, z: b.sub_any(dx, dy),
              transpose=lambda b, ct, x, y: (ct, b.neg(ct)), identity=_unit(0)[0])
Mul = _binary("Mul", "irax.mul", "stablehlo.multiply", np.multiply, ANY,
              jvp=_mul_jvp, transpose=_mul_transpose, identity=_unit(1)[1])
Div = _binary("Div", "irax.div", "stablehlo.divide", _int_div, jvp=_div_jvp,
              transpose=_div_transpose, identity=_unit(1)[0])
Rem = _binary("Rem", "irax.rem", "stablehlo.remainder", _int_rem, jvp=_rem_jvp)
Pow = _binary("Pow", "irax.pow", "stablehlo.power", np.power, INEXACT, jvp=_pow_jvp)
Max = _binary("Max", "irax.max", "stablehlo.maximum", np.maximum, ANY,
              jvp=_minmax_jvp("GT"))
Min = _binary("Min", "irax.min", "stablehlo.minimum", np.minimum, ANY,
              jvp=_minmax_jvp("LT"))
Atan2 = _binary("Atan2", "irax.atan2", "stablehlo.atan2", np.arctan2, INEXACT, jvp=_atan2_jvp)
And = _binary("And", "irax.and", "stablehlo.and", np.bitwise_and, INT_OR_BOOL, False,
              identity=_bool_absorbing(False))
Or = _binary("Or", "irax.or", "stablehlo.or", np.bitwise_or, INT_OR_BOOL, False,
             identity=_bool_absorbing(True))
Xor = _binary("Xor", "irax.xor", "stablehlo.xor", np.bitwise_xor, INT_OR_BOOL, False)
ShiftLeft = _binary("ShiftLeft", "irax.shift_left", "stablehlo.shift_left", _shift_left, INT,
                    False)
ShiftRightArithmetic = _binary("ShiftRightArithmetic", "irax.shift_right_arithmetic",
                               "stablehlo.shift_right_arithmetic", _shift_right_arith, INT, False)
ShiftRightLogical = _binary("ShiftRightLogical", "irax.shift_right_logical",
                            "stablehlo.shift_right_logical", _shift_right_logical, INT, False)


class Complex(ElementwiseBinary):
    """``%z = "irax.complex"(%re, %im) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xcomplex<f32>>``

    Operands are float32 or float64 of one shape."""

    name = "irax.complex"
    lowers_to = "stablehlo.complex"

    @classmethod
    def infer(cls, x, y):
        out = super().infer(x, y)
        if x.dtype not in (np.float32, np.float64):
            raise OpError(f"expected float32 or float64 operands, but got {x.str_short()}")
        return out.update(dtype=np.complex64 if x.dtype == np.float32 else np.complex128)

    @staticmethod
    def evaluate(x, y):
        """Parts set, not summed (``x + 1j * y`` would turn an imaginary ``-0.`` into
        ``+0.``)."""
        x, y = np.broadcast_arrays(x, y)
        out = np.empty(x.shape, np.complex128 if x.dtype == np.float64 else np.complex64)
        out.real, out.imag = x, y
        return out

    @classmethod
    def jvp(cls, b, primals, tangents, outs):
        ts = [b.instantiate(t, b.aval(p)) for t, p in zip(tangents, primals)]
        return b.complex(*ts)

    @classmethod
    def transpose(cls, b, ct, re, im):  # JAX's convention: [real(ct), -imag(ct)]
        return (b.real(ct) if b.is_linear(re) else None,
                b.neg(b.imag(ct)) if b.is_linear(im) else None)


# ---- comparison, select, convert --------------------------------------------------------------
_COMPARE = {"EQ": np.equal, "NE": np.not_equal, "LT": np.less, "LE": np.less_equal,
            "GT": np.greater, "GE": np.greater_equal}


class Compare(Op):
    """``%p = "irax.compare"(%x, %y) {direction = "LT"}``: elementwise comparison to i1.

    Floats compare with IEEE semantics (NaN is unordered); unsigned integers compare as
    unsigned.
    """

    name = "irax.compare"
    shard = classmethod(S.elementwise)
    num_operands = 2
    attributes = {"direction": A.Str}
    differentiable = False
    raises_from = "stablehlo.compare"

    @classmethod
    def raise_attrs(cls, op):
        if "compare_type" in op.attributes:
            dtype = R.operand_aval(op).dtype
            kind = R.enum(op, "compare_type")
            want = ("FLOAT" if dtypes.is_inexact(dtype) else
                    "UNSIGNED" if dtypes.is_unsigned(dtype) or dtypes.is_bool(dtype) else "SIGNED")
            if kind != want:
                raise OpError(f"with compare_type {kind} on {dtype} operands is not supported")
        return {"direction": R.enum(op, "comparison_direction")}

    @classmethod
    def infer(cls, x, y, *, direction):
        if direction not in _COMPARE:
            raise OpError(f"expected direction to be one of {sorted(_COMPARE)}, got {direction!r}")
        if x.shape != y.shape or x.dtype != y.dtype:
            raise OpError(f"expected operands of the same shape and dtype, but got "
                          f"{x.str_short()} and {y.str_short()}")
        if x.dtype.kind == "c" and direction not in ("EQ", "NE"):
            raise OpError(f"complex operands support only EQ and NE, got {direction}")
        return ShapedArray(x.shape, np.bool_)

    @classmethod
    def evaluate(cls, x, y, *, direction):
        return _COMPARE[direction](x, y)

    @classmethod
    def lower(cls, lb, x, y, *, direction):
        return lb.compare(x, y, direction)

    batch = classmethod(batch_elementwise)


class Select(Op):
    """``%r = "irax.select"(%pred, %on_true, %on_false)``; pred is i1 of the same shape."""

    name = "irax.select"
    shard = classmethod(S.elementwise)
    num_operands = 3
    raises_from = "stablehlo.select"

    @classmethod
    def infer(cls, p, t, f):
        if p.dtype != np.bool_:
            raise OpError(f"expected a boolean predicate, but got {p.str_short()}")
        if t.shape != f.shape or t.dtype != f.dtype:
            raise OpError(f"expected branches of the same shape and dtype, but got "
                          f"{t.str_short()} and {f.str_short()}")
        if p.shape not in ((), t.shape):
            raise OpError(f"expected predicate shape () or {t.shape}, but got {p.shape}")
        return ShapedArray(t.shape, t.dtype, weak_of(t, f))

    @classmethod
    def evaluate(cls, p, t, f):
        return np.where(p, t, f)

    @classmethod
    def lower(cls, lb, p, t, f):
        return lb.op("stablehlo.select", [p, t, f])

    @classmethod
    def jvp(cls, b, primals, tangents, outs):
        p, t, f = primals
        _, dt, df = tangents
        if dt is None and df is None:
            return None
        return b.select(p, b.instantiate(dt, b.aval(t)), b.instantiate(df, b.aval(f)))

    @classmethod
    def fold(cls, operands, consts, results):
        """A constant predicate picks a branch."""
        p, t, f = operands
        if consts[0] is not None and consts[0].size:
            pick = t if np.all(consts[0]) else f if not np.any(consts[0]) else None
            if pick is not None and same_type(pick, results[0]):
                return [pick]
        return super().fold(operands, consts, results)

    @classmethod
    def transpose(cls, b, ct, p, t, f):
        if b.is_linear(p):
            raise OpError("is not linear in its predicate")
        zeros = b.zeros(b.aval(ct))
        return (None, b.select(p, ct, zeros) if b.is_linear(t) else None,
                b.select(p, zeros, ct) if b.is_linear(f) else None)

    @classmethod
    def batch(cls, b, args, dims):
        """A scalar (per-example) predicate stays scalar when unmapped, and is broadcast
        to the branches' shape when mapped."""
        p, t, f = args
        pd, td, fd = dims
        branch = t if td is not None or fd is None else f
        bd = td if td is not None else fd
        ex_shape = tuple(s for k, s in enumerate(b.aval(branch).shape) if k != bd)
        p_scalar = b.aval(p).ndim - (pd is not None) == 0 and ex_shape != ()
        if p_scalar and pd is None:
            d = bd
            return [b.select(p, b.matchaxis(t, td, d), b.matchaxis(f, fd, d))], [d]
        if p_scalar:
            p = b.broadcast_in_dim(p, shape=(b.axis_size, *ex_shape), broadcast_dimensions=(0,))
            pd = 0
        return batch_elementwise(cls, b, [p, t, f], [pd, td, fd])


class Convert(Op):
    """``%y = "irax.convert"(%x) {new_dtype = f32}``: elementwise dtype conversion.

    Float to int saturates and maps NaN to 0 (XLA's CPU semantics); int to int wraps;
    to bool means ``!= 0``. ``weak_type`` marks a result that stays weakly typed.
    """

    name = "irax.convert"
    shard = classmethod(S.elementwise)
    num_operands = 1
    attributes = {"new_dtype": A.DType, "weak_type": A.Bool}
    defaults = {"weak_type": False}
    raises_from = "stablehlo.convert"

    @classmethod
    def raise_attrs(cls, op):
        return {"new_dtype": R.result_aval(op).dtype}

    @classmethod
    def infer(cls, x, *, new_dtype, weak_type):
        return ShapedArray(x.shape, new_dtype, weak_type)

    @classmethod
    def evaluate(cls, x, *, new_dtype, weak_type):
        return convert_array(x, new_dtype)

    @classmethod
    def lower(cls, lb, x, *, new_dtype, weak_type):
        src = mlir.aval_of(x).dtype
        if new_dtype == np.bool_ and src != np.bool_:
            return lb.compare(x, lb.full(lb.out_avals[0].shape, 0, src), "NE")
        if src.kind == "c" and new_dtype.kind != "c":
            src = dtypes.real_dtype(src)
            x = lb.op("stablehlo.real", [x], ShapedArray(lb.out_avals[0].shape, src))
        out = lb.op("stablehlo.convert", [x])
        if new_dtype.kind in "iu" and dtypes.is_float(src):
            out = _saturate(lb, x, out, src, new_dtype)
        return out

    @classmethod
    def fold(cls, operands, consts, results, **attrs):
        """A conversion to the operand's own type is the operand."""
        if same_type(operands[0], results[0]):
            return [operands[0]]
        return super().fold(operands, consts, results, **attrs)

    @classmethod
    def jvp(cls, b, primals, tangents, outs, *, new_dtype, weak_type):
        if not dtypes.is_inexact(new_dtype):
            return None  # integer or boolean results have no tangent
        return b.convert(tangents[0], new_dtype=new_dtype, weak_type=weak_type)

    @classmethod
    def transpose(cls, b, ct, x, *, new_dtype, weak_type):
        src = b.aval(x)
        return (b.convert(ct, new_dtype=src.dtype, weak_type=src.weak_type),)

    batch = classmethod(batch_elementwise)


def _saturate(lb, x, converted, src, new_dtype):
    """XLA's CPU float->int conversion: clamp out-of-range values, NaN -> 0."""
    shape = lb.out_avals[0].shape
    info = np.iinfo(new_dtype)
    cmp = lb.compare

    def full(value, dtype):
        return lb.full(shape, value, dtype)

    hi = np.array(info.max, np.float64).astype(src)   # rounds up to 2**bits for f32
    lo = np.array(info.min, np.float64).astype(src)
    out = lb.op("stablehlo.select", [cmp(x, full(hi, src), "GE"), full(info.max, new_dtype),
                                     converted])
    out = lb.op("stablehlo.select", [cmp(x, full(lo, src), "LE"), full(info.min, new_dtype), out])
    return lb.op("stablehlo.select", [cmp(x, x, "NE"), full(0, new_dtype), out])


def convert_array(x: np.ndarray, new_dtype) -> np.ndarray:
    """NumPy conversion with XLA's semantics (saturating float->int, NaN->0)."""
    new_dtype = np.dtype(new_dtype)
    if new_dtype == np.bool_:
        return x != 0
    if new_dtype.kind in "iu" and (x.dtype.kind == "f" or x.dtype.name == "bfloat16"):
        info = np.iinfo(new_dtype)
        xf = np.nan_to_num(x.astype(np.float64), nan=0.0)
        xf = np.clip(np.trunc(xf), info.min, info.max)
        # exact ints near the int64 bounds: clip in float, then fix the top end
        out = xf.astype(new_dtype)
        if new_dtype.itemsize == 8:
            out = np.where(xf >= float(info.max), info.max, out).astype(new_dtype)
        return out
    if x.dtype.kind == "c" and new_dtype.kind != "c":
        x = x.real
    with np.errstate(all="ignore"):
        return x.astype(new_dtype)
