"""Large results written into storage irax allocates (``passes/output_storage.py``).

A one-device CPU program's results of 4 MB or more are written into buffers the call
passes (``iree.abi.output``), allocated from the device's caching allocator: on IREE's
thread pool a result above 64 MB is otherwise a fresh mapping at every call, whose pages
fault in as the program writes them. The lit test (``tests/lit/passes/output-storage.mlir``)
shows which results get storage; these run programs with it.
"""

import numpy as np
import pytest
from fault_helpers import faults_per_call

import irax
import irax.numpy as jnp
from irax.config import config
from irax.frontend import program_cache


def _entry(f, *args):
    return f.lower(*args).compile()._entry


def test_results_in_storage_arguments_have_their_values(rng):
    x = rng.normal(size=(1024, 1100)).astype(np.float32)   # 4.5 MB

    def f(x):
        y = x * 2.0 + 1.0
        return y, y, x[:2], x, jnp.zeros((2048, 1024), jnp.int32), (x > 0).astype(jnp.int8)

    jf = irax.jit(f)
    entry = _entry(jf, x)
    # the first of two equal results, the zeros; not the slice (too small), the argument
    # (returned as it is), the second copy, nor the int8 mask (1.1 MB)
    assert entry.work.outputs == (0, 4)
    assert "iree.abi.output = 0 : index" in jf.lower(x).compile().as_text()
    got = jf(x)
    want = (x * 2.0 + 1.0, x * 2.0 + 1.0, x[:2], x, np.zeros((2048, 1024), np.int32),
            (x > 0).astype(np.int8))
    for g, w in zip(got, want):
        np.testing.assert_array_equal(np.asarray(g), w)
    # each call writes new storage: earlier results keep their values
    again = jf(x + 1.0)
    np.testing.assert_array_equal(np.asarray(got[0]), want[0])
    np.testing.assert_array_equal(np.asarray(again[0]), (x + 1.0) * 2.0 + 1.0)


def test_which_programs_get_storage(rng):
    x = rng.normal(size=(1024, 1100)).astype(np.float32)
    # small results, a loop IREE drives from the host, and the option off: none
    # (a donated argument is no result's storage: IREE aliases none, legalize_iree.py)
    donating = irax.jit(lambda x: x * 2.0, donate_argnums=0)
    assert _entry(donating, x).work.outputs == (0,)
    donated = irax.device_put(x)
    np.testing.assert_array_equal(np.asarray(donating(donated)), x * 2.0)
    assert donated.is_deleted()
    assert _entry(irax.jit(lambda x: x[:10] * 2.0), x).work.outputs == ()
    loop = irax.jit(lambda x, n: irax.lax.fori_loop(0, n, lambda i, v: v * 1.5, x))
    assert _entry(loop, x, 3).work.outputs == ()
    with config.override("irax_cpu_output_storage", False):
        assert _entry(irax.jit(lambda x: x * 3.0), x).work.outputs == ()
    assert _entry(irax.jit(lambda x: x * 3.0), x).work.outputs == (0,)


def test_a_recorded_program_keeps_its_storage(rng):
    x = rng.normal(size=(1024, 1100)).astype(np.float32)

    def f(x):
        return jnp.sin(x) * 3.0

    first = _entry(irax.jit(f), x)
    assert first.record is not None and first.work.outputs == (0,)
    program_cache.clear_memory()   # the record read back from the disk cache
    found = program_cache.lookup(first.record, "f")
    assert found is not None and found[2].outputs == (0,)
    np.testing.assert_allclose(np.asarray(irax.jit(lambda x: f(x))(x)), np.sin(x) * 3.0,
                               rtol=1e-6)


@pytest.mark.parametrize("storage", [True, False])
def test_the_thread_pool_writes_large_results_without_faulting_pages_in(storage):
    # 72 MB: above the 64 MB slabs IREE's task device serves results from; without
    # storage each result is a fresh mapping, its 17,578 pages faulted in at every call
    x = irax.device_put(np.ones((4500, 4000), np.float32))
    with config.override("irax_cpu_output_storage", storage), \
            config.override("irax_cpu_driver", "local-task"):
        f = irax.jit(lambda x: x * 2.0 + 1.0)
        assert _entry(f, x).work.outputs == ((0,) if storage else ())
        faults = faults_per_call(lambda x=x: f(x), warm=3)
        y = f(x)
    np.testing.assert_array_equal(np.asarray(y)[::500, ::500], 3.0)
    if storage:
        assert faults < 1000, faults
    else:
        assert faults > 10000, faults   # what storage avoids (IREE 3.13)
    del x, y
    irax.clear_caches()
