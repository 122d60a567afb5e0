"""Convolution: conv_general_dilated (XLA's / StableHLO's ``convolution``).

    %y = "irax.conv_general_dilated"(%x, %w) {window_strides = array<i64: 1, 1>,
           padding = array<i64: 0, 0, 0, 0>, lhs_dilation = array<i64: 1, 1>,
           rhs_dilation = array<i64: 1, 1>, lhs_spec = array<i64: 0, 1, 2, 3>,
           rhs_spec = array<i64: 0, 1, 2, 3>, out_spec = array<i64: 0, 1, 2, 3>}
           : (tensor<1x2x5x5xf32>, tensor<3x2x2x2xf32>) -> tensor<1x3x4x4xf32>
"""

from __future__ import annotations

import math

import numpy as np

from irax.core import dtypes
from irax.core.abstract import ShapedArray
from irax.core.config import config
from irax.dialect import attrs as A
from irax.dialect import conv_contract, mlir
from irax.dialect import sharding as S
from irax.dialect.base import Op, OpError, weak_of
from irax.dialect.shape import check_dims


def dilate_dim(d: int, r: int) -> int:
    """The size of a dimension of ``d`` elements with ``r - 1`` zeros between them."""
    return 0 if d == 0 else 1 + r * (d - 1)


def stride_dim(d: int, k: int, s: int) -> int:
    """How many windows of ``k`` fit into ``d`` elements with stride ``s``."""
    return max(0, (d - k) // s + 1) if d >= k else 0


def pairs(padding) -> list[tuple[int, int]]:
    """The flat ``padding`` attribute as (low, high) pairs."""
    return [(padding[2 * i], padding[2 * i + 1]) for i in range(len(padding) // 2)]


def conv_out_shape(lhs_shape, rhs_shape, *, window_strides, padding, lhs_dilation,
                   rhs_dilation, lhs_spec, rhs_spec, out_spec, batch_group_count, **_):
    """The result shape, in the output's own dimension order."""
    sp_l = [dilate_dim(lhs_shape[d], r) for d, r in zip(lhs_spec[2:], lhs_dilation)]
    sp_k = [dilate_dim(rhs_shape[d], r) for d, r in zip(rhs_spec[2:], rhs_dilation)]
    spatial = [stride_dim(n + lo + hi, k, s)
               for n, k, s, (lo, hi) in zip(sp_l, sp_k, window_strides, pairs(padding))]
    canon = [lhs_shape[lhs_spec[0]] // batch_group_count, rhs_shape[rhs_spec[0]], *spatial]
    out = [0] * len(canon)
    for i, d in enumerate(out_spec):
        out[d] = canon[i]
    return tuple(out)


class ConvGeneralDilated(Op):
    """General dilated convolution (``jax.lax.conv_general_dilated_p``).

    ``lhs_spec`` is (batch, feature, spatial...) of the input, ``rhs_spec`` (output
    feature, input feature, spatial...) of the kernel, ``out_spec`` (batch, feature,
    spatial...) of the result, as in JAX's ``ConvDimensionNumbers``; ``padding`` is the
    flat (low, high) pairs, one per spatial dimension (negative values crop). Operands
    have one non-boolean dtype, which the result keeps; integers wrap.
    """

    name = "irax.conv_general_dilated"

    @classmethod
    def shard(cls, specs, avals, outs, mesh, *, lhs_spec, out_spec, batch_group_count,
              **attrs):
        """The input's batch dimension keeps its axes (data parallelism); the rest whole."""
        dims = {lhs_spec[0]: out_spec[0]} if batch_group_count == 1 else {}
        need, out = S.carry(specs[0], avals[0].ndim, outs[0].ndim, dims)
        return S.ShardPlan([need, ()], [out])
    num_operands = 2
    attributes = {"window_strides": A.I64Array, "padding": A.I64Array,
                  "lhs_dilation": A.I64Array, "rhs_dilation": A.I64Array,
                  "lhs_spec": A.I64Array, "rhs_spec": A.I64Array, "out_spec": A.I64Array,
                  "feature_group_count": A.I64, "batch_group_count": A.I64}
    defaults = {"feature_group_count": 1, "batch_group_count": 1}

    @classmethod
    def multiply_adds(cls, avals, outs, *, rhs_spec, **attrs) -> int:
        """Each result element sums a kernel window over the input features of its
        group: the kernel's elements per output feature."""
        rhs = avals[1]
        return math.prod(outs[0].shape) * math.prod(rhs.shape) // max(rhs.shape[rhs_spec[0]], 1)

    @classmethod
    def infer(cls, lhs, rhs, **attrs):
        if lhs.dtype != rhs.dtype:
            raise OpError(f"expected operands of the same dtype, but got {lhs.str_short()} "
                          f"and {rhs.str_short()}")
        if dtypes.is_bool(lhs.dtype):
            raise OpError(f"expected numeric operands, but got {lhs.str_short()}")
        check_conv(lhs.shape, rhs.shape, **attrs)
        return ShapedArray(conv_out_shape(lhs.shape, rhs.shape, **attrs), lhs.dtype,
                           weak_of(lhs, rhs))

    @classmethod
    def evaluate(cls, lhs, rhs, **attrs):
        return conv_reference(lhs, rhs, **attrs)

    @classmethod
    def lower(cls, lb, lhs, rhs, **attrs):
        if config.irax_conv_as_matmul:   # few window or output positions: one matrix product
            y = conv_contract.lower(lb, lhs, rhs, mlir.aval_of(lhs), mlir.aval_of(rhs),
                                    lb.out_avals[0], **attrs)
            if y is not None:
                return y
        return _convolution(lb, lhs, rhs, **attrs)

    @classmethod
    def jvp(cls, b, primals, tangents, outs, **attrs):
        (x, y), (dx, dy) = primals, tangents
        left = None if dx is None else b.conv_general_dilated(dx, y, **attrs)
        right = None if dy is None else b.conv_general_dilated(x, dy, **attrs)
        return b.add_any(left, right)

    @classmethod
    def transpose(cls, b, ct, lhs, rhs, **attrs):
        """JAX's rules: the lhs cotangent is a convolution of ``ct`` with the reversed
        kernel (feature dims swapped); the rhs cotangent one of ``lhs`` with ``ct``."""
        ct_lhs = transpose_lhs(b, ct, b.aval(lhs), rhs, **attrs) if b.is_linear(lhs) else None
        ct_rhs = transpose_rhs(b, ct, lhs, b.aval(rhs), **attrs) if b.is_linear(rhs) else None
        return ct_lhs, ct_rhs

    @classmethod
    def batch(cls, b, args, dims, **attrs):
        """JAX's rule: the vmapped dim of lhs joins its batch dim (or its feature dim,
        as feature groups, when both are batched); that of rhs joins its output features."""
        return batch_conv(b, args, dims, **attrs)


def _convolution(lb, lhs, rhs, *, window_strides, padding, lhs_dilation, rhs_dilation,
                 lhs_spec, rhs_spec, out_spec, feature_group_count, batch_group_count):
    """``stablehlo.convolution`` of the op's attributes."""
    n = len(window_strides)
    dn = (f"#stablehlo.conv<{_layout(lhs_spec, 'bf')}x{_layout(rhs_spec, 'oi')}"
          f"->{_layout(out_spec, 'bf')}>")
    pads = ", ".join(f"[{lo}, {hi}]" for lo, hi in pairs(padding))
    pad_attr = (f"dense<[{pads}]> : tensor<{n}x2xi64>" if n else
                "dense<> : tensor<0x2xi64>")
    return lb.op("stablehlo.convolution", [lhs, rhs], dimension_numbers=lb.attr(dn),
                 window_strides=lb.i64s(window_strides), padding=lb.attr(pad_attr),
                 lhs_dilation=lb.i64s(lhs_dilation), rhs_dilation=lb.i64s(rhs_dilation),
                 feature_group_count=lb.i64(feature_group_count),
                 batch_group_count=lb.i64(batch_group_count))


def _layout(spec, names: str) -> str:
    """``[b, f, 0, 1]``: the name of each dimension of a tensor, in its order."""
    out = [""] * len(spec)
    out[spec[0]], out[spec[1]] = names[0], names[1]
    for i, d in enumerate(spec[2:]):
        out[d] = str(i)
    return "[" + ", ".join(out) + "]"


def check_conv(lhs_shape, rhs_shape, *, window_strides, padding, lhs_dilation, rhs_dilation,
               lhs_spec, rhs_spec, out_spec, feature_group_count, batch_group_count) -> None:
    """The checks of JAX's shape rule, as ``OpError`` ("expected ...")."""
    nd = len(lhs_shape)
    if len(rhs_shape) != nd or nd < 2:
        raise OpError(f"expected lhs and rhs of one rank >= 2, but got {list(lhs_shape)} "
                      f"and {list(rhs_shape)}")
    for spec, what in ((lhs_spec, "lhs_spec"), (rhs_spec, "rhs_spec"), (out_spec, "out_spec")):
        if len(spec) != nd:
            raise OpError(f"expected {what} to have {nd} entries, but got {list(spec)}")
        check_dims(spec, nd, what)
    n = nd - 2
    for vals, what in ((window_strides, "window_strides"), (lhs_dilation, "lhs_dilation"),
                       (rhs_dilation, "rhs_dilation")):
        if len(vals) != n or any(v < 1 for v in vals):
            raise OpError(f"expected {what} to be {n} positive integers, but got {list(vals)}")
    if len(padding) != 2 * n:
        raise OpError(f"expected padding to have {2 * n} entries, but got {list(padding)}")
    if feature_group_count < 1 or batch_group_count < 1:
        raise OpError(f"expected positive group counts, but got {feature_group_count} and "
                      f"{batch_group_count}")
    if feature_group_count > 1 and batch_group_count > 1:
        raise OpError("expected at most one of feature_group_count and batch_group_count "
                      "to be > 1")
    c, o, i = lhs_shape[lhs_spec[1]], rhs_shape[rhs_spec[0]], rhs_shape[rhs_spec[1]]
    if c % feature_group_count or c // feature_group_count != i:
        raise OpError(f"expected lhs features ({c}) / feature_group_count "
                      f"({feature_group_count}) to equal the rhs input features ({i})")
    if o % feature_group_count or o % batch_group_count:
        raise OpError(f"expected rhs output features ({o}) to be a multiple of the group "
                      f"count")
    if lhs_shape[lhs_spec[0]] % batch_group_count:
        raise OpError(f"expected batch_group_count ({batch_group_count}) to divide the lhs "
                      f"batch size ({lhs_shape[lhs_spec[0]]})")
    for d, r, (lo, hi) in zip(lhs_spec[2:], lhs_dilation, pairs(padding)):
        if dilate_dim(lhs_shape[d], r) + lo + hi < 0:
            raise OpError(f"expected padding {list(padding)} to leave a non-negative size")


# ---- the NumPy reference ---------------------------------------------------------------

def _compute_dtype(dtype):
    if dtype.name in ("float16", "bfloat16"):
        return np.dtype(np.float32)
    if dtypes.is_unsigned(dtype):
        return np.dtype(np.uint64)
    if dtypes.is_int(dtype):
        return np.dtype(np.int64)
    return dtype


def _dilate(x, axes, factors):
    """``x`` with ``r - 1`` zeros between neighbours along each axis."""
    for ax, r in zip(axes, factors):
        if r == 1 or x.shape[ax] == 0:
            continue
        shape = list(x.shape)
        shape[ax] = dilate_dim(x.shape[ax], r)
        out = np.zeros(shape, x.dtype)
        idx = [slice(None)] * x.ndim
        idx[ax] = slice(None, None, r)
        out[tuple(idx)] = x
        x = out
    return x


def _pad(x, axes, pads):
    """Zero padding; negative amounts crop."""
    for ax, (lo, hi) in zip(axes, pads):
        width = [(0, 0)] * x.ndim
        width[ax] = (max(lo, 0), max(hi, 0))
        x = np.pad(x, width)
        idx = [slice(None)] * x.ndim
        idx[ax] = slice(max(-lo, 0), x.shape[ax] - max(-hi, 0))
        x = x[tuple(idx)]
    return x


def conv_reference(lhs, rhs, *, window_strides, padding, lhs_dilation, rhs_dilation,
                   lhs_spec, rhs_spec, out_spec, feature_group_count, batch_group_count):
    """im2col: windows of the dilated, padded input contracted with the dilated kernel."""
    out_dtype = lhs.dtype
    ct = _compute_dtype(out_dtype)
    x = np.transpose(np.asarray(lhs), lhs_spec).astype(ct)   # N C spatial...
    w = np.transpose(np.asarray(rhs), rhs_spec).astype(ct)   # O I spatial...
    n = x.ndim - 2
    sp = tuple(range(2, 2 + n))
    x = _pad(_dilate(x, sp, lhs_dilation), sp, pairs(padding))
    w = _dilate(w, sp, rhs_dilation)
    k = w.shape[2:]
    out_sp = [stride_dim(x.shape[2 + i], k[i], window_strides[i]) for i in range(n)]
    nb, c = x.shape[:2]
    o = w.shape[0]
    g, bg = feature_group_count, batch_group_count
    canon = (nb // bg, o, *out_sp)
    if 0 in canon or 0 in x.shape or 0 in w.shape:
        res = np.zeros(canon, ct)
    else:
        win = np.lib.stride_tricks.sliding_window_view(x, k, axis=sp)
        win = win[(slice(None), slice(None)) + tuple(slice(None, None, s)
                                                     for s in window_strides)]
        # win: N C out... k...
        if bg > 1:
            win = win.reshape(bg, nb // bg, c, *win.shape[2:])          # B N' C out k
            wg = w.reshape(bg, o // bg, *w.shape[1:])                   # B O' C k
            res = _contract(win, wg, n, lead="B", lhs_lead="BN", rhs_lead="BO",
                            out_lead="NBO")
            res = res.reshape(canon)
        else:
            win = win.reshape(nb, g, c // g, *win.shape[2:])            # N G C' out k
            wg = w.reshape(g, o // g, *w.shape[1:])                     # G O' C' k
            res = _contract(win, wg, n, lead="G", lhs_lead="NG", rhs_lead="GO",
                            out_lead="NGO")
            res = res.reshape(canon)
    res = np.transpose(res, np.argsort(out_spec))
    with np.errstate(all="ignore"):
        return np.asarray(res).astype(out_dtype)


def _contract(win, w, n, *, lead, lhs_lead, rhs_lead, out_lead):
    """einsum over the input features and the kernel window."""
    out_l = "".join("pqrstu"[i] for i in range(n))
    k_l = "".join("hijklm"[i] for i in range(n))
    spec = (f"{lhs_lead}c{out_l}{k_l},{rhs_lead}c{k_l}->{out_lead}{out_l}")
    with np.errstate(all="ignore"):
        return np.einsum(spec, win, w, optimize=True)


# ---- derivative rules ------------------------------------------------------------------

def _reshape_axis_into(b, src: int, dst: int, x):
    """Merges dim ``src`` into dim ``dst`` (numbered without ``src``), ``src`` major."""
    shape = list(b.aval(x).shape)
    perm = [i for i in range(len(shape)) if i != src]
    perm.insert(dst, src)
    if perm != list(range(len(shape))):
        x = b.transpose(x, permutation=tuple(perm))
    new = [shape[i] for i in range(len(shape)) if i != src]
    new[dst] *= shape[src]
    return b.reshape(x, new_sizes=tuple(new))


def _reshape_axis_out_of(b, src: int, size1: int, x):
    """Splits dim ``src`` into ``(size1, rest)``."""
    shape = list(b.aval(x).shape)
    shape[src:src + 1] = [size1, shape[src] // size1]
    return b.reshape(x, new_sizes=tuple(shape))


def _swap(spec):
    return (spec[1], spec[0], *spec[2:])


def _dil(shape, factors):
    return [dilate_dim(d, r) for d, r in zip(shape, factors)]


def transpose_lhs(b, ct, lhs_aval, rhs, *, window_strides, padding, lhs_dilation,
                  rhs_dilation, lhs_spec, rhs_spec, out_spec, feature_group_count,
                  batch_group_count):
    rhs_shape = b.aval(rhs).shape
    ct_shape = b.aval(ct).shape
    groups = feature_group_count
    if feature_group_count > 1 or batch_group_count > 1:
        groups = max(feature_group_count, batch_group_count)
        rhs = _reshape_axis_out_of(b, rhs_spec[0], groups, rhs)
        rhs = _reshape_axis_into(b, rhs_spec[0], rhs_spec[1], rhs)
    in_sp = [lhs_aval.shape[d] for d in lhs_spec[2:]]
    k_sp = [rhs_shape[d] for d in rhs_spec[2:]]
    o_sp = [ct_shape[d] for d in out_spec[2:]]
    ld, kd, od = _dil(in_sp, lhs_dilation), _dil(k_sp, rhs_dilation), _dil(o_sp, window_strides)
    pads = []
    for i, (lo, _) in enumerate(pairs(padding)):
        before = kd[i] - lo - 1
        pads += [before, ld[i] + kd[i] - 1 - od[i] - before]
    w = b.reverse(rhs, dimensions=tuple(rhs_spec[2:]))
    out = b.conv_general_dilated(
        ct, w, window_strides=lhs_dilation, padding=tuple(pads), lhs_dilation=window_strides,
        rhs_dilation=rhs_dilation, lhs_spec=out_spec, rhs_spec=_swap(rhs_spec),
        out_spec=lhs_spec, feature_group_count=groups, batch_group_count=1)
    if batch_group_count > 1:
        out = _reshape_axis_out_of(b, lhs_spec[1], batch_group_count, out)
        out = _reshape_axis_into(b, lhs_spec[1], lhs_spec[0], out)
    return out


def transpose_rhs(b, ct, lhs, rhs_aval, *, window_strides, padding, lhs_dilation,
                  rhs_dilation, lhs_spec, rhs_spec, out_spec, feature_group_count,
                  batch_group_count):
    ct_shape = b.aval(ct).shape
    if 0 in ct_shape:
        return b.full(ShapedArray(rhs_aval.shape, rhs_aval.dtype), 0)
    lhs_shape = b.aval(lhs).shape
    fg, bg = (batch_group_count, 1) if batch_group_count > 1 else (1, feature_group_count)
    in_sp = [lhs_shape[d] for d in lhs_spec[2:]]
    k_sp = [rhs_aval.shape[d] for d in rhs_spec[2:]]
    o_sp = [ct_shape[d] for d in out_spec[2:]]
    ld, kd, od = _dil(in_sp, lhs_dilation), _dil(k_sp, rhs_dilation), _dil(o_sp, window_strides)
    pads = []
    for i, (lo, _) in enumerate(pairs(padding)):
        pads += [lo, od[i] - ld[i] + kd[i] - lo - 1]
    return b.conv_general_dilated(
        lhs, ct, window_strides=rhs_dilation, padding=tuple(pads), lhs_dilation=lhs_dilation,
        rhs_dilation=window_strides, lhs_spec=_swap(lhs_spec), rhs_spec=_swap(out_spec),
        out_spec=_swap(rhs_spec), feature_group_count=fg, batch_group_count=bg)


# ---- the vmap rule ---------------------------------------------------------------------

def batch_conv(b, args, dims, **attrs):
    (lhs, rhs), (ld, rd) = args, dims
    lhs_spec, rhs_spec, out_spec = attrs["lhs_spec"], attrs["rhs_spec"], attrs["out_spec"]
    fg, bg = attrs["feature_group_count"], attrs["batch_group_count"]
    size = b.axis_size
    if size == 0:
        la, ra = b.aval(lhs).shape, b.aval(rhs).shape
        la = la if ld is None else la[:ld] + la[ld + 1:]
        ra = ra if rd is None else ra[:rd] + ra[rd + 1:]
        shape = conv_out_shape(la, ra, **attrs)
        return [b.full(ShapedArray((0, *shape), b.aval(lhs).dtype), 0)], [0]
    conv = b.conv_general_dilated
    if ld is not None and rd is not None:
        if bg > 1:
            x = _reshape_axis_into(b, ld, lhs_spec[0], lhs)
            new = dict(attrs, batch_group_count=bg * size)
        else:
            x = _reshape_axis_into(b, ld, lhs_spec[1], lhs)
            new = dict(attrs, feature_group_count=fg * size)
        w = _reshape_axis_into(b, rd, rhs_spec[0], rhs)
        out = _reshape_axis_out_of(b, out_spec[1], size, conv(x, w, **new))
        return [out], [out_spec[1]]
    if ld is not None:
        if bg == 1:
            x = _reshape_axis_into(b, ld, lhs_spec[0], lhs)
        else:
            x = _reshape_axis_out_of(b, lhs_spec[0] + int(ld <= lhs_spec[0]), bg, lhs)
            x = _reshape_axis_into(b, ld + int(lhs_spec[0] < ld), lhs_spec[0] + 1, x)
            x = _reshape_axis_into(b, lhs_spec[0], lhs_spec[0], x)
        out = _reshape_axis_out_of(b, out_spec[0], size, conv(x, rhs, **attrs))
        return [out], [out_spec[0]]
    if fg == 1 and bg == 1:
        w = _reshape_axis_into(b, rd, rhs_spec[0], rhs)
        out = _reshape_axis_out_of(b, out_spec[1], size, conv(lhs, w, **attrs))
        return [out], [out_spec[1]]
    groups = fg if fg > 1 else bg
    w = _reshape_axis_out_of(b, rhs_spec[0] + int(rd <= rhs_spec[0]), groups, rhs)
    w = _reshape_axis_into(b, rd + int(rhs_spec[0] < rd), rhs_spec[0] + 1, w)
    w = _reshape_axis_into(b, rhs_spec[0], rhs_spec[0], w)
    out = conv(lhs, w, **attrs)
    out = _reshape_axis_out_of(b, out_spec[1], groups, out)
    out = _reshape_axis_out_of(b, out_spec[1] + 1, size, out)
    out = _reshape_axis_into(b, out_spec[1], out_spec[1] + 1, out)
    return [out], [out_spec[1]]
