"""Standalone reproducer: IREE 3.13 fails at run time on a four-device program whose
``stablehlo.while`` carries values on every device (no irax: iree.compiler and
iree.runtime only).

    python docs/repro/multi_device_loop.py [extra iree-compile flags...]

``multi_device_loop.mlir`` is what irax's ``irax-shard`` made, in an experiment of
2026-12-07 (reverted), of an eager ``lax.fori_loop(0, 3, lambda i, v: v * 1.5, xs)`` over
an 8x4 array split along ``x`` of a 2x2 mesh: one loop for the four devices in lock
step, each carrying its own block and step counter (the per-device code of
``irax-partition`` reads ``axis_index``, a constant per device). It compiles; the call
fails with every setting tried (2-core Zen 4):

    (IREE's defaults)                          command_buffer_validation.c:118:
        INVALID_ARGUMENT; binding table slot requires a buffer but none was provided;
        ... hal.device.queue.execute.indirect
    --iree-hal-memoization=false               the same
    --iree-hal-indirect-command-buffers=false  command_buffer_validation.c:196:
        OUT_OF_RANGE; indirect buffer reference slot 0 is out range of the declared
        binding capacity of the command buffer 0

A smaller loop (four devices each squaring a 4x4 block three times, no step counters per
device) runs and gives 1.5 ** 8. So irax's one multi-device program does not hold loops:
a loop holding collectives runs on threads, a program per device
(``transforms/partitioned.py``), or as the stacked program on one device
(docs/sharding.md).
"""

import json
import os
import sys

import iree.compiler as ic
import iree.runtime as rt
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
FLAGS = [f"--iree-hal-target-device=dev{k}=local[{k}]" for k in range(4)] + [
    "--iree-hal-local-target-device-backends=llvm-cpu", "--iree-llvmcpu-target-cpu=host",
    "--iree-input-type=stablehlo", "--iree-opt-const-eval=false"]


def main(extra):
    with open(os.path.join(HERE, "multi_device_loop.mlir")) as f:
        vmfb = ic.compile_str(f.read(), extra_args=FLAGS + extra)
    instance = rt.VmInstance()
    devices = [rt.get_driver("local-sync").create_default_device() for _ in range(4)]
    module = rt.VmModule.copy_buffer(instance, vmfb)
    context = rt.VmContext(instance, [rt.create_hal_module(instance, devices=devices),
                                      module])

    def put(x, element_type):
        return devices[0].allocator.allocate_buffer_copy(
            memory_type=rt.MemoryType.DEVICE_LOCAL, allowed_usage=rt.BufferUsage.DEFAULT,
            device=devices[0], buffer=x, element_type=element_type)

    args, results = rt.VmVariantList(2), rt.VmVariantList(2)
    args.push_ref(put(np.array(0, np.int32), rt.HalElementType.SINT_32))
    args.push_ref(put(np.ones((8, 4), np.float32), rt.HalElementType.FLOAT_32))
    try:
        context.invoke(module.lookup_function("main"), args, results)
    except (RuntimeError, ValueError) as e:
        print("failed:", e)
        return 1
    out = results.get_as_object(1, rt.HalBufferView).map().asarray((8, 4), np.dtype(np.float32))
    print("ran:", json.dumps(np.asarray(out).tolist()), "expected every element", 1.5 ** 3)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
