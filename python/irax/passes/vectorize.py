"""irax-vectorize: expand irax.vmap into batched functions.

Each ``irax.vmap`` is replaced by a call of ``@f_vmap``, in which every op of ``@f`` is
rewritten by its class's ``batch`` rule: the mapped axis is pushed into the op (a batch
dimension of ``dot_general``, an extra axis of an elementwise op), never a loop over
examples. Ops that do not touch mapped values are copied unchanged.

Before:
    func.func private @mv(%m: tensor<3x4xf32>, %v: tensor<4xf32>) -> tensor<3xf32> {
      %0 = "irax.dot_general"(%m, %v) {lhs_contracting_dimensions = array<i64: 1>,
             rhs_contracting_dimensions = array<i64: 0>} : (...) -> tensor<3xf32>
    %r = "irax.vmap"(%m, %vs) {callee = @mv, in_axes = array<i64: -1, 0>,
           out_axes = array<i64: 0>, axis_size = 8 : i64}
After:
    func.func private @mv_vmap(%m: tensor<3x4xf32>, %vs: tensor<8x4xf32>) -> tensor<8x3xf32>
      %0 = "irax.dot_general"(%vs, %m) {lhs_batch_dimensions = ..., ...}  // one batched op
"""

from __future__ import annotations

from irax.dialect.vectorize import Vmap
from irax.passes.expand import expand_module
from irax.passes.registry import ModulePass, register_pass


@register_pass
class Vectorize(ModulePass):
    """irax-vectorize: expand irax.vmap ops with each op's batching rule"""

    name = "irax-vectorize"
    expands = (Vmap,)

    def run(self, module) -> None:
        expand_module(module, self.expands, self.name)
