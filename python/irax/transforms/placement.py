"""Putting values on devices and meshes and getting them back: ``irax.device_put``,
``device_get``, ``block_until_ready``, and the layout of a jit's arguments and results
by shardings (``lay_out``), and JAX 0.10's ``out_sharding=`` keyword of the functions that
make arrays (``takes_out_sharding``).

    x = irax.device_put(np.ones((8, 4)), NamedSharding(mesh, P("x")))   # one block per
    x.addressable_shards                                                 # device of "x"

Inside a trace, laying a value out as a ``NamedSharding`` of several devices records an
``irax.sharding_constraint`` for ``irax-partition``.
"""

from __future__ import annotations

import functools
import inspect

import numpy as np

from irax.core import tree_util
from irax.dialect.sharding import ShardingConstraint
from irax.frontend.eager import concrete_value
from irax.frontend.trace import bind, current_trace
from irax.frontend.tracer import Tracer
from irax.runtime import devices
from irax.runtime import mesh as mesh_lib
from irax.runtime.array import Array, put_sharded
from irax.transforms.layout import ir_mesh, is_placement, note_constraint, placements, sharding_spec


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




def _named(sharding, api: str):
    """A ``PartitionSpec`` as a ``NamedSharding`` over the mesh of ``set_mesh`` (JAX's
    error outside one); anything else as it is."""
    if not isinstance(sharding, mesh_lib.PartitionSpec):
        return sharding
    mesh = mesh_lib.get_mesh()
    if mesh is None:
        raise ValueError(f"{api}: using a PartitionSpec ({sharding}) when you are not under "
                         "a mesh context is not allowed: pass NamedSharding(mesh, spec) or "
                         "enter a mesh context with irax.set_mesh(mesh)")
    return mesh_lib.NamedSharding(mesh, sharding)


def _explicit(sharding, api: str):
    """``sharding`` as a ``NamedSharding`` (``_named``) naming only mesh axes of type
    Explicit, as JAX asks of an ``out_sharding``; anything else is returned as it is."""
    sharding = _named(sharding, api)
    if isinstance(sharding, mesh_lib.NamedSharding):
        types = dict(zip(sharding.mesh.axis_names, sharding.mesh.axis_types))
        for a in sharding.spec.mesh_axes():
            if a in types and types[a] != mesh_lib.AxisType.Explicit:
                raise ValueError(f"PartitionSpec passed to {api} cannot contain axis names "
                                 f"that are of type Auto or Manual. Got PartitionSpec: "
                                 f"{sharding.spec} with axis name: {a} of type: "
                                 f"{types[a]}.")
    return sharding


def out_sharding(x, sharding, api: str, keyword: str = "out_sharding"):
    """``x`` laid out as the ``out_sharding`` given to ``api`` (a ``NamedSharding``, or a
    ``PartitionSpec`` over the mesh of ``set_mesh``); None leaves it where it is. As in
    JAX, the spec may name only mesh axes of type Explicit (``keyword="sharding"``,
    ``lax.full``'s older keyword, takes any)."""
    if sharding is None:
        return x
    if keyword == "out_sharding":
        sharding = _explicit(sharding, api)
    return lay_out(x, sharding, api, keyword)


def reshard(xs, out_shardings):
    """``xs`` (a pytree) laid out as ``out_shardings`` (``jax.sharding.reshard``): a
    ``NamedSharding`` or ``PartitionSpec`` (over the mesh of ``set_mesh``) per leaf, or a
    pytree prefix of ``xs`` of those, naming only mesh axes of type Explicit. Inside a
    trace each value gets a sharding constraint; outside one it is put on the devices."""
    places = placements(xs, out_shardings, "reshard", "xs")
    places = [_explicit(s, "reshard") for s in places]
    leaves, tree = tree_util.tree_flatten(xs)
    return tree_util.tree_unflatten(tree, [
        v if s is None else lay_out(v, s, "reshard", "xs") for v, s in zip(leaves, places)])


def takes_out_sharding(fn, api: str, keyword: str = "out_sharding"):
    """``fn`` with a keyword-only ``out_sharding=None`` (or ``keyword``) as JAX 0.10's
    array-making functions have: its result laid out so (``out_sharding``), the values
    unchanged. ``api`` names the function in errors (``"jnp.zeros"``)."""
    sig = inspect.signature(fn)
    params = list(sig.parameters.values())
    at = next((i for i, p in enumerate(params) if p.kind is p.VAR_KEYWORD), len(params))
    params.insert(at, inspect.Parameter(keyword, inspect.Parameter.KEYWORD_ONLY,
                                        default=None))

    @functools.wraps(fn)
    def with_out_sharding(*args, **kwargs):
        sharding = kwargs.pop(keyword, None)
        result = fn(*args, **kwargs)
        return result if sharding is None else out_sharding(result, sharding, api, keyword)

    with_out_sharding.__signature__ = sig.replace(parameters=params)
    return with_out_sharding


def add_out_sharding(namespace: dict, prefix: str, names, keyword: str = "out_sharding"):
    """Gives the functions ``names`` of a module's ``namespace`` (its ``globals()``) the
    keyword (``takes_out_sharding``), naming them ``prefix.name`` in errors."""
    for name in names:
        namespace[name] = takes_out_sharding(namespace[name], f"{prefix}.{name}", keyword)


def device_put(x, device=None, *, src=None, donate: bool = False, may_alias=None):
    """Copies a pytree of arrays to ``device``, or lays it out as a sharding: a
    ``NamedSharding`` (one block per device), a ``PartitionSpec`` over the mesh of
    ``set_mesh``, or a pytree of those matching ``x``. As in JAX, what it places on a
    device or sharding is committed there (``Array.committed``); with no device, a
    committed array stays where it is and anything else goes, uncommitted, to the default
    device. ``src`` (where ``x`` is: JAX's hint for transfers between processes) is not
    needed in irax's one process: an array knows its devices."""
    del src
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
    device = _named(device, api)
    trace = current_trace()
    if isinstance(leaf, Tracer) or (trace is not None and _several(device)):
        # a layout inside a trace (of a traced value, or of a constant made there): a
        # constraint for irax-partition
        if isinstance(device, mesh_lib.NamedSharding):
            aval = leaf.aval if isinstance(leaf, Tracer) else concrete_value(leaf)[1]
            mesh_lib.check_shape(device, aval.shape, what, api)
            if device.mesh.size > 1:
                m = ir_mesh(device.mesh)
                note_constraint(device.mesh)
                attrs = dict(sharding=sharding_spec(device), mesh_axes=m.axes,
                             mesh_shape=m.shape, devices=m.devices)
                if isinstance(leaf, Tracer):
                    return bind(ShardingConstraint, leaf, **attrs)
                return trace.emit(ShardingConstraint, [leaf], attrs)[0]
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


def _several(device) -> bool:
    return isinstance(device, mesh_lib.NamedSharding) and device.mesh.size > 1


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
