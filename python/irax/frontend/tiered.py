"""Tiered ``jit``: a function's first calls run on the reference interpreter while IREE
compiles it on another thread; the compiled program takes over once it is ready.

IREE needs 0.3 s and more to compile a program (seconds for a few hundred ops); tracing
and running a small program op by op on NumPy takes milliseconds. So when a
specialization is not in the compile cache and is cheap to interpret, its first call
starts the compilation on the compile thread and interprets; every call before the
compilation ends interprets too; the first call after it runs the compiled program,
as every later call does:

    f = irax.jit(g)
    f(x)     # traced; compiling in the background; this call interpreted
    f(x)     # compiled by now? then the program runs, else interpreted again

An interpreted call that took more than ``SLOW_CALL_SECONDS`` makes the next calls wait
for the compiled program instead: such calls compete with the compilation for the cores
(a training step interpreted at 100 ms a call on 2 cores slowed IREE's 5 s compile to
7.5 s, so 75 interpreted steps cost more than waiting), so only the first call is
interpreted.

The results are the same arrays either way (same shapes, dtypes, weak types, devices:
the interpreter is the semantics every compiled result is tested against); values may
differ in the last bits of transcendental functions, where NumPy's and IREE's
implementations round differently.

Which specializations qualify (``eligible``): ``irax_tiered_jit`` on; one device, the
default one, a CPU (interpreted results live on the host, which is that device; a
partitioned program over several CPU devices has tiers of its own,
``transforms/partitioned.py _Tier``, which lays interpreted results out by their shardings);
no donated arguments; no loops (the interpreter pays each trip); no host callbacks
(a callback that raises while interpreted would run again, compiled); at most
``irax_tiered_jit_max_elements`` elements produced by all ops together. A compilation
that fails leaves the specialization interpreted, with a warning naming the error; an
interpretation that fails waits for the compiled program instead.
At exit the process waits for the compilation in progress (so that it lands in the
persistent cache); queued ones are dropped.
"""

from __future__ import annotations

import atexit
import logging
import queue
import threading
import time
from concurrent.futures import Future

import numpy as np

from irax.core import tree_util
from irax.core.config import config
from irax.dialect.interpreter import evaluate_function
from irax.frontend import program_cache
from irax.frontend.compile import (
    clone_module,
    compile_program,
    install,
    program_unless_installed,
)
from irax.frontend.eager import concrete_value
from irax.passes import pipelines, run_pipeline
from irax.runtime import compiler, devices
from irax.runtime.array import Array

log = logging.getLogger("irax")

#: how a specialization's first call went: compiled now, or interpreted meanwhile
stats = {"interpreted_calls": 0, "background_compiles": 0}
#: an interpreted call slower than this makes later calls wait for the compiled program
SLOW_CALL_SECONDS = 0.02


class _Tier:
    """A specialization's interpreted tier: its expanded module, the compilation under
    way, and what is needed to install the result."""

    __slots__ = ("module", "future", "program", "device", "name", "failed", "slow")

    def __init__(self, module, future, program, device, name):
        self.module = module
        self.future = future
        self.program = program
        self.device = device
        self.name = name
        self.failed = False
        self.slow = False       # an interpreted call took more than SLOW_CALL_SECONDS


def eligible(entry, device, program) -> bool:
    """Whether a specialization's first calls may be interpreted (the module docstring)."""
    # interpreted results live on the host, which is the default device
    if not config.irax_tiered_jit or device.platform != "cpu" \
            or device is not devices.default_device() or program.group or entry.donated:
        return False
    work = program.work
    return not work.loops and not work.host_calls \
        and work.elements <= config.irax_tiered_jit_max_elements


def call(entry, device, name: str, leaves, split=None):
    """Runs a specialization without a compiled program: returns its results when this
    call was interpreted, None when the caller should run the compiled program (now
    installed, from the cache or the background compilation). Call with the
    specialization's lock held. ``split``: as ``compile_entry``'s."""
    tier = entry.tier
    if tier is None:
        tier = entry.tier = _start(entry, device, name, split)
        if tier is False:
            return None
    if tier is False:
        return None
    if (tier.future.done() or tier.slow) and not tier.failed:
        try:
            vmfb = tier.future.result()     # waits when interpreting was slow
        except Exception as e:  # noqa: BLE001 - compile errors of every kind
            tier.failed = True
            log.warning("irax.jit(%s): IREE could not compile it in the background; it "
                        "stays on the reference interpreter: %s", name, e)
        else:
            install(entry, tier.device, name, tier.program, vmfb)
            entry.tier = False
            return None
    try:
        return _interpret(entry, tier, leaves)
    except Exception as e:  # noqa: BLE001 - the compiled program decides
        # an op the interpreter cannot run (or an error it alone raises): wait for the
        # compiled program instead, which raises what jit without tiers would
        log.debug("irax.jit(%s): the interpreter failed (%s); waiting for the compiled "
                  "program", name, e)
        return None


