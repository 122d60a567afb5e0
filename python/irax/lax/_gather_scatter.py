"""``irax.lax`` gather and scatter with XLA's dimension numbers (``jax.lax.gather``,
``jax.lax.scatter_add`` and friends).

As in JAX the index vector is always the last dimension of the indices. Out of bounds:

    gather(..., mode="promise_in_bounds")   # the default: starts clamp (XLA's behaviour)
    gather(..., mode="clip")                # the same, explicitly
    gather(..., mode="fill", fill_value=0)  # a window not wholly inside gets fill_value
    scatter_add(..., mode=None)             # FILL_OR_DROP: such a window is dropped
    scatter_add(..., mode="clip")           # the starts are clamped first

Both are built on ``irax.gather`` and the ``irax.scatter*`` ops (``dialect/indexing.py``,
``dialect/scatter.py``), which carry the derivative and batching rules.
"""

from __future__ import annotations

import enum
import operator
from typing import NamedTuple

import numpy as np

from irax.core import dtypes
from irax.core.abstract import ShapedArray
from irax.dialect import elementwise as E
from irax.dialect import indexing as I
from irax.dialect import scatter as SC
from irax.dialect.base import OpError
from irax.frontend.trace import bind
from irax.frontend.tracer import Tracer
from irax.lax import _util as U
from irax.lax._control import while_loop
from irax.lax._elementwise import resolve_scalars
from irax.lax._reduce import reduce_and, reduce_max
from irax.lax._shape import concatenate, expand_dims


class GatherDimensionNumbers(NamedTuple):
    """XLA's gather dimension numbers, the index vector being the last indices dim
    (``jax.lax.GatherDimensionNumbers``)."""

    offset_dims: tuple[int, ...]
    collapsed_slice_dims: tuple[int, ...]
    start_index_map: tuple[int, ...]
    operand_batching_dims: tuple[int, ...] = ()
    start_indices_batching_dims: tuple[int, ...] = ()


class ScatterDimensionNumbers(NamedTuple):
    """XLA's scatter dimension numbers, the index vector being the last indices dim
    (``jax.lax.ScatterDimensionNumbers``)."""

    update_window_dims: tuple[int, ...]
    inserted_window_dims: tuple[int, ...]
    scatter_dims_to_operand_dims: tuple[int, ...]
    operand_batching_dims: tuple[int, ...] = ()
    scatter_indices_batching_dims: tuple[int, ...] = ()


class GatherScatterMode(enum.Enum):
    """How gathers and scatters treat out-of-bounds indices (``jax.lax.GatherScatterMode``):
    CLIP clamps, FILL_OR_DROP fills (gather) or drops (scatter) the whole window,
    PROMISE_IN_BOUNDS clamps gathers and drops scatters."""

    CLIP = enum.auto()
    FILL_OR_DROP = enum.auto()
    PROMISE_IN_BOUNDS = enum.auto()
    ONE_HOT = enum.auto()

    @staticmethod
    def from_any(s) -> GatherScatterMode:
        if isinstance(s, GatherScatterMode):
            return s
        if s == "clip":
            return GatherScatterMode.CLIP
        if s is None or s in ("fill", "drop"):
            return GatherScatterMode.FILL_OR_DROP
        if s == "promise_in_bounds":
            return GatherScatterMode.PROMISE_IN_BOUNDS
        if s == "one_hot":
            return GatherScatterMode.ONE_HOT
        raise ValueError(f'Unknown gather mode "{s}"')


def _ints(v) -> tuple[int, ...]:
    return tuple(operator.index(d) for d in v)


def _check_indices(name: str, idx) -> None:
    a = U.aval_of(idx)
    if not dtypes.is_int(a.dtype):
        raise TypeError(f"{name}: indices must have an integer type, got "
                        f"{dtypes.short_name(a.dtype)}")
    if a.ndim == 0:
        raise TypeError(f"{name}: indices must have at least one dimension (the index vector "
                        f"is the last one), got a scalar")


def _infer(name: str, op_cls, avals, attrs) -> ShapedArray:
    """The op's result type, its complaints raised as JAX's TypeError naming ``name``."""
    try:
        return op_cls.infer(*avals, **attrs)
    except OpError as e:
        raise TypeError(f"irax.lax.{name}: {e}") from None


def _default_fill(dt):
    if dtypes.is_inexact(dt):
        return np.nan
    if dt == np.bool_:
        return True
    info = dtypes.iinfo(dt)
    return info.min if dtypes.is_signed(dt) else info.max


