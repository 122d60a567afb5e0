"""Global configuration, mirroring ``jax.config``.

Options are read through ``irax.config.<name>`` or ``irax.config.read(name)`` and set with
``irax.config.update(name, value)``. No behaviour-changing environment globals live elsewhere:
every switch that alters results or caching is declared here, once, with its default.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from typing import Any, Callable


@dataclass
class _Option:
    name: str
    default: Any
    doc: str
    validate: Callable[[Any], Any]
    traced: bool = False


def _bool(v: Any) -> bool:
    if isinstance(v, str):
        return v.lower() in ("1", "true", "yes", "on")
    return bool(v)


def _optional_str(v: Any) -> str | None:
    return None if v is None else str(v)


def _device_like(v: Any):
    """None, a platform name, or a device (anything with a platform and an id)."""
    if v is None or isinstance(v, str) or (hasattr(v, "platform") and hasattr(v, "id")):
        return v
    raise ValueError("irax.default_device must be passed either a Device object (e.g. "
                     "`irax.devices('cpu')[0]`) or a platform name string like 'cpu' or "
                     f"'gpu', got: {v!r}")


def _int(v: Any) -> int:
    try:
        return int(v)
    except (TypeError, ValueError):
        raise ValueError(f"expected an integer, got {v!r}") from None


def _nonnegative_int(v: Any) -> int:
    n = _int(v)
    if n < 0:
        raise ValueError(f"expected a non-negative integer, got {v!r}")
    return n


def _checked(validate, value: Any, where: str) -> Any:
    """``validate(value)``, its complaint prefixed with what was being set."""
    try:
        return validate(value)
    except ValueError as e:
        raise ValueError(f"{where}: {e}") from None


class Config:
    """Holds irax's options. ``update`` validates the name, like ``jax.config.update``."""

    def __init__(self) -> None:
        object.__setattr__(self, "_options", {})
        object.__setattr__(self, "_values", {})
        object.__setattr__(self, "_listeners", [])
        object.__setattr__(self, "trace_key", ())

    def define(self, name: str, default: Any, doc: str, validate=lambda v: v,
               env: str | None = None, traced: bool = False):
        """Declares an option; ``traced``: its value changes what tracing produces, so it
        is part of ``trace_key`` (jit retraces when it changes)."""
        value = default
        if env and env in os.environ:
            value = _checked(validate, os.environ[env], f"environment variable {env}")
        self._options[name] = _Option(name, default, doc, validate, traced)
        self._values[name] = value
        self._update_trace_key()

    def update(self, name: str, value: Any) -> None:
        if name not in self._options:
            raise AttributeError(f"irax.config.update: unrecognized config option: {name}")
        self._values[name] = _checked(self._options[name].validate, value,
                                      f"irax.config.update: option {name}")
        self._update_trace_key()
        for fn in self._listeners:
            fn(name)

    @contextlib.contextmanager
    def override(self, name: str, value: Any):
        """``with irax.config.override("jax_enable_x64", True): ...``: ``update`` for the
        block only; the value found on entry comes back on exit, exception or not."""
        saved = self.read(name)
        self.update(name, value)
        try:
            yield
        finally:
            self.update(name, saved)

    def _update_trace_key(self) -> None:
        key = tuple(self._values[n] for n, o in self._options.items() if o.traced)
        object.__setattr__(self, "trace_key", key)

    def read(self, name: str) -> Any:
        try:
            return self._values[name]
        except KeyError:
            raise AttributeError(f"irax.config: unrecognized config option: {name}") from None

    def on_change(self, fn: Callable[[str], None]) -> None:
        """Registers ``fn(name)``, called after every update (used to drop stale caches)."""
        self._listeners.append(fn)

    def __getattr__(self, name: str) -> Any:
        values = object.__getattribute__(self, "_values")
        if name in values:
            return values[name]
        raise AttributeError(f"irax.config has no option {name!r}")

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("irax.config is read-only: use irax.config.update(name, value)")

    def options(self) -> dict[str, str]:
        return {n: o.doc for n, o in self._options.items()}


config = Config()
config.define("jax_enable_x64", False, "Enable 64-bit types (int64, float64, complex128).",
              _bool, env="JAX_ENABLE_X64", traced=True)
config.define("jax_disable_jit", False,
              "Run jit-decorated functions and lax control flow as plain Python on concrete "
              "values (irax.disable_jit()).", _bool, env="JAX_DISABLE_JIT")
config.define("irax_compilation_cache_dir", None,
              "Directory of the persistent compile cache; None uses the user cache directory.",
              _optional_str, env="IRAX_COMPILATION_CACHE_DIR")
