"""The SPMD partitioner behind ``irax-partition``: a function with a mesh and shardings
becomes one ``irax.shard_map`` over a per-device function with explicit collectives.

The function names its mesh (``irax.mesh``) and shardings on its arguments and results
(``irax.sharding``); ``irax.sharding_constraint`` ops inside it pin values (the mesh may
also come from them alone). Shardings propagate forward, op by op, through each op
class's ``shard`` rule (``dialect/sharding.py``): the rule says which sharding each
operand needs and what the results get; the partitioner moves data where an operand's
sharding differs (``irax.all_gather`` to join blocks, a ``dynamic_slice`` at the
device's ``axis_index`` to cut them), emits the op on the device's blocks and completes
partial results with ``irax.psum`` / ``pmax`` / ``pmin``. Plain calls are partitioned
through (inlined); ops without a partitioned form run whole on every device.

A partitioned function may run ``irax.shard_map`` ops at its top level (a jit of code
around shard_maps, which the jit partitions over their mesh): each map's callee, already
per-device code, is copied in on the device's block of its stacked operands
(``_inline_map``), and the ops around it are partitioned by their rules.

Before:
    func.func @main(%x: tensor<8x4xf32> {irax.sharding = [["x"]]}, %w: tensor<4x2xf32>)
        -> tensor<2xf32> attributes {irax.mesh = {axes = ["x"], devices = array<i64: 0, 1>,
                                                  shape = array<i64: 2>}} {
      %0 = "irax.dot_general"(%x, %w) {lhs_contracting_dimensions = array<i64: 1>, ...}
      %1 = "irax.reduce_sum"(%0) {axes = array<i64: 0>}
      return %1
After:
    func.func @main(%x: tensor<8x4xf32>, %w: tensor<4x2xf32>) -> tensor<2xf32> {
      %b = "irax.reshape"(%x) {new_sizes = array<i64: 2, 4, 4>}     // the devices' blocks
      %r = "irax.shard_map"(%b, %w) {callee = @main_spmd, in_axes = array<i64: 0, -1>, ...}
      ... the first device's (replicated) result
    func.func private @main_spmd(%x: tensor<4x4xf32>, %w: tensor<4x2xf32>) -> tensor<2xf32> {
      %0 = "irax.dot_general"(%x, %w) ...            // 4x2 rows of this device
      %1 = "irax.reduce_sum"(%0) {axes = array<i64: 0>}
      %2 = "irax.psum"(%1) {axis_name = "x"}         // partial sums combined
      return %2
"""

from __future__ import annotations

from irax.core.errors import IRError
from irax.dialect import attrs as A
from irax.dialect import funcs, mlir
from irax.dialect import sharding as S
from irax.dialect.base import OpError, lookup
from irax.dialect.builder import IRBuilder
from irax.dialect.collective import Psum
from irax.dialect.control import copy_block, is_plain_call, is_return
from irax.dialect.shape import insert_at
from irax.dialect.shard import Pmap, ShardMap
from irax.dialect.upstream import is_function
from irax.shard.regions import partition_region_op
from irax.shard.reshard import operand, replicas, settle
from irax.shard.vma import output_vma

MESH_ATTR = "irax.mesh"
SHARDING_ATTR = "irax.sharding"


def partition_module(module) -> None:
    """Partitions every public function that names a mesh (or holds a sharding
    constraint)."""
    for fn in list(module.body.operations):
        if not is_function(fn) or not funcs.is_public(fn):
            continue
        mesh = _mesh_of(module, fn)
        if mesh is not None:
            partition_function(module, fn, mesh)


