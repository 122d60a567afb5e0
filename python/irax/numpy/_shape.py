"""Shape manipulation: reshape, transpose, broadcasting, joining, splitting, flips, tiling.

All shapes and axes are static. Ops are emitted only where the shape really changes, e.g.
``reshape(x, x.shape)`` returns ``x``.
"""

from __future__ import annotations

import builtins
import math
import operator

import numpy as np

from irax.core import dtypes
from irax.core.shape_poly import Dim
from irax.dialect import shape as S
from irax.frontend.trace import bind
from irax.lax import _shape as LS
from irax.lax import _util as LU
from irax.numpy import _util as U


def _arr(fun_name, a):
    return U.as_array(fun_name, a)


def shape(a):
    return U.aval_of(a).shape


def ndim(a) -> int:
    return U.aval_of(a).ndim


def size(a, axis=None) -> int:
    s = U.aval_of(a).shape
    if axis is None:
        return math.prod(s)
    return s[LU.canonicalize_axis(axis, len(s))]


def _resolve_shape(old, newshape) -> tuple[int, ...]:
    if isinstance(newshape, (int, np.integer)) or (hasattr(newshape, "ndim")
                                                   and newshape.ndim == 0):
        newshape = (newshape,)
    new = tuple(d if type(d) is Dim else operator.index(d) for d in newshape)
    n = math.prod(old)
    if new.count(-1) > 1:
        raise ValueError("can only specify one unknown dimension")
    if -1 in new:
        known = math.prod(d for d in new if d != -1)
        if known == 0 or n % known:
            raise TypeError(f"cannot reshape array of shape {old} (size {n}) into shape {new} "
                            f"because the product of specified axis sizes ({known}) does not "
                            f"evenly divide {n}")
        new = tuple(n // known if d == -1 else d for d in new)
    if math.prod(new) != n or any(d < 0 for d in new):
        raise TypeError(f"cannot reshape array of shape {old} (size {n}) into shape {new} "
                        f"(size {math.prod(new)})")
    return new


def reshape(a, shape=None, order: str = "C", *, copy=None):
    """``a`` with a new shape (one dimension may be -1); ``order`` 'C' or 'F'."""
    if shape is None:
        raise TypeError("reshape() missing required argument 'shape'")
    x = _arr("reshape", a)
    old = U.aval_of(x).shape
    new = _resolve_shape(old, shape)
    if order == "C":
        return LU.reshape(x, new)
    if order == "F":
        rev = tuple(reversed(range(len(old))))
        y = LU.reshape(LU.transpose(x, rev), tuple(reversed(new)))
        return LU.transpose(y, tuple(reversed(range(len(new)))))
    raise NotImplementedError(f"reshape: order={order!r} is not supported; use 'C' or 'F'.")


def ravel(a, order: str = "C"):
    return reshape(a, (U.aval_of(a).size,), order)


def transpose(a, axes=None):
    x = _arr("transpose", a)
    nd = U.aval_of(x).ndim
    perm = tuple(reversed(range(nd))) if axes is None else tuple(
        LU.canonicalize_axis(ax, nd) for ax in axes)
    if sorted(perm) != list(range(nd)):
        raise ValueError(f"axes don't match array: {tuple(axes)} for an array of rank {nd}")
    return LU.transpose(x, perm)


def permute_dims(a, axes):
    return transpose(a, axes)


def matrix_transpose(x, /):
    nd = U.aval_of(x).ndim
    if nd < 2:
        raise ValueError(f"x must be at least two-dimensional for matrix_transpose; got ndim={nd}")
    return swapaxes(x, -1, -2)


def swapaxes(a, axis1: int, axis2: int):
    x = _arr("swapaxes", a)
    nd = U.aval_of(x).ndim
    perm = list(range(nd))
    i, j = LU.canonicalize_axis(axis1, nd), LU.canonicalize_axis(axis2, nd)
    perm[i], perm[j] = perm[j], perm[i]
    return LU.transpose(x, perm)


def moveaxis(a, source, destination):
    x = _arr("moveaxis", a)
    nd = U.aval_of(x).ndim
    src = [LU.canonicalize_axis(s, nd) for s in np.atleast_1d(source).tolist()]
    dst = [LU.canonicalize_axis(d, nd) for d in np.atleast_1d(destination).tolist()]
    if len(src) != len(dst):
        raise ValueError("Inconsistent number of elements: "
                         f"{len(src)} vs {len(dst)}")
    perm = [i for i in range(nd) if i not in src]
    for d, s in sorted(zip(dst, src)):
        perm.insert(d, s)
    return LU.transpose(x, perm)


def expand_dims(a, axis):
    x = _arr("expand_dims", a)
    axes = axis if isinstance(axis, (list, tuple)) else (axis,)
    return LS.expand_dims(x, tuple(axes))


def squeeze(a, axis=None):
    x = _arr("squeeze", a)
    s = U.aval_of(x).shape
    if axis is None:
        axes = tuple(i for i, d in enumerate(s) if d == 1)
    else:
        axes = axis if isinstance(axis, (list, tuple)) else (axis,)
    return LS.squeeze(x, tuple(axes))


def broadcast_shapes(*shapes):
    return U.broadcast_shapes("broadcast_shapes", *(
        (s,) if isinstance(s, (int, np.integer)) else tuple(s) for s in shapes))


def broadcast_to(array, shape):
    """``array`` broadcast to ``shape`` (NumPy's rules; size-1 dimensions stretch)."""
    x = _arr("broadcast_to", array)
    shape = LS._shape(shape)
    s = U.aval_of(x).shape
    nd = len(shape)
    ok = len(s) <= nd and all(d in (1, t) for d, t in zip(s, shape[nd - len(s):]))
    if not ok:
        raise ValueError(f"irax.numpy.broadcast_to: incompatible shapes for broadcasting: {s} and "
                         f"requested shape {shape}")
    return LU.broadcast_to(x, shape)


def broadcast_arrays(*args):
    U.check_arraylike("broadcast_arrays", *args)
    return U.broadcast_all("broadcast_arrays", [U.as_array("broadcast_arrays", a) for a in args])


def _atleast(n, arys, name):
    out = []
    for a in arys:
        x = _arr(name, a)
        s = U.aval_of(x).shape
        if len(s) < n:
            if n == 3 and len(s) == 2:
                x = LU.reshape(x, s + (1,))
            elif n == 3 and len(s) == 1:
                x = LU.reshape(x, (1,) + s + (1,))
            else:
                x = LU.reshape(x, (1,) * (n - len(s)) + s)
        out.append(x)
    return out[0] if len(out) == 1 else out


def atleast_1d(*arys):
    return _atleast(1, arys, "atleast_1d")


def atleast_2d(*arys):
    return _atleast(2, arys, "atleast_2d")


def atleast_3d(*arys):
    return _atleast(3, arys, "atleast_3d")


def _sequence(arrays, name):
    if hasattr(arrays, "aval") or isinstance(arrays, np.ndarray):
        return [arrays[i] for i in range(U.aval_of(arrays).shape[0])]
    arrays = list(arrays)
    U.check_arraylike(name, *arrays)
    return arrays


def concatenate(arrays, axis=0, dtype=None):
    """Joins arrays along ``axis`` after promotion; ``axis=None`` joins their ravels."""
    arrays = _sequence(arrays, "concatenate")
    if not arrays:
        raise ValueError("Need at least one array to concatenate.")
    if axis is None:
        return concatenate([ravel(a) for a in arrays], 0, dtype)
    if any(U.aval_of(a).ndim == 0 for a in arrays):
        raise ValueError("Zero-dimensional arrays cannot be concatenated.")
    shapes = [U.aval_of(a).shape for a in arrays]
    LS.check_concat_ranks(shapes)
    axis = LU.canonicalize_axis(axis, len(shapes[0]))
    LS.check_concat_shapes(shapes, axis)
    dt = dtypes.check_user_dtype(dtype, "concatenate")
    if dt is None:
        arrays = U.promote_dtypes(*arrays)
    else:
        arrays = [LU.convert(a, dt) for a in arrays]
    arrays = [a for a in arrays if U.aval_of(a).shape[axis]] or arrays[:1]
    if len(arrays) == 1:
        return arrays[0]
    return bind(S.Concatenate, *arrays, dimension=axis)


concat = concatenate


def stack(arrays, axis: int = 0, out=None, dtype=None):
    """Joins same-shaped arrays along a new ``axis``."""
    arrays = _sequence(arrays, "stack")
    if not arrays:
        raise ValueError("Need at least one array to stack.")
    shapes = {U.aval_of(a).shape for a in arrays}
    if len(shapes) != 1:
        raise ValueError("All input arrays must have the same shape.")
    nd = len(shapes.pop()) + 1
    axis = LU.canonicalize_axis(axis, nd)
    return concatenate([expand_dims(a, axis) for a in arrays], axis, dtype)


def hstack(tup, dtype=None):
    arrs = [atleast_1d(a) for a in _sequence(tup, "hstack")]
    axis = 0 if arrs and U.aval_of(arrs[0]).ndim == 1 else 1
    return concatenate(arrs, axis, dtype)


def vstack(tup, dtype=None):
    return concatenate([atleast_2d(a) for a in _sequence(tup, "vstack")], 0, dtype)


def dstack(tup, dtype=None):
    return concatenate([atleast_3d(a) for a in _sequence(tup, "dstack")], 2, dtype)


def column_stack(tup):
    arrs = []
    for a in _sequence(tup, "column_stack"):
        x = _arr("column_stack", a)
        arrs.append(LU.reshape(x, (U.aval_of(x).size, 1)) if U.aval_of(x).ndim < 2 else x)
    return concatenate(arrs, 1)


def _slice_axis(x, axis, start, stop):
    s = U.aval_of(x).shape
    start_idx = [0] * len(s)
    limit = list(s)
    start_idx[axis], limit[axis] = start, stop
    return LS.slice(x, start_idx, limit)


def _split(name, ary, indices_or_sections, axis, equal):
    x = _arr(name, ary)
    s = U.aval_of(x).shape
    axis = LU.canonicalize_axis(axis, len(s))
    n = s[axis]
    if isinstance(indices_or_sections, (int, np.integer)):
        k = int(indices_or_sections)
        if k <= 0:
            raise ValueError("number sections must be larger than 0.")
        if equal and n % k:
            raise ValueError("array split does not result in an equal division")
        q, r = builtins.divmod(n, k)
        sizes = [q + 1] * r + [q] * (k - r)
        bounds = np.cumsum([0] + sizes).tolist()
    else:
        idx = [builtins.min(builtins.max(int(i) + (n if int(i) < 0 else 0), 0), n)
               for i in indices_or_sections]
        bounds = [0] + idx + [n]
    return [_slice_axis(x, axis, lo, builtins.max(lo, hi)) for lo, hi in zip(bounds, bounds[1:])]


def split(ary, indices_or_sections, axis: int = 0):
    return _split("split", ary, indices_or_sections, axis, True)


def array_split(ary, indices_or_sections, axis: int = 0):
    return _split("array_split", ary, indices_or_sections, axis, False)


def hsplit(ary, indices_or_sections):
    return split(ary, indices_or_sections, 0 if U.aval_of(ary).ndim == 1 else 1)


def vsplit(ary, indices_or_sections):
    return split(ary, indices_or_sections, 0)


def flip(m, axis=None):
    x = _arr("flip", m)
    nd = U.aval_of(x).ndim
    axes = U.canonical_axes(axis, nd)
    return LS.rev(x, axes)


def fliplr(m):
    return flip(m, 1)


def flipud(m):
    return flip(m, 0)


def tile(A, reps):
    """``A`` repeated ``reps`` times along each axis (broadcast, then reshape)."""
    x = _arr("tile", A)
    reps = (reps,) if isinstance(reps, (int, np.integer)) else tuple(reps)
    reps = tuple(operator.index(r) for r in reps)
    s = U.aval_of(x).shape
    nd = builtins.max(len(reps), len(s))
    s = (1,) * (nd - len(s)) + s
    reps = (1,) * (nd - len(reps)) + reps
    x = LU.reshape(x, s)
    big = tuple(d for pair in zip(reps, s) for d in pair)
    x = LU.broadcast_in_dim(x, big, tuple(range(1, 2 * nd, 2)))
    return LU.reshape(x, tuple(r * d for r, d in zip(reps, s)))


def roll(a, shift, axis=None):
    """Rotates elements along ``axis`` by a static ``shift``."""
    x = _arr("roll", a)
    if axis is None:
        return reshape(roll(ravel(x), shift, 0), U.aval_of(x).shape)
    shifts = (shift,) if isinstance(shift, (int, np.integer)) else tuple(shift)
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    if len(shifts) == 1:
        shifts = shifts * len(axes)
    for sh, ax in zip(shifts, axes):
        s = U.aval_of(x).shape
        ax = LU.canonicalize_axis(ax, len(s))
        n = s[ax]
        if n == 0:
            continue
        k = operator.index(sh) % n
        if k:
            x = concatenate([_slice_axis(x, ax, n - k, n), _slice_axis(x, ax, 0, n - k)], ax)
    return x