config.define("irax_enable_compilation_cache", True,
              "Keep compiled modules on disk and reuse them across processes.", _bool,
              env="IRAX_ENABLE_COMPILATION_CACHE")
config.define("irax_compilation_cache_memory_bytes", 64 << 20,
              "Most bytes of compiled modules kept in memory (least recently used dropped "
              "first); 0 keeps none.", _nonnegative_int,
              env="IRAX_COMPILATION_CACHE_MEMORY_BYTES")
config.define("jax_default_device", None,
              "The device uncommitted arrays and computations go to (a Device, or a "
              "platform name for its first device); None: the first device. "
              "irax.default_device(device) sets it for a block.", _device_like,
              traced=True)
config.define("jax_platforms", None, "Comma-separated platforms to use (cpu, cuda, vulkan).",
              _optional_str, env="JAX_PLATFORMS")
config.define("jax_num_cpu_devices", 1, "Number of local CPU devices.", _int)
config.define("irax_cpu_driver", "auto",
              "IREE driver of CPU programs: 'auto' (each program on the calling thread "
              "with 'local-sync', or on IREE's thread pool with 'local-task' when its "
              "matrix products and convolutions reach irax_cpu_threads_min_flops), "
              "'local-sync' or 'local-task' for every program.", str,
              env="IRAX_CPU_DRIVER")
config.define("irax_shard_map_threads", True,
              "Run a shard_map called outside jit over CPU devices as one program per "
              "device, each on a thread of its own, its collectives meeting on the host "
              "(False: one multi-device program, whose devices run one after another).",
              _bool, env="IRAX_SHARD_MAP_THREADS")
config.define("irax_device_program", True,
              "Run a shard_map, pmap or partitioned jit called outside jit that does not run "
              "as a program per device on threads as one multi-device program whose "
              "arguments and results are the devices' blocks, each on its device (False: "
              "the program takes its operands whole on the first device and gathers its "
              "results there).",
              _bool, env="IRAX_DEVICE_PROGRAM")
config.define("irax_shard_map_threads_min_work", 1 << 17,
              "Under irax_shard_map_threads: the matrix multiply-adds plus produced "
              "elements of each device's program from which it runs on a thread of its "
              "own (below, handing work to threads costs more than the devices' work).",
              _nonnegative_int, env="IRAX_SHARD_MAP_THREADS_MIN_WORK")
config.define("irax_cpu_threads_min_flops", 1 << 25,
              "Under irax_cpu_driver='auto': the multiply-adds of a program's matrix "
              "products and convolutions, per device of a multi-device program, from "
              "which it runs on the thread pool.",
              _nonnegative_int, env="IRAX_CPU_THREADS_MIN_FLOPS")
config.define("irax_cpu_tune_min_elements", 1 << 23,
              "Under irax_cpu_driver='auto': a loop-free program whose ops produce at least "
              "this many elements (per device of a multi-device program) times its first "
              "calls on both drivers and keeps the faster (large elementwise work: two "
              "cores stream more memory than one, but IREE's pool faults its larger "
              "results' pages in at every call; 0: never).",
              _nonnegative_int, env="IRAX_CPU_TUNE_MIN_ELEMENTS")
config.define("irax_cpu_tune_min_flops", 1 << 22,
              "Under irax_cpu_driver='auto': a loop-free program whose matrix products and "
              "convolutions hold from this many multiply-adds (per device of a "
              "multi-device program) to below irax_cpu_threads_min_flops times its first "
              "calls on both drivers and keeps the faster (where the pool starts to pay "
              "depends on the machine's cores and vector units).",
              _nonnegative_int, env="IRAX_CPU_TUNE_MIN_FLOPS")
config.define("irax_cpu_threads", 0,
              "Worker threads of IREE's CPU thread pool ('local-task'); 0: one per CPU "
              "this process may run on. Read once, when the pool is created.",
              _nonnegative_int, env="IRAX_CPU_THREADS")
config.define("irax_cpu_pin_threads", False,
              "Pin the CPU thread pool's workers to cores, one per physical core (IREE's "
              "own topology; irax_cpu_threads is then ignored). False: the operating "
              "system places them, so that a worker whose core another thread wants moves "
              "to an idle one instead of waiting (docs/performance.md). Read once, when "
              "the pool is created.", _bool, env="IRAX_CPU_PIN_THREADS")
config.define("irax_cpu_batch_waits", True,
              "While a program runs on IREE's CPU thread pool, the calling thread is "
              "SCHED_BATCH (Linux), so that, woken at the program's end, it does not "
              "preempt the worker that woke it (IREE 3.13's wait then spins for the rest "
              "of a time slice; docs/performance.md).", _bool, env="IRAX_CPU_BATCH_WAITS")
