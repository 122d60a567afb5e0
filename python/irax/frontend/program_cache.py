"""The traced program's own cache entry: from a traced module straight to its compiled
program, without running the passes again.

The compile cache (``runtime/compiler.py``) is keyed by the module IREE compiles, which
takes ``irax-jit``'s passes to make from the traced module: for a few hundred ops that
is most of a warm start's time (150 ms of the 200-op benchmark function, 40 sines
legalized op by op). So once a specialization's program is known, a small record is
kept under a key of the *traced* module, in memory and in the persistent cache:

    key  = sha256(traced module bytecode, jit's traced configuration, IREE target flags,
                  compiler version, irax's cache version, a digest of irax's sources)
    record = {"program": <compile cache key of the "iree" module>, "info": {...},
              "devices": 0, "flops": 0, "loops": false, "host_loops": false,
              "kernel_elements": 0, "host_calls": false, "elements": 0}

and a later trace of the same function (in any process) reads the program through it.
The digest of irax's sources (each ``.py`` file's path, size and modification time)
keeps a record from outliving the passes that made it.
"""

from __future__ import annotations

import functools
import json
import os
import threading

from irax.core.config import config
from irax.lowering.work import Work
from irax.runtime import cache, compiler

#: lookups that found a recorded program (the passes skipped)
stats = {"hits": 0}
_MEMORY: dict = {}
_LOCK = threading.Lock()
_MEMORY_MAX = 4096
#: records sit beside the compiled programs in the cache directory, as <key>.program
_SUFFIX = ".program"


@functools.cache
def sources_digest() -> str:
    """A digest of the path, size and modification time of irax's Python sources and its
    tuning specs (about a millisecond: one ``stat`` per file, no path arithmetic)."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parts = []

    def walk(path: str, rel: str) -> None:
        with os.scandir(path) as it:
            entries = sorted(it, key=lambda e: e.name)
        for e in entries:
            if e.is_dir(follow_symlinks=False):
                if e.name != "__pycache__":
                    walk(e.path, f"{rel}{e.name}/")
            elif e.name.endswith((".py", ".mlir")):
                st = e.stat()
                parts.append(f"{rel}{e.name}:{st.st_size}:{st.st_mtime_ns}")

    walk(root, "")
    return cache.make_key(*parts)


def key(entry, platform: str, function: str) -> str:
    """The record's key for a specialization compiled for ``platform``."""
    code = compiler.module_bytecode(entry.trace_module)
    flags = compiler.target_for_platform(platform, 0).flags() + compiler.GLOBAL_FLAGS
    # the options by which a program adds flags of its own (frontend/compile.py Program)
    # or its results' storage arguments (program_of)
    chosen = (config.irax_cpu_matmul_tuning, config.irax_cpu_data_tiling_min_flops,
              config.irax_cpu_output_storage)
    return cache.make_key(b"irax-program", code, repr(config.trace_key), function,
                          "\0".join(flags), repr(chosen),
                          compiler.compiler_version(), compiler.CACHE_VERSION,
                          sources_digest())


def lookup(record_key: str, name: str):
    """``(vmfb, devices, work)`` of a recorded program (``work``: its ``Work``: the
    measures the runtime's choices read), or None."""
    with _LOCK:
        record = _MEMORY.get(record_key)
    if record is None:
        raw = cache.load(record_key, {"kind": "program record"}, _SUFFIX)
        if raw is None:
            return None
        try:
            record = json.loads(raw)
            record = (record["program"], record["info"], int(record["devices"]),
                      int(record["flops"]), bool(record["loops"]),
                      bool(record["host_loops"]), int(record["kernel_elements"]),
                      bool(record.get("host_calls", True)), int(record.get("elements", 0)),
                      [int(i) for i in record.get("outputs", [])])
        except (ValueError, KeyError, TypeError) as e:
            cache.discard(record_key, f"not a program record: {e}", _SUFFIX)
            return None
    vmfb = compiler.cached_by_key(record[0], record[1], name)
    if vmfb is None:
        return None
    _remember(record_key, record)
    stats["hits"] += 1
    work = Work(record[3], record[4], elements=record[8], host_loops=record[5],
                kernel_elements=record[6])
    work.host_calls = record[7]
    work.outputs = tuple(record[9])
    return vmfb, record[2], work


def store(record_key: str, program: str, info: dict, devices: int, work: Work) -> None:
    """Records that the specialization of ``record_key`` compiles to the program of
    compile cache key ``program`` (made of ``info``: ``compiler.key_of``)."""
    record = (program, info, devices, work.flops, work.loops, work.host_loops,
              work.kernel_elements, work.host_calls, work.elements, list(work.outputs))
    if _remember(record_key, record):
        payload = json.dumps({"program": program, "info": info, "devices": devices,
                              "flops": work.flops, "loops": work.loops,
                              "host_loops": work.host_loops,
                              "kernel_elements": work.kernel_elements,
                              "host_calls": work.host_calls,
                              "elements": work.elements,
                              "outputs": list(work.outputs)}).encode()
        cache.store(record_key, payload, {"kind": "program record"}, _SUFFIX)


def _remember(record_key: str, record) -> bool:
    """Keeps ``record`` in memory; False when it was known already."""
    with _LOCK:
        if _MEMORY.get(record_key) == record:
            return False
        if len(_MEMORY) >= _MEMORY_MAX:
            _MEMORY.clear()
        _MEMORY[record_key] = record
        return True


def clear_memory() -> None:
    with _LOCK:
        _MEMORY.clear()
