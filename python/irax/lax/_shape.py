"""``irax.lax`` structural operations: broadcasting, reshaping, slicing, padding, iota.

Arguments are checked here with JAX's messages, so that bad input never reaches an op's
verifier:

    lax.broadcast_in_dim(x, (2, 3), (1,))      # "irax.broadcast_in_dim"
    lax.dynamic_slice(x, (i,), (2,))           # negative starts wrap once, then clamp
    lax.pad(x, 0.0, [(1, 2, 0)])               # (low, high, interior) per dimension
"""

from __future__ import annotations

import operator

import numpy as np

from irax.core import dtypes
from irax.core.shape_poly import Dim, sizes
from irax.dialect import elementwise as E
from irax.dialect import indexing as I
from irax.dialect import shape as S
from irax.dialect.constant import Iota
from irax.frontend.trace import bind
from irax.frontend.tracer import Tracer
from irax.lax import _util as U
from irax.lax._elementwise import resolve_scalars


def _ints(values, what: str) -> tuple[int, ...]:
    try:
        return sizes(values)     # symbolic sizes (abstracted axes) are kept
    except TypeError:
        raise TypeError(f"{what} must be a sequence of integers, got {tuple(values)!r}") from None


def _shape(shape, what: str = "shape") -> tuple[int, ...]:
    """A static shape; tracers and floats raise JAX's TypeError."""
    if isinstance(shape, (int, np.integer)) or (hasattr(shape, "ndim") and shape.ndim == 0):
        shape = (shape,)
    try:
        dims = sizes(shape)    # symbolic sizes (jit with abstracted_axes) are kept
    except TypeError:
        raise TypeError("Shapes must be 1D sequences of concrete values of integer type, got "
                        f"{tuple(shape)!r}.") from None
    if any(d < 0 for d in dims):
        raise TypeError(f"'{what}' elements must be non-negative, got {dims}.")
    return dims


def broadcast_in_dim(operand, shape, broadcast_dimensions):
    """Broadcasts ``operand`` to ``shape``; operand dim ``i`` becomes result dim
    ``broadcast_dimensions[i]`` (size 1 or equal)."""
    shape = _shape(shape)
    dims = _ints(broadcast_dimensions, "broadcast_dimensions")
    a = U.aval_of(operand)
    if len(dims) != a.ndim:
        raise TypeError("broadcast_in_dim broadcast_dimensions must have length equal to operand "
                        f"ndim; got broadcast_dimensions {dims} for operand ndim {a.ndim}.")
    if any(not 0 <= d < len(shape) for d in dims) or list(dims) != sorted(set(dims)):
        raise TypeError("broadcast_in_dim broadcast_dimensions must be strictly increasing and in "
                        f"range [0, {len(shape)}); got broadcast_dimensions {dims}.")
    if any(s != 1 and s != shape[d] for s, d in zip(a.shape, dims)):
        raise TypeError("broadcast_in_dim operand dimension sizes must either be 1, or be equal to "
                        "their corresponding dimensions in the target broadcast shape; got operand "
                        f"of shape {a.shape}, target broadcast shape {shape}, broadcast_dimensions "
                        f"{dims} ")
    return U.broadcast_in_dim(U.as_operand(operand), shape, dims)


def broadcast(operand, sizes):
    """Adds leading dimensions ``sizes``."""
    sizes = _shape(sizes, "sizes")
    a = U.aval_of(operand)
    nd = len(sizes) + a.ndim
    return broadcast_in_dim(operand, sizes + a.shape, tuple(range(len(sizes), nd)))


def reshape(operand, new_sizes, dimensions=None):
    """Row-major reshape, after transposing by ``dimensions`` when given."""
    new_sizes = _shape(new_sizes, "new_sizes")
    a = U.aval_of(operand)
    if int(np.prod(new_sizes)) != a.size:
        raise TypeError(f"reshape total size must be unchanged, got new_sizes {new_sizes} (of "
                        f"total size {int(np.prod(new_sizes))}) for shape {a.shape} (of total "
                        f"size {a.size}).")
    x = U.as_operand(operand)
    if dimensions is not None:
        x = transpose(x, dimensions)
    return U.reshape(x, new_sizes)


