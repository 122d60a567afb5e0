"""Standalone measurement: IREE 3.13 copies every buffer a ``stablehlo.while`` carries on
every trip (no irax: iree.compiler and iree.runtime only).

    python docs/repro/loop_carried_copy.py [trips]

Each program is a loop of ``trips`` steps (default 1000) over ``x = sin(x)`` on f32[64]
that also writes ``x`` into row ``i`` of a carried buffer of ``R`` x 64 floats with
``dynamic_update_slice`` (the way a scan stacks its outputs and the way a reverse-mode tape
records carries). A row is 256 bytes, so an in-place update costs the same whatever ``R``;
the time per trip grows with ``R`` instead, by about the time of copying the whole
buffer: IREE's stream allocation gives each trip's results a fresh transient allocation
and copies the carried buffer into it (``--compile-to=stream`` shows a
``stream.cmd.copy`` of the full buffer inside the loop). Measured on 2 cores,
local-sync: 3.1 us a trip with 17 rows, 5.1 us with 257, 16 us with 1025, 39 us with
4097 (1 MB copied per trip).
"""

import sys
import time

import iree.compiler as ireec
import iree.runtime as rt
import numpy as np

FLAGS = ["--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=llvm-cpu",
         "--iree-llvmcpu-target-cpu=host", "--iree-input-type=stablehlo"]

_TEMPLATE = """func.func @main(%x0: tensor<64xf32>, %n: tensor<i32>) -> (tensor<64xf32>, tensor<RX64xf32>) {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %c1 = stablehlo.constant dense<1> : tensor<i32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %b0 = stablehlo.broadcast_in_dim %z, dims = [] : (tensor<f32>) -> tensor<RX64xf32>
  %r:3 = stablehlo.while(%i = %c0, %x = %x0, %b = %b0) : tensor<i32>, tensor<64xf32>, tensor<RX64xf32>
  cond {
    %p = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %zi = stablehlo.constant dense<0> : tensor<i32>
UPDATE
    %s = stablehlo.sine %x : tensor<64xf32>
    %i1 = stablehlo.add %i, %c1 : tensor<i32>
    stablehlo.return %i1, %s, %b2 : tensor<i32>, tensor<64xf32>, tensor<RX64xf32>
  }
  return %r#1, %r#2 : tensor<64xf32>, tensor<RX64xf32>
}
"""
_WRITE = """    %row = stablehlo.reshape %x : (tensor<64xf32>) -> tensor<1x64xf32>
    %b2 = stablehlo.dynamic_update_slice %b, %row, %i, %zi : (tensor<RX64xf32>, tensor<1x64xf32>, tensor<i32>, tensor<i32>) -> tensor<RX64xf32>"""


def program(rows: int) -> str:
    return _TEMPLATE.replace("UPDATE", _WRITE).replace("RX64", f"{rows}x64")


def per_trip_us(source: str, trips: int) -> float:
    vmfb = ireec.compile_str(source, extra_args=FLAGS)
    config = rt.Config("local-sync")
    ctx = rt.SystemContext(config=config)
    ctx.add_vm_module(rt.VmModule.copy_buffer(config.vm_instance, vmfb))
    main = ctx.modules.module["main"]
    x = np.linspace(-1, 1, 64, dtype=np.float32)
    n = np.asarray(trips, np.int32)
    main(x, n)
    times = []
    for _ in range(7):
        start = time.perf_counter()
        out = main(x, n)
        np.asarray(out[0].to_host())
        times.append(time.perf_counter() - start)
    return float(np.median(times)) / trips * 1e6


def main():
    trips = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    print(f"{trips} trips of a loop carrying an R x 64 f32 buffer, local-sync:")
    for rows in (17, 257, 1025, 4097):
        us = per_trip_us(program(rows), trips)
        print(f"  R = {rows:5d} ({rows * 256 / 1024:7.1f} KB), one row written per trip: "
              f"{us:7.2f} us per trip")


if __name__ == "__main__":
    main()
