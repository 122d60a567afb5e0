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
from irax.lowering.builder import builder_at, replace_op
from irax.passes.registry import ModulePass, register_pass

#: op class -> its float64 expansion, given the builder and the operands
EXPANSIONS = {
    U.StableHLOSine: lambda lb, x: libm64.sin_cos_tan(lb, x, "sin"),
    U.StableHLOCosine: lambda lb, x: libm64.sin_cos_tan(lb, x, "cos"),
    U.StableHLOTan: lambda lb, x: libm64.sin_cos_tan(lb, x, "tan"),
    U.StableHLOTanh: libm64.tanh,
    U.StableHLOAtan2: libm64.atan2_64,
    U.StableHLOCbrt: libm64.cbrt,
    U.StableHLORemainder: libm64.fmod,
}

#: op class -> its complex128 expansion
COMPLEX_EXPANSIONS = {
    U.StableHLOSine: lambda lb, z: libm64.complex_trig64(lb, z, "sin"),
    U.StableHLOCosine: lambda lb, z: libm64.complex_trig64(lb, z, "cos"),
    U.StableHLOTan: lambda lb, z: libm64.complex_trig64(lb, z, "tan"),
    U.StableHLOExp: lambda lb, z: libm64.complex_trig64(lb, z, "exp"),
    U.StableHLOLog: libm64.complex_log,
    U.StableHLOSqrt: libm64.complex_sqrt,
    U.StableHLORsqrt: libm64.complex_rsqrt,
    U.StableHLOTanh: libm64.complex_tanh,
    U.StableHLOPower: libm64.complex_power,
}

_BY_DTYPE = {np.dtype(np.float64): EXPANSIONS, np.dtype(np.complex128): COMPLEX_EXPANSIONS}


@register_pass
class ExpandLibm(ModulePass):
    """irax-expand-libm: float64 sin, cos, tan, tanh, atan2, cbrt and remainder, complex128
    sin, cos, tan, tanh, exp, log, sqrt, rsqrt and power as plain StableHLO arithmetic"""

    name = "irax-expand-libm"

    def run(self, module) -> None:
        todo = []

        def visit(op):
            table = _BY_DTYPE.get(mlir.aval_of(op.results[0]).dtype) if op.results else None
            expand = table.get(op_class(op)) if table else None
            if expand is not None:
                todo.append((expand, op))
            return mlir.ir().WalkResult.ADVANCE

        module.operation.walk(visit)
        for expand, op in todo:
            replace_op(op, [expand(builder_at(op), *op.operands)])
