"""Loops and branches partitioned: ``irax.while``, ``irax.scan`` and ``irax.cond`` run
on the devices' blocks, their regions partitioned like the function around them.

Each of these op classes carries a ``shard_regions(p, **attrs)`` rule beside its
``shard`` one: given ``p`` (a ``RegionPartitioner``: the operands' shardings ``p.specs``
and ``p.trial``, which partitions one region for given argument shardings and says what
shardings its results come out with) it returns a ``RegionPlan``: the sharding each
operand needs, each region's arguments and results, and the op's results. As in JAX, a
loop's carry keeps the sharding of its initial value, split further where the body
splits it more (``sharding.settled_carry``: the body is tried with the carry's
shardings until its results ask for nothing more), and the body's results are moved to
the carry's sharding at the end of every trip (nothing moves where it keeps it). A
scan's scanned dimension stays whole; a branch's results take the first branch's
sharding, refined where another splits them further; a loop's condition and a branch
index are replicated, the same on every device (a condition over split data combines
the devices' partial answers with a collective inside the condition region).

Before (rows split over "x"):
    %r = "irax.while"(%x) ({ ^bb0(%c: tensor<8x4xf32>): ... }, {
      ^bb0(%c: tensor<8x4xf32>):
        %d = "irax.mul"(%c, %c) ...
        "irax.return"(%d) : (tensor<8x4xf32>) -> ()
    }) {num_consts = 0 : i64}
After, in the per-device function:
    %r = "irax.while"(%x) ({ ^bb0(%c: tensor<4x4xf32>): ... }, {
      ^bb0(%c: tensor<4x4xf32>):
        %d = "irax.mul"(%c, %c) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
        "irax.return"(%d) : (tensor<4x4xf32>) -> ()
    }) {num_consts = 0 : i64}
"""

from __future__ import annotations

from irax.dialect import funcs, mlir
from irax.dialect import sharding as S
from irax.dialect.base import lookup
from irax.dialect.builder import IRBuilder
from irax.dialect.regions import emit_region_op
from irax.shard.reshard import operand, replicas, scatters, settle


class RegionPartitioner:
    """What a ``shard_regions`` rule asks of the partitioner for one region op."""

    def __init__(self, module, mesh, op, env, partition_block):
        self.module, self.mesh, self.op = module, mesh, op
        self._block = partition_block
        #: the operands' shardings as they are (partial sums completed where used)
        self.specs = [S.pad(env[v][1], mlir.aval_of(v).ndim) for v in op.operands]
        self.num_regions = len(op.regions)

    def trial(self, region: int, arg_specs, wants=None) -> list:
        """The shardings the results of region ``region`` come out with when its
        arguments have ``arg_specs``; a result's partial sums completed towards its entry
        of ``wants`` (None: as it is), a reduce-scatter where that splits a dimension."""
        block = self.op.regions[region].blocks[0]
        local = [self.local_aval(a, s) for a, s in zip(block.arguments, arg_specs)]
        name = funcs.unique_name(self.module, "__irax_partition_trial")
        fn, scratch = funcs.create_function(self.module, name, local)
        try:
            b = IRBuilder.at_end(scratch)
            results = self._block(self.module, b, self.mesh, block,
                                  self._entries(block, scratch.arguments, arg_specs))
        finally:
            fn.erase()
        wants = list(wants or []) + [None] * (len(results) - len(wants or []))
        out = []
        for (_, have, pending, _), want in zip(results, wants):
            have = list(have)
            for d, a in scatters(have, pending, S.pad(want, len(have)) if want else have):
                have[d] = (a,)
            out.append(tuple(have))
        return out

    def local_aval(self, value, spec):
        """The aval of this device's block of ``value`` under ``spec``."""
        a = mlir.aval_of(value)
        return a.update(shape=self.mesh.local_shape(a.shape, S.pad(spec, a.ndim)))

    def _entries(self, block, args, specs) -> dict:
        """The ``env`` of a region's block: its arguments as ``args`` under ``specs``."""
        padded = [S.pad(s, mlir.aval_of(old).ndim) for old, s in zip(block.arguments, specs)]
        return {old: (new, s, (), replicas(s, self.mesh))
                for old, new, s in zip(block.arguments, args, padded)}

    def fill(self, region: int, plan):
        """The ``emit_region_op`` filler of region ``region`` under ``plan``: its ops on
        the devices' blocks, its results moved to the plan's shardings."""
        block = self.op.regions[region].blocks[0]

        def fill(b, args):
            results = self._block(self.module, b, self.mesh, block,
                                  self._entries(block, args, plan.args[region]))
            return [settle(b, v, have, pending, S.pad(want, b.aval(v).ndim), self.mesh, same)
                    for (v, have, pending, same), want in zip(results, plan.results[region])]
        return fill


def partition_region_op(module, b, mesh, op, env, partition_block) -> list:
    """Emits the per-device form of the region op ``op`` (its class has a
    ``shard_regions`` rule) with builder ``b``; returns its results' ``env`` entries.
    ``partition_block``: the partitioner's ``_partition_block``, which partitions each
    region."""
    cls = lookup(op.name)
    attrs = cls.decode_attrs(op)
    p = RegionPartitioner(module, mesh, op, env, partition_block)
    plan = cls.shard_regions(p, **attrs)
    local = []
    for v, need in zip(op.operands, plan.operands):
        local.append(operand(b, env, v, S.pad(need, mlir.aval_of(v).ndim), mesh)[0])
    regions = [([p.local_aval(a, s) for a, s in zip(r.blocks[0].arguments, plan.args[i])],
                p.fill(i, plan)) for i, r in enumerate(op.regions)]
    outs = [p.local_aval(r, s) for r, s in zip(op.results, plan.out)]
    results = emit_region_op(b, cls, local, regions, outs, **attrs)
    entries = []
    for r, spec in zip(results, plan.out):
        spec = S.pad(spec, b.aval(r).ndim)
        entries.append((r, spec, (), replicas(spec, mesh)))
    return entries
