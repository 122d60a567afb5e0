"""What ``fold`` rules read: constant operands and the ops that produce values.

    class Mul(ElementwiseBinary):
        @classmethod
        def fold(cls, operands, consts, results):
            x, y = operands
            if is_splat(consts[1], 1) and same_type(x, results[0]):   # x * 1 -> x
                return [x]
            return super().fold(operands, consts, results)
"""

from __future__ import annotations

import numpy as np

from irax.dialect import mlir
from irax.dialect.base import lookup

#: elements: constants larger than this are neither read nor made by folding (left to
#: the compiler, which folds them without growing the IR)
FOLD_LIMIT = 1 << 14


def constant_of(value, limit: int = FOLD_LIMIT) -> np.ndarray | None:
    """The NumPy value of ``value`` when a ConstantLike op of at most ``limit`` elements
    defines it, else None."""
    if not isinstance(value, mlir.ir().OpResult):
        return None
    op = value.owner.operation
    cls = lookup(op.name)
    if cls is None or not cls.constant_like or mlir.aval_of(value).size > limit:
        return None
    return cls.decode_attrs(op)["value"]


def is_splat(const: np.ndarray | None, number) -> bool:
    """Whether ``const`` is a known, non-empty constant whose every element is ``number``."""
    return const is not None and const.size > 0 and bool(np.all(const == number))


def producer(value):
    """``(op class, operation)`` of the irax op that defines ``value``, or ``(None, None)``
    (block arguments and other dialects' ops)."""
    if not isinstance(value, mlir.ir().OpResult):
        return None, None
    op = value.owner.operation
    cls = lookup(op.name)
    return (cls, op) if cls is not None else (None, None)


def same_type(value, result) -> bool:
    """Whether ``value`` can replace ``result`` (an identity fold)."""
    return value.type == result.type
