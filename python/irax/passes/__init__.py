"""irax passes: one file per pass, named after its command-line name, and the registry
and pipeline parser shared by the Python API and ``irax-opt``."""

from irax.passes import (  # noqa: F401,E402 - register the passes
    autodiff,
    cse,
    dce,
    expand_libm,
    expand_transforms,
    hoist_scan_inputs,
    inline,
    legalize_iree,
    loop_kernels,
    lower_to_stablehlo,
    output_storage,
    partition,
    raise_stablehlo,
    shard,
    simplify,
    split_reductions,
    symbol_dce,
    vectorize,
    verify,
)
from irax.passes.registry import PASSES, ModulePass, parse_pipeline, register_pass, run_pipeline  # noqa: F401,E501