# ---- gather ----------------------------------------------------------------------------------
def gather(operand, start_indices, dimension_numbers, slice_sizes, *, unique_indices=False,
           indices_are_sorted=False, mode=None, fill_value=None):
    """XLA's gather (``jax.lax.gather``): one ``slice_sizes`` window of ``operand`` per index
    vector (the last dim of ``start_indices``); see the module docstring for ``mode``."""
    del unique_indices, indices_are_sorted  # promises only
    dn = GatherDimensionNumbers(*dimension_numbers)
    parsed = GatherScatterMode.from_any(
        GatherScatterMode.PROMISE_IN_BOUNDS if mode is None else mode)
    if parsed is GatherScatterMode.ONE_HOT:
        raise NotImplementedError("irax.lax.gather: mode ONE_HOT is not supported")
    _check_indices("gather", start_indices)
    x, idx = U.as_operand(operand), U.as_operand(start_indices)
    xa, ia = U.aval_of(x), U.aval_of(idx)
    attrs = dict(offset_dims=_ints(dn.offset_dims),
                 collapsed_slice_dims=_ints(dn.collapsed_slice_dims),
                 start_index_map=_ints(dn.start_index_map), slice_sizes=_ints(slice_sizes),
                 index_vector_dim=ia.ndim - 1,
                 operand_batching_dims=_ints(dn.operand_batching_dims),
                 start_indices_batching_dims=_ints(dn.start_indices_batching_dims))
    out = _infer("gather", I.Gather, (xa, ia), attrs)
    y = bind(I.Gather, x, idx, **attrs)
    if parsed is not GatherScatterMode.FILL_OR_DROP:
        return y
    fill = _default_fill(xa.dtype) if fill_value is None else fill_value
    ok = _in_bounds(idx, xa.shape, [attrs["slice_sizes"][d] for d in attrs["start_index_map"]],
                    attrs["start_index_map"])
    batch_dims = [r for r in range(out.ndim) if r not in attrs["offset_dims"]]
    mask = U.broadcast_in_dim(ok, out.shape, batch_dims)
    if isinstance(fill, Tracer):
        filled = U.broadcast_to(U.convert(fill, xa.dtype, xa.weak_type), out.shape)
    else:
        filled = U.full(out.shape, U.host_data(fill), xa.dtype, xa.weak_type)
    return bind(E.Select, mask, y, filled)


def _in_bounds(idx, shape, window, dims):
    """Whether each index vector starts a window lying wholly inside ``shape``."""
    ia = U.aval_of(idx)
    if not dims:
        return U.full(ia.shape[:-1], True, np.bool_)
    hi = np.array([shape[d] - w for d, w in zip(dims, window)])
    hi = np.minimum(hi, dtypes.iinfo(ia.dtype).max).astype(ia.dtype)
    top = U.broadcast_in_dim(U.host_array(hi), ia.shape, (ia.ndim - 1,))
    ok = bind(E.And, bind(E.Compare, idx, U.full(ia.shape, 0, ia.dtype), direction="GE"),
              bind(E.Compare, idx, top, direction="LE"))
    return reduce_and(ok, (ia.ndim - 1,))


def _clamped(idx, shape, window, dims):
    """``idx`` with each index vector clamped so that its window lies inside ``shape``."""
    ia = U.aval_of(idx)
    if not dims:
        return idx
    hi = np.array([max(shape[d] - w, 0) for d, w in zip(dims, window)])
    hi = np.minimum(hi, dtypes.iinfo(ia.dtype).max).astype(ia.dtype)
    top = U.broadcast_in_dim(U.host_array(hi), ia.shape, (ia.ndim - 1,))
    return bind(E.Min, bind(E.Max, idx, U.full(ia.shape, 0, ia.dtype)), top)


def index_take(src, idxs, axes):
    """``src`` indexed by one integer array per axis of ``axes`` (taken modulo the axis size)
    (``jax.lax.index_take``)."""
    axes = _ints(axes)
    sa = U.aval_of(src)
    cols = [expand_dims(i, (1,)) for i in idxs]
    indices = concatenate(cols, 1)
    ia = U.aval_of(indices)
    n = U.broadcast_in_dim(U.host_array(np.array([sa.shape[a] for a in axes], ia.dtype)),
                           ia.shape, (1,))
    r = bind(E.Rem, indices, n)
    neg = bind(E.Compare, r, U.full(ia.shape, 0, ia.dtype), direction="LT")
    indices = bind(E.Select, neg, bind(E.Add, r, n), r)
    sizes = [1 if d in axes else s for d, s in enumerate(sa.shape)]
    dn = GatherDimensionNumbers(offset_dims=tuple(range(1, sa.ndim - len(axes) + 1)),
                                collapsed_slice_dims=axes, start_index_map=axes)
    return gather(src, indices, dn, sizes)


