"""Promotion and broadcasting of ``irax.numpy`` arguments (JAX's ``promote_args`` family).

    x, y = promote_args("add", x, y)            # one dtype (JAX's lattice), one shape
    x, = promote_args_inexact("sin", x)         # ints and bool -> float32 (weak stays weak)

Shapes broadcast like NumPy; a mismatch raises
``TypeError: irax.numpy.add: incompatible shapes for broadcasting: (3,) and (4,)``.
"""

from __future__ import annotations

import numpy as np

from irax.core import dtypes
from irax.dialect import elementwise as E
from irax.frontend.trace import bind
from irax.lax import _util as U

aval_of = U.aval_of
convert = U.convert
full = U.full
full_like = U.full_like
broadcast_to = U.broadcast_to


def broadcast_to_like(x, ref):
    return U.broadcast_to(x, aval_of(ref).shape)


def check_arraylike(fun_name: str, *args) -> None:
    for i, a in enumerate(args):
        if not U.is_arraylike(a):
            raise TypeError(f"{fun_name} requires ndarray or scalar arguments, got {type(a)} at "
                            f"position {i}.")


def _join_shapes(shapes) -> str:
    parts = [str(tuple(s)) for s in shapes]
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def broadcast_shapes(fun_name: str, *shapes) -> tuple[int, ...]:
    """NumPy's broadcast of ``shapes``; TypeError naming ``irax.numpy.<fun_name>``."""
    shapes = [tuple(s) for s in shapes]
    nd = max((len(s) for s in shapes), default=0)
    out = []
    for i in range(nd):
        sizes = {s[len(s) - nd + i] for s in shapes if len(s) - nd + i >= 0} - {1}
        if len(sizes) > 1:
            raise TypeError(f"irax.numpy.{fun_name}: incompatible shapes for broadcasting: "
                            f"{_join_shapes(shapes)}")
        out.append(sizes.pop() if sizes else 1)
    return tuple(out)


def broadcast_all(fun_name: str, args):
    shape = broadcast_shapes(fun_name, *(aval_of(a).shape for a in args))
    return [U.broadcast_to(a, shape) for a in args]


def _to_numeric(dt):
    return dtypes.int32 if dt == np.bool_ else dt


def promote_dtypes(*args):
    """Converts ``args`` to their common dtype and weak flag (no op where unchanged)."""
    dt, weak = dtypes.result_type(*args, return_weak_type_flag=True)
    return [convert(a, dt, weak) for a in args]


def promote_dtypes_inexact(*args):
    dt, weak = dtypes.result_type(*args, return_weak_type_flag=True)
    dt = dtypes.to_inexact_dtype(dt)
    return [convert(a, dt, weak) for a in args]


def promote_dtypes_numeric(*args):
    dt, weak = dtypes.result_type(*args, return_weak_type_flag=True)
    return [convert(a, _to_numeric(dt), weak) for a in args]


def promote_args(fun_name: str, *args):
    check_arraylike(fun_name, *args)
    return broadcast_all(fun_name, promote_dtypes(*args))


def promote_args_inexact(fun_name: str, *args):
    check_arraylike(fun_name, *args)
    return broadcast_all(fun_name, promote_dtypes_inexact(*args))


def promote_args_numeric(fun_name: str, *args):
    check_arraylike(fun_name, *args)
    return broadcast_all(fun_name, promote_dtypes_numeric(*args))


def as_array(fun_name: str, x):
    """One array-like argument as an ``irax.Array`` or tracer, its dtype and weak flag kept."""
    check_arraylike(fun_name, x)
    a = aval_of(x)
    return convert(x, a.dtype, a.weak_type)


def dtype_error(fun_name: str, dt, accepted: str) -> TypeError:
    return TypeError(f"{fun_name} does not accept dtype {dtypes.short_name(dt)}. Accepted dtypes "
                     f"are subtypes of {accepted}.")


# ---- tiny op helpers used throughout the package ----------------------------------------------
def const(x, value):
    """A weak splat of ``value`` with ``x``'s shape and dtype."""
    return full_like(x, value)


def cmp(x, y, direction: str):
    return bind(E.Compare, x, y, direction=direction)


def select(p, x, y):
    return bind(E.Select, p, x, y)


def to_bool(x):
    """``x != 0`` (bool operands unchanged)."""
    if aval_of(x).dtype == np.bool_:
        return x
    return cmp(x, const(x, 0), "NE")


def canonical_axes(axis, ndim: int) -> tuple[int, ...]:
    """``axis`` (None, an int or a sequence) as sorted non-negative axes; None means all."""
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, (list, tuple)):
        axes = tuple(U.canonicalize_axis(a, ndim) for a in axis)
        if len(set(axes)) != len(axes):
            raise ValueError(f"repeated axis in {tuple(axis)}")
        return tuple(sorted(axes))
    return (U.canonicalize_axis(axis, ndim),)
