"""``irax.Array``: an array on a device (an IREE buffer) or on the host (NumPy data).

Data moves lazily: a jitted result stays on its device until the host reads it
(``np.asarray``, ``repr``, ``.item()``), and a host array is copied to a device only when
a compiled program needs it. Arrays are immutable.

    >>> x = irax.numpy.arange(3.0)
    >>> x + 1
    Array([1., 2., 3.], dtype=float32)

A sharded array (``device_put(x, NamedSharding(...))``, a ``shard_map`` result) keeps one
block per device (``addressable_shards``); the whole array is assembled on the host only
when it is read, or sent whole to a device only when a program there needs it.
"""

from __future__ import annotations

import numpy as np

from irax.core.abstract import ShapedArray
from irax.core.array_methods import ArrayMethods
from irax.core.config import config
from irax.core.dtypes import short_name
from irax.runtime.buffers import to_device, to_host
from irax.runtime.devices import default_device
from irax.runtime.mesh import Shard, SingleDeviceSharding, check_shape, shard_layout

#: the device of ``irax.default_device`` while one is set (else None): host data made then
#: belongs there, as JAX places it at creation (kept by a config listener)
_SCOPED = [None]


def _on_config(name: str) -> None:
    if name == "jax_default_device":
        try:
            _SCOPED[0] = default_device() if config.jax_default_device is not None else None
        except Exception:  # noqa: BLE001 - a platform without devices: raised where used
            _SCOPED[0] = None


config.on_change(_on_config)


