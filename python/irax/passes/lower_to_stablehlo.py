"""irax-lower-to-stablehlo: convert every irax op to StableHLO (each op's ``lower`` rule).

Before:
    %0 = "irax.sin"(%arg0) : (tensor<3xf32>) -> tensor<3xf32>
After:
    %0 = stablehlo.sine %arg0 : tensor<3xf32>

chlo ops produced by a rule (erf, lgamma, ...) are then legalized to StableHLO.
"""

from __future__ import annotations

from irax.lowering.stablehlo import lower_module
from irax.passes.registry import ModulePass, Option, register_pass


@register_pass
class LowerToStableHLO(ModulePass):
    """irax-lower-to-stablehlo: convert irax ops to verified StableHLO"""

    name = "irax-lower-to-stablehlo"
    options = {"legalize-chlo": Option(bool, True, "legalize chlo ops to StableHLO")}

    def run(self, module) -> None:
        lower_module(module, legalize_chlo=self.option("legalize-chlo"))
