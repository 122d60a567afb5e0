"""irax-split-reductions: reduce a long innermost extent in two stages, so that IREE's CPU
code adds whole vectors instead of one element after another.

IREE 3.13 keeps a floating-point reduction along the innermost dimension in order: each
element is added to one scalar accumulator (``vaddss`` after ``vaddss``), so the
reduction runs at the latency of one addition per element (a sum of 262,144 floats:
0.24 ms, where reading them takes 0.03 ms). A reduction whose innermost ``R`` elements
(the trailing reduced dimensions, taken together) split as ``R = (R / k) * k`` is rewritten
into a reduction over the ``R / k`` axis, which keeps ``k`` independent partial results
side by side (IREE vectorizes across them), followed by a reduction of the ``k`` partials.
``k`` is the largest of 64, 32, 16, 8 that divides ``R`` with ``k * k <= R``.

Sums change in their last bits (the order of the additions is another one; JAX makes no
promise about it either: XLA's CPU reductions are not sequential); maxima and minima are
exact. Only reductions of one operand whose init is the combiner's identity (so that it
may enter each partial) and whose region applies ``add``, ``maximum`` or ``minimum`` are
split, and only in modules without a ``stablehlo.while`` left (a loop IREE drives from
the host): in a batched ``eigh`` + ``svd`` program, splitting the Frobenius norm before
the loops made IREE 3.13 return a wrong ``svd`` (correct again with
``--iree-hal-memoization=false`` or ``--iree-hal-indirect-command-buffers=false``: its
command-buffer reuse around loops, as in the local-task race of docs/performance.md;
reproducer: docs/repro/split_norm_memoization.py).

Before:
    %0 = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [1]
           : (tensor<1024x128xf32>, tensor<f32>) -> tensor<1024xf32>
After:
    %r = stablehlo.reshape %x : (tensor<1024x128xf32>) -> tensor<1024x16x8xf32>
    %p = stablehlo.reduce(%r init: %zero) applies stablehlo.add across dimensions = [1]
           : (tensor<1024x16x8xf32>, tensor<f32>) -> tensor<1024x8xf32>
    %0 = stablehlo.reduce(%p init: %zero) applies stablehlo.add across dimensions = [1]
           : (tensor<1024x8xf32>, tensor<f32>) -> tensor<1024xf32>

Measured on one thread (iree-benchmark-module, AVX2): the sum above 42 -> 15 us, a sum of
262,144 floats 239 -> 46 us, of 8 rows of 32,768: 238 -> 34 us (docs/performance.md).
"""

from __future__ import annotations

import numpy as np

from irax.core.abstract import ShapedArray
from irax.dialect import mlir
from irax.dialect import raising as R
from irax.dialect import upstream as U
from irax.dialect.upstream import op_class
from irax.lowering.builder import builder_at, replace_op
from irax.passes.registry import ModulePass, register_pass

#: the partial results kept side by side, most first
LANES = (64, 32, 16, 8)

#: combiner class -> whether an init value is its identity
_IDENTITY = {
    U.StableHLOAdd: lambda v: v == 0,
    U.StableHLOMaximum: lambda v: v == -np.inf,
    U.StableHLOMinimum: lambda v: v == np.inf,
}


@register_pass
class SplitReductions(ModulePass):
    """irax-split-reductions: reduce a long innermost extent of floats in two stages (k
    partial results side by side, then those), which IREE's CPU code vectorizes"""

    name = "irax-split-reductions"

    def run(self, module) -> None:
        reduces, loops = candidates(module)
        if not loops:
            for op in reduces:
                split(op)


def candidates(module) -> tuple[list, bool]:
    """The ``stablehlo.reduce`` ops directly in a function's body (not in a kernel's or a
    loop's region), and whether ``module`` holds a ``stablehlo.while``."""
    reduces, loops = [], []

    def visit(op):
        cls = op_class(op)
        if cls is U.StableHLOReduce and op_class(op.operation.parent) is U.FuncFunc:
            reduces.append(op)
        elif cls is U.StableHLOWhile:
            loops.append(op)
        return mlir.ir().WalkResult.ADVANCE

    module.operation.walk(visit)
    return reduces, bool(loops)


def lanes(extent: int) -> int | None:
    """The number of partial results for an innermost extent (None: not worth a split)."""
    return next((k for k in LANES if extent % k == 0 and k * k <= extent), None)


def split(op) -> bool:
    """Rewrites one ``stablehlo.reduce`` in two stages when it qualifies; whether it did."""
    if len(op.operands) != 2 or len(op.results) != 1:
        return False
    x, init = op.operands
    a = mlir.aval_of(x)
    if not a.is_static or a.ndim == 0 or not np.issubdtype(a.dtype, np.floating):
        return False
    name = R.reducer(op)
    identity = _IDENTITY.get(U.UPSTREAM.get(name)) if name else None
    value = R.constant_value(init)
    if identity is None or value is None or not identity(value.item()):
        return False
    dims = sorted(R.i64s(op, "dimensions"))
    trailing = 0
    while trailing < a.ndim and a.ndim - 1 - trailing in dims:
        trailing += 1
    if not trailing:
        return False
    lead = a.shape[:a.ndim - trailing]
    extent = int(np.prod(a.shape[a.ndim - trailing:]))
    k = lanes(extent)
    if k is None:
        return False
    lb = builder_at(op)
    grid = lb.op("stablehlo.reshape", [x], ShapedArray((*lead, extent // k, k), a.dtype))
    first_dims = [d for d in dims if d < len(lead)] + [len(lead)]
    kept = [n for i, n in enumerate(lead) if i not in dims]
    partial = lb.reduce(grid, init, first_dims, name, ShapedArray((*kept, k), a.dtype))
    replace_op(op, [lb.reduce(partial, init, [len(kept)], name, mlir.aval_of(op.results[0]))])
    return True
