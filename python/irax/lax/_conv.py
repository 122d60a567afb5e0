"""``irax.lax`` convolutions (``jax.lax.conv_general_dilated`` and its wrappers).

    lax.conv(x, w, (1, 1), "SAME")                                  # NCHW x OIHW -> NCHW
    lax.conv_general_dilated(x, w, (2, 2), [(1, 1), (0, 0)],
                             dimension_numbers=("NHWC", "HWIO", "NHWC"))
    lax.conv_transpose(x, w, (2, 2), "SAME")                        # NHWC x HWIO
"""

from __future__ import annotations

import math
import operator
from typing import NamedTuple, Sequence, Union

import numpy as np

from irax.core import dtypes
from irax.dialect import convolution as C
from irax.frontend.trace import bind
from irax.lax import _util as U
from irax.lax._elementwise import add, imag, real, sub
from irax.lax._elementwise import complex as make_complex
from irax.lax._reduce import dot_general
from irax.lax._shape import rev

_NAME = "conv_general_dilated"
_LOW_FLOATS = (dtypes.float16, dtypes.bfloat16)


class ConvDimensionNumbers(NamedTuple):
    """Batch, feature and spatial dimensions of a convolution's operands and result
    (``jax.lax.ConvDimensionNumbers``): ``lhs_spec`` = (batch, feature, spatial...),
    ``rhs_spec`` = (out feature, in feature, spatial...), ``out_spec`` like ``lhs_spec``."""

    lhs_spec: Sequence[int]
    rhs_spec: Sequence[int]
    out_spec: Sequence[int]


ConvGeneralDilatedDimensionNumbers = Union[tuple[str, str, str], ConvDimensionNumbers, None]


# ---- dimension numbers and shapes ------------------------------------------------------

def conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers) -> ConvDimensionNumbers:
    """``dimension_numbers`` (None, layout strings or ``ConvDimensionNumbers``) in canonical
    form (``jax.lax.conv_dimension_numbers``)."""
    if isinstance(dimension_numbers, ConvDimensionNumbers):
        return dimension_numbers
    if len(lhs_shape) != len(rhs_shape):
        raise TypeError(f"convolution requires lhs and rhs ndim to be equal, got "
                        f"{len(lhs_shape)} and {len(rhs_shape)}.")
    if dimension_numbers is None:
        iota = tuple(range(len(lhs_shape)))
        return ConvDimensionNumbers(iota, iota, iota)
    if not isinstance(dimension_numbers, (list, tuple)):
        raise TypeError(f"convolution dimension_numbers must be tuple/list or None, got "
                        f"{type(dimension_numbers)}.")
    if len(dimension_numbers) != 3:
        raise TypeError(f"convolution dimension_numbers list/tuple must be length 3, got "
                        f"{len(dimension_numbers)}.")
    if not all(isinstance(s, str) for s in dimension_numbers):
        raise TypeError(f"convolution dimension_numbers elements must be strings, got "
                        f"{tuple(map(type, dimension_numbers))}.")
    for i, s in enumerate(dimension_numbers):
        if len(s) != len(lhs_shape):
            raise TypeError(f"convolution dimension_numbers[{i}] must have len equal to the "
                            f"ndim of lhs and rhs, got {len(s)} for lhs and rhs shapes "
                            f"{tuple(lhs_shape)} and {tuple(rhs_shape)}.")
    return ConvDimensionNumbers(*conv_general_permutations(dimension_numbers))


