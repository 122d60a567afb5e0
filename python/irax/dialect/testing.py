"""Ops that exist to test the passes: registered only when ``irax-opt --test-ops`` imports
this module (as mlir-opt links its test dialect), never by ``import irax``.

    %y = "irax.test.effect"(%x) : (tensor<3xf32>) -> tensor<3xf32>

``irax.test.effect`` is an identity with side effects (as a debug print will be): DCE must
keep it unused, CSE must not merge two of them, loop-invariant code motion must not hoist
it and folding must not replace it.
"""

from __future__ import annotations

from irax.dialect.base import Linear, Op
from irax.dialect.elementwise import batch_elementwise


class TestEffect(Linear, Op):
    """An identity with side effects (for the passes' tests)."""

    name = "irax.test.effect"
    num_operands = 1
    has_side_effects = True

    @classmethod
    def infer(cls, x):
        return x

    @classmethod
    def evaluate(cls, x):
        return x

    @classmethod
    def lower(cls, lb, x):
        return lb.create("stablehlo.custom_call", [x], [lb.type(lb.out_avals[0])],
                         {"call_target_name": lb.attr('"irax.test.effect"'),
                          "has_side_effect": lb.attr("true")}).results[0]

    @classmethod
    def transpose(cls, b, ct, x):
        return (ct,)

    batch = classmethod(batch_elementwise)
