"""irax-expand-libm: rewrite the float64 math functions IREE 3.13 leaves to the C library
(``sine``, ``cosine``, ``tan``, ``tanh``, ``atan2``, ``cbrt``, ``remainder``; complex128
``sine``, ``cosine``, ``tan``, ``tanh``, ``exponential``, ``log``, ``sqrt``, ``rsqrt``,
``power``) into plain StableHLO
arithmetic (``lowering/libm64.py``), so that a program compiles for a CPU that
is not this one: IREE's embedded linker has no libm to resolve ``sin`` against. ``irax.export``
runs it for every cross-compiled CPU target (``aarch64``, ``riscv64``, ``wasm32``,
``x86_64``); the host build links the system's libm instead.

Before:
    %0 = stablehlo.sine %x : tensor<8xf64>
After:
    %0 = stablehlo.abs %x : tensor<8xf64>
    ...                               (argument reduction, polynomials: no call)
"""

from __future__ import annotations

import numpy as np

from irax.dialect import mlir
from irax.dialect import upstream as U
from irax.dialect.upstream import op_class
from irax.lowering import libm64
from irax.passes.legalize_iree import (
    StableHLOAtan2,
    StableHLOCbrt,
    StableHLOCosine,
    StableHLOExp,
    StableHLOPower,
    StableHLOSine,
    StableHLOTan,
    builder_at,
    replace_op,
)
from irax.passes.registry import ModulePass, register_pass


class StableHLOTanh(U.UpstreamOp):
    """``stablehlo.tanh`` (float64 ones rewritten by ``irax-expand-libm``)."""

    name = "stablehlo.tanh"


class StableHLOLog(U.UpstreamOp):
    """``stablehlo.log`` (complex128 ones rewritten by ``irax-expand-libm``)."""

    name = "stablehlo.log"


class StableHLOSqrt(U.UpstreamOp):
    """``stablehlo.sqrt`` (complex128 ones rewritten by ``irax-expand-libm``)."""

    name = "stablehlo.sqrt"


class StableHLORsqrt(U.UpstreamOp):
    """``stablehlo.rsqrt`` (complex128 ones rewritten by ``irax-expand-libm``)."""

    name = "stablehlo.rsqrt"


class StableHLORemainder(U.UpstreamOp):
    """``stablehlo.remainder`` (float64 ones rewritten by ``irax-expand-libm``)."""

    name = "stablehlo.remainder"


#: op class -> its float64 expansion, given the builder and the operands
EXPANSIONS = {
    StableHLOSine: lambda lb, x: libm64.sin_cos_tan(lb, x, "sin"),
    StableHLOCosine: lambda lb, x: libm64.sin_cos_tan(lb, x, "cos"),
    StableHLOTan: lambda lb, x: libm64.sin_cos_tan(lb, x, "tan"),
    StableHLOTanh: libm64.tanh,
    StableHLOAtan2: libm64.atan2_64,
    StableHLOCbrt: libm64.cbrt,
    StableHLORemainder: libm64.fmod,
}

#: op class -> its complex128 expansion
COMPLEX_EXPANSIONS = {
    StableHLOSine: lambda lb, z: libm64.complex_trig64(lb, z, "sin"),
    StableHLOCosine: lambda lb, z: libm64.complex_trig64(lb, z, "cos"),
    StableHLOTan: lambda lb, z: libm64.complex_trig64(lb, z, "tan"),
    StableHLOExp: lambda lb, z: libm64.complex_trig64(lb, z, "exp"),
    StableHLOLog: libm64.complex_log,
    StableHLOSqrt: libm64.complex_sqrt,
    StableHLORsqrt: libm64.complex_rsqrt,
    StableHLOTanh: libm64.complex_tanh,
    StableHLOPower: libm64.complex_power,
}


@register_pass
class ExpandLibm(ModulePass):
    """irax-expand-libm: float64 sin, cos, tan, tanh, atan2, cbrt and remainder, complex128
    sin, cos, tan, tanh, exp, log, sqrt, rsqrt and power as plain StableHLO arithmetic"""

    name = "irax-expand-libm"

    def run(self, module) -> None:
        todo = []

        def visit(op):
            table = {np.float64: EXPANSIONS, np.complex128: COMPLEX_EXPANSIONS}.get(
                mlir.aval_of(op.results[0]).dtype.type) if op.results else None
            expand = table.get(op_class(op)) if table else None
            if expand is not None:
                todo.append((expand, op))
            return mlir.ir().WalkResult.ADVANCE

        module.operation.walk(visit)
        for expand, op in todo:
            replace_op(op, [expand(builder_at(op), *op.operands)])
