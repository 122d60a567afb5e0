"""``irax.jit`` and friends: ``eval_shape``, ``device_put``, ``device_get``,
``block_until_ready``, ``clear_caches``.

``jit(f)(*args)``: flatten the arguments, look up the abstract signature in the cache,
and on a miss trace ``f`` into a ``func.func`` of irax ops, lower it to StableHLO, compile
it with IREE (memory and disk caches) and load it; then call the executable on the
arguments' device buffers.
"""

from __future__ import annotations

import functools
import inspect
from typing import Any, Callable, Sequence

import numpy as np

from irax.core import dtypes, tree_util
from irax.core.abstract import ShapedArray, ShapeDtypeStruct
from irax.core.config import config
from irax.frontend import debug_nans, function_record, tiered
from irax.frontend.callee import arg_names, fun_name, fun_origin
from irax.frontend.compile import (
    Specialization,
    clone_module,
    compile_entry,
    compiled_module,
    execute,
    module_at_stage,
)
from irax.frontend.trace import Trace, current_trace, mark_donated, mark_shardings
from irax.frontend.tracer import Tracer
from irax.passes import pipelines
from irax.runtime import devices
from irax.runtime import mesh as mesh_lib
from irax.runtime.array import Array, committed_device
from irax.transforms import abstracted_axes, split_loops
from irax.transforms.abstracted_axes import AutoDynamic
from irax.transforms.layout import (
    constrained,
    ir_mesh,
    is_placement,
    layout_key,
    map_mesh,
    maps_devices,
    placements,
    runtime_mesh,
    sharding_spec,
)
from irax.transforms.partitioned import propagated, run_partitioned
from irax.transforms.placement import lay_out
from irax.transforms.specializations import specializations


def _fun_name(fun) -> str:
    return fun_name(fun, qualified=True)


def _fun_origin(fun) -> str:
    return fun_origin(fun, qualified=True)


def _as_tuple(x) -> tuple:
    if x is None:
        return ()
    if isinstance(x, (int, str)):
        return (x,)
    return tuple(x)


def abstractify(x, fun=None, path: str = "") -> ShapedArray:
    """The abstract value of one argument leaf, with JAX's weak-type rules."""
    aval = getattr(x, "aval", None)
    if isinstance(aval, ShapedArray):
        return aval
    if isinstance(x, (bool, int, float, complex)) and not isinstance(x, np.generic):
        dtype, weak = dtypes.dtype_and_weak(x)
        if type(x) is int:
            dtypes.check_python_int(x, dtype, _fun_name(fun) if fun else "irax.jit")
        return ShapedArray((), dtype, weak)
    if isinstance(x, (np.ndarray, np.generic)):
        try:
            return ShapedArray(x.shape, dtypes.canonicalize_dtype(x.dtype))
        except TypeError:
            raise _bad_arg(x, fun, path) from None
    if isinstance(x, ShapeDtypeStruct):
        return ShapedArray(x.shape, dtypes.canonicalize_dtype(x.dtype), x.weak_type)
    raise _bad_arg(x, fun, path)


def _bad_arg(x, fun, path) -> TypeError:
    return TypeError(
        f"Error interpreting argument to {fun!r} as an abstract array. The problematic value "
        f"is of type {type(x)} and was passed to the function at path {path or 'args'}.\n"
        "This typically means that a jit-wrapped function was called with a non-array "
        "argument, and this argument was not marked as static using the static_argnums or "
        "static_argnames parameters of irax.jit.")


#: whether calls must look at jax_disable_jit, jax_debug_nans or jax_debug_infs (kept by
#: a config listener: the common call pays one list lookup, not three option reads)
_CHECKS = [False]
_CHECKED_OPTIONS = ("jax_disable_jit", "jax_debug_nans", "jax_debug_infs")


#: irax_auto_dynamic_axes, kept the same way (read on every call's lookup)
_AUTO_DYNAMIC = [False]


def _on_config(name: str) -> None:
    if name in _CHECKED_OPTIONS:
        _CHECKS[0] = any(config.read(n) for n in _CHECKED_OPTIONS)
    elif name == "irax_auto_dynamic_axes":
        _AUTO_DYNAMIC[0] = bool(config.read(name))


