"""Large CPU buffers on transparent huge pages (Linux).

A 100 MB array on 4 KB pages spans 24,415 pages; streaming through it misses the TLB at
every page. Linux backs memory with 2 MB pages when the memory is advised so
(``madvise(MADV_HUGEPAGE)``) before it is first written, if
``/sys/kernel/mm/transparent_hugepage/enabled`` is ``madvise`` (the common default; under
``always`` every large allocation gets them anyway, under ``never`` none does). NumPy
advises every allocation of 4 MB or more; IREE's host allocator does not, so on such a
machine ``x + x*x + x*x*x`` on 5000x5000 floats took 9.1 ms in IREE where NumPy copies
the array in 8 ms (docs/performance.md, "Huge pages for large buffers").

irax advises its large CPU buffers where it can, before they are written:

- ``to_device`` (host data onto a CPU device: ``device_put``, arrays made eagerly)
  allocates the buffer, advises it and then copies the data in (``upload``);
- a program's results are allocated inside IREE, through the device's caching
  allocator, which reuses a free buffer of exactly the requested size: before a
  program's first call, ``reserve`` puts ``COPIES`` advised, never written buffers of
  each large result's size into that allocator's free list (address space only: a
  page exists once written), which the program's results then take, and keep, as the
  allocator hands the same buffers back call after call.

``irax_cpu_huge_pages=False`` turns this off. Nothing changes but the page size.
"""

from __future__ import annotations

import ctypes
import functools
import sys
import threading

import numpy as np

from irax.core.config import config

#: buffers at least this large are advised (NumPy's threshold)
THRESHOLD = 4 << 20
#: the huge page size on x86-64 and most aarch64 kernels
HUGE_PAGE = 2 << 20
#: advised buffers put in the free list per (device, result size): two, so that a
#: program whose result is its next call's argument (``x = f(x)``) finds one free
COPIES = 2
_MADV_HUGEPAGE = 14
_THP_MODE = "/sys/kernel/mm/transparent_hugepage/enabled"

_lock = threading.Lock()
#: (id of the HAL device, size) pairs already reserved, until the allocator is trimmed
_reserved: set = set()


@functools.cache
def _madvise():
    """libc's ``madvise``, or None where there is no such call (not Linux)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        fn = ctypes.CDLL(None, use_errno=True).madvise
    except (OSError, AttributeError):  # pragma: no cover - every Linux libc has it
        return None
    fn.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    fn.restype = ctypes.c_int
    return fn


@functools.cache
def kernel_mode() -> str | None:
    """The kernel's transparent huge page mode ("always", "madvise", "never"), or None
    where it has none."""
    try:
        with open(_THP_MODE) as f:
            text = f.read()
    except OSError:
        return None
    start, end = text.find("["), text.find("]")
    return text[start + 1:end] if 0 <= start < end else None


def wanted(nbytes: int) -> bool:
    """Whether a CPU buffer of ``nbytes`` is to be advised."""
    return (nbytes >= THRESHOLD and config.irax_cpu_huge_pages
            and kernel_mode() == "madvise" and _madvise() is not None)


def advise(address: int, nbytes: int) -> bool:
    """Advises the whole huge pages inside ``[address, address + nbytes)``; whether the
    kernel took the advice."""
    lo = -(-address // HUGE_PAGE) * HUGE_PAGE
    hi = (address + nbytes) // HUGE_PAGE * HUGE_PAGE
    if hi <= lo:
        return False
    return _madvise()(lo, hi - lo, _MADV_HUGEPAGE) == 0


def _advise_buffer(buffer, nbytes: int) -> np.ndarray:
    """A writable byte view of a new (never written) HAL ``buffer``, advised first."""
    mapping = buffer.map()
    raw = mapping.asarray((nbytes,), np.dtype(np.uint8))
    advise(raw.ctypes.data, nbytes)
    return raw


def _allocate(rt, hal_device, nbytes: int):
    """A new buffer of ``nbytes`` as irax allocates them (``buffers.to_device``'s memory
    type and usage; a program's results ask for no more). ``rt``: ``iree.runtime``."""
    return hal_device.allocator.allocate_buffer(
        memory_type=rt.MemoryType.DEVICE_LOCAL, allowed_usage=rt.BufferUsage.DEFAULT,
        allocation_size=nbytes)


def upload(rt, hal_device, data: np.ndarray, element_type):
    """A new buffer view on ``hal_device`` holding ``data`` (C-contiguous), its memory
    advised before the copy writes it."""
    nbytes = data.nbytes
    buffer = _allocate(rt, hal_device, nbytes)
    raw = _advise_buffer(buffer, nbytes)
    np.copyto(raw, data.reshape(-1).view(np.uint8))
    del raw
    return rt.HalBufferView(buffer, data.shape, element_type)


def reserve(rt, hal_device, sizes) -> None:
    """Puts ``COPIES`` advised, never written buffers of each large size of ``sizes`` into
    ``hal_device``'s caching allocator's free list, once per size (until ``forget``); a
    size the allocator cannot keep, or cannot allocate now, is left to the program."""
    key = id(hal_device)
    cap = config.irax_cpu_allocator_cache_bytes
    if config.irax_cpu_allocator != "caching" or not cap:
        return   # freed buffers are not kept: nothing to reserve them in
    todo = []
    with _lock:
        for n in sorted(set(sizes)):
            if wanted(n) and 2 * n <= cap and (key, n) not in _reserved:
                _reserved.add((key, n))
                todo.append(n)
    if not todo:
        return
    for n in todo:
        try:
            copies = [_allocate(rt, hal_device, n)
                      for _ in range(COPIES if COPIES * n * 4 <= cap else 1)]
        except RuntimeError:   # out of memory now: the program allocates as it would
            continue
        for buffer in copies:
            _advise_buffer(buffer, n)   # the mapping goes with the view it returns
        del copies  # released: into the free list, where the program's results find them


def forget() -> None:
    """Called when the caching allocators hand their free buffers back: reserved sizes
    are reserved again by the next program that needs them."""
    with _lock:
        _reserved.clear()

