"""Standalone reproducer of IREE 3.13's local-task race (no irax: iree-compile and
iree.runtime only).

    python docs/repro/local_task_race.py [calls] [extra iree-compile flags...]

Compiles local_task_race.mlir (a program with nested while loops and cases) for the
local CPU, calls it ``calls`` times (default 3000) on the ``local-task`` driver and counts
the calls whose results differ from the first call's, or that fail. Measured on 2 cores:
with IREE's default flags a few calls in every 3000 go wrong ("transient buffer has not
been committed", or other numbers), and in about half the processes the *first* call is
already wrong, so that nearly every call then differs; with
``--iree-hal-memoization=false`` (or ``--iree-hal-indirect-command-buffers=false``)
0 in 18,000. The same .vmfb on ``local-sync`` is always right.
"""

import os
import subprocess
import sys
import tempfile

import iree.runtime as rt
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
FLAGS = ["--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=llvm-cpu",
         "--iree-llvmcpu-target-cpu=host", "--iree-input-type=stablehlo",
         "--iree-opt-const-eval=false", "--iree-input-demote-f64-to-f32=false"]


def compile_module(extra):
    out = os.path.join(tempfile.mkdtemp(), "race.vmfb")
    compiler = os.path.join(os.path.dirname(sys.executable), "iree-compile")
    subprocess.run([compiler, os.path.join(HERE, "local_task_race.mlir"), *FLAGS, *extra,
                    "-o", out], check=True)
    with open(out, "rb") as f:
        return f.read()


def main():
    calls = int(sys.argv[1]) if len(sys.argv) > 1 else 3000
    vmfb = compile_module(sys.argv[2:])
    inst = rt.VmInstance()
    dev = rt.get_driver("local-task").create_default_device()
    module = rt.VmModule.copy_buffer(inst, vmfb)
    ctx = rt.VmContext(inst, [rt.create_hal_module(inst, dev), module])
    fn = module.lookup_function("main")
    inputs = [np.array([0.3, -0.2], np.float32), np.array(0.7, np.float32)]

    def call():
        args = rt.VmVariantList(2)
        for x in inputs:
            args.push_ref(dev.allocator.allocate_buffer_copy(
                memory_type=rt.MemoryType.DEVICE_LOCAL, allowed_usage=rt.BufferUsage.DEFAULT,
                device=dev, buffer=x, element_type=rt.HalElementType.FLOAT_32))
        rets = rt.VmVariantList(2)
        ctx.invoke(fn, args, rets)
        return [np.array(rt.DeviceArray(dev, rets.get_as_object(i, rt.HalBufferView),
                                        implicit_host_transfer=True).to_host())
                for i in range(2)]

    first = call()
    bad = 0
    for _ in range(calls):
        try:
            got = call()
        except RuntimeError as e:
            bad += 1
            print("failed:", str(e).splitlines()[0][:160])
            continue
        bad += any(not np.array_equal(g, w) for g, w in zip(got, first))
    print(f"first call: {[x.tolist() for x in first]}")
    print(f"{bad} of {calls} calls differ from the first or failed")


if __name__ == "__main__":
    main()