config.on_change(_on_config)
_on_config("jax_disable_jit")   # values from the environment
_on_config("irax_auto_dynamic_axes")


class JitFunction:
    """The callable returned by ``irax.jit``."""

    def __init__(self, fun, static_argnums=None, static_argnames=None, donate_argnums=None,
                 donate_argnames=None, keep_unused=False, device=None, backend=None,
                 inline=False, abstracted_axes=None):
        if not callable(fun):
            raise TypeError(f"irax.jit: expected a function as its first argument, got {fun!r}")
        self.fun = fun
        self.keep_unused = keep_unused
        self.device = device
        self.backend = backend
        self.inline = inline
        self.obeys_disable_jit = True   # pmap's own jit keeps compiling under disable_jit
        self._sig = _signature(fun)
        self.static_argnums, self.static_argnames = _resolve_argnums(
            self._sig, _as_tuple(static_argnums), _as_tuple(static_argnames), "static")
        self.donate_argnums, self.donate_argnames = _resolve_argnums(
            self._sig, _as_tuple(donate_argnums), _as_tuple(donate_argnames), "donate")
        if set(self.donate_argnums) & set(self.static_argnums):
            raise ValueError("irax.jit: static arguments cannot be donated: "
                             f"{sorted(set(self.donate_argnums) & set(self.static_argnums))}")
        #: what, beside ``fun``, keys the specializations jit functions share
        self._options = (self.static_argnums, self.static_argnames, self.donate_argnums,
                         self.donate_argnames, keep_unused, device, backend, inline,
                         repr(abstracted_axes))
        self._specs = specializations(fun, self._options)
        self._cache = self._specs.entries
        self._flat_trees: dict = {}
        #: shape polymorphism: the abstracted_axes prefix, its plan per argument structure,
        #: and the automatic policy (abstracted_axes.py)
        self.abstracted_axes = abstracted_axes
        self._axes_plans: dict = {}
        self._auto = AutoDynamic()
        #: ``fun`` compiles and places its own results when called outside a trace (a
        #: shard_map: one program per device); plain options only
        self._runs_itself = getattr(fun, "_irax_runs_itself", False) and not (
            self.static_argnums or self.static_argnames or self.donate_argnums or
            self.donate_argnames or device is not None or backend is not None)
        #: the ``LaidOutJit`` whose shardings partition the traced program (None: none)
        self._layout = None
        #: the shardings of sharded arguments -> the jit laid out by them (``_follow``)
        self._follows: dict = {}
        functools.update_wrapper(self, fun, updated=())

    # ---- signature handling -----------------------------------------------------------
    def _split(self, args, kwargs):
        statics = []
        dyn_args = []
        for i, a in enumerate(args):
            if i in self.static_argnums:
                statics.append(("arg", i, _hashable(a)))
            else:
                dyn_args.append(a)
        dyn_kwargs = {}
        for k, v in kwargs.items():
            if k in self.static_argnames:
                statics.append(("kw", k, _hashable(v)))
            else:
                dyn_kwargs[k] = v
        return tuple(statics), (tuple(dyn_args), dyn_kwargs)

    def _rebuild(self, args, kwargs, dyn):
        dyn_args, dyn_kwargs = dyn
        it = iter(dyn_args)
        full = [a if i in self.static_argnums else next(it) for i, a in enumerate(args)]
        kw = {k: (v if k in self.static_argnames else dyn_kwargs[k]) for k, v in kwargs.items()}
        return full, kw

    def _entry(self, args, kwargs, traced=True):
        """The specialization for ``args``: traced, or (``traced`` False, for a call) maybe
        read from a function record of an earlier process, not traced."""
        n = len(args)
        if not kwargs and not self.static_argnums and (
                type(args[0]) is Array if n == 1 else all(type(a) is Array for a in args)):
            # the common case on the hot path: positional irax arrays only
            statics, leaves = (), list(args)
            treedef = self._flat_trees.get(n)
            if treedef is None:
                treedef = tree_util.tree_structure((tuple(range(n)), {}))
                self._flat_trees[n] = treedef
            avals = (args[0].aval,) if n == 1 else tuple(a.aval for a in args)
        else:
            statics, dyn = self._split(args, kwargs)
            leaves, treedef = tree_util.tree_flatten(dyn)
            avals = tuple(abstractify(x, self.fun) for x in leaves)
        # as JAX: the program runs on the device its committed arguments are on (a jit
        # laid out over a mesh runs on the mesh's devices)
        home = committed_device(leaves, _fun_name(self.fun), self._namer(args, kwargs)) \
            if self._layout is None else None
        if not traced and self._layout is None and not kwargs and _sharded(leaves):
            raise _FollowsData   # (the call takes the arguments' shardings: _follow)
        if self.abstracted_axes is not None:
            avals = self._abstract(treedef, args, kwargs, avals)
        elif _AUTO_DYNAMIC[0]:
            avals = self._auto.abstract(treedef, statics, avals, _fun_name(self.fun))
        trace_key = config.trace_key
        target = self.device if self.device is not None else home
        key = (treedef, avals, statics, trace_key, target)
        entry = self._cache.get(key)
        if entry is None or (traced and entry.trace_module is None):
            with self._specs.lock:  # one trace per signature, whatever the threads
                entry = self._cache.get(key)
                if entry is None:
                    entry = self._specialize(args, kwargs, treedef, avals, statics, traced,
                                             target)
                    self._cache[key] = entry
                elif traced and entry.trace_module is None:   # read from a record: the
                    entry.trace_module = self._trace(           # trace, for lower()
                        args, kwargs, treedef, avals).trace_module
        if n == 1 and not statics and treedef is self._flat_trees.get(1) and \
                self.abstracted_axes is None and not _AUTO_DYNAMIC[0]:
            # the next call with an argument of this very aval (a program's results share
            # their entry's avals) finds the entry without building and hashing the key
            self._specs.last = (avals[0], trace_key, entry, home)
        return entry, leaves

    def _namer(self, args, kwargs):
        """Names of the flat argument leaves for errors, as JAX's (``x``, ``p['w']``)."""
        def name(i: int) -> str:
            _, dyn = self._split(args, kwargs)
            path = tree_util.tree_flatten_with_path(dyn)[0][i][0]
            if path[0].idx == 1:   # a keyword argument
                return path[1].key + tree_util.keystr(path[2:])
            dyn_pos = [k for k in range(len(args)) if k not in self.static_argnums]
            return arg_names(self.fun, len(args))[dyn_pos[path[1].idx]] + \
                tree_util.keystr(path[2:])
        return name

    def _specialize(self, args, kwargs, treedef, avals, statics, traced,
                    home=None) -> Specialization:
        """A new specialization, for ``home`` (None: the default device): from a function
        record when one describes the call (and ``traced`` is False), else traced, to be
        recorded once compiled."""
        record = None
        if self._layout is None and self.abstracted_axes is None and not _AUTO_DYNAMIC[0]:
            device = home or self._target_device()
            record = function_record.key_for(self, treedef, avals, statics, device.platform)
            if record is not None and not traced:
                entry = function_record.load(record, avals, device, _fun_name(self.fun))
                if entry is not None:
                    entry.home = home
                    return entry
        entry = self._trace(args, kwargs, treedef, avals)
        entry.home = home if entry.partitioned is None else None   # (on the maps' mesh)
        entry.function_record = record if entry.partitioned is None else None
        return entry

    def _abstract(self, treedef, args, kwargs, avals) -> tuple:
        """``avals`` with the axes of ``abstracted_axes`` symbolic (one plan per argument
        structure)."""
        api = f"irax.jit({_fun_name(self.fun)})"
        found = self._axes_plans.get(treedef)
        if found is None:
            _, (dyn_args, _) = self._split(args, kwargs)
            found = abstracted_axes.plan(self.abstracted_axes, dyn_args, len(avals), avals, api)
            self._axes_plans[treedef] = found
        return found.abstract(avals, api)

    def _trace(self, args, kwargs, treedef, avals) -> Specialization:
        entry = Specialization()
        entry.in_avals = avals
        entry.polymorphic = abstracted_axes.is_polymorphic(avals)
        if entry.polymorphic:
            entry.tier = False   # the interpreter runs one size at a time: compile first
        with Trace(origin=_fun_origin(self.fun)) as t:
            tracers = [t.add_argument(a) for a in avals]
            dyn = tree_util.tree_unflatten(treedef, tracers)
            full, kw = self._rebuild(args, kwargs, dyn)
            out = self.fun(*full, **kw)
            out_leaves, entry.out_tree = tree_util.tree_flatten(out)
            for o in out_leaves:
                if not isinstance(o, Tracer):
                    abstractify(o, self.fun, "output")
            t.finish(out_leaves)
            entry.out_avals = t.out_avals
            entry.trace_module = t.module
        entry.donated = self._donated_leaves(args, kwargs, treedef)
        mark_donated(entry.trace_module, entry.donated)
        if self._layout is not None:   # the mesh it is partitioned over, if any
            entry.partitioned = self._layout.annotate(entry.trace_module, args, out)
        else:   # shard_maps among other ops: the whole program partitioned over their mesh
            found = map_mesh(entry.trace_module)
            if found is None:   # sharding constraints: partitioned over theirs, as in JAX
                found = constrained(entry.trace_module, len(entry.out_avals))
            entry.partitioned = runtime_mesh(found) if found is not None and \
                found.size > 1 else None
        return entry

    def _donated_leaves(self, args, kwargs, treedef) -> tuple[int, ...]:
        if not self.donate_argnums and not self.donate_argnames:
            return ()
        marks_args = [i in self.donate_argnums for i in range(len(args))
                      if i not in self.static_argnums]
        dyn_args = tuple(a for i, a in enumerate(args) if i not in self.static_argnums)
        flags = []
        for a, m in zip(dyn_args, marks_args):
            flags += [m] * len(tree_util.tree_leaves(a))
        for k in sorted(kwargs):
            if k in self.static_argnames:
                continue
            flags += [k in self.donate_argnames] * len(tree_util.tree_leaves(kwargs[k]))
        return tuple(i for i, f in enumerate(flags) if f)

    # ---- compilation and execution ----------------------------------------------------
    def _target_device(self, entry=None):
        """Where ``entry`` runs: its home, jit's ``device``, or the backend's first."""
        if entry is not None and entry.home is not None:
            return entry.home
        if self.device is not None:
            return self.device
        return devices.devices(self.backend)[0] if self.backend is not None else \
            devices.default_device()

    def _compile(self, entry: Specialization) -> None:
        with self._specs.lock:  # one compile per specialization
            if entry.executable is None and not tiered.finish(entry):
                compile_entry(entry, self._target_device(entry), _fun_name(self.fun),
                              split=split_loops.split)

    def __call__(self, *args, **kwargs):
        # inside another trace: trace through; a shard_map: it compiles for its devices
        if current_trace() is not None or self._runs_itself:
            return self.fun(*args, **kwargs)
        if _CHECKS[0]:
            return self._call_checked(args, kwargs)
        last = self._specs.last   # the hot path: one irax array, as at the last call
        if last is not None and len(args) == 1 and not kwargs and type(args[0]) is Array \
                and args[0].aval is last[0] and config.trace_key is last[1] \
                and args[0]._home is last[3]:
            entry = last[2]
            if entry.executable is not None and entry.partitioned is None:
                x = args[0]
                fast = entry.fast
                if fast is not None and x._device is entry.device and x._dev is not None \
                        and not x._deleted:
                    try:
                        return fast(x._dev, entry.home is not None)
                    except RuntimeError:   # (the general path words IREE's errors)
                        pass
                return execute(entry, [x])
        try:
            entry, leaves = self._entry(args, kwargs, traced=False)
        except _FollowsData:
            return self._follow(args)(*args)
        if entry.partitioned is not None:   # shard_maps inside: on their mesh's devices
            out = run_partitioned(entry, leaves, self, jit)
            if out is not None:
                return out
            out = execute(entry, leaves) if entry.executable is not None else \
                self._run(entry, leaves)
            return propagated(entry, out, None, lay_out)
        if entry.executable is not None:
            return execute(entry, leaves)
        return self._run(entry, leaves)

    def _follow(self, args) -> LaidOutJit:
        """This function laid out by the shardings of its sharded arguments, as JAX's jit
        follows the shardings of committed arrays: the program is partitioned over their
        mesh (``irax-partition``), an unsharded argument taken as replicated, the
        results left as the partitioner propagates them."""
        dyn = [a for i, a in enumerate(args) if i not in self.static_argnums]
        shardings = tuple(tree_util.tree_map(_sharding_of, a) for a in dyn)
        key = layout_key(shardings)
        found = self._follows.get(key)
        if found is None:
            found = LaidOutJit(JitFunction(
                self.fun, static_argnums=self.static_argnums,
                static_argnames=self.static_argnames, donate_argnums=self.donate_argnums,
                donate_argnames=self.donate_argnames, keep_unused=self.keep_unused,
                device=self.device, backend=self.backend, inline=self.inline,
                abstracted_axes=self.abstracted_axes), shardings, None)
            self._follows[key] = found
        return found

    def _call_checked(self, args, kwargs):
        """A call under jax_disable_jit, jax_debug_nans or jax_debug_infs."""
        if config.jax_disable_jit and self.obeys_disable_jit:
            return self.fun(*args, **kwargs)
        entry, leaves = self._entry(args, kwargs)
        out = self._run(entry, leaves)
        if debug_nans.enabled():
            debug_nans.check(entry, _fun_name(self.fun), leaves, out, entry.trace_module)
        return out

    def _run(self, entry, leaves):
        if entry.executable is None:
            if entry.tier is not False:   # first calls: maybe interpreted (tiered.py)
                with self._specs.lock:
                    if entry.executable is None:
                        out = tiered.call(entry, self._target_device(entry),
                                          _fun_name(self.fun), leaves, split_loops.split)
                        if out is not None:
                            return out
            if entry.executable is None:
                self._compile(entry)
        if entry.function_record is not None:   # compiled now: later processes skip the trace
            function_record.store(entry, entry.function_record)
            entry.function_record = None
        return execute(entry, leaves)

    def lower(self, *args, **kwargs) -> Lowered:
        """The traced specialization for ``args``; sharded positional arguments are
        followed as a call follows them (the program partitioned over their mesh)."""
        if self._layout is None and not kwargs and _sharded(tree_util.tree_leaves(args)):
            return self._follow(args).lower(*args)
        entry, _ = self._entry(args, kwargs)
        return Lowered(entry, self)

    def eval_shape(self, *args, **kwargs):
        entry, _ = self._entry(args, kwargs)
        return tree_util.tree_unflatten(
            entry.out_tree, [ShapeDtypeStruct(a.shape, a.dtype, weak_type=a.weak_type)
                             for a in entry.out_avals])

    def trace(self, *args, **kwargs) -> Lowered:
        return self.lower(*args, **kwargs)

    def _cache_size(self) -> int:
        return len(self._cache)

    def clear_cache(self) -> None:
        self._specs.clear()

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return functools.partial(self, obj)

    def __repr__(self) -> str:
        return f"<irax.jit of {_fun_name(self.fun)}>"


