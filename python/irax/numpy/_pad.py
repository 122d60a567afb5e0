"""``pad`` (``jax.numpy.pad``): every NumPy mode JAX has ('constant', 'edge',
'linear_ramp', 'maximum', 'mean', 'median', 'minimum', 'reflect', 'symmetric', 'wrap',
'empty') and a callable.

    jnp.pad(x, 2)                                    # zeros, both sides of every axis
    jnp.pad(x, ((1, 0), (0, 2)), mode="reflect", reflect_type="odd")
    jnp.pad(x, 1, mode="mean", stat_length=2)

Pad widths (and stat lengths, end values) must be concrete; the array and
``constant_values`` may be traced. Each mode is built from slices, flips, concatenations and
``lax.pad`` (axis by axis, like JAX), so it differentiates and batches; integer arrays round
their statistics.
"""

from __future__ import annotations

import builtins

import numpy as np

from irax.core import dtypes, tree_util
from irax.core.errors import ConcretizationTypeError
from irax.frontend.tracer import Tracer
from irax.lax import _shape as LS
from irax.lax import _util as LU
from irax.numpy import _util as U
from irax.numpy._creation import asarray
from irax.numpy._functional import apply_along_axis
from irax.numpy._math import isnan
from irax.numpy._reductions import any as any_
from irax.numpy._reductions import max as max_
from irax.numpy._reductions import mean
from irax.numpy._reductions import min as min_
from irax.numpy._shape import broadcast_to, concatenate, flip, squeeze
from irax.numpy._sorting import sort
from irax.numpy._ufuncs import add, floor, multiply, subtract, true_divide
from irax.numpy._ufuncs import round as round_

_ALLOWED_KWARGS = {
    "empty": (), "edge": (), "wrap": (), "constant": ("constant_values",),
    "linear_ramp": ("end_values",), "maximum": ("stat_length",), "mean": ("stat_length",),
    "median": ("stat_length",), "minimum": ("stat_length",), "reflect": ("reflect_type",),
    "symmetric": ("reflect_type",),
}


# ---- argument normalisation --------------------------------------------------------------------
def _concrete_leaf(x, name):
    if isinstance(x, Tracer):
        raise ConcretizationTypeError(x, f"{name} argument of jnp.pad")
    return np.asarray(LU.host_data(x)) if isinstance(x, LU.Array) else x


def _pairs(values, nd: int, name: str):
    """``values`` as ``nd`` pairs (before, after), from NumPy's accepted shapes."""
    leaves = tree_util.tree_map(lambda x: _concrete_leaf(x, name), values)
    try:
        arr = np.asarray(leaves)
    except ValueError as e:
        if "inhomogeneous" in str(e):
            raise TypeError(f"`{name}` entries must be the same shape: {values}") from e
        raise
    if arr.dtype == object:
        raise TypeError(f"`{name}` entries must be the same shape: {values}")
    if arr.shape == (nd, 2):
        return tuple((v[0], v[1]) for v in arr)
    if arr.shape == (1, 2):
        return ((arr[0, 0], arr[0, 1]),) * nd
    if arr.shape == (2,):
        return ((arr[0], arr[1]),) * nd
    if arr.shape in ((1,), ()):
        v = arr.reshape(-1)[0]
        return ((v, v),) * nd
    raise ValueError(f"jnp.pad: {name} with nd={nd} has unsupported shape {arr.shape}. "
                     f"Valid shapes are ({nd}, 2), (1, 2), (2,), (1,), or ().")


def _is_dim(v) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def _slice(x, start, stop, axis):
    return LS.slice_in_dim(x, start, stop, axis=axis)


def _cast_like(v, x):
    a = U.aval_of(x)
    return LU.convert(v, a.dtype, a.weak_type)


def _check_no_padding(pw, mode: str) -> None:
    if pw[0] > 0 or pw[1] > 0:
        raise ValueError(f"Cannot apply '{mode}' padding to empty axis")


def _repeat_along(edge, n: int, axis: int):
    shape = list(U.aval_of(edge).shape)
    shape[axis] = n
    return LU.broadcast_to(edge, tuple(shape))


# ---- the modes ---------------------------------------------------------------------------------
def _pad_constant(x, pad_width, values):
    nd = U.aval_of(x).ndim
    values = _cast_like(values, x)
    vnd = U.aval_of(values).ndim
    if vnd == 0:
        return LS.pad(x, values, [(lo, hi, 0) for lo, hi in pad_width])
    if vnd == 1:
        if U.aval_of(values).shape[-1] == 1:
            return LS.pad(x, squeeze(values), [(lo, hi, 0) for lo, hi in pad_width])
        if U.aval_of(values).shape[-1] != 2:
            raise ValueError("jnp.pad: constant_values has unsupported shape "
                             f"{U.aval_of(values).shape}. If the shape is 1D or 2D, the last "
                             "dimension must be of size 1 or 2.")
    values = broadcast_to(values, (nd, 2))
    for i in range(nd):
        for side in (0, 1):
            if pad_width[i][side]:
                widths = [(0, 0, 0)] * nd
                widths[i] = (pad_width[i][0], 0, 0) if side == 0 else (0, pad_width[i][1], 0)
                v = LU.reshape(LS.slice(values, (i, side), (i + 1, side + 1)), ())
                x = LS.pad(x, v, widths)
    return x


