"""An irax function's ops replayed into the current trace, one ``bind`` each.

A block of an expanded function (no transformation ops left) becomes a Python function of
its arguments' values: each op is bound again with its decoded attributes, so the trace
it runs in records the same computation (and infers the same types). Loops and branches
are the same ops over their regions replayed the same way; what a caller needs beyond
that is a ``Replayer``'s choice:

    how = Replayer(module=module)        # irax.call inlined from module's functions
    f = Block(fn.regions[0].blocks[0], how)
    with Trace() as t:
        outs = f(*[t.add_argument(a) for a in avals])   # the block's results

The partitioned programs on threads replay their per-device function so, their
collectives meeting on the host (``transforms/partitioned.py``); a one-device program
whose loop is run from the host replays its pieces so (``frontend/split_loops.py``).
"""

from __future__ import annotations

from irax.core import tree_util
from irax.dialect import funcs, mlir
from irax.dialect.base import lookup
from irax.dialect.collective import Collective
from irax.dialect.constant import Constant
from irax.dialect.control import Call, is_return
from irax.dialect.control_flow import Cond, Scan, While
from irax.frontend.callee import shared_captures, trace_callee
from irax.frontend.trace import bind, current_trace


class NotReplayable(Exception):
    """A function this cannot replay (the message names the op)."""


class Replayer:
    """How ops other than plain ones replay: ``collective(cls, operands, attrs)`` emits a
    collective (None: refused); ``region()`` is a context entered while a loop's or
    branch's region is traced (None: none); ``module``: the module whose functions an
    ``irax.call`` inlines (None: calls refused)."""

    def __init__(self, collective=None, region=None, module=None):
        self.collective = collective
        self.region = region
        self.module = module


class Block:
    """One block's ops replayed: ``__call__(*arguments)`` returns its results (a list)."""

    def __init__(self, block, how: Replayer, region: bool = False):
        ops, results = split_return(block)
        if results is None:
            raise NotReplayable("a block without a return")
        self._setup(ops, block.arguments, results, how, region)

    @classmethod
    def of_ops(cls, ops, arguments, results, how: Replayer) -> Block:
        """Some ops of a block replayed as a function of ``arguments`` (the values they
        read from outside them) returning ``results`` (values they make)."""
        self = object.__new__(cls)
        self._setup(ops, arguments, results, how, False)
        return self

    def _setup(self, ops, arguments, results, how, region) -> None:
        self.arguments, self.results = list(arguments), list(results)
        self.how = how
        #: a loop's or branch's region (traced inside ``how.region()``)
        self.region = region and how.region is not None
        self.steps = [(op, step(op, how)) for op in ops]

    def __call__(self, *values):
        if self.region:
            with self.how.region():
                return self._run(values)
        return self._run(values)

    def _run(self, values):
        env = dict(zip(self.arguments, values))
        for op, fn in self.steps:
            out = fn([env[v] for v in op.operands])
            env.update(zip(op.results, out if isinstance(out, (list, tuple)) else [out]))
        return [env[v] for v in self.results]


def split_return(block) -> tuple[list, list | None]:
    """A block's ops before its return, and the values it returns (None: no return)."""
    ops = []
    for op in block.operations:
        if is_return(op):
            return ops, list(op.operands)
        ops.append(op)
    return ops, None


def step(op, how: Replayer):
    """How ``Block`` replays ``op``: a function of its operands' values."""
    cls = lookup(op.name)
    if cls is Call and how.module is not None:
        body = funcs.callee_body(op, how.module)
        if body is None:
            raise NotReplayable(f"a call of a function {op.name} cannot see")
        inner = Block(body, how)
        return lambda operands: inner(*operands)
    if cls is None or funcs.symbol_refs(op):
        raise NotReplayable(f"{op.name} in the function")
    attrs = cls.decode_attrs(op)
    if len(op.regions):
        if cls not in (While, Scan, Cond):
            raise NotReplayable(f"{op.name} in the function")
        return region_op(cls, op, [Block(r.blocks[0], how, region=True) for r in op.regions],
                         attrs)
    if cls is Constant and any(mlir.aval_of(r).dtype.kind == "c" for r in op.results):
        raise NotReplayable("a complex constant")   # its attribute is not read into Python
    if issubclass(cls, Collective):
        if how.collective is None:
            raise NotReplayable(f"{op.name} in the function")
        return lambda operands: how.collective(cls, operands, attrs)
    return lambda operands: bind(cls, *operands, **attrs)


def region_op(cls, op, blocks, attrs):
    """How ``Block`` replays a loop or branch ``op``: each region's block replayed into a
    traced function of its arguments (a region of the new op); the values those
    functions capture (a device's position, which its collectives pass to the host)
    become consts in front of the op's own, then its operands."""
    first = 1 if cls is Cond else 0   # a branch index stays in front
    out_avals = [mlir.aval_of(r) for r in op.results]

    def replay(operands):
        callees = []
        for block in blocks:
            avals = [mlir.aval_of(a) for a in block.arguments]
            callees.append(trace_callee(
                block, avals, tree_util.tree_structure((tuple(avals), {})), "region",
                f"{op.name} region", in_avals=avals, concrete=False))
        consts, index = shared_captures(callees)
        k = len(consts)
        regions = []
        for c in callees:
            n = len(c.in_avals)
            regions.append(([x.aval for x in consts] + list(c.in_avals), c.trace.func_op,
                            list(range(k, k + n)) + [index[id(x)] for x in c.captures]))
        extra = dict(attrs)
        if "num_consts" in extra:
            extra["num_consts"] += k
        args = list(operands[:first]) + consts + list(operands[first:])
        return current_trace().emit_region_op(cls, args, regions, out_avals, extra)
    return replay
