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
from irax.dialect import indexing as I
from irax.dialect.constant import Iota
from irax.frontend.axes import bound_axis_size, emit_collective, in_binding_order, spmd_handler
from irax.frontend.callee import TraceBuilder
from irax.frontend.trace import bind
from irax.lax import _shape as LS
from irax.lax import _util as U
from irax.lax._misc import Token
from irax.lax._shape_more import dynamic_index_in_dim, index_in_dim


def _names(axis_name) -> tuple:
    names = tuple(axis_name) if isinstance(axis_name, (tuple, list)) else (axis_name,)
    for name in names:
        _size(name)  # NameError when unbound
    return names


def _size(name) -> int:
    return bound_axis_size(name)


def _bind(op_cls, operands, **attrs):
    return emit_collective(op_cls, operands, attrs)


def _leafwise(fn, x):
    return tree_util.tree_map(lambda leaf: fn(U.as_operand(leaf)), x)


def _nested(op_cls, x, names):
    for name in names:
        x = _bind(op_cls, [x], axis_name=str(name))
    return x


def _reduced(op_cls, x, names):
    """psum / pmax / pmin of every leaf of ``x``. Where each device runs its own program
    (``spmd_handler``), the leaves of one dtype go as one flat array: one meeting of the
    devices instead of one per leaf (a gradient's leaves, as XLA combines all-reduces);
    each element is reduced as it would be alone."""
    leaves, tree = tree_util.tree_flatten(x)
    leaves = [U.as_operand(v) for v in leaves]
    if len(leaves) < 2 or any(spmd_handler(str(n)) is None for n in names):
        return tree_util.tree_unflatten(tree, [_nested(op_cls, v, names) for v in leaves])
    out = list(leaves)
    by_dtype: dict = {}
    for i, v in enumerate(leaves):
        by_dtype.setdefault(np.dtype(U.aval_of(v).dtype), []).append(i)
    for group in by_dtype.values():
        if len(group) == 1:
            out[group[0]] = _nested(op_cls, leaves[group[0]], names)
            continue
        avals = [U.aval_of(leaves[i]) for i in group]
        flat = LS.concatenate([U.reshape(leaves[i], (a.size,)) for i, a in zip(group, avals)],
                              0)
        total = _nested(op_cls, flat, names)
        start = 0
        for i, a in zip(group, avals):
            out[i] = U.reshape(LS.slice(total, (start,), (start + a.size,)), a.shape)
            start += a.size
    return tree_util.tree_unflatten(tree, out)


def psum(x, axis_name, *, axis_index_groups=None):
    """Sum of ``x`` over the mapped axis (axes) ``axis_name``; every example gets it."""
    _no_groups("psum", axis_index_groups)
    return _reduced(C.Psum, x, _names(axis_name))


def pmax(x, axis_name, *, axis_index_groups=None):
    """Maximum of ``x`` over the mapped axis (axes) ``axis_name``."""
    _no_groups("pmax", axis_index_groups)
    return _reduced(C.Pmax, x, _names(axis_name))


def pmin(x, axis_name, *, axis_index_groups=None):
    """Minimum of ``x`` over the mapped axis (axes) ``axis_name``."""
    _no_groups("pmin", axis_index_groups)
    return _reduced(C.Pmin, x, _names(axis_name))


