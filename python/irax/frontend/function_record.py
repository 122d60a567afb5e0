"""Function records: a jitted function compiled in an earlier process runs its program in
a new one without being traced (a warm start: no tracing, no passes, no MLIR).

``program_cache.py`` finds a program from the *traced* module, so each process still
traces the function (for a 200-op function, 30 ms of Python plus 60 ms to load IREE's
MLIR bindings). A function record is found from the function itself: its key digests the
function's code and everything it reads (``fingerprint.py``), the arguments' structure
and types, the static arguments and the configuration that shapes a trace, and it holds
what a call needs besides the program:

    key    = sha256(fingerprint(f), argument tree, argument types, static arguments,
                    jit's traced configuration, platform, jit's options, versions of
                    Python, NumPy, IREE and irax's sources)
    record = {"program": <program_cache key>, "out_tree": [...], "out": [[shape, dtype,
              weak], ...], "donated": [...]}

A function whose fingerprint is unknown (it reads an object of a user class, prints, ...)
is traced as before; so is every function when ``irax_function_records`` is off or the
persistent cache is. Programs that call back into Python (their callbacks are objects of
the tracing process) are not recorded. As with JAX's own trace cache within a process,
what a function does while it is traced (a warning) happens in the process that traced it.
"""

from __future__ import annotations

import json
import sys

import numpy as np

from irax.core.abstract import ShapedArray
from irax.core.config import config
from irax.core.dtypes import dtype_from_name
from irax.core.pytree_json import decode_avals, decode_tree, encode_avals, encode_tree
from irax.frontend import program_cache
from irax.frontend.compile import Specialization, from_record
from irax.frontend.fingerprint import fingerprint, value_digest
from irax.runtime import cache, compiler

#: records found (the trace skipped) and written, in this process
stats = {"hits": 0, "stored": 0}
_SUFFIX = ".function"
_INFO = {"kind": "function record"}


def key_for(jitted, treedef, avals, statics, platform: str) -> str | None:
    """The record key of a call of ``jitted`` (a ``JitFunction``) with arguments of
    ``treedef`` and ``avals``, or None when it cannot have one."""
    if not config.irax_function_records or cache.cache_dir() is None:
        return None
    tree, types = _tree(treedef), _types(avals)
    if tree is None or types is None:
        return None
    fp = fingerprint(jitted.fun)
    static = value_digest([s[:2] + (getattr(s[2], "value", s[2]),) for s in statics])
    if fp is None or static is None:
        return None
    return cache.make_key(b"irax-function", fp, json.dumps(tree), json.dumps(types), static,
                          repr(config.trace_key), platform, repr(jitted._options),
                          sys.version, np.__version__, compiler.compiler_version(),
                          compiler.CACHE_VERSION, program_cache.sources_digest())


def load(record_key: str, avals, device, name: str) -> Specialization | None:
    """The specialization a record describes, its program installed for ``device``; None
    when there is no such record or its program is gone."""
    raw = cache.load(record_key, _INFO, _SUFFIX)
    if raw is None:
        return None
    try:
        rec = json.loads(raw)
        out_avals = decode_avals(rec["out"])
        entry = Specialization(None, avals, out_avals, decode_tree(rec["out_tree"]),
                               tuple(int(i) for i in rec["donated"]))
        program = str(rec["program"])
    except (ValueError, KeyError, TypeError) as e:
        cache.discard(record_key, f"not a function record: {e}", _SUFFIX)
        return None
    entry.tier = False
    if not from_record(entry, device, name, program):
        return None
    stats["hits"] += 1
    return entry


def store(entry, record_key: str) -> None:
    """Records a compiled specialization under ``record_key`` (``key_for``), unless its
    program calls back into Python or its results cannot be described."""
    work = entry.work
    if entry.record is None or work is None or work.host_calls:
        return
    tree, out = _tree(entry.out_tree), _types(entry.out_avals)
    if tree is None or out is None:
        return
    payload = json.dumps({"program": entry.record, "out_tree": tree, "out": out,
                          "donated": list(entry.donated)}).encode()
    cache.store(record_key, payload, _INFO, _SUFFIX)
    stats["stored"] += 1


def _types(avals):
    """The JSON of static avals whose dtype names round-trip (not PRNG keys), or None."""
    if any(type(a) is not ShapedArray or not a.is_static for a in avals):
        return None
    out = encode_avals(avals, weak=True)
    try:
        if any(dtype_from_name(t[0]) != a.dtype for t, a in zip(out, avals)):
            return None
    except (TypeError, ValueError):
        return None
    return out


def _tree(treedef):
    """``encode_tree``'s JSON, or None for a node an artifact cannot hold."""
    try:
        return encode_tree(treedef, "irax.jit")
    except TypeError:
        return None