config.define("irax_cpu_matmul_tuning", True,
              "On an x86-64 CPU with AVX2 and no AVX-512: programs whose contractions "
              "reach irax_cpu_data_tiling_min_flops compile their float32 matrix products "
              "in 6x16 register tiles (runtime/avx2_matmul_tuning.mlir, an IREE tuning "
              "spec) instead of with IREE's data tiling (docs/performance.md).", _bool,
              env="IRAX_CPU_MATMUL_TUNING")
config.define("irax_cpu_data_tiling_min_flops", 1 << 24,
              "CPU programs whose matrix products and convolutions hold at least this many "
              "multiply-adds compile their products with irax's AVX2 tiles "
              "(irax_cpu_matmul_tuning) or else with IREE's data tiling and microkernels "
              "(--iree-opt-data-tiling --iree-llvmcpu-enable-ukernels=all; "
              "docs/performance.md); 0: every CPU program.", _nonnegative_int,
              env="IRAX_CPU_DATA_TILING_MIN_FLOPS")
config.define("irax_cpu_allocator", "caching",
              "Buffer allocator of CPU devices: 'caching' keeps freed buffers (up to "
              "irax_cpu_allocator_cache_bytes) for reuse by the next allocation of the "
              "same size, sparing every call the page faults of fresh memory; 'system' "
              "allocates and frees each buffer.", str, env="IRAX_CPU_ALLOCATOR")
config.define("irax_cpu_allocator_cache_bytes", 2 << 30,
              "Most bytes of device buffers the caching CPU allocator holds, live and "
              "free together, before it returns freed ones to the system.",
              _nonnegative_int, env="IRAX_CPU_ALLOCATOR_CACHE_BYTES")
config.define("irax_cpu_huge_pages", True,
              "Back CPU buffers of 4 MB or more with transparent huge pages (Linux, where "
              "the kernel's mode is 'madvise'): host data copied in and programs' large "
              "results (docs/performance.md, 'Huge pages for large buffers').",
              _bool, env="IRAX_CPU_HUGE_PAGES")
config.define("irax_cpu_output_storage", True,
              "Results of 4 MB or more of a one-device CPU program are written into buffers "
              "irax allocates from the device's caching allocator (IREE's thread pool "
              "takes a fresh mapping for each result above 64 MB otherwise, and faults its "
              "pages in at every call; passes/output_storage.py).",
              _bool, env="IRAX_CPU_OUTPUT_STORAGE")
config.define("irax_cpu_split_loops", True,
              "Under irax_cpu_driver='auto': run a one-device CPU program's top-level loop "
              "whose body holds at least irax_cpu_threads_min_flops multiply-adds from the "
              "host, its body a program of its own on the thread pool (a program with a "
              "loop runs on one thread otherwise; docs/performance.md).",
              _bool, env="IRAX_CPU_SPLIT_LOOPS")
config.define("irax_tiered_jit", True,
              "Run the first calls of a jitted function that is not in the compile cache "
              "on the reference interpreter while IREE compiles it on another thread "
              "(small loop-free single-device CPU programs; docs/performance.md); False "
              "compiles before the first call.", _bool, env="IRAX_TIERED_JIT")
config.define("irax_function_records", True,
              "With the persistent compile cache: a jitted function compiled in an earlier "
              "process, whose code and what it reads irax can digest, runs its program "
              "without being traced (frontend/function_record.py); False always traces.",
              _bool, env="IRAX_FUNCTION_RECORDS")
config.define("irax_auto_dynamic_axes", False,
              "A jitted function specialized for a third size of the same axes (its other "
              "sizes alike) compiles one shape-polymorphic program for those axes instead "
              "(as abstracted_axes would), logged under jax_log_compiles.", _bool,
              env="IRAX_AUTO_DYNAMIC_AXES")
config.define("irax_tiered_jit_max_elements", 1 << 22,
              "Under irax_tiered_jit: the most elements all ops of a program may produce "
              "for its first calls to be interpreted.", _nonnegative_int,
              env="IRAX_TIERED_JIT_MAX_ELEMENTS")
config.define("irax_eager_vmap_compiled", True,
              "Run vmap outside jit compiled (the same program, and numbers, as jit(vmap)); "
              "False runs it on the reference interpreter (no compile: slower per call, "
              "but no compile latency).", _bool, env="IRAX_EAGER_VMAP_COMPILED")
