"""Meshes and shardings (``jax.sharding``): how an array's elements sit on devices.

A ``Mesh`` arranges devices in an n-dimensional grid with named axes; a ``PartitionSpec``
says, per array dimension, which mesh axes split it (None: not split); a ``NamedSharding``
pairs the two. Mesh axes a spec does not name hold copies (replicas).

    mesh = irax.make_mesh((2, 2), ("x", "y"))          # 4 devices
    s = NamedSharding(mesh, P("x", None))              # rows split over x, copied over y
    s.devices_indices_map((4, 4))[irax.devices()[2]]   # (slice(2, 4), slice(None))
    x = irax.device_put(jnp.ones((4, 4)), s)           # one 2x4 block per device

Errors say what JAX says: a spec naming an axis the mesh lacks, or the same axis twice,
fails when the sharding is made; a spec longer than the array's rank or a dimension its
axes do not divide fails where the sharding meets the array.
"""

from __future__ import annotations

import contextlib
import enum
import math
import threading
from collections import OrderedDict

import numpy as np

from irax.runtime import devices as _devices


class AxisType(enum.Enum):
    """How a mesh axis is used (``jax.sharding.AxisType``). irax keeps the label; every
    kind partitions the same way."""

    Auto = enum.auto()
    Explicit = enum.auto()
    Manual = enum.auto()

    def __repr__(self) -> str:
        return self.name


class IndivisibleError(ValueError):
    """A dimension its mesh axes do not divide (``device_put`` of a sharding)."""


class DuplicateSpecError(ValueError):
    """A spec maps one mesh axis to two dimensions (JAX's ``DuplicateSpecError``)."""


class PartitionSpec:
    """Per array dimension: None (not split), a mesh axis name, or a tuple of names (split
    over all of them, the first varying slowest). Dimensions past the end are not split."""

    __slots__ = ("_partitions", "unreduced", "reduced")

    def __init__(self, *partitions, unreduced=frozenset(), reduced=frozenset()):
        parts = []
        for p in partitions:
            if isinstance(p, list):
                p = tuple(p)
            if isinstance(p, tuple):
                p = tuple(p)
                if len(p) == 1:
                    p = p[0]
                elif not p:
                    p = None
            if p is not None and not isinstance(p, (str, tuple)):
                raise TypeError(f"PartitionSpec entries must be None, a mesh axis name or a "
                                f"tuple of names, got {p!r}")
            parts.append(p)
        self._partitions = tuple(parts)
        self.unreduced = frozenset(unreduced)
        self.reduced = frozenset(reduced)

    def __len__(self) -> int:
        return len(self._partitions)

    def __getitem__(self, i):
        return self._partitions[i]

    def __iter__(self):
        return iter(self._partitions)

    def __eq__(self, other):
        if not isinstance(other, PartitionSpec):   # as in JAX: never equal to a tuple
            return NotImplemented
        return self._partitions == other._partitions and \
            self.unreduced == other.unreduced and self.reduced == other.reduced

    def __hash__(self):
        return hash((self._partitions, self.unreduced, self.reduced))

    def __repr__(self) -> str:
        body = repr(self._partitions)[1:-1]    # JAX prints P('x',) for one entry
        if self.unreduced:
            body += (", " if body else "") + f"unreduced={set(sorted(self.unreduced))!r}"
        return f"P({body})"

    __str__ = __repr__

    def __reduce__(self):
        return (PartitionSpec, self._partitions)

    def axes_of(self, dim: int) -> tuple:
        """The mesh axes that split dimension ``dim`` (empty when none)."""
        if dim >= len(self._partitions) or self._partitions[dim] is None:
            return ()
        p = self._partitions[dim]
        return p if isinstance(p, tuple) else (p,)

    def mesh_axes(self) -> tuple:
        """Every mesh axis the spec names, in order."""
        return tuple(a for d in range(len(self)) for a in self.axes_of(d))


P = PartitionSpec


