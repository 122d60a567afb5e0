"""Array creation: array/asarray, zeros/ones/full/empty (+ ``_like``), arange, linspace, eye.

Weak typing follows JAX: ``asarray(1)`` and ``full((2,), 3)`` are weak, ``array([1, 2])`` and
anything with an explicit dtype are strong. Concrete inputs build host data (one constant
under jit); tracers inside lists are stacked with ops.
"""

from __future__ import annotations

import functools

import numpy as np

from irax.core import dtypes
from irax.core.abstract import ShapedArray
from irax.core.errors import ConcretizationTypeError
from irax.core.shape_poly import Dim
from irax.dialect.elementwise import convert_array
from irax.frontend.tracer import Tracer
from irax.lax import _shape as LS
from irax.lax import _util as LU
from irax.numpy import _shape as S
from irax.numpy import _ufuncs as F
from irax.numpy import _util as U
from irax.numpy._shape import broadcast_to
from irax.runtime.array import Array, committed_device
from irax.transforms.placement import device_put


def _on_device(fn):
    """``fn`` with JAX's ``device=``: its result put on that device (or sharding), and
    committed there."""
    @functools.wraps(fn)
    def placed(*args, device=None, **kwargs):
        out = fn(*args, **kwargs)
        return out if device is None else device_put(out, device)
    return placed


def _user_dtype(dtype, fun_name: str):
    return dtypes.check_user_dtype(dtype, fun_name)


def _leaves(obj, out) -> None:
    if isinstance(obj, (list, tuple)):
        for o in obj:
            _leaves(o, out)
    else:
        out.append(obj)


def _check_leaf(x) -> None:
    if LU.is_arraylike(x):
        return
    if hasattr(x, "__array__"):
        return
    raise TypeError(f"Value {x!r} of type {type(x)} is not a valid irax array type. Only arrays "
                    "of numeric types are supported.")


def _as_np(x) -> np.ndarray:
    arr = np.asarray(x)
    small = arr.dtype.kind == "V" and (dtypes.is_float(arr.dtype) or dtypes.is_int(arr.dtype))
    if arr.dtype == object or (arr.dtype.kind in "USV" and not small):  # not bfloat16, int4...
        raise TypeError(f"Value {x!r} with dtype {arr.dtype} is not a valid irax array type. "
                        "Only arrays of numeric types are supported.")
    return arr


@_on_device
def array(object, dtype=None, copy: bool = True, order=None, ndmin: int = 0, *,  # noqa: A002
          device=None):
    """An array from an array-like, a (nested) list of array-likes, or a Python scalar."""
    del order, device
    dt = _user_dtype(dtype, "array")
    if isinstance(object, (list, tuple)):
        out = _from_sequence(object, dt)
    elif isinstance(object, (Array, Tracer)):
        out = object if dt is None else LU.convert(object, dt)
        if copy and out is object and isinstance(object, Array):  # a distinct array, as JAX's
            out = Array._from_host(np.array(LU.host_data(object)), object.aval, object._home)
    elif LU.is_python_scalar(object):
        if type(object) is int:
            dtypes.check_python_int(object, dt)
        av = U.aval_of(object)
        data = np.asarray(object)
        out = LU.host_array(convert_array(data, av.dtype if dt is None else dt),
                            weak=dt is None and av.weak_type)
    else:
        if not isinstance(object, (np.ndarray, np.generic)):
            _check_leaf(object)
        data = _as_np(object)
        out = LU.convert(data, dt if dt is not None else dtypes.canonicalize_dtype(data.dtype))
    a = U.aval_of(out)
    if ndmin > a.ndim:
        out = LU.reshape(out, (1,) * (ndmin - a.ndim) + a.shape)
    return out


def _from_sequence(obj, dt):
    leaves = []
    _leaves(obj, leaves)
    for x in leaves:
        _check_leaf(x)
    leaves = [x if LU.is_arraylike(x) else _as_np(x) for x in leaves]
    if dt is None:
        dt = dtypes.result_type(*leaves) if leaves else dtypes.default_float_dtype()
    for x in leaves:
        if type(x) is int:
            dtypes.check_python_int(x, dt if dtypes.is_int(dt) else None)
    if not any(isinstance(x, Tracer) for x in leaves):
        data = _nested_host(obj, dt)   # (committed arrays among them: committed there)
        return Array._from_host(data, ShapedArray(data.shape, data.dtype),
                                committed_device(leaves, "array"))
    return _stack_nested(obj, dt)


