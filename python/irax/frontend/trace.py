"""Tracing: recording a Python function as a ``func.func`` of irax ops, and ``bind``.

``bind(op_cls, *args, **attrs)`` is the one entry point of every primitive. Outside any
trace it evaluates the op's NumPy rule (eager mode, the reference interpreter); inside a
trace it emits the op into the function being recorded and returns a ``Tracer``.

    with Trace("f") as t:
        x = t.add_argument(ShapedArray((3,), np.float32))
        y = bind(Mul, x, x)          # emits "irax.mul" at the user's line
        t.finish([y])                # emits func.return

Each emitted op carries the location of the user's line (``frontend/source_info.py``).
"""

from __future__ import annotations

import threading

import numpy as np

from irax.core import dtypes
from irax.core.abstract import ShapedArray
from irax.core.errors import UnexpectedTracerError
from irax.core.shape_poly import Dim, InconclusiveDimensionOperation
from irax.dialect import attrs as A
from irax.dialect import funcs, mlir
from irax.dialect.base import OpError, lookup
from irax.dialect.builder import IRBuilder
from irax.dialect.constant import Constant
from irax.dialect.effects import effect_only
from irax.dialect.funcs import unique_name
from irax.dialect.interpreter import Interpreter
from irax.dialect.regions import function_to_region
from irax.dialect.shape import DimensionSize
from irax.dialect.transform import TransformOp
from irax.dialect.upstream import op_class
from irax.frontend.eager import concrete_value, eager_op
from irax.frontend.source_info import user_location
from irax.frontend.tracer import Tracer


class _TraceStack(threading.local):
    """The traces being recorded by this thread, innermost last (tracing state is per
    thread, as in JAX: threads trace and run functions independently)."""

    def __init__(self):
        self.traces: list[Trace] = []


_STATE = _TraceStack()


def trace_stack() -> list[Trace]:
    """This thread's traces, innermost last."""
    return _STATE.traces


