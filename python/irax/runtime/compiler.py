"""In-process IREE compilation of StableHLO modules, with memory and disk caches.

``compile_module(module, target)`` hands the module to IREE as MLIR bytecode (no text
round trip), returns ``.vmfb`` bytes, and counts what happened in ``stats``:
``compiles`` (IREE invocations), ``memory_hits`` and ``disk_hits``.

The memory cache keeps the most recently used modules up to
``irax_compilation_cache_memory_bytes`` in all; ``clear_memory_cache`` empties it and
hands the freed memory back to the system. A module found on disk is loaded once by the
IREE runtime before it is used: one that IREE rejects is discarded and recompiled.
"""

from __future__ import annotations

import functools
import hashlib
import io
import logging
import os
import re
import sys
import tempfile
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field

from irax.core.config import config
from irax.core.errors import CompilationError
from irax.runtime import cache
from irax.runtime import devices as _devices
from irax.runtime.avx2_tiles import AVX2_MATMUL_TUNING, spec_for

log = logging.getLogger("irax")
stats = {"compiles": 0, "memory_hits": 0, "disk_hits": 0}
#: compilations redone without IREE's data tiling, or without irax's tuning spec, which
#: failed on them
fallbacks = {"data_tiling": 0, "tuning_spec": 0}
#: part of every cache key: bump it to invalidate entries written by older irax versions
CACHE_VERSION = "irax-2"
_lock = threading.Lock()


class _MemoryCache:
    """Compiled modules by key, the least recently used dropped first once their sizes
    add up to more than ``irax_compilation_cache_memory_bytes`` (0 keeps none)."""

    def __init__(self):
        self._entries: OrderedDict[str, bytes] = OrderedDict()
        self.nbytes = 0
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key: str) -> bool:
        return key in self._entries

    def get(self, key: str) -> bytes | None:
        with self._lock:
            hit = self._entries.get(key)
            if hit is not None:
                self._entries.move_to_end(key)
            return hit

    def put(self, key: str, vmfb: bytes) -> None:
        """Keeps ``vmfb`` as the most recently used module (not at all when it alone is
        larger than the limit: it would only push out everything else)."""
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                self.nbytes -= len(old)
            if len(vmfb) <= config.irax_compilation_cache_memory_bytes:
                self._entries[key] = vmfb
                self.nbytes += len(vmfb)
                self._evict()

    def _evict(self) -> None:
        limit = config.irax_compilation_cache_memory_bytes
        while self._entries and self.nbytes > limit:
            _, dropped = self._entries.popitem(last=False)
            self.nbytes -= len(dropped)

    def evict(self) -> None:
        """Drops modules until the total is within the limit (after it was lowered)."""
        with self._lock:
            self._evict()

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self.nbytes = 0


_memory = _MemoryCache()


def _on_config_change(name: str) -> None:
    if name == "irax_compilation_cache_memory_bytes":
        _memory.evict()


config.on_change(_on_config_change)


#: CUDA architectures IREE 3.13 has no name for: the module carries a hand-written
#: ``#iree_gpu.target`` device attribute instead of ``--iree-cuda-target``
CUDA_IN_IR = ("sm_90",)


_TUNING_FLAG = "--iree-codegen-tuning-spec-path="
#: programs with a matrix product of more than ``AVX2_TILES_MAX_ROWS`` rows that produces
#: ``AVX2_TILES_MAX_EXTENT`` columns or more keep IREE's data tiling: its packing pays for
#: itself over many rows of wide results (one thread: 256x1024 by 1024x1024 10.4 ms with
#: the tiles against 7.9 data-tiled, 1024^3 33 against 28, 512x768 by 768x3072 46 against
#: 36), not over few (64x4096 by 4096x4096 48 against 70, 128x4096 by 4096x4096 94
#: against 117, 192x1024 by 1024x1024 6.3 either way), nor where the result is narrower
#: (the tiles reduce in steps: 512x2048 by 2048x512 12.5 against 15.2, 1024x1024 by
#: 1024x512 12.3 against 15.1, A.T @ B 256x2048 by 2048x512 6.4 against 8.6)
AVX2_TILES_MAX_EXTENT = 1024
AVX2_TILES_MAX_ROWS = 192


