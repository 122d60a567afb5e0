"""A top-level ``shard_map`` run as one program per device, each on a thread of its own
(SPMD), so that the devices' work overlaps: IREE runs the devices of one multi-device
program one after another, but programs invoked from different threads on different
devices run at once.

Every device runs the same program, compiled once: ``f`` on its blocks, plus its
position in the mesh as an argument. A collective is a host callback in which the
devices meet (``_Rendezvous``): each hands over a view of its operand (not a copy),
and between two barriers computes its part of the result from its group's with NumPy:
its share of the elements of a sum, whose group fills one array together (the
reduce-scatter and all-gather of a ring all-reduce, in shared memory), its place in a
gathered array, its block of a psum_scatter, a copy of its ppermute source.
``axis_index`` is arithmetic on the position.

    with bound_axis("x", 2, spmd=handler):      # lax.psum(v, "x") calls
        f(*blocks)                              #   handler(Psum, [v], attrs)

The calling thread runs the last device's program, a worker thread each other one; the
devices' compiled specializations are kept per argument signature and called directly.
The results stay where they were computed: each device's output block is its shard of
the result, without a gather. What this path cannot run (a collective under a
transformation or in a loop or branch inside ``f``, on a non-CPU device) raises
``NotSpmd``, and the caller runs the shard_map as one program instead.
"""

from __future__ import annotations

import contextlib
import os
import threading
import weakref
from concurrent.futures import ThreadPoolExecutor, wait

import numpy as np

from irax.core import tree_util
from irax.core.abstract import ShapeDtypeStruct
from irax.core.config import config
from irax.dialect import collective as C
from irax.dialect import elementwise as E
from irax.frontend.axes import bound_axis
from irax.frontend.compile import execute, one_thread_each
from irax.frontend.host_callback import borrowing_io_callback
from irax.frontend.trace import bind, current_trace
from irax.runtime import mesh as mesh_lib
from irax.runtime.array import Array
from irax.shard.split import MeshAxes
from irax.transforms.placement import device_put
from irax.transforms.specializations import on_clear_caches


class NotSpmd(Exception):
    """This shard_map cannot run as a program per device (the message says why)."""


class _Replayed(threading.local):
    """How many loop or branch regions of a replayed partitioned function this thread is
    tracing (``replayed_region``)."""

    depth = 0


_REPLAYED = _Replayed()


@contextlib.contextmanager
def replayed_region():
    """Traces a loop or branch region of a partitioned function's replay
    (``partitioned._Block``): its collectives meet on the host like those at the top
    level, since irax-partition makes every condition and branch index the same on every
    device, so each device meets them alike (a shard_map's own loops and branches may
    differ between devices: a collective there stays refused, and the map runs as one
    program)."""
    _REPLAYED.depth += 1
    try:
        yield
    finally:
        _REPLAYED.depth -= 1


class _Rendezvous:
    """Where the devices of one call meet at each collective (two barriers). Between
    them every device's operand is in ``slots`` and stays valid (each is a view of its
    device's buffer, mapped for the duration of its host call, which ends after the
    second barrier), so each device computes its part of the result there; ``shared``
    holds, per group, the one output array its members fill together."""

    def __init__(self, n: int):
        self.slots = [None] * n
        self.shared = [None] * n
        self.barrier = threading.Barrier(n, timeout=600)

    def meet(self, pos: int, value, group, i: int, rule):
        self.slots[pos] = value
        if i == 0 and rule.shares:
            self.shared[group[0]] = np.empty(rule.aval.shape, rule.aval.dtype)
        self.barrier.wait()
        try:
            return rule([self.slots[k] for k in group], i, value, self.shared[group[0]])
        finally:
            self.barrier.wait()


def _groups(mesh, name) -> dict:
    """Position -> (the positions of its group along axis ``name``, its index there)."""
    out = {}
    for group in MeshAxes(mesh.axis_names, mesh.axis_sizes).groups(name):
        for i, k in enumerate(group):
            out[k] = (group, i)
    return out


def _host_rule(op_cls, attrs, aval):
    """The rule of one device's part of the collective (``_Rendezvous.meet``): the op
    class's ``between_threads`` (NumPy ufuncs, which let the other devices' threads run
    meanwhile; ``dialect/collective_threads.py``)."""
    if op_cls.between_threads is None:
        raise NotSpmd(f"{op_cls.name} has no per-device form")
    return op_cls.between_threads(aval, **attrs)


