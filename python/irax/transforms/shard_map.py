"""``irax.shard_map``: a function written per device, run on every device of a mesh
(``jax.shard_map``).

Each argument is cut into blocks by its ``in_specs`` entry (a ``PartitionSpec`` naming,
per dimension, the mesh axes that split it); the function runs once per device on that
device's blocks, and may use collectives over the mesh axes (``lax.psum(x, "x")``
combines the devices that differ only in their ``"x"`` coordinate). Its results are
blocks too, joined into global arrays by ``out_specs``; a mesh axis an out spec does not
name must hold equal blocks (the first device's are kept).

    mesh = irax.make_mesh((2, 2), ("x", "y"))
    f = irax.shard_map(lambda a: lax.psum(a, "y"), mesh=mesh,
                       in_specs=P("x", "y"), out_specs=P("x", None))
    f(jnp.ones((4, 4)))     # 4x2 blocks summed over y: a 4x2 array of 2.0

Traced into one ``irax.shard_map`` op (the blocks stacked along a device axis) that
``irax-shard`` expands into per-device code; called outside a trace, the whole call is
compiled like a ``jit`` and the results come back as sharded arrays.
"""

from __future__ import annotations

import contextlib
import functools
import math

from irax.core import tree_util
from irax.core.config import config
from irax.dialect.shard import ShardMap
from irax.frontend.axes import bound_axis
from irax.frontend.callee import (
    TraceBuilder,
    apply_transform,
    arg_names,
    fun_name,
    fun_symbol,
    leaf_aval_and_value,
    trace_callee,
)
from irax.frontend.trace import current_trace
from irax.runtime import mesh as mesh_lib
from irax.runtime.array import Array, put_sharded
from irax.shard.partition import from_blocks, to_blocks
from irax.shard.vma import output_vma
from irax.transforms.device_program import DeviceProgram
from irax.transforms.jit import eval_shape, jit
from irax.transforms.layout import ir_mesh, note_mesh, spec_dims
from irax.transforms.spmd import NotSpmd, SpmdProgram

P = mesh_lib.PartitionSpec


class _Infer:
    """``in_specs`` left out: each argument's spec is that of its sharding over the mesh
    (replicated when it has none)."""

    def __repr__(self) -> str:
        return "Infer"


Infer = _Infer()


def shard_map(f=None, /, *, out_specs, in_specs=Infer, mesh=None, axis_names=frozenset(),
              check_vma: bool = True, check_rep=None, auto=frozenset()):
    """Maps ``f`` over the blocks of its arguments, one call per device of ``mesh``
    (``jax.shard_map``; usable as a decorator: ``@partial(shard_map, mesh=..., ...)``).

    ``check_vma`` (``check_rep``, its former name): an out spec that leaves a mesh axis
    out must be for a value the function makes the same along it (a psum over it, say),
    or JAX's error is raised (``shard/vma.py``); with False the first device's block is
    kept. ``axis_names``/``auto`` must leave every mesh axis manual."""
    if f is None:
        return lambda g: shard_map(g, out_specs=out_specs, in_specs=in_specs, mesh=mesh,
                                   axis_names=axis_names, check_vma=check_vma,
                                   check_rep=check_rep, auto=auto)
    if not callable(f):
        raise TypeError(f"shard_map requires a callable for its first argument, but got "
                        f"{f!r}")
    if mesh is None:
        mesh = mesh_lib.get_mesh()
        if mesh is None:
            raise ValueError("shard_map requires a mesh: pass mesh=... or call it under "
                             "irax.set_mesh(mesh)")
    if not isinstance(mesh, mesh_lib.Mesh):
        raise TypeError(f"shard_map requires a Mesh for its mesh argument, got "
                        f"{type(mesh).__name__}")
    if auto or (axis_names and set(axis_names) != set(mesh.axis_names)):
        raise NotImplementedError("irax.shard_map: every mesh axis must be manual (partial "
                                  "manual axes via axis_names/auto are not supported)")
    for what, specs in (("in_specs", in_specs), ("out_specs", out_specs)):
        if specs is Infer:
            continue
        is_leaf = lambda s: s is None or isinstance(s, P)  # noqa: E731
        for path, spec in tree_util.tree_flatten_with_path(specs, is_leaf=is_leaf)[0]:
            _check_axes(mesh, spec, what, what + tree_util.keystr(path))

    check = check_vma if check_rep is None else bool(check_rep)

    def traced(*args):
        return _shard_map_call(f, mesh, in_specs, out_specs, args, check)

    functools.update_wrapper(traced, f, updated=())
    jitted = None
    threaded = []   # [SpmdProgram], or [None] once it cannot run f
    one_program = []   # [DeviceProgram], or [None] once it cannot run f

    @functools.wraps(f, updated=())
    def mapped(*args, **kwargs):
        nonlocal jitted
        if kwargs:
            raise TypeError(f"shard_map of {fun_name(f)}: keyword arguments are not "
                            f"supported (got {sorted(kwargs)}); pass them positionally")
        specs = in_specs
        if specs is Infer:
            specs = tuple(_inferred(mesh, a) for a in args)
        if current_trace() is not None:
            return _shard_map_call(f, mesh, specs, out_specs, args, check)
        if config.irax_shard_map_threads and threaded != [None]:
            try:
                if not threaded:
                    threaded.append(SpmdProgram(f, mesh, jit))
                outs = _threaded_call(threaded[0], f, mesh, specs, out_specs, args, check)
                if outs is not None:
                    return outs
            except NotSpmd:
                threaded[:] = [None]
        if config.irax_device_program and one_program != [None]:
            try:
                if not one_program:
                    one_program.append(DeviceProgram(f, mesh, jit))
                return _threaded_call(one_program[0], f, mesh, specs, out_specs, args, check)
            except NotSpmd:
                one_program[:] = [None]
        if in_specs is Infer:
            outs = jit(lambda *a: _shard_map_call(f, mesh, specs, out_specs, a, check))(*args)
        else:
            if jitted is None:
                jitted = jit(traced)
                jitted.obeys_disable_jit = False
            outs = jitted(*args)
        leaves, tree = tree_util.tree_flatten(outs)
        per_leaf = _broadcast_specs(out_specs, tree_util.tree_unflatten(tree, leaves),
                                    "out_specs", f)
        return tree_util.tree_unflatten(tree, [
            put_sharded(v, mesh_lib.NamedSharding(mesh, s)) if isinstance(v, Array) else v
            for v, s in zip(leaves, per_leaf)])

    mapped.__wrapped__ = f
    mapped._irax_runs_itself = True   # jit(shard_map(f)) calls it: a program per device
    return mapped


