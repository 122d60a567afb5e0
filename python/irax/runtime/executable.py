"""A loaded, callable IREE program: ``.vmfb`` bytes bound to a device.

Calls go straight to ``VmContext.invoke`` with prebuilt argument lists (no per-call ABI
reflection), which keeps a cached jit call close to IREE's own invocation cost.

A module that imports host functions (``@irax_host.cb3__...``: host callbacks,
``core/callbacks.py``) gets a Python module of those functions beside it in its context,
each bound to its entry of the process's callback table. An exception a callback raises
comes back out of the call as itself.
"""

from __future__ import annotations

import atexit
import gc
import os
import re
import threading
import time
import weakref

import numpy as np

from irax.core import callbacks
from irax.core.config import config
from irax.runtime import buffers
from irax.runtime import devices as _devices
from irax.runtime.array import Array

#: the name of a host import as the ``.vmfb`` spells it
_HOST_IMPORT = re.compile(
    rb"(?<![A-Za-z0-9_])" + callbacks.HOST_MODULE.encode() + rb"\.(cb[0-9]+(?:__[A-Za-z0-9_]+)?)")


class _BatchWhileWaiting:
    """Makes the calling thread ``SCHED_BATCH`` while it waits for a program on IREE's CPU
    thread pool (Linux; a thread under another policy than ``SCHED_OTHER`` is left alone).

    IREE 3.13's fence wait registers a timepoint on the program's last semaphore; the
    worker that signals it wakes the waiting thread, and the waiter, once awake, spins
    until that worker has finished the callback. On a machine with as many workers as
    cores the woken thread preempts the worker on its core (a wake-up preemption), then
    spins for the rest of its time slice (3-4 ms here) while the worker it waits for
    cannot run: a third of the MLP step's calls took 7-8 ms instead of 4.3. A
    ``SCHED_BATCH`` thread never preempts on wake-up, so the worker finishes first
    (docs/performance.md, "The waiting thread yields to the workers")."""

    __slots__ = ("_set", "_get", "_batch", "_other", "_param")

    def __init__(self):
        self._set = getattr(os, "sched_setscheduler", None)
        self._get = getattr(os, "sched_getscheduler", None)
        self._batch = getattr(os, "SCHED_BATCH", None)
        self._other = getattr(os, "SCHED_OTHER", None)
        self._param = os.sched_param(0) if hasattr(os, "sched_param") else None

    def enter(self) -> bool:
        """Switches the calling thread to SCHED_BATCH; whether it did."""
        if self._set is None or self._batch is None or not config.irax_cpu_batch_waits:
            return False
        try:
            if self._get(0) != self._other:
                return False
            self._set(0, self._batch, self._param)
        except OSError:
            return False
        return True

    def leave(self) -> None:
        """Switches the calling thread back to SCHED_OTHER (after an ``enter`` that did)."""
        try:
            self._set(0, self._other, self._param)
        except OSError:  # pragma: no cover - a thread may always lower its own policy
            pass


_BATCH = _BatchWhileWaiting()


class Executable:
    """Calls one exported function of a compiled module on one device (or, for a program
    compiled for several, on ``devices``: the module's ``@dev0``, ``@dev1``, ...).

    ``__call__(views)`` takes IREE buffer views and returns the results' buffer views.
    ``threads``: run on the devices' thread pools where they have one
    (``Device.hal_for``).
    """

    def __init__(self, vmfb: bytes, device: _devices.Device, out_dtypes, function: str = "main",
                 devices=None, threads: bool = False, outputs=()):
        rt = _devices.runtime()
        inst = _devices.instance()
        self.vmfb = vmfb
        self.device = device
        self.module = rt.VmModule.copy_buffer(inst, vmfb)
        if devices:
            hal = rt.create_hal_module(inst, devices=[d.hal_for(threads) for d in devices])
        else:
            hal = rt.create_hal_module(inst, device.hal_for(threads))
        self.threads = threads
        #: on IREE's CPU thread pool: the calling thread waits as SCHED_BATCH
        self._pooled = any(d.pooled(threads) for d in (devices or [device]))
        hosts = host_imports(vmfb)
        modules = [hal, host_module(hosts, device.hal_for(threads)), self.module] if hosts \
            else [hal, self.module]
        self.context = rt.VmContext(inst, modules)
        #: how many modules the context holds (a third: host functions)
        self.context_modules = len(modules)
        self.function = self.module.lookup_function(function)
        if self.function is None:
            raise ValueError(f"irax: compiled module has no function {function!r}")
        self.out_dtypes = list(out_dtypes)
        self._rt = rt
        # the call's pieces looked up once (a cached jit call is a few microseconds)
        self._n = len(self.out_dtypes)
        self._list = rt.VmVariantList
        self._view = rt.HalBufferView
        self._invoke = self.context.invoke
        #: ``(shape, dtype)`` of each trailing argument that is a result's storage
        #: (``passes/output_storage.py``): allocated at each call, from the device's
        #: allocator (IREE's thread pool would otherwise take large results from its own)
        self._outputs = [(shape, np.dtype(dtype)) for shape, dtype in outputs]
        _LIVE.add(self)
        # one call at a time: an IREE VM context is not for concurrent invocation (threads
        # calling one jitted function take turns; distinct programs run concurrently)
        self._lock = threading.Lock()

    def __call__(self, views):
        args = self._list(len(views) + len(self._outputs))
        for v in views:
            args.push_ref(v)
        if self._outputs:
            hal = self.device.hal
            for shape, dtype in self._outputs:
                args.push_ref(buffers.empty(hal, shape, dtype))
        n = self._n
        rets = self._list(n)
        with self._lock:
            batch = _BATCH.enter() if self._pooled else False
            try:
                self._invoke(self.function, args, rets)
            except RuntimeError:
                error, callbacks.raised.error = callbacks.raised.error, None
                if error is not None:
                    raise error from None
                raise
            finally:
                if batch:
                    _BATCH.leave()
        get, view = rets.get_as_object, self._view
        if n == 1:
            return [get(0, view)]
        return [get(i, view) for i in range(n)]

    def one_array_call(self, aval, device):
        """A function of one argument's buffer view and whether the result is committed,
        returning the result ``Array`` (``aval`` on ``device``) of a program with one
        argument and one result called on the calling thread, without host functions or
        storage to allocate: the cached jit call of such a program (``transforms/jit.py``)
        skips the general path's lists, checks and wrappers. None for any other program.
        An IREE error comes out as the ``RuntimeError`` it is (the caller then takes the
        general path, which words it)."""
        if self._pooled or self._outputs or self._n != 1 or self.context_modules > 2:
            return None
        new_list, invoke, function = self._list, self._invoke, self.function
        lock, view, from_device = self._lock, self._view, Array._from_device

        def call(buffer, committed: bool):
            args = new_list(1)
            args.push_ref(buffer)
            rets = new_list(1)
            with lock:
                invoke(function, args, rets)
            return from_device(rets.get_as_object(0, view), aval, device, committed)
        return call