def pmean(x, axis_name, *, axis_index_groups=None):
    """Mean of ``x`` over the mapped axis (axes) ``axis_name`` (true division, so integer
    inputs give floats, as in JAX)."""
    _no_groups("pmean", axis_index_groups)
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
    examples that receive nothing get zeros. Over a tuple of names the indices are
    row-major positions over all of them in the order the axes were bound (a mesh's
    order under ``shard_map``), whatever order ``axis_name`` lists them in: JAX numbers
    the group's devices so (``axis_index`` and ``all_gather`` follow the tuple's order)."""
    names = in_binding_order(_names(axis_name))
    pairs = [tuple(operator.index(i) for i in p) for p in perm]
    srcs, dsts = [s for s, _ in pairs], [t for _, t in pairs]
    if len(set(srcs)) != len(srcs) or len(set(dsts)) != len(dsts):
        raise ValueError(f"ppermute sources and destinations must be unique, got {perm}.")
    size = axis_size(names)
    if any(not 0 <= i < size for p in pairs for i in p):
        raise ValueError(f"ppermute: perm indices must be in [0, {size}) for axis "
                         f"{axis_name!r} of size {size}, got {perm}")
    if len(names) == 1:
        flat = tuple(i for p in pairs for i in p)
        return _leafwise(lambda v: _bind(C.Ppermute, [v], axis_name=str(names[0]),
                                         perm=flat), x)
    # several axes: every example gathers all of them and keeps its source's
    source = np.full((size,), -1, np.int32)
    for src, dst in pairs:
        source[dst] = src
    mine = dynamic_index_in_dim(U.as_operand(source), axis_index(names), 0, False)

    zero = np.int32(0)
    at = bind(E.Max, mine, U.as_operand(zero))
    sends = bind(E.Compare, mine, U.as_operand(zero), direction="GE")

    def select(v):
        picked = dynamic_index_in_dim(all_gather(v, names), at, 0, False)
        shape = U.aval_of(picked).shape
        return bind(E.Select, U.broadcast_to(sends, shape), picked,
                    U.full_like(picked, 0, weak=False))

    return _leafwise(select, x)


def _no_groups(name: str, groups) -> None:
    if groups is not None:
        raise NotImplementedError(f"irax.lax.{name}: axis_index_groups is not supported")


def axis_size(axis_name) -> int:
    """The size of the mapped axis (the product of the sizes for a tuple of names)
    (``jax.lax.axis_size``)."""
    return int(np.prod([_size(name) for name in _names(axis_name)], dtype=np.int64))


def all_to_all(x, axis_name, split_axis: int, concat_axis: int, *, axis_index_groups=None,
               tiled: bool = False):
    """Example ``i`` gets chunk ``i`` of every example's ``x`` along ``split_axis``, stacked
    (``tiled``: concatenated) along ``concat_axis`` in example order
    (``jax.lax.all_to_all``)."""
    names = _names(axis_name)
    _no_groups("all_to_all", axis_index_groups)
    n = axis_size(axis_name)

    def swap(v):
        a = U.aval_of(v)
        sa = _canonical("all_to_all", "split_axis", split_axis, a.ndim, a.shape)
        if not tiled and a.shape[sa] != n:
            raise ValueError(f"all_to_all requires the size of the mapped axis axis_name to "
                             f"equal x.shape[split_axis], but they are {n} and "
                             f"{a.shape[sa]} respectively.")
        if tiled and a.shape[sa] % n:
            raise ValueError(f"The size of all_to_all split_axis ({a.shape[sa]}) has to be "
                             f"divisible by the size of the named axis {axis_name} ({n})")
        ca = _canonical("all_to_all", "concat_axis", concat_axis, a.ndim, a.shape)
        if tiled:
            return blocks(v, sa, ca)
        # blocks of one along the split axis, which then goes; a new axis of the senders
        at = ca if ca <= sa else ca + 1
        s = sa + 1 if ca <= sa else sa
        v = blocks(U.reshape(v, a.shape[:at] + (1,) + a.shape[at:]), s, at)
        shape = U.aval_of(v).shape
        return U.reshape(v, shape[:s] + shape[s + 1:])

    def blocks(v, split, concat):
        """The tiled exchange: one irax.all_to_all over one name, one per name over
        several (``collective.exchange``)."""
        if len(names) == 1:
            return _bind(C.AllToAll, [v], axis_name=str(names[0]), split_axis=split,
                         concat_axis=concat, axis_size=n)
        return C.exchange(TraceBuilder(), v, [str(name) for name in names],
                          [_size(name) for name in names], split, concat)

    return _leafwise(swap, x)


def pswapaxes(x, axis_name, axis: int, *, axis_index_groups=None):
    """``all_to_all(x, axis_name, axis, axis)`` (``jax.lax.pswapaxes``)."""
    return all_to_all(x, axis_name, axis, axis, axis_index_groups=axis_index_groups)


def pshuffle(x, axis_name, perm):
    """Example ``i`` gets ``x`` of example ``perm[i]`` (``jax.lax.pshuffle``)."""
    perm = [operator.index(p) for p in perm]
    if sorted(perm) != list(range(axis_size(axis_name))):
        raise ValueError(f"`perm` does not represent a permutation: {perm}")
    return ppermute(x, axis_name, [(p, i) for i, p in enumerate(perm)])


def pbroadcast(x, axis_name, source: int):
    """Every example gets ``x`` of example ``source`` (``jax.lax.pbroadcast``)."""
    source = operator.index(source)
    return _leafwise(lambda v: index_in_dim(all_gather(v, axis_name), source, 0,
                                            keepdims=False), x)


def pcast(x, axis_name, *, to: str):
    """Changes the varying-ness type of ``x`` over ``axis_name`` (``jax.lax.pcast``); irax
    has no such types, so the value is returned unchanged."""
    if isinstance(axis_name, (set, frozenset)):
        raise TypeError(f"axis_name={axis_name} must be a tuple or a str. Got {axis_name}")
    if to not in ("varying", "invariant", "unreduced", "reduced"):
        raise ValueError("Got unexpected `to` value. Allowed `to` values are: "
                         "('varying', 'invariant', 'unreduced', 'reduced')")
    return _leafwise(lambda v: v, x)


def ragged_all_to_all(operand, output, input_offsets, send_sizes, output_offsets, recv_sizes,
                      *, axis_name, axis_index_groups=None):
    """Slice ``i`` of every example's ``operand`` (rows ``input_offsets[i]`` on, ``send_sizes[i]``
    of them) goes to example ``i // (len(send_sizes) / axis size)``, written into its ``output``
    at the sender's ``output_offsets[i]`` (``jax.lax.ragged_all_to_all``)."""
    _no_groups("ragged_all_to_all", axis_index_groups)
    del recv_sizes  # the sender's send_sizes say how many rows arrive
    n_dev = axis_size(axis_name)
    x, out = U.as_operand(operand), U.as_operand(output)
    xa, oa = U.aval_of(x), U.aval_of(out)
    n = U.aval_of(send_sizes).shape[0]
    if n % n_dev:
        raise ValueError(f"ragged_all_to_all: the number of slices {n} must be divisible by "
                         f"the size {n_dev} of axis {axis_name!r}")
    if xa.dtype != oa.dtype or xa.shape[1:] != oa.shape[1:]:
        raise TypeError(f"ragged_all_to_all: operand and output must agree in dtype and in all "
                        f"but the leading dim, got {xa.str_short()} and {oa.str_short()}")
    per = n // n_dev
    ints = [U.convert(U.as_operand(v), np.int32) for v in (input_offsets, send_sizes,
                                                             output_offsets)]
    g_x = all_gather(x, axis_name)
    g_in, g_size, g_out = (all_gather(v, axis_name) for v in ints)
    me = U.convert(axis_index(axis_name), np.int32)
    rows = oa.shape[0]
    r = bind(Iota, shape=(rows,), dtype=np.dtype(np.int32), dimension=0)
    for s in range(n_dev):
        src = index_in_dim(g_x, s, 0, keepdims=False)
        for k in range(per):
            i = bind(E.Add, bind(E.Mul, me, U.full((), per, np.int32)), U.full((), k, np.int32))

            def pick(g, i=i, s=s):
                return U.reshape(dynamic_index_in_dim(index_in_dim(g, s, 0, keepdims=False),
                                                      i, 0, keepdims=False), ())

            start, size, at = pick(g_in), pick(g_size), pick(g_out)
            rel = bind(E.Sub, r, U.broadcast_to(at, (rows,)))
            hit = bind(E.And, bind(E.Compare, rel, U.full((rows,), 0, np.int32), direction="GE"),
                       bind(E.Compare, rel, U.broadcast_to(size, (rows,)), direction="LT"))
            idx = bind(E.Add, rel, U.broadcast_to(start, (rows,)))
            taken = bind(I.Gather, src, U.reshape(idx, (rows, 1)),
                         offset_dims=tuple(range(1, xa.ndim)), collapsed_slice_dims=(0,),
                         start_index_map=(0,), slice_sizes=(1, *xa.shape[1:]),
                         index_vector_dim=1)
            mask = U.broadcast_in_dim(hit, oa.shape, (0,))
            out = bind(E.Select, mask, taken, out)
    return out