def conv_general_permutations(dimension_numbers):
    """The (lhs, rhs, out) permutations of layout strings such as ``("NHWC", "HWIO",
    "NHWC")`` (``jax.lax.conv_general_permutations``); spatial dims follow ``rhs``."""
    lhs_s, rhs_s, out_s = dimension_numbers
    chars = (("N", "C"), ("O", "I"), ("N", "C"))
    for i, (a, b) in enumerate(chars):
        s = dimension_numbers[i]
        if not s.count(a) == s.count(b) == 1:
            raise TypeError(f"convolution dimension_numbers[{i}] must contain the characters "
                            f"'{a}' and '{b}' exactly once, got {s}.")
        if len(s) != len(set(s)):
            raise TypeError(f"convolution dimension_numbers[{i}] cannot have duplicate "
                            f"characters, got {s}.")
    if not set(lhs_s) - set("NC") == set(rhs_s) - set("OI") == set(out_s) - set("NC"):
        raise TypeError(f"convolution dimension_numbers elements must each have the same set "
                        f"of spatial characters, got {dimension_numbers}.")

    def perm(spec, pair):
        spatial = [i for i, c in enumerate(spec) if c not in pair]
        if spec is not rhs_s:
            spatial.sort(key=lambda i: rhs_s.index(spec[i]))
        return (spec.index(pair[0]), spec.index(pair[1]), *spatial)

    return tuple(perm(s, p) for s, p in zip(dimension_numbers, chars))


