"""A top-level ``shard_map`` (or pmap, or partitioned jit) as one multi-device program
whose arguments and results are the devices' blocks, each on its device.

The stacked form of a map (``irax-shard`` of an ``irax.shard_map`` op) takes each operand
whole on the first device, sends every device its block and gathers the results back
there: a sharded argument is assembled on the host first, a result is split again to lay
it out, and IREE 3.13 schedules the first device's work together with the gather, so the
devices' work cannot overlap. Here the per-device function is traced once (its
collectives as ops) and ``per_device_main`` (``shard/split.py``) repeats it per device
with each device's blocks as arguments and results at the program's boundary:

    func.func @main(%x0: tensor<4xf32> {irax.device = 0 : i64},
                    %x1: tensor<4xf32> {irax.device = 1 : i64}) -> (... {irax.device = 0},
                                                                  ... {irax.device = 1})

A sharded argument passes its shards' buffers as they are; the results are sharded
arrays of the devices' blocks (as the program per device on threads leaves them,
``transforms/spmd.py``). What this cannot run (a collective in a loop or branch, symbolic
sizes) raises ``NotSpmd``: the caller runs the stacked program instead.
"""

from __future__ import annotations

import contextlib
import threading
import weakref

import numpy as np

from irax.core import tree_util
from irax.core.config import config
from irax.core.errors import CompilationError, IRError
from irax.dialect import funcs, mlir
from irax.dialect.upstream import is_function
from irax.frontend.axes import bound_axis
from irax.frontend.compile import Specialization, clone_module, compile_entry
from irax.passes import run_pipeline
from irax.passes.expand import ExpandContext
from irax.runtime.array import Array, device_buffer
from irax.shard.split import per_device_main
from irax.transforms.specializations import on_clear_caches
from irax.transforms.spmd import NotSpmd, assemble, device_blocks


class DeviceProgram:
    """One map's per-device function ``f`` (called ``f(*args)`` on one device's blocks,
    its collectives over ``mesh``'s axes) as one program over all of ``mesh``'s devices,
    compiled once per signature of the arguments."""

    def __init__(self, f, mesh, jit):
        """``jit``: ``irax.jit`` (passed in: jit itself runs partitioned programs here)."""
        self.f, self.mesh, self.jit = f, mesh, jit
        self.devices = list(mesh.devices.flat)
        if any(d.platform != "cpu" for d in self.devices):
            raise NotSpmd("the mesh has non-CPU devices")
        self.entries: dict = {}   # argument signature -> DeviceEntry
        self.lock = threading.Lock()
        _LIVE.add(self)

    def __call__(self, args, specs, out_specs_of, check=None):
        """``f`` over the blocks of ``args`` (flat ``specs``, one ``PartitionSpec`` per
        leaf); the results as sharded arrays laid out by the flat specs
        ``out_specs_of(out_tree, avals)`` gives for the output blocks' avals. ``check()``
        validates the arguments, once per signature."""
        leaves, tree = tree_util.tree_flatten(args)
        key = (tree, tuple(specs), config.trace_key, tuple(
            (np.shape(x), getattr(x, "dtype", type(x)),
             getattr(getattr(x, "aval", None), "weak_type", None)) for x in leaves))
        entry = self.entries.get(key)
        if entry is None and check is not None:
            check()   # (before the arguments are cut: JAX's errors, not a failed cut)
        per_device = device_blocks(leaves, specs, self.mesh)
        if entry is None:
            with self.lock:
                entry = self.entries.get(key)
                if entry is None:
                    entry = self.entries[key] = self._entry(
                        tree_util.tree_unflatten(tree, per_device[0]), out_specs_of)
        return tree_util.tree_unflatten(entry.out_tree, entry.run(per_device))

    def _entry(self, call, out_specs_of) -> DeviceEntry:
        f = self.f

        def local(*a):
            return f(*a)

        local.__name__ = local.__qualname__ = getattr(f, "__name__", "shard_map")
        with contextlib.ExitStack() as stack:   # collectives become ops over these axes
            for a, n in self.mesh.shape.items():
                stack.enter_context(bound_axis(a, n))
            traced = self.jit(local).lower(*call)._entry
        if traced.polymorphic:
            raise NotSpmd("symbolic sizes")
        return DeviceEntry(clone_module(traced.trace_module), "main", self.mesh,
                           lambda avals: out_specs_of(traced.out_tree, avals),
                           local.__name__, traced.out_avals, traced.out_tree)


#: every DeviceProgram, whose compiled entries irax.clear_caches drops
_LIVE: weakref.WeakSet = weakref.WeakSet()


def _clear() -> None:
    for program in list(_LIVE):
        with program.lock:
            program.entries.clear()


