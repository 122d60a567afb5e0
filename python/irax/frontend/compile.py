"""From a traced module to results: the stages of ``jit`` and of ``Lowered.as_text``.

Stages (``passes/pipelines.py``; each made from the traced module by its pipeline):
    "irax"        the traced module: func.func of irax ops
    "expanded"    transformations expanded into generated functions
    "simplified"  ... inlined and simplified
    "stablehlo"   portable StableHLO (irax-lower-to-stablehlo)
    "iree"        what IREE compiles (irax-jit: the StableHLO legalized for IREE 3.13)
Then IREE compiles the "iree" stage to a ``.vmfb`` (``runtime.compiler``), which runs on
the devices the program addresses.
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import hashlib
import logging
import math
import threading

from irax.core import tree_util
from irax.core.config import config
from irax.core.errors import OutOfMemoryError, byte_count
from irax.dialect import mlir
from irax.frontend import program_cache
from irax.lowering.stablehlo import num_devices
from irax.lowering.work import measure
from irax.passes import output_storage, pipelines, run_pipeline
from irax.runtime import devices, hugepages
from irax.runtime.array import Array, device_buffer
from irax.runtime.compiler import (
    DATA_TILING_FLAGS,
    avx2_matmul_tiles,
    avx2_tuning_flags,
    cached_by_key,
    compile_keyed,
    key_of,
    module_bytecode,
    target_for_platform,
)
from irax.runtime.executable import Executable, Tuned


class Specialization:
    """One traced and (once called) compiled program: the traced module, its signature,
    output tree, the modules of its stages and the executable."""

    __slots__ = ("trace_module", "out_tree", "out_avals", "executable", "device",
                 "donated", "stages", "in_avals", "kept", "name", "tier", "work", "polymorphic",
                 "partitioned", "record", "function_record", "home", "fast")

    def __init__(self, trace_module=None, in_avals=(), out_avals=(), out_tree=None,
                 donated=()):
        self.trace_module = trace_module
        self.in_avals = tuple(in_avals)
        self.out_avals = list(out_avals)
        self.out_tree = out_tree
        self.donated = tuple(donated)
        self.executable = None
        self.device = None
        #: stage name -> module (module_at_stage); "compiled": compiled_module's
        self.stages = {}
        self.name = "main"  # the function, for messages
        self.tier = None    # frontend/tiered.py: None undecided, False compiled, or a _Tier
        self.work = None    # lowering/work.py's measure of the compiled program
        #: symbolic sizes in the signature (core/shape_poly.py): one program, any sizes
        self.polymorphic = any(not a.is_static for a in self.in_avals)
        #: a jit partitioned over a mesh (transforms/partitioned.py), else None
        self.partitioned = None
        #: the key of its program record (program_cache.py), once installed
        self.record = None
        #: the key of the function record a jitted call writes once it is compiled
        #: (function_record.py), else None
        self.function_record = None
        #: the device it runs on and commits its results to (the device of its committed
        #: arguments, or jit's ``device``); None: the default device, uncommitted
        self.home = None
        #: a one-array call of its executable on an argument's buffer on ``device``
        #: (``Executable.one_array_call``: a cached jit call's short path; ``home``, set
        #: after it is installed, says at each call whether results are committed)
        self.fast = None


#: irax-output-storage over a copy of the "iree" stage (jit's one-device CPU programs)
OUTPUT_STORAGE = "builtin.module(irax-output-storage)"


def clone_module(module):
    ir = mlir.ir()
    with mlir.context():
        return ir.Module.parse(module.operation.get_asm(binary=True, enable_debug_info=True),
                               mlir.context())


def at_stage(module, stage: str):
    """A copy of the traced ``module`` taken to ``stage`` (the module itself for "irax")."""
    if stage == "irax":
        return module
    out = clone_module(module)
    run_pipeline(out, f"builtin.module({pipelines.STAGES[stage]})")
    return out


def module_at_stage(entry, stage: str):
    """``at_stage`` of a jit specialization, cached on it."""
    hit = entry.stages.get(stage)
    if hit is None:
        hit = entry.stages[stage] = at_stage(entry.trace_module, stage)
    return hit


def compile_entry(entry, device, name: str, function: str = "main", split=None) -> None:
    """Compiles a specialization for ``device`` (the first of several when the program
    addresses several devices); ``name``: the jitted function, for messages.
    ``split(entry, device, name, work, function)``, where given, may install a one-device
    program as pieces instead (``transforms/split_loops.py``): True when it did."""
    record = program_cache.key(entry, device.platform, function)
    program = program_unless_installed(entry, device, name, record, function, split)
    if program is not None:
        install(entry, device, name, program, vmfb_of(program, name))


def program_unless_installed(entry, device, name: str, record: str, function: str = "main",
                             split=None):
    """The ``Program`` a specialization compiles, or None when it is installed already:
    from its record (``record``: its ``program_cache.key``), or as pieces (``split``, as
    ``compile_entry``'s)."""
    if from_record(entry, device, name, record, function, split):
        return None
    program = program_of(entry, device, name, record, function)
    if split is not None and not program.group and \
            split(entry, device, name, program.work, function):
        return None
    return program


def vmfb_of(program, name: str) -> bytes:
    """The compiled ``program``: from the caches, else compiled (and stored)."""
    vmfb = cached_by_key(program.key, program.info, name)
    return compile_program(program, name) if vmfb is None else vmfb


def compile_program(program, name: str) -> bytes:
    """IREE's compilation of ``program`` (stored in the caches): in a separate process
    when it has nested host-driven loops, on which IREE 3.13's compiler was seen to crash."""
    return compile_keyed(program.code, program.key, program.info, name,
                         isolate=program.work.nested_loops)


class Program:
    """What a specialization compiles: its "iree" stage (``module``, and ``code``, its
    bytecode), the IREE ``target``, its compile cache ``key`` and the ``info`` the key is
    made of, the devices it runs on (``group``: empty for one device), its ``work``
    (``lowering/work.py``) and its program record's key (``record``)."""

    __slots__ = ("module", "code", "target", "key", "info", "group", "work", "record",
                 "function")

    def __init__(self, module, target, group, record, function):
        self.module = module
        self.code = module_bytecode(module)
        self.work = measure(module)
        if target.backend == "llvm-cpu" and self.work.flops >= \
                config.irax_cpu_data_tiling_min_flops:
            tiles = avx2_matmul_tiles(target, self.work.products)
            extra = avx2_tuning_flags(self.work.products) if tiles else DATA_TILING_FLAGS
            target = dataclasses.replace(target, extra=target.extra + extra)
        self.target = target
        self.key, self.info = key_of(self.code, target)
        self.group = group
        self.record = record
        self.function = function


def compiled_module(entry, device):
    """The module jit compiles for a specialization on ``device`` (cached on it): its
    "iree" stage ("iree-gpu" for GPUs), a one-device CPU program's large results given
    storage arguments (``irax-output-storage``; a donated argument is no result's
    storage: IREE aliases none, ``passes/legalize_iree.py``)."""
    hit = entry.stages.get("compiled")
    if hit is None:
        target = target_for_platform(device.platform)
        hit = module_at_stage(entry, pipelines.iree_stage(target.backend))
        if target.backend == "llvm-cpu" and config.irax_cpu_output_storage and \
                output_storage.wanted(hit):
            hit = clone_module(hit)
            run_pipeline(hit, OUTPUT_STORAGE)
        entry.stages["compiled"] = hit
    return hit


def program_of(entry, device, name: str, record: str, function: str = "main") -> Program:
    """The program of a specialization on ``device`` (runs irax-jit's passes); ``record``:
    its ``program_cache.key``."""
    target = target_for_platform(device.platform)
    module = compiled_module(entry, device)
    group = program_devices(device, num_devices(module), name)
    program = Program(module, dataclasses.replace(target, num_devices=len(group)), group,
                      record, function)
    if program.work.wrong is not None:
        raise TypeError(f"irax: IREE cannot compile {name} correctly: it computes "
                        f"{program.work.wrong} (IREE 3.13 gets float8_e8m0fnu arithmetic "
                        "wrong); such arrays work eagerly only, or convert them with "
                        ".astype(float32) inside the function")
    return program


def from_record(entry, device, name: str, record: str, function: str = "main",
                split=None) -> bool:
    """Installs the program recorded under ``record`` (``program_cache.key`` of the
    specialization) without running the passes; False when none is recorded."""
    found = program_cache.lookup(record, name)
    if found is None:
        return False
    vmfb, n, work = found
    if split is not None and not n and split(entry, device, name, work, function):
        return True
    _install(entry, device, name, program_devices(device, n, name), vmfb, work, function)
    entry.record = record
    return True


def install(entry, device, name: str, program: Program, vmfb: bytes) -> None:
    """Makes the compiled ``vmfb`` of ``program`` the specialization's executable, and
    records it for later traces of the same function."""
    _install(entry, device, name, program.group, vmfb, program.work, program.function)
    program_cache.store(program.record, program.key, program.info, len(program.group),
                        program.work)
    entry.record = program.record


def _install(entry, device, name, group, vmfb, work, function) -> None:
    home = group[0] if group else device
    entry.name = name
    entry.work = work
    out_dtypes = [a.dtype for a in entry.out_avals]
    # results written into storage the call allocates (passes/output_storage.py)
    outputs = [(tuple(entry.out_avals[i].shape), entry.out_avals[i].dtype)
               for i in work.outputs]
    if tunes_threads(work, device, group):
        entry.executable = Tuned(
            _executable(vmfb, home, group, out_dtypes, function, outputs=outputs),
            _executable(vmfb, home, group, out_dtypes, function, True, outputs))
    else:
        entry.executable = _executable(vmfb, home, group, out_dtypes, function,
                                       wants_threads(work, device, len(group)), outputs)
    entry.device = home
    exe = entry.executable
    entry.fast = exe.one_array_call(entry.out_avals[0], home) \
        if type(exe) is Executable and len(entry.in_avals) == 1 and not entry.donated \
        and not entry.polymorphic and len(entry.out_avals) == 1 and \
        tree_util.treedef_is_strict_leaf(entry.out_tree) else None
    if home.platform == "cpu" and not group:   # large results on huge pages
        hugepages.reserve(devices.runtime(), home.hal,
                          [math.prod(a.shape) * a.dtype.itemsize for a in entry.out_avals
                           if all(type(d) is int for d in a.shape)])
    if config.jax_log_compiles:   # as JAX: one WARNING per specialization made ready
        logging.getLogger("irax").warning(
            "irax: jit(%s) compiled for arguments (%s) on %s", name,
            ", ".join(a.str_short() for a in entry.in_avals), home)


#: loaded programs by (vmfb digest, devices, function): specializations that compile to
#: the same program share one (eager vmaps of one function compile at every call)
_EXECUTABLES: collections.OrderedDict = collections.OrderedDict()
_EXECUTABLES_MAX = 64
_LOCK = threading.Lock()


class _OneThread(threading.local):
    """Set while compiling programs that must each stay on their calling thread."""

    on = False


_ONE_THREAD = _OneThread()


def on_one_thread() -> bool:
    """Whether programs compiled now must stay on their calling thread
    (``one_thread_each``)."""
    return _ONE_THREAD.on


@contextlib.contextmanager
def one_thread_each():
    """Programs compiled in the body run on their calling thread (``local-sync``): the
    per-device programs of a shard_map run on threads of their own, one per core."""
    old, _ONE_THREAD.on = _ONE_THREAD.on, True
    try:
        yield
    finally:
        _ONE_THREAD.on = old


def wants_threads(work, device, devices: int = 1) -> bool:
    """Whether a program of ``work`` (``lowering/work.py``) runs on IREE's thread pool:
    never unless ``irax_cpu_driver`` is "auto" (the device's driver decides then); under
    "auto" when it has no loop (IREE 3.13 races on loop bodies there) and the matrix
    products and convolutions of each of its ``devices`` (which run one after another)
    hold at least ``irax_cpu_threads_min_flops`` multiply-adds (below that, and for
    elementwise work, the thread hand-off costs more than a second core gains:
    docs/performance.md; ``tunes_threads`` tries both below that)."""
    if device.platform != "cpu" or config.irax_cpu_driver != "auto" or _ONE_THREAD.on:
        return False
    return (not work.host_loops
            and work.flops >= config.irax_cpu_threads_min_flops * max(devices, 1))


def tunes_threads(work, device, group) -> bool:
    """Whether a program's first calls measure which driver runs it faster (``Tuned``):
    under "auto", for programs with no loop driven from the host (where IREE 3.13 races
    on the pool) that ``wants_threads`` does not already send to the pool, and whose
    loops are all loop kernels over several elements (one-device programs), or whose
    ops produce at least ``irax_cpu_tune_min_elements`` elements, or whose products and
    convolutions hold at least ``irax_cpu_tune_min_flops`` multiply-adds per device:
    where the pool starts to pay for such a program depends on the machine (a 256x256
    product and tanh, 2^24 multiply-adds: 0.34 ms inline and 0.29 on the pool on a
    2-core AVX-512 machine, 0.36 and 0.33 on a 2-core AVX2 one; a 4-device pmap of it
    1.68 and 1.14 ms on the first, 2.6 and 3.2 ms on the second; ``x + x*x + x*x*x`` on
    3500x3500 floats 3.7 ms inline and 2.6 on the pool of the AVX-512 one, on 5000x5000
    9 and 36 ms: the pool's results of more than 64 MB fault their pages in at every
    call)."""
    if device.platform != "cpu" or config.irax_cpu_driver != "auto" or _ONE_THREAD.on \
            or work.host_loops or wants_threads(work, device, len(group)):
        return False
    if not group and work.kernel_elements >= 2:
        return True
    if 0 < config.irax_cpu_tune_min_elements * max(len(group), 1) <= work.elements:
        return True
    return 0 < config.irax_cpu_tune_min_flops * max(len(group), 1) <= work.flops


def _executable(vmfb: bytes, device, group, out_dtypes, function: str,
                threads: bool = False, outputs=()) -> Executable:
    key = (hashlib.sha256(vmfb).digest(), device, device.driver, tuple(group),
           tuple(out_dtypes), function, threads, tuple(outputs))
    with _LOCK:
        exe = _EXECUTABLES.get(key)
        if exe is not None:
            _EXECUTABLES.move_to_end(key)
            return exe
    exe = Executable(vmfb, device, out_dtypes, function=function, devices=group,
                     threads=threads, outputs=outputs)
    with _LOCK:
        _EXECUTABLES[key] = exe
        while len(_EXECUTABLES) > _EXECUTABLES_MAX:
            _EXECUTABLES.popitem(last=False)
    return exe


def clear_executables() -> None:
    """Forgets the loaded programs kept for reuse."""
    with _LOCK:
        _EXECUTABLES.clear()


def run_compiled(module, entry: str, args, in_avals, out_avals, name: str) -> list[Array]:
    """Compiles ``@entry`` of an irax ``module`` with IREE (cached by content) and runs it
    on ``args``: how eager code that is traced abstractly (``vmap`` outside ``jit``) runs,
    so that it computes exactly what ``jit`` and ``pmap`` of it compute."""
    return execute(compiled_function(module, entry, in_avals, out_avals, name), list(args))


def compiled_function(module, entry: str, in_avals, out_avals, name: str, split=None):
    """``@entry`` of an irax ``module`` compiled (cached by content) for the default
    device: a specialization ``execute`` runs. ``split``: as ``compile_entry``'s."""
    spec = Specialization(module, in_avals, out_avals,
                          tree_util.tree_structure(list(range(len(out_avals)))))
    compile_entry(spec, devices.default_device(), name, function=entry, split=split)
    return spec


def program_devices(device, n: int, name: str) -> list:
    """The devices a program placing values on ``n`` devices runs on: the first ``n`` of
    ``device``'s platform (``@dev0`` is where arguments and results live). ``name``: the
    jitted function, for the error."""
    if not n:
        return []
    available = devices.devices(device.platform)
    if n > len(available):
        raise ValueError(f"irax.jit({name}): the compiled program needs {n} "
                         f"{device.platform} devices, but only "
                         f"{len(available)} are available (irax.config.update("
                         "'jax_num_cpu_devices', N) creates N CPU devices)")
    return available[:n]


def execute(entry, leaves):
    """Runs a compiled specialization on flat argument leaves; donated arrays are
    deleted."""
    device = entry.device
    if len(leaves) == 1:
        buffers = [device_buffer(leaves[0], entry.in_avals[0], device)]
    else:
        buffers = [device_buffer(x, a, device) for x, a in zip(leaves, entry.in_avals)]
    try:
        outs = entry.executable(buffers)
    except RuntimeError as e:
        if "RESOURCE_EXHAUSTED" not in str(e):
            raise
        raise OutOfMemoryError(
            f"irax.jit({entry.name}): {device} cannot allocate the memory the program "
            "needs; its results: " + ", ".join(
                f"{a.str_short()} ({byte_count(a.size * a.dtype.itemsize)})"
                for a in entry.out_avals)) from None
    if entry.donated:
        for i in entry.donated:
            if isinstance(leaves[i], Array):
                leaves[i].delete()
    avals = entry.out_avals
    if entry.polymorphic:   # symbolic sizes: each result's shape is its buffer's
        avals = [a if a.is_static else a.update(shape=tuple(b.shape)) for b, a in zip(outs, avals)]
    committed = entry.home is not None
    if len(outs) == 1 and tree_util.treedef_is_strict_leaf(entry.out_tree):  # a bare result
        return Array._from_device(outs[0], avals[0], device, committed)
    results = [Array._from_device(b, a, device, committed) for b, a in zip(outs, avals)]
    return tree_util.tree_unflatten(entry.out_tree, results)