class Mesh:
    """Devices in a grid with named axes (``jax.sharding.Mesh``); a context manager that
    makes itself the mesh of the enclosed code (as ``set_mesh``)."""

    def __init__(self, devices, axis_names, axis_types=None):
        devs = np.asarray(devices, dtype=object)
        names = (axis_names,) if isinstance(axis_names, str) else tuple(axis_names)
        if devs.ndim != len(names):
            raise ValueError(f"Mesh requires the ndim of its first argument (`devices`) to "
                             f"equal the length of its second argument (`axis_names`), but "
                             f"got devices.ndim == {devs.ndim} and len(axis_names) == "
                             f"{len(names)}.")
        if len(set(names)) != len(names):
            raise ValueError(f"Mesh axis names must be unique, got {names}")
        if not all(isinstance(d, _devices.Device) for d in devs.flat):
            raise TypeError("Mesh devices must be irax devices (irax.devices()), got "
                            f"{[type(d).__name__ for d in devs.flat][:4]}")
        if len(set(devs.flat)) != devs.size:
            raise ValueError(f"Mesh devices must be distinct, got {list(devs.flat)}")
        if axis_types is None:
            axis_types = (AxisType.Auto,) * len(names)
        elif isinstance(axis_types, AxisType):
            axis_types = (axis_types,) * len(names)
        axis_types = tuple(axis_types)
        if len(axis_types) != len(names):
            raise ValueError(f"Number of axis names should match the number of axis_types. "
                             f"Got axis_names={names} and axis_types={axis_types}")
        self.devices = devs
        self.axis_names = names
        self.axis_types = axis_types
        self._prev = []

    @property
    def shape(self) -> OrderedDict:
        return OrderedDict(zip(self.axis_names, self.devices.shape))

    @property
    def axis_sizes(self) -> tuple:
        return tuple(self.devices.shape)

    @property
    def shape_tuple(self) -> tuple:
        return tuple(zip(self.axis_names, self.devices.shape))

    @property
    def size(self) -> int:
        return int(self.devices.size)

    @property
    def empty(self) -> bool:
        return self.devices.size == 0

    @property
    def device_ids(self) -> np.ndarray:
        return np.vectorize(lambda d: d.id, otypes=[int])(self.devices)

    @property
    def local_devices(self) -> list:
        return list(self.devices.flat)

    def _key(self):
        return (tuple(self.devices.flat), self.devices.shape, self.axis_names, self.axis_types)

    def __eq__(self, other):
        return isinstance(other, Mesh) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def __repr__(self) -> str:
        return (f"Mesh(axis_sizes={self.axis_sizes}, axis_names={self.axis_names}, "
                f"axis_types={self._types()})")

    def __str__(self) -> str:
        return self._short()

    def _short(self) -> str:
        axes = ", ".join(f"{n!r}: {s}" for n, s in self.shape.items())
        return f"Mesh({axes}, axis_types={self._types()})"

    def _types(self) -> str:
        return repr(self.axis_types)   # (Auto,) or (Explicit, Explicit): AxisType's repr

    def __enter__(self):
        self._prev.append(_current.mesh)
        _current.mesh = self
        return self

    def __exit__(self, *exc):
        _current.mesh = self._prev.pop()
        return False

    def coords(self):
        """``(coordinate tuple, device)`` for every device, in row-major order."""
        return [(c, self.devices[c]) for c in np.ndindex(*self.devices.shape)]


class _Current(threading.local):
    mesh = None


_current = _Current()


def get_mesh():
    """The mesh set by ``set_mesh`` or an enclosing ``with mesh:`` (None when none)."""
    return _current.mesh


class set_mesh(contextlib.ContextDecorator):
    """Makes ``mesh`` the current mesh (``jax.set_mesh``): at once, and back to the previous
    one when used as a context manager and the block ends."""

    def __init__(self, mesh):
        if mesh is not None and not isinstance(mesh, Mesh):
            raise TypeError(f"set_mesh expected a Mesh, got {type(mesh).__name__}")
        self.prev = _current.mesh
        _current.mesh = mesh

    def __enter__(self):
        return _current.mesh

    def __exit__(self, *exc):
        _current.mesh = self.prev
        return False


