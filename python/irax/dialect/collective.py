"""Collectives over a named mapped axis: psum, pmax, pmin, all_gather, psum_scatter,
all_to_all, ppermute, axis_index.

A collective is written per example: its operand and result types are those one example
sees, and ``axis_name`` names the axis of an enclosing ``irax.vmap`` (or, later, pmap)
that it communicates over. ``irax-vectorize`` rewrites a collective when it vectorizes
that axis (the op's ``batch`` rule, called even when no operand is mapped); a collective
over another axis is applied per example and waits for the enclosing vmap. A collective
left unexpanded cannot run: its ``evaluate`` and ``lower`` raise "unbound axis name".

    %s = "irax.psum"(%x) {axis_name = "i"} : (tensor<3xf32>) -> tensor<3xf32>
    %g = "irax.all_gather"(%x) {axis_name = "i", axis = 0 : i64, axis_size = 4 : i64}
           : (tensor<3xf32>) -> tensor<4x3xf32>
    %k = "irax.axis_index"() {axis_name = "i"} : () -> tensor<i32>

Derivatives follow JAX: psum, all_gather, psum_scatter, all_to_all and ppermute are
linear (the transpose of psum is psum, of all_gather psum_scatter, of all_to_all the
all_to_all back, of ppermute the inverse permutation); pmax and pmin share the tangent
among the examples attaining the extreme; axis_index has no tangent.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from irax.core import dtypes
from irax.core.abstract import ShapedArray
from irax.dialect import attrs as A
from irax.dialect import collective_threads as T
from irax.dialect.base import Linear, Op, OpError
from irax.dialect.shape import insert_at, like


class Collective(Op):
    """A collective over the mapped axis ``axis_name``. Members define
    ``batch_named(b, x, d, **attrs)``, the rule for vectorizing their own axis (``x`` is
    the operand, ``d`` its batch dimension or None); over another axis they are applied
    per example with the batch dimension passing through (``batch_other``)."""

    num_operands = 1
    attributes = {"axis_name": A.Str}
    #: shard_map's check_vma rule (``shard/vma.py``): whether the result varies along the
    #: collective's axis (True: all_gather, ppermute, ...), is the same along it (False:
    #: psum, pmax, pmin), or depends on the operand alone (None)
    varies_along_axis: ClassVar[bool | None] = None
    #: irax-shard's rule (``shard/split.py``): ``between_devices(b, operands, devices,
    #: **attrs)`` -> each device's result, on that device, from each device's operand, as
    #: transfers between the group's devices; None: gathered and batched on the first
    between_devices = None
    #: ``transforms/spmd.py``'s rule (``dialect/collective_threads.py``):
    #: ``between_threads(aval, **attrs)`` -> how a device running its own program on a
    #: thread computes its part from its group's operands; None: no per-device form
    between_threads = None
    no_rules = {"shard": "a collective names the axis of an enclosing map or shard_map, whose "
                         "callee irax-partition does not enter"}
    #: the attribute that names a dimension of the operand (None: shape-preserving op)
    dim_attr: str | None = None

    @classmethod
    def evaluate(cls, *arrays, axis_name, **attrs):
        raise OpError(f"unbound axis name: {axis_name}")

    @classmethod
    def lower(cls, lb, *operands, axis_name, **attrs):
        raise OpError(f"unbound axis name: {axis_name}")

    @classmethod
    def batch(cls, b, args, dims, **attrs):
        if attrs["axis_name"] != b.axis_name:
            return cls.batch_other(b, args, dims, **attrs)
        return cls.batch_named(b, *args, *dims, **attrs)

    @classmethod
    def batch_other(cls, b, args, dims, **attrs):
        """Per example: a shape-preserving collective keeps the batch dimension where it
        is; one that names an operand dimension gets the batch dimension in front."""
        (x,), (d,) = args, dims
        if cls.dim_attr is None:
            return b.emit(cls, [x], **attrs), [d]
        attrs[cls.dim_attr] += 1
        return b.emit(cls, [b.moveaxis(x, d, 0)], **attrs), [0]

    @classmethod
    def batch_named(cls, b, *args_and_dims, **attrs):
        raise NotImplementedError


def _check_numeric(x: ShapedArray, kind: str = "numeric") -> None:
    bad = dtypes.is_bool(x.dtype) or (kind == "real" and dtypes.is_complex(x.dtype))
    if bad:
        raise OpError(f"expected {kind} operands, but got {x.str_short()}")


def _check_size(axis_size: int, b) -> None:
    if axis_size != b.axis_size:
        raise OpError(f"expected axis_size {b.axis_size} (the size of axis "
                      f"'{b.axis_name}'), but got {axis_size}")


def _tree(combine: str):
    """A reduction over a group of devices as a binary tree: the values combine pairwise
    on the first device of each pair (log2(n) rounds of transfers), the total goes back
    down the tree."""
    def between_devices(cls, b, vals, devices, **attrs):
        total, step = _reduce_up(b, vals, devices, combine)
        out = [total] + [None] * (len(vals) - 1)
        step //= 2
        while step >= 1:
            for i in range(0, len(vals) - step, 2 * step):
                out[i + step] = b.transfer(out[i], device=devices[i + step])
            step //= 2
        return out
    return classmethod(between_devices)


def _reduce_up(b, vals, devices, combine: str):
    """The values of a group combined pairwise up a binary tree onto its first device;
    returns the total and the tree's first step size above the group."""
    vals, n, step = list(vals), len(vals), 1
    while step < n:
        for i in range(0, n - step, 2 * step):
            moved = b.transfer(vals[i + step], device=devices[i])
            vals[i] = getattr(b, combine)(vals[i], moved)
        step *= 2
    return vals[0], step


