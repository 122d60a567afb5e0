"""``irax.pmap``: a map whose examples run on separate devices (``jax.pmap``).

Traced like ``vmap`` (once, on per-example shapes) into an ``irax.pmap`` op that names the
devices; ``irax-shard`` later repeats the function once per device with transfers in
between. Called outside any transformation, a pmapped function is compiled like a
``jit`` (static_broadcasted_argnums become static arguments); inside ``jit``, ``grad``,
``vmap``... it becomes part of the enclosing program. Results live on the first device.

    f = irax.pmap(lambda x: x / lax.psum(x, "i"), axis_name="i")
    f(jnp.arange(4.0).reshape(2, 2))     # needs 2 devices:
                                         # irax.config.update("jax_num_cpu_devices", 2)
"""

from __future__ import annotations

import functools
from typing import Any, Callable

import numpy as np

from irax.core import tree_util
from irax.core.config import config
from irax.dialect.shape import Reshape
from irax.dialect.shard import Pmap
from irax.frontend.callee import fun_name
from irax.frontend.trace import bind, current_trace
from irax.runtime import devices as _devices
from irax.runtime import mesh as mesh_lib
from irax.transforms.device_program import DeviceProgram
from irax.transforms.jit import jit
from irax.transforms.spmd import NotSpmd, SpmdProgram
from irax.transforms.vectorize import check_map_args, map_call


def pmap(fun: Callable, axis_name=None, *, in_axes: Any = 0, out_axes: Any = 0,
         static_broadcasted_argnums=(), devices=None, backend=None,
         axis_size: int | None = None, donate_argnums=()) -> Callable:
    """Maps ``fun`` over the leading axis of its arguments, one device per example."""
    in_axes = check_map_args("pmap", fun, in_axes, out_axes)
    static = _argnums(static_broadcasted_argnums, "static_broadcasted_argnums")
    donate = _argnums(donate_argnums, "donate_argnums")

    def traced(*args, **kwargs):
        dyn_args = tuple(a for i, a in enumerate(args) if i not in static)
        axes = in_axes
        if isinstance(in_axes, tuple) and static and len(in_axes) == len(args):
            axes = tuple(a for i, a in enumerate(in_axes) if i not in static)

        def per_example(*dyn, **kw):
            it = iter(dyn)
            full = [args[i] if i in static else next(it) for i in range(len(args))]
            return fun(*full, **kw)

        functools.update_wrapper(per_example, fun, updated=())
        group = _device_group(fun, devices, backend)
        ordinals = []

        def check_size(size: int) -> None:
            if size > len(group):
                raise ValueError(
                    f"pmap of {fun_name(fun)}: the mapped axis has size {size}, but only "
                    f"{len(group)} device(s) are available; irax.config.update("
                    "'jax_num_cpu_devices', N) creates N CPU devices")
            ordinals.extend(d.id for d in group[:size])

        return map_call(Pmap, per_example, axes, out_axes, axis_name, axis_size,
                        dyn_args, kwargs, what="pmap", check_size=check_size,
                        devices=ordinals)   # filled by check_size before the op is emitted

    functools.update_wrapper(traced, fun, updated=())
    jitted = None
    threaded: dict = {}   # (kind, device count) -> its program, or None once it cannot run fun

    @functools.wraps(fun, updated=())
    def pmapped(*args, **kwargs):
        nonlocal jitted
        if current_trace() is not None:   # inside a trace: part of the enclosing program
            return traced(*args, **kwargs)
        if not (static or donate or kwargs):
            out = _per_device(threaded, fun, axis_name, in_axes, out_axes,
                              _device_group(fun, devices, backend), args)
            if out is not None:
                return out
        if jitted is None:
            jitted = jit(traced, static_argnums=tuple(static), donate_argnums=tuple(donate),
                         backend=backend)
            jitted.obeys_disable_jit = False   # devices stay the devices (as JAX's pmap)
        return jitted(*args, **kwargs)

    pmapped.__wrapped__ = fun
    return pmapped


def _per_device(threaded, fun, axis_name, in_axes, out_axes, group, args):
    """A pmap over CPU devices as a shard_map over a 1-D mesh of them (as JAX builds pmap
    on shard_map), its results the devices' shards: one program per device on a thread of
    its own (``spmd.py``, which takes only machines with more cores than devices), else
    one multi-device program with each device's example and results at its boundary
    (``device_program.py``). None where neither applies (axes other than 0/None, a
    non-CPU device, sizes the devices do not fit, one device, a collective in a loop or
    branch): the stacked multi-device program runs."""
    kinds = ((SpmdProgram,) if config.irax_shard_map_threads else ()) + \
        ((DeviceProgram,) if config.irax_device_program else ())
    if not kinds:
        return None
    axes = in_axes if isinstance(in_axes, tuple) else (in_axes,) * len(args)
    if out_axes != 0 or len(axes) != len(args) or any(a not in (0, None) for a in axes):
        return None
    sizes = {np.shape(leaf)[0] if np.ndim(leaf) else None
             for a, x in zip(axes, args) if a == 0 for leaf in tree_util.tree_leaves(x)}
    if len(sizes) != 1 or None in sizes:
        return None
    (n,) = sizes
    if not 2 <= n <= len(group) or any(d.platform != "cpu" for d in group[:n]):
        return None
    name = axis_name if axis_name is not None else "_internal_pmap_axis_name"
    specs = []
    for a, x in zip(axes, args):
        specs += [mesh_lib.PartitionSpec(name if a == 0 else None)] * \
            len(tree_util.tree_leaves(x))

    def out_specs(tree, avals):
        return [mesh_lib.PartitionSpec(name)] * len(avals)

    for kind in kinds:
        program = threaded.get((kind, n), False)
        if program is None:
            continue
        if program is False:
            mesh = mesh_lib.Mesh(np.array(group[:n], dtype=object), (name,))
            program = threaded[kind, n] = kind(_per_example(fun, axes), mesh, jit)
        try:
            out = program(tuple(args), specs, out_specs)
        except NotSpmd:
            threaded[kind, n] = None
            continue
        if out is not None:
            return out
    return None


def _per_example(fun, axes):
    """``fun`` on one device's blocks of a pmap's arguments (a leading axis of 1 where
    mapped), its results given that axis back."""
    def local(*blocks):
        squeezed = [tree_util.tree_map(lambda b: b[0], x) if a == 0 else x
                    for a, x in zip(axes, blocks)]
        return tree_util.tree_map(
            lambda r: bind(Reshape, r, new_sizes=(1,) + tuple(np.shape(r))), fun(*squeezed))

    functools.update_wrapper(local, fun, updated=())
    return local


def _argnums(value, what: str) -> frozenset:
    if isinstance(value, int):
        value = (value,)
    try:
        nums = frozenset(int(i) for i in value)
    except TypeError:
        raise TypeError(f"pmap {what} must be an int or a sequence of ints, got "
                        f"{value!r}") from None
    return nums


def _device_group(fun, devices, backend) -> list:
    if devices is None:
        return _devices.devices(backend)
    group = list(devices)
    if not group or not all(isinstance(d, _devices.Device) for d in group):
        raise TypeError(f"pmap of {fun_name(fun)}: devices must be a non-empty sequence of "
                        f"irax devices, got {devices!r}")
    return group