def make_mesh(axis_shapes, axis_names, axis_types=None, *, devices=None) -> Mesh:
    """A mesh of ``axis_shapes`` over the first devices (``jax.make_mesh``; axes are
    Explicit unless ``axis_types`` says otherwise)."""
    shape = tuple(int(s) for s in axis_shapes)
    names = (axis_names,) if isinstance(axis_names, str) else tuple(axis_names)
    if len(shape) != len(names):
        raise ValueError(f"make_mesh: axis_shapes {shape} and axis_names {names} must have "
                         "the same length")
    devs = list(devices) if devices is not None else _devices.devices()
    n = math.prod(shape)
    if n > len(devs) or (devices is not None and n != len(devs)):
        need = "equal" if devices is not None else "be >="
        raise ValueError(f"Number of devices {len(devs)} must {need} the product of "
                         f"mesh_shape {shape} (irax.config.update('jax_num_cpu_devices', "
                         f"{n}) creates {n} CPU devices)")
    if axis_types is None:
        axis_types = (AxisType.Explicit,) * len(names)
    grid = np.empty(n, dtype=object)
    grid[:] = devs[:n]
    return Mesh(grid.reshape(shape), names, axis_types)


class Sharding:
    """Base of the shardings: which block of an array each device holds."""

    memory_kind = "device"

    def devices_indices_map(self, shape) -> dict:
        raise NotImplementedError

    def shard_shape(self, shape) -> tuple:
        raise NotImplementedError

    def is_equivalent_to(self, other, ndim: int) -> bool:
        """Whether ``other`` puts the same blocks of an ``ndim``-dimensional array on the
        same devices (``jax.sharding.Sharding.is_equivalent_to``): ``P("x")`` and
        ``P("x", None)`` of one mesh are."""
        if not isinstance(other, Sharding) or other.memory_kind != self.memory_kind or \
                other.device_set != self.device_set:
            return False
        shape = (len(self.device_set),) * ndim   # every split of these devices divides it
        return self.devices_indices_map(shape) == other.devices_indices_map(shape)

    @property
    def addressable_devices(self) -> set:
        return self.device_set

    @property
    def is_fully_addressable(self) -> bool:
        return True


class SingleDeviceSharding(Sharding):
    """The whole array on one device (``jax.sharding.SingleDeviceSharding``)."""

    def __init__(self, device, *, memory_kind=None):
        self._device = device

    @property
    def device_set(self) -> set:
        return {self._device}

    @property
    def num_devices(self) -> int:
        return 1

    @property
    def is_fully_replicated(self) -> bool:
        return True

    def devices_indices_map(self, shape) -> dict:
        return {self._device: (slice(None),) * len(shape)}

    def shard_shape(self, shape) -> tuple:
        return tuple(shape)

    def __eq__(self, other):
        return isinstance(other, SingleDeviceSharding) and self._device == other._device

    def __hash__(self):
        return hash(("single", self._device))

    def __repr__(self) -> str:
        return f"SingleDeviceSharding(device={self._device!r}, memory_kind=device)"


