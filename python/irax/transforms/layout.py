"""How a jit with shardings is keyed, annotated and checked: the IR form of meshes and
shardings (``dialect/sharding.py``), the placement of each leaf of a pytree from a prefix
of shardings, and the keys under which such jits share their traces."""

from __future__ import annotations

from irax.core import tree_util
from irax.dialect import funcs, mlir
from irax.dialect.base import lookup
from irax.dialect.sharding import Mesh as IRMesh
from irax.dialect.sharding import ShardingConstraint, trim
from irax.dialect.upstream import is_function
from irax.frontend.compile import clone_module
from irax.frontend.trace import mark_shardings
from irax.passes import run_pipeline
from irax.runtime import devices
from irax.runtime import mesh as mesh_lib
from irax.shard.partition import device_maps
from irax.shard.partition import map_mesh as partition_map_mesh


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
    return bool(device_maps(module.operation))


#: the meshes shard_maps were traced over, by their IR form (``runtime_mesh``)
_MESHES: dict = {}


def note_mesh(mesh) -> None:
    """Remembers ``mesh`` (a shard_map traced over it) for ``runtime_mesh``: the last one
    of its devices and axes (meshes that differ only in axis types lower alike, and the
    jit tracing the map asks right after)."""
    _MESHES[ir_mesh(mesh)] = mesh


def runtime_mesh(m: IRMesh):
    """The ``Mesh`` a shard_map of IR mesh ``m`` was traced over, or None."""
    return _MESHES.get(m)


#: whether a sharding constraint over several devices was ever traced (``note_constraint``):
#: until then a jit's trace is not searched for one
_CONSTRAINTS = [False]


def note_constraint(mesh) -> None:
    """Remembers that a ``with_sharding_constraint`` over ``mesh`` was traced: a jit whose
    arguments are not sharded then runs partitioned over that mesh (``constraint_mesh``),
    as JAX's does."""
    _CONSTRAINTS[0] = True
    note_mesh(mesh)


def constraint_mesh(module) -> IRMesh | None:
    """The mesh of the first ``irax.sharding_constraint`` over several devices anywhere in
    the traced ``module`` (None when there is none, or none was ever traced)."""
    if not _CONSTRAINTS[0]:
        return None
    found = []

    def visit(op):
        if lookup(op.name) is ShardingConstraint:
            found.append(IRMesh.of_constraint(ShardingConstraint.decode_attrs(op)))
            return mlir.ir().WalkResult.INTERRUPT
        return mlir.ir().WalkResult.ADVANCE

    module.operation.walk(visit)
    return found[0] if found and found[0].size > 1 else None


def constrained(module, n_results: int) -> IRMesh | None:
    """The mesh of the sharding constraints in the traced ``module`` of a jit given no
    shardings (``constraint_mesh``), its function marked for ``irax-partition`` over it
    with every argument replicated and every result's sharding left to propagation; None
    (and no mark) when it has none."""
    found = constraint_mesh(module)
    if found is not None:
        fn = module.body.operations[0]
        n_args = len(fn.regions[0].blocks[0].arguments)
        mark_shardings(module, found, [None] * n_args, [None] * n_results)
    return found


def map_mesh(module) -> IRMesh | None:
    """The mesh of the shard_maps the traced ``module``'s function runs at its top level
    once its transformations are expanded, which ``irax-partition`` inlines into the
    partitioned program (``shard/partition.py map_mesh``); None when it has no map over
    devices or has one the partitioner leaves to ``irax-shard``."""
    if not maps_devices(module):
        return None
    module = clone_module(module)
    run_pipeline(module, "builtin.module(irax-expand-transforms)")
    fn = next(op for op in module.body.operations if is_function(op) and funcs.is_public(op))
    return partition_map_mesh(module, fn)


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
