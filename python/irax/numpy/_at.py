"""``x.at[idx]``: JAX's indexed updates (``jax.numpy.ndarray.at``).

    y = x.at[idx].set(v)        # x with x[idx] replaced by v (a new array)
    y = x.at[idx].add(v)        # repeated indices accumulate, as JAX's scatter-add
    v = x.at[idx].get(mode="fill", fill_value=0)

Every index form of ``x[idx]`` is accepted. The values are promoted with ``x``, combined in
that dtype, and the result is cast back to ``x``'s dtype and weak type (with JAX's
FutureWarning when the values cannot be cast safely). Out of bounds, updates are dropped
(``mode='drop'``/``'fill'``/``'promise_in_bounds'``, the default) or clamped (``'clip'``);
gathers clamp, or with ``mode='fill'`` give ``fill_value``. Negative indices wrap once
unless ``wrap_negative_indices=False``.

Two forms:
- a box (integers, traced integers and slices of step +-1 only): the window is read,
  combined and written back (``dynamic_update_slice``), a traced out-of-bounds start keeping
  ``x``;
- points (array indices, masks, other strides): ``positions[idx]`` of an iota of ``x``'s
  flat positions (out-of-bounds entries pointing past the end, where the scatter drops
  them) gives every element's flat position; one point scatter on the flattened ``x``.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from irax.core import dtypes
from irax.core.config import config
from irax.dialect import elementwise as E
from irax.dialect import scatter as SC
from irax.frontend.trace import bind
from irax.frontend.tracer import Tracer
from irax.lax import _shape as LS
from irax.lax import _util as LU
from irax.lax._control import while_loop
from irax.lax._reduce import reduce_max
from irax.numpy import _util as U
from irax.numpy._creation import asarray, ones_like
from irax.numpy._indexing import _fill_value, _index, _normalize, _static_slice_part, _wrap
from irax.numpy._ufuncs import divide as _divide
from irax.numpy._ufuncs import power as _power
from irax.transforms.vectorize import vmap

_SCATTER = {"set": SC.Scatter, "add": SC.ScatterAdd, "sub": SC.ScatterAdd,
            "mul": SC.ScatterMul, "min": SC.ScatterMin, "max": SC.ScatterMax}
_POINTS = dict(update_window_dims=(), inserted_window_dims=(0,),
               scatter_dims_to_operand_dims=(0,), index_vector_dim=1)


# ---- modes, values, dtypes -------------------------------------------------------------------
def _scatter_mode(mode) -> bool:
    """Whether out-of-bounds updates are dropped (else clamped)."""
    if mode is None or mode in ("fill", "drop", "promise_in_bounds", "one_hot"):
        return True
    if mode == "clip":
        return False
    raise ValueError(f'Unknown gather mode "{mode}"')


def _gather_fills(mode) -> bool:
    """Whether out-of-bounds gathers give the fill value (else clamp)."""
    if mode is None or mode in ("clip", "promise_in_bounds"):
        return False
    if mode in ("fill", "drop"):
        return True
    if mode == "one_hot":
        raise NotImplementedError("irax: .at[].get(mode='one_hot') is not supported")
    raise ValueError(f'Unknown gather mode "{mode}"')


def _values(xa, values):
    """The update values as an array: a Python int that fits ``x``'s integer dtype takes
    it (strongly), anything else is ``asarray``'d with its own dtype and weak type."""
    if isinstance(values, int) and dtypes.is_int(xa.dtype) and \
            dtypes.iinfo(xa.dtype).min <= values <= dtypes.iinfo(xa.dtype).max:
        return LU.full((), values, xa.dtype)
    return asarray(values)


def _warn_unsafe(y, dtype) -> None:
    ya = U.aval_of(y)
    if ya.dtype == dtype or dtypes.result_type(y, np.dtype(dtype)) == dtype:
        return
    warnings.warn(
        "scatter inputs have incompatible types: cannot safely cast value from "
        f"dtype={dtypes.short_name(ya.dtype)} to dtype={dtypes.short_name(dtype)} with "
        f"jax_numpy_dtype_promotion={config.jax_numpy_dtype_promotion}. In future JAX "
        "releases this will result in an error.", FutureWarning, stacklevel=4)