def _mesh_of(module, fn) -> S.Mesh | None:
    """The mesh ``fn`` is partitioned over: the one its annotations and constraints name
    (the shard_maps it runs must be on it too). A function that only runs shard_maps is
    left to ``irax-shard``'s stacked program here, which cuts each map's operands where
    they are; a caller that runs it as a program per device partitions it over their mesh
    itself (``partition_function``, ``map_mesh``)."""
    meshes = []
    if MESH_ATTR in fn.attributes:
        meshes.append(S.Mesh.decode(fn.attributes[MESH_ATTR]))
    for op in _constraints(module, fn.regions[0].blocks[0]):
        m = S.Mesh.of_constraint(S.ShardingConstraint.decode_attrs(op))
        if m.size > 1:   # on one device a constraint changes nothing
            meshes.append(m)
    if not meshes:
        return None
    top = list(_top_level_maps(module, fn.regions[0].blocks[0]))
    if len(_maps(module, fn)) != len(top):
        raise IRError(f"{fn.location}: error: irax-partition: @{funcs.symbol_name(fn)} runs "
                      f"a map over devices inside a loop, a branch, another map or a pmap, "
                      f"which cannot be partitioned")
    for op in top:   # (a pmap is refused where the partitioner meets it)
        if lookup(op.name) is ShardMap:
            m = S.Mesh.of_constraint(ShardMap.decode_attrs(op))
            if m.size > 1:
                meshes.append(m)
    for m in meshes[1:]:
        if m != meshes[0]:
            raise IRError(f"{fn.location}: error: irax-partition: expected one mesh in "
                          f"@{funcs.symbol_name(fn)}, but got {_show(meshes[0])} and "
                          f"{_show(m)}")
    return meshes[0]


def map_mesh(module, fn) -> S.Mesh | None:
    """The mesh of the ``irax.shard_map`` ops that ``fn`` runs at its top level (or in
    plain calls from there), which ``irax-partition`` inlines; None when there are none,
    when their meshes differ, or when ``fn`` also reaches a map over devices elsewhere (in
    a loop, a branch, another map, a pmap): those stay the stacked program of
    ``irax-shard``."""
    top = list(_top_level_maps(module, fn.regions[0].blocks[0]))
    if not top or len(_maps(module, fn)) != len(top) or \
            any(lookup(op.name) is not ShardMap for op in top):
        return None
    meshes = {S.Mesh.of_constraint(ShardMap.decode_attrs(op)) for op in top}
    return meshes.pop() if len(meshes) == 1 else None


def _maps(module, fn) -> list:
    """Every map over devices (pmap, shard_map) ``fn`` reaches, at any depth."""
    return [op for f in funcs.reachable_functions(module, funcs.symbol_name(fn))
            for op in device_maps(f.operation)]


def device_maps(root) -> list:
    """The maps over devices (pmap, shard_map) inside the operation ``root``."""
    found = []

    def visit(op):
        cls = lookup(op.name)
        if cls is not None and issubclass(cls, Pmap):
            found.append(op)
        return mlir.ir().WalkResult.ADVANCE

    root.walk(visit)
    return found


def _top_level(module, block, wanted, seen: set):
    """The ops of ``block`` and of the plain calls from it (not in regions) whose class
    ``wanted(cls)`` takes."""
    for op in block.operations:
        cls = lookup(op.name)
        if cls is not None and wanted(cls):
            yield op
        elif is_plain_call(op):
            body = funcs.callee_body(op, module)
            if body is not None and id(body) not in seen:
                seen.add(id(body))
                yield from _top_level(module, body, wanted, seen)


def _top_level_maps(module, block):
    return _top_level(module, block, lambda cls: issubclass(cls, Pmap), set())


def _show(mesh: S.Mesh) -> str:
    return (f"mesh {dict(zip(mesh.axes, mesh.shape))} on devices "
            f"{list(mesh.devices)}")


def _constraints(module, block):
    return _top_level(module, block, lambda cls: cls is S.ShardingConstraint, set())


def _specs(fn, key: str, avals) -> list:
    """The ``irax.sharding`` of each argument (``arg_attrs``) or result (``res_attrs``);
    None where there is none."""
    out = [None] * len(avals)
    for i, d in enumerate(funcs.entry_attrs(fn, key)):
        if SHARDING_ATTR in d:
            out[i] = S.pad(A.Sharding.decode(d[SHARDING_ATTR]), avals[i].ndim)
    return out


