"""irax-cse: merge identical irax ops (same op, operands, attributes and result types);
ops with side effects (``dialect/effects.py``) are never merged.

MLIR's CSE never merges unregistered ops, so irax needs this pass. Attributes are
compared through each op class's decoded values, so equal constants merge too.

Before:
    %0 = "irax.mul"(%x, %y) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %1 = "irax.mul"(%x, %y) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %2 = "irax.add"(%0, %1) : (tensor<f32>, tensor<f32>) -> tensor<f32>
After:
    %0 = "irax.mul"(%x, %y) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %2 = "irax.add"(%0, %0) : (tensor<f32>, tensor<f32>) -> tensor<f32>
"""

from __future__ import annotations

import numpy as np

from irax.dialect.base import lookup
from irax.dialect.effects import Effects
from irax.dialect.funcs import function_blocks
from irax.passes.registry import ModulePass, register_pass


def _freeze(value):
    if isinstance(value, np.ndarray):
        if value.size > 1 and not any(value.strides):  # a splat: its one element
            return ("splat", value.dtype.str, value.shape, value[(0,) * value.ndim].tobytes())
        return ("array", value.dtype.str, value.shape, value.tobytes())
    if isinstance(value, (list, tuple)):
        return tuple(_freeze(v) for v in value)
    if isinstance(value, np.dtype):
        return ("dtype", value.str, value.name)
    return value


def op_key(op, effects: Effects):
    """A hashable identity of a side-effect-free irax op, or None if it has regions or
    side effects, or is not an irax op."""
    cls = lookup(op.name)
    if cls is None or len(op.regions) or not len(op.results) or effects.has_effects(op):
        return None
    attrs = cls.decode_attrs(op)
    return (op.name, tuple(op.operands), tuple(str(r.type) for r in op.results),
            tuple(sorted((k, _freeze(v)) for k, v in attrs.items())))


def cse_block(block, effects: Effects) -> int:
    seen: dict = {}
    merged = 0
    for op in list(block.operations):
        key = op_key(op, effects)
        if key is None:
            continue
        prev = seen.get(key)
        if prev is None:
            seen[key] = op
            continue
        for old, new in zip(op.results, prev.results):
            old.replace_all_uses_with(new)
        op.erase()
        merged += 1
    return merged


def cse_module(module) -> int:
    effects = Effects(module)
    return sum(cse_block(block, effects) for block in list(function_blocks(module)))


@register_pass
class CSE(ModulePass):
    """irax-cse: merge identical irax ops"""

    name = "irax-cse"

    def run(self, module) -> None:
        cse_module(module)
