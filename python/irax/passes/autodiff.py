"""irax-autodiff: expand irax.jvp / irax.vjp / irax.grad / irax.value_and_grad.

Each transformation op is replaced by an ``irax.call`` of a generated private function,
innermost first (a callee's own transformation ops are expanded before it is
differentiated, so grad of grad works), memoized per callee and options.

Before:
    func.func private @f(%x: tensor<f32>) -> tensor<f32> {
      %0 = "irax.sin"(%x) : (tensor<f32>) -> tensor<f32>
      return %0 : tensor<f32>
    }
    func.func @main(%x: tensor<f32>) -> tensor<f32> {
      %g = "irax.grad"(%x) {argnums = array<i64: 0>, callee = @f} : ...
After:
    func.func private @f_vjp(%x: tensor<f32>, %ct: tensor<f32>) -> (tensor<f32>, tensor<f32>)
      ... "irax.cos"(%x) ... "irax.mul"(%ct, %cos) ...
    func.func private @f_grad(%x: tensor<f32>) -> tensor<f32>  // calls @f_vjp with ct = 1
    func.func @main(%x: tensor<f32>) -> tensor<f32> {
      %g = "irax.call"(%x) {callee = @f_grad} : (tensor<f32>) -> tensor<f32>
"""

from __future__ import annotations

from irax.dialect.autodiff import Differentiation
from irax.passes.expand import expand_module
from irax.passes.registry import ModulePass, register_pass


@register_pass
class Autodiff(ModulePass):
    """irax-autodiff: expand differentiation ops into generated functions"""

    name = "irax-autodiff"
    expands = (Differentiation,)

    def run(self, module) -> None:
        expand_module(module, self.expands, self.name)
