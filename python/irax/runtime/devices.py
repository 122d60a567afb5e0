"""IREE devices as irax ``Device`` objects (``irax.devices()``, ``Array.devices()``).

The IREE runtime is imported on first use. CPU devices use the ``local-sync`` driver by
default (``irax.config.update("irax_cpu_driver", "local-task")`` for IREE's thread pool);
``irax.config.update("jax_num_cpu_devices", N)`` creates N distinct local devices.
"""

from __future__ import annotations

import threading

from irax.core.config import config

_PLATFORM_DRIVERS = {"cpu": "local-task", "cuda": "cuda", "vulkan": "vulkan"}
_state: dict = {}
_drivers: dict = {}
#: guards the lazy creation of the instance, drivers and devices (reentrant: creating
#: devices creates the driver)
_lock = threading.RLock()


class Device:
    """One device: a platform name, an id, and the IREE HAL device behind it."""

    def __init__(self, platform: str, id: int, hal_device, driver_name: str):
        self.platform = platform
        self.id = id
        self.hal = hal_device
        self.driver = driver_name
        self.device_kind = {"cpu": "cpu", "cuda": "gpu", "vulkan": "gpu"}.get(platform, platform)
        self.process_index = 0

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
    if requested:
        return [p.strip() for p in requested.split(",") if p.strip()]
    return ["cpu"]


def _driver(name: str):
    drv = _drivers.get(name)
    if drv is None:
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


def _create(platform: str, n) -> list[Device]:
    drv_name = _PLATFORM_DRIVERS[platform]
    if platform == "cpu":
        drv_name = config.irax_cpu_driver
        if drv_name not in ("local-sync", "local-task"):
            raise RuntimeError(f"irax.devices: irax_cpu_driver must be 'local-sync' or "
                               f"'local-task', got {drv_name!r}")
    try:
        drv = _driver(drv_name)
    except Exception as e:  # noqa: BLE001 - IREE raises plain exceptions for missing drivers
        raise RuntimeError(f"irax.devices: backend {platform!r} is not available: {e}") from None
    if platform == "cpu":
        hal = [drv.create_default_device()] + [
            drv.create_device_by_uri(drv_name) for _ in range(max(n, 1) - 1)]
    else:
        infos = drv.query_available_devices()
        if not infos:
            raise RuntimeError(f"irax.devices: no {platform} devices found")
        hal = [drv.create_device(info["device_id"]) for info in infos]
    return [Device(platform, i, h, drv_name) for i, h in enumerate(hal)]


def default_backend() -> str:
    return _available_platforms()[0]


def default_device() -> Device:
    return devices()[0]


def device_count(backend: str | None = None) -> int:
    return len(devices(backend))
