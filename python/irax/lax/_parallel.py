"""``irax.lax`` collectives over named mapped axes (``jax.lax.psum`` and friends).

Each is called inside a function vectorized with ``irax.vmap(..., axis_name=...)`` (later
also ``pmap``) and is written per example; ``irax-vectorize`` turns it into array ops:

    normalize = irax.vmap(lambda x: x / lax.psum(x, "i"), axis_name="i")
    normalize(jnp.arange(4.0))          # [0, 1/6, 2/6, 3/6]

``axis_name`` may be a tuple of names (the axes act as one, the last name varying
fastest) and ``x`` a pytree of arrays. A name bound by no enclosing vmap raises
``NameError: unbound axis name: <name>``, as in JAX.
"""

from __future__ import annotations

import operator

import numpy as np

from irax.core import dtypes, tree_util
from irax.dialect import collective as C
from irax.dialect import elementwise as E
from irax.frontend.axes import bound_axis_size
from irax.frontend.trace import bind, current_trace
from irax.lax import _util as U


def _names(axis_name) -> tuple:
    names = tuple(axis_name) if isinstance(axis_name, (tuple, list)) else (axis_name,)
    for name in names:
        _size(name)  # NameError when unbound
    return names


def _size(name) -> int:
    return bound_axis_size(name)


def _bind(op_cls, operands, **attrs):
    """Emits a collective into the innermost trace (a vmap being traced encloses it), so
    that constants and operand-free collectives are recorded too."""
    out = current_trace().emit(op_cls, list(operands), attrs)
    return out[0]


def _leafwise(fn, x):
    return tree_util.tree_map(lambda leaf: fn(U.as_operand(leaf)), x)


def _nested(op_cls, x, names):
    for name in names:
        x = _bind(op_cls, [x], axis_name=str(name))
    return x


def psum(x, axis_name):
    """Sum of ``x`` over the mapped axis (axes) ``axis_name``; every example gets it."""
    names = _names(axis_name)
    return _leafwise(lambda v: _nested(C.Psum, v, names), x)


def pmax(x, axis_name):
    """Maximum of ``x`` over the mapped axis (axes) ``axis_name``."""
    names = _names(axis_name)
    return _leafwise(lambda v: _nested(C.Pmax, v, names), x)


def pmin(x, axis_name):
    """Minimum of ``x`` over the mapped axis (axes) ``axis_name``."""
    names = _names(axis_name)
    return _leafwise(lambda v: _nested(C.Pmin, v, names), x)


def pmean(x, axis_name):
    """Mean of ``x`` over the mapped axis (axes) ``axis_name`` (true division, so integer
    inputs give floats, as in JAX)."""
    names = _names(axis_name)
    n = int(np.prod([_size(name) for name in names]))

    def mean(v):
        a = U.aval_of(v)
        v = U.convert(v, dtypes.to_inexact_dtype(a.dtype), a.weak_type)
        return bind(E.Div, v, U.full_like(v, n))

    return tree_util.tree_map(mean, psum(x, names))


def axis_index(axis_name):
    """The int32 position of the example along ``axis_name`` (for a tuple of names, the
    row-major position over all of them)."""
    names = _names(axis_name)
    index = None
    for name in names:
        k = _bind(C.AxisIndex, [], axis_name=str(name))
        index = k if index is None else index * np.int32(_size(name)) + k
    return index


def _canonical(fn: str, what: str, axis, bound: int, shape) -> int:
    """``axis`` in ``[0, bound)``; negative values count from the end."""
    axis = operator.index(axis)
    if not -bound <= axis < bound:
        raise ValueError(f"{fn}: {what} {axis} is out of bounds for an operand of shape "
                         f"{shape}")
    return axis % bound


def all_gather(x, axis_name, *, axis_index_groups=None, axis: int = 0, tiled: bool = False):
    """Every example gets the stack of all examples' ``x``: a new axis ``axis`` (``tiled``:
    concatenated along the existing ``axis``)."""
    names = _names(axis_name)
    _no_groups("all_gather", axis_index_groups)

    def gather(v):
        shape = U.aval_of(v).shape
        ax = _canonical("all_gather", "axis", axis, len(shape) + (not tiled), shape)
        if len(names) == 1:
            return _bind(C.AllGather, [v], axis_name=str(names[0]), axis=ax, tiled=tiled,
                         axis_size=_size(names[0]))
        if not tiled:  # a tiled gather of a size-1 axis, over every name
            v = U.reshape(v, (*shape[:ax], 1, *shape[ax:]))
        for name in reversed(names):  # the last name varies fastest
            v = _bind(C.AllGather, [v], axis_name=str(name), axis=ax, tiled=True,
                      axis_size=_size(name))
        return v

    return _leafwise(gather, x)


def psum_scatter(x, axis_name, *, scatter_dimension: int = 0, axis_index_groups=None,
                 tiled: bool = False):
    """Sum over the mapped axis, scattered: example ``i`` gets block ``i`` of the total
    along ``scatter_dimension`` (whose size must equal the axis size, or with ``tiled`` be
    a multiple of it)."""
    names = _names(axis_name)
    _no_groups("psum_scatter", axis_index_groups)
    total = int(np.prod([_size(name) for name in names]))

    def scatter(v):
        a = U.aval_of(v)
        sd = _canonical("psum_scatter", "scatter_dimension", scatter_dimension, a.ndim,
                        a.shape)
        n = a.shape[sd]
        if n % total if tiled else n != total:
            raise ValueError(f"psum_scatter: dimension {sd} of an operand of shape {a.shape} "
                             f"must be {'a multiple of' if tiled else 'equal to'} the size "
                             f"{total} of axis {axis_name!r}")
        if len(names) == 1:
            return _bind(C.PsumScatter, [v], axis_name=str(names[0]), scatter_dimension=sd,
                         tiled=tiled, axis_size=total)
        for name in names:  # the first name varies slowest
            v = _bind(C.PsumScatter, [v], axis_name=str(name), scatter_dimension=sd,
                      tiled=True, axis_size=_size(name))
        if not tiled:
            shape = U.aval_of(v).shape
            v = U.reshape(v, shape[:sd] + shape[sd + 1:])
        return v

    return _leafwise(scatter, x)


def ppermute(x, axis_name, perm):
    """Example ``dst`` gets ``x`` of example ``src`` for each ``(src, dst)`` in ``perm``;
    examples that receive nothing get zeros."""
    names = _names(axis_name)
    if len(names) != 1:
        raise NotImplementedError("irax.lax.ppermute over several axis names is not "
                                  f"supported yet, got {axis_name!r}")
    pairs = [tuple(operator.index(i) for i in p) for p in perm]
    srcs, dsts = [s for s, _ in pairs], [t for _, t in pairs]
    if len(set(srcs)) != len(srcs) or len(set(dsts)) != len(dsts):
        raise ValueError(f"ppermute sources and destinations must be unique, got {perm}.")
    size = _size(names[0])
    if any(not 0 <= i < size for p in pairs for i in p):
        raise ValueError(f"ppermute: perm indices must be in [0, {size}) for axis "
                         f"{names[0]!r} of size {size}, got {perm}")
    flat = tuple(i for p in pairs for i in p)
    return _leafwise(lambda v: _bind(C.Ppermute, [v], axis_name=str(names[0]), perm=flat), x)


def _no_groups(name: str, groups) -> None:
    if groups is not None:
        raise NotImplementedError(f"irax.lax.{name}: axis_index_groups is not supported")
