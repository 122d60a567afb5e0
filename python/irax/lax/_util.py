"""Value helpers shared by ``irax.lax`` and ``irax.numpy``.

Every public function accepts array-likes: ``irax.Array``, a ``Tracer``, a NumPy array or
scalar, or a Python scalar. These helpers read their abstract values and turn them into
operands of ``bind`` without emitting ops that change nothing:

    convert(x, np.float32)          # no op when x is already a strong float32
    full((2, 3), 1.0, np.float32)   # a host splat: one ``irax.constant`` under jit
    broadcast_to(x, (2, 3))         # ``irax.broadcast_in_dim`` (numpy's trailing alignment)
"""

from __future__ import annotations

import operator

import numpy as np

from irax.core import dtypes
from irax.core.abstract import ShapedArray
from irax.core.shape_poly import Dim, InconclusiveDimensionOperation, is_static, sizes
from irax.dialect import elementwise as E
from irax.dialect import shape as S
from irax.frontend.trace import bind, current_trace
from irax.frontend.tracer import Tracer
from irax.runtime.array import Array

_PY_SCALARS = (bool, int, float, complex)


def is_python_scalar(x) -> bool:
    return isinstance(x, _PY_SCALARS) and not isinstance(x, np.generic)


def is_arraylike(x) -> bool:
    return isinstance(x, (Array, Tracer, np.ndarray, np.generic, Dim)) or is_python_scalar(x)


def size_value(d) -> Tracer:
    """A symbolic size (``x.shape[0]`` under ``jit(abstracted_axes=...)``) as a traced weak
    int scalar, as JAX turns a symbolic dimension into a value."""
    t = current_trace()
    if t is None:
        raise InconclusiveDimensionOperation(
            f"the symbolic dimension {d} is used outside the function it belongs to")
    return t.lift(d)


def _traced(x):
    """A concrete value placed in the function being traced (for symbolic shapes)."""
    t = current_trace()
    if t is None:
        raise InconclusiveDimensionOperation(
            "a shape with symbolic dimensions is used outside the function it belongs to")
    return t.lift(x)


def aval_of(x) -> ShapedArray:
    """The abstract value of an array-like (canonical dtype, JAX's weak flag)."""
    a = getattr(x, "aval", None)
    if isinstance(a, ShapedArray):
        return a
    if is_python_scalar(x) or type(x) is Dim:
        dt, weak = dtypes.dtype_and_weak(x)
        return ShapedArray((), dt, weak)
    if isinstance(x, (np.ndarray, np.generic)):
        return ShapedArray(np.shape(x), dtypes.canonicalize_dtype(x.dtype))
    raise TypeError(f"Value {x!r} of type {type(x)} is not a valid irax type")


def host_data(x) -> np.ndarray:
    """The NumPy data of a concrete array-like, in its canonical dtype."""
    if isinstance(x, Array):
        return x._numpy()
    if is_python_scalar(x):
        dt = dtypes.dtype_and_weak(x)[0]
        if type(x) is int:
            dtypes.check_python_int(x, None)
        return np.asarray(x, dtype=dt)
    arr = np.asarray(x)
    dt = dtypes.canonicalize_dtype(arr.dtype)
    return arr if arr.dtype == dt else E.convert_array(arr, dt)


def host_array(data: np.ndarray, weak: bool = False, home=None) -> Array:
    """Wraps host data as an ``irax.Array`` (a constant when used under jit); ``home``:
    the device it is committed to (that of the committed inputs it was computed from)."""
    data = np.asarray(data)
    return Array._from_host(data, ShapedArray(data.shape, data.dtype, weak and data.dtype != bool),
                            home)


def convert(x, dtype, weak: bool = False):
    """``x`` as ``dtype`` with weak flag ``weak``; no op when nothing changes.

    Concrete host values (Python and NumPy scalars and arrays) convert on the host; arrays and
    tracers bind ``irax.convert`` (XLA's semantics: float->int saturates, NaN->0).
    """
    dtype = np.dtype(dtype)
    weak = weak and dtype != np.bool_
    if type(x) is Dim:
        x = size_value(x)
    if isinstance(x, (Array, Tracer)):
        if x.aval.dtype == dtype and x.aval.weak_type == weak:
            return x
        return bind(E.Convert, x, new_dtype=dtype, weak_type=weak)
    data = host_data(x)
    if data.dtype != dtype:
        data = E.convert_array(data, dtype)
    return host_array(data, weak)


