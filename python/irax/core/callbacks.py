"""The host functions compiled programs call back into: one table per process.

``irax.debug.callback``, ``irax.pure_callback`` and ``irax.experimental.io_callback``
register a *flat* host function here and put its number in the IR:

    "irax.pure_callback"(%x) {callback = 3 : i64, result_types = [tensor<3xf32>]}

The reference interpreter calls entry 3 directly. Lowered for IREE, the op becomes a call
of an imported function whose name spells the entry and the signature,

    func.func private @irax_host.cb3__ifloat32_3__ofloat32_3(tensor<3xf32>) -> tensor<3xf32>

so that a compiled module says by itself which host functions it needs and what each
must return: the runtime binds every ``irax_host.*`` import of a ``.vmfb`` to this
table (``parse_import``), whichever path produced the module (compiled now, read from
the persistent cache, loaded from a file).

A flat host function takes NumPy arrays and the expected result avals and returns one
NumPy array per result; the public API wraps the user's function (pytrees, ``Array``
arguments, the checks of its results) into one.
"""

from __future__ import annotations

import re
import threading
from typing import Callable

import numpy as np

from irax.core.abstract import ShapedArray
from irax.core.dtypes import dtype_from_name

#: the module name of host imports in lowered IR: ``@irax_host.<function>``
HOST_MODULE = "irax_host"

_LOCK = threading.Lock()
_TABLE: list[Callable] = []
_BY_KEY: dict = {}
_DIMS = re.compile(r"^[0-9]+(x[0-9]+)*$")


def register(flat_fn: Callable, key=None) -> int:
    """The number of ``flat_fn`` in the table (added once per ``key`` when one is given:
    retracing a function reuses its callback's number, so its program is found again in
    the compile caches). An unhashable ``key`` counts as none."""
    try:
        hash(key)
    except TypeError:
        key = None
    with _LOCK:
        if key is not None:
            hit = _BY_KEY.get(key)
            if hit is not None:
                return hit
        _TABLE.append(flat_fn)
        index = len(_TABLE) - 1
        if key is not None:
            _BY_KEY[key] = index
        return index


def lookup(index: int) -> Callable:
    """The flat host function ``index``; a clear error for a number this process never
    registered (IR written by another process)."""
    if 0 <= index < len(_TABLE):
        return _TABLE[index]
    raise LookupError(f"host callback {index} is not registered in this process (the IR "
                      "names callbacks by their number in the process that traced it)")


def call(index: int, arrays, out_avals) -> list[np.ndarray]:
    """Runs host function ``index`` on NumPy ``arrays``; its results, one per aval."""
    return list(lookup(index)(list(arrays), list(out_avals)))


def _aval_token(kind: str, aval: ShapedArray) -> str:
    dims = "x".join(str(d) for d in aval.shape)
    return f"{kind}{np.dtype(aval.dtype).name}" + (f"_{dims}" if aval.shape else "")


def import_name(index: int, in_avals, out_avals) -> str:
    """The function name (in ``HOST_MODULE``) of host function ``index`` called with
    ``in_avals`` and returning ``out_avals``."""
    parts = [f"cb{index}"]
    parts += [_aval_token("i", a) for a in in_avals]
    parts += [_aval_token("o", a) for a in out_avals]
    return "__".join(parts)


def _parse_aval(token: str) -> ShapedArray:
    head, _, tail = token.rpartition("_")
    if head and _DIMS.match(tail):
        return ShapedArray(tuple(int(d) for d in tail.split("x")), dtype_from_name(head))
    return ShapedArray((), dtype_from_name(token))



def parse_import(name: str):
    """``(index, in_avals, out_avals)`` of an ``import_name``, or None for another name."""
    head, *tokens = name.split("__")
    if not head.startswith("cb") or not head[2:].isdigit():
        return None
    ins, outs = [], []
    try:
        for token in tokens:
            (ins if token[0] == "i" else outs).append(_parse_aval(token[1:]))
    except (TypeError, AttributeError, IndexError):
        return None
    return int(head[2:]), ins, outs


def signature(n_in: int, n_out: int) -> str:
    """The IREE VM calling convention of a host import: buffer views in, buffer views
    out (``0rr_r``; ``v`` for none)."""
    return "0" + ("r" * n_in or "v") + "_" + ("r" * n_out or "v")


class _Raised(threading.local):
    """The exception a host function raised on this thread, kept for the caller: the
    runtime turns it into an IREE status, and the caller re-raises the original."""

    def __init__(self):
        self.error: BaseException | None = None


raised = _Raised()
