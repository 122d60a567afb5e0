"""A one-device CPU program's heavy top-level loops driven from the host, so that their
bodies run on IREE's thread pool.

IREE 3.13 races on its thread pool for programs with loops it drives itself
(docs/performance.md, "The local-task race"), so under ``irax_cpu_driver="auto"`` such a
program runs on the calling thread alone: five MLP training steps in a ``fori_loop``
took 80 ms where five calls of the jitted step, each on the pool, took 41. A program
whose function (expanded and simplified) has a top-level ``irax.while`` or ``irax.scan``
whose body holds at least ``irax_cpu_threads_min_flops`` multiply-adds is cut into
programs at each such loop (``irax_cpu_split_loops``):

    %r:3 = "irax.scan"(%x, %y, %c0, %w1, %w2) ({ ... one training step ... })
               {length = 5 : i64, num_carry = 3 : i64, num_consts = 2 : i64}

    the ops before the loop      one program (its results that later ops read)
    the scan's body              one program of (consts, i, carry, xs, ys) returning
                                 (i + 1, carry, ys): step i's slices read from xs, its
                                 outputs written into the stacked ys
    the ops after the loop       one program

A while loop's body program also returns its condition on the new carry, and a program
of the condition alone decides the first trip. The host calls the body ``length`` times
(a while loop: until the condition it returned is false), passing buffers from call to
call; each piece is an ordinary compiled program (cached, recorded), which the runtime's
usual rules send to the pool or keep inline. The same ops run in the same order on the
same values; results may differ in their last bits, as between any two programs: a piece
is compiled on its own (a loop-free one sums in two stages, ``irax-split-reductions``,
which leaves programs with loops alone; its products may be tiled otherwise). The
pieces are traced by replaying the ops (``frontend/replay.py``): a program holding what
cannot be replayed (host callbacks, say) stays whole, as does a scan whose stacked
outputs (rewritten at every trip) exceed ``MAX_STACKED_BYTES``.
"""

from __future__ import annotations

import logging

import numpy as np

from irax.core import tree_util
from irax.core.abstract import ShapedArray
from irax.core.config import config
from irax.dialect import funcs, mlir
from irax.dialect.base import lookup
from irax.dialect.control import Call
from irax.dialect.control_flow import Scan, While
from irax.dialect.elementwise import Add, Sub
from irax.dialect.indexing import DynamicSlice, DynamicUpdateSlice
from irax.dialect.shape import Reshape
from irax.frontend import program_cache
from irax.frontend.compile import (
    Specialization,
    compile_entry,
    module_at_stage,
    on_one_thread,
    program_of,
    vmfb_of,
)
from irax.frontend.replay import Block, NotReplayable, Replayer, split_return
from irax.frontend.trace import Trace, bind
from irax.runtime.buffers import to_device, to_host

#: a scan's stacked outputs are written into whole at every trip (no buffer is updated in
#: place between programs): a scan stacking more bytes than this stays in one program
MAX_STACKED_BYTES = 1 << 22

#: programs cut so (``programs``), for tests
stats = {"programs": 0}

log = logging.getLogger("irax")


def wanted(entry, work, device) -> bool:
    """Whether a one-device program measured as ``work`` (``lowering/work.py``) may be cut
    at its loops: a CPU program with a loop driven from the host and enough multiply-adds
    for the pool, under the "auto" driver; not with symbolic sizes, nor where programs
    must stay on their thread. Donated arguments are fine: IREE aliases none of them
    (``passes/legalize_iree.py``); the call deletes them after the last piece."""
    return (config.irax_cpu_split_loops and device.platform == "cpu"
            and config.irax_cpu_driver == "auto" and work.host_loops
            and work.flops >= config.irax_cpu_threads_min_flops
            and not entry.polymorphic and not on_one_thread())