class Array(ArrayMethods):
    __slots__ = ("aval", "_host", "_dev", "_device", "_deleted", "_sharding", "_shards",
                 "_home", "__weakref__")
    __array_priority__ = 100

    def __init__(self, *a, **k):
        raise TypeError("irax.Array cannot be constructed directly; use irax.numpy.asarray")

    @classmethod
    def _from_host(cls, data: np.ndarray, aval: ShapedArray, home=None) -> Array:
        """An array of host data; ``home``: the device it is committed to (None:
        uncommitted, on the default device)."""
        self = object.__new__(cls)
        self.aval = aval
        self._host = data
        self._dev = None
        self._device = home if home is not None else _SCOPED[0]
        self._deleted = False
        self._sharding = self._shards = None
        self._home = home
        return self

    @classmethod
    def _from_device(cls, view, aval: ShapedArray, device, committed: bool = False) -> Array:
        """An array backed by an IREE ``HalBufferView`` on ``device`` (``committed``: to
        that device, as ``device_put(x, device)`` and computations on committed arrays
        make them)."""
        self = object.__new__(cls)
        self.aval = aval
        self._host = None
        self._dev = view
        self._device = device
        self._deleted = False
        self._sharding = self._shards = None
        self._home = device if committed else None
        return self

    @classmethod
    def _from_shards(cls, aval: ShapedArray, sharding, shards) -> Array:
        """An array held as ``shards``: one Array per device of ``sharding``, in the order
        of ``shard_layout`` (each the block that device holds)."""
        self = object.__new__(cls)
        self.aval = aval
        self._host = self._dev = self._device = self._home = None
        self._deleted = False
        self._sharding = sharding
        self._shards = tuple(shards)
        return self

    # ---- data movement ------------------------------------------------------------------
    def _check_live(self) -> None:
        if self._deleted:
            raise RuntimeError("Array has been deleted (it was donated to a jitted function "
                               "or deleted with .delete()).")

    def _numpy(self) -> np.ndarray:
        self._check_live()
        if self._host is None and self._shards is not None:
            self._host = self._assemble()
        if self._host is None:
            self._host = to_host(self._device.hal, self._dev, self.aval.shape, self.aval.dtype)
        return self._host

    def _assemble(self) -> np.ndarray:
        out = np.empty(self.aval.shape, self.aval.dtype)
        for (_, index, replica), shard in zip(self._layout(), self._shards):
            if replica == 0:
                out[index] = shard._numpy()
        return out

    def _layout(self) -> list:
        return shard_layout(self._sharding, self.aval.shape)

    def _device_buffer(self, device):
        """The IREE buffer view of this value on ``device`` (copied there if needed)."""
        self._check_live()
        if self._dev is not None and self._device is device:
            return self._dev
        if self._shards is not None and self._host is None:
            for (dev, _, _), shard in zip(self._layout(), self._shards):
                if dev is device and shard.aval.shape == self.aval.shape:
                    return shard._device_buffer(device)   # a whole copy is there
        dev = to_device(device.hal, self._numpy())
        # kept where the array lives: a committed one's device, an uncommitted one's
        # device or else the default device (a copy elsewhere does not move it, as in JAX)
        if self._dev is None and (device is self._home or self._home is None and (
                device is self._device or self._device is None and device is default_device())):
            self._dev, self._device = dev, device
        return dev

    def block_until_ready(self) -> Array:
        self._check_live()
        return self

    def copy_to_host_async(self) -> None:
        self._numpy()

    def delete(self) -> None:
        self._host = None
        self._dev = None
        self._shards = None
        self._deleted = True

    def is_deleted(self) -> bool:
        return self._deleted

    def devices(self) -> set:
        if self._sharding is not None:
            return self._sharding.device_set
        return {self.device}

    @property
    def device(self):
        """The array's device (a sharded array's: its sharding, as in JAX)."""
        if self._sharding is not None:
            return self._sharding
        if self._home is not None:
            return self._home
        return self._device if self._device is not None else default_device()

    @property
    def committed(self) -> bool:
        """Whether the array is committed to its device(s), as in JAX: placed there by
        ``device_put`` with a device or sharding (or ``device=``), sharded, or computed
        from committed arrays. Computations on committed arrays run on their device, and
        arrays committed to different devices cannot meet in one computation;
        uncommitted arrays go where they are used."""
        return self._home is not None or self._sharding is not None

    @property
    def sharding(self):
        if self._sharding is not None:
            return self._sharding
        return SingleDeviceSharding(self.device)

    def shard_list(self) -> list:
        """``[Shard(device, index, replica_id, data)]``: the blocks the devices hold."""
        self._check_live()
        if self._shards is None:
            return [Shard(self.device, (slice(None),) * self.ndim, 0, self)]
        return [Shard(dev, index, rid, data)
                for (dev, index, rid), data in zip(self._layout(), self._shards)]

    # ---- array protocol ----------------------------------------------------------------
    @property
    def nbytes(self) -> int:
        return self.aval.size * self.aval.dtype.itemsize

    @property
    def itemsize(self) -> int:
        return self.aval.dtype.itemsize

    def __array__(self, dtype=None, copy=None):
        data = self._numpy()
        if dtype is not None and np.dtype(dtype) != data.dtype:
            return data.astype(dtype)
        return data.copy() if copy else data

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        """A DLPack capsule of the host copy of the data (``jax.Array.__dlpack__``'s
        keywords; ``stream`` must be None on the CPU)."""
        if stream is not None and stream != -1:
            raise ValueError(f"DLPack stream {stream!r} is not supported for CPU arrays")
        return np.array(self._numpy()).__dlpack__(max_version=max_version,
                                                  dl_device=dl_device, copy=copy)

    def __dlpack_device__(self):
        return (1, 0)

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __bool__(self) -> bool:
        return bool(self._numpy())

    def __int__(self) -> int:
        return int(self._numpy())

    def __float__(self) -> float:
        return float(self._numpy())

    def __complex__(self) -> complex:
        return complex(self._numpy())

    def __index__(self) -> int:
        if self.dtype.kind not in "iub":
            raise TypeError(f"only integer arrays can be used as an index, got {self.dtype}")
        return int(self._numpy())

    def item(self, *args):
        return self._numpy().item(*args)

    def tolist(self):
        return self._numpy().tolist()

    def __hash__(self):
        raise TypeError("unhashable type: 'irax.Array'")

    def __format__(self, spec: str) -> str:
        if self.ndim == 0:
            return format(self._numpy()[()], spec)
        return format(str(self), spec)

    def __str__(self) -> str:
        return str(self._numpy())

    def __repr__(self) -> str:
        self._check_live()
        data = self._numpy()
        prefix = "Array("
        body = np.array2string(data, separator=", ", prefix=prefix)
        dt = short_name(self.dtype)
        extra = ", weak_type=True" if self.weak_type else ""
        return f"{prefix}{body}, dtype={dt}{extra})"

    def __reduce__(self):
        return (_rebuild, (np.array(self._numpy()), self.weak_type))

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self


