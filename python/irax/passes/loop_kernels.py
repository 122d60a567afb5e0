"""irax-loop-kernels: turn each ``stablehlo.while`` of elementwise work on small carries
into one native loop (a ``linalg.generic`` whose body is an ``scf.while`` on scalars), so
that IREE runs the loop inside one dispatch instead of driving every trip from its host
VM. ``lowering/loop_kernel.py`` has the conditions and the IR before and after. Each
other loop on a small state (scalars, vectors, products with a fixed matrix, rows of
larger tensors) becomes one dispatch of vector code (``lowering/vector_kernel.py``)
unless ``vectors=false``: that kernel runs on one thread, which suits CPUs, not GPUs.

    irax-opt lowered.mlir -p irax-loop-kernels
    irax-opt lowered.mlir -p 'builtin.module(irax-loop-kernels{vectors=false})'
"""

from __future__ import annotations

from irax.lowering import vector_loop
from irax.lowering.loop_kernel import rewrite_module
from irax.passes.registry import ModulePass, Option, register_pass


@register_pass
class LoopKernels(ModulePass):
    """irax-loop-kernels: run while loops on small carries as one native loop (elementwise
    work on scalars, other work on vectors)"""

    name = "irax-loop-kernels"
    options = {"vectors": Option(bool, True, "also make vector kernels (CPU targets)")}

    def run(self, module) -> None:
        rewrite_module(module)
        if self.option("vectors"):
            vector_loop.rewrite_module(module)
