"""IREE devices as irax ``Device`` objects (``irax.devices()``, ``Array.devices()``).

The IREE runtime is imported on first use. ``irax.config.update("jax_num_cpu_devices",
N)`` creates N distinct local devices.

A CPU device holds up to two IREE devices over the same host memory: a ``local-sync``
one, which runs a program on the calling thread (the cheapest call: no thread hand-off),
and, created when first needed, a ``local-task`` one, which spreads a program's work over
IREE's thread pool. Buffers of either are valid for both. Under ``irax_cpu_driver="auto"``
(the default) each program picks (``Device.hal_for``); ``"local-sync"`` or
``"local-task"`` sends every program to one. Both allocate through IREE's caching
allocator (``irax_cpu_allocator``), so that a program called again reuses the memory of
the results it returned before instead of faulting in fresh pages.
"""

from __future__ import annotations

import os
import threading

from irax.core.config import config
from irax.runtime import hugepages

_PLATFORM_DRIVERS = {"cpu": "local-task", "cuda": "cuda", "vulkan": "vulkan", "rocm": "hip"}
#: platform names jax_platforms may use for others (JAX's aliases)
_ALIASES = {"gpu": ("cuda", "rocm"), "hip": ("rocm",)}
_state: dict = {}
_drivers: dict = {}
#: guards the lazy creation of the instance, drivers and devices (reentrant: creating
#: devices creates the driver)
_lock = threading.RLock()


class Device:
    """One device: a platform name, an id, and the IREE HAL device behind it."""

    def __init__(self, platform: str, id: int, hal_device, driver_name: str,
                 threads_factory=None):
        self.platform = platform
        self.id = id
        #: the HAL device arrays on this device are allocated by (and read back through)
        self.hal = hal_device
        self.driver = driver_name
        self.device_kind = {"cpu": "cpu", "cuda": "gpu", "vulkan": "gpu"}.get(platform, platform)
        self.process_index = 0
        self._threads_factory = threads_factory
        self._threads = None

    def hal_for(self, threads: bool):
        """The HAL device a program runs on: the thread-pool one when ``threads`` and this
        device has one (a CPU device under ``irax_cpu_driver="auto"``), else ``hal``."""
        if not threads or self._threads_factory is None:
            return self.hal
        hal = self._threads
        if hal is None:
            with _lock:
                if self._threads is None:
                    self._threads = self._threads_factory()
                hal = self._threads
        return hal

    def pooled(self, threads: bool) -> bool:
        """Whether a program run with ``threads`` runs on IREE's CPU thread pool."""
        return self.platform == "cpu" and (
            self.driver == "local-task" or (threads and self._threads_factory is not None))

    def hal_devices(self) -> list:
        """Every HAL device created for this device."""
        return [self.hal] + ([self._threads] if self._threads is not None else [])

    def __repr__(self) -> str:
        kind = "CpuDevice" if self.platform == "cpu" else f"{self.platform.capitalize()}Device"
        return f"{kind}(id={self.id})"

    def __hash__(self):
        return hash((self.platform, self.id))

    def __eq__(self, other):
        return isinstance(other, Device) and (self.platform, self.id) == (other.platform, other.id)


def runtime():
    import iree.runtime as rt  # import cost: IREE loads on first use

    return rt


def instance():
    inst = _state.get("instance")
    if inst is None:
        with _lock:
            inst = _state.get("instance")
            if inst is None:
                inst = _state["instance"] = runtime().VmInstance()
    return inst


def _available_platforms() -> list[str]:
    requested = config.jax_platforms
    if not requested:
        return ["cpu"]
    out = []
    for p in requested.split(","):
        p = p.strip()
        out.extend(_ALIASES.get(p, (p,)) if p else ())
    return out


def task_flags() -> list[str]:
    """IREE runtime flags of the CPU thread pool, from ``irax_cpu_threads`` and
    ``irax_cpu_pin_threads``; IREE reads them when the ``local-task`` driver is created,
    once per process.

    IREE's own topology pins one worker to each physical core. A worker pinned to a core
    that another thread wants (the Python thread between dispatches, a background compile,
    another library's pool) waits for that core while its share of the dispatch holds up
    the next barrier, although the other core may be idle: on a 2-core machine the MLP
    training step took 5.7-6.0 ms pinned and 4.6-5.1 ms unpinned (docs/performance.md,
    "Unpinned workers"). Unpinned workers (``--task_topology_group_count``) are placed by
    the operating system."""
    if config.irax_cpu_pin_threads:
        return []
    n = config.irax_cpu_threads or available_cpus()
    return [f"--task_topology_group_count={min(n, MAX_WORKERS)}"]


#: the most workers IREE 3.13's task system takes (--task_topology_max_group_count)
MAX_WORKERS = 64


def available_cpus() -> int:
    """The CPUs this process may run on (its affinity mask, not the machine's count)."""
    try:
        return max(len(os.sched_getaffinity(0)), 1)
    except (AttributeError, OSError):  # not on Linux
        return os.cpu_count() or 1


def _driver(name: str):
    drv = _drivers.get(name)
    if drv is None:
        if name == "local-task":
            flags = task_flags()
            if flags:
                runtime().flags.parse_flags(*flags)
        drv = _drivers[name] = runtime().get_driver(name)
    return drv