class _SendToken(Token):
    """The token of a ``psend``: it carries the permuted value to its ``precv``."""

    __slots__ = ("values", "perm")

    def __init__(self, values, perm):
        self.values, self.perm = values, perm


def psend(x, axis_name, perm):
    """Sends ``x`` along the ``(source, destination)`` pairs ``perm``; returns the token
    that the matching ``precv`` receives from (``jax.lax.psend``)."""
    return _SendToken(ppermute(x, axis_name, perm), [tuple(p) for p in perm])


def precv(token, out_shape, axis_name, perm):
    """The value sent by the ``psend`` whose token is ``token`` (``jax.lax.precv``): shaped
    like ``out_shape``, zeros where no pair of ``perm`` arrives."""
    _names(axis_name)
    if not isinstance(token, _SendToken):
        raise NotImplementedError("irax.lax.precv: the token must come from the matching "
                                  "psend (irax passes the value with the token)")
    if [tuple(p) for p in perm] != token.perm:
        raise ValueError(f"precv: perm {perm} differs from the psend's {token.perm}")
    for v, s in zip(tree_util.tree_leaves(token.values), tree_util.tree_leaves(out_shape)):
        a = U.aval_of(v)
        if tuple(s.shape) != a.shape or np.dtype(s.dtype) != a.dtype:
            raise TypeError(f"precv: out_shape {s.shape} {s.dtype} does not match the sent "
                            f"{a.str_short()}")
    return token.values