config.define("irax_eager_control_flow_compiled", True,
              "Run lax.while_loop, fori_loop, scan, map and cond outside jit compiled, as "
              "JAX does (the loop is compiled once and every trip runs in the compiled "
              "program); False runs them on the reference interpreter (no compile latency, "
              "but each trip pays the interpreter).", _bool,
              env="IRAX_EAGER_CONTROL_FLOW_COMPILED")
config.define("irax_while_grad_tape_bytes", 64 << 20,
              "Memory the reverse sweep of a while_loop may use for stored carries "
              "(checkpoints and one segment): within it the backward pass costs about 2 "
              "forward sweeps (docs/control_flow.md).", _nonnegative_int,
              env="IRAX_WHILE_GRAD_TAPE_BYTES", traced=True)
config.define("irax_while_grad_forward", True,
              "Reverse mode through a while_loop whose body is elementwise (carries and "
              "consts 0-d or of one shape, at most 4 differentiable leaves of one float "
              "dtype) computes the loop's diagonal Jacobian in the forward loop instead of "
              "a backward sweep over a tape of carries; False always uses the tape.",
              _bool, env="IRAX_WHILE_GRAD_FORWARD", traced=True)
config.define("irax_conv_as_matmul", True,
              "Lower an ungrouped floating-point convolution with few window positions "
              "(im2col) or few output positions (a kernel's gradient) to slices and one "
              "matrix product, which IREE compiles better than its convolutions "
              "(dialect/conv_contract.py); False keeps stablehlo.convolution.", _bool,
              env="IRAX_CONV_AS_MATMUL", traced=True)
config.define("irax_loop_kernel_max_elements", 256,
              "A jitted while/fori/scan loop whose carries are 0-d or share one shape of at "
              "most this many elements, with elementwise cond and body, runs as one native "
              "loop in one dispatch (irax-loop-kernels); 0 keeps every loop host-driven.",
              _nonnegative_int, env="IRAX_LOOP_KERNEL_MAX_ELEMENTS", traced=True)
config.define("irax_loop_kernel_vector_lanes", True,
              "A loop kernel (irax_loop_kernel_max_elements) computes the elements of a row "
              "as one vector (each op one vector instruction) instead of as separate "
              "scalars; the same bits either way.", _bool,
              env="IRAX_LOOP_KERNEL_VECTOR_LANES", traced=True)
config.define("irax_vector_loop_kernels", True,
              "A jitted while/fori/scan loop whose state is scalars and small vectors, "
              "with elementwise ops, products of a vector by a fixed matrix, reductions "
              "and row reads/writes of larger tensors, runs as one dispatch of vector code "
              "(irax-loop-kernels: lowering/vector_loop.py); False keeps such loops "
              "host-driven.", _bool, env="IRAX_VECTOR_LOOP_KERNELS", traced=True)
config.define("jax_debug_nans", False,
              "Raise FloatingPointError when a jitted function returns a NaN, naming the "
              "first op that produced one.", _bool, env="JAX_DEBUG_NANS")
config.define("jax_debug_infs", False,
              "Like jax_debug_nans, for infinities.", _bool, env="JAX_DEBUG_INFS")
config.define("jax_log_compiles", False,
              "Log (WARNING, 'irax' logger) each jitted specialization made ready: the "
              "function, its argument types, the seconds and where the program came from.",
              _bool, env="JAX_LOG_COMPILES")
config.define("irax_log_compiles", False, "Log every IREE compilation to the 'irax' logger.",
              _bool, env="IRAX_LOG_COMPILES")
config.define("jax_numpy_dtype_promotion", "standard",
              "Type promotion mode: 'standard' or 'strict'.", str, traced=True)
config.define("jax_default_matmul_precision", None, "Default matmul precision (accepted).",
              _optional_str, traced=True)
config.define("jax_threefry_partitionable", True, "Partitionable Threefry key derivation.", _bool,
              traced=True)
config.define("jax_high_dynamic_range_gumbel", False,
              "Default mode of random.gumbel, categorical and choice: 'high' when set, "
              "else 'low'.", _bool, traced=True)


def debug_nans(new_val: bool = True):
    """``with irax.debug_nans(): ...`` (``jax.debug_nans``): ``jax_debug_nans`` for the block."""
    return config.override("jax_debug_nans", new_val)


def debug_infs(new_val: bool = True):
    """``with irax.debug_infs(): ...`` (``jax.debug_infs``): ``jax_debug_infs`` for the block."""
    return config.override("jax_debug_infs", new_val)


def log_compiles(new_val: bool = True):
    """``with irax.log_compiles(): ...`` (``jax.log_compiles``): ``jax_log_compiles`` for the
    block."""
    return config.override("jax_log_compiles", new_val)