def devices(backend: str | None = None) -> list[Device]:
    """Devices of ``backend`` (default: the first available platform)."""
    platform = backend or default_backend()
    if platform not in _PLATFORM_DRIVERS:
        raise RuntimeError(f"irax.devices: unknown backend {platform!r}; expected one of "
                           f"{sorted(_PLATFORM_DRIVERS)}")
    n = config.jax_num_cpu_devices if platform == "cpu" else None
    key = (platform, n, config.irax_cpu_driver if platform == "cpu" else None)
    cached = _state.get(key)
    if cached is not None:
        return cached
    with _lock:  # created once, whatever the number of threads asking
        cached = _state.get(key)
        if cached is None:
            cached = _state[key] = _create(platform, n)
    return cached


#: how many free buffers a CPU device's caching allocator keeps for reuse at most
CACHED_BUFFERS = 1024


def cpu_allocators() -> list[str] | None:
    """The IREE allocator specs of new CPU devices (``irax_cpu_allocator``)."""
    kind = config.irax_cpu_allocator
    if kind == "system":
        return None
    if kind != "caching":
        raise RuntimeError(f"irax.devices: irax_cpu_allocator must be 'caching' or 'system', "
                           f"got {kind!r}")
    cap = config.irax_cpu_allocator_cache_bytes
    if not cap:
        return None
    # one pool over the CPU's only heap: any size, at most `cap` bytes live and free
    # together, at most 1024 free buffers remembered (with 64, a process that had freed 64
    # buffers of other sizes, a test module of convolutions, stopped caching: a freed
    # 64 MB result went back to the system and every call faulted its pages in again)
    return [f"caching:*=*;{cap};{CACHED_BUFFERS}"]


#: the HAL devices of CPU devices (host memory: buffers may be mapped and advised)
_CPU_HALS: set = set()


def is_cpu(hal_device) -> bool:
    """Whether ``hal_device`` is one of the CPU devices' (its buffers are host memory)."""
    return id(hal_device) in _CPU_HALS


def _cpu_device(drv_name: str, first: bool):
    drv = _driver(drv_name)
    allocators = cpu_allocators()
    if first:
        hal = drv.create_default_device(allocators=allocators)
    else:
        hal = drv.create_device_by_uri(drv_name, allocators=allocators)
    _CPU_HALS.add(id(hal))   # (devices live as long as the process)
    return hal


def _create(platform: str, n) -> list[Device]:
    drv_name = _PLATFORM_DRIVERS[platform]
    if platform == "cpu":
        drv_name = config.irax_cpu_driver
        if drv_name not in ("auto", "local-sync", "local-task"):
            raise RuntimeError(f"irax.devices: irax_cpu_driver must be 'auto', 'local-sync' "
                               f"or 'local-task', got {drv_name!r}")
    try:
        _driver("local-sync" if drv_name == "auto" else drv_name)
    except Exception as e:  # noqa: BLE001 - IREE raises plain exceptions for missing drivers
        raise RuntimeError(f"irax.devices: backend {platform!r} is not available: {e}") from None
    if platform == "cpu":
        home = "local-sync" if drv_name == "auto" else drv_name
        out = []
        for i in range(max(n, 1)):
            threads = (lambda i=i: _cpu_device("local-task", i == 0)) if drv_name == "auto" \
                else None
            out.append(Device(platform, i, _cpu_device(home, i == 0), drv_name, threads))
        return out
    drv = _driver(drv_name)
    infos = drv.query_available_devices()
    if not infos:
        raise RuntimeError(f"irax.devices: no {platform} devices found")
    hal = [drv.create_device(info["device_id"]) for info in infos]
    return [Device(platform, i, h, drv_name) for i, h in enumerate(hal)]


def default_backend() -> str:
    """The first platform of ``jax_platforms`` whose devices come up (default "cpu"). As
    in JAX, an accelerator listed before others is skipped when it has no usable device
    or driver (``"cuda,cpu"`` on a machine without a GPU is "cpu"); a platform listed
    alone fails loudly where it is used."""
    platforms = _available_platforms()
    key = ("default", tuple(platforms))
    hit = _state.get(key)
    if hit is not None:
        return hit
    if len(platforms) == 1:
        return platforms[0]
    errors = []
    for p in platforms:
        try:
            devices(p)
        except RuntimeError as e:
            errors.append(str(e))
            continue
        _state[key] = p
        return p
    raise RuntimeError(f"irax: none of the platforms in jax_platforms ({', '.join(platforms)}) "
                       "is available: " + "; ".join(errors))


def default_device() -> Device:
    """Where uncommitted arrays and computations go: ``jax_default_device`` (a device, or
    a platform name for its first device), else the first device."""
    chosen = config.jax_default_device
    if chosen is None:
        return devices()[0]
    if isinstance(chosen, str):
        return devices(chosen)[0]
    return chosen


def default_device_scope(device):
    """``irax.default_device(device)``: a context in which uncommitted arrays and
    computations go to ``device`` (JAX's ``jax.default_device``; ``None``: the first
    device; checked as the option is, on entering the block)."""
    return config.override("jax_default_device", device)


def device_count(backend: str | None = None) -> int:
    return len(devices(backend))


def trim_allocators() -> None:
    """Hands the buffers the caching allocators keep for reuse back to the system."""
    with _lock:
        made = [d for key, devs in _state.items()
                if isinstance(key, tuple) and not isinstance(devs, str) for d in devs]
    for d in made:
        for hal in d.hal_devices():
            hal.allocator.trim()
    hugepages.forget()
