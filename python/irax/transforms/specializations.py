"""The cache of jit specializations: each function's traced and compiled programs under
one set of jit options, shared by every ``jit`` of it (``specializations``), and
``clear_caches``, which drops them with every other in-memory cache of programs.

    jit(f)(x); jit(f)(x)        # one trace: both jits find f's Specializations
    irax.clear_caches()         # both trace again at their next call
"""

from __future__ import annotations

import threading
import weakref

from irax.frontend import program_cache
from irax.frontend.compile import clear_executables
from irax.runtime import compiler, devices


class Specializations:
    """The traced and compiled specializations of one function under one set of jit
    options, shared by every ``jit`` of it: JAX keys its cache on the function, so
    ``jit(f)(x)`` written anew at each call traces once."""

    __slots__ = ("entries", "lock", "last", "__weakref__")

    def __init__(self):
        self.entries: dict = {}
        self.lock = threading.RLock()
        #: (the aval, config.trace_key, the entry) of the last one-array call
        self.last = None

    def clear(self) -> None:
        self.entries.clear()
        self.last = None


#: function -> {jit options: Specializations}; an entry lives as long as its function
_SHARED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_LIVE: weakref.WeakSet = weakref.WeakSet()
_LOCK = threading.Lock()


def specializations(fun, options) -> Specializations:
    try:
        hash(options)
        with _LOCK:
            by_options = _SHARED.setdefault(fun, {})
            specs = by_options.get(options)
            if specs is None:
                specs = by_options[options] = Specializations()
                _LIVE.add(specs)
            return specs
    except TypeError:  # a function that cannot be weakly referenced (or unhashable options)
        specs = Specializations()
        with _LOCK:
            _LIVE.add(specs)
        return specs


#: what higher layers keep compiled (eager control flow's programs): cleared with the rest
_MORE_CACHES: list = []


def on_clear_caches(clear) -> None:
    """Registers ``clear()`` to run in ``clear_caches``."""
    _MORE_CACHES.append(clear)


def clear_caches() -> None:
    """Drops every jit specialization, the loaded programs kept for reuse and the in-memory
    compile cache."""
    with _LOCK:
        live = list(_LIVE)
    for specs in live:
        specs.clear()
    for clear in _MORE_CACHES:
        clear()
    clear_executables()
    program_cache.clear_memory()
    devices.trim_allocators()
    compiler.clear_memory_cache()  # last: it also hands the freed heap back to the system
