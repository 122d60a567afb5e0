"""irax-dce: erase irax ops whose results are unused, unless they have side effects
(``dialect/effects.py``: their class says so, or a function or region they run does).

MLIR's own DCE never erases unregistered ops, so irax needs this pass.

Before:
    %0 = "irax.sin"(%x) : (tensor<3xf32>) -> tensor<3xf32>     // unused
    %1 = "irax.cos"(%x) : (tensor<3xf32>) -> tensor<3xf32>
    return %1 : tensor<3xf32>
After:
    %1 = "irax.cos"(%x) : (tensor<3xf32>) -> tensor<3xf32>
    return %1 : tensor<3xf32>
"""

from __future__ import annotations

from irax.dialect.base import lookup
from irax.dialect.effects import Effects
from irax.dialect.funcs import function_blocks
from irax.passes.registry import ModulePass, register_pass


def _unused(op) -> bool:
    return all(len(list(r.uses)) == 0 for r in op.results)


def dce_block(block, effects: Effects) -> int:
    """Erases dead irax ops of ``block`` (last to first); returns how many."""
    erased = 0
    for op in reversed(list(block.operations)):
        if lookup(op.name) is not None and len(op.results) and _unused(op) and \
                not effects.has_effects(op):
            op.erase()
            erased += 1
    return erased


def dce_module(module) -> int:
    effects = Effects(module)
    return sum(dce_block(block, effects) for block in list(function_blocks(module)))


@register_pass
class DCE(ModulePass):
    """irax-dce: erase irax ops whose results are unused and that have no side effects"""

    name = "irax-dce"

    def run(self, module) -> None:
        dce_module(module)
