"""A digest of everything a Python function's trace depends on, or None when irax cannot
know it: what lets a jitted function seen in an earlier process run its compiled program
without being traced again (``function_record.py``).

    def f(x):                     # fingerprint(f) digests f's code (bytecode, constants,
        return jnp.sin(x) * SCALE  # names, lines), and the values it reads: jnp by module
                                   # name, SCALE (a float) by value

The digest covers, recursively:

- a function's code object (bytecode, constants, names, line table, nested code), its
  defaults, the values in its closure cells and the globals its code names;
- values by content: None, bool, int, float, complex, str, bytes, tuples, lists and dicts
  of such, named tuples of the libraries below, NumPy arrays and scalars, dtypes, sets
  of ints;
- modules, functions and classes of the libraries a trace may depend on only through
  their version (irax, NumPy but not ``numpy.random``, math, operator, functools,
  itertools, ml_dtypes) by their name, and a library function's closure and defaults by
  content (``irax.optim.adam(0.1).update`` closes over 0.1); builtins by name;
  ``functools.partial`` by parts.

Everything else (an object of a user class, a bound method, a module of the user's, a
set of strings, whose order changes between processes) makes the function unknown (None),
and so does code that has effects while tracing that a skipped trace would lose: a call
of ``print``, ``open``, ``input``, ``id`` or ``hash``; a global or outer variable
assigned; a list, dict or set it reads mutated in place (``append``, ``update``...);
``numpy.random`` used.
"""

from __future__ import annotations

import builtins
import dis
import functools
import hashlib
import types
from typing import NamedTuple

import numpy as np

#: modules (and their submodules) whose contents a trace depends on through their
#: version only
_LIBRARIES = ("irax", "numpy", "math", "cmath", "operator", "functools", "itertools",
              "ml_dtypes", "builtins")
#: builtins whose call has an effect, or a value that changes between processes
_EFFECTFUL = frozenset({"print", "open", "input", "id", "hash", "exec", "eval", "compile",
                        "globals", "locals", "vars", "setattr", "delattr", "__import__",
                        "breakpoint", "help", "exit", "quit"})
#: method names that mutate a list, dict or set in place
_MUTATORS = frozenset({"append", "extend", "insert", "pop", "popitem", "update",
                       "setdefault", "clear", "remove", "discard", "sort", "reverse",
                       "add", "__setitem__", "__delitem__"})
#: opcodes that assign outside the function's own locals
_STORES = frozenset({"STORE_GLOBAL", "DELETE_GLOBAL", "STORE_DEREF", "DELETE_DEREF"})
#: the most elements of a container or array digested (beyond: unknown)
_MAX_ELEMENTS = 1 << 20
_SIMPLE = (type(None), bool, int, float, complex, str, bytes, type(Ellipsis))
_NUMPY_CALLABLES = tuple(t for t in (np.ufunc, type(np.sum)) if t is not types.FunctionType)


class Unknown(Exception):
    """Raised inside: the function reads something irax cannot digest."""


def fingerprint(fun) -> str | None:
    """The hex digest of ``fun``'s code and of what it reads, or None (see the module)."""
    try:
        return _Digest().function(fun)
    except (Unknown, RecursionError):
        return None


def value_digest(value) -> str | None:
    """The digest of a value (a static argument) by the same rules, or None."""
    try:
        d = _Digest()
        d.value(value)
        return d.h.hexdigest()
    except (Unknown, RecursionError):
        return None


def _library(module: str | None) -> bool:
    if not module or module.startswith("numpy.random"):
        return False
    return module.split(".")[0] in _LIBRARIES


class _Facts(NamedTuple):
    """What one walk of a code object and its nested code finds."""

    stores: bool          # assigns a global or an outer function's variable
    mutates: bool         # names a method that mutates a list, dict or set in place
    names: frozenset      # the names it reads (globals, builtins and attributes)
    random_owners: frozenset   # the names it reads an attribute ``random`` of


@functools.lru_cache(maxsize=4096)
def _facts(code: types.CodeType) -> _Facts:
    stores, owners, prev = False, set(), None
    for ins in dis.get_instructions(code):
        if ins.opname in ("STORE_GLOBAL", "DELETE_GLOBAL") or (
                ins.opname in _STORES and ins.argval in code.co_freevars):
            stores = True
        if ins.opname in ("LOAD_ATTR", "LOAD_METHOD") and ins.argval == "random" \
                and prev is not None and prev.opname in ("LOAD_GLOBAL", "LOAD_DEREF",
                                                         "LOAD_NAME", "LOAD_FAST"):
            owners.add(prev.argval)
        prev = ins
    names = set(code.co_names)
    mutates = bool(_MUTATORS.intersection(code.co_names))
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            f = _facts(c)
            stores, mutates = stores or f.stores, mutates or f.mutates
            names |= f.names
            owners |= f.random_owners
    return _Facts(stores, mutates, frozenset(names), frozenset(owners))


