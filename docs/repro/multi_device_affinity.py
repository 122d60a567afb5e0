"""Standalone reproducer: IREE 3.13 fails to place the ops of a small 4-device program
(no irax: iree.compiler only).

    python docs/repro/multi_device_affinity.py

Compiles multi_device_affinity.mlir (all_to_alls and all_gathers between four local CPU
devices, written with flow.tensor.transfer and each argument's and result's
iree.abi.affinity) and prints IREE's diagnostic. Measured with iree-base-compiler 3.13.0
(2026-12-07): "op affinity #hal.device.affinity<@dev1> is not compatible with the
partition affinity #hal.device.affinity<@dev3>" at the last stablehlo.concatenate, though
every op reads only values on its own device or transferred there. With the first
all_to_all's results passed in as arguments instead, the program compiles. (An
stablehlo.optimization_barrier before every transfer of a computed value also let some
such programs compile, at the cost of a copy per transfer.)
"""

import os
import sys

import iree.compiler as ic

HERE = os.path.dirname(os.path.abspath(__file__))
FLAGS = [f"--iree-hal-target-device=dev{k}=local[{k}]" for k in range(4)] + [
    "--iree-hal-local-target-device-backends=llvm-cpu", "--iree-input-type=stablehlo"]


def main() -> int:
    path = os.path.join(HERE, "multi_device_affinity.mlir")
    try:
        ic.tools.compile_file(path, extra_args=FLAGS)
    except ic.CompilerToolError as e:
        lines = [ln for ln in str(e).splitlines() if "error:" in ln]
        print("reproduced:" if any("partition affinity" in ln for ln in lines) else
              "failed otherwise:", *lines[:2], sep="\n  ")
        return 0
    print("compiled: not reproduced with this IREE")
    return 1


if __name__ == "__main__":
    sys.exit(main())
