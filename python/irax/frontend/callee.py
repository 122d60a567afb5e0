"""How the Python API applies a transformation op to a traced function.

``trace_callee`` records ``fun`` as a private ``func.func`` (a nested trace of the current
one, or of a fresh module in eager mode); ``apply_transform`` then emits the
transformation op on the arguments (plus the callee's captured outer values):

- inside a trace (``jit``, or another transformation) the op is part of the enclosing
  function and is expanded later by the pipeline;
- in eager mode the op goes into a ``main`` wrapper that is expanded by ``irax-autodiff``
  and run by the reference interpreter (``frontend/eager.py``).

A concrete trace (eager mode) also needs the op's values at once, for Python control flow
on them: they are computed the same way, on a copy of the functions involved.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass

import numpy as np

from irax.core import tree_util
from irax.core.config import config
from irax.dialect import funcs, mlir
from irax.dialect.builder import OpMethods
from irax.dialect.collective import Collective
from irax.dialect.vectorize import Vmap
from irax.frontend import eager
from irax.frontend.axes import emit_collective
from irax.frontend.compile import run_compiled
from irax.frontend.eager import concrete_value
from irax.frontend.trace import Trace, bind, current_trace
from irax.frontend.tracer import Tracer
from irax.runtime.array import Array, committed_device, committed_to


def arg_names(fun, nargs: int) -> list[str]:
    """The names of ``fun``'s first ``nargs`` positional parameters for messages
    (``args[i]`` past those its signature names)."""
    try:
        params = list(inspect.signature(fun).parameters.values())
    except (TypeError, ValueError):
        params = []
    names = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return [names[i] if i < len(names) else f"args[{i}]" for i in range(nargs)]


def fun_name(fun, qualified: bool = False) -> str:
    """A user function's name for messages (``<lambda>`` for lambdas); ``qualified``: its
    ``__qualname__`` (``Model.loss``, ``test.<locals>.f``) where it has one."""
    name = getattr(fun, "__qualname__", None) if qualified else None
    return name or getattr(fun, "__name__", None) or type(fun).__name__


def fun_origin(fun, qualified: bool = False) -> str:
    """``name at file:line`` for error messages about a traced function."""
    code = getattr(fun, "__code__", None)
    where = f" at {code.co_filename}:{code.co_firstlineno}" if code else ""
    return f"{fun_name(fun, qualified)}{where}"


def fun_symbol(fun) -> str:
    """A valid MLIR symbol derived from a user function's name (``lambda`` for lambdas)."""
    name = "".join(c if c.isalnum() or c == "_" else "_" for c in fun_name(fun))
    return name.strip("_") or "fn"


@dataclass
class Callee:
    trace: Trace
    in_tree: object
    out_tree: object
    in_avals: list
    out_avals: list

    @property
    def name(self) -> str:
        return self.trace.name

    @property
    def captures(self) -> list:
        return self.trace.captures


def shared_captures(callees):
    """One list of the outer values several traced functions capture (the consts of a
    region op whose regions they become), and the position of each in it (by ``id``)."""
    consts, index = [], {}
    for c in callees:
        for x in c.captures:
            if id(x) not in index:
                index[id(x)] = len(consts)
                consts.append(x)
    return consts, index


def leaf_aval_and_value(x):
    """Abstract value (with weak type) and concrete NumPy value (or None) of a leaf."""
    if isinstance(x, Tracer):
        return x.aval, x._concrete
    value, aval = concrete_value(x)
    return aval, value


def trace_callee(fun, leaves, in_tree, name: str, origin: str, module=None,
                 in_avals=None, concrete: bool | None = None) -> Callee:
    """Traces ``fun(*args, **kwargs)`` (given as flat leaves) into a private function of
    the current trace's module (or of ``module``, or of a fresh one in eager mode).

    ``in_avals`` overrides the leaves' abstract values (vmap traces per-example shapes);
    ``concrete=False`` traces abstractly even in eager mode."""
    parent = current_trace()
    if in_avals is not None:
        pairs = [(a, None) for a in in_avals]
    else:
        pairs = [leaf_aval_and_value(x) for x in leaves]
    if concrete is None:
        concrete = parent.concrete if parent is not None else True
    with Trace(origin=origin, name=name, parent=parent, concrete=concrete,
               private=True, module=module) as t:
        tracers = [t.add_argument(a, v if concrete else None) for a, v in pairs]
        args, kwargs = tree_util.tree_unflatten(in_tree, tracers)
        out = fun(*args, **kwargs)
        out_leaves, out_tree = tree_util.tree_flatten(out)
        t.finish(out_leaves)
    return Callee(t, in_tree, out_tree, [a for a, _ in pairs], list(t.out_avals))


