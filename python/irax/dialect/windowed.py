"""Window reductions: ``irax.reduce_window_sum``, ``irax.reduce_window_max``,
``irax.reduce_window_min`` (JAX's ``reduce_window_{sum,max,min}_p``).

The operand is dilated (``base_dilation - 1`` holes between neighbours) and padded
(``padding_low``/``padding_high``, negative values crop) with the reduction's identity; each
window of ``window_dimensions`` elements (``window_dilation - 1`` skipped between taps),
moved by ``window_strides``, is reduced to one element. Each lowers to one
``stablehlo.reduce_window`` whose region combines two rank-0 values.

    %y = "irax.reduce_window_max"(%x) {window_dimensions = array<i64: 2, 2>,
           window_strides = array<i64: 2, 2>, padding_low = array<i64: 0, 0>,
           padding_high = array<i64: 0, 0>, base_dilation = array<i64: 1, 1>,
           window_dilation = array<i64: 1, 1>} : (tensor<4x4xf32>) -> tensor<2x2xf32>
"""

from __future__ import annotations

import itertools

import numpy as np

from irax.core import dtypes
from irax.core.abstract import ShapedArray
from irax.dialect import attrs as A
from irax.dialect import sharding as S
from irax.dialect.base import Linear, Op, OpError
from irax.dialect.reduction import _highest, _lowest

WINDOW_ATTRS = ("window_dimensions", "window_strides", "padding_low", "padding_high",
                "base_dilation", "window_dilation")


def dilate_shape(shape, dilation) -> tuple[int, ...]:
    """The extent of ``shape`` with ``dilation - 1`` holes between neighbours."""
    return tuple(0 if d == 0 else 1 + r * (d - 1) for d, r in zip(shape, dilation))


def window_shape(shape, window_dimensions, window_strides, padding_low, padding_high,
                 base_dilation, window_dilation) -> tuple[int, ...]:
    """The result shape of a window reduction (JAX's ``reduce_window_shape_tuple``)."""
    padded = [d + lo + hi for d, lo, hi in
              zip(dilate_shape(shape, base_dilation), padding_low, padding_high)]
    window = dilate_shape(window_dimensions, window_dilation)
    return tuple(0 if p < w else (p - w) // s + 1
                 for p, w, s in zip(padded, window, window_strides))


def check_window(x: ShapedArray, window_dimensions, window_strides, padding_low,
                 padding_high, base_dilation, window_dilation) -> None:
    """Raises ``OpError`` unless every attribute has the operand's rank and sane values."""
    for key, values in zip(WINDOW_ATTRS, (window_dimensions, window_strides, padding_low,
                                          padding_high, base_dilation, window_dilation)):
        if len(values) != x.ndim:
            raise OpError(f"expected {key} of length {x.ndim}, but got {list(values)}")
        if key not in ("padding_low", "padding_high") and any(v < 1 for v in values):
            raise OpError(f"expected positive {key}, but got {list(values)}")
    padded = [d + lo + hi for d, lo, hi in
              zip(dilate_shape(x.shape, base_dilation), padding_low, padding_high)]
    if any(p < 0 for p in padded):
        raise OpError(f"expected a non-negative padded shape, but got {padded}")


def dilate_and_pad_numpy(x: np.ndarray, fill, padding_low, padding_high, base_dilation):
    """``x`` dilated and padded with ``fill`` (NumPy), negative padding cropping."""
    full = dilate_shape(x.shape, base_dilation)
    grown = [f + max(lo, 0) + max(hi, 0) for f, lo, hi in zip(full, padding_low, padding_high)]
    out = np.full(grown, fill, dtype=x.dtype)
    place = tuple(slice(max(lo, 0), max(lo, 0) + f, r)
                  for lo, f, r in zip(padding_low, full, base_dilation))
    out[place] = x
    crop = tuple(slice(max(-lo, 0), g - max(-hi, 0))
                 for lo, hi, g in zip(padding_low, padding_high, grown))
    return out[crop]


def window_taps(out_shape, window_dimensions, window_strides, window_dilation):
    """``(offset, slices)`` per window tap, in row-major window order: the slices of the
    dilated, padded operand that hold that tap of every window."""
    for offset in itertools.product(*[range(w) for w in window_dimensions]):
        starts = [o * r for o, r in zip(offset, window_dilation)]
        yield offset, tuple(slice(s, s + (n - 1) * st + 1, st) if n else slice(0, 0, 1)
                            for s, n, st in zip(starts, out_shape, window_strides))


