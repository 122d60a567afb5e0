"""How much arithmetic a lowered program's matrix products and convolutions hold.

``contraction_flops(module)`` sums, over every ``stablehlo.dot_general``, ``stablehlo.dot``
and ``stablehlo.convolution`` of a StableHLO module (loop bodies counted once), the
multiply-adds one execution of the op performs. The runtime uses it to choose between
running a program on the calling thread and spreading it over a thread pool: elementwise
work is bound by memory bandwidth, which one core nearly saturates, while contractions
scale with cores once they are large enough to pay for the hand-off.

    %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0]
        : (tensor<128x784xf32>, tensor<784x512xf32>) -> tensor<128x512xf32>

holds 128 * 512 * 784 = 51,380,224 multiply-adds.

``measure(module)`` makes one walk for everything the runtime asks of a program: those
multiply-adds, whether it holds a loop, the elements its ops produce (each op's results
counted once: the work of running it op by op on NumPy, as ``jit``'s first calls may),
and the first op computing on an element type IREE 3.13 compiles wrongly, and whether it
calls host functions.
"""

from __future__ import annotations

import math
import re

from irax.core import callbacks
from irax.core.shape_poly import DYNAMIC_SIZE_ESTIMATE
from irax.dialect import mlir
from irax.dialect import raising as R
from irax.dialect import upstream as U

_CONV_KERNEL = re.compile(r"x\[([^\]]*)\]->")


def _shape(value) -> list[int] | None:
    t = value.type
    ir = mlir.ir()
    if t.typeid != ir.RankedTensorType.static_typeid:
        return None
    t = ir.RankedTensorType(t)
    return [DYNAMIC_SIZE_ESTIMATE if t.is_dynamic_dim(i) else d for i, d in enumerate(t.shape)]


def _dot_general(op) -> tuple[int, tuple[int, int, int, bool] | None]:
    """The multiply-adds of a ``stablehlo.dot_general`` and its shape as
    ``Work.products`` holds it, ``(rows, columns, depth, batched)``: the extents (each a
    product of dimensions) of its left operand's free dimensions, its right operand's,
    and its contracting dimensions, and whether it has batch dimensions; from one read of
    its dimension numbers."""
    lhs, rhs, out = (_shape(v) for v in (op.operands[0], op.operands[1], op.results[0]))
    if lhs is None or out is None:
        return 0, None
    dims = R.fields(op, "dot_dimension_numbers")
    k = math.prod(lhs[d] for d in dims.get("lhs_contracting_dimensions", ()))
    if rhs is None:
        return math.prod(out) * k, None

    def free(shape, side):
        bound = set(dims.get(f"{side}_contracting_dimensions", ())) | \
            set(dims.get(f"{side}_batching_dimensions", ()))
        return math.prod(e for d, e in enumerate(shape) if d not in bound)
    batched = bool(dims.get("lhs_batching_dimensions"))
    return math.prod(out) * k, (free(lhs, "lhs"), free(rhs, "rhs"), k, batched)


def _dot(op) -> int:
    lhs, out = _shape(op.operands[0]), _shape(op.results[0])
    if lhs is None or out is None:
        return 0
    return math.prod(out) * (lhs[-1] if lhs else 1)


def _convolution(op) -> int:
    kernel, out = _shape(op.operands[1]), _shape(op.results[0])
    if kernel is None or out is None:
        return 0
    found = _CONV_KERNEL.search(str(op.attributes["dimension_numbers"]))
    spec = [s.strip() for s in found.group(1).split(",")] if found else []
    o = spec.index("o") if "o" in spec else len(kernel) - 1
    # each output element sums over the kernel's window and input features
    return math.prod(out) * math.prod(kernel) // max(kernel[o], 1)


_RULES = {U.StableHLODot: _dot, U.StableHLOConvolution: _convolution}


#: element types IREE 3.13 compiles but computes wrongly: float8_e8m0fnu ``2 + 2`` came
#: out as ``2``, ``4 * 4`` as ``5.9e-39`` (conversions to and from it are right)
_WRONG_ARITHMETIC = ("f8E8M0FNU",)
#: ops that only move, convert or select values: safe on any element type
_MOVES = frozenset((
    "stablehlo.convert", "stablehlo.bitcast_convert", "stablehlo.constant",
    "stablehlo.reshape", "stablehlo.transpose", "stablehlo.broadcast_in_dim",
    "stablehlo.slice", "stablehlo.dynamic_slice", "stablehlo.dynamic_update_slice",
    "stablehlo.concatenate", "stablehlo.select", "stablehlo.pad", "stablehlo.gather",
    "stablehlo.reverse", "stablehlo.optimization_barrier", "stablehlo.tuple",
    "stablehlo.get_tuple_element", "func.return", "func.call", "func.func",
    "builtin.module", "stablehlo.return", "stablehlo.while", "stablehlo.case",
    "stablehlo.if", "flow.tensor.transfer"))


