"""irax-symbol-dce: erase private functions no public function references.

MLIR's symbol-dce refuses modules holding unregistered ops with regions (irax's control
flow), so irax has its own. References are the symbol attributes of irax ops (callees,
custom rules) and ``func.call``'s callee.

Before:
    func.func private @unused(%x: tensor<f32>) -> tensor<f32> { ... }
    func.func @main(%x: tensor<f32>) -> tensor<f32> { ... }
After:
    func.func @main(%x: tensor<f32>) -> tensor<f32> { ... }
"""

from __future__ import annotations

from irax.dialect import funcs
from irax.dialect.upstream import is_function
from irax.passes.registry import ModulePass, register_pass


def drop_unreferenced(module) -> None:
    """Erases the functions no public function reaches."""
    publics = [funcs.symbol_name(f) for f in module.body.operations
               if is_function(f) and funcs.is_public(f)]
    live = set()
    for name in publics:
        live.update(funcs.symbol_name(f) for f in funcs.reachable_functions(module, name))
    for fn in list(module.body.operations):
        if is_function(fn) and funcs.symbol_name(fn) not in live:
            fn.operation.erase()


@register_pass
class SymbolDCE(ModulePass):
    """irax-symbol-dce: erase private functions no public function references"""

    name = "irax-symbol-dce"

    def run(self, module) -> None:
        drop_unreferenced(module)
