"""irax-expand-libm: rewrite the float64 math functions IREE 3.13 leaves to the C library
(``sine``, ``cosine``, ``tan``, ``tanh``, ``atan2``, ``cbrt``, ``remainder``; on some
targets ``exponential``, ``exponential_minus_one``, ``log``, ``log_plus_one``, ``power``,
``logistic``, ``floor``, ``ceil``, ``round_nearest_even``/``afz``; complex128 ``sine``,
``cosine``, ``tan``, ``tanh``, ``exponential``, ``exponential_minus_one``, ``log``,
``log_plus_one``, ``sqrt``, ``rsqrt``, ``power``)
into plain StableHLO arithmetic (``lowering/libm64.py``, ``lowering/exp_log64.py``), so
that a program compiles for a CPU that is not this one: IREE's embedded linker has no
libm to resolve ``sin`` against (expansions that use ``exp`` or ``log`` get those
expanded in a next round). ``irax.export``
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
from irax.lowering import exp_log64, libm64
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
    U.StableHLOExp: exp_log64.exp,
    U.StableHLOLog: exp_log64.log,
    U.StableHLOExpm1: exp_log64.expm1,
    U.StableHLOLog1p: exp_log64.log1p,
    U.StableHLOLogistic: exp_log64.logistic,
    U.StableHLOPower: exp_log64.power,
    U.StableHLOFloor: exp_log64.floor,
    U.StableHLOCeil: exp_log64.ceil,
    U.StableHLORoundEven: exp_log64.round_even,
    U.StableHLORoundAfz: exp_log64.round_afz,
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
    U.StableHLOExpm1: exp_log64.complex_expm1,
    U.StableHLOLog1p: exp_log64.complex_log1p,
}

_BY_DTYPE = {np.dtype(np.float64): EXPANSIONS, np.dtype(np.complex128): COMPLEX_EXPANSIONS}


@register_pass
class ExpandLibm(ModulePass):
    """irax-expand-libm: float64 sin, cos, tan, tanh, atan2, cbrt, remainder, exp, expm1,
    log, log1p, power, logistic and roundings, complex128 sin, cos, tan, tanh, exp, expm1,
    log, log1p, sqrt, rsqrt and power as plain StableHLO arithmetic"""

    name = "irax-expand-libm"

    def run(self, module) -> None:
        while True:   # expansions may use exp and log, expanded in the next round
            todo = _expandable(module)
            if not todo:
                return
            for expand, op in todo:
                replace_op(op, [expand(builder_at(op), *op.operands)])


def _expandable(module) -> list:
    """``(expansion, op)`` for every op of ``module`` this pass rewrites."""
    todo = []

    ir = mlir.ir()

    def visit(op):
        # (a kernel's dispatch region holds scalars and vectors: not StableHLO's to expand)
        if not op.results or not isinstance(op.results[0].type, ir.RankedTensorType):
            return ir.WalkResult.ADVANCE
        table = _BY_DTYPE.get(mlir.aval_of(op.results[0]).dtype)
        expand = table.get(op_class(op)) if table else None
        if expand is not None:
            todo.append((expand, op))
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return todo