class Tuned:
    """One program on a CPU device's two drivers, calling it on the one its first calls
    measured faster: the calling thread (``local-sync``) or IREE's thread pool
    (``local-task``). Loop kernels (``irax-loop-kernels``) run each element's loop
    independently; the pool splits the elements over the cores, which pays off for long
    loops and costs a hand-off (tens of microseconds) for short ones; for mid-sized
    matrix products where the pool starts to pay depends on the machine
    (``frontend/compile.py tunes_threads``). The first ``2 * (TRIALS + 1)`` calls
    alternate between the two (each driver's first call, which starts threads and
    touches fresh memory, is not counted; the pool's next ones are slower too, hence
    five); the results are the same either way."""

    TRIALS = 5

    def __init__(self, inline: Executable, pool: Executable):
        self.vmfb = inline.vmfb
        self.device = inline.device
        self._exes = (inline, pool)
        self._times: tuple[list, list] = ([], [])
        self._lock = threading.Lock()
        #: the executable chosen once the trials are done
        self.chosen: Executable | None = None

    @property
    def threads(self) -> bool | None:
        return None if self.chosen is None else self.chosen.threads

    def __call__(self, views):
        chosen = self.chosen
        if chosen is not None:
            return chosen(views)
        with self._lock:
            k = 0 if len(self._times[0]) <= len(self._times[1]) else 1
        start = time.perf_counter()
        outs = self._exes[k](views)
        elapsed = time.perf_counter() - start
        with self._lock:
            self._times[k].append(elapsed)
            if min(len(t) for t in self._times) > self.TRIALS and self.chosen is None:
                best = [min(t[1:]) for t in self._times]
                self.chosen = self._exes[int(best[1] < best[0])]
        return outs


#: every loaded program, released in order at exit (``_release``)
_LIVE: weakref.WeakSet = weakref.WeakSet()


@atexit.register
def _release() -> None:
    """Frees device buffers and loaded programs before the interpreter tears down: left
    to its final garbage collection, in no particular order, freeing result buffers
    crashed the process at exit (seen with a program loaded from a file and its results
    alive). Device arrays are deleted then."""
    for obj in gc.get_objects():
        if type(obj) is Array and obj._dev is not None:
            # a host copy mapped from the device buffer holds that buffer too
            obj._dev = obj._host = None
            obj._deleted = True
    for exe in list(_LIVE):
        for name in ("_invoke", "function", "context", "module"):
            exe.__dict__.pop(name, None)
    gc.collect()


def host_imports(vmfb: bytes) -> list[str]:
    """The host functions (names in ``irax_host``) a compiled module imports."""
    if callbacks.HOST_MODULE.encode() not in vmfb:
        return []
    names = {m.group(1).decode() for m in _HOST_IMPORT.finditer(vmfb)}
    return sorted(n for n in names if callbacks.parse_import(n) is not None)


def host_module(names, hal_device):
    """An IREE module ``irax_host`` exporting each host function of ``names``."""
    rt = _devices.runtime()

    class _State:
        def __init__(self, iface):
            pass

    iface = rt.PyModuleInterface(callbacks.HOST_MODULE, _State)
    for name in names:
        index, ins, outs = callbacks.parse_import(name)
        iface.export(name, callbacks.signature(len(ins), len(outs)),
                     _host_function(index, ins, outs, hal_device))
    return iface.create()


def _host_function(index: int, ins, outs, hal_device):
    """The exported function of entry ``index``: buffer views in, buffer views out."""
    rt = _devices.runtime()

    def call(_state, *refs):
        try:
            # mapped, read-only, valid during the call (callbacks that keep values copy them)
            arrays = [buffers.to_host(hal_device, r.deref(rt.HalBufferView), a.shape, a.dtype)
                      for r, a in zip(refs, ins)]
            results = callbacks.call(index, arrays, outs)
            views = [buffers.to_device(hal_device, np.asarray(v, a.dtype).reshape(a.shape))
                     for v, a in zip(results, outs)]
        except BaseException as e:  # noqa: BLE001 - handed to the caller as it is
            callbacks.raised.error = e
            raise
        if not views:
            return None
        return views[0].ref if len(views) == 1 else tuple(v.ref for v in views)

    return call