@functools.lru_cache(maxsize=None)
def host_cpu_features() -> frozenset[str]:
    """The flags of this machine's CPU as Linux lists them (empty elsewhere)."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return frozenset(line.split(":", 1)[1].split())
    except OSError:
        pass
    return frozenset()


def avx2_matmul_tiles(target: Target | None = None, products=()) -> bool:
    """Whether ``target`` (default: this machine's CPU) compiles the float32 matrix
    products of a program with large contractions, of shapes ``products`` (``(rows,
    columns, depth, batched)``: ``lowering/work.py Work.products``), with the tuning spec
    (``avx2_tuning_flags``, ``irax_cpu_matmul_tuning``) instead of IREE's data tiling,
    which the tiles beat there (docs/performance.md, "Matrix products in 6x16 tiles"): an
    llvm-cpu target for this host, whose CPU has AVX2 and FMA but no AVX-512 (the spec's
    tile shape is chosen for its 16 vector registers of 8 floats), and no product of
    more than ``AVX2_TILES_MAX_ROWS`` rows and ``AVX2_TILES_MAX_EXTENT`` columns."""
    target = target or Target()
    if not config.irax_cpu_matmul_tuning or target.backend != "llvm-cpu":
        return False
    if any(rows > AVX2_TILES_MAX_ROWS and cols >= AVX2_TILES_MAX_EXTENT
           for rows, cols, _, _ in products):
        return False
    if target.cpu != "host" or target.triple:
        return False
    features = host_cpu_features()
    return {"avx2", "fma"} <= features and "avx512f" not in features


#: the flags of a program compiled with the tuning spec. IREE 3.13 deadlocks compiling
#: with a tuning spec on several threads (one of its workers, loading the spec under a
#: mutex, verifies it in parallel, picks up another executable's pipeline while it
#: waits, and blocks on the mutex it holds: seen in one compile of 19 in-process, and on
#: the first of iree-compile's): such programs compile in an ``iree-compile`` process of
#: their own on one thread (``compile_keyed``). The spec tiles the reduction in steps of
#: 64 (so that the rows of the right operand a tile reads stay in cache, whatever their
#: stride), which leaves the zeroing of a tile's 64x64 accumulators one vector: IREE's
#: check for large vectors, which would reject it, is off (it is written once per tile)
AVX2_TUNING_FLAGS = (_TUNING_FLAG + AVX2_MATMUL_TUNING, "--mlir-disable-threading",
                     "--iree-llvmcpu-fail-on-large-vector=false")


def avx2_tuning_flags(products) -> tuple[str, ...]:
    """``AVX2_TUNING_FLAGS`` with the spec of a program whose products have the shapes
    ``products`` (``runtime/avx2_tiles.py spec_for``: blocks that divide them)."""
    return (_TUNING_FLAG + spec_for(products),) + AVX2_TUNING_FLAGS[1:]


def tuning_spec(flags) -> str | None:
    """The tuning spec named in ``flags``, or None."""
    return next((f[len(_TUNING_FLAG):] for f in flags if f.startswith(_TUNING_FLAG)), None)


#: flags only an ``iree-compile`` process takes (a compilation with one is isolated)
PROCESS_FLAGS = ("--mlir-disable-threading",)


@functools.lru_cache(maxsize=None)
def _file_digest(path: str) -> str:
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def keyed_flags(flags) -> tuple[str, ...]:
    """``flags`` as cache keys hold them: a tuning spec by its content, not its path."""
    return tuple(_TUNING_FLAG + _file_digest(f[len(_TUNING_FLAG):])
                 if f.startswith(_TUNING_FLAG) else f for f in flags)


@dataclass(frozen=True)
class Target:
    """A compilation target: an IREE backend plus its flags.

    ``num_devices > 0`` declares devices ``@dev0`` ... ``@devN-1`` of the backend's kind,
    which a program with ``flow.tensor.transfer`` ops (a pmap) addresses by name."""

    backend: str = "llvm-cpu"
    cpu: str = "host"
    triple: str | None = None
    extra: tuple[str, ...] = field(default_factory=tuple)
    num_devices: int = 0

    def _devices(self, kind: str) -> list[str]:
        if not self.num_devices:
            return [f"--iree-hal-target-device={kind}"]
        return [f"--iree-hal-target-device=dev{i}={kind}[{i}]"
                for i in range(self.num_devices)]

    def flags(self) -> tuple[str, ...]:
        if self.backend == "llvm-cpu":
            f = self._devices("local") + [
                 "--iree-hal-local-target-device-backends=llvm-cpu",
                 f"--iree-llvmcpu-target-cpu={self.cpu}"]
            if self.triple:
                f.append(f"--iree-llvmcpu-target-triple={self.triple}")
        elif self.backend == "vmvx":
            f = self._devices("local") + ["--iree-hal-local-target-device-backends=vmvx"]
        elif self.backend == "cuda" and self.cpu in CUDA_IN_IR:
            f = []   # the module names its device (irax.export writes the attribute)
        elif self.backend == "cuda":
            f = self._devices("cuda") + [f"--iree-cuda-target={self.cpu or 'sm_80'}"]
        elif self.backend == "vulkan-spirv":
            f = self._devices("vulkan") + ([f"--iree-vulkan-target={self.cpu}"] if self.cpu
                                           else [])
        elif self.backend == "rocm":
            f = self._devices("hip") + [f"--iree-rocm-target={self.cpu or 'gfx942'}"]
        else:
            raise ValueError(f"irax: unknown compilation backend {self.backend!r}")
        # float64 stays float64 in either mode: without x64 irax emits float64 only where
        # it means it (the exact float32 sin/cos reduction of lowering/trig.py)
        f += ["--iree-input-type=stablehlo", "--iree-opt-const-eval=false",
              "--iree-input-demote-f64-to-f32=false"]
        if config.jax_enable_x64:
            if self.backend == "llvm-cpu" and not self.triple:
                # float64 sin/cos/tan become libm calls, which IREE's embedded linker
                # cannot resolve: link a system library (host only) instead
                f.append("--iree-llvmcpu-link-embedded=false")
        return tuple(f) + tuple(self.extra)


def target_for_platform(platform: str, num_devices: int = 0) -> Target:
    if platform == "cpu":
        return Target("llvm-cpu", num_devices=num_devices)
    if platform == "cuda":
        return Target("cuda", cpu="sm_80", num_devices=num_devices)
    if platform == "vulkan":
        return Target("vulkan-spirv", cpu="", num_devices=num_devices)
    if platform == "rocm":
        return Target("rocm", cpu="gfx942", num_devices=num_devices)
    raise ValueError(f"irax: no compilation target for platform {platform!r}")


def _describe(version, revisions) -> str:
    listed = ", ".join(f"{k} {r}" for k, r in sorted(dict(revisions).items()))
    return f"iree.compiler {version} ({listed})"


def _version_file():
    """``(VERSION, REVISIONS)`` of ``iree/compiler/version.py`` read without importing
    the package (its constants, by ``ast.literal_eval``), or None."""
    import ast  # import cost: only here
    import importlib.util  # import cost: only here

    try:
        spec = importlib.util.find_spec("iree.compiler")
        if spec is None or not spec.submodule_search_locations:
            return None
        path = os.path.join(list(spec.submodule_search_locations)[0], "version.py")
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read())
        consts = {t.id: ast.literal_eval(node.value) for node in tree.body
                  if isinstance(node, ast.Assign) for t in node.targets
                  if isinstance(t, ast.Name)}
        return consts["VERSION"], consts["REVISIONS"]
    except (OSError, ValueError, KeyError, SyntaxError, ImportError):
        return None


@functools.cache
def compiler_version() -> str:
    """Identifies the IREE compiler in use; part of every cache key, so that no entry
    compiled by another compiler is loaded. It is the version and revisions
    ``iree.compiler`` records in its ``version`` module, read as a file (importing
    ``iree.compiler`` loads the MLIR bindings, 60 ms, which a warm start from a function
    record does not need) or else imported; without that module (a development build), the
    version of the
    ``iree-base-compiler`` package (``importlib.metadata``: 20 ms to import); without
    package metadata either (a vendored copy), a digest of the compiler's native library
    (read once per process: about a second). Raises ``CompilationError`` when the
    compiler cannot be identified at all."""
    found = _version_file()
    if found is not None:
        return _describe(*found)
    try:
        from iree.compiler import version as v  # import cost: IREE loads on first use

        return _describe(v.VERSION, v.REVISIONS)
    except Exception:  # noqa: BLE001 - development builds have no version module
        pass
    try:
        from importlib.metadata import version  # import cost: 20 ms

        return version("iree-base-compiler")
    except Exception:  # noqa: BLE001 - no metadata (PackageNotFoundError, a broken dist)
        pass
    path = _compiler_library()
    try:
        with open(path, "rb") as f:
            digest = hashlib.file_digest(f, "sha256").hexdigest()
    except OSError as e:
        raise CompilationError(f"irax: cannot identify the IREE compiler: no package "
                               f"metadata, no iree.compiler.version, and its library "
                               f"{path} cannot be read ({e})") from None
    return f"{os.path.basename(path)} sha256:{digest}"


def _compiler_library() -> str:
    """The path of the IREE compiler's native library, found as ``iree.compiler`` finds it."""
    try:
        from iree.compiler.api import ctypes_dl  # import cost: IREE loads on first use

        path = ctypes_dl._probe_iree_compiler_dylib()
        if path:
            return str(path)
    except Exception:  # noqa: BLE001 - a private helper: look for the library ourselves
        pass
    try:
        from iree.compiler import _mlir_libs  # import cost: IREE loads on first use

        dirs = list(_mlir_libs.__path__)
    except Exception:  # noqa: BLE001
        dirs = []
    for d in dirs:
        for name in ("libIREECompiler.so", "libIREECompiler.dylib", "IREECompiler.dll"):
            if os.path.exists(os.path.join(d, name)):
                return os.path.join(d, name)
    raise CompilationError("irax: cannot identify the IREE compiler: no package metadata, "
                           "no iree.compiler.version, and no libIREECompiler library found")


def module_bytecode(module) -> bytes:
    buf = io.BytesIO()
    module.operation.write_bytecode(buf)
    return buf.getvalue()


def compile_module(module, target: Target, name: str = "main") -> bytes:
    """Compiles a StableHLO module (an ``ir.Module``) to ``.vmfb`` bytes, using the caches."""
    code = module_bytecode(module)
    return compile_bytecode(code, target, name)


def compile_bytecode(code: bytes, target: Target, name: str = "main") -> bytes:
    key, info = key_of(code, target)
    vmfb = cached_by_key(key, info, name)
    return vmfb if vmfb is not None else compile_keyed(code, key, info, name)


def key_of(code: bytes, target: Target) -> tuple[str, dict]:
    """The cache key of ``code`` compiled for ``target`` and what it is made of (recorded
    in the disk entry and checked when it is read)."""
    flags = target.flags() + GLOBAL_FLAGS
    version = compiler_version()
    key = cache.make_key(code, "\0".join(keyed_flags(flags)), version, CACHE_VERSION)
    return key, {"compiler": version, "flags": list(flags), "irax_cache_version": CACHE_VERSION,
                 "module_sha256": hashlib.sha256(code).hexdigest()}


def cached_by_key(key: str, info: dict, name: str = "main") -> bytes | None:
    """The ``.vmfb`` stored under ``key`` (made with ``info``: ``key_of``), None on a
    miss."""
    hit = _memory.get(key)
    if hit is not None:
        stats["memory_hits"] += 1
        return hit
    vmfb = cache.load(key, info)
    if vmfb is not None:
        problem = _load_problem(vmfb)
        if problem is None:
            stats["disk_hits"] += 1
            log.debug("irax: compile cache hit on disk for %s (%s)", name, key[:12])
            _memory.put(key, vmfb)
            return vmfb
        cache.discard(key, f"the IREE runtime rejects it: {problem}")
    return None


#: IREE's data tiling (operands of matrix products packed into tiles the CPU's vector
#: registers take) with its microkernels: for CPU programs with large contractions
#: (``frontend/compile.py Program``)
DATA_TILING_FLAGS = ("--iree-opt-data-tiling", "--iree-llvmcpu-enable-ukernels=all")


def compile_keyed(code: bytes, key: str, info: dict, name: str = "main",
                  isolate: bool = False) -> bytes:
    """Compiles ``code`` with IREE and stores the result in both caches under ``key``
    (with ``info``, both from ``key_of``). Runs on any thread: IREE releases the GIL while
    it compiles, and one compilation runs at a time. ``isolate``: compile in a separate
    ``iree-compile`` process (programs with nested loops, on which IREE 3.13's compiler
    was seen to crash: a crash there is an error here, not the end of this process)."""
    flags = tuple(info["flags"])
    start = time.perf_counter()
    isolate = isolate or any(f in PROCESS_FLAGS for f in flags)
    invoke = _invoke_iree_process if isolate else _invoke_iree
    try:
        vmfb = invoke(code, flags, name)
    except CompilationError:
        # IREE 3.13's data tiling fails on some programs ("exceeded stack allocation
        # limit" for vmap(grad) of an MLP): those compile without it, under the same key;
        # so does a program IREE fails to compile with irax's tuning spec (none known)
        spec = tuning_spec(flags)
        dropped = set(DATA_TILING_FLAGS)
        if spec is not None:     # the spec and the flag that only it needs
            dropped |= {_TUNING_FLAG + spec, *AVX2_TUNING_FLAGS[2:]}
        plain = tuple(f for f in flags if f not in dropped)
        if plain == flags:
            raise
        vmfb = invoke(code, plain, name)
        fallbacks["tuning_spec" if spec else "data_tiling"] += 1
        if spec:
            log.warning("irax: IREE failed to compile %s with the tuning spec %s; compiled "
                        "it without", name, spec)
    stats["compiles"] += 1
    msg = "irax: compiled %s in %.3f s (%d bytes)"
    (log.warning if config.irax_log_compiles or config.jax_log_compiles else log.debug)(
        msg, name, time.perf_counter() - start, len(vmfb))
    _memory.put(key, vmfb)
    cache.store(key, vmfb, info)
    return vmfb


def _load_problem(vmfb: bytes) -> str | None:
    """Why the IREE runtime cannot load ``vmfb`` as a module (None when it can): what
    ``Executable`` does first, tried on a disk entry before it is trusted (~10 us)."""
    rt = _devices.runtime()
    try:
        rt.VmModule.copy_buffer(_devices.instance(), vmfb)
    except Exception as e:  # noqa: BLE001 - IREE raises ValueError, RuntimeError...
        return f"{type(e).__name__}: {e}"
    return None


def clear_memory_cache() -> None:
    """Forgets every compiled module kept in memory (the disk cache stays) and returns
    freed heap memory to the system (``irax.clear_caches`` calls it last, after dropping
    the jit specializations and the executables they hold)."""
    _memory.clear()
    _release_freed_memory()


def _release_freed_memory() -> None:
    """glibc keeps freed memory in its heap for reuse; ``malloc_trim`` hands it back.
    Other C libraries (musl, macOS, Windows) lack it: nothing is done there."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    try:
        trim = ctypes.CDLL("libc.so.6").malloc_trim
    except (OSError, AttributeError):  # not glibc
        return
    trim(0)


#: process-wide compiler options (not session options in IREE 3.13), set before the first
#: compilation and part of every cache key. CPU code peels the remainder of a vectorized
#: loop instead of masking every vector: IREE's default for x86 masks each load and store
#: (``vmaskmovps``), which on AVX2 machines made a 100 MB elementwise kernel 2.6x slower
#: than the same loop peeled (28 vs 10.8 ms; docs/performance.md).
#: Not here: IREE 3.13's local-task driver races on the command buffers it records for
#: loop bodies (docs/performance.md has the standalone reproducer); the two options that
#: cure the race each miscompile other programs (--iree-hal-indirect-command-buffers=false:
#: jnp.linalg.lstsq in one large module; --iree-hal-memoization=false: cholesky under
#: vmap), so irax keeps loops off the thread pool instead (frontend/compile.py
#: wants_threads).
GLOBAL_FLAGS: tuple[str, ...] = ("--iree-llvmcpu-vector-pproc-strategy=peel",)
_global_flags_set = []


def _set_global_flags() -> None:
    if _global_flags_set:
        return
    from iree.compiler.api import ctypes_dl  # import cost: IREE loads on first use

    ctypes_dl._initializeGlobalCL("irax", *GLOBAL_FLAGS)
    _global_flags_set.append(True)


def _session(flags: tuple[str, ...]):
    """A fresh compiler session per compilation (0.3 ms): sessions reused across
    invocations were seen to carry state from one compilation into the next."""
    from iree.compiler.api import Session  # import cost: IREE loads on first use

    _set_global_flags()
    s = Session()
    s.set_flags(*(f for f in flags if f not in GLOBAL_FLAGS))
    return s


_UNSUPPORTED_ELEMENT_TYPE = "'hal.element_type' op unsupported element type"
_FRACTIONAL_BYTES = "does not have integral number of total bytes"
#: the embedded linker of a cross target finding a C math function (float64 sin, ...)
_UNDEFINED = re.compile(r"undefined symbol: ([A-Za-z_][A-Za-z0-9_]*)")
#: the sub-byte and exotic float dtypes IREE 3.13's compiler and runtime do not carry
_NO_ELEMENT_TYPE = ("int2", "uint2", "int4", "uint4", "float8_e3m4", "float8_e4m3",
                    "float8_e4m3b11fnuz", "float6_e2m3fn", "float6_e3m2fn", "float4_e2m1fn")


def carries(dtype) -> bool:
    """Whether compiled programs can take, hold and return arrays of ``dtype``."""
    return str(dtype) not in _NO_ELEMENT_TYPE


def _invoke_iree(code: bytes, flags: tuple[str, ...], name: str) -> bytes:
    from iree.compiler.api import Output, Source  # import cost: IREE loads on first use

    with _lock, _CapturedStderr() as err:
        session = _session(flags)
        inv = session.invocation()
        src = Source.wrap_buffer(session, code)
        ok = inv.parse_source(src) and inv.execute()
        if ok:
            out = Output.open_membuffer()
            inv.output_vm_bytecode(out)
            vmfb = bytes(out.map_memory())
            out.close()
        inv.close()
        session.close()
    if not ok:
        _raise_failure(err.text, flags, name)
    return vmfb


#: a frame of a crashed compiler's stack dump inside IREE ("#4 0x... mlir::iree_compiler::
#: IREE::Stream::ResourceType::getLifetime() const StreamTypes.cpp:0:0")
_FRAME = re.compile(r"#\d+ 0x[0-9a-f]+ (mlir::iree_compiler::\S+)")


def _invoke_iree_process(code: bytes, flags: tuple[str, ...], name: str) -> bytes:
    """``_invoke_iree`` in a child ``iree-compile`` process (about 0.1 s more)."""
    import subprocess

    from iree.compiler.tools import binaries  # import cost: IREE loads on first use

    tool = binaries.find_tool("iree-compile")
    with tempfile.TemporaryDirectory(prefix="irax-compile-") as tmp:
        src, out = os.path.join(tmp, "program.mlirbc"), os.path.join(tmp, "program.vmfb")
        with open(src, "wb") as f:
            f.write(code)
        proc = subprocess.run([tool, *GLOBAL_FLAGS, *flags, src, "-o", out],
                              capture_output=True, check=False)
        if proc.returncode == 0:
            with open(out, "rb") as f:
                return f.read()
        text = proc.stderr.decode(errors="replace")
        if proc.returncode < 0 or "Please report issues to" in text:
            kept = os.path.join(tempfile.gettempdir(), f"irax-crash-{os.getpid()}-"
                                f"{hashlib.sha256(code).hexdigest()[:12]}.mlirbc")
            with open(kept, "wb") as f:
                f.write(code)
            where = next((m.group(1) for m in map(_FRAME.search, text.splitlines()) if m),
                         None)
            raise CompilationError(
                f"irax: IREE's compiler crashed compiling {name} (exit status "
                f"{proc.returncode}{', in ' + where if where else ''}): a bug of IREE "
                f"{compiler_version()}, not of the program; what it was given is saved "
                f"in {kept} (iree-compile {' '.join(flags)} {kept})")
        _raise_failure(text, flags, name)
    raise AssertionError("unreachable")


def _raise_failure(text: str, flags: tuple[str, ...], name: str):
    """Raises the error a failed compilation's diagnostics ``text`` mean."""
    if _UNSUPPORTED_ELEMENT_TYPE in text:
        raise TypeError(
            f"irax: IREE cannot compile {name}: it computes with a dtype IREE has no element "
            f"type for ({', '.join(_NO_ELEMENT_TYPE)}); such arrays work eagerly only")
    if _FRACTIONAL_BYTES in text:
        raise TypeError(
            f"irax: IREE cannot compile {name}: it holds an array of a sub-byte dtype (int2, "
            "int4, ...) whose size is not a whole number of bytes; such arrays work eagerly "
            "only")
    missing = _UNDEFINED.search(text)
    triple = next((f.split("=", 1)[1] for f in flags
                   if f.startswith("--iree-llvmcpu-target-triple=")), None)
    if missing and triple:
        raise CompilationError(
            f"irax: IREE cannot compile {name} for {triple}: it calls the C math "
            f"function {missing.group(1)}, which cross-compiled code cannot link "
            "(irax-expand-libm rewrites float64 sin, cos, tan, tanh, atan2, cbrt, "
            "fmod, exp, expm1, log, log1p, pow, logistic and the roundings, and "
            "complex128 sin, cos, tan, tanh, exp, expm1, log, log1p, sqrt and power, "
            "not this one); "
            "compute it in float32, or compile for this machine")
    raise CompilationError(f"irax: IREE failed to compile {name}:\n{text.strip()}")


class _CapturedStderr:
    """Captures what the native compiler prints on fd 2 (its diagnostics)."""

    def __enter__(self):
        self._tmp = tempfile.TemporaryFile()
        self._saved = os.dup(2)
        os.dup2(self._tmp.fileno(), 2)
        self.text = ""
        return self

    def __exit__(self, *exc):
        os.dup2(self._saved, 2)
        os.close(self._saved)
        self._tmp.seek(0)
        self.text = self._tmp.read().decode(errors="replace")
        self._tmp.close()
        return False
