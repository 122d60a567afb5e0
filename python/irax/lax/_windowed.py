"""``irax.lax`` window reductions and cumulative reductions (``jax.lax`` compatible).

    lax.reduce_window(x, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "SAME")  # max pool
    lax.reduce_window(x, 0.0, lax.add, (3,), padding=((1, 1),))                 # window sum
    lax.cumsum(x, axis=0, reverse=True)

As in JAX, ``lax.add``/``lax.max``/``lax.min`` with their identity as a concrete init value
become the window-sum/max/min ops (``irax.reduce_window_*``, with JAX's derivatives); any
other computation (``lax.mul``, a Python function of scalars, several operands) is applied
tap by tap to strided slices of the padded operands. The cumulative reductions are
``associative_scan`` of their combiner, which is also how JAX differentiates them (so the
share of tied maxima matches JAX's gradient).
"""

from __future__ import annotations

import operator

import numpy as np

from irax.core import dtypes, tree_util
from irax.core.compat import partial_support
from irax.dialect import shape as SD
from irax.dialect import windowed as W
from irax.frontend.trace import bind
from irax.frontend.tracer import Tracer
from irax.lax import _elementwise as E
from irax.lax import _shape as LS
from irax.lax import _util as U
from irax.lax._control import associative_scan
from irax.lax._conv import padtype_to_pads  # noqa: F401 - re-exported with reduce_window
from irax.transforms.custom_derivatives import custom_jvp


# ---- shapes and padding -----------------------------------------------------------------------
def _check_shapelike(fun_name, arg_name, obj, non_zero_shape=False) -> tuple[int, ...]:
    """``obj`` as a tuple of ints, with JAX's TypeErrors for anything else."""
    if not isinstance(obj, (tuple, list, np.ndarray)):
        raise TypeError(f"{fun_name} {arg_name} must be of type tuple/list/ndarray, got "
                        f"{type(obj)}.")
    try:
        out = tuple(operator.index(d) for d in obj)
    except TypeError:
        raise TypeError(f"{fun_name} {arg_name} must have every element be an integer type, "
                        f"got {tuple(map(type, obj))}.") from None
    low, what = (1, "strictly positive") if non_zero_shape else (0, "nonnegative")
    if any(d < low for d in out):
        raise TypeError(f"{fun_name} {arg_name} must have every element be {what}, got "
                        f"{tuple(obj)}.")
    return out


def _pairs(padding, rank: int) -> tuple[tuple[int, int], ...]:
    try:
        pairs = tuple((operator.index(lo), operator.index(hi)) for lo, hi in padding)
    except (TypeError, ValueError):
        raise TypeError(f"reduce_window padding must be a string or a sequence of (low, high) "
                        f"integer pairs, got {padding!r}") from None
    if len(pairs) != rank:
        raise ValueError(f"reduce_window got padding {pairs} of length {len(pairs)} for an "
                         f"operand of rank {rank}")
    return pairs


def _window_config(name, shape, window_dimensions, window_strides, padding, base_dilation,
                   window_dilation) -> dict:
    """The checked attributes of a window reduction over an operand of ``shape``."""
    rank = len(shape)
    dims = _check_shapelike(name, "window_dimensions", window_dimensions, True)
    ones = (1,) * len(dims)
    strides = ones if window_strides is None else \
        _check_shapelike(name, "window_strides", window_strides, True)
    base = ones if base_dilation is None else \
        _check_shapelike(name, "base_dilation", base_dilation)
    wdil = ones if window_dilation is None else \
        _check_shapelike(name, "window_dilation", window_dilation)
    if rank != len(dims):
        raise TypeError(f"{name} got the wrong number of window_dimensions for operand: got "
                        f"operand shape {tuple(shape)} with window_dimensions {tuple(dims)}.")
    for key, v in (("window_strides", strides), ("base_dilation", base),
                   ("window_dilation", wdil)):
        if len(v) != len(dims):
            raise TypeError(f"{name} got inconsistent {key} and window_dimensions: got {key} "
                            f"{tuple(v)} and window_dimensions {tuple(dims)}.")
    if isinstance(padding, str) or padding is None:
        pads = padtype_to_pads(shape, W.dilate_shape(dims, wdil), strides,
                               "VALID" if padding is None else padding)
    else:
        pads = _pairs(padding, rank)
    config = dict(window_dimensions=dims, window_strides=strides,
                  padding_low=tuple(lo for lo, _ in pads),
                  padding_high=tuple(hi for _, hi in pads), base_dilation=base,
                  window_dilation=wdil)
    padded = [d + lo + hi for d, lo, hi in
              zip(W.dilate_shape(shape, base), config["padding_low"], config["padding_high"])]
    if any(p < 0 for p in padded):
        raise ValueError(f"{name}: the padding {tuple(pads)} makes the operand of shape "
                         f"{tuple(shape)} negative ({padded})")
    return config


