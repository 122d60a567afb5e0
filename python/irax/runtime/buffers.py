"""Device buffers without wrappers: NumPy data to an IREE ``HalBufferView`` and back.

The jit hot path moves only buffer views: no per-call ``DeviceArray`` objects. On CPU a
view is mapped into NumPy without a copy; the NumPy array keeps the mapping (and the
view) alive through its base object.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from irax.runtime import hugepages
from irax.runtime.devices import is_cpu, runtime


@functools.cache
def _element_type(dtype: np.dtype):
    rt = runtime()
    et = rt.array_interop.map_dtype_to_element_type(dtype)
    if et is None:
        raise TypeError(
            f"irax: arrays of dtype {dtype} cannot enter or leave compiled code: the IREE "
            "runtime has no element type for it (such arrays work eagerly; convert them with "
            ".astype to a supported dtype before jit)")
    return et


@functools.cache
def _bits_dtype(dtype: np.dtype):
    """The unsigned integers a mapped buffer of ``dtype`` is read as: bfloat16 and the
    float8s come back as their bits (for some, float8_e5m2, the IREE runtime's own dtype
    is one NumPy cannot read: '<f1'); None for NumPy's own dtypes."""
    if dtype.type.__module__.startswith("ml_dtypes"):
        return np.dtype(f"u{dtype.itemsize}")
    return None


def to_device(hal_device, data: np.ndarray):
    """A new device buffer holding a copy of ``data``."""
    rt = runtime()
    data = np.asarray(data, order="C")
    if hugepages.wanted(data.nbytes) and is_cpu(hal_device):
        return hugepages.upload(rt, hal_device, data, _element_type(data.dtype))
    return hal_device.allocator.allocate_buffer_copy(
        memory_type=rt.MemoryType.DEVICE_LOCAL, allowed_usage=rt.BufferUsage.DEFAULT,
        device=hal_device, buffer=data, element_type=_element_type(data.dtype))


def empty(hal_device, shape, dtype: np.dtype):
    """A new device buffer view of ``shape`` and ``dtype``, never written (a program's
    output storage: ``passes/output_storage.py``)."""
    rt = runtime()
    buffer = hal_device.allocator.allocate_buffer(
        memory_type=rt.MemoryType.DEVICE_LOCAL, allowed_usage=rt.BufferUsage.DEFAULT,
        allocation_size=math.prod(shape) * dtype.itemsize)
    return rt.HalBufferView(buffer, shape, _element_type(dtype))


class _KeepAlive:
    """An array interface whose owners (mapping and view) outlive every NumPy view."""

    __slots__ = ("__array_interface__", "_owners")

    def __init__(self, view: np.ndarray, *owners):
        self._owners = (view, *owners)
        self.__array_interface__ = view.__array_interface__


def to_host(hal_device, view, shape, dtype) -> np.ndarray:
    """The contents of a device buffer as a read-only NumPy array (mapped when possible)."""
    rt = runtime()
    buf = view.get_buffer()
    mappable = (buf.memory_type() & int(rt.MemoryType.HOST_VISIBLE)) and \
               (buf.allowed_usage() & int(rt.BufferUsage.MAPPING_SCOPED))
    if mappable:
        mapping = view.map()
        raw = _bits_dtype(np.dtype(dtype))
        if raw is None:
            raw = rt.HalElementType.map_to_dtype(view.element_type)
        flat = mapping.asarray(view.shape, raw)
        host = np.asarray(_KeepAlive(flat, mapping, view))
    else:
        host = np.asarray(rt.DeviceArray(hal_device, view, override_dtype=dtype).to_host())
    if host.dtype != dtype:  # bf16, fp8 and bool come back as raw integers or 'V' data
        host = host.view(dtype) if host.dtype.itemsize == np.dtype(dtype).itemsize else \
            host.astype(dtype)
    host = host.reshape(shape)
    host.flags.writeable = False
    return host
