"""A partitioned jit run as one program per device, each on a thread of its own.

``jit(f, in_shardings=, out_shardings=)`` over a mesh of CPU devices is traced whole and
partitioned by ``irax-partition`` into a per-device function with collectives
(``shard/partition.py``). Compiled into one multi-device program, IREE 3.13 would run its
devices one after another; so, like a top-level ``shard_map`` (``transforms/spmd.py``),
the per-device function runs as a program per device on threads of their own: it is
replayed op by op into each device's trace, where its collectives become host exchanges,
each device gets its own shard of every argument (no gather) and each result is left as
the devices' shards.

    step = irax.jit(step, in_shardings=(rep, rows, rows), out_shardings=(rep, rep))
    step(params, x, y)     # 4 devices: 4 threads, each on its quarter of the batch

What this path cannot run (loops, branches or calls left in the per-device function,
devices that are not CPUs, programs too small to repay the threads) runs as the one
multi-device program instead, with the same values.
"""

from __future__ import annotations

import threading

from irax.core import tree_util
from irax.core.config import config
from irax.dialect import funcs, mlir
from irax.dialect.base import lookup
from irax.dialect.collective import Collective
from irax.dialect.constant import Constant
from irax.dialect.control import is_return
from irax.frontend.axes import emit_collective
from irax.frontend.compile import clone_module
from irax.frontend.trace import bind
from irax.passes import run_pipeline
from irax.runtime import mesh as mesh_lib
from irax.shard.partition import partition_function
from irax.transforms.device_program import DeviceEntry
from irax.transforms.layout import ir_mesh, is_placement, partition_spec, placements
from irax.transforms.spmd import NotSpmd, SpmdProgram, device_blocks


class Partitioned:
    """One specialization's partitioned program: the per-device function (``replay``),
    the mesh and the flat ``PartitionSpec`` of each argument and result; ``program`` is
    its ``SpmdProgram`` once made (False when it cannot run on threads)."""

    def __init__(self, trace_module, mesh):
        self.mesh = mesh
        module = clone_module(trace_module)
        run_pipeline(module, "builtin.module(irax-expand-transforms)")
        fn = module.body.operations[0]
        with mlir.context(), mlir.unknown_loc():
            name, ins, outs = partition_function(module, fn, ir_mesh(mesh))
        self.module = module   # keeps the replayed function's IR alive
        self.name = name
        self.one = None   # its DeviceEntry once made (False when it cannot run so)
        self.in_specs = [partition_spec(s) for s in ins]
        self.out_specs = [partition_spec(s) for s in outs]
        self.program = None
        try:
            self.replay = _Replay(funcs.symbol_table(module)[name])
        except NotSpmd:
            self.program = False

    def __call__(self, leaves, jit):
        """The results (flat, sharded arrays) of the per-device programs on threads, else
        of the per-device function as one multi-device program with the devices' blocks
        at its boundary (``device_program.py``); None where the caller must run the
        stacked multi-device program."""
        outs = None
        if self.program is not False and config.irax_shard_map_threads:
            try:
                if self.program is None:
                    self.program = SpmdProgram(self.replay, self.mesh, jit)
                outs = self.program(tuple(leaves), self.in_specs,
                                    lambda tree, avals: self.out_specs)
            except NotSpmd:
                self.program = False
        if outs is None and self.one is not False and config.irax_device_program:
            try:
                if self.one is None:
                    self.one = DeviceEntry(clone_module(self.module), self.name, self.mesh,
                                           lambda avals: self.out_specs, self.name)
                outs = self.one.run(device_blocks(leaves, self.in_specs, self.mesh))
            except NotSpmd:
                self.one = False
        return outs


class _Replay:
    """Calls the ops of a region-free function in the current trace, one ``bind`` each,
    its collectives through their mesh axis' handler (the devices meet there); raises
    ``NotSpmd`` for a function this cannot replay."""

    def __init__(self, fn):
        self.block = fn.regions[0].blocks[0]
        self.steps = []
        for op in self.block.operations:
            if is_return(op):
                self.steps.append((None, op, None))
                continue
            cls = lookup(op.name)
            if cls is None or len(op.regions) or funcs.symbol_refs(op):
                raise NotSpmd(f"{op.name} in the per-device function")
            if cls is Constant and any(
                    mlir.aval_of(r).dtype.kind == "c" for r in op.results):
                raise NotSpmd("a complex constant")   # its attribute is not read into Python
            self.steps.append((cls, op, cls.decode_attrs(op)))
        self.__name__ = self.__qualname__ = funcs.symbol_name(fn)

    def __call__(self, *blocks):
        env = dict(zip(self.block.arguments, blocks))
        for cls, op, attrs in self.steps:
            operands = [env[v] for v in op.operands]
            if cls is None:
                return operands
            out = emit_collective(cls, operands, attrs) if issubclass(cls, Collective) \
                else bind(cls, *operands, **attrs)
            env.update(zip(op.results, out if isinstance(out, list) else [out]))
        raise NotSpmd("a function without a return")


def run_partitioned(entry, leaves, jitted, jit):
    """``entry``'s partitioned program (of ``jitted``, a ``JitFunction``) as a program per
    device on threads, or as one program with the devices' blocks at its boundary; None
    where the caller runs the stacked multi-device program (donated arguments, both ways
    off, or a program neither can run)."""
    if entry.partitioned is None or jitted.donate_argnums or jitted.donate_argnames or \
            not (config.irax_shard_map_threads or config.irax_device_program):
        return None
    partitioned(entry)
    return run_threaded(entry, leaves, jit)


def run_threaded(entry, leaves, jit):
    """``entry``'s partitioned program on threads: its results as ``entry.out_tree``, or
    None (run the one multi-device program)."""
    part = entry.partitioned
    if part is None or any(d.platform != "cpu" for d in part.mesh.devices.flat):
        return None
    outs = part(leaves, jit)
    return None if outs is None else tree_util.tree_unflatten(entry.out_tree, list(outs))


_LOCK = threading.Lock()


def partitioned(entry) -> Partitioned:
    """``entry.partitioned`` (set by the trace to the mesh its program is partitioned over)
    made a ``Partitioned`` on first use, once whatever the number of threads asking."""
    if not isinstance(entry.partitioned, Partitioned):
        with _LOCK:
            if not isinstance(entry.partitioned, Partitioned):
                entry.partitioned = Partitioned(entry.trace_module, entry.partitioned)
    return entry.partitioned


def propagated(entry, out, out_shardings, lay_out):
    """The results of ``entry``'s one multi-device program laid out as ``irax-partition``
    propagated them, where ``out_shardings`` leaves them open (None, or a None leaf): JAX
    returns those shardings, and the program per device on threads leaves its shards so.
    ``lay_out(leaf, sharding, api, what)`` puts one (``placement.lay_out``)."""
    if entry.partitioned is None or is_placement(out_shardings):   # (one for all results)
        return out
    part = partitioned(entry)
    leaves, tree = tree_util.tree_flatten(out)
    given = [None] * len(leaves) if out_shardings is None else \
        placements(out, out_shardings, "jit out_shardings", "outputs")
    if len(given) != len(leaves) or len(part.out_specs) != len(leaves):
        return out
    return tree_util.tree_unflatten(tree, [
        leaf if g is not None else
        lay_out(leaf, mesh_lib.NamedSharding(part.mesh, spec), "jit", "outputs")
        for leaf, g, spec in zip(leaves, given, part.out_specs)])