_LAX_NAMES = {"add": "add", "sub": "sub", "mul": "mul"}


def _check_numeric(kind: str, dt) -> None:
    if kind in _LAX_NAMES and dt == np.bool_:
        name = _LAX_NAMES[kind]
        raise TypeError(f"{name} does not accept dtype bool at position 0. Accepted dtypes at "
                        "position 0 are subtypes of integer, floating, complexfloating.")


def _combine(kind: str, current, update):
    """The elementwise combination of a box's current values with its update."""
    cls = {"add": E.Add, "sub": E.Sub, "mul": E.Mul, "min": E.Min, "max": E.Max}[kind]
    return bind(cls, current, update)


def _broadcast(name: str, y, shape):
    s = U.aval_of(y).shape
    nd = len(shape)
    if len(s) > nd or not all(d in (1, t) for d, t in zip(s, shape[nd - len(s):])):
        raise ValueError(f"irax.numpy.ndarray.at[].{name}: incompatible shapes for "
                         f"broadcasting: {s} and requested shape {tuple(shape)}")
    return LU.broadcast_to(y, shape)


# ---- indices ---------------------------------------------------------------------------------
def _static_index(v: int, n: int, drop: bool, wrap: bool):
    """A static integer index in bounds, or None when its update is dropped."""
    if wrap and v < 0:
        v += n
    if 0 <= v < n:
        return v
    if drop or n == 0:
        return None
    return min(max(v, 0), n - 1)


def _array_index(v, n: int, outside: bool, wrap: bool):
    """Array (or traced scalar) indices ready for ``_index``: wrapped once if ``wrap``;
    with ``outside``, every out-of-bounds entry becomes ``n`` (one past the end); else
    negatives clamp to 0 (``_index`` clamps the rest)."""
    if not isinstance(v, Tracer):
        a = np.asarray(LU.host_data(v)).astype(np.int64)
        if wrap:
            a = np.where(a < 0, a + n, a)
        a = np.where((a < 0) | (a >= n), n, a) if outside else np.maximum(a, 0)
        return LU.host_array(a.astype(np.int32))
    i = _wrap(v, n) if wrap else LU.convert(v, np.int32)
    zero = U.full_like(i, 0)
    if not outside:
        return bind(E.Max, i, zero)
    ok = bind(E.And, U.cmp(i, zero, "GE"), U.cmp(i, U.full_like(i, n), "LT"))
    return U.select(ok, i, U.full_like(i, n))


def _slice_bounds(v: slice, n: int, pos: int):
    start, stop, step = (_static_slice_part(p, pos) for p in (v.start, v.stop, v.step))
    if step == 0:
        raise ValueError("slice step cannot be zero")
    return slice(start, stop, step).indices(n)


def _empty(entries) -> bool:
    """Whether the index selects nothing because of a False scalar index."""
    return any(k == "bool" and not bool(np.asarray(LU.host_data(v))) for k, v in entries)


# ---- the box form ----------------------------------------------------------------------------
class _NotABox(Exception):
    pass


