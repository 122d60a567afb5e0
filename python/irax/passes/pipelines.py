"""Every named pipeline of irax, in one place: ``jit``, eager transformations,
``Lowered.as_text`` stages and ``irax-opt -p <name>`` all read them from here.

    irax-opt traced.mlir -p irax-jit      # exactly what irax.jit compiles (donation too)

A name stands for its pipeline inside any pipeline text (``builtin.module(irax-default)``).
"""

from __future__ import annotations

#: name -> the passes it stands for
PIPELINES: dict[str, str] = {
    # what an eager transformation (grad outside jit) runs before the interpreter
    "irax-eager": "irax-expand-transforms, irax-shard",
    # the traced module to portable StableHLO
    "irax-to-stablehlo": "irax-expand-transforms, irax-partition, irax-shard, "
                         "irax-hoist-scan-inputs, irax-dce, irax-symbol-dce, "
                         "irax-lower-to-stablehlo",
    # what jit hands to IREE; without source locations, so that the compile cache does not
    # depend on line numbers (the "stablehlo" stage keeps them)
    "irax-jit": "irax-to-stablehlo, irax-legalize-iree, irax-loop-kernels, "
                "irax-split-reductions, strip-debuginfo",
    # the same for GPU targets: no one-thread kernels (vector loops, heapsorts)
    "irax-jit-gpu": "irax-to-stablehlo, irax-legalize-iree{sort-kernels=false}, "
                    "irax-loop-kernels{vectors=false}, strip-debuginfo",
    # irax-opt's full pipeline: verified, expanded, simplified and lowered
    "irax-default": "irax-verify, irax-expand-transforms, irax-partition, irax-shard, "
                    "irax-inline, irax-simplify, irax-lower-to-stablehlo",
}

#: ``jit(f).lower(x).as_text(stage)``: stage -> the pipeline that makes it from the traced
#: module (each stage's text is what ``irax-opt -p 'builtin.module(<pipeline>)'`` prints).
#: "stablehlo" is portable StableHLO; "iree" is what jit compiles.
STAGES: dict[str, str] = {
    "irax": "",
    "expanded": "irax-expand-transforms, irax-partition, irax-shard, irax-symbol-dce",
    "simplified": "irax-expand-transforms, irax-partition, irax-shard, irax-symbol-dce, "
                  "irax-inline, irax-simplify",
    "stablehlo": "irax-to-stablehlo",
    "iree": "irax-jit",
    "iree-gpu": "irax-jit-gpu",
}


def iree_stage(backend: str) -> str:
    """The stage a program for an IREE ``backend`` compiles: "iree" for CPUs ("llvm-cpu",
    "vmvx"), "iree-gpu" for the others."""
    return "iree" if backend in ("llvm-cpu", "vmvx") else "iree-gpu"

JIT = "builtin.module(irax-jit)"
EAGER = "builtin.module(irax-eager)"