def _drop_annotations(fn) -> None:
    for key in ("arg_attrs", "res_attrs"):
        if key in fn.attributes:
            funcs.set_entry_attrs(fn, key, [
                {k: v for k, v in d.items() if k != SHARDING_ATTR}
                for d in funcs.entry_attrs(fn, key)])
    if MESH_ATTR in fn.attributes:
        del fn.attributes[MESH_ATTR]


def partition_function(module, fn, mesh: S.Mesh) -> tuple[str, list, list]:
    """Rewrites ``fn`` into a shard_map of a generated per-device function; returns its
    name and the shardings of its arguments and results."""
    name = funcs.symbol_name(fn)
    ins, outs = funcs.signature(fn)
    in_specs = [s if s is not None else S.pad((), a.ndim)
                for s, a in zip(_specs(fn, "arg_attrs", ins), ins)]
    out_specs = _specs(fn, "res_attrs", outs)
    for i, (spec, a) in enumerate(zip(in_specs, ins)):
        _check(fn, mesh, spec, a, f"argument {i}")
    for i, (spec, a) in enumerate(zip(out_specs, outs)):
        if spec is not None:
            _check(fn, mesh, spec, a, f"result {i}")
    local_in = [a.update(shape=mesh.local_shape(a.shape, s)) for a, s in zip(ins, in_specs)]
    spmd = funcs.unique_name(module, f"{name}_spmd")
    new_fn, block = funcs.create_function(module, spmd, local_in)
    b = IRBuilder.at_end(block)
    body = fn.regions[0].blocks[0]
    env = {old: (new, spec, (), replicas(spec, mesh))
           for old, new, spec in zip(body.arguments, block.arguments, in_specs)}
    results = _partition_block(module, b, mesh, body, env)
    final, final_specs = [], []
    for (v, spec, pending, same), want in zip(results, out_specs):
        want = spec if want is None else want
        final.append(settle(b, v, spec, pending, want, mesh, same))
        final_specs.append(want)
    funcs.finish_function(new_fn, block, final)
    _rebuild_entry(fn, body, mesh, spmd, ins, in_specs, outs, final_specs)
    _drop_annotations(fn)
    return spmd, in_specs, final_specs


def _check(fn, mesh, spec, aval, what: str) -> None:
    try:
        mesh.check(spec, aval, what)
    except OpError as e:
        raise IRError(f"{fn.location}: error: irax-partition: @{funcs.symbol_name(fn)}: "
                      f"{e}") from None


def _partition_block(module, b, mesh, block, env) -> list:
    """Emits the per-device form of ``block``'s ops; ``env`` maps each value to its
    per-device value, its sharding, the mesh axes over which its per-device value is
    still a partial sum (completed where it is used: ``settle``) and the mesh axes along
    which the devices' per-device values are known equal (``same``: those its sharding
    leaves out, and more where a split dimension repeats, as a shard_map result that does
    not vary along an axis; gathering along them is a local copy). Returns those of the
    block's results."""
    for op in block.operations:
        if is_return(op):
            return [env[v] for v in op.operands]
        if is_plain_call(op):
            callee = funcs.callee_body(op, module)
            inner = dict(zip(callee.arguments, [env[v] for v in op.operands]))
            env.update(zip(op.results, _partition_block(module, b, mesh, callee, inner)))
            continue
        cls = lookup(op.name)
        if cls is ShardMap:
            env.update(zip(op.results, _inline_map(module, b, mesh, op, env)))
            continue
        if cls is not None and cls.shard_regions is not None:   # loops, branches
            env.update(zip(op.results, partition_region_op(module, b, mesh, op, env,
                                                           _partition_block)))
            continue
        if cls is None or cls.shard is None:
            why = cls.no_rules.get("shard", "") if cls is not None else "not an irax op"
            raise IRError(f"{op.location}: error: '{op.name}' op cannot be partitioned: {why}")
        avals = [mlir.aval_of(v) for v in op.operands]
        if cls.shard.__func__ is S.replicated:   # attributes left unread: cloned natively
            plan = S.replicated(cls, [], avals, list(op.results), mesh)
            attrs = None
        else:
            attrs = cls.decode_attrs(op)
            if cls is S.ShardingConstraint and S.Mesh.of_constraint(attrs) != mesh:
                env[op.results[0]] = env[op.operands[0]]   # a one-device mesh: no constraint
                continue
            try:
                plan = cls.shard([env[v][1] for v in op.operands], avals,
                                 [mlir.aval_of(r) for r in op.results], mesh, **attrs)
            except OpError as e:
                raise IRError(f"{op.location}: error: {cls.diag(str(e))}") from None
        local, same = [], frozenset(mesh.axes)
        for v, need in zip(op.operands, plan.operands):
            value, equal = operand(b, env, v, need, mesh)
            local.append(value)
            same &= equal   # (an op on equal blocks computes equal blocks)
        if cls is S.ShardingConstraint:   # done: its operand now has its sharding
            outs = local
        elif attrs is None:
            outs = list(funcs.clone_op(op, local, b.ip).results)
        else:
            outs = b.emit(cls, local, **(plan.attrs if plan.attrs is not None else attrs))[0]
        for j, (v, spec) in enumerate(zip(outs, plan.results)):
            reduce = plan.reduce[j] if j < len(plan.reduce) else None
            pending, equal = (), same
            if reduce is not None:
                collective, axes = reduce
                if collective is Psum:   # completed where it is used (maybe scattered)
                    pending = tuple(axes)
                else:
                    for a in axes:
                        v = b.emit(collective, [v], axis_name=a)[0][0]
                    equal = equal | set(axes)
            env[op.results[j]] = (v, S.pad(spec, mlir.aval_of(op.results[j]).ndim), pending,
                                  equal)
    raise IRError("irax-partition: a block without a terminator")


