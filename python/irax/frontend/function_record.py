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

from irax.core import tree_util
from irax.core.abstract import ShapedArray
from irax.core.config import config
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
    tree = encode_tree(treedef)
    types = [_aval_json(a) for a in avals]
    if tree is None or any(t is None for t in types):
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
        out_avals = [_aval_of(a) for a in rec["out"]]
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
    tree = encode_tree(entry.out_tree)
    out = [_aval_json(a) for a in entry.out_avals]
    if tree is None or any(a is None for a in out):
        return
    payload = json.dumps({"program": entry.record, "out_tree": tree, "out": out,
                          "donated": list(entry.donated)}).encode()
    cache.store(record_key, payload, _INFO, _SUFFIX)
    stats["stored"] += 1


# ---- argument and result descriptions ---------------------------------------------------

def encode_tree(treedef):
    """A JSON description of a treedef of tuples, lists, dicts (str or int keys), None and
    leaves, or None for any other node."""
    data = treedef.node_data()
    if data is None:
        return "*" if tree_util.treedef_is_leaf(treedef) else None
    kind, aux = data
    kids = [encode_tree(k) for k in treedef.children()]
    if any(k is None for k in kids):
        return None
    if kind is tuple or kind is list:
        return {"t" if kind is tuple else "l": kids}
    if kind is dict and all(type(k) in (str, int) for k in aux):
        return {"d": [[k, v] for k, v in zip(aux, kids)]}
    if kind is type(None):
        return {"n": 0}
    return None


def decode_tree(desc):
    return tree_util.tree_structure(_skeleton(desc))


def _skeleton(desc):
    if desc == "*":
        return 0
    (kind, kids), = desc.items()
    if kind == "t":
        return tuple(_skeleton(k) for k in kids)
    if kind == "l":
        return [_skeleton(k) for k in kids]
    if kind == "d":
        return {k: _skeleton(v) for k, v in kids}
    if kind == "n":
        return None
    raise ValueError(f"unknown tree node {kind!r}")


def _aval_json(aval):
    """``[shape, dtype name, weak]`` of a static aval of a NumPy (or ml_dtypes) dtype."""
    if type(aval) is not ShapedArray or not aval.is_static:
        return None
    dt = aval.dtype
    try:
        if np.dtype(dt.name) != dt:
            return None
    except TypeError:
        return None
    return [list(aval.shape), dt.name, bool(aval.weak_type)]


def _aval_of(desc) -> ShapedArray:
    shape, dtype, weak = desc
    return ShapedArray(tuple(int(d) for d in shape), np.dtype(dtype), bool(weak))
