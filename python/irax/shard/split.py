"""The per-device expansion of an ``irax.pmap`` or ``irax.shard_map`` (``irax-shard``).

Each ``irax.pmap`` becomes a call of ``@f_pmap``, in which the callee's body is repeated
once per device: device ``k`` gets slice ``k`` of every mapped operand (and a copy of every
unmapped one) through ``irax.transfer``, so IREE runs its copy of each op there. A
collective over the pmap's axis gathers its operand from every device onto the first one,
applies the op's vmap rule to the stacked values there, and sends each device its slice
of the result (IREE's local devices have no collective channels; the same code runs on
any number of devices). Results are stacked along ``out_axes`` on device 0.

Before:
    %y = "irax.pmap"(%xs) {callee = @f, in_axes = array<i64: 0>, out_axes = array<i64: 0>,
           axis_size = 2 : i64, axis_name = "i", devices = array<i64: 0, 1>}
After:
    func.func private @f_pmap(%xs: tensor<2x3xf32>) -> tensor<2x3xf32> {
      %a = "irax.slice"(%xs) ... %a0 = "irax.reshape"(%a) ...
      %x0 = "irax.transfer"(%a0) {device = 0 : i64}
      ... (the same for device 1, then @f's ops once per device)
      %s = "irax.psum"(...) becomes transfers to device 0, a reduce_sum, transfers back
    %y = "irax.call"(%xs) {callee = @f_pmap}

A shard_map is a pmap over the devices of a mesh, row-major: its collectives name one
mesh axis and run within each group of devices that agree on the other coordinates
(over ``"x"`` of a 2x2 mesh: devices {0, 2} and {1, 3}), each group gathered on its
first device.

A map whose loops or branches (``irax.while``/``irax.cond``/``irax.scan``) hold a
collective over one of its axes cannot be split per device op by op; it is expanded as
the equivalent vmap instead (nested, one per mesh axis: same values, on one device).
"""

from __future__ import annotations

import math

from irax.core.errors import IRError
from irax.dialect import funcs, mlir
from irax.dialect.base import OpError, lookup
from irax.dialect.builder import IRBuilder
from irax.dialect.collective import Collective
from irax.dialect.control import Call, is_plain_call, is_return
from irax.dialect.shard import DEVICE_ATTR
from irax.dialect.vectorize import axis_dims
from irax.vectorize.batch import vmap_function
from irax.vectorize.builder import BatchBuilder


class MeshAxes:
    """The axes of a map's mesh (a pmap's: its one axis) and their device groups."""

    def __init__(self, names, shape):
        self.names, self.shape = tuple(names), tuple(shape)

    def groups(self, name: str) -> list[list[int]]:
        """The flat (row-major) device positions that combine along axis ``name``: one
        list per setting of the other axes, ordered along ``name``."""
        a = self.names.index(name)
        out: dict = {}
        for k in range(math.prod(self.shape)):
            rest, coords = k, []
            for n in reversed(self.shape):
                coords.insert(0, rest % n)
                rest //= n
            out.setdefault(tuple(coords[:a] + coords[a + 1:]), []).append(k)
        return list(out.values())