def _padding_attr(lb, low, high, rank: int):
    rows = ", ".join(f"[{lo}, {hi}]" for lo, hi in zip(low, high))
    return lb.attr(f"dense<[{rows}]> : tensor<{rank}x2xi64>" if rank else
                   "dense<> : tensor<0x2xi64>")


class WindowReduction(Op):
    """``y[i] = combine over the window at i`` of the dilated, padded operand. Members set
    ``combiner`` (the StableHLO op of the region; ``bool_combiner`` for booleans, which
    only max and min accept), ``identity(dtype)`` (the init and padding value) and
    ``combine_numpy``. Operands are real: ``lax.reduce_window`` sums complex numbers as
    two real window sums (IREE 3.13 crashes compiling a padded complex reduce_window)."""
    shard = classmethod(S.replicated)

    num_operands = 1
    attributes = {key: A.I64Array for key in WINDOW_ATTRS}
    combiner: str = ""
    bool_combiner: str = ""

    @staticmethod
    def identity(dtype):
        raise NotImplementedError

    @staticmethod
    def combine_numpy(a, b):
        raise NotImplementedError

    @classmethod
    def infer(cls, x, **w):
        if dtypes.is_complex(x.dtype) or (dtypes.is_bool(x.dtype) and not cls.bool_combiner):
            raise OpError(f"expected {'real or boolean' if cls.bool_combiner else 'real'} "
                          f"operands, but got {x.str_short()}")
        check_window(x, **w)
        return ShapedArray(window_shape(x.shape, **w), x.dtype, x.weak_type)

    @classmethod
    def evaluate(cls, x, **w):
        dtype = x.dtype
        if dtype in dtypes.LOW_PRECISION_FLOATS:
            x = x.astype(np.float32)
        init = np.array(cls.identity(dtype)).astype(x.dtype)
        xp = dilate_and_pad_numpy(x, init, w["padding_low"], w["padding_high"],
                                  w["base_dilation"])
        out_shape = window_shape(x.shape, **w)
        acc = np.full(out_shape, init, x.dtype)
        with np.errstate(all="ignore"):
            for _, where in window_taps(out_shape, w["window_dimensions"],
                                        w["window_strides"], w["window_dilation"]):
                acc = cls.combine_numpy(acc, xp[where]).astype(x.dtype)
        return acc.astype(dtype)

    @classmethod
    def lower(cls, lb, x, **w):
        out = lb.out_avals[0]
        dtype = out.dtype
        rank = len(w["window_dimensions"])
        init = lb.constant(np.array(cls.identity(dtype)).astype(dtype))
        attrs = {key: lb.i64s(w[key]) for key in ("window_dimensions", "window_strides")}
        attrs["base_dilations"] = lb.i64s(w["base_dilation"])
        attrs["window_dilations"] = lb.i64s(w["window_dilation"])
        attrs["padding"] = _padding_attr(lb, w["padding_low"], w["padding_high"], rank)
        op = lb.create("stablehlo.reduce_window", [x, init], [lb.type(out)], attrs, regions=1)
        block, body = lb.scalar_block(op, 0, [dtype])
        combiner = cls.bool_combiner if dtypes.is_bool(dtype) else cls.combiner
        body.ret([body.op(combiner, list(block.arguments), ShapedArray((), dtype))])
        return op.results[0]

    @classmethod
    def batch(cls, b, args, dims, **w):
        """A window of 1 (no stride, padding or dilation) along the batch dim."""
        (x,), (d,) = args, dims
        fill = {"padding_low": 0, "padding_high": 0}
        new = {k: (*v[:d], fill.get(k, 1), *v[d:]) for k, v in w.items()}
        return b.emit(cls, [x], **new), [d]