class _FollowsData(Exception):
    """Raised by ``JitFunction._entry`` for a call with sharded arguments."""


def _sharding_of(x):
    """The sharding of a leaf that is an array sharded over several devices; None for
    anything else (taken as replicated)."""
    if type(x) is Array and isinstance(x._sharding, mesh_lib.NamedSharding) and \
            x._sharding.mesh.size > 1:
        return x._sharding
    return None


def _sharded(leaves) -> bool:
    """Whether a leaf is an array sharded over several devices."""
    return any(_sharding_of(x) is not None for x in leaves)


class Lowered:
    """The result of ``jit(f).lower(*args)``: IR at each stage, and ``compile()``."""

    def __init__(self, entry: Specialization, jitted: JitFunction):
        self._entry = entry
        self._jitted = jitted
        self.out_tree = entry.out_tree
        self.out_info = tree_util.tree_unflatten(
            entry.out_tree, [ShapeDtypeStruct(a.shape, a.dtype) for a in entry.out_avals])

    def as_text(self, stage: str = "stablehlo", *, debug_info: bool = False) -> str:
        if stage not in pipelines.STAGES:
            raise ValueError(f"Lowered.as_text: unknown stage {stage!r}; expected one of "
                             f"{list(pipelines.STAGES)}")
        module = module_at_stage(self._entry, stage)
        return module.operation.get_asm(enable_debug_info=debug_info)

    def compiler_ir(self, dialect: str = "stablehlo"):
        """The module at stage ``dialect``: a copy (the caches keep theirs: changing it
        changes nothing that runs)."""
        return clone_module(module_at_stage(self._entry, dialect))

    def compile(self) -> Compiled:
        if self._entry.executable is None:
            self._jitted._compile(self._entry)
        return Compiled(self._entry, self._jitted)


