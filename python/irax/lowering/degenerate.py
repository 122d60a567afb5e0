"""Ops over dimensions of size 0 or 1 that IREE 3.13 cannot compile, written out
(workarounds ``irax-legalize-iree`` applies):

- a ``stablehlo.dot_general`` contracting a dimension of size 0 (``a.T @ a`` of an f32[0,4]
  array): IREE 3.13's compiler dies of a floating-point exception on it (the whole
  process, not an error). Its value is zeros::

      %r = stablehlo.dot_general %x, %y, contracting_dims = [1] x [0]
             : (tensor<4x0xf32>, tensor<0x4xf32>) -> tensor<4x4xf32>
  becomes
      %z = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %r = stablehlo.broadcast_in_dim %z, dims = [] : (tensor<f32>) -> tensor<4x4xf32>

- a ``stablehlo.sort`` along a dimension of size 1 (``jnp.argsort`` of an f32[1,7] array
  along axis 0): IREE 3.13 fails ("'linalg.generic' op write affecting operations on
  global resources are restricted to workgroup distributed contexts"). It leaves its
  operands as they are.
"""

from __future__ import annotations

import numpy as np

from irax.dialect import mlir
from irax.dialect.linalg import DotGeneral
from irax.lowering.builder import builder_at, replace_op


def empty_contraction(op) -> bool:
    """Replaces ``op``, a ``stablehlo.dot_general`` of static shapes, by zeros when it
    contracts a dimension of size 0 (a real result: IREE compiles the complex case);
    returns whether it did."""
    lhs = mlir.aval_of(op.operands[0])
    out = mlir.aval_of(op.results[0])
    contracting = DotGeneral.raise_attrs(op)["lhs_contracting_dimensions"]
    if not lhs.is_static or not out.is_static or out.dtype.kind == "c" or \
            not any(lhs.shape[d] == 0 for d in contracting):
        return False
    lb = builder_at(op)
    zero = lb.constant(np.zeros((), out.dtype))
    if out.ndim:
        zero = lb.op("stablehlo.broadcast_in_dim", [zero], out, broadcast_dimensions=lb.i64s([]))
    replace_op(op, [zero])
    return True


def unit_sort(op, dimension: int) -> bool:
    """Replaces ``op``, a ``stablehlo.sort`` along ``dimension``, by its operands when that
    dimension has size 1 or 0; returns whether it did."""
    aval = mlir.aval_of(op.operands[0])
    if not aval.is_static or aval.shape[dimension] > 1:
        return False
    replace_op(op, list(op.operands))
    return True
