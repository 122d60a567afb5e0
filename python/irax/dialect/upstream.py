"""The ops of other dialects that irax recognizes, as classes: func's functions, calls
and returns, and the StableHLO, chlo and flow ops that lowering and irax-legalize-iree
look at. With irax's own ``REGISTRY`` this is the one place that maps op names to
classes; everything else compares classes or asks traits:

    op_class(op) is FuncFunc              # a function
    op_class(op).terminator               # func.return or irax.return
    op_class(op).plain_call               # func.call or irax.call

(The StableHLO parser, ``irax-raise-stablehlo``, reads StableHLO by name: that is its job.)
"""

from __future__ import annotations

from typing import ClassVar

from irax.dialect.base import REGISTRY, Op

UPSTREAM: dict[str, type[UpstreamOp]] = {}


class UpstreamOp:
    """An op of another dialect, named by its class (never instantiated)."""

    name: ClassVar[str] = ""
    namespace: ClassVar[str] = ""
    terminator: ClassVar[bool] = False
    plain_call: ClassVar[bool] = False

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        if cls.__dict__.get("name"):
            UPSTREAM[cls.name] = cls
            cls.namespace = cls.name.split(".", 1)[0]


class FuncFunc(UpstreamOp):
    name = "func.func"


class FuncReturn(UpstreamOp):
    name = "func.return"
    terminator = True


class FuncCall(UpstreamOp):
    name = "func.call"
    plain_call = True


class StableHLOReturn(UpstreamOp):
    name = "stablehlo.return"
    terminator = True


class StableHLOConstant(UpstreamOp):
    name = "stablehlo.constant"


class StableHLOIota(UpstreamOp):
    name = "stablehlo.iota"


class StableHLOSort(UpstreamOp):
    name = "stablehlo.sort"


class StableHLOWhile(UpstreamOp):
    name = "stablehlo.while"


class StableHLOCase(UpstreamOp):
    name = "stablehlo.case"


class ScfWhile(UpstreamOp):
    """A loop inside one dispatch (``irax-loop-kernels``): on scalars inside a
    ``linalg.generic``, or on vectors inside a ``flow.dispatch.region``."""
    name = "scf.while"


class FlowDispatchRegion(UpstreamOp):
    """The op around a vector loop kernel (``irax-loop-kernels``): one dispatch."""
    name = "flow.dispatch.region"


class LinalgGeneric(UpstreamOp):
    """The op around a loop kernel (``irax-loop-kernels``)."""
    name = "linalg.generic"


class StableHLOGather(UpstreamOp):
    name = "stablehlo.gather"


class StableHLOScatter(UpstreamOp):
    name = "stablehlo.scatter"


class StableHLOReduce(UpstreamOp):
    name = "stablehlo.reduce"


class StableHLOAdd(UpstreamOp):
    name = "stablehlo.add"


class StableHLOMaximum(UpstreamOp):
    name = "stablehlo.maximum"


class StableHLOMinimum(UpstreamOp):
    name = "stablehlo.minimum"


class StableHLODot(UpstreamOp):
    name = "stablehlo.dot"


class StableHLODotGeneral(UpstreamOp):
    name = "stablehlo.dot_general"


class StableHLOConvolution(UpstreamOp):
    name = "stablehlo.convolution"


class BuiltinModule(UpstreamOp):
    name = "builtin.module"


class StableHLOReverse(UpstreamOp):
    name = "stablehlo.reverse"


class StableHLOReshape(UpstreamOp):
    name = "stablehlo.reshape"


class StableHLOTranspose(UpstreamOp):
    name = "stablehlo.transpose"


class FlowTransfer(UpstreamOp):
    """``flow.tensor.transfer``: IREE's placement of a value on a device."""

    name = "flow.tensor.transfer"


# elementwise math ops that irax-legalize-iree / irax-expand-libm rewrite for some dtypes
class StableHLOSine(UpstreamOp):
    name = "stablehlo.sine"


class StableHLOCosine(UpstreamOp):
    name = "stablehlo.cosine"


class StableHLOTan(UpstreamOp):
    name = "stablehlo.tan"


class StableHLOTanh(UpstreamOp):
    name = "stablehlo.tanh"


class StableHLOExp(UpstreamOp):
    name = "stablehlo.exponential"


class StableHLOLog(UpstreamOp):
    name = "stablehlo.log"


class StableHLOExpm1(UpstreamOp):
    name = "stablehlo.exponential_minus_one"


class StableHLOLog1p(UpstreamOp):
    name = "stablehlo.log_plus_one"


class StableHLOLogistic(UpstreamOp):
    name = "stablehlo.logistic"


class StableHLOFloor(UpstreamOp):
    name = "stablehlo.floor"


class StableHLOCeil(UpstreamOp):
    name = "stablehlo.ceil"


class StableHLORoundEven(UpstreamOp):
    name = "stablehlo.round_nearest_even"


class StableHLORoundAfz(UpstreamOp):
    name = "stablehlo.round_nearest_afz"


class StableHLOSqrt(UpstreamOp):
    name = "stablehlo.sqrt"


class StableHLORsqrt(UpstreamOp):
    name = "stablehlo.rsqrt"


class StableHLOAtan2(UpstreamOp):
    name = "stablehlo.atan2"


class StableHLOCbrt(UpstreamOp):
    name = "stablehlo.cbrt"


class StableHLOPower(UpstreamOp):
    name = "stablehlo.power"


class StableHLORemainder(UpstreamOp):
    name = "stablehlo.remainder"


def op_class(op) -> type[Op] | type[UpstreamOp] | None:
    """The class of an operation (or OpView): an irax op class, an ``UpstreamOp`` class, or
    None. (A ``func.func`` OpView's ``name`` is its symbol, hence ``op.operation``.)"""
    name = op.operation.name
    return REGISTRY.get(name) or UPSTREAM.get(name)


def is_function(op) -> bool:
    return op_class(op) is FuncFunc


def in_namespace(op, namespace: str) -> bool:
    """Whether ``op`` belongs to the dialect ``namespace`` ("chlo", "stablehlo", ...)."""
    return op.operation.name.split(".", 1)[0] == namespace
