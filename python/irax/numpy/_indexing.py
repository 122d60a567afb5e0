"""NumPy indexing (``x[idx]``), ``take`` and ``nonzero`` with JAX's semantics (notes 3).

``_index(x, idx)`` works in two stages:
1. basic: ``None`` and scalar bools become new size-1 axes; slices become one ``irax.reverse``
   (negative steps) and one strided ``irax.slice``; without array indices, integers become
   size-1 slices (static, clamped into bounds) or one ``irax.dynamic_slice`` (traced), squeezed
   out by a final reshape;
2. advanced: integer arrays (and, among them, integers) are wrapped once if negative and
   broadcast together, then one ``irax.gather`` picks them (out-of-bounds indices clamp). Their
   dimensions replace the indexed ones when the array indices are adjacent, else go first.
Boolean masks must be concrete; they become integer arrays (``nonzero``).
"""

from __future__ import annotations

import operator

import numpy as np

from irax.core import dtypes
from irax.core.errors import ConcretizationTypeError, NonConcreteBooleanIndexError
from irax.core.shape_poly import Dim, InconclusiveDimensionOperation
from irax.dialect import elementwise as E
from irax.dialect import indexing as I
from irax.dialect import shape as S
from irax.frontend.trace import bind
from irax.frontend.tracer import Tracer
from irax.lax import _shape as LS
from irax.lax import _util as LU
from irax.numpy import _logic
from irax.numpy import _util as U
from irax.numpy._reductions import cumsum
from irax.numpy._reductions import sum as sum_
from irax.numpy._shape import atleast_1d, ravel, stack
from irax.numpy._ufuncs import remainder

_INDEX_DTYPE = np.int32


def _is_array_index(x) -> bool:
    return isinstance(x, (np.ndarray, np.generic, LU.Array, Tracer))


def _check_list(idx) -> None:
    seq_like = any(isinstance(e, (list, tuple, slice)) or e is None or e is Ellipsis
                   for e in idx)
    hint = "`arr[tuple(seq)]`" if seq_like else "`arr[array(seq)]`"
    raise TypeError("Using a non-tuple sequence for multidimensional indexing is not allowed; use "
                    f"{hint} instead of `arr[seq]`. See https://github.com/jax-ml/jax/issues/4564 "
                    "for more information.")


def _classify(e):
    """('none'|'ellipsis'|'slice'|'bool'|'int'|'dyn'|'array', value) of one index entry."""
    if e is None:
        return "none", None
    if e is Ellipsis:
        return "ellipsis", None
    if isinstance(e, slice):
        return "slice", e
    if isinstance(e, str):
        raise TypeError(f"JAX does not support string indexing; got idx={e!r}")
    if isinstance(e, (list, tuple)):
        e = np.asarray(e)
        if e.dtype == object:
            raise TypeError(f"Indexer must have integer or boolean type, got {e!r}")
        if e.size == 0:
            e = e.astype(np.int32)
    if isinstance(e, bool) or (_is_array_index(e) and U.aval_of(e).dtype == np.bool_):
        return "bool", e
    if isinstance(e, int) or _is_array_index(e):
        a = U.aval_of(e)
        if not dtypes.is_int(a.dtype):
            raise TypeError("Indexer must have integer or boolean type, got indexer with type "
                            f"{dtypes.short_name(a.dtype)}")
        if a.ndim == 0:
            return ("dyn", e) if isinstance(e, Tracer) else ("int", int(LU.host_data(e)))
        return "array", e
    if isinstance(e, float):
        raise TypeError("Indexer must have integer or boolean type, got indexer with type "
                        "float64")
    raise TypeError(f"Indexing mode not yet supported. Got unsupported indexer: {e!r}")


def _static_slice_part(v, pos):
    if v is None:
        return None
    if isinstance(v, Tracer):
        raise IndexError(f"Slice entries must be static integers. Got slice({v!r}) at position "
                         f"{pos}")
    return operator.index(v)