def transpose(operand, permutation):
    perm = _ints(permutation, "permutation")
    a = U.aval_of(operand)
    if sorted(perm) != list(range(a.ndim)):
        raise TypeError("transpose permutation isn't a permutation of operand dimensions, got "
                        f"permutation {perm} for operand shape {a.shape}.")
    return U.transpose(U.as_operand(operand), perm)


def squeeze(array, dimensions):
    """Removes the size-1 dimensions ``dimensions``."""
    a = U.aval_of(array)
    dims = tuple(sorted(U.canonicalize_axis(d, a.ndim) for d in _ints(dimensions, "dimensions")))
    if any(a.shape[d] != 1 for d in dims):
        raise ValueError("cannot select an axis to squeeze out which has size not equal to one, "
                         f"got shape={a.shape} and dimensions={tuple(dimensions)}")
    shape = tuple(s for i, s in enumerate(a.shape) if i not in dims)
    return U.reshape(U.as_operand(array), shape)


def expand_dims(array, dimensions):
    """Inserts size-1 dimensions at ``dimensions`` (positions in the result)."""
    a = U.aval_of(array)
    nd = a.ndim + len(dimensions)
    dims = sorted(U.canonicalize_axis(d, nd) for d in _ints(dimensions, "dimensions"))
    shape = list(a.shape)
    for d in dims:
        shape.insert(d, 1)
    return U.reshape(U.as_operand(array), shape)


def slice(operand, start_indices, limit_indices, strides=None):  # noqa: A001
    """The static slice ``operand[start:limit:stride]`` per dimension."""
    a = U.aval_of(operand)
    start = _ints(start_indices, "start_indices")
    limit = _ints(limit_indices, "limit_indices")
    stride = (1,) * a.ndim if strides is None else _ints(strides, "strides")
    if not len(start) == len(limit) == len(stride) == a.ndim:
        raise TypeError(f"slice start_indices, limit_indices and strides must have length equal "
                        f"to the operand rank {a.ndim}, got {start}, {limit}, {stride}.")
    if any(lim > s for lim, s in zip(limit, a.shape)):
        raise TypeError(f"slice limit_indices must be less than or equal to operand shape, got "
                        f"limit_indices {limit} for operand shape {a.shape}.")
    if any(not 0 <= b <= lim for b, lim in zip(start, limit)):
        raise TypeError(f"slice start_indices must be between 0 and limit_indices, got "
                        f"start_indices {start} and limit_indices {limit}.")
    if any(s < 1 for s in stride):
        raise TypeError(f"slice strides must be positive, got {stride}")
    if start == (0,) * a.ndim and limit == a.shape and set(stride) <= {1}:
        return U.as_operand(operand)
    return bind(S.Slice, U.as_operand(operand), start_indices=start, limit_indices=limit,
                strides=stride)


def slice_in_dim(operand, start_index, limit_index, stride: int = 1, axis: int = 0):
    """``operand[start:limit:stride]`` along ``axis`` only (``jax.lax.slice_in_dim``);
    None means the start or the end, and negative indices count from the end."""
    a = U.aval_of(operand)
    axis = U.canonicalize_axis(axis, a.ndim)
    n = a.shape[axis]
    start = 0 if start_index is None else operator.index(start_index)
    limit = n if limit_index is None else operator.index(limit_index)
    start, limit = start + n if start < 0 else start, limit + n if limit < 0 else limit
    starts, limits, strides = [0] * a.ndim, list(a.shape), [1] * a.ndim
    starts[axis], limits[axis], strides[axis] = start, limit, int(stride)
    return slice(operand, starts, limits, strides)