class _Handler:
    """The collectives of one device's trace: host callbacks through ``rdv`` (the same
    function objects for every device, from ``hosts``, so that the devices' programs
    are one program to the compile caches)."""

    def __init__(self, mesh, rdv, hosts, pos, root):
        self.mesh, self.rdv, self.hosts, self.pos, self.root = mesh, rdv, hosts, pos, root
        self.strides = {}
        stride = 1
        for a, n in reversed(list(mesh.shape.items())):
            self.strides[a] = stride
            stride *= n

    def __call__(self, op_cls, operands, attrs):
        name = attrs["axis_name"]
        if op_cls is C.AxisIndex:
            q = bind(E.Div, self.pos, np.int32(self.strides[name]))
            return bind(E.Rem, q, np.int32(self.mesh.shape[name]))
        if current_trace() is not self.root and not _REPLAYED.depth:
            raise NotSpmd(f"{op_cls.name} over {name!r} sits under a transformation, a "
                          f"loop or a branch inside the mapped function")
        (x,) = operands
        aval = op_cls.infer_list([x.aval], attrs)[0]
        key = (op_cls, tuple(sorted(attrs.items())), x.aval, aval)
        host = self.hosts.get(key)
        if host is None:
            host = self.hosts.setdefault(key, _host_function(
                _host_rule(op_cls, attrs, aval), _groups(self.mesh, name), self.rdv))
        return borrowing_io_callback(host, ShapeDtypeStruct(aval.shape, aval.dtype), x,
                                     self.pos, ordered=True)


def _host_function(rule, groups, rdv):
    def host(v, pos):
        pos = int(pos)
        group, i = groups[pos]
        out = rdv.meet(pos, np.asarray(v), group, i, rule)
        return out.reshape(rule.aval.shape)
    return host


#: every per-device program set, for ``clear_caches``
_PROGRAMS: weakref.WeakSet = weakref.WeakSet()


def _clear() -> None:
    for program in list(_PROGRAMS):
        program.entries.clear()


on_clear_caches(_clear)


class SpmdProgram:
    """One shard_map's per-device programs for one mesh: ``f`` jitted for each device,
    run on a thread per device."""

    def __init__(self, f, mesh, jit):
        """``jit``: ``irax.jit`` (passed in: jit itself runs partitioned programs here)."""
        devices = list(mesh.devices.flat)
        if any(d.platform != "cpu" for d in devices):
            raise NotSpmd("the mesh has non-CPU devices")
        self.mesh, self.devices = mesh, devices
        self.rdv = _Rendezvous(len(devices))
        self.hosts: dict = {}
        self.small: set = set()   # argument signatures whose programs run as one
        self.out_specs: dict = {}  # argument signature -> the results' flat out specs
        self.lock = threading.Lock()   # one call at a time meets in rdv
        # the calling thread runs the last device's program, a worker each other one
        self.pool = ThreadPoolExecutor(max(len(devices) - 1, 1), thread_name_prefix="irax-spmd")
        self.jitted = [jit(self._local(f), device=d) for d in devices]
        #: each device's position in the mesh, an argument of its program, on the device
        self.pos = [device_put(np.int32(k), d) for k, d in enumerate(devices)]
        #: (argument signature, traced configuration) -> each device's specialization
        #: (dropped by ``irax.clear_caches``, with the jits' own)
        self.entries: dict = {}
        _PROGRAMS.add(self)

    def _local(self, f):
        mesh, rdv, hosts = self.mesh, self.rdv, self.hosts

        def local(pos, args):
            handler = _Handler(mesh, rdv, hosts, pos, current_trace())
            with contextlib.ExitStack() as stack:
                for a, n in mesh.shape.items():
                    stack.enter_context(bound_axis(a, n, spmd=handler))
                return f(*args)

        local.__name__ = local.__qualname__ = getattr(f, "__name__", "shard_map")
        return local

    def __call__(self, args, specs, out_specs_of, check=None, spare_cores: bool = True):
        """``f`` over the blocks of ``args`` (flat ``specs``, one per leaf); the results
        as sharded arrays, laid out by the flat specs ``out_specs_of(out_tree, avals)``
        gives for the output blocks' avals. None when each device's program is too
        small to repay the threads, or the machine has no more cores than the mesh has
        devices (the caller runs it as one program; ``spare_cores=False`` runs it on
        threads all the same, where there is no one program). ``check()``
        validates the arguments; it runs, and the programs are traced and compiled, once
        per signature of the arguments."""
        if spare_cores and len(self.devices) >= cores():
            return None   # no core to spare: the one program is faster
        leaves, tree = tree_util.tree_flatten(args)
        key = (tree, tuple(specs), config.irax_shard_map_threads_min_work, tuple(
            (np.shape(x), getattr(x, "dtype", type(x)),
             getattr(getattr(x, "aval", None), "weak_type", None)) for x in leaves))
        if key in self.small:
            return None
        first = key not in self.out_specs
        if first and check is not None:
            check()
        blocks = device_blocks(leaves, specs, self.mesh)
        calls = [tree_util.tree_unflatten(tree, b) for b in blocks]
        entries = self._entries(key, calls)
        if entries is None:
            self.small.add(key)
            return None
        if config.jax_debug_nans or config.jax_debug_infs:   # the jit checks the results
            runs = [(self._jitted, (k, calls[k])) for k in range(len(calls))]
        else:   # the compiled programs, called directly (no signature to work out)
            runs = [(execute, (entries[k], [self.pos[k]] + blocks[k]))
                    for k in range(len(calls))]
        with self.lock:
            self.rdv.barrier.reset()
            futures = [self.pool.submit(self._run, *run) for run in runs[:-1]]
            try:
                last = self._run(*runs[-1])
            except BaseException as e:  # noqa: BLE001 - raised below, after the others
                last = e
            wait(futures)
            errors = [fut.exception() for fut in futures if fut.exception() is not None]
            if isinstance(last, BaseException):
                errors.append(last)
            if errors:   # the device that failed first, not those it left waiting
                real = [e for e in errors if not isinstance(e, threading.BrokenBarrierError)]
                raise (real or errors)[0]
            outs = [fut.result() for fut in futures] + [last]
        flat = [tree_util.tree_flatten(o) for o in outs]
        out_tree = flat[0][1]
        specs_out = self.out_specs.get(key)
        if specs_out is None:
            specs_out = self.out_specs[key] = out_specs_of(out_tree,
                                                           [v.aval for v in flat[0][0]])
        results = []
        for j, spec in enumerate(specs_out):
            blocks = [leaves_k[j] for leaves_k, _ in flat]
            results.append(assemble(blocks, spec, self.mesh))
        return tree_util.tree_unflatten(out_tree, results)

    def _entries(self, key, calls):
        """Each device's compiled specialization for the arguments of signature ``key``,
        traced and compiled here, not in the threads (with no more devices than cores
        each keeps to its thread); None when they are too small to run on threads."""
        at = (key, config.trace_key)
        found = self.entries.get(at)
        if found is not None:
            return found
        found = []
        with one_thread_each() if len(calls) >= (os.cpu_count() or 1) else \
                contextlib.nullcontext():
            for k, call in enumerate(calls):
                entry = self.jitted[k].lower(self.pos[k], call).compile()._entry
                if k == 0 and _too_small(entry.work):
                    return None
                found.append(entry)
        self.entries[at] = found
        return found

    def _jitted(self, k, args):
        return self.jitted[k](self.pos[k], args)

    def _run(self, fn, args):
        try:
            return fn(*args)
        except BaseException:
            self.rdv.barrier.abort()   # the others stop waiting for this device
            raise