class _Digest:
    def __init__(self):
        self.h = hashlib.sha256()
        self.active: set[int] = set()     # functions being digested (recursion)
        self.count = 0
        self.containers = False           # a list, dict or set was read
        self.mutates = False              # ... and some code names a mutating method
        self.uses_numpy = False           # NumPy is read ...
        self.random = False               # ... and ``<name>.random`` of an unknown name

    def put(self, *parts) -> None:
        for p in parts:
            b = p if isinstance(p, bytes) else str(p).encode()
            self.h.update(len(b).to_bytes(8, "little"))
            self.h.update(b)

    def function(self, fun) -> str:
        self.value(fun)
        if self.containers and self.mutates:
            raise Unknown("mutates what it reads")
        if self.uses_numpy and self.random:
            raise Unknown("numpy.random")
        return self.h.hexdigest()

    # ---- values ---------------------------------------------------------------------------
    def value(self, v) -> None:
        self.count += 1
        if self.count > _MAX_ELEMENTS:
            raise Unknown("too large")
        t = type(v)
        if t in _SIMPLE:
            self.put("s", t.__name__, repr(v))
        elif t is tuple or t is list:
            self.containers |= t is list
            self.put("seq", t.__name__, len(v))
            for x in v:
                self.value(x)
        elif isinstance(v, tuple) and hasattr(t, "_fields") and _library(t.__module__):
            self.put("namedtuple", t.__module__, t.__qualname__, len(v))  # optax-like
            for x in v:                                                     # states
                self.value(x)
        elif t is dict:
            self.containers = True
            self.put("dict", len(v))
            for k, x in v.items():
                self.value(k)
                self.value(x)
        elif t is set or t is frozenset:
            if not all(type(x) is int for x in v):
                raise Unknown("a set's order changes between processes")
            self.containers |= t is set
            self.put("set", sorted(v))
        elif t is np.ndarray:
            if v.dtype.hasobject or v.size > _MAX_ELEMENTS:
                raise Unknown("array")
            self.put("nd", v.dtype.str, v.shape, np.ascontiguousarray(v).tobytes())
        elif isinstance(v, np.generic):
            self.put("np", v.dtype.str, v.tobytes())
        elif isinstance(v, np.dtype):
            self.put("dtype", v.str, v.name)
        elif t is types.ModuleType:
            if not _library(v.__name__):
                raise Unknown(f"module {v.__name__}")
            self.uses_numpy |= v.__name__.split(".")[0] == "numpy"
            self.put("module", v.__name__)
        elif t is types.FunctionType:
            self._function(v)
        elif t is functools.partial:
            self.put("partial")
            self.value(v.func)
            self.value(v.args)
            self.value(dict(v.keywords))
        elif t is types.BuiltinFunctionType:
            owner = v.__self__
            if owner is builtins:
                if v.__name__ in _EFFECTFUL:
                    raise Unknown(v.__name__)
                self.put("builtin", v.__name__)
            elif type(owner) is types.ModuleType and _library(owner.__name__):
                self.put("libfn", owner.__name__, v.__name__)     # math.sin
            else:
                raise Unknown("a bound method")
        elif isinstance(v, _NUMPY_CALLABLES):                     # np.sin, np.sum
            self.uses_numpy = True
            self.put("numpy", type(v).__name__, v.__name__)
        elif isinstance(v, type):
            if not (_library(v.__module__) or v.__module__ == "builtins"):
                raise Unknown(f"class {v.__qualname__}")
            self.put("type", v.__module__, v.__qualname__)
        else:
            raise Unknown(f"a {t.__name__}")

    def _function(self, f: types.FunctionType) -> None:
        if id(f) in self.active:        # recursion: the name stands for it
            self.put("again", f.__qualname__)
            return
        self.active.add(id(f))
        library = _library(f.__module__)
        if library:     # its code and globals are the library's version's; what it closes
            self.put("libfn", f.__module__, f.__qualname__)   # over is not (adam(0.1))
        else:
            code = f.__code__
            facts = _facts(code)
            if facts.stores:
                raise Unknown("assigns a global or outer variable")
            self.mutates |= facts.mutates
            self.put("fn")
            self._code(code)
        self.value(f.__defaults__)
        self.value(dict(f.__kwdefaults__ or {}))
        for cell in f.__closure__ or ():
            try:
                contents = cell.cell_contents
            except ValueError:          # an empty cell (a name bound later)
                self.put("empty")
                continue
            self.value(contents)
        if library:
            self.active.discard(id(f))
            return
        glb = f.__globals__
        for name in sorted(facts.names):
            if name in glb:
                self.put("global", name)
                self.value(glb[name])
            elif hasattr(builtins, name):
                if name in _EFFECTFUL:
                    raise Unknown(name)
                self.put("builtin", name)
        cells = dict(zip(code.co_freevars, f.__closure__ or ()))
        for owner in facts.random_owners:    # np.random.uniform(): NumPy's global state
            if owner in cells:
                try:
                    value = cells[owner].cell_contents
                except ValueError:
                    continue
            elif owner in glb:
                value = glb[owner]
            else:                            # a local or an outer function's name
                self.random = True
                continue
            if type(value) is types.ModuleType and value.__name__ == "numpy":
                raise Unknown("numpy.random")
        self.active.discard(id(f))

    def _code(self, code: types.CodeType) -> None:
        self.put("code", code.co_code, code.co_names, code.co_varnames, code.co_freevars,
                 code.co_cellvars, code.co_argcount, code.co_posonlyargcount,
                 code.co_kwonlyargcount, code.co_flags, code.co_filename, code.co_qualname,
                 code.co_firstlineno, code.co_linetable, code.co_exceptiontable)
        for c in code.co_consts:
            if isinstance(c, types.CodeType):
                self._code(c)
            elif type(c) is frozenset:
                self.put("consts", sorted(repr(x) for x in c))
            else:
                self.put("const", type(c).__name__, repr(c))