def _start_indices(starts, a, allow_negative=True):
    """Scalar int32 start indices (negative ones wrap once when ``allow_negative``)."""
    if hasattr(starts, "ndim") and not isinstance(starts, (list, tuple)):
        if starts.ndim != 1:
            raise TypeError(f"dynamic_slice start_indices must be a sequence, got {starts!r}")
        starts = [starts[i] for i in range(starts.shape[0])]
    starts = list(starts)
    if len(starts) != a.ndim:
        raise TypeError(f"Length of slice indices must match number of operand dimensions "
                        f"({len(starts)} vs {a.ndim})")
    out = []
    for s, n in zip(starts, a.shape):
        sa = U.aval_of(s)
        if sa.ndim or not (dtypes.is_int(sa.dtype) or sa.dtype == np.bool_):
            raise TypeError(f"index arguments to dynamic_slice must be integer scalars, got "
                            f"{sa.str_short()}")
        out.append(_wrap_index(s, n) if allow_negative else U.convert(s, np.int32))
    return out


def _wrap_index(s, n: int):
    """``s + n`` if ``s < 0`` else ``s``, as int32 (concrete values on the host)."""
    size = U.convert(n, np.int32) if type(n) is Dim else U.full((), n, np.int32)
    if not isinstance(s, Tracer):
        v = int(U.host_data(s))
        if v >= 0 or type(n) is not Dim:
            return U.full((), v + n if v < 0 else v, np.int32)
        return bind(E.Add, U.full((), v, np.int32), size)
    s = U.convert(s, np.int32)
    neg = bind(E.Compare, s, U.full((), 0, np.int32), direction="LT")
    return bind(E.Select, neg, bind(E.Add, s, size), s)


def dynamic_slice(operand, start_indices, slice_sizes, *, allow_negative_indices=True):
    """``operand[start:start+size]`` with traced starts, clamped into bounds like XLA."""
    a = U.aval_of(operand)
    sizes = _shape(slice_sizes, "slice_sizes")
    if len(sizes) != a.ndim or any(z > n for z, n in zip(sizes, a.shape)):
        raise TypeError(f"slice slice_sizes must be less than or equal to operand shape, got "
                        f"slice_sizes {sizes} for operand shape {a.shape}.")
    starts = _start_indices(start_indices, a, allow_negative_indices)
    return bind(I.DynamicSlice, U.as_operand(operand), *starts, slice_sizes=sizes)


def dynamic_update_slice(operand, update, start_indices, *, allow_negative_indices=True):
    """``operand`` with ``update`` written at ``start_indices`` (clamped into bounds)."""
    a, u = U.aval_of(operand), U.aval_of(update)
    if a.dtype != u.dtype:
        raise TypeError(f"lax.dynamic_update_slice requires arguments to have the same dtypes, "
                        f"got {dtypes.short_name(a.dtype)}, {dtypes.short_name(u.dtype)}.")
    if u.ndim != a.ndim or any(z > n for z, n in zip(u.shape, a.shape)):
        raise TypeError(f"dynamic_update_slice update shape must be smaller than operand shape, "
                        f"got update shape {u.shape} for operand shape {a.shape}.")
    starts = _start_indices(start_indices, a, allow_negative_indices)
    return bind(I.DynamicUpdateSlice, U.as_operand(operand), U.as_operand(update), *starts)


def concatenate(operands, dimension: int):
    """Joins arrays of one dtype and rank along ``dimension``."""
    ops = list(operands)
    if not ops:
        raise TypeError("concatenate requires a non-empty sequence of operands")
    avals = [U.aval_of(x) for x in ops]
    if len({a.dtype for a in avals}) > 1:
        names = ", ".join(dtypes.short_name(a.dtype) for a in avals)
        raise TypeError(f"lax.concatenate requires arguments to have the same dtypes, got {names}. "
                        "(Tip: jnp.concatenate is a similar function that does automatic type "
                        "promotion on inputs).")
    check_concat_shapes([a.shape for a in avals], dimension)
    if len(ops) == 1:
        return U.as_operand(ops[0])
    return bind(S.Concatenate, *[U.as_operand(x) for x in ops], dimension=int(dimension))


def check_concat_ranks(shapes) -> None:
    if len({len(s) for s in shapes}) > 1:
        raise TypeError("Cannot concatenate arrays with different numbers of dimensions: got "
                        f"{', '.join(map(str, shapes))}.")