def shard_function(ctx, callee, in_axes, out_axes, axis_size, axis_name, devices,
                   mesh_axes=None, mesh_shape=None) -> str:
    """The name of the generated per-device function for one pmap (or shard_map, whose
    mesh is ``mesh_axes`` of sizes ``mesh_shape``)."""
    mesh = MeshAxes(mesh_axes or (axis_name,), mesh_shape or (axis_size,))
    fn = ctx.callee(callee)
    ins, outs = funcs.signature(fn)
    if any(_collective_in_region(ctx, fn, a, set()) for a in mesh.names):
        if len(mesh.names) == 1:   # (a partitioned function's map names only its mesh)
            return vmap_function(ctx, callee, axis_dims(in_axes), axis_dims(out_axes),
                                 axis_size, mesh.names[0])
        return _mesh_vmap(ctx, callee, ins, in_axes, out_axes, mesh)
    new_in = [a if ax < 0 else a.insert_axis(ax, axis_size) for a, ax in zip(ins, in_axes)]
    name = funcs.unique_name(ctx.module, f"{callee}_pmap")
    new_fn, block = funcs.create_function(ctx.module, name, new_in)
    ctx.add_symbol(new_fn)
    builders = {a: BatchBuilder(IRBuilder.at_end(block), ctx, n, a)
                for a, n in zip(mesh.names, mesh.shape)}
    b = builders[mesh.names[0]]
    envs = [[_device_input(b, x, ax, k, dev) for x, ax in zip(block.arguments, in_axes)]
            for k, dev in enumerate(devices)]
    per_device = _unroll(ctx, builders, mesh, fn, envs, tuple(devices))
    results = [_stack(b, [vals[j] for vals in per_device], ax)
               for j, ax in enumerate(out_axes)]
    funcs.finish_function(new_fn, block, results)
    return name


def per_device_main(ctx, callee, mesh_axes, mesh_shape, devices, name: str = "main",
                    first: bool = False) -> str:
    """A public function ``@name`` running ``@callee`` (the per-device function of a
    shard_map over a mesh of ``mesh_axes`` sized ``mesh_shape``, whose row-major position
    ``k`` is device ``devices[k]``) on every device, with each device's arguments and
    results at the boundary: its arguments are device 0's operands of ``@callee``, then
    device 1's, ...; its results likewise, each marked with its device (``irax.device``,
    lowered to IREE's ``iree.abi.affinity``). Nothing is stacked or gathered: only the
    collectives move data.

        func.func @main(%x0: tensor<4xf32> {irax.device = 0 : i64},
                        %x1: tensor<4xf32> {irax.device = 1 : i64})
            -> (tensor<4xf32> {irax.device = 0 : i64}, tensor<4xf32> {irax.device = 1 : i64})

    An ``IRError`` when a loop or branch of ``@callee`` holds a collective over a mesh
    axis (such a map is not split per device: ``shard_function``). ``first``: the new
    function goes first in the module."""
    ir = mlir.ir()
    mesh = MeshAxes(mesh_axes, mesh_shape)
    fn = ctx.callee(callee)
    for a in mesh.names:
        if _collective_in_region(ctx, fn, a, set()):
            raise IRError(f"@{callee}: a loop or branch holds a collective over axis '{a}'")
    ins, outs = funcs.signature(fn)
    body = ctx.module.body.operations
    new_fn, block = funcs.create_function(ctx.module, name, list(ins) * len(devices),
                                          private=False,
                                          before=body[0] if first and len(body) else None)
    ctx.add_symbol(new_fn)
    builders = {a: BatchBuilder(IRBuilder.at_end(block), ctx, n, a)
                for a, n in zip(mesh.names, mesh.shape)}
    args = list(block.arguments)
    envs = [args[k * len(ins):(k + 1) * len(ins)] for k in range(len(devices))]
    per_device = _unroll(ctx, builders, mesh, fn, envs, tuple(devices))
    funcs.finish_function(new_fn, block, [v for vals in per_device for v in vals])
    i64 = ir.IntegerType.get_signless(64)

    def marks(count):
        return ir.ArrayAttr.get([ir.DictAttr.get({DEVICE_ATTR: ir.IntegerAttr.get(i64, d)})
                                 for d in devices for _ in range(count)])
    new_fn.attributes["arg_attrs"] = marks(len(ins))
    new_fn.attributes["res_attrs"] = marks(len(outs))
    return name


