"""A loaded, callable IREE program: ``.vmfb`` bytes bound to a device.

Calls go straight to ``VmContext.invoke`` with prebuilt argument lists (no per-call ABI
reflection), which keeps a cached jit call close to IREE's own invocation cost.
"""

from __future__ import annotations

import threading

from irax.runtime import devices as _devices


class Executable:
    """Calls one exported function of a compiled module on one device (or, for a program
    compiled for several, on ``devices``: the module's ``@dev0``, ``@dev1``, ...).

    ``__call__(views)`` takes IREE buffer views and returns the results' buffer views.
    ``threads``: run on the devices' thread pools where they have one
    (``Device.hal_for``).
    """

    def __init__(self, vmfb: bytes, device: _devices.Device, out_dtypes, function: str = "main",
                 devices=None, threads: bool = False):
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
        self.context = rt.VmContext(inst, [hal, self.module])
        self.function = self.module.lookup_function(function)
        if self.function is None:
            raise ValueError(f"irax: compiled module has no function {function!r}")
        self.out_dtypes = list(out_dtypes)
        self._rt = rt
        # one call at a time: an IREE VM context is not for concurrent invocation (threads
        # calling one jitted function take turns; distinct programs run concurrently)
        self._lock = threading.Lock()

    def __call__(self, views):
        rt = self._rt
        args = rt.VmVariantList(len(views))
        for v in views:
            args.push_ref(v)
        n = len(self.out_dtypes)
        rets = rt.VmVariantList(n)
        with self._lock:
            self.context.invoke(self.function, args, rets)
        view = rt.HalBufferView
        return [rets.get_as_object(i, view) for i in range(n)]