def reduce_window_shape_tuple(operand_shape, window_dimensions, window_strides, padding,
                              base_dilation=None, window_dilation=None) -> tuple[int, ...]:
    """The result shape of ``reduce_window`` (``jax.lax.reduce_window_shape_tuple``);
    ``padding`` is a sequence of ``(low, high)`` pairs."""
    rank = len(window_dimensions)
    pads = _pairs(padding, rank)
    return W.window_shape(tuple(operand_shape), tuple(window_dimensions),
                          tuple(window_strides), [lo for lo, _ in pads],
                          [hi for _, hi in pads], base_dilation or (1,) * rank,
                          window_dilation or (1,) * rank)


# ---- reduce_window ------------------------------------------------------------------------------
def _concrete_scalar(x):
    """The value of a concrete rank-0 init value, else None (a traced one)."""
    if isinstance(x, Tracer):
        value = x._concrete
        return None if value is None or np.shape(value) != () else np.asarray(value)
    if not U.is_arraylike(x) or U.aval_of(x).shape != ():
        return None
    return U.host_data(x)


def _monoid(computation, init):
    """The window op for ``computation`` with this init value, when JAX uses one."""
    value = _concrete_scalar(init)
    if value is None:
        return None
    dt = U.aval_of(init).dtype
    if computation is E.add:
        return W.ReduceWindowSum if value == 0 else None
    for fn, op in ((E.max, W.ReduceWindowMax), (E.min, W.ReduceWindowMin)):
        if computation is fn:
            return op if value == np.array(op.identity(dt)).astype(dt) else None
    return None


def reduce_window(operand, init_value, computation, window_dimensions, window_strides=None,
                  padding="VALID", base_dilation=None, window_dilation=None):
    """Reduction over padded, dilated, strided windows (``jax.lax.reduce_window``).

    ``operand``/``init_value`` may be matching trees (several operands reduced together by a
    ``computation`` of two trees); ``padding`` is "VALID", "SAME", "SAME_LOWER" or
    ``(low, high)`` pairs."""
    flat_ops, tree = tree_util.tree_flatten(operand)
    flat_init, init_tree = tree_util.tree_flatten(init_value)
    if tree != init_tree:
        raise ValueError("Operands must have the same tree structure as init_values: "
                         f"{tree} vs. {init_tree}")
    if not flat_ops:
        raise ValueError("reduce_window must have at least one operand.")
    avals = [U.aval_of(x) for x in flat_ops]
    config = _window_config("reduce_window", avals[0].shape, window_dimensions,
                            window_strides, padding, base_dilation, window_dilation)
    op = _monoid(computation, flat_init[0]) if len(flat_ops) == 1 else None
    if op is not None:
        return tree_util.tree_unflatten(tree, [_window_op(op, flat_ops[0], avals[0], config)])
    return _generic(flat_ops, avals, flat_init, tree, computation, config)


def _window_op(op, x, aval, config):
    if op is W.ReduceWindowSum and not (dtypes.is_int(aval.dtype) or
                                        dtypes.is_inexact(aval.dtype)):
        raise TypeError("operand to reduce_window_sum must have a number dtype, got "
                        f"{aval.dtype.name}")
    if dtypes.is_complex(aval.dtype):
        if op is not W.ReduceWindowSum:
            raise TypeError(f"reduce_window: {op.name[12:]} of complex operands is not "
                            f"defined, got {aval.dtype.name}")
        # real and imaginary parts summed apart: IREE 3.13 crashes (SIGSEGV) compiling a
        # padded complex stablehlo.reduce_window
        parts = [bind(op, part(x), **config) for part in (E.real, E.imag)]
        return E.complex(*parts)
    return bind(op, U.as_operand(x), **config)