def _mesh_vmap(ctx, callee, ins, in_axes, out_axes, mesh) -> str:
    """A shard_map as nested vmaps, one per mesh axis (the last innermost): each mapped
    operand's device axis is split into the mesh's axes first."""
    ins_dims = tuple(None if a < 0 else 0 for a in in_axes)
    out_dims = tuple(None if a < 0 else 0 for a in out_axes)
    inner = callee
    for a, n in reversed(list(zip(mesh.names, mesh.shape))):
        inner = vmap_function(ctx, inner, ins_dims, out_dims, n, a)
    size = math.prod(mesh.shape)
    new_in = [a if ax < 0 else a.insert_axis(ax, size) for a, ax in zip(ins, in_axes)]
    name = funcs.unique_name(ctx.module, f"{callee}_meshvmap")
    new_fn, block = funcs.create_function(ctx.module, name, new_in)
    ctx.add_symbol(new_fn)
    b = BatchBuilder(IRBuilder.at_end(block), ctx, size, mesh.names[0])
    m = len(mesh.shape)
    args = []
    for x, ax in zip(block.arguments, in_axes):
        if ax >= 0:
            shape = b.aval(x).shape
            x = b.reshape(x, new_sizes=shape[:ax] + mesh.shape + shape[ax + 1:])
            if ax:
                perm = tuple(range(ax, ax + m)) + tuple(range(ax)) + \
                    tuple(range(ax + m, len(shape) + m - 1))
                x = b.transpose(x, permutation=perm)
        args.append(x)
    _, inner_outs = funcs.signature(ctx.callee(inner))
    res = b.ir.emit(Call, args, result_avals=list(inner_outs), callee=inner)[0]
    results = []
    for v, ax in zip(res, out_axes):
        if ax >= 0:
            shape = b.aval(v).shape   # (*mesh, *block)
            if ax:
                perm = tuple(range(m, m + ax)) + tuple(range(m)) + \
                    tuple(range(m + ax, len(shape)))
                v = b.transpose(v, permutation=perm)
                shape = b.aval(v).shape
            v = b.reshape(v, new_sizes=shape[:ax] + (size,) + shape[ax + m:])
        results.append(v)
    funcs.finish_function(new_fn, block, results)
    return name


def _device_input(b, x, axis: int, k: int, device: int):
    if axis >= 0:
        x = _take(b, x, axis, k)
    return b.transfer(x, device=device)


def _take(b, x, axis: int, k: int):
    """Slice ``k`` of ``x`` along ``axis``, without that axis."""
    shape = b.aval(x).shape
    start = [0] * len(shape)
    limit = list(shape)
    start[axis], limit[axis] = k, k + 1
    piece = b.slice(x, start_indices=tuple(start), limit_indices=tuple(limit),
                    strides=(1,) * len(shape))
    return b.reshape(piece, new_sizes=shape[:axis] + shape[axis + 1:])


def _stack(b, values, axis: int, home: int = 0):
    """The per-device ``values`` moved to device ``home`` and stacked along ``axis``
    (``axis < 0``: the value of the first device)."""
    if axis < 0:
        return b.transfer(values[0], device=home)
    pieces = []
    for v in values:
        shape = list(b.aval(v).shape)
        shape.insert(axis, 1)
        pieces.append(b.reshape(b.transfer(v, device=home), new_sizes=tuple(shape)))
    return pieces[0] if len(pieces) == 1 else b.concatenate(*pieces, dimension=axis)


def _unroll(ctx, builders, mesh, fn, envs, devices) -> list[list]:
    """Emits ``fn``'s body once per device (``envs[k]``: device ``k``'s arguments);
    returns each device's results."""
    block = fn.regions[0].blocks[0]
    env = [dict(zip(block.arguments, vals)) for vals in envs]
    for op in block.operations:
        ins = [[e[v] for v in op.operands] for e in env]
        if is_return(op):
            return ins
        cls = lookup(op.name)
        axis = cls.decode_attrs(op)["axis_name"] \
            if cls is not None and issubclass(cls, Collective) else None
        if is_plain_call(op):
            callee = ctx.callee(mlir.ir().FlatSymbolRefAttr(op.attributes["callee"]).value)
            outs = _unroll(ctx, builders, mesh, callee, ins, devices)
        elif axis in builders:
            outs = [None] * len(devices)
            for group in mesh.groups(axis):
                got = _collective(builders[axis], cls, op, [ins[k] for k in group],
                                  [devices[k] for k in group])
                for k, vals in zip(group, got):
                    outs[k] = vals
        else:
            b = next(iter(builders.values()))
            outs = [list(funcs.clone_op(op, vals, b.ir.ip).results) for vals in ins]
        for e, vals in zip(env, outs):
            e.update(zip(op.results, vals))
    raise IRError(f"irax-shard: @{funcs.symbol_name(fn)} has no return")