def _normalize(x_shape, idx):
    """The index as entries over ``x`` after new axes: (entries, new_axis_positions, empties)."""
    if isinstance(idx, list):
        _check_list(idx)
    idx = idx if isinstance(idx, tuple) else (idx,)
    entries = [_classify(e) for e in idx]
    if sum(k == "ellipsis" for k, _ in entries) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    expanded = []
    for pos, (kind, v) in enumerate(entries):
        if kind == "bool" and U.aval_of(v).ndim:
            expanded.extend(("array", a) for a in _mask_indices(v, pos, x_shape, expanded))
        else:
            expanded.append((kind, v))
    used = sum(1 for k, _ in expanded if k in ("slice", "int", "dyn", "array"))
    if used > len(x_shape):
        raise IndexError(f"Too many indices: array is {len(x_shape)}-dimensional, but {used} were "
                         "indexed")
    out = []
    for kind, v in expanded:
        if kind == "ellipsis":
            out.extend([("slice", slice(None))] * (len(x_shape) - used))
        else:
            out.append((kind, v))
    if not any(k == "ellipsis" for k, _ in expanded):
        out.extend([("slice", slice(None))] * (len(x_shape) - used))
    return out


def _mask_indices(mask, pos, x_shape, before):
    if isinstance(mask, Tracer):
        raise NonConcreteBooleanIndexError(mask)
    m = np.asarray(LU.host_data(mask))
    start = sum(1 for k, _ in before if k in ("slice", "int", "dyn", "array"))
    expected = list(x_shape[start:start + m.ndim])
    # a zero-length mask dim matches any dim (as JAX): it selects nothing
    if m.ndim != len(expected) or not all(s in (0, e) for s, e in zip(m.shape, expected)):
        raise IndexError(f"boolean index did not match shape of indexed array in index {pos}: "
                         f"got {m.shape}, expected {expected}")
    return [LU.host_array(i.astype(_INDEX_DTYPE), home=LU.home_of(mask)) for i in np.nonzero(m)]


def _index(x, idx):
    """``x[idx]`` (the ``__getitem__`` of arrays and tracers)."""
    x = U.as_array("getitem", x)
    entries = _normalize(U.aval_of(x).shape, idx)
    advanced = any(k == "array" for k, _ in entries)
    # Stage 0: new axes (None, scalar bools) become size-1 dims indexed by a slice.
    shape = list(U.aval_of(x).shape)
    new_shape, dims = [], []
    for kind, v in entries:
        if kind in ("none", "bool"):
            new_shape.append(1)
            keep = kind == "none" or bool(np.asarray(LU.host_data(v)))
            dims.append(("slice", slice(None) if keep else slice(0, 0)))
        else:
            new_shape.append(shape.pop(0))
            dims.append(("array", v) if advanced and kind in ("int", "dyn") else (kind, v))
    x = LU.reshape(x, new_shape)
    x = _apply_slices(x, dims)
    if advanced:
        return _gather(x, dims)
    return _apply_scalars(x, dims)


def _symbolic_bounds(b, e, s, n, axis):
    """``(start, limit)`` of ``b:e:s`` on an axis of symbolic size ``n``: a non-negative
    start and a stop that is None or counts from the end, step 1 (what is known to fit)."""
    if s not in (None, 1) or (b is not None and b < 0) or (e is not None and e > 0):
        raise InconclusiveDimensionOperation(
            f"slice({b}, {e}, {s}) of axis {axis}, whose size {n} is symbolic: only a "
            "non-negative start, a stop that is None or negative, and step 1 are supported")
    lo = b or 0
    return lo, n if e is None else n + e


