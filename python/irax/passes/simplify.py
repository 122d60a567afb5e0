"""irax-simplify: each op's ``fold`` and ``canonicalize`` rules, CSE and DCE, to a fixed
point.

The decisions live on the op classes (``dialect/``); this pass only applies them:

- ``fold``: an op whose operands are all small constants becomes a constant (its NumPy
  rule); the ops with exact identities fold to an operand: ``x * 1``, ``x / 1``,
  ``x - 0``, ``x + 0`` (integers only: ``-0.0 + 0.0`` is ``+0.0``), ``neg(neg(x))``,
  conversions, reshapes, broadcasts and transposes that change nothing, ``select`` on a
  constant predicate.
- ``canonicalize``: an ``irax.cond`` with a constant index becomes its taken branch; ops of
  an ``irax.while``/``irax.scan`` body that depend only on the loop's consts are hoisted
  out of the loop.
- ``irax-cse`` and ``irax-dce`` after each round. Ops with side effects are never folded.

Before:
    %c = "irax.constant"() {value = dense<2.0> : tensor<f32>} : () -> tensor<f32>
    %d = "irax.mul"(%c, %c) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %one = "irax.constant"() {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
    %y = "irax.mul"(%x, %one) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %z = "irax.add"(%y, %d) : (tensor<f32>, tensor<f32>) -> tensor<f32>
After:
    %c = "irax.constant"() {value = dense<4.0> : tensor<f32>} : () -> tensor<f32>
    %z = "irax.add"(%x, %c) : (tensor<f32>, tensor<f32>) -> tensor<f32>
"""

from __future__ import annotations

import numpy as np

from irax.dialect import mlir
from irax.dialect.base import OpError, lookup
from irax.dialect.builder import IRBuilder
from irax.dialect.folding import FOLD_LIMIT, constant_of
from irax.dialect.funcs import function_blocks
from irax.passes.cse import cse_module
from irax.passes.dce import dce_module
from irax.passes.registry import ModulePass, Option, register_pass


def _foldable(cls) -> bool:
    return not (cls.constant_like or cls.region_op or cls.callee_of is not None
                or not cls.infers_results or cls.has_side_effects)


def fold_op(op, cls) -> bool:
    """Replaces ``op`` by what its ``fold`` rule returns; True if it did."""
    if any(mlir.aval_of(r).size > FOLD_LIMIT for r in op.results):
        return False
    operands, results = list(op.operands), list(op.results)
    try:
        folded = cls.fold(operands, [constant_of(v) for v in operands], results,
                          **cls.decode_attrs(op))
    except OpError:
        return False  # the op cannot be evaluated here (a collective of a pending vmap)
    if folded is None:
        return False
    b = IRBuilder.before(op, loc=op.location)
    for old, new in zip(results, folded):
        old.replace_all_uses_with(b.constant(new) if isinstance(new, np.ndarray) else new)
    op.erase()
    return True


def simplify_block(block) -> int:
    """Applies the fold and canonicalize rules to the ops of ``block``; returns the count
    of changes."""
    changed = 0
    for op in list(block.operations):
        cls = lookup(op.name)
        if cls is None:
            continue
        if cls.canonicalize is not None:
            changed += bool(cls.canonicalize(op, **cls.decode_attrs(op)))
        elif _foldable(cls):
            changed += fold_op(op, cls)
    return changed


@register_pass
class Simplify(ModulePass):
    """irax-simplify: the ops' fold and canonicalize rules, CSE and DCE"""

    name = "irax-simplify"
    options = {"max-iterations": Option(int, 4, "rounds of simplification at most",
                                        minimum=1)}

    def run(self, module) -> None:
        for _ in range(self.option("max-iterations")):
            changed = sum(simplify_block(block) for block in list(function_blocks(module)))
            changed += cse_module(module) + dce_module(module)
            if not changed:
                break
