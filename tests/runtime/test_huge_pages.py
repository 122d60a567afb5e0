"""Large CPU buffers on transparent huge pages (``runtime/hugepages.py``).

Where the kernel hands out huge pages on advice (``/sys/kernel/mm/transparent_hugepage/
enabled`` is ``madvise``), host data copied onto a CPU device and a program's large
results live in memory advised with ``MADV_HUGEPAGE``: the mapping's ``VmFlags`` in
``/proc/self/smaps`` carry ``hg``. Whether the kernel then finds free 2 MB pages depends
on the machine's memory, so the tests check the advice, and that values are unchanged.
"""

import numpy as np
import pytest

import irax
from irax.config import config
from irax.runtime import hugepages

needs_madvise = pytest.mark.skipif(
    hugepages.kernel_mode() != "madvise",
    reason=f"the kernel's transparent huge page mode is {hugepages.kernel_mode()!r}, "
           "not 'madvise'")


def _mappings():
    """(start, end, VmFlags) of each mapping of this process."""
    out, start = [], None
    with open("/proc/self/smaps") as f:
        for line in f:
            head = line.split(None, 1)[0]
            if "-" in head and not head.endswith(":"):
                lo, hi = head.split("-")
                start = (int(lo, 16), int(hi, 16))
            elif head == "VmFlags:" and start is not None:
                out.append((*start, line.split()[1:]))
    return out


def _advised(array) -> bool:
    """Whether the huge pages inside a device array's buffer are advised."""
    ptr, n = array.unsafe_buffer_pointer(), array.nbytes
    lo = -(-ptr // hugepages.HUGE_PAGE) * hugepages.HUGE_PAGE
    hi = (ptr + n) // hugepages.HUGE_PAGE * hugepages.HUGE_PAGE
    assert lo < hi, "the buffer holds no whole huge page"
    flags = [f for start, end, f in _mappings() if start < hi and end > lo]
    assert flags, "the buffer is in no mapping of /proc/self/smaps"
    return all("hg" in f for f in flags)


def test_advice_covers_only_whole_huge_pages():
    from irax.runtime import devices

    # only host memory is advised: a CPU device's buffers (a GPU's are not mapped)
    assert devices.is_cpu(irax.devices()[0].hal) and not devices.is_cpu(object())
    assert hugepages.THRESHOLD == 4 << 20
    page = hugepages.HUGE_PAGE
    assert not hugepages.wanted(hugepages.THRESHOLD - 1)
    # a range holding no whole aligned huge page is left alone
    assert not hugepages.advise(page + 64, page)


@needs_madvise
def test_large_host_data_lands_on_advised_memory_with_its_values():
    rng = np.random.default_rng(0)
    n = (5 << 20) // 4 + 3                      # 5 MB of float32, an odd count
    cases = [rng.standard_normal(n).astype(np.float32),
             rng.integers(0, 1 << 30, (n // 2, 2), dtype=np.int32),
             rng.integers(-128, 127, 5 << 20, dtype=np.int8),
             rng.standard_normal(5 << 20) > 0,
             (rng.standard_normal(n) + 1j).astype(np.complex64),
             rng.standard_normal(3 << 20).astype(irax.numpy.bfloat16)]
    for host in cases:
        dev = irax.device_put(host)
        assert _advised(dev), host.dtype
        np.testing.assert_array_equal(np.asarray(dev), host)
    small = irax.device_put(np.ones(1000, np.float32))
    np.testing.assert_array_equal(np.asarray(small), np.ones(1000, np.float32))


@needs_madvise
def test_large_results_take_advised_memory_from_the_first_call():
    # an odd size no other test allocates: the reserved buffers are the only free ones
    x = np.arange(1031 * 1033, dtype=np.float32).reshape(1031, 1033)
    f = irax.jit(lambda x: x * 2.0 + 1.0)
    y = f(x)
    assert _advised(y)
    np.testing.assert_array_equal(np.asarray(y), x * 2.0 + 1.0)
    # x = f(x): each call's argument is the last result, and both buffers are advised
    z = f(y)
    assert _advised(z)
    np.testing.assert_array_equal(np.asarray(z), (x * 2.0 + 1.0) * 2.0 + 1.0)


@needs_madvise
def test_huge_pages_off_advises_nothing(monkeypatch):
    # (whether memory is advised cannot tell: glibc may serve a buffer from a range an
    # earlier one advised, so the advice itself is counted)
    calls = []
    advise = hugepages.advise
    monkeypatch.setattr(hugepages, "advise", lambda *a: calls.append(a) or advise(*a))
    host = np.ones((1109, 1103), np.float32)
    with config.override("irax_cpu_huge_pages", False):
        assert not hugepages.wanted(64 << 20)
        y = irax.jit(lambda x: x - 1.0)(irax.device_put(host))
        np.testing.assert_array_equal(np.asarray(y), np.zeros_like(host))
    assert calls == []
    y = irax.jit(lambda x: x - 2.0)(irax.device_put(host[:-1]))
    np.testing.assert_array_equal(np.asarray(y), np.full_like(host[:-1], -1.0))
    assert len(calls) == 1 + hugepages.COPIES      # the argument, the reserved results


@needs_madvise
def test_reservations_are_made_once_per_size_and_again_after_a_trim(monkeypatch):
    from irax.runtime import devices

    calls = []
    advise = hugepages.advise
    monkeypatch.setattr(hugepages, "advise", lambda *a: calls.append(a) or advise(*a))
    rt, hal = devices.runtime(), irax.devices()[0].hal
    n = (5 << 20) + 7 * 4096   # a size no program of the suite returns
    with config.override("irax_cpu_allocator", "system"):
        hugepages.reserve(rt, hal, [n])    # freed buffers are not kept: nothing to do
    assert calls == []
    hugepages.reserve(rt, hal, [n, n])
    assert len(calls) == hugepages.COPIES
    hugepages.reserve(rt, hal, [n])        # already reserved
    assert len(calls) == hugepages.COPIES
    irax.clear_caches()                    # the kept buffers go back to the system
    hugepages.reserve(rt, hal, [n])
    assert len(calls) == 2 * hugepages.COPIES