def _box(name, x, entries, y, kind, drop, wrap):
    """The update of a box (see the module docstring); None when it is dropped or empty."""
    shape = U.aval_of(x).shape
    starts, sizes, picked, rev, ok = [], [], [], [], None
    d = 0
    for k, v in entries:
        if k in ("none", "bool"):
            picked.append(1)
            continue
        n = shape[d]
        if k == "slice":
            start, stop, step = _slice_bounds(v, n, d)
            length = len(range(start, stop, step))
            if abs(step) != 1 and length > 1:
                raise _NotABox
            if step < 0:
                rev.append(len(picked))
                start = start - length + 1
            starts.append(start if length else 0)
            sizes.append(length)
            picked.append(length)
        elif k == "int":
            i = _static_index(v, n, drop, wrap)
            if i is None:
                return None
            starts.append(i)
            sizes.append(1)
        else:  # a traced integer
            i = _wrap(v, n) if wrap else LU.convert(v, np.int32)
            if drop:
                good = bind(E.And, U.cmp(i, U.full_like(i, 0), "GE"),
                            U.cmp(i, U.full_like(i, n), "LT"))
                ok = good if ok is None else bind(E.And, ok, good)
            starts.append(i)
            sizes.append(1)
        d += 1
    if 0 in sizes or 0 in picked:
        return None
    y = _broadcast(name, y, tuple(picked))
    if rev:
        y = LS.rev(y, rev)
    y = LU.reshape(y, sizes)
    if kind != "set":
        if any(isinstance(s, Tracer) for s in starts):
            current = LS.dynamic_slice(x, starts, sizes, allow_negative_indices=False)
        else:
            current = LS.slice(x, starts, [s + z for s, z in zip(starts, sizes)])
        y = _combine(kind, current, y)
    if tuple(sizes) == shape and not any(isinstance(s, Tracer) for s in starts):
        return y
    out = LS.dynamic_update_slice(x, y, starts, allow_negative_indices=False)
    return out if ok is None else U.select(ok, out, x)


# ---- the point form --------------------------------------------------------------------------
def _positions(shape, extended, dtype, like_traced: bool):
    """The flat position of every element of ``shape``, extended by one entry along the dims
    ``extended`` whose value is ``prod(shape)`` (past the end)."""
    size = math.prod(shape)
    full = tuple(n + e for n, e in zip(shape, extended))
    if not like_traced:
        p = np.arange(size, dtype=dtype).reshape(shape)
        p = np.pad(p, [(0, e) for e in extended], constant_values=size)
        return LU.host_array(p)
    strides = [math.prod(shape[d + 1:]) for d in range(len(shape))]
    pos, outside = None, None
    for d, (n, st) in enumerate(zip(shape, strides)):
        iota = LS.broadcasted_iota(dtype, full, d)
        term = bind(E.Mul, iota, U.full_like(iota, st)) if st != 1 else iota
        pos = term if pos is None else bind(E.Add, pos, term)
        if extended[d]:
            out_d = U.cmp(iota, U.full_like(iota, n), "GE")
            outside = out_d if outside is None else bind(E.Or, outside, out_d)
    if pos is None:
        return U.full((), 0, dtype)
    return pos if outside is None else U.select(outside, U.full_like(pos, size), pos)


def _points_index(x_shape, entries, outside: bool, drop: bool, wrap: bool):
    """The index rebuilt for ``_index`` on the extended positions, and which dims are
    extended; None when a static integer drops everything."""
    rebuilt, extended, d = [], [0] * len(x_shape), 0
    for k, v in entries:
        if k == "none":
            rebuilt.append(None)
            continue
        if k == "bool":
            rebuilt.append(bool(np.asarray(LU.host_data(v))))
            continue
        n = x_shape[d]
        if k == "slice":
            rebuilt.append(v)
        elif k == "int":
            i = _static_index(v, n, outside or drop, wrap)
            if i is None and not outside:
                return None, extended
            if i is None:
                i, extended[d] = n, 1
            rebuilt.append(i)
        else:
            rebuilt.append(_array_index(v, n, outside, wrap))
            extended[d] = int(outside)
        d += 1
    return tuple(rebuilt), extended


def _points(name, x, entries, y, kind, drop, wrap, unique):
    shape = U.aval_of(x).shape
    idx, extended = _points_index(shape, entries, drop, drop, wrap)
    if idx is None:
        return None
    size = math.prod(shape)
    it = np.int32 if size < np.iinfo(np.int32).max else np.int64
    traced = isinstance(x, Tracer) or any(isinstance(v, Tracer) for _, v in entries)
    pos = _index(_positions(shape, extended, it, traced), idx)
    ps = U.aval_of(pos).shape
    count = math.prod(ps)
    if count == 0:
        return None
    y = LU.reshape(_broadcast(name, y, ps), (count,))
    out = bind(_SCATTER[kind], LU.reshape(x, (size,)), LU.reshape(pos, (count, 1)), y,
               **_POINTS, unique_indices=bool(unique))
    return LU.reshape(out, shape)


