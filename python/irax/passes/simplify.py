"""irax-simplify: constant folding, algebraic identities, CSE and DCE, to a fixed point.

- Folding: an op whose operands are all ``irax.constant`` (and whose result is small) is
  evaluated with its class's NumPy rule and replaced by a constant.
- Identities that are exact in IEEE arithmetic: ``x * 1``, ``x / 1``, ``x - 0``,
  ``x + 0`` (integers only: ``-0.0 + 0.0`` is ``+0.0``), ``neg(neg(x))``, conversions
  to the same type, reshapes/broadcasts/transposes that change nothing, ``select`` on a
  constant predicate.
- Control flow: an ``irax.cond`` with a constant index becomes its taken branch; ops of a
  loop body that depend only on the loop's consts are hoisted out of the loop
  (``control_simplify.py``).
- ``irax-cse`` and ``irax-dce`` after each round.

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

from irax.passes.registry import ModulePass, Option, register_pass

FOLD_LIMIT = 1 << 14  # elements: larger results are left to the compiler


def _const_value(value, limit: int = FOLD_LIMIT):
    """The NumPy value of an ``irax.constant`` result (small ones only), else None."""
    from irax.dialect import mlir
    from irax.dialect.constant import Constant

    ir = mlir.ir()
    if not isinstance(value, ir.OpResult):
        return None
    op = value.owner
    if op.operation.name != Constant.name or mlir.aval_of(value).size > limit:
        return None
    return Constant.decode_attrs(op.operation)["value"]


def _splat(value, number) -> bool:
    v = _const_value(value)
    return v is not None and v.size > 0 and bool(np.all(v == number))


def _fold(op, cls) -> list | None:
    from irax.dialect import mlir

    if not op.operands or any(mlir.aval_of(r).size > FOLD_LIMIT for r in op.results):
        return None
    values = [_const_value(v) for v in op.operands]
    if any(v is None for v in values):
        return None
    attrs = cls.decode_attrs(op)
    outs = cls.evaluate_list(values, attrs, [mlir.aval_of(r) for r in op.results])
    from irax.dialect.builder import IRBuilder

    b = IRBuilder.before(op)
    return [b.constant(o) for o in outs]


def _identity(op, cls):
    """The operand an op reduces to, or None."""
    from irax.dialect import elementwise as E
    from irax.dialect import mlir
    from irax.dialect import shape as S

    ins = list(op.operands)
    same_type = len(op.results) == 1 and ins and ins[0].type == op.results[0].type
    if cls is E.Mul and same_type:
        return ins[0] if _splat(ins[1], 1) else ins[1] if _splat(ins[0], 1) else None
    if cls is E.Div and same_type and _splat(ins[1], 1):
        return ins[0]
    if cls is E.Sub and same_type and _splat(ins[1], 0):
        return ins[0]
    if cls is E.Add and same_type and mlir.aval_of(ins[0]).dtype.kind in "iu":
        return ins[0] if _splat(ins[1], 0) else ins[1] if _splat(ins[0], 0) else None
    if cls is E.Neg and isinstance(ins[0], mlir.ir().OpResult) and \
            ins[0].owner.operation.name == E.Neg.name:
        return ins[0].owner.operation.operands[0]
    if cls in (E.Convert, S.Reshape) and same_type:
        return ins[0]
    if cls is S.Transpose and same_type:
        perm = cls.decode_attrs(op)["permutation"]
        return ins[0] if perm == tuple(range(len(perm))) else None
    if cls is S.BroadcastInDim and same_type:
        dims = cls.decode_attrs(op)["broadcast_dimensions"]
        return ins[0] if dims == tuple(range(len(dims))) else None
    if cls is E.Select and len(ins) == 3:
        p = _const_value(ins[0])
        if p is not None and p.size and np.all(p) and ins[1].type == op.results[0].type:
            return ins[1]
        if p is not None and p.size and not np.any(p) and ins[2].type == op.results[0].type:
            return ins[2]
    return None


def simplify_block(block) -> int:
    from irax.dialect.base import lookup
    from irax.dialect.constant import Constant

    changed = 0
    for op in list(block.operations):
        cls = lookup(op.name)
        if cls is None or cls is Constant or len(op.regions) or cls.callee_of is not None \
                or not cls.infers_results:
            continue
        same = _identity(op, cls)
        if same is not None:
            op.results[0].replace_all_uses_with(same)
            op.erase()
            changed += 1
            continue
        folded = _fold(op, cls)
        if folded is not None:
            for old, new in zip(op.results, folded):
                old.replace_all_uses_with(new)
            op.erase()
            changed += 1
    return changed


@register_pass
class Simplify(ModulePass):
    """irax-simplify: constant folding, exact algebraic identities, CSE and DCE"""

    name = "irax-simplify"
    options = {"max-iterations": Option(int, 4, "rounds of simplification at most")}

    def run(self, module) -> None:
        from irax.dialect.funcs import function_blocks
        from irax.passes.control_simplify import simplify_control
        from irax.passes.cse import cse_module
        from irax.passes.dce import dce_module

        for _ in range(self.option("max-iterations")):
            changed = 0
            for block in list(function_blocks(module)):
                changed += simplify_block(block) + simplify_control(block)
            changed += cse_module(module) + dce_module(module)
            if not changed:
                break