class Compiled:
    """A compiled specialization; calling it skips retracing and signature lookup."""

    def __init__(self, entry: Specialization, jitted: JitFunction):
        self._entry = entry
        self._jitted = jitted

    def __call__(self, *args, **kwargs):
        statics, dyn = self._jitted._split(args, kwargs)
        leaves, _ = tree_util.tree_flatten(dyn)
        avals = tuple(abstractify(x) for x in leaves)
        if tuple(a.strip_weak() for a in avals) != tuple(
                a.strip_weak() for a in self._entry.in_avals):
            raise TypeError(f"irax.jit({_fun_name(self._jitted.fun)}).compile(): called with "
                            "argument types "
                            f"{[a.str_short() for a in avals]}, but it was compiled for "
                            f"{[a.str_short() for a in self._entry.in_avals]}")
        return execute(self._entry, leaves)

    def as_text(self) -> str:
        """The module IREE compiled (the "iree" stage, with the storage arguments of its
        large results where it has them: ``passes/output_storage.py``)."""
        entry = self._entry
        return compiled_module(entry, self._jitted._target_device(entry)).operation.get_asm()

    @property
    def vmfb(self) -> bytes:
        return self._entry.executable.vmfb


def _signature(fun):
    try:
        return inspect.signature(fun)
    except (TypeError, ValueError):
        return None