def _pad_wrap(x, pad_width):
    for i in range(U.aval_of(x).ndim):
        n = U.aval_of(x).shape[i]
        if n == 0:
            _check_no_padding(pad_width[i], "wrap")
            continue
        left_reps, left_rem = divmod(pad_width[i][0], n)
        right_reps, right_rem = divmod(pad_width[i][1], n)
        parts = [_slice(x, n - left_rem, n, i)] if left_rem else []
        parts += [x] * (left_reps + right_reps + 1)
        if right_rem:
            parts.append(_slice(x, 0, right_rem, i))
        x = LS.concatenate(parts, i) if len(parts) > 1 else x
    return x


def _reflect_side(x, i, n, padding, before, mode, reflect_type):
    """``x`` padded on one side of axis ``i`` by reflection; ``n`` is the axis size before
    any padding (the chunk length, as JAX's), not the current one."""
    cur_size = U.aval_of(x).shape[i]
    edge = _slice(x, 0, 1, i) if before else _slice(x, cur_size - 1, cur_size, i)
    offset = 1 if (mode == "reflect" and n > 1) else 0
    while padding > 0:
        cur = builtins.min(padding, n - offset)
        padding -= cur
        size = U.aval_of(x).shape[i]
        if before:
            start, stop = offset, offset + cur
        else:
            start = size - (cur + offset)
            stop = size if (mode == "symmetric" or n == 1) else size - 1
        piece = flip(_slice(x, start, stop, i), axis=i)
        if reflect_type == "odd":
            piece = subtract(multiply(2, edge), piece)
            if n > 1:
                k = U.aval_of(piece).shape[i]
                edge = _slice(piece, 0, 1, i) if before else _slice(piece, k - 1, k, i)
        x = LS.concatenate([piece, x] if before else [x, piece], i)
    return x


def _pad_reflect(x, pad_width, mode, reflect_type):
    assert mode in ("symmetric", "reflect")
    assert reflect_type in ("even", "odd")
    for i in range(U.aval_of(x).ndim):
        if U.aval_of(x).shape[i] == 0:
            _check_no_padding(pad_width[i], mode)
            continue
        if pad_width[i] == (0, 0):
            continue
        n = U.aval_of(x).shape[i]
        x = _reflect_side(x, i, n, pad_width[i][0], True, mode, reflect_type)
        x = _reflect_side(x, i, n, pad_width[i][1], False, mode, reflect_type)
    return x


def _pad_edge(x, pad_width):
    for i in range(U.aval_of(x).ndim):
        n = U.aval_of(x).shape[i]
        if n == 0:
            _check_no_padding(pad_width[i], "edge")
            continue
        before = _repeat_along(_slice(x, 0, 1, i), pad_width[i][0], i)
        after = _repeat_along(_slice(x, n - 1, n, i), pad_width[i][1], i)
        x = concatenate([before, x, after], i)
    return x


def _ramp(end, edge, num: int, axis: int, x):
    """``num`` points from ``end`` towards ``edge`` (excluded) along ``axis``, as JAX's
    ``linspace(endpoint=False)``: ``end * (1 - t) + edge * t`` in the inexact dtype, floored
    for integers."""
    a = U.aval_of(x)
    ct = dtypes.result_type(a.dtype, float)
    real = np.dtype(np.float32) if dtypes.is_complex(ct) and ct.itemsize == 8 else \
        (np.dtype(np.float64) if dtypes.is_complex(ct) else ct)
    shape = list(U.aval_of(edge).shape)
    shape[axis] = num
    t = LU.convert(true_divide(LS.iota(real, num), U.full((), num, real)), ct, weak=False)
    t = LU.broadcast_in_dim(t, tuple(shape), (axis,))
    start = LU.convert(U.as_array("pad", end), ct, weak=False)
    out = add(multiply(start, subtract(U.full((), 1, ct), t)),
              multiply(LU.convert(edge, ct, weak=False), t))
    if dtypes.is_int(a.dtype) or a.dtype == np.bool_:
        out = floor(out)
    return LU.convert(out, a.dtype, a.weak_type)