class Trace:
    """One trace level: a module being built and the function under construction.

    Traces nest: a transformation (``grad``) traced inside another trace records its
    function as a sibling ``func.func`` of the same module; tracers of enclosing traces
    used inside become extra arguments of the inner function (``captures``), passed at
    the call site.

    A *concrete* trace (eager transformations) also evaluates every op on NumPy, so its
    tracers carry values and Python control flow on them works, as in JAX.
    """

    def __init__(self, origin: str = "", name: str = "main", module=None, parent=None,
                 concrete: bool = False, private: bool = False, hoist=None):
        ir = mlir.ir()
        self.origin = origin
        self.active = False
        self._stack = None  # this thread's trace stack while active
        self.ctx = mlir.context()
        self.loc = mlir.unknown_loc()
        self.parent = parent
        self.concrete = concrete
        self.private = private
        if module is None:
            module = parent.module if parent is not None else ir.Module.create(self.loc)
        self.module = module
        if parent is not None or private:
            name = unique_name(module, name)
        self.name = name
        self._func = None
        self._block = None
        self._builder = None
        self._in_types = []
        self._consts: dict[int, Tracer] = {}
        #: symbolic size name -> (an argument tracer, its axis of that size)
        self._sizes: dict[str, tuple[Tracer, int]] = {}
        self.captures: list[Tracer] = []
        self._captured: dict[int, tuple[Tracer, Tracer]] = {}
        self.out_avals: list[ShapedArray] = []
        #: ``hoist(x) -> aval or None``: which outside values become arguments of this trace
        #: instead of constants (also when a nested trace uses them: they are captured)
        self._hoist = hoist
        self._hoister = self if hoist is not None else \
            (parent._hoister if parent is not None else None)
        #: the values hoisted, in argument order after those added before each
        self.hoisted: list = []
        #: committed arrays this trace or one inside it took as constants: an eager
        #: transformation's results are committed to their device (as JAX's)
        self.committed: list = []

    # ---- context management -----------------------------------------------------------
    def __enter__(self) -> Trace:
        self.ctx.__enter__()
        self.loc.__enter__()
        self._begin_function()
        self.active = True
        self._stack = _STATE.traces
        self._stack.append(self)
        return self

    def __exit__(self, *exc) -> None:
        self.active = False
        self._stack.remove(self)
        self.loc.__exit__(*exc)
        self.ctx.__exit__(*exc)

    def _begin_function(self) -> None:

        ir = mlir.ir()
        ftype = ir.FunctionType.get([], [])
        attrs = {"sym_name": ir.StringAttr.get(self.name),
                 "function_type": ir.TypeAttr.get(ftype)}
        if self.private:
            attrs["sym_visibility"] = ir.StringAttr.get("private")
        with ir.InsertionPoint(self.module.body):
            self._func = ir.Operation.create("func.func", regions=1, attributes=attrs)
        self._block = self._func.regions[0].blocks.append()
        self._builder = IRBuilder.at_end(self._block, self.loc)

    # ---- building -------------------------------------------------------------------------
    def add_argument(self, aval: ShapedArray, concrete=None) -> Tracer:
        t = mlir.to_ir_type(aval)
        self._in_types.append(t)
        value = self._block.add_argument(t, self.loc)
        tr = Tracer(self, value, aval)
        tr._concrete = concrete
        if not aval.is_static:
            for k, d in enumerate(aval.shape):
                if type(d) is Dim and d.symbol_name is not None:
                    self._sizes.setdefault(d.symbol_name, (tr, k))
        return tr

    def size_value(self, d: Dim) -> Tracer:
        """A traced scalar holding the symbolic size ``d``: the size of an argument's axis
        (``irax.dimension_size``), or arithmetic on such sizes."""
        env = {}
        for name in sorted(d.names):
            trace, src = self, None
            while trace is not None and src is None:
                src = trace._sizes.get(name)
                trace = trace.parent
            if src is None:
                raise InconclusiveDimensionOperation(
                    f"the symbolic dimension {name!r} is the size of no argument of the "
                    "function being traced")
            dtype, _ = dtypes.dtype_and_weak(1)
            env[name] = bind(DimensionSize, src[0], dimension=src[1], dtype=dtype)
        return self.lift(d.evaluate(env))

    def emit(self, op_cls, args, attrs, result_avals=None):
        self._builder.loc = user_location(self.loc)
        tracers = [self.lift(a) for a in args]
        values = [t._value for t in tracers]
        avals = [t.aval for t in tracers]
        try:
            results, out_avals, _ = self._builder.emit(op_cls, values, avals,
                                                       result_avals=result_avals, **attrs)
        except OpError as e:
            raise TypeError(str(e)) from None
        outs = [Tracer(self, v, a) for v, a in zip(results, out_avals)]
        # an op with effects (a host callback) runs when the recorded program does, not
        # also now
        if (self.concrete and result_avals is None and not op_cls.has_side_effects
                and all(t._concrete is not None for t in tracers)):
            norm = op_cls.normalize_attrs(attrs)
            vals = op_cls.evaluate_list([t._concrete for t in tracers], norm, out_avals)
            for o, v in zip(outs, vals):
                o._concrete = v
        return outs

    def emit_region_op(self, op_cls, args, regions, result_avals, attrs) -> list:
        """Emits a region op whose regions receive the bodies of traced functions.

        ``regions``: one ``(arg_avals, fn, arg_map)`` per region; ``fn`` (a func.func of
        this module) is moved into the region, its argument ``i`` becoming block argument
        ``arg_map[i]``. In a concrete trace the results also get their values."""
        self._builder.loc = user_location(self.loc)
        tracers = [self.lift(a) for a in args]
        values = [t._value for t in tracers]
        try:
            results, out_avals, op = self._builder.emit(
                op_cls, values, [t.aval for t in tracers], regions=len(regions),
                result_avals=result_avals, **attrs)
        except OpError as e:
            raise TypeError(str(e)) from None
        for region, (arg_avals, fn, arg_map) in zip(op.regions, regions):
            region.blocks.append(*[mlir.to_ir_type(a) for a in arg_avals])
            function_to_region(fn, region, arg_map)
        outs = [Tracer(self, v, a) for v, a in zip(results, out_avals)]
        if (self.concrete and all(t._concrete is not None for t in tracers)
                and not _holds_transforms(op)):
            norm = op_cls.normalize_attrs(attrs)
            try:
                vals = op_cls.evaluate_regions(_Quiet(self.module), op,
                                               [t._concrete for t in tracers], norm, out_avals)
            except _Effectful:
                return outs    # the values come when the recorded program runs
            for o, v in zip(outs, vals):
                o._concrete = np.asarray(v)
        return outs

    def lift(self, x) -> Tracer:
        """A tracer for ``x``: itself if it is ours, a captured argument if it belongs to
        an enclosing trace, an argument of the root trace if that one hoists ``x`` (see
        ``hoist``), else an ``irax.constant``."""
        if isinstance(x, Tracer):
            if x._trace is self and self.active:
                return x
            if x._trace.active and self._encloses(x._trace):
                return self._capture(x)
            raise UnexpectedTracerError(x)
        if type(x) is Dim:
            return self.size_value(x)
        key = id(x)
        hit = self._consts.get(key)
        if hit is not None and hit._const_of is x:
            return hit
        root = self._hoister
        if root is not None and root.active:
            aval = root._hoist(x)
            if aval is not None:
                outer = root._hoisted_argument(x, aval)
                return outer if root is self else self._capture(outer)
        value, aval = concrete_value(x)
        results, _, _ = self._builder.emit(Constant, [], [], value=value)
        tr = Tracer(self, results[0], aval)
        tr._concrete = value
        if not isinstance(x, (int, float, complex, bool)):
            tr._const_of = x
            self._consts[key] = tr
            if getattr(x, "_home", None) is not None:
                t = self
                while t is not None:
                    t.committed.append(x)
                    t = t.parent
        return tr

    def _hoisted_argument(self, x, aval) -> Tracer:
        """The argument standing for the outside value ``x`` (one per value)."""
        hit = self._consts.get(id(x))
        if hit is not None and hit._const_of is x:
            return hit
        tr = self.add_argument(aval)
        tr._const_of = x      # also keeps ``x`` alive, so its id stays valid
        self._consts[id(x)] = tr
        self.hoisted.append(x)
        return tr

    def _encloses(self, other: Trace) -> bool:
        t = self.parent
        while t is not None:
            if t is other:
                return True
            t = t.parent
        return False

    def _capture(self, outer: Tracer) -> Tracer:
        hit = self._captured.get(id(outer))
        if hit is not None and hit[0] is outer:  # the entry keeps ``outer`` alive: ids stay valid
            return hit[1]
        original = outer
        if self.parent is not None and outer._trace is not self.parent:
            outer = self.parent.lift(outer)  # capture through every level in between
        inner = self.add_argument(outer.aval, outer._concrete)
        self.captures.append(outer)
        self._captured[id(original)] = (original, inner)
        return inner

    def finish(self, outs) -> None:
        ir = mlir.ir()
        tracers = [self.lift(o) for o in outs]
        self.out_avals = [t.aval for t in tracers]
        with self._builder.ip:
            ir.Operation.create("func.return", operands=[t._value for t in tracers], loc=self.loc)
        ftype = ir.FunctionType.get(self._in_types, [t._value.type for t in tracers])
        self._func.attributes["function_type"] = ir.TypeAttr.get(ftype)

    @property
    def func_op(self):
        return self._func