def _resolve_argnums(sig, nums: Sequence[int], names: Sequence[str], what: str):
    """JAX's rule: static_argnums and static_argnames each imply the other via the
    signature."""
    nums = list(nums)
    names = list(names)
    if sig is None:
        return tuple(nums), tuple(names)
    params = list(sig.parameters.values())
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    has_varargs = any(p.kind == p.VAR_POSITIONAL for p in params)
    norm = []
    for n in nums:
        if not isinstance(n, int):
            raise TypeError(f"irax.jit: {what}_argnums must be ints, got {n!r}")
        if n < 0:
            if has_varargs:
                raise ValueError(f"irax.jit: negative {what}_argnums with *args")
            n += len(positional)
        if n >= len(positional) and not has_varargs:
            raise ValueError(f"irax.jit: {what}_argnums={n} is out of range for a function "
                             f"with {len(positional)} positional arguments")
        norm.append(n)
    for n in norm:
        if n < len(positional) and positional[n].kind != positional[n].POSITIONAL_ONLY:
            if positional[n].name not in names:
                names.append(positional[n].name)
    known = {p.name for p in params}
    for name in list(names):
        if name not in known and not any(p.kind == p.VAR_KEYWORD for p in params):
            raise ValueError(f"irax.jit: {what}_argnames {name!r} is not an argument of "
                             f"{_fun_name_sig(sig)}")
        for i, p in enumerate(positional):
            if p.name == name and i not in norm:
                norm.append(i)
    return tuple(sorted(set(norm))), tuple(names)