def split(entry, device, name: str, work, function: str) -> bool:
    """Installs ``entry`` (a one-device specialization measured as ``work``) as a
    ``SplitProgram`` where it is ``wanted`` and ``make`` cuts it: ``compile_entry``'s
    ``split``. Its pieces compile the same way (a piece may be cut again)."""
    if not wanted(entry, work, device):
        return False

    def piece(module, in_avals, out_avals, what):
        spec = Specialization(module, in_avals, out_avals,
                              tree_util.tree_structure(list(range(len(out_avals)))))
        compile_entry(spec, device, what, split=split)
        return spec.executable

    try:
        program = make(module_at_stage(entry, "simplified"), function, device, name, piece)
    except Exception as e:  # noqa: BLE001 - the one program decides (its own errors)
        # a piece the replay or IREE could not make: the program runs whole, and raises
        # what it raises without the cut
        log.debug("irax.jit(%s): its loop is not cut (%s: %s)", name, type(e).__name__, e)
        return False
    if program is None:
        return False
    record = program_cache.key(entry, device.platform, function)
    program.whole = lambda: vmfb_of(program_of(entry, device, name, record, function), name)
    entry.name, entry.work, entry.device = name, work, device
    entry.executable, entry.fast = program, None
    stats["programs"] += 1
    return True


def multiply_adds(block, module) -> int:
    """The multiply-adds of the matrix products and convolutions of ``block`` (regions
    counted once, calls followed into ``module``'s functions)."""
    total = 0
    for op in block.operations:
        cls = lookup(op.name)
        if cls is not None and cls.multiply_adds is not None:   # (the op's own rule)
            total += cls.multiply_adds([mlir.aval_of(v) for v in op.operands],
                                       [mlir.aval_of(r) for r in op.results],
                                       **cls.decode_attrs(op))
        elif cls is Call:
            body = funcs.callee_body(op, module)
            total += multiply_adds(body, module) if body is not None else 0
        for region in op.regions:
            for b in region.blocks:
                total += multiply_adds(b, module)
    return total


def _heavy(op, module) -> bool:
    """Whether a top-level op is a loop worth driving from the host."""
    cls = lookup(op.name)
    if cls is While:
        body = op.regions[1].blocks[0]
    elif cls is Scan:
        attrs = cls.decode_attrs(op)
        stacked = op.results[attrs["num_carry"]:]
        if sum(mlir.aval_of(r).size * mlir.aval_of(r).dtype.itemsize for r in stacked) > \
                MAX_STACKED_BYTES:
            return False
        body = op.regions[0].blocks[0]
    else:
        return False
    # (a body without products: elementwise work gains nothing from the pool)
    return multiply_adds(body, module) >= max(config.irax_cpu_threads_min_flops, 1)


def make(module, function: str, device, name: str, compile_piece):
    """The ``SplitProgram`` of ``@function`` of an expanded, simplified ``module``, or None
    when it has no heavy top-level loop or cannot be cut. ``compile_piece(module,
    in_avals, out_avals, what)`` compiles a piece's traced module and returns its
    executable."""
    fn = funcs.symbol_table(module).get(function)
    if fn is None:
        return None
    block = fn.regions[0].blocks[0]
    ops, results = split_return(block)
    heavy = [i for i, op in enumerate(ops) if _heavy(op, module)]
    if results is None or not heavy:
        return None
    how = Replayer(module=module)
    try:
        return _Planner(block, ops, set(heavy), results, how, device, name,
                        compile_piece).program
    except (NotReplayable, KeyError):   # (KeyError: a region reading a value from outside)
        return None


