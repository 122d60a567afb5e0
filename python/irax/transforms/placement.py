"""Putting values on devices and meshes and getting them back: ``irax.device_put``,
``device_get``, ``block_until_ready``, and the layout of a jit's arguments and results
by shardings (``lay_out``).

    x = irax.device_put(np.ones((8, 4)), NamedSharding(mesh, P("x")))   # one block per
    x.addressable_shards                                                 # device of "x"

Inside a trace, laying a value out as a ``NamedSharding`` of several devices records an
``irax.sharding_constraint`` for ``irax-partition``.
"""

from __future__ import annotations

import numpy as np

from irax.core import tree_util
from irax.dialect.sharding import ShardingConstraint
from irax.frontend.eager import concrete_value
from irax.frontend.trace import bind
from irax.frontend.tracer import Tracer
from irax.runtime import devices
from irax.runtime import mesh as mesh_lib
from irax.runtime.array import Array, put_sharded
from irax.transforms.layout import ir_mesh, is_placement, placements, sharding_spec


def lay_out(x, shardings, api: str, what: str):
    """``x`` put as ``shardings`` (a prefix pytree; None leaves a leaf where it is)."""
    if shardings is None:
        return x
    places = placements(x, shardings, api, what)
    leaves, tree = tree_util.tree_flatten(x)
    paths = [tree_util.keystr(p) for p, _ in tree_util.tree_flatten_with_path(x)[0]]
    return tree_util.tree_unflatten(tree, [
        v if s is None else _put(v, s, f"{what}{path}", api)
        for v, s, path in zip(leaves, places, paths)])




def device_put(x, device=None, *, donate: bool = False, may_alias=None):
    """Copies a pytree of arrays to ``device``, or lays it out as a sharding: a
    ``NamedSharding`` (one block per device), a ``PartitionSpec`` over the mesh of
    ``set_mesh``, or a pytree of those matching ``x``. As in JAX, what it places on a
    device or sharding is committed there (``Array.committed``); with no device, a
    committed array stays where it is and anything else goes, uncommitted, to the default
    device."""
    if is_placement(device) or device is None:
        return tree_util.tree_map(lambda leaf: _put(leaf, device), x)
    try:
        places = tree_util.tree_structure(x).flatten_up_to(device)
    except ValueError as e:
        raise ValueError(f"device_put: the device/sharding pytree does not match the value "
                         f"pytree {tree_util.tree_structure(x)}: {e}") from None
    leaves, tree = tree_util.tree_flatten(x)
    return tree_util.tree_unflatten(tree, [_put(v, d) for v, d in zip(leaves, places)])


def _put(leaf, device, what: str = "", api: str = "device_put"):
    if isinstance(device, mesh_lib.PartitionSpec):
        mesh = mesh_lib.get_mesh()
        if mesh is None:
            raise ValueError(f"{api}: a PartitionSpec ({device}) needs a mesh: use "
                             "NamedSharding(mesh, spec) or irax.set_mesh(mesh)")
        device = mesh_lib.NamedSharding(mesh, device)
    if isinstance(leaf, Tracer):   # a layout inside a trace: a constraint for irax-partition
        if isinstance(device, mesh_lib.NamedSharding):
            mesh_lib.check_shape(device, leaf.aval.shape, what, api)
            if device.mesh.size > 1:
                m = ir_mesh(device.mesh)
                return bind(ShardingConstraint, leaf, sharding=sharding_spec(device),
                            mesh_axes=m.axes, mesh_shape=m.shape, devices=m.devices)
        return leaf
    if isinstance(device, mesh_lib.SingleDeviceSharding):
        device = device._device
    if device is None and type(leaf) is Array and leaf.committed:
        leaf._check_live()
        return leaf   # as JAX: a committed array stays on its device(s)
    if isinstance(leaf, Array):   # (not read: a sharded array keeps its shards)
        leaf._check_live()
        arr, aval = leaf, leaf.aval
    else:
        data, aval = concrete_value(leaf)
        arr = Array._from_host(np.asarray(data), aval)
    if isinstance(device, mesh_lib.NamedSharding):
        return put_sharded(arr, device, what, api)
    dev = device if device is not None else devices.default_device()
    if not isinstance(dev, devices.Device):
        raise TypeError(f"device_put: expected a device or a sharding, got {device!r}")
    buf = arr._device_buffer(dev)
    return Array._from_device(buf, aval, dev, committed=device is not None)


def device_get(x):
    """Host NumPy copies of a pytree of arrays."""
    return tree_util.tree_map(lambda a: np.asarray(a) if hasattr(a, "__array__") else a, x)


def copy_to_host_async(x):
    """Starts copying every array of the pytree to the host (the copies are ready when
    this returns: irax reads device buffers synchronously); returns ``x``."""
    for leaf in tree_util.tree_leaves(x):
        if hasattr(leaf, "copy_to_host_async"):
            leaf.copy_to_host_async()
    return x


def block_until_ready(x):
    """Waits for every array of the pytree (calls are synchronous on IREE's local-task)."""
    for leaf in tree_util.tree_leaves(x):
        if hasattr(leaf, "block_until_ready"):
            leaf.block_until_ready()
    return x