def _nested_host(obj, dt):
    if isinstance(obj, (list, tuple)):
        parts = [_nested_host(o, dt) for o in obj]
        if not parts:
            return np.zeros((0,), dt)
        shapes = {p.shape for p in parts}
        if len(shapes) > 1:
            raise ValueError("setting an array element with a sequence. The requested array has "
                             "an inhomogeneous shape.")
        return np.stack(parts)
    if LU.is_python_scalar(obj) or not LU.is_arraylike(obj):
        data = _as_np(obj)
    else:
        data = LU.host_data(obj)
    return data if data.dtype == dt else convert_array(data, dt)


def _stack_nested(obj, dt):
    if not isinstance(obj, (list, tuple)):
        return LU.convert(obj, dt)
    parts = [_stack_nested(o, dt) for o in obj]
    shapes = {U.aval_of(p).shape for p in parts}
    if len(shapes) > 1:
        raise ValueError("setting an array element with a sequence. The requested array has an "
                         "inhomogeneous shape.")
    return LS.concatenate([LU.reshape(p, (1,) + U.aval_of(p).shape) for p in parts], 0)


@_on_device
def asarray(a, dtype=None, order=None, *, copy=None, device=None):
    """Like ``array``, without copying unless ``copy=True`` (irax arrays are immutable)."""
    return array(a, dtype=dtype, order=order, device=device, copy=bool(copy))


def _concrete_shape(shape) -> tuple[int, ...]:
    if isinstance(shape, Tracer) or (isinstance(shape, (list, tuple))
                                     and any(isinstance(d, Tracer) for d in shape)):
        dims = tuple(shape) if isinstance(shape, (list, tuple)) else (shape,)
        raise TypeError("Shapes must be 1D sequences of concrete values of integer type, got "
                        f"{dims!r}.")
    return LS._shape(shape)


@_on_device
def full(shape, fill_value, dtype=None, *, device=None):
    """``shape`` filled with ``fill_value`` (an array ``fill_value`` broadcasts)."""
    shape = _concrete_shape(shape)
    dt = _user_dtype(dtype, "full")
    U.check_arraylike("full", fill_value)
    if U.aval_of(fill_value).ndim == 0:
        return LS.full(shape, fill_value, dt)

    return broadcast_to(asarray(fill_value, dtype=dt), shape)


@_on_device
def zeros(shape, dtype=None, *, device=None):
    dt = _user_dtype(dtype, "zeros") or dtypes.default_float_dtype()
    return LU.full(_concrete_shape(shape), 0, dt)


@_on_device
def ones(shape, dtype=None, *, device=None):
    dt = _user_dtype(dtype, "ones") or dtypes.default_float_dtype()
    return LU.full(_concrete_shape(shape), 1, dt)


@_on_device
def empty(shape, dtype=None, *, device=None):
    dt = _user_dtype(dtype, "empty") or dtypes.default_float_dtype()
    return LU.full(_concrete_shape(shape), 0, dt)


@_on_device
def full_like(a, fill_value, dtype=None, shape=None, *, device=None):
    """An array like ``a`` (its dtype and weak flag unless ``dtype`` is given; on its
    device, committed, when ``a`` is committed and ``shape`` is not given, as JAX's)."""
    U.check_arraylike("full_like", a, fill_value)
    out = _full_like(a, fill_value, dtype, shape)
    home = a._home if type(a) is Array and shape is None else None
    if home is None or type(out) is not Array or out._home is home:
        return out
    return Array._from_host(out._numpy(), out.aval, home)


def _full_like(a, fill_value, dtype, shape):
    av = U.aval_of(a)
    dt = _user_dtype(dtype, "full_like")
    shape = av.shape if shape is None else _concrete_shape(shape)
    out_dt = av.dtype if dt is None else dt
    weak = dt is None and av.weak_type
    if U.aval_of(fill_value).ndim == 0:
        if isinstance(fill_value, Tracer):
            return LU.broadcast_to(LU.convert(fill_value, out_dt, weak), shape)
        return LU.full(shape, LU.host_data(fill_value), out_dt, weak)

    return broadcast_to(LU.convert(fill_value, out_dt, weak), shape)


@_on_device
def zeros_like(a, dtype=None, shape=None, *, device=None):
    return full_like(a, 0, dtype, shape)


@_on_device
def ones_like(a, dtype=None, shape=None, *, device=None):
    return full_like(a, 1, dtype, shape)


@_on_device
def empty_like(a, dtype=None, shape=None, *, device=None):
    return full_like(a, 0, dtype, shape)


def _concrete_arg(x, name: str):
    if isinstance(x, Tracer):
        raise ConcretizationTypeError(x, f"It arose in the jnp.arange argument '{name}'")
    if x is None:
        return None
    U.check_arraylike("arange", x)
    return x