def _collective(b, cls, op, ins, devices) -> list[list]:
    """A collective across ``devices`` (one group), each device's result on that device:
    the op's own pattern of transfers (``between_devices``: a tree for reductions, direct
    copies for gathers, scatters and permutations, constants for axis_index); a
    collective without one gathered on the first device, where the op's vmap rule runs."""
    attrs = cls.decode_attrs(op)
    if cls.between_devices is not None:
        n = len(devices)
        try:
            cls.infer_list([b.aval(v) for v in ins[0]], attrs)   # the op's own checks
            if attrs.get("axis_size", n) != n:
                raise OpError(f"expected axis_size {n} (the size of axis "
                              f"'{attrs['axis_name']}'), but got {attrs['axis_size']}")
            if any(i >= n for i in attrs.get("perm", ())):
                raise OpError(f"expected perm indices in [0, {n}) for axis "
                              f"'{attrs['axis_name']}', but got {list(attrs['perm'])}")
        except OpError as e:
            raise IRError(f"{op.location}: error: {cls.diag(str(e))}") from None
        outs = cls.between_devices(b, [vals[0] if vals else None for vals in ins], devices,
                                   **attrs)
        return [[v] for v in outs]
    home = devices[0]
    if ins[0]:
        args, dims = [_stack(b, [vals[0] for vals in ins], 0, home)], [0]
    else:
        args, dims = [], []
    try:
        outs, out_dims = cls.batch(b, args, dims, **attrs)
    except OpError as e:
        raise IRError(f"{op.location}: error: {cls.diag(str(e))}") from None
    per_device = []
    for k, dev in enumerate(devices):
        vals = [v if d is None else _take(b, v, d, k) for v, d in zip(outs, out_dims)]
        per_device.append([b.transfer(v, device=dev) for v in vals])
    return per_device


def _collective_in_region(ctx, fn, axis_name: str, seen: set) -> bool:
    """Whether a loop or branch of ``fn`` (or of a function it calls) holds a collective
    over ``axis_name``."""
    name = funcs.symbol_name(fn)
    if name in seen:
        return False
    seen.add(name)
    for op in fn.regions[0].blocks[0].operations:
        if is_plain_call(op):
            callee = ctx.callee(mlir.ir().FlatSymbolRefAttr(op.attributes["callee"]).value)
            if _collective_in_region(ctx, callee, axis_name, seen):
                return True
        elif len(op.regions) and holds_collective(ctx.callee, op, axis_name):
            return True
    return False


def holds_collective(callee_of, root, axis_name=None, seen=None) -> bool:
    """Whether ``root`` or a function it refers to (``callee_of(name)``: the function, or
    None) holds a collective over ``axis_name`` (any collective when None)."""
    seen = set() if seen is None else seen
    found = []

    def visit(op):
        cls = lookup(op.name)
        if cls is not None and issubclass(cls, Collective) and (
                axis_name is None or cls.decode_attrs(op)["axis_name"] == axis_name):
            found.append(op)
        for ref in funcs.symbol_refs(op):
            if ref not in seen:
                seen.add(ref)
                fn = callee_of(ref)
                if fn is not None and holds_collective(callee_of, fn, axis_name, seen):
                    found.append(op)
        return mlir.ir().WalkResult.ADVANCE

    root.operation.walk(visit)
    return bool(found)