def _pad_linear_ramp(x, pad_width, end_values):
    for i in range(U.aval_of(x).ndim):
        n = U.aval_of(x).shape[i]
        first, last = _slice(x, 0, 1, i), _slice(x, n - 1, n, i)
        before = _ramp(end_values[i][0], first, pad_width[i][0], i, x)
        after = flip(_ramp(end_values[i][1], last, pad_width[i][1], i, x), i)
        x = concatenate([before, x, after], i)
    return x


def _median(x, axis):
    """The median along ``axis`` (kept, size 1): NaN if any element is NaN."""
    x, = U.promote_dtypes_inexact(x)
    nan = any_(isnan(x), axis=axis, keepdims=True)
    x = U.select(LU.broadcast_to(nan, U.aval_of(x).shape), U.full_like(x, np.nan), x)
    s = sort(x, axis=axis)
    n = U.aval_of(s).shape[axis]
    lo, hi = (n - 1) // 2, n // 2
    total = add(_slice(s, lo, lo + 1, axis), _slice(s, hi, hi + 1, axis))
    return multiply(total, U.full((), 0.5, U.aval_of(total).dtype))


_STATS = {
    "maximum": lambda x, axis: max_(x, axis=axis, keepdims=True),
    "minimum": lambda x, axis: min_(x, axis=axis, keepdims=True),
    "mean": lambda x, axis: mean(x, axis=axis, keepdims=True),
    "median": _median,
}


def _pad_stats(x, pad_width, stat_length, stat):
    is_int = U.aval_of(x).dtype.kind in "iu"
    for i in range(U.aval_of(x).ndim):
        if stat_length is None:
            before = after = stat(x, i)
        else:
            n = U.aval_of(x).shape[i]
            lb, la = stat_length[i]
            if lb == 0 or la == 0:
                raise ValueError("stat_length of 0 yields no value for padding")
            lb, la = builtins.min(lb, n), builtins.min(la, n)
            before, after = stat(_slice(x, 0, lb, i), i), stat(_slice(x, n - la, n, i), i)
        if is_int:
            before, after = round_(before), round_(after)
        before = _repeat_along(_cast_like(before, x), pad_width[i][0], i)
        after = _repeat_along(_cast_like(after, x), pad_width[i][1], i)
        x = concatenate([before, x, after], i)
    return x


def _pad_empty(x, pad_width):
    a = U.aval_of(x)
    return LS.pad(x, U.full((), 0, a.dtype, a.weak_type), [(lo, hi, 0) for lo, hi in pad_width])


def _pad_func(x, pad_width, func, **kwargs):
    padded = _pad_constant(x, pad_width, asarray(0))
    for axis in range(U.aval_of(padded).ndim):
        padded = apply_along_axis(func, axis, padded, pad_width[axis], axis, kwargs)
    return padded


# ---- pad ---------------------------------------------------------------------------------------
def pad(array, pad_width, mode="constant", **kwargs):
    """``array`` padded by ``pad_width`` (``((before, after), ...)``, one pair, or one int)
    in NumPy's ``mode``, or by a callable ``mode(vector, pad_width, iaxis, kwargs)``."""
    x = U.as_array("pad", array)
    nd = U.aval_of(x).ndim
    pad_width = _pairs(pad_width, nd, "pad_width")
    if pad_width and not all(_is_dim(p[0]) and _is_dim(p[1]) for p in pad_width):
        raise TypeError("`pad_width` must be of integral type.")
    pad_width = tuple((int(lo), int(hi)) for lo, hi in pad_width)
    if callable(mode):
        return _pad_func(x, pad_width, mode, **kwargs)
    try:
        unsupported = set(kwargs) - set(_ALLOWED_KWARGS[mode])
    except (KeyError, TypeError):
        raise NotImplementedError(f"Unimplemented padding mode '{mode}' for np.pad.") from None
    if unsupported:
        raise ValueError(f"unsupported keyword arguments for mode '{mode}': {unsupported}")
    if nd == 0:
        return x
    if any(lo < 0 or hi < 0 for lo, hi in pad_width):
        raise ValueError("index can't contain negative values")
    if mode == "constant":
        return _pad_constant(x, pad_width, asarray(kwargs.get("constant_values", 0)))
    if mode == "wrap":
        return _pad_wrap(x, pad_width)
    if mode in ("symmetric", "reflect"):
        return _pad_reflect(x, pad_width, mode, kwargs.get("reflect_type", "even"))
    if mode == "edge":
        return _pad_edge(x, pad_width)
    if mode == "linear_ramp":
        return _pad_linear_ramp(x, pad_width, _pairs(kwargs.get("end_values", 0), nd,
                                                     "end_values"))
    if mode in _STATS:
        stat_length = kwargs.get("stat_length")
        if stat_length is not None:
            stat_length = _pairs(stat_length, nd, "stat_length")
        return _pad_stats(x, pad_width, stat_length, _STATS[mode])
    return _pad_empty(x, pad_width)