def _apply_slices(x, dims):
    """Reverse + strided slice for every slice entry and static int (others kept whole)."""
    shape = U.aval_of(x).shape
    rev, start, limit, stride = [], [], [], []
    for d, ((kind, v), n) in enumerate(zip(dims, shape)):
        lo, hi, st = 0, n, 1
        if kind == "slice":
            b, e, s = (_static_slice_part(p, d) for p in (v.start, v.stop, v.step))
            if s == 0:
                raise ValueError("slice step cannot be zero")
            if type(n) is Dim:   # a symbolic size: bounds relative to it, step 1
                lo, hi = _symbolic_bounds(b, e, s, n, d)
                start.append(lo)
                limit.append(hi)
                stride.append(1)
                continue
            b, e, s = slice(b, e, s).indices(n)
            if s < 0:
                rev.append(d)
                b, e, s = n - 1 - b, n - 1 - e, -s
            lo, hi, st = b, max(b, e), s
        elif kind == "int" and type(n) is Dim:
            if v < 0:
                raise InconclusiveDimensionOperation(
                    f"index {v} of axis {d}, whose size {n} is symbolic: use a non-negative "
                    "index")
            lo, hi = v, v + 1
        elif kind == "int":
            if n == 0:
                raise IndexError(f"index {v} is out of bounds for axis {d} with size 0")
            i = min(max(v + n if v < 0 else v, 0), n - 1)
            lo, hi = i, i + 1
        start.append(lo)
        limit.append(hi)
        stride.append(st)
    if rev:
        x = bind(S.Reverse, x, dimensions=tuple(rev))
    if (start, limit) != ([0] * len(shape), list(shape)) or set(stride) - {1}:
        x = bind(S.Slice, x, start_indices=start, limit_indices=limit, strides=stride)
    return x


def _wrap(i, n):
    """``i + n`` where ``i < 0`` (once), as int32; concrete values on the host."""
    if not isinstance(i, Tracer):
        a = np.asarray(LU.host_data(i)).astype(np.int64)
        return LU.host_array(np.where(a < 0, a + n, a).astype(_INDEX_DTYPE))
    i = LU.convert(i, _INDEX_DTYPE)
    neg = U.cmp(i, U.full_like(i, 0), "LT")
    return U.select(neg, bind(E.Add, i, U.full_like(i, n)), i)


def _apply_scalars(x, dims):
    """Dynamic (traced) integer indices, then the reshape dropping all integer-indexed dims."""
    shape = U.aval_of(x).shape
    dyn = [d for d, (k, _) in enumerate(dims) if k == "dyn"]
    if dyn:
        starts = [(_wrap(v, shape[d]) if k == "dyn" else U.full((), 0, _INDEX_DTYPE))
                  for d, (k, v) in enumerate(dims)]
        sizes = tuple(1 if k == "dyn" else n for (k, _), n in zip(dims, shape))
        x = bind(I.DynamicSlice, x, *starts, slice_sizes=sizes)
    out = tuple(n for (k, _), n in zip(dims, shape) if k not in ("int", "dyn"))
    return LU.reshape(x, out)


def _gather(x, dims):
    shape = U.aval_of(x).shape
    adv = [d for d, (k, _) in enumerate(dims) if k == "array"]
    idx = [_wrap(dims[d][1], shape[d]) for d in adv]
    bshape = U.broadcast_shapes("getitem", *(U.aval_of(i).shape for i in idx))
    if any(shape[d] == 0 for d in adv):
        return _gather_from_empty(x, adv, bshape)
    idx = [LU.reshape(LU.broadcast_to(i, bshape), bshape + (1,)) for i in idx]
    indices = idx[0] if len(idx) == 1 else bind(S.Concatenate, *idx, dimension=len(bshape))
    contiguous = adv == list(range(adv[0], adv[-1] + 1))
    at = adv[0] if contiguous else 0
    rest = len(shape) - len(adv)
    offset = tuple(i for i in range(rest + len(bshape)) if not at <= i < at + len(bshape))
    return bind(I.Gather, x, indices, offset_dims=offset, collapsed_slice_dims=tuple(adv),
                start_index_map=tuple(adv),
                slice_sizes=tuple(1 if d in adv else n for d, n in enumerate(shape)),
                index_vector_dim=len(bshape))


