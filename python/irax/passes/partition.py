"""irax-partition: SPMD partitioning of functions annotated with a mesh and shardings.

A public function with an ``irax.mesh`` attribute (or ``irax.sharding_constraint`` ops)
becomes one ``irax.shard_map`` over a generated per-device function: shardings propagate
op by op through each op's ``shard`` rule, and the data movement between shardings and
the completion of partial results become collectives (``shard/partition.py``).
``irax-shard`` then expands the shard_map per device.

Before:
    func.func @main(%x: tensor<8x4xf32> {irax.sharding = [["x"]]}) -> tensor<f32>
        attributes {irax.mesh = {axes = ["x"], devices = array<i64: 0, 1>,
                                 shape = array<i64: 2>}} {
      %0 = "irax.reduce_sum"(%x) {axes = array<i64: 0, 1>}
After:
    %r = "irax.shard_map"(%blocks) {callee = @main_spmd, ...}
    func.func private @main_spmd(%x: tensor<4x4xf32>) -> tensor<f32> {
      %0 = "irax.reduce_sum"(%x) {axes = array<i64: 0, 1>}
      %1 = "irax.psum"(%0) {axis_name = "x"}
"""

from __future__ import annotations

from irax.passes.registry import ModulePass, register_pass
from irax.shard.partition import partition_module


@register_pass
class Partition(ModulePass):
    """irax-partition: partition functions with sharding annotations into a shard_map of
    per-device code with collectives"""

    name = "irax-partition"

    def run(self, module) -> None:
        partition_module(module)