class NamedSharding(Sharding):
    """An array split over a mesh by a ``PartitionSpec`` (``jax.sharding.NamedSharding``)."""

    def __init__(self, mesh, spec, *, memory_kind=None):
        if not isinstance(mesh, Mesh):
            raise TypeError(f"NamedSharding expected a Mesh, got {type(mesh).__name__}")
        if not isinstance(spec, PartitionSpec):
            if isinstance(spec, (tuple, list)) or spec is None:
                spec = PartitionSpec(*(spec or ()))
            else:
                raise TypeError(f"NamedSharding expected a PartitionSpec, got {spec!r}")
        if memory_kind not in (None, "device"):
            raise ValueError(f"NamedSharding: irax supports memory_kind 'device' only, got "
                             f"{memory_kind!r}")
        check_spec(mesh, spec)
        self.mesh = mesh
        self.spec = spec

    @property
    def device_set(self) -> set:
        return set(self.mesh.devices.flat)

    @property
    def num_devices(self) -> int:
        return self.mesh.size

    @property
    def is_fully_replicated(self) -> bool:
        return all(self.mesh.shape[a] == 1 for a in self.spec.mesh_axes())

    def shard_shape(self, shape) -> tuple:
        check_shape(self, shape)
        return tuple(n // self.splits(d) for d, n in enumerate(shape))

    def splits(self, dim: int) -> int:
        """Into how many blocks dimension ``dim`` is split."""
        return math.prod(self.mesh.shape[a] for a in self.spec.axes_of(dim))

    def block_coords(self, coords) -> tuple:
        """For the device at mesh ``coords``, the block number along each spec dimension."""
        pos = dict(zip(self.mesh.axis_names, coords))
        out = []
        for d in range(len(self.spec)):
            k = 0
            for a in self.spec.axes_of(d):
                k = k * self.mesh.shape[a] + pos[a]
            out.append(k)
        return tuple(out)

    def is_equivalent_to(self, other, ndim: int) -> bool:
        if len(self.spec) > ndim or (isinstance(other, NamedSharding) and (
                len(other.spec) > ndim or (self.spec.unreduced, self.spec.reduced) !=
                (other.spec.unreduced, other.spec.reduced))):
            return False
        return super().is_equivalent_to(other, ndim)

    def devices_indices_map(self, shape) -> dict:
        block = self.shard_shape(shape)
        out = {}
        for coords, dev in self.mesh.coords():
            ks = self.block_coords(coords)
            index = []
            for d in range(len(shape)):
                if d < len(ks) and self.splits(d) > 1:
                    index.append(slice(ks[d] * block[d], (ks[d] + 1) * block[d]))
                else:
                    index.append(slice(None))
            out[dev] = tuple(index)
        return out

    def __eq__(self, other):
        return isinstance(other, NamedSharding) and self.mesh == other.mesh and \
            self.spec == other.spec

    def __hash__(self):
        return hash((self.mesh, self.spec))

    def __repr__(self) -> str:
        return f"NamedSharding(mesh={self.mesh._short()}, spec={self.spec!r}, " \
               "memory_kind=device)"


def check_spec(mesh: Mesh, spec: PartitionSpec) -> None:
    """JAX's errors for a spec naming an axis the mesh lacks, or one axis twice."""
    seen = set()
    for a in spec.mesh_axes():
        if a not in mesh.shape:
            raise ValueError(f"Resource axis: {a} of {spec} is not found in mesh: "
                             f"{mesh.axis_names}.")
        if a in seen:
            raise DuplicateSpecError(
                f"A single NamedSharding spec specification can map every mesh axis to at "
                f"most one positional dimension, but {spec} has duplicate entries for `{a}`")
        seen.add(a)


def check_shape(sharding: NamedSharding, shape, what: str = "",
                api: str = "device_put") -> None:
    """Errors for a spec longer than the rank, or a dimension its axes do not divide
    (``what`` names the array in the message)."""
    spec = sharding.spec
    where = f" ({what})" if what else ""
    if len(spec) > len(shape):
        raise ValueError(f"One of {api} args{where} is incompatible with its sharding "
                         f"annotation {sharding}: Sharding {sharding} is only valid for "
                         f"values of rank at least {len(spec)}, but was applied to a value "
                         f"of rank {len(shape)}.")
    tiling = [sharding.splits(d) for d in range(len(shape))]
    for d, n in enumerate(shape):
        if n % tiling[d]:
            raise IndivisibleError(
                f"Sharding {sharding} implies that array axis {d} is partitioned "
                f"{tiling[d]} times, but the dimension size is {n}{where} (full shape: "
                f"{tuple(shape)}, per-dimension tiling factors: {tiling} should evenly "
                f"divide the shape)")


class Shard:
    """One device's block of a sharded array (``jax.Shard``)."""

    __slots__ = ("device", "index", "replica_id", "data")

    def __init__(self, device, index, replica_id, data):
        self.device, self.index, self.replica_id, self.data = device, index, replica_id, data

    def __repr__(self) -> str:
        return (f"Shard(device={self.device!r}, index={self.index}, "
                f"replica_id={self.replica_id}, data={self.data})")


def shard_layout(sharding, shape) -> list:
    """``(device, index, replica_id)`` for each device of ``sharding``, in mesh order."""
    seen: dict = {}
    out = []
    for dev, index in sharding.devices_indices_map(shape).items():
        key = tuple((s.start, s.stop) for s in index)
        rid = seen.get(key, 0)
        seen[key] = rid + 1
        out.append((dev, index, rid))
    return out