# ---- scatter ---------------------------------------------------------------------------------
def _scatter(name, op_cls, operand, indices, updates, dimension_numbers, mode,
             indices_are_sorted, unique_indices, negate=False):
    dn = ScatterDimensionNumbers(*dimension_numbers)
    parsed = GatherScatterMode.from_any(mode)
    if parsed is GatherScatterMode.ONE_HOT:
        raise NotImplementedError(f"irax.lax.{name}: mode ONE_HOT is not supported")
    _check_indices(name, indices)
    operand, updates = resolve_scalars([operand, updates])
    xa, ua = U.aval_of(operand), U.aval_of(updates)
    if xa.dtype != ua.dtype:
        raise TypeError(f"lax.{name} requires arguments to have the same dtypes, got "
                        f"{dtypes.short_name(xa.dtype)}, {dtypes.short_name(ua.dtype)}.")
    x, idx, u = U.as_operand(operand), U.as_operand(indices), U.as_operand(updates)
    ia = U.aval_of(idx)
    attrs = dict(update_window_dims=_ints(dn.update_window_dims),
                 inserted_window_dims=_ints(dn.inserted_window_dims),
                 scatter_dims_to_operand_dims=_ints(dn.scatter_dims_to_operand_dims),
                 index_vector_dim=ia.ndim - 1,
                 input_batching_dims=_ints(dn.operand_batching_dims),
                 scatter_indices_batching_dims=_ints(dn.scatter_indices_batching_dims),
                 indices_are_sorted=bool(indices_are_sorted),
                 unique_indices=bool(unique_indices))
    _infer(name, op_cls, (xa, ia, ua), attrs)
    if parsed is GatherScatterMode.CLIP:
        window = SC.ScatterAdd.window(xa.shape, ua.shape, attrs["update_window_dims"],
                                      attrs["inserted_window_dims"],
                                      attrs["input_batching_dims"])
        sd = attrs["scatter_dims_to_operand_dims"]
        idx = _clamped(idx, xa.shape, [window[d] for d in sd], sd)
    if negate:
        u = bind(E.Neg, u)
    return bind(op_cls, x, idx, u, **attrs)


def _scatter_fn(name, op_cls, doc, negate=False):
    def fn(operand, scatter_indices, updates, dimension_numbers, *, indices_are_sorted=False,
           unique_indices=False, mode=None):
        return _scatter(name, op_cls, operand, scatter_indices, updates, dimension_numbers,
                        mode, indices_are_sorted, unique_indices, negate)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"XLA's scatter {doc}: window ``i`` of ``updates`` combines with ``operand`` "
                  f"at index vector ``i`` (``jax.lax.{name}``); out-of-bounds windows are "
                  "dropped (``mode='clip'``: clamped).")
    return fn


scatter = _scatter_fn("scatter", SC.Scatter, "(the update replaces the value)")
scatter_add = _scatter_fn("scatter_add", SC.ScatterAdd, "with addition")
scatter_sub = _scatter_fn("scatter_sub", SC.ScatterAdd, "with subtraction", negate=True)
scatter_mul = _scatter_fn("scatter_mul", SC.ScatterMul, "with multiplication")
scatter_min = _scatter_fn("scatter_min", SC.ScatterMin, "with minimum")
scatter_max = _scatter_fn("scatter_max", SC.ScatterMax, "with maximum")


def scatter_apply(operand, scatter_indices, func, dimension_numbers, *, update_shape=(),
                  indices_are_sorted=False, unique_indices=False, mode=None):
    """``func`` applied to each element of ``operand`` a scatter with updates of shape
    ``update_shape`` would reach, once per time it is reached (``jax.lax.scatter_apply``)."""
    x = U.as_operand(operand)
    xa = U.aval_of(x)
    counts = scatter_add(U.full(xa.shape, 0, np.int32), scatter_indices,
                         U.full(tuple(update_shape), 1, np.int32), dimension_numbers,
                         indices_are_sorted=indices_are_sorted, unique_indices=unique_indices,
                         mode=mode)

    def step(j, v):
        fv = U.convert(func(v), xa.dtype, xa.weak_type)
        hit = bind(E.Compare, counts, U.full(xa.shape, j, np.int32), direction="GT")
        return bind(E.Select, hit, U.broadcast_to(fv, xa.shape), v)

    if not isinstance(counts, Tracer):
        for j in range(int(np.max(U.host_data(counts), initial=0))):
            x = step(j, x)
        return x
    top = reduce_max(U.reshape(counts, (xa.size,)), (0,)) if xa.size else 0

    def body(c):
        return c[0] + 1, step(c[0], c[1])

    return while_loop(lambda c: c[0] < top, body, (U.full((), 0, np.int32), x))[1]