# ---- the methods -----------------------------------------------------------------------------
def _update(name, x, idx, values, kind, *, mode=None, unique_indices=False,
            wrap_negative_indices=True):
    """``x`` with ``x[idx]`` combined with ``values`` by ``kind``."""
    x = U.as_array(f"ndarray.at[].{name}", x)
    xa = U.aval_of(x)
    y = _values(xa, values)
    _warn_unsafe(y, xa.dtype)
    drop = _scatter_mode(mode)
    entries = _normalize(xa.shape, idx)
    if _empty(entries):
        return x
    xp, yp = U.promote_dtypes(x, y)
    _check_numeric(kind, U.aval_of(xp).dtype)
    if kind == "sub":
        yp, kind = bind(E.Neg, yp), "add"
    out = None
    if not any(k == "array" for k, _ in entries):
        try:
            out = _box(name, xp, entries, yp, kind, drop, wrap_negative_indices)
        except _NotABox:
            out = _points(name, xp, entries, yp, kind, drop, wrap_negative_indices, True)
    else:
        out = _points(name, xp, entries, yp, kind, drop, wrap_negative_indices,
                      unique_indices)
    if out is None:
        return x
    return U.convert(_real_if_needed(out, xa.dtype), xa.dtype, xa.weak_type)


def _real_if_needed(out, dtype):
    """A complex result cast to a real ``dtype``: its real part, with JAX's ComplexWarning."""
    if dtypes.is_complex(U.aval_of(out).dtype) and not dtypes.is_complex(dtype):
        warnings.warn("Casting complex values to real discards the imaginary part",
                      np.exceptions.ComplexWarning, stacklevel=4)
        return bind(E.Real, out)
    return out


def _get(x, idx, *, mode=None, fill_value=None, wrap_negative_indices=True):
    """``x[idx]``, out-of-bounds entries clamped or (``mode='fill'``) filled."""
    fills = _gather_fills(mode)
    if not fills and wrap_negative_indices:
        return _index(x, idx)
    x = U.as_array("ndarray.at[].get", x)
    xa = U.aval_of(x)
    entries = _normalize(xa.shape, idx)
    rebuilt, extended = _points_index(xa.shape, entries, fills, False, wrap_negative_indices)
    if any(extended):
        fill = U.full((), _fill_value(xa.dtype, fill_value), xa.dtype, xa.weak_type)
        x = LS.pad(x, fill, [(0, e, 0) for e in extended])
    return _index(x, rebuilt)


def _apply(x, idx, func, *, mode=None, unique_indices=False, wrap_negative_indices=True):
    """``func`` applied at ``x[idx]``, once per occurrence of each element."""
    x = U.as_array("ndarray.at[].apply", x)
    xa = U.aval_of(x)
    counts = _update("apply", LU.full(xa.shape, 0, np.int32), idx, 1, "add", mode=mode,
                     unique_indices=unique_indices,
                     wrap_negative_indices=wrap_negative_indices)

    def once(v):
        r = func(v)
        if U.aval_of(r).shape != xa.shape:  # not elementwise: one element at a time
            flat = vmap(func)(LU.reshape(v, (xa.size,)))
            r = LU.reshape(flat, xa.shape)
        return U.convert(r, xa.dtype, xa.weak_type)

    def step(j, v):
        return U.select(U.cmp(counts, U.full_like(counts, j), "GT"), once(v), v)

    if not isinstance(counts, Tracer):
        for j in range(int(np.max(LU.host_data(counts), initial=0))):
            x = step(j, x)
        return x
    top = reduce_max(LU.reshape(counts, (xa.size,)), (0,)) if xa.size else 0

    def body(c):
        return c[0] + 1, step(c[0], c[1])

    return while_loop(lambda c: c[0] < top, body, (LU.full((), 0, np.int32), x))[1]