def _inline_map(module, b, mesh, op, env) -> list:
    """An ``irax.shard_map`` over the function's mesh, whose callee is already per-device
    code: each stacked operand (every device's block along ``in_axes``) gets its device
    axis split over all the mesh's axes, the device's block of it is the callee's argument
    and the callee's ops are copied in; each result is this device's block of the stacked
    result. Returns the results' ``env`` entries."""
    attrs = ShardMap.decode_attrs(op)
    own = S.Mesh.of_constraint(attrs)
    if own != mesh:
        raise IRError(f"{op.location}: error: 'irax.shard_map' op cannot be partitioned: "
                      f"expected the function's {_show(mesh)}, but got {_show(own)}")
    every = tuple(mesh.axes)
    local = []
    for v, ax in zip(op.operands, attrs["in_axes"]):
        rank = mlir.aval_of(v).ndim
        need = tuple(every if d == ax else () for d in range(rank))
        value, _ = operand(b, env, v, need, mesh)
        if ax >= 0:
            shape = b.aval(value).shape
            value = b.reshape(value, new_sizes=shape[:ax] + shape[ax + 1:])
        local.append(value)
    callee = funcs.symbol_table(module)[attrs["callee"]]
    results = copy_block(callee.regions[0].blocks[0], local, b.ip,
                         lambda call: funcs.callee_body(call, module))
    vma = output_vma(module, callee, [frozenset(every if ax >= 0 else ())
                                      for ax in attrs["in_axes"]])
    return [_stacked(b, r, ax, v, mesh) for r, ax, v in zip(results, attrs["out_axes"], vma)]


def _stacked(b, r, ax: int, vma, mesh):
    """The ``env`` entry of a shard_map result stacked along ``ax`` from this device's
    block ``r``: the stacked dimension split over every mesh axis, a block of one per
    device; equal along the axes ``r`` does not vary over (``vma``, ``shard/vma.py``;
    None: unknown), so that a later read of one device's block (as an out spec that
    leaves an axis out makes) gathers nothing."""
    every = tuple(mesh.axes)
    same = frozenset() if vma is None else frozenset(every) - vma
    if ax < 0:
        return r, S.pad((), b.aval(r).ndim), (), frozenset(every)
    shape = b.aval(r).shape
    v = b.reshape(r, new_sizes=insert_at(shape, ax, 1))
    return v, tuple(every if d == ax else () for d in range(len(shape) + 1)), (), same