class _Planner:
    """Cuts a function's top-level ops into pieces: runs of ordinary ops, and the heavy
    loops; each value a later piece reads gets a slot of the host's environment."""

    def __init__(self, block, ops, heavy, results, how, device, name, compile_piece):
        self.how, self.device, self.name = how, device, name
        self.compile = compile_piece
        self.slots: dict = {}
        for a in block.arguments:
            self.slot(a)
        n_args = len(self.slots)
        # the last top-level op reading each value (the function's results: past the end)
        last = {}
        for i, op in enumerate(ops):
            for v in op.operands:
                last[v] = i
        for v in results:
            last[v] = len(ops)
        steps, run = [], []
        for i, op in enumerate(ops):
            if i in heavy:   # (the indices of the heavy loops)
                steps.append(self.segment(run, last))
                run = []
                steps.append(self.loop(op, i))
            else:
                run.append((i, op))
        steps.append(self.segment(run, last))
        steps = [s for s in steps if s is not None]
        # a slot is dropped after the piece holding its last reader, so that its buffer
        # goes as it would (a function result stays)
        for s in steps:
            s.drop = [self.slots[v] for v, at in last.items()
                      if s.start <= at <= s.end and v in self.slots and at < len(ops)]
        self.program = SplitProgram(steps, len(self.slots), list(range(n_args)),
                                    [self.slots[v] for v in results], device)

    def slot(self, value) -> int:
        found = self.slots.get(value)
        if found is None:
            found = self.slots[value] = len(self.slots)
        return found

    def piece(self, fn, in_avals, what):
        """``fn`` (of tracers, returning tracers) traced and compiled: its executable."""
        with Trace(origin=what, name="main") as t:
            outs = fn(*[t.add_argument(a) for a in in_avals])
            t.finish(list(outs))
        return self.compile(t.module, in_avals, list(t.out_avals), f"{self.name} ({what})")

    def segment(self, run, last):
        """A run of ordinary top-level ops as one program (None: nothing later reads)."""
        if not run:
            return None
        ops = [op for _, op in run]
        made = {r for op in ops for r in op.results}
        ins, seen = [], set()
        for op in ops:
            for v in op.operands:
                if v not in made and v not in seen:
                    seen.add(v)
                    ins.append(v)
        end = run[-1][0]
        outs = [r for op in ops for r in op.results if last.get(r, -1) > end]
        if not outs:
            return None
        exe = self.piece(Block.of_ops(ops, ins, outs, self.how), [mlir.aval_of(v) for v in ins],
                         "ops around a loop")
        return _Run((run[0][0], end), exe, [self.slots[v] for v in ins],
                    [self.slot(v) for v in outs])

    def loop(self, op, end: int):
        cls = lookup(op.name)
        attrs = cls.decode_attrs(op)
        operands = [self.slots[v] for v in op.operands]
        avals = [mlir.aval_of(v) for v in op.operands]
        k = attrs["num_consts"]
        if cls is While:
            cond = Block(op.regions[0].blocks[0], self.how)
            body = Block(op.regions[1].blocks[0], self.how)

            def trip(*args):
                carry = body(*args)
                return list(carry) + cond(*args[:k], *carry)
            first = self.piece(lambda *a: cond(*a), avals, "loop condition")
            exe = self.piece(trip, avals, "loop body")
            return _While((end, end), first, exe, operands, k, [self.slot(r) for r in op.results],
                          self.device)
        c, length, reverse = attrs["num_carry"], attrs["length"], attrs["reverse"]
        body = Block(op.regions[0].blocks[0], self.how)
        xs = avals[k + c:]
        ys = [mlir.aval_of(r) for r in op.results[c:]]

        def trip(*args):
            consts, i = list(args[:k]), args[k]
            carry = list(args[k + 1:k + 1 + c])
            stacked_in, stacked_out = args[k + 1 + c:k + 1 + c + len(xs)], \
                args[k + 1 + c + len(xs):]
            at = bind(Sub, np.int32(length - 1), i) if reverse else i
            slices = [_row(x, at) for x in stacked_in]
            out = body(*consts, *carry, *slices)
            new_ys = [_write_row(y, v, at) for y, v in zip(stacked_out, out[c:])]
            return [bind(Add, i, np.int32(1))] + list(out[:c]) + new_ys
        counter = ShapedArray((), np.dtype(np.int32))
        exe = self.piece(trip, avals[:k] + [counter] + avals[k:] + ys, "loop body")
        return _Scan((end, end), exe, operands, k, c, length, ys,
                     [self.slot(r) for r in op.results], self.device)


