"""irax-dce: erase irax ops whose results are unused (irax ops have no side effects).

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

from irax.passes.registry import ModulePass, register_pass


def _unused(op) -> bool:
    return all(len(list(r.uses)) == 0 for r in op.results)


def dce_block(block) -> int:
    """Erases dead irax ops of ``block`` (last to first); returns how many."""
    erased = 0
    for op in reversed(list(block.operations)):
        if op.name.startswith("irax.") and len(op.results) and _unused(op):
            op.erase()
            erased += 1
    return erased


def dce_module(module) -> int:
    erased = 0
    for fn in module.body.operations:
        for region in fn.regions:
            for block in region.blocks:
                erased += dce_block(block)
    return erased


@register_pass
class DCE(ModulePass):
    """irax-dce: erase irax ops whose results are unused"""

    name = "irax-dce"

    def run(self, module) -> None:
        dce_module(module)


@register_pass
class SymbolDCE(ModulePass):
    """irax-symbol-dce: erase private functions no public function references

    MLIR's symbol-dce refuses modules holding unregistered ops with regions (irax's
    control flow), so irax has its own."""

    name = "irax-symbol-dce"

    def run(self, module) -> None:
        from irax.passes.inline import drop_unreferenced

        drop_unreferenced(module)