def _threaded_call(program, f, mesh, in_specs, out_specs, args, check_vma):
    """``f`` run by ``program`` (a thread per device), with the checks of the traced path
    (once per signature); the results are the devices' blocks, as sharded arrays."""
    args = tuple(args)
    specs = _broadcast_specs(in_specs, args, "in_specs", f, named=True)

    def check():
        leaves = tree_util.tree_leaves(args)
        for x, (spec, spec_name), name in zip(leaves, specs, _leaf_names(f, args)):
            aval = x.aval if isinstance(x, Array) else leaf_aval_and_value(x)[0]  # (unread)
            _check_arg(f, mesh, spec, spec_name, aval, name)
        if check_vma:   # a trace of the whole shard_map, for what its out specs claim
            eval_shape(lambda *a: _shard_map_call(f, mesh, in_specs, out_specs, a, True),
                       *args)

    def out_specs_of(out_tree, avals):
        flat = _broadcast_specs(out_specs, tree_util.tree_unflatten(out_tree, avals),
                                "out_specs", f)
        _check_outs(f, avals, flat)
        return flat

    return program(args, [s for s, _ in specs], out_specs_of, check)


def _check_outs(f, avals, specs) -> None:
    for a, spec in zip(avals, specs):
        if len(spec) > a.ndim:
            raise ValueError(
                f"shard_map applied to the function {fun_name(f)!r} was given an out_specs "
                f"entry which is too long to be compatible with the corresponding output "
                f"value from the function:\n\nout_specs is {spec} which has length "
                f"{len(spec)}, but {fun_name(f)}(*args) has shape {a.str_short()}, which "
                f"has rank {a.ndim} (and {a.ndim} < {len(spec)})\n\nAn out_specs entry names "
                f"at most one entry per dimension of its output: shorten the spec or "
                f"return an array of higher rank.")


def _inferred(mesh, arg):
    def spec(leaf):
        s = getattr(leaf, "_sharding", None)
        return s.spec if isinstance(s, mesh_lib.NamedSharding) and s.mesh == mesh else P()
    return tree_util.tree_map(spec, arg)


