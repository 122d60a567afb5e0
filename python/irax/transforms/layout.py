"""How a jit with shardings is keyed, annotated and checked: the IR form of meshes and
shardings (``dialect/sharding.py``), the placement of each leaf of a pytree from a prefix
of shardings, and the keys under which such jits share their traces."""

from __future__ import annotations

from irax.core import tree_util
from irax.dialect import mlir
from irax.dialect.base import lookup
from irax.dialect.shard import Pmap
from irax.dialect.sharding import Mesh as IRMesh
from irax.dialect.sharding import trim
from irax.runtime import devices
from irax.runtime import mesh as mesh_lib


def is_placement(d) -> bool:
    """A device, a sharding or a PartitionSpec (what device_put and jit place by)."""
    return isinstance(d, (devices.Device, mesh_lib.Sharding, mesh_lib.PartitionSpec))


def layout_key(shardings):
    """A hashable key of a pytree of shardings (a mesh by its axes and device ids)."""
    def leaf(s):
        if isinstance(s, mesh_lib.NamedSharding):
            m = s.mesh
            return (m.axis_names, m.axis_sizes, tuple(d.id for d in m.devices.flat),
                    repr(s.spec))
        return repr(s)
    is_leaf = lambda s: s is None or is_placement(s)  # noqa: E731
    leaves, tree = tree_util.tree_flatten(shardings, is_leaf=is_leaf)
    return repr(tree), tuple(leaf(s) for s in leaves)


def maps_devices(module) -> bool:
    """Whether the traced ``module`` holds a pmap or shard_map (already per device)."""
    found = []

    def visit(op):
        cls = lookup(op.name)
        if cls is not None and issubclass(cls, Pmap):
            found.append(op)
        return mlir.ir().WalkResult.ADVANCE

    module.operation.walk(visit)
    return bool(found)


def ir_mesh(mesh) -> IRMesh:
    """The IR form of a ``Mesh``: axis names, sizes, device ids."""
    return IRMesh(tuple(mesh.axis_names), tuple(mesh.axis_sizes),
                  tuple(d.id for d in mesh.devices.flat))


def spec_dims(spec, rank: int | None = None) -> tuple:
    """The IR form of a ``PartitionSpec``: the mesh axes of each of ``rank`` dimensions
    (of the spec's own entries when None)."""
    return tuple(spec.axes_of(d) for d in range(len(spec) if rank is None else rank))


def sharding_spec(sharding) -> tuple:
    """The IR form of a ``NamedSharding``'s spec, without trailing whole dimensions."""
    return trim(spec_dims(sharding.spec))


def partition_spec(dims) -> mesh_lib.PartitionSpec:
    """The ``PartitionSpec`` of an IR sharding (``spec_dims``' inverse)."""
    return mesh_lib.PartitionSpec(*[None if not axes else axes[0] if len(axes) == 1
                                    else tuple(axes) for axes in trim(dims)])


def placements(x, shardings, api: str, what: str) -> list:
    """One placement per leaf of ``x`` from the prefix pytree ``shardings``."""
    if is_placement(shardings):
        return [shardings] * len(tree_util.tree_leaves(x))
    is_leaf = lambda s: s is None or is_placement(s)  # noqa: E731
    treedef = tree_util.tree_structure(shardings, is_leaf=is_leaf)
    try:
        subtrees = treedef.flatten_up_to(x)
    except ValueError:
        raise ValueError(f"{api}: the shardings for {what} must be a pytree prefix of "
                         f"{tree_util.tree_structure(x)}, got {treedef}") from None
    places = []
    for s, sub in zip(tree_util.tree_leaves(shardings, is_leaf=is_leaf), subtrees):
        places += [s] * len(tree_util.tree_leaves(sub))
    return places
