"""Moving one value between shardings, on the devices' blocks: the collectives
``irax-partition`` emits where an operand's sharding differs from what its op needs
(``reshard``: all-to-all, all-gather, a cut at the device's position) and where partial
results meet (``complete``: psum, or psum_scatter when the block wanted is a slice).

Each function takes ``v``, this device's block of the value under sharding ``have``, and
``same``: the mesh axes along which the devices' blocks are known equal (gathering along
one is a local copy).
"""

from __future__ import annotations

from irax.dialect import sharding as S
from irax.dialect.collective import exchange


def replicas(spec, mesh) -> frozenset:
    """The mesh axes a sharding leaves out: the devices along them hold equal blocks."""
    return frozenset(a for a in mesh.axes if a not in S.axes_of(spec))


def scatters(have, pending, want) -> list[tuple[int, str]]:
    """The (dimension, axis) pairs along which a partial sum over ``pending`` becomes its
    block under ``want`` by a ``psum_scatter``: a dimension ``have`` keeps whole that
    ``want`` splits, first of all over a pending axis."""
    out, left = [], list(pending)
    for d, (h, w) in enumerate(zip(have, want)):
        if not h and w and w[0] in left:
            out.append((d, w[0]))
            left.remove(w[0])
    return out


def operand(b, env, v, need, mesh):
    """This device's block of the value ``v`` (its ``env`` entry: block, sharding, pending
    partial-sum axes, equal axes) under ``need``, and the axes along which the devices'
    blocks are then equal. Partial sums are completed once: ``env`` keeps the completed
    value for the later uses, which reshard what this leaves."""
    value, have, pending, equal = env[v]
    if pending:
        value, have, equal = complete(b, value, have, pending, need, mesh, equal)
        env[v] = (value, have, (), equal)
    return reshard(b, value, have, need, mesh, equal)


def settle(b, v, have, pending, want, mesh, same=frozenset()):
    """``v``, this device's block under ``have`` of a value whose sums over the mesh axes
    ``pending`` are still partial, completed (``complete``) and as its block under
    ``want``."""
    v, have, same = complete(b, v, have, pending, want, mesh, same)
    return reshard(b, v, have, want, mesh, same)[0]


def complete(b, v, have, pending, want, mesh, same=frozenset()):
    """The partial sums over ``pending`` of ``v`` (its block under ``have``) completed
    towards ``want``: a pending axis that ``want`` makes the first split of a dimension
    ``have`` keeps whole is a reduce-scatter there (``irax.psum_scatter``: each device
    sums only its block, half the data a psum moves); the others are psums. Returns the
    value, its sharding (``have`` with the scattered dimensions split) and the axes along
    which the devices' values are equal (``same`` with the psums', without the
    scatters')."""
    rank = b.aval(v).ndim
    have, want = S.pad(have, rank), S.pad(want, rank)
    scattered = scatters(have, pending, want)
    for d, a in scattered:
        v = b.psum_scatter(v, axis_name=a, scatter_dimension=d, tiled=True,
                           axis_size=mesh.shape[mesh.axes.index(a)])
        have = have[:d] + ((a,),) + have[d + 1:]
        same = same - {a}
    for a in pending:
        if a not in [x for _, x in scattered]:
            v = b.psum(v, axis_name=a)
            same = same | {a}
    return v, have, same


def reshard(b, v, have, want, mesh, same=frozenset()):
    """``v`` (this device's block under sharding ``have``) as its block under ``want``:
    axes moving between dimensions are exchanged (``_exchange``); dimensions losing axes
    are then gathered (``irax.all_gather``, innermost axis first; along an axis of
    ``same``, where the devices hold equal blocks, the block repeated), and dimensions
    gaining axes cut at this device's position. A dimension whose axes ``want`` only
    extends (``("x",)`` to ``("x", "y")``) is cut within its block. Returns the block and
    the axes along which the devices' blocks are then equal."""
    rank = b.aval(v).ndim
    have, want = S.pad(have, rank), S.pad(want, rank)
    v, have, same = _exchange(b, v, list(have), want, mesh, same)
    changed = [d for d in range(rank) if have[d] != want[d]]
    refined = {d for d in changed if want[d][:len(have[d])] == have[d]}
    for d in changed:
        if d not in refined:
            for a in reversed(have[d]):
                n = mesh.shape[mesh.axes.index(a)]
                if a in same:
                    v = b.concatenate(*[v] * n, dimension=d) if n > 1 else v
                else:
                    v = b.all_gather(v, axis_name=a, axis=d, tiled=True, axis_size=n)
                    same = same | {a}
    for d in changed:
        cut = want[d][len(have[d]):] if d in refined else want[d]
        if cut:
            v = _cut(b, v, d, cut, mesh)
            same = same - set(cut)
    return v, same


def _exchange(b, v, have, want, mesh, same):
    """Moves each mesh axis that leaves one dimension (its innermost axis there) for
    another (where it is the next axis ``want`` adds) with an ``irax.all_to_all``: every
    device sends each other one the block it will own, 1/n of what a gather and a cut
    move. A dimension whose axes all move, in their order, to a whole one moves them
    together (``collective.exchange``). Returns the value, its sharding and ``same`` less the
    exchanged axes."""
    for d1, axes in enumerate(have):   # a dimension's axes all moving, in their order
        d2 = next((d for d, h in enumerate(have) if d != d1 and not h and
                   want[d] == axes), None)
        if len(axes) > 1 and not want[d1] and d2 is not None:
            v = exchange(b, v, axes, [mesh.shape[mesh.axes.index(a)] for a in axes],
                         split=d2, concat=d1)
            have[d1], have[d2] = (), axes
            same = same - set(axes)
    moved = True
    while moved:
        moved = False
        for d1, axes in enumerate(have):
            if not axes or want[d1] != axes[:len(want[d1])] or len(want[d1]) == len(axes):
                continue
            a = axes[-1]
            d2 = next((d for d, h in enumerate(have) if d != d1 and
                       want[d][:len(h)] == h and len(want[d]) > len(h) and
                       want[d][len(h)] == a), None)
            if d2 is None:
                continue
            v = b.all_to_all(v, axis_name=a, split_axis=d2, concat_axis=d1,
                             axis_size=mesh.shape[mesh.axes.index(a)])
            have[d1], have[d2] = axes[:-1], have[d2] + (a,)
            same = same - {a}
            moved = True
    return v, tuple(have), same


def _cut(b, v, d: int, axes, mesh):
    """This device's block of ``v`` along dimension ``d`` split over ``axes``."""
    a = b.aval(v)
    size = a.shape[d] // mesh.count(axes)
    index, stride = None, 1
    for axis in reversed(axes):
        term = b.axis_index(axis_name=axis)
        if stride != 1:
            term = b.mul(term, b.constant(stride, "int32"))
        index = term if index is None else b.add(index, term)
        stride *= mesh.shape[mesh.axes.index(axis)]
    start = b.mul(index, b.constant(size, "int32"))
    zero = b.constant(0, "int32")
    starts = [start if e == d else zero for e in range(a.ndim)]
    sizes = tuple(size if e == d else n for e, n in enumerate(a.shape))
    return b.dynamic_slice(v, *starts, slice_sizes=sizes)