def _fun_name_sig(sig) -> str:
    return f"a function with signature {sig}"


def _hashable(x):
    try:
        hash(x)
    except TypeError as e:
        raise ValueError(
            "Non-hashable static arguments are not supported. An error occurred while trying "
            f"to hash an object of type {type(x)}, {x!r}. The error was:\n{type(e).__name__}: {e}"
        ) from None
    return _StaticKey(x)


class _StaticKey:
    """Compares static values by ``==`` and type (so 1 and 1.0 and True differ)."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def __hash__(self):
        return hash((type(self.value), self.value))

    def __eq__(self, other):
        return type(self.value) is type(other.value) and bool(self.value == other.value)


def disable_jit(disable: bool = True):
    """``with irax.disable_jit(): ...`` (``jax.disable_jit``): jit-decorated functions run
    as plain Python on concrete values, and ``lax.while_loop``, ``fori_loop``, ``scan``,
    ``cond`` and ``switch`` outside any transformation run as Python loops and branches,
    so ``print`` and Python control flow on values work in them. Under ``grad``/``vmap``
    (traced values) control flow stays the traced ops."""
    return config.override("jax_disable_jit", disable)


def jit(fun: Callable | None = None, *, in_shardings=None, out_shardings=None,
        static_argnums=None, static_argnames=None, donate_argnums=None,
        donate_argnames=None, keep_unused: bool = False, device=None,
        backend: str | None = None, inline: bool = False, abstracted_axes=None,
        **unsupported) -> Any:
    """Compiles ``fun`` with IREE (``jax.jit``). Usable as ``@jit``, ``@jit(...)`` and with
    ``functools.partial(jit, static_argnums=...)``.

    ``in_shardings``/``out_shardings`` (a sharding, or a pytree prefix of the positional
    arguments / the outputs; None leaves a value as it is) lay the arguments and results
    out as sharded arrays; ``NamedSharding``s over a mesh of several devices partition the
    program over them (``irax-partition``, docs/sharding.md), with the values JAX
    computes.

    ``abstracted_axes`` (a pytree prefix of the positional arguments of ``{axis: "name"}``
    dicts or None) makes those axes symbolic: one trace and one compiled program serve
    every size (``transforms/abstracted_axes.py``, docs/shape_poly.md)."""
    if unsupported:
        raise TypeError(f"irax.jit got unexpected keyword argument(s) {sorted(unsupported)}")
    opts = dict(static_argnums=static_argnums, static_argnames=static_argnames,
                donate_argnums=donate_argnums, donate_argnames=donate_argnames,
                keep_unused=keep_unused, device=device, backend=backend, inline=inline,
                abstracted_axes=abstracted_axes)

    def make(f):
        jitted = JitFunction(f, **opts)
        if in_shardings is None and out_shardings is None:
            return jitted
        return LaidOutJit(jitted, in_shardings, out_shardings)

    return make if fun is None else make(fun)


class LaidOutJit:
    """A jitted function whose arguments and results are laid out by shardings (``jit``
    with ``in_shardings``/``out_shardings``); everything else is its ``JitFunction``'s.
    ``NamedSharding``s over a mesh of several devices also partition the program
    (``irax-partition``): it runs on the mesh's devices, each on its blocks."""

    def __init__(self, jitted: JitFunction, in_shardings, out_shardings):
        self._jitted = jitted
        self.in_shardings, self.out_shardings = in_shardings, out_shardings
        jitted._layout = self
        # its traces carry the shardings: shared only with jits of the same ones
        jitted._specs = specializations(jitted.fun, jitted._options + (
            layout_key(in_shardings), layout_key(out_shardings)))
        jitted._cache = jitted._specs.entries
        functools.update_wrapper(self, jitted.fun, updated=())

    def __getattr__(self, name):
        return getattr(self._jitted, name)

    def __call__(self, *args, **kwargs):
        if current_trace() is not None:   # shardings only lay values out
            return self._jitted(*args, **kwargs)
        if self.in_shardings is not None:
            args = self._place_args(args)
        jitted = self._jitted
        if _CHECKS[0] or jitted._runs_itself:
            out = jitted(*args, **kwargs)
        else:   # one signature lookup serves both ways of running
            entry, leaves = jitted._entry(args, kwargs)
            out = run_partitioned(entry, leaves, jitted, jit)
            if out is None:
                out = execute(entry, leaves) if entry.executable is not None else \
                    jitted._run(entry, leaves)
                out = propagated(entry, out, self.out_shardings, lay_out)
        if self.out_shardings is not None:
            out = lay_out(out, self.out_shardings, "jit out_shardings", "outputs")
        return out

    def _arg_specs(self, args) -> list:
        static = self._jitted.static_argnums
        dyn = [i for i in range(len(args)) if i not in static]
        specs = self.in_shardings
        if is_placement(specs):
            specs = (specs,) * len(dyn)
        if not isinstance(specs, (tuple, list)) or len(specs) != len(dyn):
            raise ValueError(f"jit in_shardings must be a sharding or a tuple with one entry "
                             f"per positional argument: the function takes {len(dyn)} "
                             f"positional arguments, but in_shardings has "
                             f"{len(specs) if isinstance(specs, (tuple, list)) else 1}")
        return list(zip(dyn, specs))

    def _place_args(self, args):
        placed = list(args)
        for i, spec in self._arg_specs(args):
            placed[i] = lay_out(args[i], spec, "jit in_shardings", f"args[{i}]")
        return tuple(placed)

    def annotate(self, module, args, out):
        """Marks the traced ``module`` with the mesh and the shardings of its arguments
        and results, when they name a mesh of several devices; returns that mesh (else
        None)."""
        ins = []
        if self.in_shardings is not None:
            for i, spec in self._arg_specs(args):
                ins += placements(args[i], spec, "jit in_shardings", f"args[{i}]")
        else:
            ins = [None] * len(tree_util.tree_leaves(
                [a for i, a in enumerate(args) if i not in self._jitted.static_argnums]))
        outs = [None] * len(tree_util.tree_leaves(out)) if self.out_shardings is None else \
            placements(out, self.out_shardings, "jit out_shardings", "outputs")
        for (path, leaf), s in zip(tree_util.tree_flatten_with_path(out)[0], outs):
            if isinstance(s, mesh_lib.NamedSharding):   # JAX's errors before the partitioner's
                mesh_lib.check_shape(s, np.shape(leaf) if not isinstance(leaf, Tracer) else
                                     leaf.aval.shape, f"outputs{tree_util.keystr(path)}",
                                     "jit out_shardings")
        named = [s for s in ins + outs if isinstance(s, mesh_lib.NamedSharding)]
        if not named or named[0].mesh.size == 1:
            return None
        mesh = named[0].mesh
        if maps_devices(module) and map_mesh(module) != ir_mesh(mesh):
            return None   # a map the partitioner cannot inline: shardings lay values out
        for s in named[1:]:
            if s.mesh != mesh:
                raise ValueError(f"jit of {_fun_name(self._jitted.fun)}: in_shardings and "
                                 f"out_shardings must use one mesh, got {mesh} and {s.mesh}")

        def spec(s):
            return sharding_spec(s) if isinstance(s, mesh_lib.NamedSharding) else None
        mark_shardings(module, ir_mesh(mesh), [spec(s) for s in ins], [spec(s) for s in outs])
        return mesh


