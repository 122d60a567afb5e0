"""Building a sharded array from its blocks, as multi-device input pipelines do
(``jax.make_array_from_callback`` and friends):

    s = NamedSharding(mesh, P("x"))
    a = irax.make_array_from_callback((8, 3), s, lambda index: data[index])
    b = irax.make_array_from_single_device_arrays((8, 3), s, per_device_blocks)
    c = irax.make_array_from_process_local_data(s, data)   # one process: all of it

Each device's block goes straight to that device; the whole array is never assembled.
The results are committed to the sharding's devices. irax runs as one process, so
``process_count()`` is 1 and every device is addressable.
"""

from __future__ import annotations

import gc

import numpy as np

from irax.core import dtypes
from irax.core.abstract import ShapedArray
from irax.runtime import mesh as mesh_lib
from irax.runtime.array import Array
from irax.runtime.buffers import to_device


def _shape(shape, api: str) -> tuple:
    try:
        return tuple(int(d) for d in shape)
    except TypeError:
        raise TypeError(f"{api}: shape must be a sequence of ints, got {shape!r}") from None


def _layout(shape, sharding, api: str) -> list:
    """``(device, index, replica id)`` per device of ``sharding`` for an array of
    ``shape`` (checked as JAX checks it)."""
    if isinstance(sharding, mesh_lib.SingleDeviceSharding):
        return [(sharding._device, (slice(None),) * len(shape), 0)]
    if not isinstance(sharding, mesh_lib.NamedSharding):
        raise TypeError(f"{api}: expected a NamedSharding or SingleDeviceSharding, got "
                        f"{sharding!r}")
    mesh_lib.check_shape(sharding, shape, "", api)
    return mesh_lib.shard_layout(sharding, shape)


def _block_shape(shape, index) -> tuple:
    return tuple(len(range(*s.indices(n))) for s, n in zip(index, shape))


def _mismatch(expected, got, dtype, shape, sharding) -> ValueError:
    return ValueError(f"Expected shard shape {expected} doesn't match the single device "
                      f"array shape {got}. Shape of Array is "
                      f"{ShapedArray(shape, dtype).str_short()} with sharding {sharding}")


def _assemble(shape, sharding, dtype, blocks) -> Array:
    """The array of ``shape`` whose device blocks are ``blocks`` (per ``_layout`` entry,
    already on their devices)."""
    aval = ShapedArray(shape, dtype)
    if isinstance(sharding, mesh_lib.SingleDeviceSharding):
        return blocks[0]
    return Array._from_shards(aval, sharding, blocks)


def make_array_from_callback(shape, sharding, data_callback, dtype=None) -> Array:
    """The array of ``shape`` laid out as ``sharding`` whose device blocks are
    ``data_callback(index)`` (``index``: a tuple of slices, the block's place in the
    whole array), called once per device and each put straight on its device."""
    api = "make_array_from_callback"
    shape = _shape(shape, api)
    layout = _layout(shape, sharding, api)
    replicated = getattr(sharding, "is_fully_replicated", False)
    blocks, data = [], None
    for dev, index, _ in layout:
        if data is None or not replicated:   # (a replicated array: one call, as JAX)
            data = np.asarray(data_callback(index))
            got = dtypes.canonicalize_dtype(data.dtype)
            if dtype is not None and np.dtype(dtype) != got:
                raise ValueError(f"If `dtype` is provided to `irax.{api}`, it must match the "
                                 f"dtype of the addressable shards. Got dtype="
                                 f"{np.dtype(dtype)} and shard dtype={got}`.")
            data = np.ascontiguousarray(data, dtype=got)
            expected = _block_shape(shape, index)
            if data.shape != expected:
                raise _mismatch(expected, data.shape, got, shape, sharding)
        blocks.append(Array._from_device(to_device(dev.hal, data),
                                         ShapedArray(expected, data.dtype), dev, True))
    return _assemble(shape, sharding, blocks[0].aval.dtype, blocks)


def make_array_from_single_device_arrays(shape, sharding, arrays, *, dtype=None) -> Array:
    """The array of ``shape`` laid out as ``sharding`` from one single-device array per
    device of the sharding, each that device's block (matched to the devices by where
    the arrays are; a block on another device is copied there)."""
    api = "make_array_from_single_device_arrays"
    shape = _shape(shape, api)
    layout = _layout(shape, sharding, api)
    arrays = list(arrays)
    if len(arrays) != len(layout):
        raise ValueError(f"Expected {len(layout)} per-device arrays (this is how many devices "
                         f"are addressable by the sharding), but got {len(arrays)}")
    by_device: dict = {}
    for a in arrays:
        if not isinstance(a, Array) or a._shards is not None:
            raise TypeError(f"{api}: expected single-device irax arrays, got {a!r}")
        by_device.setdefault(a.device, a)
    want = np.dtype(dtype) if dtype is not None else arrays[0].aval.dtype
    blocks = []
    for k, (dev, index, _) in enumerate(layout):
        a = by_device.get(dev, arrays[k])   # (in the sharding's order otherwise)
        expected = _block_shape(shape, index)
        if a.aval.shape != expected:
            raise _mismatch(expected, a.aval.shape, want, shape, sharding)
        if a.aval.dtype != want:
            raise ValueError(f"{api}: the arrays must have dtype {want}, got {a.aval.dtype}")
        blocks.append(Array._from_device(a._device_buffer(dev), a.aval.update(weak_type=False),
                                         dev, True))
    return _assemble(shape, sharding, want, blocks)


def make_array_from_process_local_data(sharding, local_data, global_shape=None) -> Array:
    """The array laid out as ``sharding`` from this process's data: with one process,
    all of it (``global_shape``, when given, must be its shape)."""
    data = np.asarray(local_data)
    if global_shape is not None and tuple(global_shape) != data.shape:
        raise ValueError(f"make_array_from_process_local_data: with one process the local "
                         f"data is the whole array: global_shape {tuple(global_shape)} must "
                         f"be its shape {data.shape}")
    return make_array_from_callback(data.shape, sharding, lambda index: data[index])


def process_count(backend=None) -> int:
    """The number of processes: irax runs as one."""
    return 1


def process_index(backend=None) -> int:
    """This process's index: 0 (irax runs as one process)."""
    return 0


def process_indices(backend=None) -> list:
    return [0]


def live_arrays(platform=None) -> list:
    """The irax arrays alive (not deleted), on ``platform``'s devices when given."""
    out = []
    for obj in gc.get_objects():
        if type(obj) is Array and not obj._deleted and (
                platform is None or any(d.platform == platform for d in obj.devices())):
            out.append(obj)
    return out