def padtype_to_pads(in_shape, window_shape, window_strides, padding) -> list[tuple[int, int]]:
    """(low, high) pads of 'SAME', 'SAME_LOWER' or 'VALID' padding (``jax.lax.padtype_to_pads``)."""
    kind = getattr(padding, "name", padding)
    if isinstance(kind, str):
        kind = kind.upper()
    if kind not in ("SAME", "SAME_LOWER", "VALID"):
        if isinstance(padding, str):
            raise RuntimeError(f"Unrecognized padding type: expected 'VALID', 'SAME', or "
                               f"'SAME_LOWER', got {padding}.")
        raise TypeError(f"Unknown padding type: {padding}.")
    if kind == "VALID":
        return [(0, 0)] * len(in_shape)
    pads = []
    for n, k, s in zip(in_shape, window_shape, window_strides):
        total = max((-(-int(n) // int(s)) - 1) * int(s) + int(k) - int(n), 0)
        half = total // 2
        pads.append((half, total - half) if kind == "SAME" else (total - half, half))
    return pads


def conv_shape_tuple(lhs_shape, rhs_shape, strides, pads, batch_group_count=1):
    """The result shape of a convolution of operands in canonical order
    (``jax.lax.conv_shape_tuple``)."""
    if isinstance(pads, str):
        pads = padtype_to_pads(lhs_shape[2:], rhs_shape[2:], strides, pads)
    if len(pads) != len(lhs_shape) - 2:
        raise TypeError(f"Wrong number of explicit pads for convolution: expected "
                        f"{len(lhs_shape) - 2}, got {len(pads)}.")
    padded = [int(n) + int(lo) + int(hi) for n, (lo, hi) in zip(lhs_shape[2:], pads)]
    if any(p < 0 for p in padded):
        raise ValueError(f"Negative padding is larger than the size of the corresponding "
                         f"dimension: got padding={pads} for lhs_shape[2:]="
                         f"{tuple(int(d) for d in lhs_shape[2:])}")
    space = tuple(C.stride_dim(p, int(k), int(s))
                  for p, k, s in zip(padded, rhs_shape[2:], strides))
    batch = int(lhs_shape[0]) // batch_group_count if batch_group_count > 1 else int(lhs_shape[0])
    return (batch, int(rhs_shape[0]), *space)


def conv_general_shape_tuple(lhs_shape, rhs_shape, window_strides, padding, dimension_numbers):
    """The result shape of ``conv_general_dilated`` (``jax.lax.conv_general_shape_tuple``)."""
    lp, rp, op = conv_general_permutations(dimension_numbers)
    out = conv_shape_tuple(np.take(lhs_shape, lp), np.take(rhs_shape, rp), window_strides,
                           padding)
    return tuple(int(v) for v in np.take(out, np.argsort(op)))


def _transpose_padding(k, s, padding):
    """(before, after) padding of one dim of a transposed convolution."""
    if padding == "SAME":
        total = k + s - 2
        before = k - 1 if s > k - 1 else int(math.ceil(total / 2))
    elif padding == "VALID":
        total = k + s - 2 + max(k - s, 0)
        before = k - 1
    elif isinstance(padding, tuple):
        pads = tuple(k - p - 1 for p in padding)
        before, total = pads[0], sum(pads)
    else:
        raise ValueError(f"Invalid padding mode: {padding}")
    return before, total - before


def conv_transpose_shape_tuple(lhs_shape, rhs_shape, window_strides, padding,
                               dimension_numbers):
    """The result shape of ``conv_transpose`` (``jax.lax.conv_transpose_shape_tuple``)."""
    lp, rp, op = conv_general_permutations(dimension_numbers)
    lt, rt = np.take(lhs_shape, lp), np.take(rhs_shape, rp)
    if isinstance(padding, str):
        padding = [_transpose_padding(int(k), int(s), padding)
                   for k, s in zip(rt[2:], window_strides)]
    totals = [int(np.sum(p)) for p in padding]
    space = [(int(i) - 1) * int(s) - int(k) + 2 + p
             for i, k, s, p in zip(lt[2:], rt[2:], window_strides, totals)]
    out = (int(lt[0]), int(rt[0]), *space)
    return tuple(int(v) for v in np.take(out, np.argsort(op)))


# ---- conv_general_dilated --------------------------------------------------------------

def _ints(values, n):
    return (1,) * n if values is None else tuple(operator.index(v) for v in values)


def _explicit_pads(padding):
    try:
        return tuple((operator.index(lo), operator.index(hi)) for lo, hi in padding)
    except (ValueError, TypeError) as e:
        raise ValueError(f"padding argument to {_NAME} should be a string or a sequence of "
                         f"(low, high) pairs, got {padding}") from e


def _check_shapes(ls, rs, dn, strides, pads, lhs_dil, rhs_dil, fg, bg) -> tuple:
    """JAX's shape rule, with its errors; returns the result shape."""
    if len(ls) != len(rs):
        raise ValueError(f"{_NAME} lhs and rhs must have the same number of dimensions, but "
                         f"got {tuple(ls)} and {tuple(rs)}.")
    lhs_spec, rhs_spec, out_spec = dn
    if not fg > 0:
        raise ValueError(f"{_NAME} feature_group_count must be a positive integer, got {fg}.")
    c = ls[lhs_spec[1]]
    if c % fg:
        raise ValueError(f"{_NAME} feature_group_count must divide lhs feature dimension "
                         f"size, but {fg} does not divide {c}.")
    if c // fg != rs[rhs_spec[1]]:
        raise ValueError(f"{_NAME} lhs feature dimension size divided by feature_group_count "
                         f"must equal the rhs input feature dimension size, but {c} // {fg} "
                         f"!= {rs[rhs_spec[1]]}.")
    o = rs[rhs_spec[0]]
    if o % fg:
        raise ValueError(f"{_NAME} rhs output feature dimension size must be a multiple of "
                         f"feature_group_count, but {o} is not a multiple of {fg}.")
    if not bg > 0:
        raise ValueError(f"{_NAME} batch_group_count must be a positive integer, got {bg}.")
    nb = ls[lhs_spec[0]]
    if bg > 1 and nb % bg:
        raise ValueError(f"{_NAME} batch_group_count must divide lhs batch dimension size, "
                         f"but {bg} does not divide {nb}.")
    if o % bg:
        raise ValueError(f"{_NAME} rhs output feature dimension size must be a multiple of "
                         f"batch_group_count, but {o} is not a multiple of {bg}.")
    if bg > 1 and fg > 1:
        raise ValueError(f"At most one of batch_group_count and feature_group_count may be > "
                         f"1, got batch_group_count={bg} and feature_group_count={fg}")
    if len(rhs_spec) - 2 != len(strides):
        raise ValueError(f"{_NAME} window and window_strides must have the same number of "
                         f"dimensions, but got {len(rhs_spec) - 2} and {len(strides)}")
    for dil in (lhs_dil, rhs_dil):
        if not all(d > 0 for d in dil):
            raise TypeError(f"All dilations must be positive, got {tuple(dil)}.")
    if not all(s > 0 for s in strides):
        raise ValueError(f"{_NAME}: window_strides must be positive, got {tuple(strides)}")
    lt = [ls[d] for d in lhs_spec[:2]] + [C.dilate_dim(ls[d], r)
                                          for d, r in zip(lhs_spec[2:], lhs_dil)]
    rt = [rs[d] for d in rhs_spec[:2]] + [C.dilate_dim(rs[d], r)
                                          for d, r in zip(rhs_spec[2:], rhs_dil)]
    out = conv_shape_tuple(lt, rt, strides, pads, bg)
    return tuple(int(v) for v in np.take(out, np.argsort(out_spec)))


def _result_dtype(la, ra, preferred):
    if la.dtype != ra.dtype:
        raise TypeError(f"lax.{_NAME} requires arguments to have the same dtypes, got "
                        f"{dtypes.short_name(la.dtype)}, {dtypes.short_name(ra.dtype)}.")
    if preferred is None:
        return la.dtype
    dt, pt = la.dtype, preferred
    if not (dtypes.is_int(dt) and dtypes.is_float(pt)):
        kinds = (dtypes.is_int, dtypes.is_float, dtypes.is_complex)
        if any(k(dt) and not k(pt) for k in kinds):
            raise TypeError("Input type is incompatible with `preferred_element_type`. The "
                            "compatible combinations of (input_type, preferred_element_type) "
                            "are (integral, integral), (integral, floating), (floating, "
                            "floating), (complex, complex.")
        if dtypes.is_signed(dt) and not dtypes.is_signed(pt):
            raise TypeError("`preferred_element_type` must have the same signedness as the "
                            "original type.")
    if np.dtype(pt).itemsize < np.dtype(dt).itemsize:
        raise TypeError("`preferred_element_type` must not be narrower than the original "
                        "type.")
    return pt


def _as(x, dtype):
    return x if U.aval_of(x).dtype == dtype else U.convert(x, dtype)


def conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation=None,
                         rhs_dilation=None, dimension_numbers=None, feature_group_count=1,
                         batch_group_count=1, precision=None, preferred_element_type=None,
                         out_sharding=None):
    """General n-dimensional convolution with dilations and groups
    (``jax.lax.conv_general_dilated``); ``precision`` is accepted and ignored."""
    del precision
    if out_sharding is not None:
        raise NotImplementedError(f"irax.lax.{_NAME}: out_sharding is not supported")
    la, ra = U.aval_of(lhs), U.aval_of(rhs)
    dn = conv_dimension_numbers(la.shape, ra.shape, dimension_numbers)
    n = la.ndim - 2
    if lhs_dilation is None:
        lhs_dilation = (1,) * n
    elif isinstance(padding, str) and any(d != 1 for d in lhs_dilation):
        raise ValueError("String padding is not implemented for transposed convolution using "
                         "this op. Please either exactly specify the required padding or use "
                         "conv_transpose.")
    lhs_dilation, rhs_dilation = _ints(lhs_dilation, n), _ints(rhs_dilation, ra.ndim - 2)
    strides = tuple(operator.index(s) for s in window_strides)
    if isinstance(padding, str):
        k = [C.dilate_dim(ra.shape[d], r) for d, r in zip(dn.rhs_spec[2:], rhs_dilation)]
        pads = padtype_to_pads([la.shape[d] for d in dn.lhs_spec[2:]], k, strides, padding)
    else:
        pads = _explicit_pads(padding)
    preferred = dtypes.check_user_dtype(preferred_element_type, _NAME)
    fg, bg = operator.index(feature_group_count), operator.index(batch_group_count)
    _check_shapes(la.shape, ra.shape, dn, strides, pads, lhs_dilation, rhs_dilation, fg, bg)
    out = _result_dtype(la, ra, preferred)
    weak = la.weak_type and ra.weak_type and out == la.dtype
    compute = (dtypes.float32 if out in _LOW_FLOATS else
               dtypes.int32 if out == np.bool_ else out)
    x, y = _as(lhs, compute), _as(rhs, compute)
    attrs = dict(window_strides=strides, padding=tuple(v for p in pads for v in p),
                 lhs_dilation=lhs_dilation, rhs_dilation=rhs_dilation,
                 lhs_spec=tuple(dn.lhs_spec), rhs_spec=tuple(dn.rhs_spec),
                 out_spec=tuple(dn.out_spec), feature_group_count=fg, batch_group_count=bg)
    if dtypes.is_complex(compute):
        r = _complex_conv(x, y, attrs)
    else:
        r = bind(C.ConvGeneralDilated, x, y, **attrs)
    if U.aval_of(r).dtype == out and U.aval_of(r).weak_type == weak:
        return r
    return U.convert(r, out, weak)


def _complex_conv(x, y, attrs):
    """A complex convolution as three real ones (Gauss's product, as JAX lowers complex
    convolutions on CPU): IREE 3.13 crashes compiling some complex ``convolution`` ops."""
    conv = lambda a, b: bind(C.ConvGeneralDilated, a, b, **attrs)
    xr, xi, yr, yi = real(x), imag(x), real(y), imag(y)
    k1 = conv(add(xr, xi), yr)
    k2 = conv(xr, sub(yi, yr))
    k3 = conv(xi, add(yr, yi))
    return make_complex(sub(k1, k3), add(k1, k2))


def conv(lhs, rhs, window_strides, padding, precision=None, preferred_element_type=None):
    """``conv_general_dilated`` in NCHW/OIHW layout without dilation (``jax.lax.conv``)."""
    return conv_general_dilated(lhs, rhs, window_strides, padding, precision=precision,
                                preferred_element_type=preferred_element_type)


def conv_with_general_padding(lhs, rhs, window_strides, padding, lhs_dilation, rhs_dilation,
                              precision=None, preferred_element_type=None):
    """``conv_general_dilated`` in NCHW/OIHW layout (``jax.lax.conv_with_general_padding``)."""
    return conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation=lhs_dilation,
                                rhs_dilation=rhs_dilation, precision=precision,
                                preferred_element_type=preferred_element_type)


_TRANSPOSE_LAYOUTS = {2: ("NC", "IO", "NC"), 3: ("NHC", "HIO", "NHC"),
                      4: ("NHWC", "HWIO", "NHWC"), 5: ("NHWDC", "HWDIO", "NHWDC")}


def conv_transpose(lhs, rhs, strides, padding, rhs_dilation=None, dimension_numbers=None,
                   transpose_kernel=False, precision=None, preferred_element_type=None,
                   use_consistent_padding=False):
    """A fractionally strided convolution, the "transpose" of a forward one
    (``jax.lax.conv_transpose``; TensorFlow layouts by default)."""
    la, ra = U.aval_of(lhs), U.aval_of(rhs)
    if not (la.ndim == ra.ndim and la.ndim >= 2):
        raise ValueError(f"irax.lax.conv_transpose: lhs and rhs must have one rank >= 2, "
                         f"got {la.shape} and {ra.shape}")
    if dimension_numbers is None:
        if la.ndim not in _TRANSPOSE_LAYOUTS:
            raise ValueError("No 4+ dimensional dimension_number defaults.")
        dimension_numbers = _TRANSPOSE_LAYOUTS[la.ndim]
    dn = conv_dimension_numbers(la.shape, ra.shape, dimension_numbers)
    k_sp = [ra.shape[d] for d in dn.rhs_spec[2:]]
    rhs_dilation = _ints(rhs_dilation, ra.ndim - 2)
    if use_consistent_padding or (isinstance(padding, str) and padding in ("SAME", "VALID")):
        eff = [C.dilate_dim(k, r) for k, r in zip(k_sp, rhs_dilation)]
        reps = [padding] * len(strides) if isinstance(padding, str) else padding
        pads = tuple(_transpose_padding(k, s, tuple(p) if not isinstance(p, str) else p)
                     for k, s, p in zip(eff, strides, reps))
    else:
        pads = padding
    if transpose_kernel:
        rhs = rev(rhs, tuple(dn.rhs_spec[2:]))
        perm = list(range(ra.ndim))
        perm[dn.rhs_spec[0]], perm[dn.rhs_spec[1]] = dn.rhs_spec[1], dn.rhs_spec[0]
        rhs = U.transpose(rhs, perm)
    return conv_general_dilated(lhs, rhs, (1,) * (la.ndim - 2), pads, strides, rhs_dilation,
                                dn, precision=precision,
                                preferred_element_type=preferred_element_type)


# ---- patches and unshared convolutions -------------------------------------------------

def conv_general_dilated_patches(lhs, filter_shape, window_strides, padding, lhs_dilation=None,
                                 rhs_dilation=None, dimension_numbers=None, precision=None,
                                 preferred_element_type=None):
    """The input's patches under each convolution window, flattened into the feature
    dimension as (channel, window...) (``jax.lax.conv_general_dilated_patches``)."""
    la = U.aval_of(lhs)
    filter_shape = tuple(int(k) for k in filter_shape)
    dn = conv_dimension_numbers(la.shape, (1, 1) + filter_shape, dimension_numbers)
    size = math.prod(filter_shape)
    c = la.shape[dn.lhs_spec[1]]
    eye = np.eye(size, dtype=la.dtype)
    kernel = np.broadcast_to(eye, (c, size, size)).reshape(c * size, 1, *filter_shape)
    kernel = np.moveaxis(kernel, (0, 1), (dn.rhs_spec[0], dn.rhs_spec[1]))
    rhs = U.host_array(np.ascontiguousarray(kernel))   # strong, as JAX's eye
    return conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation, rhs_dilation,
                                dn, feature_group_count=c, precision=precision,
                                preferred_element_type=preferred_element_type)