def check_concat_shapes(shapes, dimension: int) -> None:
    check_concat_ranks(shapes)
    nd = len(shapes[0])
    if not 0 <= dimension < nd:
        raise TypeError(f"concatenate dimension out of bounds: dimension {dimension} for shapes "
                        f"{', '.join(map(str, shapes))}.")
    rest = {tuple(s[:dimension] + s[dimension + 1:]) for s in shapes}
    if len(rest) > 1:
        raise TypeError("Cannot concatenate arrays with shapes that differ in dimensions other "
                        f"than the one being concatenated: concatenating along dimension "
                        f"{dimension} for shapes {', '.join(map(str, shapes))}.")


def pad(operand, padding_value, padding_config):
    """Pads with ``padding_value``: ``(low, high, interior)`` per dimension; negative low/high
    crop."""
    operand, padding_value = resolve_scalars([operand, padding_value])
    a, p = U.aval_of(operand), U.aval_of(padding_value)
    if p.ndim:
        raise TypeError(f"padding_value must be a scalar, got shape {p.shape}")
    if a.dtype != p.dtype:
        raise TypeError(f"lax.pad requires arguments to have the same dtypes, got "
                        f"{dtypes.short_name(a.dtype)}, {dtypes.short_name(p.dtype)}.")
    config = [tuple(_ints(c, "padding_config")) for c in padding_config]
    if len(config) != a.ndim or any(len(c) != 3 for c in config):
        raise ValueError(f"padding_config must be {a.ndim} triples (low, high, interior), got "
                         f"{padding_config!r}")
    if any(c[2] < 0 for c in config):
        raise ValueError(f"interior padding must be non-negative, got {padding_config!r}")
    for n, (lo, hi, inner) in zip(a.shape, config):
        if n + lo + hi + max(n - 1, 0) * inner < 0:
            raise ValueError(f"Dimension size after padding is not at least 0, got padding "
                             f"config {padding_config!r} for shape {a.shape}")
    if all(c == (0, 0, 0) for c in config):
        return U.as_operand(operand)
    return bind(S.Pad, U.as_operand(operand), U.as_operand(padding_value),
                edge_padding_low=[c[0] for c in config], edge_padding_high=[c[1] for c in config],
                interior_padding=[c[2] for c in config])


def rev(operand, dimensions):
    """Reverses ``operand`` along ``dimensions``."""
    a = U.aval_of(operand)
    dims = _ints(dimensions, "dimensions")
    if any(not 0 <= d < a.ndim for d in dims) or len(set(dims)) != len(dims):
        raise TypeError(f"rev dimensions must be unique and in range [0, {a.ndim}), got {dims}.")
    if not dims:
        return U.as_operand(operand)
    return bind(S.Reverse, U.as_operand(operand), dimensions=tuple(sorted(dims)))


def iota(dtype, size):
    """``[0, 1, ..., size-1]`` in ``dtype``."""
    return broadcasted_iota(dtype, (size,), 0)


def broadcasted_iota(dtype, shape, dimension: int):
    """Indices along ``dimension`` of an array of ``shape``."""
    dt = dtypes.canonicalize_dtype(dtype)
    shape = _shape(shape)
    dimension = U.canonicalize_axis(dimension, len(shape))
    if dtypes.is_complex(dt) or dt == np.bool_:
        out = bind(Iota, shape=shape, dtype=np.int32, dimension=dimension)
        return U.convert(out, dt)
    return bind(Iota, shape=shape, dtype=dt, dimension=dimension)


def full(shape, fill_value, dtype=None):
    """An array of ``shape`` filled with ``fill_value`` (weak when ``dtype`` is None and the
    value is a Python scalar)."""
    shape = _shape(shape)
    fa = U.aval_of(fill_value)
    if fa.ndim:
        raise TypeError(f"full must be called with scalar fill_value, got fill_value.shape "
                        f"{fa.shape}.")
    dt = fa.dtype if dtype is None else dtypes.canonicalize_dtype(dtype)
    weak = dtype is None and fa.weak_type
    if not isinstance(fill_value, Tracer):
        return U.full(shape, U.host_data(fill_value), dt, weak)
    return U.broadcast_to(U.convert(fill_value, dt, weak), shape)


def full_like(x, fill_value, dtype=None, shape=None):
    a = U.aval_of(x)
    return full(a.shape if shape is None else shape, fill_value,
                a.dtype if dtype is None else dtype)