def _gather_from_empty(x, adv, bshape):
    """``x[idx]`` where an indexed dim of ``x`` is empty: empty indices give the (empty)
    result, as JAX; any index is out of range, where JAX's gather raises its TypeError."""
    shape = U.aval_of(x).shape
    d = next(d for d in adv if shape[d] == 0)
    if int(np.prod(bshape)) != 0:
        raise TypeError(f"Slice size at index {d} in gather op is out of range, must be "
                        f"within [0, 0 + 1), got 1.")
    contiguous = adv == list(range(adv[0], adv[-1] + 1))
    rest = [n for i, n in enumerate(shape) if i not in adv]
    at = adv[0] if contiguous else 0
    return LU.reshape(x, tuple(rest[:at]) + tuple(bshape) + tuple(rest[at:]))


def take(a, indices, axis=None, out=None, mode=None, unique_indices=False,
         indices_are_sorted=False, fill_value=None):
    """Elements of ``a`` at ``indices`` along ``axis``. ``mode`` 'fill' (default: out-of-bounds
    give NaN / INT_MIN / UINT_MAX / True), 'clip' (no negative wrap) or 'wrap'."""
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.take is not supported.")
    x = U.as_array("take", a)
    U.check_arraylike("take", indices)
    if axis is None:
        x, axis = LU.reshape(x, (U.aval_of(x).size,)), 0
    shape = U.aval_of(x).shape
    axis = LU.canonicalize_axis(axis, len(shape))
    n = shape[axis]
    idx = U.as_array("take", indices)
    ia = U.aval_of(idx)
    if not dtypes.is_int(ia.dtype):
        raise TypeError(f"take: indices must be integers, got {ia.str_short()}")
    mode = mode or "fill"
    if mode == "raise":
        raise NotImplementedError("The 'raise' mode to jnp.take is not supported.")
    if mode not in ("fill", "clip", "wrap"):
        raise ValueError(f"Invalid mode {mode!r} for jnp.take")
    if n == 0:  # JAX's rule: an empty take from an empty axis returns ``a`` itself
        if ia.size:
            raise IndexError("Cannot do a non-empty jnp.take() from an empty axis.")
        return x
    if mode == "wrap":
        i = LU.convert(remainder(idx, n), _INDEX_DTYPE)
    elif mode == "clip":
        i = LU.convert(idx, _INDEX_DTYPE)
    else:
        i = _wrap(idx, n)
    r = _gather_axis(x, axis, i)
    if mode != "fill":
        return r
    ok = bind(E.And, U.cmp(i, U.full_like(i, 0), "GE"), U.cmp(i, U.full_like(i, n), "LT"))
    ok = LU.broadcast_in_dim(ok, U.aval_of(r).shape, tuple(range(axis, axis + ia.ndim)))
    return U.select(ok, r, U.full_like(r, _fill_value(U.aval_of(r).dtype, fill_value)))


def _gather_axis(x, axis, i):
    shape = U.aval_of(x).shape
    ishape = U.aval_of(i).shape
    indices = LU.reshape(i, ishape + (1,))
    offset = tuple(d for d in range(len(shape) - 1 + len(ishape))
                   if not axis <= d < axis + len(ishape))
    return bind(I.Gather, x, indices, offset_dims=offset, collapsed_slice_dims=(axis,),
                start_index_map=(axis,),
                slice_sizes=tuple(1 if d == axis else n for d, n in enumerate(shape)),
                index_vector_dim=len(ishape))


def _fill_value(dt, fill_value):
    if fill_value is not None:
        return fill_value
    if dtypes.is_inexact(dt):
        return np.nan
    if dtypes.is_signed(dt):
        return dtypes.iinfo(dt).min
    if dtypes.is_unsigned(dt):
        return dtypes.iinfo(dt).max
    return True


