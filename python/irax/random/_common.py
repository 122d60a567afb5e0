"""Argument checks and numeric helpers shared by the samplers."""

from __future__ import annotations

import numpy as np

from irax import lax
from irax import numpy as jnp
from irax.core import dtypes, tree_util
from irax.frontend.tracer import Tracer
from irax.lax import _util as lu
from irax.runtime.array import committed_device


def canonical_shape(name: str, shape) -> tuple:
    if shape is None:
        return None
    if isinstance(shape, (int, np.integer)):
        shape = (shape,)
    try:
        out = tuple(int(d) for d in shape)
    except TypeError:
        raise TypeError(f"irax.random.{name}: shape must be a tuple of integers, got "
                        f"{shape!r}") from None
    if any(d < 0 for d in out):
        raise ValueError(f"irax.random.{name}: shape must be non-negative, got {out}")
    return out


def check_shape(name: str, shape: tuple, *param_shapes) -> None:
    """JAX's rule: parameter shapes broadcast with ``shape`` to exactly ``shape``."""
    if not param_shapes:
        return
    try:
        joined = tuple(np.broadcast_shapes(shape, *param_shapes))
    except ValueError:
        raise ValueError(f"irax.random.{name}: parameter shapes "
                         f"{', '.join(str(tuple(p)) for p in param_shapes)} are not "
                         f"broadcast-compatible with shape argument {tuple(shape)}") from None
    if joined != tuple(shape):
        raise ValueError(
            f"irax.random.{name}: parameter shapes must be broadcast-compatible with shape "
            "argument, and the result of broadcasting the shapes must equal the shape "
            f"argument, but got result {joined} for shape argument {tuple(shape)}.")


def broadcast_shapes(name: str, shape, *args) -> tuple:
    """``shape`` (checked against the parameters) or the parameters' broadcast shape."""
    shapes = [tuple(np.shape(a)) for a in args]
    if shape is None:
        try:
            return tuple(np.broadcast_shapes(*shapes)) if shapes else ()
        except ValueError:
            raise ValueError(f"irax.random.{name}: incompatible parameter shapes "
                             f"{shapes}") from None
    shape = canonical_shape(name, shape)
    check_shape(name, shape, *shapes)
    return shape


def user_dtype(name: str, dtype, default=float) -> np.dtype:
    return dtypes.check_user_dtype(default if dtype is None else dtype, f"irax.random.{name}")


def float_dtype(name: str, dtype, allow_complex: bool = False) -> np.dtype:
    """The canonical float dtype asked for (``ValueError`` for any other kind)."""
    dt = user_dtype(name, dtype)
    ok = dtypes.is_inexact(dt) if allow_complex else dtypes.is_float(dt)
    if not ok:
        kinds = "a float or complex" if allow_complex else "a float"
        raise ValueError(f"irax.random.{name}: dtype argument to `{name}` must be {kinds} "
                         f"dtype, got {dt}")
    return dt


def check_safe_cast(name: str, dtype, *args) -> None:
    """JAX refuses parameters whose dtype cannot be safely cast to the float ``dtype``
    (e.g. a float64 array for float32 samples)."""
    for a in args:
        if lu.is_python_scalar(a) or not hasattr(a, "dtype"):
            continue
        src = np.dtype(a.dtype)
        if dtypes.is_float(src) and src.itemsize > np.dtype(dtype).itemsize:
            raise TypeError(f"irax.random.{name}: in arguments to {name}, cannot safely cast "
                            f"argument of type {src} to {np.dtype(dtype)}")


def finfo(dtype):
    return dtypes.finfo(dtype)


def is_traced(*xs) -> bool:
    return any(isinstance(x, Tracer) for x in xs)


def const(x, value):
    """``value`` in the dtype of ``x`` (a weak-free scalar that lax accepts)."""
    return np.array(value, dtype=x.dtype)