def _broadcast_specs(specs, tree, what: str, f, named: bool = False) -> list:
    """One spec per leaf of ``tree`` from the prefix tree ``specs`` (None means P());
    with ``named``, ``(spec, "in_specs[0]")`` pairs that say where each spec sits."""
    is_leaf = lambda s: s is None or isinstance(s, P)  # noqa: E731
    treedef = tree_util.tree_structure(specs, is_leaf=is_leaf)
    try:
        subtrees = treedef.flatten_up_to(tree)
    except ValueError:
        whose = "arguments" if what == "in_specs" else "outputs"
        shown = tree_util.tree_structure(tree)
        raise ValueError(f"pytree structure error: shard_map of {fun_name(f)!r} was given "
                         f"{what} that are not a pytree prefix of its {whose}: expected a "
                         f"prefix of {shown}, got {what} of structure {treedef}") from None
    out = []
    pairs = tree_util.tree_flatten_with_path(specs, is_leaf=is_leaf)[0]
    for (path, spec), sub in zip(pairs, subtrees):
        if spec is None:
            spec = P()
        if not isinstance(spec, P):
            raise TypeError(f"shard_map {what} entries must be PartitionSpecs, got {spec!r}")
        name = what + tree_util.keystr(path)
        out += [(spec, name) if named else spec] * len(tree_util.tree_leaves(sub))
    return out


def _check_axes(mesh, spec, what: str, where: str) -> None:
    if not isinstance(spec, P):
        raise TypeError(f"shard_map {what} entries must be PartitionSpecs or None, got "
                        f"{spec!r}")
    for a in spec.mesh_axes():
        if a not in mesh.shape:
            raise ValueError(f"shard_map {what} argument must refer to an axis of the mesh "
                             f"{mesh.axis_names}, but:\n\n  {where} refers to {a!r}\n\n"
                             f"Check the {what} values passed to shard_map.")
    mesh_lib.check_spec(mesh, spec)   # the same axis twice


def _check_vma(f, mesh, callee, specs, out_specs, out_specs_flat) -> None:
    """JAX's error for out specs that claim a replication ``f`` does not make."""
    in_vma = [frozenset(s.mesh_axes()) for s, _ in specs] + \
        [frozenset()] * len(callee.captures)
    got = output_vma(callee.trace.module, callee.trace.func_op, in_vma)
    tree = tree_util.tree_unflatten(callee.out_tree, [0] * len(callee.out_avals))
    names = [n for _, n in _broadcast_specs(out_specs, tree, "out_specs", f, named=True)]
    msgs = []
    order = lambda axes: ",".join(a for a in mesh.axis_names if a in axes)  # noqa: E731
    for spec, name, vma in zip(out_specs_flat, names, got):
        mentioned = set(spec.mesh_axes())
        if vma is None or vma <= mentioned:
            continue
        unmentioned = [a for a in mesh.axis_names if a not in mentioned]
        if len(unmentioned) > 1:
            msgs.append(f"* {name} is {spec} which implies that the corresponding output "
                        f"value is only varying across mesh axes {{{order(mentioned)}}} and "
                        f"not {{{order(set(unmentioned) & vma)}}}, but it was inferred to "
                        f"be possibly varying over {{{order(vma)}}}")
        else:
            msgs.append(f"* {name} is {spec} which implies that the corresponding output "
                        f"value is replicated across mesh axis '{unmentioned[0]}', but "
                        f"could not infer replication over any axes")
    if not msgs:
        return
    if len(msgs) == 1:
        msgs = [msgs[0][2:]]
    raise ValueError(
        f"shard_map applied to the function '{fun_name(f)}' was given out_specs which "
        f"require replication which can't be statically inferred given the mesh:\n\n"
        f"The mesh given has shape {mesh.axis_sizes} with corresponding axis names "
        f"{mesh.axis_names}.\n\n" + "\n\n".join(msgs) + "\n\n"
        "Check if these output values are meant to be replicated over those mesh axes. If "
        "not, consider revising the corresponding out_specs entries. If so, consider "
        "disabling the check by passing the check_vma=False argument to "
        "`irax.shard_map`.")