def _row(x, at):
    """Row ``at`` of the traced ``x`` (its leading dimension dropped)."""
    shape = tuple(x.aval.shape)
    zeros = [np.int32(0)] * (len(shape) - 1)
    part = bind(DynamicSlice, x, at, *zeros, slice_sizes=(1, *shape[1:]))
    return bind(Reshape, part, new_sizes=shape[1:])


def _write_row(ys, y, at):
    """The traced ``ys`` with row ``at`` replaced by ``y``."""
    zeros = [np.int32(0)] * len(y.aval.shape)
    row = bind(Reshape, y, new_sizes=(1, *y.aval.shape))
    return bind(DynamicUpdateSlice, ys, row, at, *zeros)


class _Run:
    """A piece of ordinary ops: its program on the slots it reads, into those it fills."""

    def __init__(self, span, exe, ins, outs):
        #: the indices of its first and last top-level ops
        (self.start, self.end), self.exe, self.ins, self.outs = span, exe, ins, outs
        self.drop = []

    def __call__(self, env):
        views = self.exe([env[i] for i in self.ins])
        for s, v in zip(self.outs, views):
            env[s] = v


class _While:
    """A heavy ``irax.while`` run from the host: the condition's program once, then the
    body's (which returns the next condition) until it is false."""

    def __init__(self, span, first, exe, operands, k, outs, device):
        (self.start, self.end), self.first, self.exe, self.k = span, first, exe, k
        self.ins, self.outs, self.hal = operands, outs, device.hal
        self.drop = []

    def __call__(self, env):
        args = [env[i] for i in self.ins]
        consts, carry = args[:self.k], args[self.k:]
        go = self.first(consts + carry)[0]
        while bool(to_host(self.hal, go, (), np.dtype(np.bool_))):
            out = self.exe(consts + carry)
            carry, go = out[:-1], out[-1]
        for s, v in zip(self.outs, carry):
            env[s] = v


class _Scan:
    """A heavy ``irax.scan`` run from the host: the body's program ``length`` times, the
    step counter and the stacked outputs passed from call to call."""

    def __init__(self, span, exe, operands, k, c, length, ys, outs, device):
        (self.start, self.end), self.exe, self.k = span, exe, k
        self.c, self.length = c, length
        self.ins, self.outs = operands, outs
        # buffers never written (a program's arguments are read only): made once
        self.zeros = [to_device(device.hal, np.zeros((), np.int32))] + \
            [to_device(device.hal, np.zeros(a.shape, a.dtype)) for a in ys]
        self.drop = []

    def __call__(self, env):
        args = [env[i] for i in self.ins]
        k, c = self.k, self.c
        consts, carry, xs = args[:k], args[k:k + c], args[k + c:]
        i, ys = self.zeros[0], self.zeros[1:]
        for _ in range(self.length):
            out = self.exe(consts + [i] + carry + xs + ys)
            i, carry, ys = out[0], out[1:1 + c], out[1 + c:]
        for s, v in zip(self.outs, carry + ys):
            env[s] = v


class SplitProgram:
    """A program run as pieces from the host (``make``): ``__call__(views)`` takes the
    arguments' buffer views and returns the results', like ``runtime.Executable``;
    ``vmfb`` is the one program's (compiled when first asked: ``whole``)."""

    def __init__(self, steps, n_slots, args, results, device):
        self.steps, self.n_slots, self.args, self.results = steps, n_slots, args, results
        self.device = device
        self.threads = None
        #: compiles the one program: its ``.vmfb`` (set by the caller)
        self.whole = None
        self._vmfb = None

    @property
    def vmfb(self) -> bytes:
        if self._vmfb is None:
            self._vmfb = self.whole()
        return self._vmfb

    def __call__(self, views):
        env = [None] * self.n_slots
        for s, v in zip(self.args, views):
            env[s] = v
        for st in self.steps:
            st(env)
            for s in st.drop:
                env[s] = None
        return [env[s] for s in self.results]
