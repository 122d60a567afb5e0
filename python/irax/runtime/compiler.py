"""In-process IREE compilation of StableHLO modules, with memory and disk caches.

``compile_module(module, target)`` hands the module to IREE as MLIR bytecode (no text
round trip), returns ``.vmfb`` bytes, and counts what happened in ``stats``:
``compiles`` (IREE invocations), ``memory_hits`` and ``disk_hits``.
"""

from __future__ import annotations

import io
import logging
import os
import tempfile
import threading
import time
from dataclasses import dataclass, field

from irax.core.config import config
from irax.core.errors import CompilationError
from irax.runtime import cache

log = logging.getLogger("irax")
stats = {"compiles": 0, "memory_hits": 0, "disk_hits": 0}
_memory: dict[str, bytes] = {}
#: part of every cache key: bump it to invalidate entries written by older irax versions
CACHE_VERSION = "irax-2"
_lock = threading.Lock()


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
        elif self.backend == "cuda":
            f = self._devices("cuda") + [f"--iree-cuda-target={self.cpu or 'sm_80'}"]
        elif self.backend == "vulkan-spirv":
            f = self._devices("vulkan")
        else:
            raise ValueError(f"irax: unknown compilation backend {self.backend!r}")
        f += ["--iree-input-type=stablehlo", "--iree-opt-const-eval=false"]
        if config.jax_enable_x64:
            f.append("--iree-input-demote-f64-to-f32=false")
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
    raise ValueError(f"irax: no compilation target for platform {platform!r}")


def compiler_version() -> str:
    try:
        from importlib.metadata import version

        return version("iree-base-compiler")
    except Exception:  # noqa: BLE001
        return "unknown"


def module_bytecode(module) -> bytes:
    buf = io.BytesIO()
    module.operation.write_bytecode(buf)
    return buf.getvalue()


def compile_module(module, target: Target, name: str = "main") -> bytes:
    """Compiles a StableHLO module (an ``ir.Module``) to ``.vmfb`` bytes, using the caches."""
    code = module_bytecode(module)
    return compile_bytecode(code, target, name)


def compile_bytecode(code: bytes, target: Target, name: str = "main") -> bytes:
    flags = target.flags()
    key = cache.make_key(code, "\0".join(flags), compiler_version(), CACHE_VERSION)
    hit = _memory.get(key)
    if hit is not None:
        stats["memory_hits"] += 1
        return hit
    vmfb = cache.load(key)
    if vmfb is not None:
        stats["disk_hits"] += 1
        log.debug("irax: compile cache hit on disk for %s (%s)", name, key[:12])
        _memory[key] = vmfb
        return vmfb
    start = time.perf_counter()
    vmfb = _invoke_iree(code, flags, name)
    stats["compiles"] += 1
    msg = "irax: compiled %s in %.3f s (%d bytes)"
    (log.warning if config.irax_log_compiles else log.debug)(
        msg, name, time.perf_counter() - start, len(vmfb))
    _memory[key] = vmfb
    cache.store(key, vmfb)
    return vmfb


def clear_memory_cache() -> None:
    """Forgets every compiled module kept in memory (the disk cache stays)."""
    _memory.clear()


def _session(flags: tuple[str, ...]):
    """A fresh compiler session per compilation (0.3 ms): sessions reused across
    invocations were seen to carry state from one compilation into the next."""
    from iree.compiler.api import Session

    s = Session()
    s.set_flags(*flags)
    return s


def _invoke_iree(code: bytes, flags: tuple[str, ...], name: str) -> bytes:
    from iree.compiler.api import Output, Source

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
        raise CompilationError(f"irax: IREE failed to compile {name}:\n{err.text.strip()}")
    return vmfb


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