def full(shape, value, dtype, weak: bool = False) -> Array:
    """An array of ``shape`` filled with the concrete scalar ``value`` (a host splat)."""
    dtype = np.dtype(dtype)
    with np.errstate(all="ignore"):
        scalar = E.convert_array(np.asarray(value), dtype)
    weak = weak and dtype != np.bool_
    if not is_static(shape):   # a symbolic shape: a broadcast in the traced program
        x = _traced(Array._from_host(scalar, ShapedArray((), dtype, weak)))
        return bind(S.BroadcastInDim, x, shape=sizes(shape), broadcast_dimensions=())
    data = np.broadcast_to(scalar, tuple(shape))
    return Array._from_host(data, ShapedArray(data.shape, dtype, weak))


def full_like(x, value, dtype=None, weak: bool = True):
    """A concrete splat with ``x``'s shape and dtype; weak by default so that it never changes
    the weak flag of the result of a binary op with ``x``."""
    a = aval_of(x)
    return full(a.shape, value, a.dtype if dtype is None else dtype, weak)


def broadcast_to(x, shape):
    """``x`` broadcast to ``shape`` with NumPy's trailing alignment (shapes must be compatible).

    A concrete rank-0 value becomes a host splat, so that scalars fold into one constant.
    """
    shape = sizes(shape)
    a = aval_of(x)
    if a.shape == shape:
        return x
    if not isinstance(x, Tracer) and not is_static(shape):
        x = _traced(as_operand(x))
    elif not isinstance(x, Tracer) and a.ndim == 0:
        data = np.broadcast_to(host_data(x), shape)
        return Array._from_host(data, ShapedArray(shape, a.dtype, a.weak_type), home_of(x))
    nd = len(shape)
    return bind(S.BroadcastInDim, x, shape=shape,
                broadcast_dimensions=tuple(range(nd - a.ndim, nd)))


def broadcast_in_dim(x, shape, broadcast_dimensions):
    """``lax.broadcast_in_dim`` without checks; no op when the shape is unchanged."""
    shape = sizes(shape)
    dims = tuple(int(d) for d in broadcast_dimensions)
    a = aval_of(x)
    if a.shape == shape and dims == tuple(range(len(shape))):
        return x
    if not isinstance(x, Tracer) and not is_static(shape):
        x = _traced(as_operand(x))
    elif not isinstance(x, Tracer) and a.ndim == 0:
        return broadcast_to(x, shape)
    return bind(S.BroadcastInDim, x, shape=shape, broadcast_dimensions=dims)


def home_of(x):
    """The device a concrete value is committed to (None: uncommitted, or not an Array)."""
    return x._home if type(x) is Array else None


def reshape(x, shape):
    """``lax.reshape`` without checks; no op when the shape is unchanged."""
    shape = sizes(shape)
    a = aval_of(x)
    if a.shape == shape:
        return x
    if not isinstance(x, Tracer) and not is_static(shape):
        x = _traced(as_operand(x))
    elif not isinstance(x, Tracer) and a.ndim == 0 and a.size == 1:
        data = host_data(x).reshape(shape)
        return Array._from_host(data, ShapedArray(shape, a.dtype, a.weak_type), home_of(x))
    return bind(S.Reshape, x, new_sizes=shape)


def transpose(x, perm):
    perm = tuple(int(p) for p in perm)
    if perm == tuple(range(len(perm))):
        return x
    return bind(S.Transpose, x, permutation=perm)


def as_operand(x):
    """``x`` as an ``irax.Array`` or tracer of unchanged type (Python scalars stay weak)."""
    if isinstance(x, (Array, Tracer)):
        return x
    if type(x) is Dim:
        return size_value(x)
    if not is_arraylike(x):
        raise TypeError(f"Value {x!r} of type {type(x)} is not a valid irax type")
    return host_array(host_data(x), aval_of(x).weak_type)


def canonicalize_axis(axis, ndim: int) -> int:
    """``axis`` in ``[0, ndim)``; negative axes count from the end."""
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise np.exceptions.AxisError(axis, ndim)
    return axis + ndim if axis < 0 else axis