@_on_device
def arange(start, stop=None, step=None, dtype=None, *, device=None):
    """Evenly spaced values in ``[start, stop)``; the arguments must be concrete."""
    if stop is None and step is None and type(start) is Dim:   # arange(x.shape[0])
        dt = _user_dtype(dtype, "arange") or dtypes.result_type(start)
        return LS.iota(dt, start)
    if stop is None and step is None:
        stop_ = _concrete_arg(start, "stop")
        dt = _user_dtype(dtype, "arange") or dtypes.result_type(stop_)
        n = int(np.ceil(LU.host_data(stop_)))
        return LS.iota(dt, max(n, 0)) if n > 0 else LU.full((0,), 0, dt)
    start = _concrete_arg(start, "start")
    stop = _concrete_arg(stop, "stop")
    step = _concrete_arg(step, "step")
    args = [x for x in (start, stop, step) if x is not None]
    dt = _user_dtype(dtype, "arange") or dtypes.result_type(*args)
    vals = [None if x is None else LU.host_data(x).item() for x in (start, stop, step)]
    return LU.host_array(np.arange(vals[0], vals[1], vals[2], dtype=dt))


@_on_device
def linspace(start, stop, num: int = 50, endpoint: bool = True, retstep: bool = False,
             dtype=None, axis: int = 0, *, device=None):
    """``num`` evenly spaced samples of ``[start, stop]`` (JAX's float32-exact formula:
    ``start * (1 - t) + stop * t``)."""
    num = int(num)
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    U.check_arraylike("linspace", start, stop)
    dt = _user_dtype(dtype, "linspace") or dtypes.to_inexact_dtype(
        dtypes.result_type(start, stop, float))
    comp = dtypes.to_inexact_dtype(dt)
    start, stop = LU.convert(start, comp), LU.convert(stop, comp)
    bshape = U.broadcast_shapes("linspace", U.aval_of(start).shape, U.aval_of(stop).shape)
    start, stop = LU.broadcast_to(start, bshape), LU.broadcast_to(stop, bshape)
    axis = LU.canonicalize_axis(axis, len(bshape) + 1)
    shape1 = list(bshape)
    shape1.insert(axis, 1)
    div = (num - 1) if endpoint else num
    lo = LU.reshape(start, shape1)
    if num > 1:
        delta = F.true_divide(F.subtract(stop, start), LU.full((), div, comp))
        iota_shape = [1] * len(shape1)
        iota_shape[axis] = div
        real = dtypes.real_dtype(comp)
        t = LU.reshape(LS.iota(real, div), iota_shape)
        t = LU.convert(F.true_divide(t, LU.full((), div, real)), comp)
        out = F.add(F.multiply(lo, F.subtract(LU.full((), 1, comp), t)),
                    F.multiply(LU.reshape(stop, shape1), t))
        if endpoint:
            out = S.concatenate([out, LU.reshape(stop, shape1)], axis=axis)
    else:
        delta = LU.full((), np.nan, comp)
        out = lo
        if num == 0:
            out = LU.full(shape1[:axis] + [0] + shape1[axis + 1:], 0, comp)
    if dtypes.is_int(dt) and not dtypes.is_int(comp):
        out = F.floor(out)
    out = LU.convert(out, dt)
    return (out, LU.convert(delta, dt)) if retstep else out


@_on_device
def eye(N, M=None, k=0, dtype=None, *, device=None):
    """The ``N x M`` matrix with ones on diagonal ``k``."""
    dt = _user_dtype(dtype, "eye") or dtypes.default_float_dtype()
    n = LS._shape((N,))[0]
    m = n if M is None else LS._shape((M,))[0]
    if type(n) is Dim or type(m) is Dim:   # jnp.eye(x.shape[0]) under abstracted_axes
        return LU.convert(tri_mask(n, m, int(k), "EQ"), dt)
    return LU.host_array(np.eye(n, m, int(k), dtype=dt))


def tri_mask(n, m, k: int, direction: str = "LE"):
    """The ``n x m`` boolean mask of ``j - i <= k`` (NumPy's ``tri``; ``direction="EQ"``:
    the diagonal ``k``): a host array for static sizes, a traced comparison of iotas for
    symbolic ones (``jit`` with ``abstracted_axes``)."""
    if type(n) is not Dim and type(m) is not Dim:
        i, j = np.indices((n, m))
        return j - i <= k if direction == "LE" else j - i == k
    rows = LS.broadcasted_iota(np.int32, (n, m), 0)
    diff = F.subtract(LS.broadcasted_iota(np.int32, (n, m), 1), rows)
    return U.cmp(diff, U.full_like(diff, k), direction)


def identity(n, dtype=None):
    return eye(n, dtype=dtype)


def tri(N, M=None, k=0, dtype=None):
    dt = _user_dtype(dtype, "tri") or dtypes.default_float_dtype()
    return LU.host_array(np.tri(N, M, k, dtype=dt))