_HOST = f"@{callbacks.HOST_MODULE}."
#: the public function's attribute naming the results whose storage the caller passes
#: (written by ``passes/output_storage.py``)
OUTPUTS_ATTR = "irax.output_storage"


class Work:
    """What one walk of a lowered module found (``measure``)."""

    __slots__ = ("flops", "loops", "elements", "wrong", "host_calls", "host_loops",
                 "kernel_elements", "nested_loops", "products", "outputs")

    def __init__(self, flops: int = 0, loops: bool = False, elements: int = 0,
                 host_loops: bool | None = None, kernel_elements: int = 0):
        self.flops = flops
        #: whether it holds a loop of any kind (the reference interpreter pays each trip)
        self.loops = loops
        self.elements = elements
        #: whether a loop runs from the host (its trips driven by IREE's VM), and the most
        #: elements a loop kernel (a loop inside one dispatch, ``irax-loop-kernels``) runs
        #: its loop for, each independently
        self.host_loops = loops if host_loops is None else host_loops
        self.kernel_elements = kernel_elements
        #: whether a host-driven loop holds another (IREE 3.13's compiler was seen to
        #: crash on such programs: they compile in a separate process)
        self.nested_loops = False
        #: whether it calls host functions (callbacks: ``core/callbacks.py``)
        self.host_calls = False
        #: the shapes of its matrix products, ``(rows, columns, depth, batched)`` each
        #: (``_dot_general``): programs with wide products of many rows keep IREE's data
        #: tiling (``runtime/compiler.py avx2_matmul_tiles``), the others' tiles are
        #: blocked to their shapes (``runtime/avx2_tiles.py``)
        self.products: set[tuple[int, int, int, bool]] = set()
        #: the first op computing on an element type IREE gets wrong ("stablehlo.add on
        #: f8E8M0FNU"), or None
        self.wrong = None
        #: the results whose storage the caller passes, in order, as trailing arguments
        #: (``irax.output_storage`` on the public function: ``passes/output_storage.py``)
        self.outputs: tuple[int, ...] = ()


def measure(module) -> Work:
    """The contraction multiply-adds, loops and produced elements of ``module``."""
    ir = mlir.ir()
    work = Work()
    bad: dict = {}      # type -> the wrong element type it holds, or "" (types hash)

    def wrong(t) -> str:
        hit = bad.get(t)
        if hit is None:
            text = str(t)
            hit = bad[t] = next((w for w in _WRONG_ARITHMETIC if w in text), "")
        return hit

    def visit(op):
        cls = U.op_class(op)
        rule = _RULES.get(cls)
        if cls is U.StableHLODotGeneral:
            flops, shape = _dot_general(op)
            work.flops += flops
            if shape is not None:
                work.products.add(shape)
        elif rule is not None:
            work.flops += rule(op)
        elif cls is U.StableHLOWhile or cls is U.ScfWhile:
            work.loops = True
            kernel = _enclosing(op, U.LinalgGeneric)
            if kernel is not None:     # a scalar kernel: the elements it loops for
                shape = _shape(kernel.results[0]) if len(kernel.results) else None
                work.kernel_elements = max(work.kernel_elements,
                                           math.prod(shape) if shape is not None else 0)
            elif _enclosing(op, U.FlowDispatchRegion) is None:   # not a vector kernel's
                work.host_loops = True
                work.nested_loops = work.nested_loops or \
                    _enclosing(op, U.StableHLOWhile) is not None
        elif cls is U.FuncCall and str(op.attributes["callee"]).startswith(_HOST):
            work.host_calls = True
        elif cls is U.FuncFunc and OUTPUTS_ATTR in op.attributes:
            work.outputs = tuple(ir.DenseI64ArrayAttr(op.attributes[OUTPUTS_ATTR]))
        for r in op.results:
            shape = _shape(r)
            work.elements += math.prod(shape) if shape is not None else 0
        if work.wrong is None and op.name not in _MOVES:
            for v in (*op.operands, *op.results):
                w = wrong(v.type)
                if w:
                    work.wrong = f"{op.name} on {w}"
                    break
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return work


def _enclosing(op, cls):
    """The nearest op of class ``cls`` that ``op`` is nested in (within its function), or
    None: the ``linalg.generic`` of a loop kernel, the ``stablehlo.while`` of a loop."""
    parent = op.operation.parent
    while parent is not None and U.op_class(parent) is not U.FuncFunc:
        if U.op_class(parent) is cls:
            return parent
        parent = parent.parent
    return None


def contraction_flops(module) -> int:
    """The multiply-adds of ``module``'s contractions (each op counted once)."""
    return measure(module).flops
