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

import math
import threading

import numpy as np

from irax.core import tree_util
from irax.core.config import config
from irax.dialect import funcs, mlir
from irax.dialect import sharding as S
from irax.dialect.base import lookup
from irax.dialect.upstream import is_function
from irax.frontend import tiered
from irax.frontend.axes import emit_collective
from irax.frontend.compile import clone_module
from irax.frontend.replay import Block, NotReplayable, Replayer
from irax.passes import pipelines, run_pipeline
from irax.runtime import mesh as mesh_lib
from irax.runtime.array import Array
from irax.shard.partition import partition_function
from irax.shard.vma import uniform_control
from irax.transforms.device_program import DeviceEntry
from irax.transforms.layout import ir_mesh, is_placement, partition_spec, placements
from irax.transforms.placement import device_put
from irax.transforms.spmd import NotSpmd, SpmdProgram, device_blocks, replayed_region


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
        #: the interpreted first calls (``_Tier``; False: none, or done)
        self.tier = None
        self.lock = threading.Lock()
        spmd_fn = funcs.symbol_table(module)[name]
        try:
            # a collective in a loop or branch meets on threads only where every device
            # takes the same trips and branches (a shard_map's own loop may not)
            if not uniform_control(module, spmd_fn, [frozenset(S.axes_of(s)) for s in ins]):
                raise NotSpmd("a loop condition or branch index may differ between devices")
            self.replay = _Replay(spmd_fn)
        except (NotSpmd, NotReplayable):
            self.program = False

    def __call__(self, leaves, jit):
        """The results (flat, sharded arrays) of the per-device programs on threads, else
        of the per-device function as one multi-device program with the devices' blocks
        at its boundary (``device_program.py``); None where the caller must run the
        stacked multi-device program."""
        outs = None
        threads = self.program is not False and config.irax_shard_map_threads
        if threads:
            try:
                if self.program is None:
                    self.program = SpmdProgram(self.replay, self.mesh, jit)
                # no one program (a loop holding collectives, say): threads even without
                # a core to spare beat the stacked program, on the first device only
                outs = self._threads(leaves, spare_cores=self.one is not False)
            except NotSpmd:
                self.program = threads = False
        if outs is None and self.one is not False and config.irax_device_program:
            try:
                if self.one is None:
                    self.one = DeviceEntry(clone_module(self.module), self.name, self.mesh,
                                           lambda avals: self.out_specs, self.name)
                outs = self.one.run(device_blocks(leaves, self.in_specs, self.mesh))
            except NotSpmd:
                self.one = False
                if threads:   # (the call above needed a core to spare)
                    outs = self._threads(leaves, spare_cores=False)
        return outs

    def _threads(self, leaves, spare_cores: bool):
        return self.program(tuple(leaves), self.in_specs, lambda tree, avals: self.out_specs,
                            spare_cores=spare_cores)


class _Replay:
    """Calls the ops of a function in the current trace, one ``bind`` each
    (``frontend/replay.py``), its collectives through their mesh axis' handler (the
    devices meet there) and its loops and branches as the same ops over their regions
    replayed the same way (so a collective inside a loop meets on every trip); raises
    ``NotReplayable`` for a function this cannot replay (calls, ops it does not know)."""

    def __init__(self, fn):
        self.block = Block(fn.regions[0].blocks[0],
                           Replayer(collective=emit_collective, region=replayed_region))
        self.__name__ = self.__qualname__ = funcs.symbol_name(fn)

    def __call__(self, *blocks):
        return self.block(*blocks)


def run_partitioned(entry, leaves, jitted, jit):
    """``entry``'s partitioned program (of ``jitted``, a ``JitFunction``) as a program per
    device on threads, or as one program with the devices' blocks at its boundary; None
    where the caller runs the stacked multi-device program (donated arguments, both ways
    off, or a program neither can run)."""
    if entry.partitioned is None or jitted.donate_argnums or jitted.donate_argnames or \
            not (config.irax_shard_map_threads or config.irax_device_program):
        return None
    part = partitioned(entry)
    if part.tier is not False:
        out = _tiered(entry, part, leaves, jitted, jit)
        if out is not None:
            return out
    return run_threaded(entry, leaves, jit)


class _Tier:
    """A partitioned program's first calls on the reference interpreter: the traced
    (global) function run on the arguments' values, each result laid out as the
    partitioner propagated it, while the compile thread makes the program (its first
    compiled call, on the same arguments: ``future``), as a tiered jit does for one
    device (``frontend/tiered.py``): eager ops on sharded arrays no longer wait about
    0.5 s each for IREE."""

    def __init__(self, module, future):
        self.module, self.future = module, future
        self.slow = False

    def __call__(self, entry, part, leaves):
        outs, self.slow = tiered.interpret(self.module, leaves)
        results = [device_put(Array._from_host(np.asarray(o, a.dtype).reshape(a.shape), a),
                              mesh_lib.NamedSharding(part.mesh, spec))
                   for o, a, spec in zip(outs, entry.out_avals, part.out_specs)]
        return tree_util.tree_unflatten(entry.out_tree, results)


def _tiered(entry, part, leaves, jitted, jit):
    """The results of an interpreted call of ``entry``'s partitioned program, or None once
    its compiled program is ready (or when it does not qualify: ``_interpretable``)."""
    with part.lock:
        tier = part.tier
        if tier is None:
            tier = part.tier = _start(entry, part, leaves, jitted, jit)
        if tier is False:
            return None
        if tier.future.done() or tier.slow:
            wait_for(tier.future)   # (its error, if any, comes again from the real call)
            part.tier = False
            return None
    try:
        return tier(entry, part, leaves)
    except Exception:  # noqa: BLE001 - the compiled program decides (as tiered.call)
        with part.lock:
            tier.slow = True
        return None


def _start(entry, part, leaves, jitted, jit):
    """The tier of a partitioned program's first calls, or False when it does not
    qualify."""
    if not config.irax_tiered_jit or entry.donated or \
            any(d.platform != "cpu" for d in part.mesh.devices.flat) or \
            not _interpretable(entry.trace_module):
        return False
    module = clone_module(entry.trace_module)
    run_pipeline(module, pipelines.EAGER)
    tiered.stats["background_compiles"] += 1

    def first_compiled_call():
        if run_threaded(entry, leaves, jit) is None:
            jitted._run(entry, leaves)   # the stacked program (compiled, installed)
    return _Tier(module, tiered.submit_job(first_compiled_call))


def _interpretable(module) -> bool:
    """Whether a traced program is cheap to interpret: no loops (the interpreter pays
    every trip), no host callbacks, at most ``irax_tiered_jit_max_elements`` elements
    produced by its ops together."""
    elements = [0]
    bad = []

    def visit(op):
        cls = lookup(op.name)
        if (len(op.regions) and not is_function(op) and op != module.operation) or \
                (cls is not None and cls.has_side_effects):
            bad.append(op)
        for r in op.results:
            shape = getattr(r.type, "shape", None)
            if shape is not None:
                elements[0] += math.prod(shape)
        return mlir.ir().WalkResult.ADVANCE

    module.operation.walk(visit)
    return not bad and elements[0] <= config.irax_tiered_jit_max_elements


def wait_for(future) -> None:
    """Waits for ``future`` to end, whatever it raises."""
    try:
        future.result()
    except Exception:  # noqa: BLE001 - raised again by the call that runs the program
        pass


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
