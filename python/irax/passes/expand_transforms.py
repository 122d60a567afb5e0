"""irax-expand-transforms: expand every transformation op but irax.pmap (autodiff and
vmap), innermost first, whatever their nesting.

Before:
    %g = "irax.vmap"(%xs) {callee = @df, in_axes = array<i64: 0>, ...}
    func.func private @df(%x) { %0 = "irax.grad"(%x) {callee = @f, ...} ... }
After:
    %g = "irax.call"(%xs) {callee = @df_vmap}   // @df_vmap batches @df_grad's body
"""

from __future__ import annotations

from irax.passes.autodiff import Autodiff
from irax.passes.expand import expand_module
from irax.passes.registry import ModulePass, register_pass
from irax.passes.vectorize import Vectorize


@register_pass
class ExpandTransforms(ModulePass):
    """irax-expand-transforms: expand every transformation op (autodiff and vmap),
    innermost first"""

    name = "irax-expand-transforms"
    expands = Autodiff.expands + Vectorize.expands

    def run(self, module) -> None:
        expand_module(module, self.expands, self.name)