def _start(entry, device, name: str, split=None):
    """Installs the recorded or cached program, or compiles it now when the
    specialization does not qualify (returning False), or starts compiling it in the
    background and returns the tier."""
    record = program_cache.key(entry, device.platform, "main")
    program = program_unless_installed(entry, device, name, record, split=split)
    if program is None:
        return False
    vmfb = compiler.cached_by_key(program.key, program.info, name)
    if vmfb is not None:
        install(entry, device, name, program, vmfb)
        return False
    if not eligible(entry, device, program):
        install(entry, device, name, program, compile_program(program, name))
        return False
    module = clone_module(entry.trace_module)
    run_pipeline(module, pipelines.EAGER)
    future = _submit(program.code, program.key, program.info, name)
    stats["background_compiles"] += 1
    return _Tier(module, future, program, device, name)


def interpret(module, leaves) -> tuple[list, bool]:
    """``@main`` of an expanded ``module`` on the reference interpreter, on the values of
    ``leaves``: its results, and whether the call was slow (``SLOW_CALL_SECONDS``: the
    next calls wait for the compiled program)."""
    start = time.perf_counter()
    outs = evaluate_function(module, "main", [concrete_value(x)[0] for x in leaves])
    stats["interpreted_calls"] += 1
    return outs, time.perf_counter() - start > SLOW_CALL_SECONDS


def _interpret(entry, tier, leaves):
    outs, tier.slow = interpret(tier.module, leaves)
    results = [Array._from_host(np.asarray(o, a.dtype).reshape(a.shape), a, entry.home)
               for o, a in zip(outs, entry.out_avals)]
    return tree_util.tree_unflatten(entry.out_tree, results)


# ---- the compile thread --------------------------------------------------------------

_QUEUE: queue.SimpleQueue = queue.SimpleQueue()
_THREAD: list[threading.Thread] = []
_LOCK = threading.Lock()
_RUNNING = threading.Lock()     # held while a compilation runs
_EXITING = threading.Event()


def submit_job(job) -> Future:
    """Runs ``job()`` on the compile thread, after the compilations queued before it (a
    partitioned program's first compiled call, ``transforms/partitioned.py``); its result
    or error goes to the returned future."""
    return _submit(job, None, None, None)


def _submit(code, key: str | None, info: dict | None, name: str | None) -> Future:
    """``code``: the bytecode to compile under ``key`` (None: nothing, a marker for
    ``wait``), or a job to run (``submit_job``)."""
    future: Future = Future()
    _QUEUE.put((future, code, key, info, name))
    with _LOCK:
        if not _THREAD:
            t = threading.Thread(target=_worker, name="irax-compile", daemon=True)
            t.start()
            _THREAD.append(t)
    return future


def _worker() -> None:
    while True:
        future, code, key, info, name = _QUEUE.get()
        with _RUNNING:
            if _EXITING.is_set():
                future.cancel()
                continue
            if not future.set_running_or_notify_cancel():
                continue
            try:
                if callable(code):
                    vmfb = code()
                else:
                    vmfb = None if code is None else \
                        compiler.compile_keyed(code, key, info, name)
            except BaseException as e:  # noqa: BLE001 - handed to the caller
                future.set_exception(e)
            else:
                future.set_result(vmfb)


@atexit.register
def _wait_for_compile_in_progress() -> None:
    """At exit: drop the queued compilations, finish the one in progress."""
    _EXITING.set()
    with _RUNNING:
        pass


def finish(entry) -> bool:
    """Waits for a specialization's background compilation and installs its program;
    False when it has none. Raises the compilation's error."""
    tier = entry.tier
    if not tier:
        return False
    if tier.failed:     # known to fail: compile it again here, raising its error
        return False
    vmfb = tier.future.result()
    install(entry, tier.device, tier.name, tier.program, vmfb)
    entry.tier = False
    return True


def wait() -> None:
    """Blocks until every compilation submitted so far has ended (tests, benchmarks)."""
    if _THREAD:
        _submit(None, None, None, None).result()
