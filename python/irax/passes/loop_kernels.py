"""irax-loop-kernels: turn each ``stablehlo.while`` of elementwise work on small carries
into one native loop (a ``linalg.generic`` whose body is an ``scf.while`` on scalars), so
that IREE runs the loop inside one dispatch instead of driving every trip from its host
VM. ``lowering/loop_kernel.py`` has the conditions and the IR before and after.

    irax-opt lowered.mlir -p irax-loop-kernels
"""

from __future__ import annotations

from irax.lowering.loop_kernel import rewrite_module
from irax.passes.registry import ModulePass, register_pass


@register_pass
class LoopKernels(ModulePass):
    """irax-loop-kernels: run while loops of elementwise work on small carries as one
    native loop"""

    name = "irax-loop-kernels"

    def run(self, module) -> None:
        rewrite_module(module)