def _generic(flat_ops, avals, flat_init, tree, computation, config):
    """Any computation: the accumulator starts at the init values and combines, tap by tap
    in row-major window order, with the strided slice of each operand holding that tap of
    every window. Taps on padding or base-dilation holes are skipped, as XLA's CPU
    reduce_window skips them (the init value is applied once per window)."""
    inits = [U.as_operand(v) for v in flat_init]
    init_avals = [U.aval_of(v) for v in inits]
    if any(a.dtype != i.dtype for a, i in zip(avals, init_avals)):
        raise TypeError("reduce_window got inconsistent dtypes for operands and init_values: "
                        f"got operand dtypes {[a.dtype for a in avals]} and init_value dtypes "
                        f"{[i.dtype for i in init_avals]}.")
    if any(i.shape != () for i in init_avals):
        raise TypeError("reduce_window expected init_values to be scalars but init_values "
                        f"have shapes {[i.shape for i in init_avals]}.")
    if any(a.shape != avals[0].shape for a in avals):
        raise TypeError("reduce_window: operands must have one shape, got "
                        f"{[a.shape for a in avals]}")
    out_shape = W.window_shape(avals[0].shape, **config)
    inits = [U.convert(v, a.dtype) for v, a in zip(inits, avals)]
    padded = [bind(SD.Pad, U.as_operand(x), v, edge_padding_low=config["padding_low"],
                   edge_padding_high=config["padding_high"],
                   interior_padding=tuple(r - 1 for r in config["base_dilation"]))
              for x, v in zip(flat_ops, inits)]
    acc = [U.broadcast_in_dim(v, out_shape, ()) for v in inits]
    inside = W.dilate_and_pad_numpy(np.ones(avals[0].shape, bool), False, config["padding_low"],
                                    config["padding_high"], config["base_dilation"])
    for _, where in W.window_taps(out_shape, config["window_dimensions"],
                                  config["window_strides"], config["window_dilation"]):
        mask = inside[where]
        if not mask.any():
            continue
        taps = [_strided(p, where) for p in padded]
        out = computation(tree_util.tree_unflatten(tree, acc),
                          tree_util.tree_unflatten(tree, taps))
        flat, out_tree = tree_util.tree_flatten(out)
        if out_tree != tree:
            raise ValueError("reduce_window output must have the same tree structure as the "
                             f"operands {tree} vs. {out_tree}")
        flat = [U.broadcast_in_dim(U.as_operand(v), out_shape, ()) if U.aval_of(v).shape == ()
                else v for v in flat]
        acc = flat if mask.all() else [_where(mask, v, a) for v, a in zip(flat, acc)]
    acc = [U.convert(v, a.dtype) for v, a in zip(acc, avals)]
    return tree_util.tree_unflatten(tree, acc)


def _where(mask: np.ndarray, new, old):
    """``new`` where the tap is inside the operand, else ``old`` (XLA skips padding)."""
    new = U.convert(new, U.aval_of(old).dtype, U.aval_of(old).weak_type)
    return E.select(U.host_array(mask), new, old)


def _strided(x, where):
    return bind(SD.Slice, x, start_indices=[s.start for s in where],
                limit_indices=[s.stop for s in where], strides=[s.step for s in where])


# ---- cumulative reductions ----------------------------------------------------------------------
def _check_cumulative(name, operand, axis) -> int:
    a = U.aval_of(operand)
    if not (dtypes.is_int(a.dtype) or dtypes.is_inexact(a.dtype)):
        raise TypeError(f"{name} does not accept dtype {a.dtype.name}. Accepted dtypes are "
                        "subtypes of number.")
    axis = operator.index(axis)
    if axis < 0:
        raise ValueError(f"irax.lax.{name}: XLA operations do not allow negative axes, got "
                         f"axis {axis}")
    if axis >= a.ndim:
        raise ValueError(f"irax.lax.{name}: axis {axis} is out of bounds for array of shape "
                         f"{a.shape}")
    return axis


def _prefix_scan(x, combine, fill, axis: int, reverse: bool):
    """Inclusive scan by log-steps (Hillis-Steele, as ``jnp.cumsum``): ceil(log2 n) rounds of
    "shift by 2^k, filling with the identity, then combine"."""
    a = U.aval_of(x)
    n, k = a.shape[axis], 1
    pad_value = U.full((), fill, a.dtype, a.weak_type)
    while k < n:
        config = [(0, 0, 0)] * a.ndim
        config[axis] = (-k, k, 0) if reverse else (k, -k, 0)
        x = combine(x, LS.pad(x, pad_value, config))
        k *= 2
    return x


def _identity(name, dtype):
    if name in ("cumsum", "cumprod"):
        return 0 if name == "cumsum" else 1
    if name == "cumlogsumexp":
        return -np.inf
    lowest = W.ReduceWindowMax.identity(dtype)
    return lowest if name == "cummax" else W.ReduceWindowMin.identity(dtype)