def _rebuild_entry(fn, body, mesh, spmd, ins, in_specs, outs, out_specs) -> None:
    """Replaces ``fn``'s body with: its arguments cut into the devices' blocks, the
    shard_map of ``spmd``, the global results joined from the blocks."""
    for op in reversed(list(body.operations)):
        op.erase()
    b = IRBuilder.at_end(body)
    n = mesh.size
    stacked, in_axes = [], []
    for x, a, spec in zip(body.arguments, ins, in_specs):
        v, ax = to_blocks(b, x, a, spec, mesh)
        stacked.append(v)
        in_axes.append(ax)
    local_out = [a.update(shape=mesh.local_shape(a.shape, s)) for a, s in zip(outs, out_specs)]
    res = b.emit(ShardMap, stacked, result_avals=[a.insert_axis(0, n) for a in local_out],
                 callee=spmd, in_axes=tuple(in_axes), out_axes=(0,) * len(outs),
                 axis_size=n, axis_name="", devices=tuple(mesh.devices),
                 mesh_axes=tuple(mesh.axes), mesh_shape=tuple(mesh.shape))[0]
    results = [from_blocks(b, y, a, spec, mesh) for y, a, spec in zip(res, local_out, out_specs)]
    ir = mlir.ir()
    with mlir.unknown_loc():
        ir.Operation.create("func.return", operands=results, ip=ir.InsertionPoint(body))


def to_blocks(b, x, aval, spec, mesh):
    """``x`` (of ``aval``) as every device's block under ``spec`` (mesh axes per dimension)
    stacked along a new leading axis, in mesh order, and that axis: ``(x, -1)`` when no
    mesh axis splits it. ``b``: any builder (IR here, tracers for ``shard_map``)."""
    names = mesh.axes
    split, pos, block = [], {}, []
    for d, n in enumerate(aval.shape):
        for a in spec[d]:
            pos[a] = len(split)
            split.append(mesh.shape[names.index(a)])
        block.append(n // mesh.count(spec[d]))
        split.append(block[-1])
    if not pos:
        return x, -1
    used = [a for a in names if a in pos]
    rest = [i for i in range(len(split)) if i not in pos.values()]
    v = b.reshape(x, new_sizes=tuple(split))
    perm = tuple(pos[a] for a in used) + tuple(rest)
    if perm != tuple(range(len(perm))):
        v = b.transpose(v, permutation=perm)
    if len(used) < len(names):   # copies along the axes the sharding leaves out
        dims = tuple(names.index(a) for a in used) + \
            tuple(range(len(names), len(names) + len(block)))
        v = b.broadcast_in_dim(v, shape=tuple(mesh.shape) + tuple(block),
                               broadcast_dimensions=dims)
    return _reshape(b, v, (mesh.size, *block)), 0


def from_blocks(b, y, block_aval, spec, mesh):
    """The global array of the devices' blocks ``y`` (stacked along axis 0); along a mesh
    axis the sharding leaves out, the first device's block (they are equal)."""
    names, sizes = mesh.axes, tuple(mesh.shape)
    block = block_aval.shape
    v = _reshape(b, y, sizes + block)
    named = set(S.axes_of(spec))
    kept = [a for a in names if a in named]
    if len(kept) < len(names):
        limit = tuple(s if a in named else 1 for a, s in zip(names, sizes)) + block
        v = b.slice(v, start_indices=(0,) * len(limit), limit_indices=limit,
                    strides=(1,) * len(limit))
        v = _reshape(b, v, tuple(sizes[names.index(a)] for a in kept) + block)
    perm, shape = [], []
    for d in range(len(block)):
        perm += [kept.index(a) for a in spec[d]]
        perm.append(len(kept) + d)
        shape.append(block[d] * mesh.count(spec[d]))
    if tuple(perm) != tuple(range(len(perm))):
        v = b.transpose(v, permutation=tuple(perm))
    return _reshape(b, v, tuple(shape))


def _reshape(b, v, sizes):
    return v if b.aval(v).shape == tuple(sizes) else b.reshape(v, new_sizes=tuple(sizes))