def conv_general_dilated_local(lhs, rhs, window_strides, padding, filter_shape,
                               lhs_dilation=None, rhs_dilation=None, dimension_numbers=None,
                               precision=None):
    """An unshared convolution: a separate kernel at each output position, a locally
    connected layer (``jax.lax.conv_general_dilated_local``)."""
    patches = conv_general_dilated_patches(lhs, filter_shape, window_strides, padding,
                                           lhs_dilation, rhs_dilation, dimension_numbers)
    la = U.aval_of(lhs)
    lhs_spec, rhs_spec, out_spec = conv_dimension_numbers(
        la.shape, (1, 1) + tuple(filter_shape), dimension_numbers)
    l_batch = list(out_spec[2:])
    r_batch = list(rhs_spec[2:])
    r_batch = [r_batch[i] for i in sorted(range(len(r_batch)), key=lambda k: l_batch[k])]
    l_batch = sorted(l_batch)
    dn = (([out_spec[1]], [rhs_spec[1]]), (l_batch, r_batch))
    out = dot_general(patches, rhs, dn, precision=precision)
    nd = U.aval_of(out).ndim
    # move the last two dims (batch, out feature) to out_spec's positions
    src = [nd - 2, nd - 1]
    dst = [out_spec[0], out_spec[1]]
    order = [d for d in range(nd) if d not in src]
    perm = [None] * nd
    for s, d in zip(src, dst):
        perm[d] = s
    rest = iter(order)
    perm = [p if p is not None else next(rest) for p in perm]
    return U.transpose(out, perm)