def mark_donated(module, donated) -> None:
    """Marks arguments ``donated`` (indices) of the traced public function with
    ``jax.buffer_donor`` (JAX's convention; ``irax-legalize-iree`` aliases them)."""
    if not donated:
        return
    ir = mlir.ir()
    fn = module.body.operations[0]
    with mlir.context():
        n = len(fn.regions[0].blocks[0].arguments)
        donor = {"jax.buffer_donor": ir.BoolAttr.get(True)}
        fn.attributes["arg_attrs"] = ir.ArrayAttr.get(
            [ir.DictAttr.get(donor if i in donated else {}) for i in range(n)])


def mark_shardings(module, mesh, in_specs, out_specs) -> None:
    """Annotates the traced public function for ``irax-partition``: its mesh
    (``irax.mesh``, a ``dialect.sharding.Mesh``) and the sharding of each argument and
    result (``irax.sharding``; None leaves one to propagation)."""
    fn = module.body.operations[0]
    with mlir.context():
        for key, specs in (("arg_attrs", in_specs), ("res_attrs", out_specs)):
            old = funcs.entry_attrs(fn, key)
            dicts = []
            for i, spec in enumerate(specs):
                entries = old[i] if i < len(old) else {}
                if spec is not None:
                    entries["irax.sharding"] = A.Sharding.encode(spec)
                dicts.append(entries)
            funcs.set_entry_attrs(fn, key, dicts)
        fn.attributes["irax.mesh"] = mesh.encode()


