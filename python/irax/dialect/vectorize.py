"""Vectorization: ``irax.vmap``, expanded by ``irax-vectorize`` (each op's ``batch`` rule).

    %y = "irax.vmap"(%w, %xs) {callee = @f, in_axes = array<i64: -1, 0>,
           out_axes = array<i64: 0>, axis_size = 8 : i64, axis_name = "i"}
           : (tensor<3x4xf32>, tensor<8x3xf32>) -> tensor<8x4xf32>
"""

from __future__ import annotations

from irax.dialect import attrs as A
from irax.dialect.base import OpError
from irax.dialect.transform import TransformOp


class MapOp(TransformOp):
    """Base of the maps over an axis (``irax.vmap``, ``irax.pmap``): the callee applied to
    every slice along ``in_axes``, results stacked along ``out_axes``.

    ``in_axes[i]`` is the mapped axis of operand ``i`` (-1: not mapped); each result gets
    its mapped axis at ``out_axes[j]`` (-1: the result must not depend on the mapped axis
    and keeps its shape). ``axis_name`` names the axis for collectives."""

    attributes = {"callee": A.Symbol, "in_axes": A.I64Array, "out_axes": A.I64Array,
                  "axis_size": A.I64, "axis_name": A.Str}
    defaults = {"axis_name": ""}

    @classmethod
    def _check(cls, ins, outs, in_axes, out_axes, axis_size):
        if len(in_axes) != len(ins):
            raise OpError(f"expected {len(ins)} in_axes, but got {len(in_axes)}")
        if len(out_axes) != len(outs):
            raise OpError(f"expected {len(outs)} out_axes, but got {len(out_axes)}")
        if axis_size < 0:
            raise OpError(f"expected a non-negative axis_size, but got {axis_size}")
        for i, (a, ax) in enumerate(zip(ins, in_axes)):
            if not -1 <= ax <= a.ndim:
                raise OpError(f"in_axes[{i}] = {ax} is out of range for operand of rank "
                              f"{a.ndim + 1}")
        for j, (a, ax) in enumerate(zip(outs, out_axes)):
            if not -1 <= ax <= a.ndim:
                raise OpError(f"out_axes[{j}] = {ax} is out of range for a result of rank "
                              f"{a.ndim + 1}")

    @classmethod
    def operand_avals(cls, ins, outs, in_axes, out_axes, axis_size, **_):
        cls._check(ins, outs, in_axes, out_axes, axis_size)
        return [a if ax < 0 else a.insert_axis(ax, axis_size) for a, ax in zip(ins, in_axes)]

    @classmethod
    def result_avals(cls, ins, outs, in_axes, out_axes, axis_size, **_):
        cls._check(ins, outs, in_axes, out_axes, axis_size)
        return [a if ax < 0 else a.insert_axis(ax, axis_size) for a, ax in zip(outs, out_axes)]


def axis_dims(axes) -> tuple:
    """``in_axes``/``out_axes`` attribute values as batch dims (-1 becomes None)."""
    return tuple(None if a < 0 else a for a in axes)


class Vmap(MapOp):
    """Vectorization: the callee mapped over an axis of size ``axis_size``, every op
    rewritten by its batching rule (no loop over examples).

        %y = "irax.vmap"(%w, %xs) {callee = @f, in_axes = array<i64: -1, 0>,
               out_axes = array<i64: 0>, axis_size = 8 : i64, axis_name = "i"}
               : (tensor<3x4xf32>, tensor<8x3xf32>) -> tensor<8x4xf32>
    """

    name = "irax.vmap"
    expanded_by = "irax-vectorize"

    @classmethod
    def expand(cls, ctx, op, callee, in_axes, out_axes, axis_size, axis_name):
        return ctx.vmap(callee, axis_dims(in_axes), axis_dims(out_axes), axis_size, axis_name)