class ReduceWindowSum(Linear, WindowReduction):
    """Sum over windows (``jax.lax``'s ``reduce_window_sum_p``).

        %y = "irax.reduce_window_sum"(%x) {window_dimensions = array<i64: 3>,
               window_strides = array<i64: 1>, padding_low = array<i64: 1>,
               padding_high = array<i64: 1>, base_dilation = array<i64: 1>,
               window_dilation = array<i64: 1>} : (tensor<5xf32>) -> tensor<5xf32>

    Linear; its transpose is a window sum of the cotangent dilated by the strides and
    padded so that every operand element sees the windows that held it."""

    name = "irax.reduce_window_sum"
    combiner = "stablehlo.add"
    identity = staticmethod(lambda dtype: 0)
    combine_numpy = staticmethod(np.add)

    @classmethod
    def transpose(cls, b, ct, x, **w):
        shape = b.aval(x).shape
        rank = len(shape)
        ct_shape = b.aval(ct).shape
        window = dilate_shape(w["window_dimensions"], w["window_dilation"])
        dilated_in = dilate_shape(shape, w["base_dilation"])
        dilated_ct = dilate_shape(ct_shape, w["window_strides"])
        before = [k - lo - 1 for k, lo in zip(window, w["padding_low"])]
        after = [i + k - 1 - c - lo for i, k, c, lo in
                 zip(dilated_in, window, dilated_ct, before)]
        zero = b.zeros(ShapedArray((), b.aval(ct).dtype))
        padded = b.pad(ct, zero, edge_padding_low=before, edge_padding_high=after,
                       interior_padding=[s - 1 for s in w["window_strides"]])
        out = b.emit(cls, [padded], window_dimensions=w["window_dimensions"],
                     window_strides=w["base_dilation"], padding_low=[0] * rank,
                     padding_high=[0] * rank, base_dilation=[1] * rank,
                     window_dilation=w["window_dilation"])[0]
        return (out,)


def _chooser_jvp(cls, b, primals, tangents, outs, **w):
    """JAX's ``select_and_gather_add``: each window's tangent is that of its FIRST element
    (row-major window order) equal to the result. Built from pads, strided slices and
    selects, so it is linear in the tangent and transposes to a scatter-add."""
    x, y, t = primals[0], outs[0], tangents[0]
    xa = b.aval(x)
    ya = b.aval(y)
    pad = dict(edge_padding_low=w["padding_low"], edge_padding_high=w["padding_high"],
               interior_padding=[r - 1 for r in w["base_dilation"]])
    init = np.array(cls.identity(xa.dtype)).astype(xa.dtype)
    xp = b.pad(x, b.full(ShapedArray((), xa.dtype), init), **pad)
    tp = b.pad(b.instantiate(t, xa), b.zeros(ShapedArray((), xa.dtype)), **pad)
    acc = b.zeros(ya)
    taps = list(window_taps(ya.shape, w["window_dimensions"], w["window_strides"],
                            w["window_dilation"]))
    for _, where in reversed(taps):  # the first tap is selected last: it wins ties
        start = [s.start for s in where]
        limit = [s.stop for s in where]
        strides = [s.step for s in where]
        xs = b.slice(xp, start_indices=start, limit_indices=limit, strides=strides)
        ts = b.slice(tp, start_indices=start, limit_indices=limit, strides=strides)
        acc = b.select(b.compare(xs, y, direction="EQ"), ts, acc)
    return acc


class ReduceWindowMax(WindowReduction):
    """Maximum over windows (``reduce_window_max_p``); booleans combine with ``or``.

        %y = "irax.reduce_window_max"(%x) {window_dimensions = array<i64: 2>,
               window_strides = array<i64: 2>, padding_low = array<i64: 0>,
               padding_high = array<i64: 0>, base_dilation = array<i64: 1>,
               window_dilation = array<i64: 1>} : (tensor<4xf32>) -> tensor<2xf32>

    Derivative: the tangent of the first window element equal to the maximum (JAX)."""

    name = "irax.reduce_window_max"
    combiner = "stablehlo.maximum"
    bool_combiner = "stablehlo.or"
    identity = staticmethod(_lowest)
    combine_numpy = staticmethod(np.maximum)
    jvp = classmethod(_chooser_jvp)


class ReduceWindowMin(WindowReduction):
    """Minimum over windows (``reduce_window_min_p``); booleans combine with ``and``.

        %y = "irax.reduce_window_min"(%x) {window_dimensions = array<i64: 2>,
               window_strides = array<i64: 1>, padding_low = array<i64: 0>,
               padding_high = array<i64: 0>, base_dilation = array<i64: 1>,
               window_dilation = array<i64: 1>} : (tensor<4xi32>) -> tensor<3xi32>

    Derivative: the tangent of the first window element equal to the minimum (JAX)."""

    name = "irax.reduce_window_min"
    combiner = "stablehlo.minimum"
    bool_combiner = "stablehlo.and"
    identity = staticmethod(_highest)
    combine_numpy = staticmethod(np.minimum)
    jvp = classmethod(_chooser_jvp)