def nonzero(a, *, size=None, fill_value=None):
    """Index arrays of the nonzero elements; needs a concrete ``a`` unless ``size`` is given."""
    x = U.as_array("nonzero", a)
    if U.aval_of(x).ndim == 0:
        raise ValueError("Calling nonzero on 0d arrays is not allowed. Use "
                         "jnp.atleast_1d(scalar).nonzero() instead.")
    if not isinstance(x, Tracer):
        found = np.nonzero(np.asarray(LU.host_data(x)))
        if size is not None:
            fills = fill_value if isinstance(fill_value, (list, tuple)) else \
                [0 if fill_value is None else fill_value] * len(found)
            found = [np.concatenate([f[:size], np.full(max(0, size - f.size), v)])
                     for f, v in zip(found, fills)]
        return tuple(LU.host_array(np.asarray(f).astype(dtypes.default_int_dtype()),
                                   home=LU.home_of(x)) for f in found)
    if size is None:
        count = U.full((), 0, dtypes.default_int_dtype())
        raise ConcretizationTypeError(
            count, "The size argument of jnp.nonzero must be statically specified to use "
            "jnp.nonzero within JAX transformations.")
    return _nonzero_sized(x, int(size), fill_value)


def _nonzero_sized(x, size, fill_value):
    """``nonzero`` of a traced array with a static result size: the position of the (j+1)-th
    nonzero element is the number of elements whose running count is at most j."""
    shape = U.aval_of(x).shape
    it = dtypes.default_int_dtype()
    flat = LU.reshape(U.to_bool(x), (int(np.prod(shape)),))
    counts = cumsum(flat)
    n = U.aval_of(flat).shape[0]
    j = LS.broadcasted_iota(it, (size, n), 0)
    before = U.cmp(LU.broadcast_in_dim(counts, (size, n), (1,)), j, "LE")
    pos = sum_(before, axis=1, dtype=it)
    valid = U.cmp(pos, U.full_like(pos, n), "LT")
    fills = fill_value if isinstance(fill_value, (list, tuple)) else \
        [0 if fill_value is None else fill_value] * len(shape)
    out, rem = [], pos
    for d in reversed(range(len(shape))):
        out.append(bind(E.Rem, rem, U.full_like(rem, shape[d])))
        rem = bind(E.Div, rem, U.full_like(rem, shape[d]))
    out.reverse()
    return tuple(U.select(valid, o, U.full_like(o, f)) for o, f in zip(out, fills))


def flatnonzero(a, *, size=None, fill_value=None):
    return nonzero(ravel(a), size=size, fill_value=fill_value)[0]


def argwhere(a, *, size=None, fill_value=None):
    return stack(nonzero(atleast_1d(a), size=size, fill_value=fill_value), axis=1)


def where(condition, x=None, y=None, /, *, size=None, fill_value=None):
    """``condition ? x : y`` elementwise; with one argument, ``nonzero(condition)``."""
    if x is None and y is None:
        return nonzero(condition, size=size, fill_value=fill_value)
    return _logic.where(condition, x, y, size=size, fill_value=fill_value)


def repeat(a, repeats, axis=None, *, total_repeat_length=None):
    """Repeats elements; ``repeats`` must be concrete (an int or one count per element)."""
    x = U.as_array("repeat", a)
    if axis is None:
        x, axis = ravel(x), 0
    s = U.aval_of(x).shape
    axis = LU.canonicalize_axis(axis, len(s))
    counts = np.asarray(LU.host_data(repeats)) if not isinstance(repeats, int) else None
    if counts is None or counts.ndim == 0:
        r = int(repeats if counts is None else counts)
        big = s[:axis + 1] + (r,) + s[axis + 1:]
        y = LU.broadcast_in_dim(x, big, tuple(i for i in range(len(big)) if i != axis + 1))
        out = LU.reshape(y, s[:axis] + (s[axis] * r,) + s[axis + 1:])
    else:
        idx = np.repeat(np.arange(s[axis]), counts)
        out = take(x, LU.host_array(idx.astype(np.int32)), axis=axis)
    if total_repeat_length is not None and U.aval_of(out).shape[axis] != total_repeat_length:
        raise ValueError("total_repeat_length does not match the repeated length")
    return out