# ---- reductions over the axis ---------------------------------------------------------------
class Psum(Linear, Collective):
    """Sum over the mapped axis; every example gets the total.

        %s = "irax.psum"(%x) {axis_name = "i"} : (tensor<3xf32>) -> tensor<3xf32>
    """

    name = "irax.psum"
    varies_along_axis = False
    between_devices = _tree("add")
    between_threads = T.reducing(np.add)

    @classmethod
    def infer(cls, x, *, axis_name):
        _check_numeric(x)
        return x

    @classmethod
    def transpose(cls, b, ct, x, *, axis_name):
        return (b.psum(ct, axis_name=axis_name),)

    @classmethod
    def batch_named(cls, b, x, d, *, axis_name):
        if d is None:  # every example holds x
            return [b.mul(x, b.full(b.aval(x), b.axis_size))], [None]
        return [b.reduce_sum(x, axes=(d,))], [None]


class Pmax(Collective):
    """Maximum over the mapped axis; every example gets it.

        %m = "irax.pmax"(%x) {axis_name = "i"} : (tensor<3xf32>) -> tensor<3xf32>
    """

    name = "irax.pmax"
    varies_along_axis = False
    between_devices = _tree("max")
    between_threads = T.reducing(np.maximum)
    reduce_method = "reduce_max"

    @classmethod
    def infer(cls, x, *, axis_name):
        _check_numeric(x, "real")
        return x

    @classmethod
    def jvp(cls, b, primals, tangents, outs, *, axis_name):
        """As for ``reduce_max``: the mean of the tangents of the examples that attain the
        extreme (ties share it equally)."""
        (x,), (dx,), (y,) = primals, tangents, outs
        dtype = b.aval(x).dtype
        chosen = b.convert(b.compare(x, y, direction="EQ"), new_dtype=dtype)
        share = b.div(chosen, b.psum(chosen, axis_name=axis_name))
        return b.psum(b.mul(dx, share), axis_name=axis_name)

    @classmethod
    def batch_named(cls, b, x, d, *, axis_name):
        if d is None:
            return [x], [None]
        return [getattr(b, cls.reduce_method)(x, axes=(d,))], [None]


class Pmin(Pmax):
    """Minimum over the mapped axis; every example gets it.

        %m = "irax.pmin"(%x) {axis_name = "i"} : (tensor<3xf32>) -> tensor<3xf32>
    """

    name = "irax.pmin"
    between_devices = _tree("min")
    between_threads = T.reducing(np.minimum)
    reduce_method = "reduce_min"