def cores() -> int:
    """The CPUs of this machine. A map runs a program per device on threads only with
    more cores than devices: with none to spare, one multi-device program with the
    devices' blocks at its boundary (``device_program.py``) was faster on 2 cores (the
    data-parallel MLP step of ``benchmarks/sharding.py`` on 2 devices: 8.6-8.8 ms against
    9.1-10.2 on threads; most collectives too, ppermute of 4 MiB on 2 devices 0.3-0.4 ms
    against 0.4-1.3)."""
    return os.cpu_count() or 1


def _too_small(work) -> bool:
    """Whether a device's program does too little to repay running on threads (some
    0.6 ms a call on 2 cores for the hand-offs and barriers)."""
    return work is not None and \
        work.flops + work.elements < config.irax_shard_map_threads_min_work


def device_blocks(leaves, specs, mesh) -> list[list]:
    """Per device of ``mesh`` (row-major), its block of each leaf under its spec."""
    per_device = [[] for _ in range(mesh.size)]
    for x, spec in zip(leaves, specs):
        for k, block in enumerate(blocks_of(x, spec, mesh)):
            per_device[k].append(block)
    return per_device


def blocks_of(x, spec, mesh) -> list:
    """Each device's block of ``x`` under ``spec`` (its own shard when ``x`` is laid out
    so already)."""
    sharding = mesh_lib.NamedSharding(mesh, spec)
    if isinstance(x, Array) and x._shards is not None and (
            x._sharding == sharding or x._sharding.is_equivalent_to(sharding, x.aval.ndim)):
        return list(x._shards)
    if not spec.mesh_axes():   # all of it everywhere (a Python scalar stays weakly typed)
        return [x] * mesh.size
    host = np.asarray(x)
    return [host[index] for _, index, _ in mesh_lib.shard_layout(sharding, host.shape)]


def assemble(blocks, spec, mesh) -> Array:
    """The global array whose device ``k`` holds ``blocks[k]`` under ``spec``."""
    aval = blocks[0].aval
    shape = list(aval.shape)
    for d in range(len(spec)):
        for a in spec.axes_of(d):
            shape[d] *= mesh.shape[a]
    sharding = mesh_lib.NamedSharding(mesh, spec)
    return Array._from_shards(aval.update(shape=tuple(shape)), sharding, blocks)
