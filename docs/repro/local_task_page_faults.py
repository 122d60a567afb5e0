"""Standalone reproducer: IREE 3.13's ``local-task`` device faults in the pages of every
large result at every call, with or without a caching allocator (no irax: iree.compiler
and iree.runtime only).

    python docs/repro/local_task_page_faults.py [n] [driver] [allocator spec]

Compiles ``x + x*x + x*x*x`` on an n x n float32 array (default 5000: 100 MB) for the
local CPU, calls it on ``driver`` (default ``local-task``) with the device created with
``allocator spec`` (default ``caching``; ``none``: IREE's default allocator), and prints
the time and minor page faults per call after five warm-up calls. Measured on a 2-core
Zen 4 (2026-12-06):

    5000 local-task caching                  40-45 ms, 24,435 faults a call
    5000 local-task caching:*=1gib;2gib;1024 40 ms,    24,436
    5000 local-task none                     42 ms,    24,433
    5000 local-sync caching                  9.6 ms,   0
    5000 local-sync none                     61 ms,    24,415
    4000 local-task caching                  4.0 ms,   0    (64 MB results)
    4000 local-sync caching                  6.2 ms,   0

So the caching allocator keeps ``local-sync``'s results for reuse, but ``local-task``
returns a fresh mapping for each result above about 64 MB whatever the allocator; below
that the pool is the faster driver (two cores stream more memory than one). The cause,
read in IREE's sources (``runtime/src/iree/hal/drivers/local_task/task_device.c`` on
IREE's main branch, whose 64 MB matches what 3.13 does): the
task device serves queue allocations (a program's results among them) from its own pools,
not from the device allocator: a TLSF pool over 64 MB slabs
(``IREE_HAL_TASK_DEVICE_DEFAULT_POOL_RANGE_LENGTH_DEFAULT``, a compile-time constant, no
flag) and, for anything larger, a pass-through pool that takes a fresh slab from the CPU
slab provider for each allocation and returns it when freed.
"""

import resource
import sys
import time

import iree.compiler as ic
import iree.runtime as rt
import numpy as np


def main(argv):
    n = int(argv[1]) if len(argv) > 1 else 5000
    driver = argv[2] if len(argv) > 2 else "local-task"
    spec = argv[3] if len(argv) > 3 else "caching"
    t = f"tensor<{n}x{n}xf32>"
    source = f"""
    func.func @main(%x: {t}) -> {t} {{
      %0 = stablehlo.multiply %x, %x : {t}
      %1 = stablehlo.multiply %0, %x : {t}
      %2 = stablehlo.add %x, %0 : {t}
      %3 = stablehlo.add %2, %1 : {t}
      return %3 : {t}
    }}"""
    vmfb = ic.compile_str(source, target_backends=["llvm-cpu"], input_type="stablehlo",
                          extra_args=["--iree-llvmcpu-target-cpu=host"])
    instance = rt.VmInstance()
    device = rt.get_driver(driver).create_default_device(
        allocators=None if spec == "none" else [spec])
    module = rt.VmModule.copy_buffer(instance, vmfb)
    context = rt.VmContext(instance, [rt.create_hal_module(instance, device), module])
    function = module.lookup_function("main")
    x = device.allocator.allocate_buffer_copy(
        memory_type=rt.MemoryType.DEVICE_LOCAL, allowed_usage=rt.BufferUsage.DEFAULT,
        device=device, buffer=np.ones((n, n), np.float32),
        element_type=rt.HalElementType.FLOAT_32)

    def call():
        args, results = rt.VmVariantList(1), rt.VmVariantList(1)
        args.push_ref(x)
        context.invoke(function, args, results)

    for _ in range(5):
        call()
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    start = time.perf_counter()
    for _ in range(10):
        call()
    seconds = (time.perf_counter() - start) / 10
    faults = (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults) / 10
    print(f"{n} {driver} {spec}: {seconds * 1e3:.2f} ms, {faults:.0f} minor faults a call")


if __name__ == "__main__":
    main(sys.argv)