class _IndexUpdateRef:
    """``x.at[idx]``: the indexed update methods (``jax.numpy.ndarray.at``)."""

    __slots__ = ("array", "index")

    def __init__(self, array, index):
        self.array = array
        self.index = index

    def __repr__(self) -> str:
        return f"_IndexUpdateRef({self.array!r}, {self.index!r})"

    def get(self, *, indices_are_sorted=False, unique_indices=False, mode=None,
            fill_value=None, out_sharding=None, wrap_negative_indices=True):
        """``x[idx]`` (``mode='fill'``: out-of-bounds entries are ``fill_value``)."""
        return _get(self.array, self.index, mode=mode, fill_value=fill_value,
                    wrap_negative_indices=wrap_negative_indices)

    def set(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None,
            out_sharding=None, wrap_negative_indices=True):
        """``x[idx] = values`` (of repeated indices, the last one wins)."""
        return _update("set", self.array, self.index, values, "set", mode=mode,
                       unique_indices=unique_indices,
                       wrap_negative_indices=wrap_negative_indices)

    def apply(self, func, *, indices_are_sorted=False, unique_indices=False, mode=None,
              wrap_negative_indices=True):
        """``x[idx] = func(x[idx])``, ``func`` applied once per occurrence of an index."""
        return _apply(self.array, self.index, func, mode=mode, unique_indices=unique_indices,
                      wrap_negative_indices=wrap_negative_indices)

    def add(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None,
            out_sharding=None, wrap_negative_indices=True):
        """``x[idx] += values`` (repeated indices accumulate)."""
        return _update("add", self.array, self.index, values, "add", mode=mode,
                       unique_indices=unique_indices,
                       wrap_negative_indices=wrap_negative_indices)

    def subtract(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None,
                 out_sharding=None, wrap_negative_indices=True):
        """``x[idx] -= values``."""
        return _update("subtract", self.array, self.index, values, "sub", mode=mode,
                       unique_indices=unique_indices,
                       wrap_negative_indices=wrap_negative_indices)

    def multiply(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None,
                 out_sharding=None, wrap_negative_indices=True):
        """``x[idx] *= values``."""
        return _update("multiply", self.array, self.index, values, "mul", mode=mode,
                       unique_indices=unique_indices,
                       wrap_negative_indices=wrap_negative_indices)

    mul = multiply

    def divide(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None,
               out_sharding=None, wrap_negative_indices=True):
        """``x[idx] /= values``: ``x`` divided by the product, cast to ``x``'s dtype, of the
        values landing at each element (so an integer ``x`` gives floats, as in JAX)."""
        factors = _update("divide", ones_like(self.array), self.index, values, "mul",
                          mode=mode, unique_indices=unique_indices,
                          wrap_negative_indices=wrap_negative_indices)
        return _divide(self.array, factors)

    def power(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None,
              out_sharding=None, wrap_negative_indices=True):
        """``x[idx] **= values`` (the exponent elsewhere is 1)."""
        exponents = _update("power", ones_like(self.array), self.index, values, "mul",
                            mode=mode, unique_indices=unique_indices,
                            wrap_negative_indices=wrap_negative_indices)
        return _power(self.array, exponents)

    def min(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None,
            out_sharding=None, wrap_negative_indices=True):
        """``x[idx] = minimum(x[idx], values)`` (repeated indices accumulate)."""
        return _update("min", self.array, self.index, values, "min", mode=mode,
                       unique_indices=unique_indices,
                       wrap_negative_indices=wrap_negative_indices)

    def max(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None,
            out_sharding=None, wrap_negative_indices=True):
        """``x[idx] = maximum(x[idx], values)`` (repeated indices accumulate)."""
        return _update("max", self.array, self.index, values, "max", mode=mode,
                       unique_indices=unique_indices,
                       wrap_negative_indices=wrap_negative_indices)


class IndexUpdateHelper:
    """``x.at``: indexing it gives the indexed update methods (``x.at[idx].set(v)``)."""

    __slots__ = ("array",)

    def __init__(self, array):
        self.array = array

    def __getitem__(self, index) -> _IndexUpdateRef:
        return _IndexUpdateRef(self.array, index)

    def __repr__(self) -> str:
        return f"_IndexUpdateHelper({self.array!r})"
