"""irax-shard: expand irax.pmap into per-device code joined by transfers.

Each ``irax.pmap`` becomes a call of ``@f_pmap``, in which the callee's body is repeated
once per device (``shard/split.py``).

Before:
    %y = "irax.pmap"(%xs) {callee = @f, in_axes = array<i64: 0>, out_axes = array<i64: 0>,
           axis_size = 2 : i64, axis_name = "i", devices = array<i64: 0, 1>}
After:
    func.func private @f_pmap(%xs: tensor<2x3xf32>) -> tensor<2x3xf32> {
      %a = "irax.slice"(%xs) ... %a0 = "irax.reshape"(%a) ...
      %x0 = "irax.transfer"(%a0) {device = 0 : i64}
      ... (the same for device 1, then @f's ops once per device)
    %y = "irax.call"(%xs) {callee = @f_pmap}
"""

from __future__ import annotations

from irax.dialect.shard import Pmap
from irax.passes.expand import expand_module
from irax.passes.registry import ModulePass, register_pass


@register_pass
class Shard(ModulePass):
    """irax-shard: expand irax.pmap ops into per-device code with irax.transfer ops"""

    name = "irax-shard"
    expands = (Pmap,)

    def run(self, module) -> None:
        expand_module(module, self.expands, self.name)