def _shard_map_call(f, mesh, in_specs, out_specs, args, check_vma=True):
    args = tuple(args)
    note_mesh(mesh)   # (a jit of code around it runs partitioned over it)
    leaves, in_tree = tree_util.tree_flatten((args, {}))
    specs = _broadcast_specs(in_specs, args, "in_specs", f, named=True)
    names = _leaf_names(f, args)
    n = mesh.size
    stacked, in_axes, block_avals = [], [], []
    for x, (spec, spec_name), name in zip(leaves, specs, names):
        aval = leaf_aval_and_value(x)[0]
        _check_arg(f, mesh, spec, spec_name, aval, name)
        v, ax, blk = _to_blocks(x, aval, spec, mesh)
        stacked.append(v)
        in_axes.append(ax)
        block_avals.append(blk)
    with contextlib.ExitStack() as stack:
        for a, size in mesh.shape.items():
            stack.enter_context(bound_axis(a, size))
        callee = trace_callee(f, leaves, in_tree, fun_symbol(f), fun_name(f),
                              in_avals=block_avals, concrete=False)
    out_specs_flat = _broadcast_specs(out_specs, tree_util.tree_unflatten(
        callee.out_tree, [0] * len(callee.out_avals)), "out_specs", f)
    _check_outs(f, callee.out_avals, out_specs_flat)
    if check_vma:
        _check_vma(f, mesh, callee, specs, out_specs, out_specs_flat)
    outs = apply_transform(
        ShardMap, callee, lambda caps: stacked + list(caps),
        [a.insert_axis(0, n) for a in callee.out_avals],
        in_axes=tuple(in_axes) + (-1,) * len(callee.captures),
        out_axes=(0,) * len(callee.out_avals), axis_size=n, axis_name="",
        mesh_axes=mesh.axis_names, mesh_shape=mesh.axis_sizes,
        devices=tuple(d.id for d in mesh.devices.flat))
    results = [_from_blocks(y, a, spec, mesh)
               for y, a, spec in zip(outs, callee.out_avals, out_specs_flat)]
    return tree_util.tree_unflatten(callee.out_tree, results)


def _leaf_names(f, args) -> list[str]:
    params = arg_names(f, len(args))
    out = []
    for i, (param, a) in enumerate(zip(params, args)):
        bound = "" if param.startswith("args[") else \
            f", where args[{i}] is bound to {fun_name(f)}'s parameter {param!r}"
        for path, _ in tree_util.tree_flatten_with_path(a)[0]:
            out.append((f"args[{i}]{tree_util.keystr(path)}", bound))
    return out


def _check_arg(f, mesh, spec, spec_name, aval, name) -> None:
    """JAX's errors for an in spec longer than the argument's rank or a dimension its mesh
    axes do not divide."""
    where, bound = name
    if len(spec) > aval.ndim:
        raise ValueError(
            f"shard_map applied to the function {fun_name(f)!r} was given an in_specs entry "
            f"which is too long to be compatible with the corresponding input value from "
            f"the function:\n\n{spec_name} is {spec} which has length {len(spec)}, but the "
            f"passed {where}{bound}, has shape {aval.str_short()}, which has rank "
            f"{aval.ndim} (and {aval.ndim} < {len(spec)})\n\nAn in_specs entry names at most "
            f"one entry per dimension of its argument: shorten the spec or pass an array "
            f"of higher rank.")
    for d in range(len(spec)):
        axes = spec.axes_of(d)
        k = math.prod(mesh.shape[a] for a in axes)
        if aval.shape[d] % k:
            names = f"axis {axes[0]!r} (of size {k})" if len(axes) == 1 else \
                f"axes {axes!r} (of total size {k})"
            raise ValueError(
                f"shard_map applied to the function {fun_name(f)!r} was given argument "
                f"arrays with axis sizes that are not evenly divisible by the corresponding "
                f"mesh axis sizes:\n\nThe mesh given has shape {mesh.axis_sizes} with "
                f"corresponding axis names {mesh.axis_names}.\n\nthe passed {where} of shape "
                f"{aval.str_short()}{bound}, corresponds to {spec_name} of value {spec}, "
                f"which maps array axis {d} (of size {aval.shape[d]}) to mesh {names}, but "
                f"{k} does not evenly divide {aval.shape[d]}\n\nPad the argument to a multiple "
                f"of {k}, or split that dimension over other mesh axes.")


def _to_blocks(x, aval, spec, mesh):
    """``x`` as every device's block stacked along a new leading axis, in mesh order
    (``(x, -1, aval)`` when no mesh axis splits it: every device gets all of it)."""
    m, dims = ir_mesh(mesh), spec_dims(spec, aval.ndim)
    v, ax = to_blocks(TraceBuilder(), x, aval, dims, m)
    return v, ax, aval.update(shape=m.local_shape(aval.shape, dims))


def _from_blocks(y, block_aval, spec, mesh):
    """The global array of the devices' blocks ``y`` (stacked along axis 0) by ``spec``;
    along a mesh axis the spec leaves out, the first device's block."""
    return from_blocks(TraceBuilder(), y, block_aval, spec_dims(spec, block_aval.ndim),
                       ir_mesh(mesh))