# ---- gather and scatter ----------------------------------------------------------------------
def _merge(b, x, at: int):
    """``x`` with dimensions ``at`` and ``at + 1`` merged into one (row-major)."""
    shape = b.aval(x).shape
    return b.reshape(x, new_sizes=(*shape[:at], shape[at] * shape[at + 1], *shape[at + 2:]))


def _split(b, x, at: int, n: int):
    """``x`` with dimension ``at`` split into ``(n, size // n)`` (row-major)."""
    shape = b.aval(x).shape
    return b.reshape(x, new_sizes=(*shape[:at], n, shape[at] // n, *shape[at + 1:]))


class AllGather(Linear, Collective):
    """Every example gets the stack of all examples' operands, as a new dimension at
    ``axis`` of size ``axis_size`` (``tiled``: concatenated along the existing ``axis``).

        %g = "irax.all_gather"(%x) {axis_name = "i", axis = 1 : i64, axis_size = 4 : i64}
               : (tensor<2x3xf32>) -> tensor<2x4x3xf32>
    """

    name = "irax.all_gather"
    varies_along_axis = True

    between_threads = classmethod(T.all_gather)

    @classmethod
    def between_devices(cls, b, vals, devices, *, axis, tiled, **attrs):
        """Each device receives every other device's block directly and joins them."""
        out = []
        for k, dev in enumerate(devices):
            blocks = [v if j == k else b.transfer(v, device=dev) for j, v in enumerate(vals)]
            if not tiled:
                blocks = [b.reshape(v, new_sizes=insert_at(b.aval(v).shape, axis, 1))
                          for v in blocks]
            out.append(blocks[0] if len(blocks) == 1 else
                       b.concatenate(*blocks, dimension=axis))
        return out
    attributes = {"axis_name": A.Str, "axis": A.I64, "tiled": A.Bool, "axis_size": A.I64}
    dim_attr = "axis"
    defaults = {"tiled": False}

    @classmethod
    def infer(cls, x, *, axis_name, axis, tiled, axis_size):
        if axis_size < 0:
            raise OpError(f"expected a non-negative axis_size, but got {axis_size}")
        shape = list(x.shape)
        if tiled:
            if not 0 <= axis < x.ndim:
                raise OpError(f"expected axis in [0, {x.ndim}), but got {axis}")
            shape[axis] *= axis_size
        else:
            if not 0 <= axis <= x.ndim:
                raise OpError(f"expected axis in [0, {x.ndim}], but got {axis}")
            shape.insert(axis, axis_size)
        return like(x, shape)

    @classmethod
    def transpose(cls, b, ct, x, *, axis_name, axis, tiled, axis_size):
        return (b.psum_scatter(ct, axis_name=axis_name, scatter_dimension=axis, tiled=tiled,
                               axis_size=axis_size),)

    @classmethod
    def batch_named(cls, b, x, d, *, axis_name, axis, tiled, axis_size):
        """The stack of all examples is the batched operand itself, batch dim at ``axis``;
        it is the same for every example."""
        _check_size(axis_size, b)
        stacked = b.matchaxis(x, d, axis)
        return [_merge(b, stacked, axis) if tiled else stacked], [None]


class PsumScatter(Linear, Collective):
    """Sum over the mapped axis, scattered: example ``i`` gets block ``i`` of the total
    along ``scatter_dimension`` (its size must be ``axis_size``, which the result drops;
    ``tiled``: a multiple of it, which the result divides).

        %s = "irax.psum_scatter"(%x) {axis_name = "i", scatter_dimension = 0 : i64,
               axis_size = 4 : i64} : (tensor<4x3xf32>) -> tensor<3xf32>
    """

    name = "irax.psum_scatter"
    varies_along_axis = True

    between_threads = classmethod(T.psum_scatter)

    @classmethod
    def between_devices(cls, b, vals, devices, *, scatter_dimension, tiled, **attrs):
        """The operands summed up a binary tree onto the first device (as a psum's), which
        sends each device its block of the total: log2(n) rounds of whole transfers up,
        blocks down (with IREE's local devices every transfer and slice is a dispatch, so
        fewer of them beat a device-to-device exchange of blocks: 4 devices, 4 MiB each,
        3.4-4.2 ms the exchange)."""
        n, d, out = len(vals), scatter_dimension, []
        total, _ = _reduce_up(b, vals, devices, "add")
        shape = b.aval(total).shape
        size = shape[d] // n if tiled else 1
        for k, dev in enumerate(devices):
            start, limit = [0] * len(shape), list(shape)
            start[d], limit[d] = k * size, (k + 1) * size
            piece = b.slice(total, start_indices=tuple(start), limit_indices=tuple(limit),
                            strides=(1,) * len(shape))
            if not tiled:
                piece = b.reshape(piece, new_sizes=shape[:d] + shape[d + 1:])
            out.append(piece if k == 0 else b.transfer(piece, device=dev))
        return out
    attributes = {"axis_name": A.Str, "scatter_dimension": A.I64, "tiled": A.Bool,
                  "axis_size": A.I64}
    dim_attr = "scatter_dimension"
    defaults = {"tiled": False}

    @classmethod
    def infer(cls, x, *, axis_name, scatter_dimension, tiled, axis_size):
        _check_numeric(x)
        sd = scatter_dimension
        if not 0 <= sd < x.ndim:
            raise OpError(f"expected scatter_dimension in [0, {x.ndim}), but got {sd}")
        n = x.shape[sd]
        if axis_size <= 0 or (n % axis_size if tiled else n != axis_size):
            want = "a multiple of" if tiled else "equal to"
            raise OpError(f"expected dimension {sd} of size {want} axis_size {axis_size}, "
                          f"but got {x.str_short()}")
        shape = list(x.shape)
        if tiled:
            shape[sd] //= axis_size
        else:
            del shape[sd]
        return like(x, shape)

    @classmethod
    def transpose(cls, b, ct, x, *, axis_name, scatter_dimension, tiled, axis_size):
        return (b.all_gather(ct, axis_name=axis_name, axis=scatter_dimension, tiled=tiled,
                             axis_size=axis_size),)

    @classmethod
    def batch_named(cls, b, x, d, *, axis_name, scatter_dimension, tiled, axis_size):
        """The total has the per-example shape; its ``scatter_dimension`` (split into
        (examples, block) when tiled) indexes the examples: it becomes the batch dim."""
        _check_size(axis_size, b)
        psum, _ = Psum.batch_named(b, x, d, axis_name=axis_name)
        total = psum[0]
        if tiled:
            total = _split(b, total, scatter_dimension, axis_size)
        return [total], [scatter_dimension]


class AllToAll(Linear, Collective):
    """Example ``i`` gets block ``i`` (of ``axis_size``) of every example's operand along
    ``split_axis``, the blocks joined in example order along ``concat_axis``
    (``lax.all_to_all`` with ``tiled=True``; its untiled form reshapes around this).

        %y = "irax.all_to_all"(%x) {axis_name = "i", split_axis = 0 : i64,
               concat_axis = 1 : i64, axis_size = 2 : i64}
               : (tensor<4x3xf32>) -> tensor<2x6xf32>
    """

    name = "irax.all_to_all"
    varies_along_axis = True
    attributes = {"axis_name": A.Str, "split_axis": A.I64, "concat_axis": A.I64,
                  "axis_size": A.I64}

    @classmethod
    def infer(cls, x, *, axis_name, split_axis, concat_axis, axis_size):
        for what, d in (("split_axis", split_axis), ("concat_axis", concat_axis)):
            if not 0 <= d < x.ndim:
                raise OpError(f"expected {what} in [0, {x.ndim}), but got {d}")
        if axis_size <= 0 or x.shape[split_axis] % axis_size:
            raise OpError(f"expected dimension {split_axis} of a size divisible by "
                          f"axis_size {axis_size}, but got {x.str_short()}")
        shape = list(x.shape)
        shape[split_axis] //= axis_size
        shape[concat_axis] *= axis_size
        return like(x, shape)

    between_threads = classmethod(T.all_to_all)

    @classmethod
    def between_devices(cls, b, vals, devices, *, split_axis, concat_axis, **attrs):
        """Each device receives its block of every other device's operand directly (a
        block each: 1/n of what an all_gather moves) and joins them."""
        shape = b.aval(vals[0]).shape
        size = shape[split_axis] // len(vals)

        def block(v, k):
            start, limit = [0] * len(shape), list(shape)
            start[split_axis], limit[split_axis] = k * size, (k + 1) * size
            return b.slice(v, start_indices=tuple(start), limit_indices=tuple(limit),
                           strides=(1,) * len(shape))

        out = []
        for k, dev in enumerate(devices):
            parts = [block(v, k) if j == k else b.transfer(block(v, k), device=dev)
                     for j, v in enumerate(vals)]
            out.append(parts[0] if len(parts) == 1 else
                       b.concatenate(*parts, dimension=concat_axis))
        return out

    @classmethod
    def transpose(cls, b, ct, x, *, axis_name, split_axis, concat_axis, axis_size):
        """The blocks go back where they came from: split and concat axes swapped."""
        return (b.all_to_all(ct, axis_name=axis_name, split_axis=concat_axis,
                             concat_axis=split_axis, axis_size=axis_size),)

    @classmethod
    def batch_other(cls, b, args, dims, *, split_axis, concat_axis, **attrs):
        (x,), (d,) = args, dims
        return b.emit(cls, [b.moveaxis(x, d, 0)], split_axis=split_axis + 1,
                      concat_axis=concat_axis + 1, **attrs), [0]

    @classmethod
    def batch_named(cls, b, x, d, *, axis_name, split_axis, concat_axis, axis_size):
        """With the examples ``j`` stacked in front and the split axis cut into (block
        ``i``, rest): ``i`` becomes the batch dimension and ``j`` joins the concat axis
        as its major part."""
        _check_size(axis_size, b)
        s = split_axis + 1
        y = _split(b, b.to_front(x, d), s, axis_size)   # (j, ..., i, rest, ...)
        rest = [e for e in range(b.aval(y).ndim) if e not in (0, s)]
        concat = s + 1 if concat_axis == split_axis else \
            concat_axis + 1 + (concat_axis > split_axis)
        at = rest.index(concat)
        y = b.transpose(y, permutation=(s, *rest[:at], 0, *rest[at:]))
        return [_merge(b, y, at + 1)], [0]


def exchange(b, v, axes, sizes, split: int, concat: int):
    """An all_to_all over several mesh axes together (row-major positions over ``axes``,
    of sizes ``sizes``), tiled: device ``k`` gets block ``k`` of every device's ``v``
    along ``split``, joined in device order along ``concat``. One ``irax.all_to_all`` per
    axis, each over that axis' share of ``split`` (after it, that share counts the
    senders); the senders' axes (the first axis' major) then join ``concat``. ``b``: any
    builder (IR, or traced values: ``lax.all_to_all``)."""
    shape = list(b.aval(v).shape)
    total = int(np.prod(sizes))
    chunk = shape[split] // total
    v = b.reshape(v, new_sizes=tuple(shape[:split] + list(sizes) + [chunk] +
                                     shape[split + 1:]))
    for i, (axis, n) in enumerate(zip(axes, sizes)):
        v = b.all_to_all(v, axis_name=axis, split_axis=split + i, concat_axis=split + i,
                         axis_size=n)
    m = len(axes)
    dims = list(range(len(shape) + m))
    senders, rest = dims[split:split + m], dims[:split] + dims[split + m:]
    v = b.transpose(v, permutation=tuple(rest[:concat] + senders + rest[concat:]))
    shape[split] = chunk
    shape[concat] *= total
    return b.reshape(v, new_sizes=tuple(shape))


# ---- permutation -----------------------------------------------------------------------------
def _pairs(perm) -> list[tuple[int, int]]:
    return list(zip(perm[0::2], perm[1::2]))


class Ppermute(Linear, Collective):
    """Example ``dst`` gets the operand of example ``src`` for each pair of ``perm``
    (flattened ``(src, dst)`` pairs); examples that receive nothing get zeros.

        %y = "irax.ppermute"(%x) {axis_name = "i", perm = array<i64: 0, 1, 1, 0>}
               : (tensor<3xf32>) -> tensor<3xf32>
    """

    name = "irax.ppermute"
    varies_along_axis = True

    between_threads = classmethod(T.ppermute)

    @classmethod
    def between_devices(cls, b, vals, devices, *, perm, **attrs):
        """Each destination receives its source's value directly; the others zeros."""
        source = {t: s for s, t in _pairs(perm)}
        return [b.transfer(vals[source[k]], device=dev) if k in source
                else b.transfer(b.full_like(vals[k], 0), device=dev)
                for k, dev in enumerate(devices)]
    attributes = {"axis_name": A.Str, "perm": A.I64Array}

    @classmethod
    def infer(cls, x, *, axis_name, perm):
        if len(perm) % 2:
            raise OpError(f"expected perm to hold (source, destination) pairs, but got "
                          f"{len(perm)} entries")
        pairs = _pairs(perm)
        srcs, dsts = [s for s, _ in pairs], [t for _, t in pairs]
        if len(set(srcs)) != len(srcs) or len(set(dsts)) != len(dsts):
            raise OpError(f"expected unique sources and destinations, but got {pairs}")
        if any(i < 0 for i in perm):
            raise OpError(f"expected non-negative indices in perm, but got {pairs}")
        return x

    @classmethod
    def transpose(cls, b, ct, x, *, axis_name, perm):
        inverse = tuple(i for s, t in _pairs(perm) for i in (t, s))
        return (b.ppermute(ct, axis_name=axis_name, perm=inverse),)

    @classmethod
    def batch_named(cls, b, x, d, *, axis_name, perm):
        """Result slot ``dst`` is slice ``src`` of the batched operand: runs of consecutive
        slots copy one slice each (a cyclic shift is two slices), zeros fill the rest."""
        n = b.axis_size
        if any(i >= n for i in perm):
            raise OpError(f"expected perm indices in [0, {n}) for axis '{axis_name}', "
                          f"but got {_pairs(perm)}")
        x = b.to_front(x, d)
        source = dict((t, s) for s, t in _pairs(perm))
        pieces = [_run(b, x, source, start, stop) for start, stop in _runs(source, n)]
        out = pieces[0] if len(pieces) == 1 else b.concatenate(*pieces, dimension=0)
        return [out], [0]


def _runs(source: dict, n: int) -> list[tuple[int, int]]:
    """Maximal ranges of destinations that receive consecutive sources (or nothing)."""
    runs, start = [], 0
    for t in range(1, n + 1):
        prev, cur = source.get(t - 1), source.get(t)
        same = t < n and (cur is None if prev is None else cur == prev + 1)
        if not same:
            runs.append((start, t))
            start = t
    return runs


def _run(b, x, source: dict, start: int, stop: int):
    shape = b.aval(x).shape
    src = source.get(start)
    if src is None:
        return b.full(ShapedArray((stop - start, *shape[1:]), b.aval(x).dtype), 0)
    rest = len(shape) - 1
    return b.slice(x, start_indices=(src, *[0] * rest),
                   limit_indices=(src + stop - start, *shape[1:]), strides=(1,) * len(shape))


# ---- index ----------------------------------------------------------------------------------
class AxisIndex(Collective):
    """The position of the example along the mapped axis, an int32 scalar.

        %k = "irax.axis_index"() {axis_name = "i"} : () -> tensor<i32>
    """

    name = "irax.axis_index"
    varies_along_axis = True
    num_operands = 0
    differentiable = False

    @classmethod
    def between_devices(cls, b, vals, devices, **attrs):
        """Each device's position is a constant of its own program (no transfers)."""
        index = ShapedArray((), np.dtype(np.int32))
        return [b.full(index, k) for k in range(len(devices))]

    @classmethod
    def infer(cls, *, axis_name):
        return ShapedArray((), np.dtype(np.int32))

    @classmethod
    def batch(cls, b, args, dims, *, axis_name):
        return [b.iota(shape=(b.axis_size,), dtype=np.dtype(np.int32), dimension=0)], [0]