def _cumulative(name, combine, operand, axis, reverse, pair_jvp=None):
    """The scan's value by log-steps. With ``pair_jvp`` (the combiner's JVP on (value,
    tangent) pairs) the derivative is ``associative_scan`` of those pairs: JAX's derivative,
    which fixes how tied maxima and minima share the tangent."""
    axis, reverse = _check_cumulative(name, operand, axis), bool(reverse)
    x = U.as_operand(operand)
    fill = _identity(name, U.aval_of(x).dtype)
    if pair_jvp is None:
        return _prefix_scan(x, combine, fill, axis, reverse)

    @custom_jvp
    def scan(v):
        return _prefix_scan(v, combine, fill, axis, reverse)

    @scan.defjvp
    def _scan_jvp(primals, tangents):
        return associative_scan(pair_jvp, (primals[0], tangents[0]), reverse, axis)

    return scan(x)


def _chooser_pair(choose):
    """JAX's JVP of ``lax.max``/``lax.min`` on pairs: each side's tangent weighs 1 where it
    is the result, 1/2 where both are."""
    def combine(a, b):
        (x, tx), (y, ty) = a, b
        z = choose(x, y)
        one, zero = U.full_like(z, 1), U.full_like(z, 0)
        wx = E.div(E.select(E.eq(x, z), one, zero), E.select(E.eq(y, z), E.add(one, one), one))
        wy = E.div(E.select(E.eq(y, z), one, zero), E.select(E.eq(x, z), E.add(one, one), one))
        return z, E.add(E.mul(tx, wx), E.mul(ty, wy))
    return combine


def _logaddexp_pair(a, b):
    (x, tx), (y, ty) = a, b
    z = _logaddexp(x, y)
    return z, _logaddexp_tangent(x, y, z, tx, ty)


def cumsum(operand, axis: int = 0, reverse: bool = False):
    """Cumulative sum along ``axis`` (``jax.lax.cumsum``); the dtype is unchanged."""
    return _cumulative("cumsum", E.add, operand, axis, reverse)


def cumprod(operand, axis: int = 0, reverse: bool = False):
    """Cumulative product along ``axis`` (``jax.lax.cumprod``)."""
    return _cumulative("cumprod", E.mul, operand, axis, reverse)


def cummax(operand, axis: int = 0, reverse: bool = False):
    """Cumulative maximum along ``axis`` (``jax.lax.cummax``)."""
    return _cumulative("cummax", E.max, operand, axis, reverse, _chooser_pair(E.max))


def cummin(operand, axis: int = 0, reverse: bool = False):
    """Cumulative minimum along ``axis`` (``jax.lax.cummin``)."""
    return _cumulative("cummin", E.min, operand, axis, reverse, _chooser_pair(E.min))


@partial_support("real floating inputs only (no complex)")
def cumlogsumexp(operand, axis: int = 0, reverse: bool = False):
    """Cumulative ``log(sum(exp(x)))`` along ``axis``, stable for large values
    (``jax.lax.cumlogsumexp``)."""
    a = U.aval_of(operand)
    if dtypes.is_int(a.dtype) or dtypes.is_complex(a.dtype):
        raise ValueError("irax.lax.cumlogsumexp: logaddexp requires real floating-point "
                         f"inputs here (complex is not supported yet); got {a.dtype.name}")
    return _cumulative("cumlogsumexp", _logaddexp, operand, axis, reverse,
                       _logaddexp_pair)


@custom_jvp
def _logaddexp(x1, x2):
    """``log(exp(x1) + exp(x2))`` without overflow; NaN or same-signed infinities add."""
    delta = E.sub(x1, x2)
    stable = E.add(E.max(x1, x2), E.log1p(E.exp(E.neg(E.abs(delta)))))
    return E.select(E.ne(delta, delta), E.add(x1, x2), stable)


def _replace_inf(x):
    return E.select(E.eq(x, U.full_like(x, np.inf)), U.full_like(x, 0), x)


def _logaddexp_tangent(x1, x2, out, t1, t2):
    """JAX's rule: ``t1 * exp(x1 - out) + t2 * exp(x2 - out)``, +inf replaced by 0."""
    w1 = E.exp(E.sub(_replace_inf(x1), _replace_inf(out)))
    w2 = E.exp(E.sub(_replace_inf(x2), _replace_inf(out)))
    return E.add(E.mul(t1, w1), E.mul(t2, w2))


@_logaddexp.defjvp
def _logaddexp_jvp(primals, tangents):
    out = _logaddexp(*primals)
    return out, _logaddexp_tangent(*primals, out, *tangents)
