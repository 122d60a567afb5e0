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
    from irax.dialect.base import lookup

    erased = 0
    for op in reversed(list(block.operations)):
        if lookup(op.name) is not None and len(op.results) and _unused(op):
            op.erase()
            erased += 1
    return erased


def dce_module(module) -> int:
    from irax.dialect.funcs import function_blocks

    return sum(dce_block(block) for block in list(function_blocks(module)))


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