def apply_transform(op_cls, callee: Callee, operands, result_avals, **attrs) -> list:
    """Emits ``op_cls`` (callee + attrs) on ``operands``; returns the results (tracers
    inside a trace, Arrays in eager mode).

    ``operands`` may be a function of the callee's captured values (the extra inputs the
    callee got for outer tracers), returning the full operand list."""
    if callable(operands):
        operands = operands(list(callee.captures))
    operands = list(operands)
    # The op goes into the innermost active trace: usually the one the callee was traced
    # in, but a pullback returned by vjp may be applied later inside a deeper trace (or,
    # when traced eagerly, inside a later jit/vmap); ancestors' values are captured.
    parent = current_trace()
    if parent is not None:
        name = callee.name
        if parent.module is not callee.trace.module:
            name = import_functions(callee.trace.module, name, parent.module)
        outs = parent.emit(op_cls, operands, dict(attrs, callee=name),
                           result_avals=result_avals)
        if parent.concrete:
            values = _evaluate_eagerly(parent.module, op_cls, operands, result_avals,
                                       dict(attrs, callee=name))
            for o, v in zip(outs, values):
                o._concrete = v
        return outs
    # as JAX: results committed where the committed operands are, or sharded as a jit of
    # the transformation lays them out
    home = committed_device(operands + callee.trace.committed, callee.name)
    if eager.sharded(operands):
        return eager.SHARDED[1](lambda *ops: apply_transform(
            op_cls, callee, list(ops), result_avals, **attrs), operands)
    if not callee.trace.concrete and (op_cls is not Vmap or config.irax_eager_vmap_compiled
                                      or not _all_concrete(operands)):
        # traced abstractly (vmap outside jit): compiled, so that it computes exactly
        # what jit(vmap(f)) and pmap(f) compute
        return committed_to(_run_compiled(callee, op_cls, operands, result_avals, attrs),
                            home)
    values = _evaluate_eagerly(callee.trace.module, op_cls, operands, result_avals,
                               dict(attrs, callee=callee.name))
    return [Array._from_host(v, a, home) for v, a in zip(values, result_avals)]


def _all_concrete(operands) -> bool:
    return all(leaf_aval_and_value(x)[1] is not None for x in operands)


def _run_compiled(callee: Callee, op_cls, operands, result_avals, attrs) -> list:
    pairs = [leaf_aval_and_value(x) for x in operands]
    scratch = eager.copy_functions(callee.trace.module, callee.name)
    in_avals = [a for a, _ in pairs]
    main = eager.add_entry(scratch, op_cls, in_avals, result_avals, callee=callee.name,
                           **attrs)
    return run_compiled(scratch, main, operands, in_avals, result_avals, callee.name)


def _evaluate_eagerly(module, op_cls, operands, result_avals, attrs) -> list[np.ndarray]:
    """Runs one transformation op on concrete operands: a scratch module holding the
    callee's functions and a ``main`` with the op, expanded and interpreted."""
    pairs = [leaf_aval_and_value(x) for x in operands]
    if any(v is None for _, v in pairs):
        raise RuntimeError("irax: internal error: eager transformation of abstract values")
    scratch = eager.copy_functions(module, attrs["callee"])
    main = eager.add_entry(scratch, op_cls, [a for a, _ in pairs], result_avals, **attrs)
    return eager.evaluate(scratch, main, [v for _, v in pairs])


def import_functions(src, name: str, dst) -> str:
    """Copies ``@name`` and the functions it references from module ``src`` into ``dst``,
    renamed where they would clash; returns the new name of ``@name``."""
    ir = mlir.ir()
    renames = {}
    clones = []
    with mlir.context(), mlir.unknown_loc():
        for fn in funcs.reachable_functions(src, name):
            old = funcs.symbol_name(fn)
            new = funcs.unique_name(dst, old)
            clone = fn.operation.clone(ip=ir.InsertionPoint(dst.body))
            clone.attributes["sym_name"] = ir.StringAttr.get(new)
            renames[old] = new
            clones.append(clone)
        for clone in clones:
            for old, new in renames.items():
                if old != new:
                    ir.SymbolTable.replace_all_symbol_uses(old, new, clone)
    return renames[name]


def flatten_args(args, kwargs):
    leaves, tree = tree_util.tree_flatten((tuple(args), dict(kwargs)))
    return leaves, tree


def zeros_for(x) -> np.ndarray:
    """Host zeros shaped like a leaf or tracer (a zero tangent / cotangent)."""
    aval = leaf_aval_and_value(x)[0]
    return np.zeros(aval.shape, aval.dtype)


class TraceBuilder(OpMethods):
    """Builds on the values of the current trace (tracers or concrete arrays), so that
    helpers written against a builder (``dialect/collective.py exchange``,
    ``shard/partition.py to_blocks``) serve both IR and traced code."""

    def emit_values(self, op_cls, operands, **attrs):
        if issubclass(op_cls, Collective):   # (through a per-device program's handler)
            return [emit_collective(op_cls, operands, attrs)]
        out = bind(op_cls, *operands, **attrs)
        return out if isinstance(out, list) else [out]

    @staticmethod
    def aval(v):
        return leaf_aval_and_value(v)[0]