on_clear_caches(_clear)


#: IREE 3.13's diagnostic when its placement of a multi-device program's ops across
#: devices fails (seen where an all_to_all follows all_gathers, the stacked program of
#: the same function compiling; docs/repro/multi_device_affinity.py): the caller runs
#: the stacked program. (An optimization
#: barrier before each transfer avoided it in some of those programs but made the
#: stacked program's transfers of computed blocks slower, 4.5 -> 7.6 ms for 4 MiB on
#: each of 4 devices.)
AFFINITY_BUG = "is not compatible with the partition affinity"


class DeviceEntry:
    """The per-device function ``@name`` of ``module`` (which this takes over) as one
    program over ``mesh``'s devices, compiled: ``run`` calls it on each device's blocks.
    ``out_specs_of(avals)``: the flat ``PartitionSpec``s of its results, from their
    per-device avals (``out_avals``, as traced: weak types, else read from the IR)."""

    def __init__(self, module, name: str, mesh, out_specs_of, label: str, out_avals=None,
                 out_tree=None):
        self.devices = list(mesh.devices.flat)
        self.mesh = mesh
        self.out_tree = out_tree   # of the results ``run`` returns flat (its caller's)
        module, fn = _device_module(module, name, mesh, [d.id for d in self.devices])
        self.in_avals, self.out_avals = funcs.signature(fn)
        if out_avals is not None:
            self.out_avals = list(out_avals)
        self.out_specs = out_specs_of(self.out_avals)
        n = len(self.devices)
        self.spec = Specialization(module, self.in_avals * n, self.out_avals * n,
                                   tree_util.tree_structure(list(range(n * len(
                                       self.out_avals)))))
        try:
            compile_entry(self.spec, self.devices[0], label)
        except CompilationError as e:
            if AFFINITY_BUG not in str(e):
                raise
            raise NotSpmd(f"IREE 3.13 could not place the program's ops: {e}") from None

    def run(self, per_device) -> list[Array]:
        """The flat results (sharded arrays) of the program on ``per_device[k]``, the
        flat argument blocks of device ``k``."""
        first = per_device[0]
        shared = [None] * len(first)   # a host value every device gets: put once
        views = []
        for dev, blocks in zip(self.devices, per_device):
            for i, (x, a) in enumerate(zip(blocks, self.in_avals)):
                if shared[i] is not None and x is first[i]:
                    views.append(shared[i])
                    continue
                view = _view(x, a, dev)
                if dev.platform == "cpu" and not isinstance(x, Array):
                    shared[i] = view   # (host memory: every CPU device reads it)
                views.append(view)
        outs = self.spec.executable(views)
        m = len(self.out_avals)
        results = []
        for j, (aval, spec) in enumerate(zip(self.out_avals, self.out_specs)):
            blocks = [Array._from_device(outs[k * m + j], aval, dev, True)
                      for k, dev in enumerate(self.devices)]
            results.append(assemble(blocks, spec, self.mesh))
        return results


def _device_module(module, name: str, mesh, ordinals):
    """``module`` with its per-device function ``@name`` made private (renamed from
    ``main``) and a new public ``@main`` that runs it on every device with the devices'
    blocks at its boundary (any other public function is dropped); returns the module
    and the per-device function."""
    run_pipeline(module, "builtin.module(irax-expand-transforms)")
    ir = mlir.ir()
    with mlir.context(), mlir.unknown_loc():
        for op in list(module.body.operations):
            if is_function(op) and funcs.is_public(op) and funcs.symbol_name(op) != name:
                op.operation.erase()
        fn = funcs.symbol_table(module)[name]
        if name == "main":
            name = funcs.unique_name(module, "main_device")
            fn.attributes["sym_name"] = ir.StringAttr.get(name)
        fn.attributes["sym_visibility"] = ir.StringAttr.get("private")
        for key in ("arg_attrs", "res_attrs"):   # (donation and sharding marks)
            if key in fn.attributes:
                del fn.attributes[key]
        try:
            per_device_main(ExpandContext(module), name, tuple(mesh.axis_names),
                            tuple(mesh.axis_sizes), ordinals, first=True)
        except IRError as e:
            raise NotSpmd(str(e)) from None
    return module, fn


def _view(x, aval, device):
    """The buffer view of argument block ``x`` for ``device``: on a CPU device, the buffer
    of an array on another CPU device as it is (host memory that every local device
    reads), else ``device_buffer``."""
    if type(x) is Array and x._dev is not None and x._device is not device and \
            device.platform == "cpu" and x._device.platform == "cpu":
        x._check_live()
        return x._dev
    return device_buffer(x, aval, device)
