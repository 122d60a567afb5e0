"""Sharding annotations and the per-op sharding rules that ``irax-partition`` applies.

A *sharding* says, for each dimension of a tensor, which axes of a device mesh split it
(``[["x"], []]``: rows split over mesh axis ``"x"``, columns whole; dimensions past the
list are whole). A function becomes a partitioned program when it names its mesh and
annotates its arguments and results:

    func.func @main(%x: tensor<8x4xf32> {irax.sharding = [["x"], []]},
                    %w: tensor<4x2xf32>) -> (tensor<8x2xf32> {irax.sharding = [["x"]]})
        attributes {irax.mesh = {axes = ["x"], devices = array<i64: 0, 1>,
                                 shape = array<i64: 2>}} { ... }

and inside it ``irax.sharding_constraint`` pins a value's sharding (the op of
``lax.with_sharding_constraint``):

    %y = "irax.sharding_constraint"(%x) {sharding = [[], ["x"]], mesh_axes = ["x"],
           mesh_shape = array<i64: 2>, devices = array<i64: 0, 1>}
           : (tensor<8x4xf32>) -> tensor<8x4xf32>

Each op class carries a ``shard`` rule beside its jvp and batch rules:

    shard(specs, avals, out_avals, mesh, **attrs) -> ShardPlan

given its operands' current shardings (``specs``, one tuple of mesh-axis tuples per
operand) it says which sharding each operand must have (the partitioner moves data to
get it), the sharding of each result, which results are partial sums (or maxima, minima)
over mesh axes that a collective must combine, and the attributes of the per-device op
where they hold shapes. Ops without a partitioned form use ``replicated``: every operand
whole on every device, the op computed whole, its results replicated.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from irax.dialect import attrs as A
from irax.dialect import mlir
from irax.dialect.base import Linear, Op, OpError

#: a sharding: for each dimension the mesh axes that split it, major first
Spec = tuple


def pad(spec: Spec, rank: int) -> Spec:
    """``spec`` with one entry per dimension (missing trailing ones whole)."""
    spec = tuple(tuple(d) for d in spec)
    return spec + ((),) * (rank - len(spec))


def trim(spec: Spec) -> Spec:
    """``spec`` without trailing whole dimensions (its canonical form)."""
    spec = tuple(spec)
    while spec and not spec[-1]:
        spec = spec[:-1]
    return spec


def axes_of(spec: Spec) -> tuple[str, ...]:
    return tuple(a for d in spec for a in d)


@dataclass(frozen=True)
class Mesh:
    """The devices a partitioned function runs on: mesh axes ``axes`` of sizes ``shape``
    over device ordinals ``devices`` (row-major)."""

    axes: tuple
    shape: tuple
    devices: tuple

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    def count(self, axes) -> int:
        """How many blocks ``axes`` cut a dimension into."""
        return math.prod(self.shape[self.axes.index(a)] for a in axes)

    def local_shape(self, shape, spec: Spec) -> tuple:
        spec = pad(spec, len(shape))
        return tuple(n // self.count(d) for n, d in zip(shape, spec))

    def check(self, spec: Spec, aval, what: str) -> None:
        """Raises ``OpError`` unless ``spec`` is a sharding of ``aval`` on this mesh."""
        if len(spec) > aval.ndim:
            raise OpError(f"expected at most {aval.ndim} dimension shardings for {what} of "
                          f"rank {aval.ndim}, but got {len(spec)}")
        seen = axes_of(spec)
        for a in seen:
            if a not in self.axes:
                raise OpError(f"expected mesh axes of {list(self.axes)} in the sharding of "
                              f"{what}, but got {a!r}")
        if len(set(seen)) != len(seen):
            raise OpError(f"expected each mesh axis at most once in the sharding of {what}, "
                          f"but got {[list(d) for d in spec]}")
        for d, axes in enumerate(spec):
            k = self.count(axes)
            if not isinstance(aval.shape[d], int) or aval.shape[d] % k:
                raise OpError(f"expected dimension {d} of {what} (size {aval.shape[d]}) to "
                              f"be divisible by {k}, the devices of mesh axes {list(axes)}")

    def encode(self):
        ir = mlir.ir()
        return ir.DictAttr.get({"axes": A.StrArray.encode(self.axes),
                                "shape": A.I64Array.encode(self.shape),
                                "devices": A.I64Array.encode(self.devices)},
                               context=mlir.context())

    @classmethod
    def decode(cls, attr) -> Mesh:
        d = mlir.ir().DictAttr(attr)
        return cls(A.StrArray.decode(d["axes"]), A.I64Array.decode(d["shape"]),
                   A.I64Array.decode(d["devices"]))

    @classmethod
    def of_constraint(cls, attrs: dict) -> Mesh:
        return cls(attrs["mesh_axes"], attrs["mesh_shape"], attrs["devices"])


@dataclass
class ShardPlan:
    """What a ``shard`` rule decides for one op.

    ``operands``/``results``: the sharding each operand needs and each result has.
    ``reduce``: per result, None or ``(collective class, mesh axes)``: the per-device
    results are partial (a sum's terms, say) and that collective over those axes completes
    them. ``attrs``: the per-device op's attributes, where they differ (shapes)."""

    operands: list
    results: list
    reduce: list = field(default_factory=list)
    attrs: dict | None = None


@dataclass
class RegionPlan:
    """What a ``shard_regions`` rule (a loop's or a branch's, ``shard/regions.py``)
    decides: the sharding each operand needs (``operands``), each region's arguments
    (``args``, one list per region) and results (``results``, idem; the region's results
    are moved there), and the op's results (``out``)."""

    operands: list
    args: list
    results: list
    out: list


def refine(a: Spec, b: Spec) -> Spec:
    """``a`` split further where ``b`` splits it more: a dimension whose mesh axes ``b``
    extends (``()`` to ``("x",)``, ``("x",)`` to ``("x", "y")``) takes ``b``'s, unless
    that uses an axis ``a`` (or an earlier such dimension) already does. Cutting a value
    to the finer sharding is local (each device slices its block), so a loop's carry or
    a branch's result can take it without communication (as JAX's propagation does)."""
    rank = max(len(a), len(b))
    a, b = pad(a, rank), pad(b, rank)
    used = set(axes_of(a))
    out = list(a)
    for d, (x, y) in enumerate(zip(a, b)):
        extra = y[len(x):]
        if len(y) > len(x) and y[:len(x)] == x and not used.intersection(extra):
            out[d] = y
            used.update(extra)
    return tuple(out)


def settled_carry(run, carry: list) -> tuple[list, list]:
    """The shardings of a loop's carry: its initial values', refined (``refine``) where
    the body splits its results further, until the body's results ask for nothing more;
    ``run(carry)`` says what the body's results come out as for a carry of those
    shardings (carry first). Every round only adds mesh axes, so it ends; the body's
    results are moved to the carry's shardings at the end of every trip (nothing moves
    where the body keeps them), as JAX keeps a loop's carry as its initial value has it.
    Returns the carry's shardings and the body's results for them."""
    carry = list(carry)
    while True:
        out = run(carry)
        new = [refine(c, o) for c, o in zip(carry, out)]
        if new == carry:
            return carry, out
        carry = new


def merge(candidates, rank: int) -> Spec:
    """One sharding from several in the same coordinates: each dimension takes the first
    candidate's axes that no other dimension already uses."""
    out, used = [()] * rank, set()
    for d in range(rank):
        for c in candidates:
            axes = c[d]
            if axes and not used.intersection(axes):
                out[d] = axes
                used.update(axes)
                break
    return tuple(out)


def carry(spec: Spec, rank_in: int, rank_out: int, dims: dict) -> tuple[Spec, Spec]:
    """``(operand sharding, result sharding)`` when operand dimension ``d`` becomes result
    dimension ``dims[d]`` and the other operand dimensions must be whole."""
    spec = pad(spec, rank_in)
    need = tuple(spec[d] if d in dims else () for d in range(rank_in))
    out = [()] * rank_out
    for d, e in dims.items():
        out[e] = spec[d]
    return need, tuple(out)


def reshaped(spec: Spec, shape, new_sizes, mesh: Mesh) -> tuple[Spec, Spec]:
    """``(operand sharding, result sharding)`` of a row-major reshape of ``shape`` to
    ``new_sizes``: each split operand dimension keeps its axes where every device's block
    stays one contiguous block of the result, else it must be whole.

    - On the result dimension starting at the same offset, when that one divides it (a
      split, or the same size): its axes spread major to minor over the dimensions it is
      split into, each dimension but the last that takes axes split to blocks of one:
      ``8`` over ``("x", "y")`` of a 2x2 mesh to ``2x4`` is ``("x",), ("y",)``.
    - As the major part of a merge (the result dimension a multiple of it).
    - As a later part of a merge, after a dimension of the merge split to blocks of one:
      ``2x2`` over ``("x",), ("y",)`` to ``4`` is ``("x", "y")``.
    """
    rank, new_rank = len(shape), len(new_sizes)
    before_in = [math.prod(shape[:d]) for d in range(rank + 1)]
    before_out = [math.prod(new_sizes[:e]) for e in range(new_rank + 1)]
    need, out = list(spec), [()] * new_rank
    tail: dict = {}   # result dim -> the operand dim merged last into it, split to ones

    def spread(d, axes, e) -> bool:
        placed, rem, covered, f = {}, list(axes), 1, e
        while rem:
            if f == new_rank or shape[d] % (covered * new_sizes[f]):
                return False
            n = new_sizes[f]
            take = next((rem[:i] for i in range(len(rem), 0, -1)
                         if n % mesh.count(rem[:i]) == 0), [])
            if n > 1 and (not take or (len(take) < len(rem) and mesh.count(take) != n)):
                return False
            if n > 1:
                placed[f] = tuple(take)
                rem = rem[len(take):]
            covered *= n
            f += 1
        for f, a in placed.items():
            out[f] = a
        return True

    for d, axes in enumerate(spec):
        if not axes:
            continue
        k = mesh.count(axes)
        e = next((e for e in range(new_rank)
                  if before_out[e] == before_in[d] and new_sizes[e] > 1), None)
        if e is not None and shape[d] % new_sizes[e] == 0:
            if spread(d, axes, e):
                continue
        elif e is not None and new_sizes[e] % shape[d] == 0:
            out[e] = tuple(axes)
            if k == shape[d]:
                tail[e] = d
            continue
        else:   # inside a result dimension: a later part of a merge
            e = next((e for e in range(new_rank)
                      if before_out[e] < before_in[d] < before_out[e + 1]), None)
            last = tail.get(e)
            if last is not None and all(shape[i] == 1 for i in range(last + 1, d)) and \
                    before_out[e + 1] % before_in[d + 1] == 0:
                out[e] = out[e] + tuple(axes)
                if k == shape[d]:
                    tail[e] = d
                else:
                    del tail[e]
                continue
        need[d] = ()
    return tuple(need), tuple(out)


# ---- rules shared by op families ----------------------------------------------------------
def replicated(cls, specs, avals, outs, mesh, **attrs) -> ShardPlan:
    """Every operand whole on every device, the op computed whole there."""
    return ShardPlan([()] * len(avals), [()] * len(outs))


def elementwise(cls, specs, avals, outs, mesh, **attrs) -> ShardPlan:
    """Operands of the result's shape share one sharding (the first that splits each
    dimension wins); 0-d operands stay whole."""
    shape = outs[0].shape
    full = [i for i, a in enumerate(avals) if a.shape == shape]
    spec = merge([pad(specs[i], len(shape)) for i in full], len(shape))
    return ShardPlan([spec if a.shape == shape else () for a in avals], [spec] * len(outs))


def keeping(dims_of):
    """A rule for one-operand ops whose results keep some operand dimensions:
    ``dims_of(aval, out_aval, **attrs)`` maps those operand dimensions to result ones."""
    def rule(cls, specs, avals, outs, mesh, **attrs) -> ShardPlan:
        dims = dims_of(avals[0], outs[0], **attrs)
        need, out = carry(specs[0], avals[0].ndim, outs[0].ndim, dims)
        return ShardPlan([need] + [()] * (len(avals) - 1), [out] * len(outs))
    return rule


def untouched(dims_fn):
    """``keeping`` for ops that leave dimensions ``dims_fn(aval, **attrs)`` in place."""
    return keeping(lambda a, o, **attrs: {d: d for d in dims_fn(a, **attrs)})


def reducing(collective):
    """A reduction over ``axes``: kept dimensions keep their axes; reduced ones split over
    mesh axes leave partial results that ``collective`` (psum, pmax, pmin) combines, or,
    without one, must be whole."""
    def rule(cls, specs, avals, outs, mesh, *, axes, **attrs) -> ShardPlan:
        spec = pad(specs[0], avals[0].ndim)
        kept = [d for d in range(avals[0].ndim) if d not in axes]
        partial = axes_of(spec[d] for d in axes) if collective is not None else ()
        need = tuple(spec[d] if (d in kept or partial) else () for d in range(len(spec)))
        out = tuple(spec[d] for d in kept)
        return ShardPlan([need], [out], [(collective, partial) if partial else None])
    return rule


class ShardingConstraint(Linear, Op):
    """Its operand, laid out as ``sharding`` on the mesh ``mesh_axes`` (sizes
    ``mesh_shape``, devices ``devices``): ``lax.with_sharding_constraint``. An identity on
    values; ``irax-partition`` moves data so that the value has that sharding.

        %y = "irax.sharding_constraint"(%x) {sharding = [["x"], []], mesh_axes = ["x"],
               mesh_shape = array<i64: 2>, devices = array<i64: 0, 1>}
               : (tensor<8x4xf32>) -> tensor<8x4xf32>
    """

    name = "irax.sharding_constraint"
    num_operands = 1
    attributes = {"sharding": A.Sharding, "mesh_axes": A.StrArray, "mesh_shape": A.I64Array,
                  "devices": A.I64Array}

    @classmethod
    def infer(cls, x, *, sharding, mesh_axes, mesh_shape, devices):
        if len(mesh_axes) != len(mesh_shape) or math.prod(mesh_shape) != len(devices):
            raise OpError(f"expected one size per mesh axis and one device per mesh position, "
                          f"but got mesh_axes {list(mesh_axes)}, mesh_shape "
                          f"{list(mesh_shape)} and {len(devices)} devices")
        Mesh(mesh_axes, mesh_shape, devices).check(sharding, x, "the operand")
        return x

    @classmethod
    def evaluate(cls, x, **attrs):
        return x

    @classmethod
    def lower(cls, lb, x, **attrs):
        return x

    @classmethod
    def transpose(cls, b, ct, x, **attrs):
        return (b.sharding_constraint(ct, **attrs),)

    @classmethod
    def batch(cls, b, args, dims, *, sharding, **attrs):
        (x,), (d,) = args, dims
        if d is not None:
            spec = pad(sharding, b.aval(x).ndim - 1)
            sharding = spec[:d] + ((),) + spec[d:]
        return [b.sharding_constraint(x, sharding=trim(sharding), **attrs)], [d]

    @classmethod
    def shard(cls, specs, avals, outs, mesh, *, sharding, **attrs):
        spec = pad(sharding, avals[0].ndim)
        return ShardPlan([spec], [spec])
