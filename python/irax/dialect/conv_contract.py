"""Convolutions with few window positions or few output positions, as one matrix product.

IREE 3.13's CPU code for ``linalg.conv_2d_nhwc_hwcf`` with few channels is slow (the
second convolution of benchmarks/cnn.py, 32x14x14x8 by 3x3x8x16: 5.0 ms against JAX's
0.6 ms on 2 cores), and its code for the convolutions that reverse mode makes is slower
still: the input's gradient convolves with the kernel's features swapped (13.6 ms), the
kernel's gradient is a convolution whose 14x14 "window" is the output gradient and whose
output is 3x3 (9.4 ms). Matrix products are what IREE compiles best, and a convolution is
one once its patches are laid side by side:

- **few window positions** (``prod(kernel spatial) <= outputs``), im2col: the padded
  input, channels last, sliced once per window position (strided by the window stride,
  offset by the position times the kernel dilation) and concatenated along the channels
  gives ``[batch, out spatial..., window * in features]``; contracted with the kernel as
  ``[window * in features, out features]``.
- **few output positions** (the kernel's gradient): the input window of each output
  position, stacked, gives ``[outputs, batch, window..., in features]``; contracted with
  the kernel over its window and input features.

Then the result is laid out as the convolution's. Only ungrouped convolutions without
input dilation, of static shape, floating point, with at most ``MAX_PIECES`` slices and
patches of at most ``MAX_PATCH_ELEMENTS`` elements, at least ``MIN_MACS`` multiply-adds,
and im2col only from ``MIN_CHANNELS``
input and output features; the rest stays a ``stablehlo.convolution``. Measured on 2 cores
(2026-12-06, jit, warm): that second convolution 5.0 -> 0.50 ms (JAX 0.43), its input's
gradient 13.6 -> 1.8 ms (JAX 1.1), its kernel's 9.4 -> 1.3 ms (JAX 1.2). (Sums run in
another order than IREE's convolution: last-bit differences, as between any two
convolution algorithms.)

    conv(x: 32x14x14x8, k: 3x3x8x16, SAME)  ->
      %p = pad(x)                                      // 32x16x16x8
      %s_ij = slice(%p, [0, i, j, 0], [32, i + 14, j + 14, 8])      // 9 of them
      %c = concatenate(%s_00 ... %s_22, dim = 3)       // 32x14x14x72
      %y = dot_general(%c, reshape(k, 72x16))          // 32x14x14x16
"""

from __future__ import annotations

import itertools
import math

from irax.core import dtypes
from irax.dialect import shape as S
from irax.dialect.linalg_arrays import HloArrays

#: most slices one convolution becomes, and most elements of its patches
MAX_PIECES = 49
MAX_PATCH_ELEMENTS = 1 << 23
#: fewest multiply-adds: smaller convolutions are fast either way, and compile faster as
#: one convolution than as many slices
MIN_MACS = 1 << 17
#: fewest input and output features for im2col: with fewer, the slices are thin strided
#: copies or the product a skinny one (the first convolution of benchmarks/cnn.py, one
#: input channel: 1.3 ms as a convolution, up to 5.7 ms as im2col; its input's gradient,
#: one output channel: 2.6 against 4.0 ms)
MIN_CHANNELS = 4


def lower(lb, lhs, rhs, lhs_aval, rhs_aval, out_aval, *, window_strides, padding,
          lhs_dilation, rhs_dilation, lhs_spec, rhs_spec, out_spec, feature_group_count,
          batch_group_count):
    """The convolution as slices and one ``dot_general``, or None where it does not apply
    (the caller then emits ``stablehlo.convolution``)."""
    dtype = lhs_aval.dtype
    if feature_group_count != 1 or batch_group_count != 1 or any(d != 1 for d in lhs_dilation) \
            or not dtypes.is_float(dtype) or not (lhs_aval.is_static and rhs_aval.is_static):
        return None
    n = len(window_strides)
    b, ci = lhs_aval.shape[lhs_spec[0]], lhs_aval.shape[lhs_spec[1]]
    co = rhs_aval.shape[rhs_spec[0]]
    ks = [rhs_aval.shape[d] for d in rhs_spec[2:]]
    os_ = [out_aval.shape[d] for d in out_spec[2:]]
    windows, outputs = math.prod(ks), math.prod(os_)
    if 0 in (b, ci, co, windows, outputs) or min(windows, outputs) > MAX_PIECES:
        return None
    if b * co * outputs * windows * ci < MIN_MACS:
        return None
    pieces = min(windows, outputs)
    few_windows = windows <= outputs
    if few_windows and min(ci, co) < MIN_CHANNELS:
        return None
    patch = pieces * b * ci * (outputs if few_windows else windows)
    if patch > MAX_PATCH_ELEMENTS:
        return None
    # the ops' own lower rules, through the array helpers the linalg kernels use
    h = HloArrays(lb)
    # the input channels last: [b, spatial..., ci], padded (negative padding crops)
    x = h.transpose(lhs, [lhs_spec[0], *lhs_spec[2:], lhs_spec[1]])
    pads = [(padding[2 * i], padding[2 * i + 1]) for i in range(n)]   # (low, high) a dim
    if any(lo or hi for lo, hi in pads):
        x = h.pad(x, [(0, 0), *pads, (0, 0)])
    # the kernel as [spatial..., ci, co]
    k = h.transpose(rhs, [*rhs_spec[2:], rhs_spec[1], rhs_spec[0]])

    def window(start, limit, strides):     # [b, spatial..., ci] between start and limit
        return h.one(S.Slice, x, start_indices=(0, *start, 0), limit_indices=(b, *limit, ci),
                     strides=(1, *strides, 1))

    if few_windows:
        cols = []
        for pos in itertools.product(*[range(w) for w in ks]):
            start = [p * d for p, d in zip(pos, rhs_dilation)]
            limit = [s + (o - 1) * st + 1 for s, o, st in zip(start, os_, window_strides)]
            cols.append(window(start, limit, window_strides))
        cols = h.concatenate(cols, n + 1)                  # [b, os..., windows * ci]
        km = h.reshape(k, (windows * ci, co))
        y = h.dot_general(cols, km, ((n + 1,), (0,)))      # [b, os..., co]
        canon = h.transpose(y, [0, n + 1, *range(1, n + 1)])
    else:
        wins = []
        for pos in itertools.product(*[range(o) for o in os_]):
            start = [p * st for p, st in zip(pos, window_strides)]
            limit = [s + (w - 1) * d + 1 for s, w, d in zip(start, ks, rhs_dilation)]
            wins.append(h.reshape(window(start, limit, rhs_dilation), (1, b, *ks, ci)))
        wins = h.concatenate(wins, 0)                      # [outputs, b, ks..., ci]
        y = h.dot_general(wins, k, (tuple(range(2, n + 3)), tuple(range(n + 1))))
        y = h.reshape(y, (*os_, b, co))
        canon = h.transpose(y, [n, n + 1, *range(n)])
    # canon is [b, co, os...]: to the output's layout
    inv = [0] * (n + 2)
    for i, d in enumerate(out_spec):
        inv[d] = i
    return h.transpose(canon, inv)