def committed_device(leaves, fun: str = "", name_of=None):
    """The device the committed single-device arrays among ``leaves`` are on (None when
    none is). Arrays committed to different devices cannot meet in one computation, nor a
    sharded array one committed elsewhere than its devices: the error is JAX's, naming
    ``fun`` and each argument (``name_of(i)``, else ``args[i]``)."""
    home = first = spread = None
    for i, x in enumerate(leaves):
        if type(x) is Array:
            h = x._home
            if h is None:
                if x._shards is not None and spread is None:
                    spread = i
                continue
            if h is not home:
                if home is not None:
                    raise _incompatible(leaves, first, i, fun, name_of)
                home, first = h, i
    if spread is not None:
        devices = leaves[spread]._sharding.device_set
        if home is not None and devices != {home}:
            raise _incompatible(leaves, spread, first, fun, name_of)
        for i in range(spread + 1, len(leaves)):
            x = leaves[i]
            if type(x) is Array and x._shards is not None and \
                    x._sharding.device_set != devices:
                raise _incompatible(leaves, spread, i, fun, name_of)
    return home


def _incompatible(leaves, a: int, b: int, fun: str, name_of) -> ValueError:
    a, b = min(a, b), max(a, b)
    return ValueError("Received incompatible devices for jitted computation. Got "
                      f"{_described(leaves, a, fun, name_of)} and "
                      f"{_described(leaves, b, fun, name_of)}")


def _described(leaves, k: int, fun: str, name_of) -> str:
    x = leaves[k]
    devices = sorted(x.devices(), key=lambda d: d.id)
    name = name_of(k) if name_of is not None else f"args[{k}]"
    return (f"argument {name} of {fun} with shape {x.aval.str_short()} and with device ids "
            f"{[d.id for d in devices]} on platform {devices[0].platform.upper()}")


def committed_to(arrays: list, home) -> list:
    """``arrays`` (new results) committed to ``home``; as they are when it is None."""
    if home is not None:
        for a in arrays:
            if type(a) is Array and a._shards is None:
                a._home = home
    return arrays


def device_buffer(x, aval: ShapedArray, device):
    """The IREE buffer view of argument ``x`` (an Array, or NumPy-convertible data given
    as ``aval``'s dtype) on ``device``."""
    if type(x) is Array:
        return x._device_buffer(device)
    return to_device(device.hal, np.asarray(x, dtype=aval.dtype, order="C"))


def put_sharded(x: Array, sharding, what: str = "", api: str = "device_put") -> Array:
    """``x`` laid out as ``sharding`` (a ``NamedSharding``): each device gets its block
    (``what`` names the array and ``api`` the caller in errors)."""
    check_shape(sharding, x.aval.shape, what, api)
    if x._shards is not None and x._sharding is not None:
        if x._sharding == sharding:
            return x
        if x._sharding.is_equivalent_to(sharding, x.aval.ndim):   # only named otherwise
            return Array._from_shards(x.aval, sharding, x._shards)
    host = x._numpy()
    shards = []
    for dev, index, _ in shard_layout(sharding, x.aval.shape):
        block = np.array(host[index], order="C")   # (0-d stays 0-d)
        shards.append(Array._from_device(to_device(dev.hal, block),
                                         x.aval.update(shape=block.shape), dev, True))
    return Array._from_shards(x.aval, sharding, shards)


def _rebuild(data, weak):
    return Array._from_host(data, ShapedArray(data.shape, data.dtype, weak))

