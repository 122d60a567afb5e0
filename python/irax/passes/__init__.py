"""irax passes: one file per pass, named after its command-line name, and the registry
and pipeline parser shared by the Python API and ``irax-opt``."""

from irax.passes import autodiff, lower_to_stablehlo, vectorize, verify  # noqa: F401,E402
from irax.passes.registry import PASSES, ModulePass, parse_pipeline, register_pass, run_pipeline  # noqa: F401,E501
