"""irax-verify: run the irax verifier (types, attributes, dominance, callees).

Invalid IR fails the pipeline with a located diagnostic, e.g.

    "irax.add"(%a, %b) : (tensor<3xf32>, tensor<4xf32>) -> tensor<3xf32>
    loc: error: 'irax.add' op expected operands of the same shape and dtype, but got
                float32[3] and float32[4]
"""

from __future__ import annotations

from irax.dialect.verifier import verify_module
from irax.passes.registry import ModulePass, register_pass


@register_pass
class Verify(ModulePass):
    """irax-verify: check irax ops (types, attributes, dominance, callees)"""

    name = "irax-verify"

    def run(self, module) -> None:
        verify_module(module)