def make_mlir(fun: Callable, *, stage: str = "irax", debug_info: bool = False,
              static_argnums=None, static_argnames=None) -> Callable[..., str]:
    """Quick IR inspection (irax's ``make_jaxpr``): ``make_mlir(f)(*args)`` is the text of
    ``f`` traced for ``args`` at ``stage`` ("irax", "expanded", "simplified", "stablehlo",
    "iree", "iree-gpu"; ``Lowered.as_text``), with source locations when ``debug_info``.

        print(irax.make_mlir(lambda x: jnp.sin(x) * 2)(1.0))
    """
    if stage not in pipelines.STAGES:
        raise ValueError(f"irax.make_mlir: unknown stage {stage!r}; expected one of "
                         f"{list(pipelines.STAGES)}")
    jitted = JitFunction(fun, static_argnums=static_argnums, static_argnames=static_argnames)

    def show(*args, **kwargs) -> str:
        return jitted.lower(*args, **kwargs).as_text(stage, debug_info=debug_info)

    return show


def typeof(x) -> ShapedArray:
    """The abstract value of ``x`` (``jax.typeof``): ``typeof(1.0)`` is ``~float32[]``,
    ``typeof(jnp.ones(3))`` is ``float32[3]``."""
    if isinstance(x, (bool, int, float, complex, np.ndarray, np.generic, ShapeDtypeStruct)) \
            or isinstance(getattr(x, "aval", None), ShapedArray):
        return abstractify(x, None, "x")
    raise TypeError(f"Argument {x!r} of type {type(x)} is not a valid JAX type")


def eval_shape(fun: Callable, *args, **kwargs):
    """Output shapes and dtypes of ``fun`` without running it (``jax.eval_shape``)."""
    return JitFunction(fun).eval_shape(*args, **kwargs)