def fma(a, b, c):
    """``a * b + c`` rounded once, as XLA and IREE compute it on CPU (they contract the
    multiply-add into an FMA under jit). Eager inputs emulate the FMA on the host: float32
    and narrower in float64 (an exact product; the double rounding is wrong with
    probability ~2**-29), float64 with Dekker's exact product. Traced inputs emit multiply
    and add and let the compiler contract them."""
    if is_traced(a, b, c):
        return lax.add(lax.mul(a, b), c)
    dt = np.dtype(lu.aval_of(a).dtype)
    if dt.kind != "f" and dt.name != "bfloat16":
        return lax.add(lax.mul(a, b), c)
    home = committed_device((a, b, c), "fma")
    x, y, z = (lu.host_data(v) for v in (a, b, c))
    if dt == np.float64:
        return lu.host_array(_fma64(x, y, z), home=home)
    wide = x.astype(np.float64) * y.astype(np.float64) + z.astype(np.float64)
    return lu.host_array(wide.astype(dt), home=home)


def _split(x):
    t = x * 134217729.0  # 2**27 + 1 (Veltkamp)
    hi = t - (t - x)
    return hi, x - hi


def _fma64(a, b, c):
    """``a * b + c`` in float64 with the product kept exact (``p + e``, Dekker) and the
    sum's error folded back in: correctly rounded except in rare double-rounding ties."""
    with np.errstate(all="ignore"):
        p = a * b
        ah, al = _split(a)
        bh, bl = _split(b)
        e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
        s = p + c
        bv = s - p
        err = (p - (s - bv)) + (c - bv)
        out = s + (err + e)
    return np.where(np.isfinite(out), out, p + c)


def polynomial(t, coeffs):
    """Horner's rule with FMA steps: ``((c0*t + c1)*t + c2)...``."""
    p = lax.full_like(t, coeffs[0])
    for c in coeffs[1:]:
        p = fma(p, t, const(t, c))
    return p


def nextafter(x, direction: float):
    """``nextafter(x, direction)`` for concrete or traced floats (bit arithmetic)."""
    if not is_traced(x):
        data = lu.host_data(x)
        return lu.host_array(np.nextafter(data, np.array(direction, data.dtype)))
    return _nextafter_traced(x, direction)


def _nextafter_traced(x, direction: float):
    """The neighbour of ``x`` towards ``direction`` (+-inf) without bit casts: a step of
    ``|x| * eps`` lands one or two ulps away; halving the gap while the midpoint is a float
    strictly between finds the neighbour. Zero and subnormals step by the smallest
    subnormal; infinities and NaN stay."""
    info = finfo(x.dtype)
    up = direction > 0
    step = jnp.maximum(jnp.abs(x) * const(x, float(info.eps)),
                       const(x, float(info.smallest_subnormal)))
    y = x + step if up else x - step
    for _ in range(2):
        m = x + (y - x) * const(x, 0.5)
        between = (m > x) & (m < y) if up else (m < x) & (m > y)
        y = jnp.where(between, m, y)
    return jnp.where(jnp.isfinite(x), y, x)


def softmax(x, axis: int = -1):
    m = jnp.max(x, axis=axis, keepdims=True)
    e = jnp.exp(x - lax.stop_gradient(m))
    return e / jnp.sum(e, axis=axis, keepdims=True)


def while_loop(cond, body, state):
    """``lax.while_loop(cond, body, state)``, except on concrete values: there the same
    ``cond`` and ``body`` run in a Python loop, op by op, so eager samplers give the values
    the compiled loop gives (eager ``fma`` emulates the contraction the compiler does under
    jit). As soon as the state or the predicate is traced (a traced value closed over),
    the rest of the loop becomes a ``lax.while_loop``."""
    while True:
        if is_traced(*tree_util.tree_leaves(state)):
            return lax.while_loop(cond, body, state)
        pred = cond(state)
        if is_traced(pred):
            return lax.while_loop(cond, body, state)
        if not bool(np.asarray(pred)):
            return state
        state = body(state)


def pick(x, i: int, axis: int = 0):
    """``x`` at index ``i`` of ``axis`` (that axis removed)."""
    axis %= x.ndim
    start = [0] * x.ndim
    limit = list(x.shape)
    start[axis], limit[axis] = i, i + 1
    part = lax.slice(x, tuple(start), tuple(limit))
    return lax.reshape(part, tuple(d for k, d in enumerate(x.shape) if k != axis))