def current_trace() -> Trace | None:
    """This thread's innermost trace, or None outside any trace."""
    traces = _STATE.traces
    return traces[-1] if traces else None


def find_trace(args) -> Trace | None:
    """The trace that ``args`` belong to, or None when every argument is concrete. A tracer
    of a finished trace, or of another thread's, is an unexpected tracer."""
    found = None
    for a in args:
        if isinstance(a, Tracer):
            traces = _STATE.traces
            if not a._trace.active or a._trace._stack is not traces:
                raise UnexpectedTracerError(a)
            found = traces[-1]
    return found


def bind(op_cls, *args, **attrs):
    """Applies ``op_cls`` to ``args``: eager NumPy evaluation, or IR emission under a trace.

    Returns one value for single-result ops, else a list.
    """
    trace = find_trace(args)
    if trace is None and (not args or op_cls.joins_trace):
        # an op without operands (iota) is part of the program being traced, as in JAX:
        # computed by the compiled code instead of embedded as a constant; a callback is,
        # whatever its operands, in concrete traces too (it runs when the program runs)
        inner = current_trace()
        trace = inner if inner is not None and (op_cls.joins_trace or not inner.concrete) \
            else None
    outs = trace.emit(op_cls, args, attrs) if trace is not None else eager_op(op_cls, args, attrs)
    return outs[0] if len(outs) == 1 else outs


class _Effectful(Exception):
    """A region evaluated at trace time holds an op with effects and results."""


class _Quiet(Interpreter):
    """The interpreter for values a concrete trace needs at once: the recorded program
    makes the effects when it runs, so prints are skipped here, and an op with effects
    and results (io_callback) leaves the values to that run."""

    def run_op(self, op, operands, env):
        if effect_only(op):
            return []
        cls = lookup(op.name)
        if cls is not None and cls.has_side_effects:
            raise _Effectful()
        return super().run_op(op, operands, env)


def _holds_transforms(op) -> bool:
    """Whether ``op``'s regions hold a transformation op (``irax.vmap`` in a loop body): the
    reference interpreter runs those only once expanded, so a concrete trace leaves the
    region op's results without concrete values (the expanded program computes them)."""
    found = []

    def visit(inner):
        if inner is not op.operation and isinstance(op_class(inner), type) \
                and issubclass(op_class(inner), TransformOp):
            found.append(inner)
            return mlir.ir().WalkResult.INTERRUPT
        return mlir.ir().WalkResult.ADVANCE

    op.operation.walk(visit)
    return bool(found)
