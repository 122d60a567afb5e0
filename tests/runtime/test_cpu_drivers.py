"""CPU drivers: the per-program choice between the calling thread and IREE's thread pool,
the stress test of the default driver, and the caching allocator.

Under IREE 3.13's ``local-task`` driver a program with nested loops returns a wrong value
or fails with "transient buffer has not been committed" about once in 300 calls (IREE's
reusable command buffers for loop bodies; docs/performance.md has the standalone
reproducer, and why neither compiler option that cures it is used). The default driver
(``auto``) therefore runs programs with loops on the calling thread and only loop-free
ones on the pool; the stress test calls loop-heavy, pmap and pool programs 1000 times each
and requires every result to be bit-identical to the first.
"""

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from fault_helpers import faults_per_call

import irax
import irax.numpy as jnp
from irax.config import config
from irax.frontend.compile import clear_executables
from irax.lowering.work import contraction_flops, measure
from irax.runtime import devices


def _iree_module(f, *args):
    return irax.jit(f).lower(*args).compiler_ir("iree")


def test_contraction_flops_counts_products_and_convolutions_once_each():
    a = np.ones((128, 784), np.float32)
    b = np.ones((784, 512), np.float32)
    assert contraction_flops(_iree_module(lambda a, b: jnp.tanh(a @ b), a, b)) == 128 * 512 * 784
    batched = np.ones((3, 8, 5), np.float32), np.ones((3, 5, 7), np.float32)
    assert contraction_flops(_iree_module(jnp.matmul, *batched)) == 3 * 8 * 7 * 5
    x = np.ones((2, 3, 10, 10), np.float32)   # NCHW
    w = np.ones((4, 3, 3, 3), np.float32)     # OIHW: 4 outputs of 3x3 windows over 3 inputs
    conv = _iree_module(lambda x, w: irax.lax.conv(x, w, (1, 1), "VALID"), x, w)
    assert contraction_flops(conv) == 2 * 4 * 8 * 8 * (3 * 3 * 3)
    # a loop body counts once, whatever the trip count (a scan's once per unrolled copy)
    loop = _iree_module(lambda a, b, n: irax.lax.fori_loop(0, n, lambda i, c: c @ b, a),
                        np.ones((4, 6), np.float32), np.ones((6, 6), np.float32), 100)
    assert contraction_flops(loop) == 4 * 6 * 6
    assert contraction_flops(_iree_module(lambda x: x * x + 1.0, a)) == 0
    # each product's rows, columns and depth (batch dimensions apart), and whether batched
    assert measure(_iree_module(lambda a, b: a @ b, a, b)).products == {(128, 512, 784, False)}
    rows = np.ones((300, 512), np.float32)   # contracted along its last dimension
    assert measure(_iree_module(lambda a, b: a @ b.T, a[:, :512], rows)).products == \
        {(128, 300, 512, False)}
    assert measure(_iree_module(lambda a, b: a.T @ b, a, b[:128])).products == \
        {(784, 512, 128, False)}
    wide = np.ones((3, 5, 1100), np.float32)
    assert measure(_iree_module(jnp.matmul, batched[0], wide)).products == {(8, 1100, 5, True)}
    assert measure(_iree_module(jnp.matmul, *batched)).products == {(8, 7, 5, True)}
    two = measure(_iree_module(lambda a, b: (a @ b, a[:64, :100] @ b[:100, :300]), a, b))
    assert two.products == {(128, 512, 784, False), (64, 300, 100, False)}


def test_measure_finds_loops_and_counts_produced_elements():
    """``measure``: what tiered jit and the driver choice read of a program."""
    a = np.ones((4, 6), np.float32)
    loop = measure(_iree_module(lambda a, n: irax.lax.fori_loop(0, n, lambda i, c: c * 2, a),
                                a, 100))
    assert loop.loops and loop.wrong is None
    plain = measure(_iree_module(lambda x: jnp.tanh(x * x + 1.0), a))
    assert not plain.loops and plain.flops == 0
    # multiply, the constant 1.0, add and tanh: four 4x6 results
    assert plain.elements == 4 * 24, plain.elements


@pytest.fixture
def auto_driver():
    old = config.irax_cpu_driver, config.irax_cpu_threads_min_flops
    config.update("irax_cpu_driver", "auto")
    clear_executables()
    yield
    config.update("irax_cpu_driver", old[0])
    config.update("irax_cpu_threads_min_flops", old[1])
    clear_executables()


def _executable(f, *args):
    jitted = irax.jit(f)
    out = jitted(*args)
    return out, jitted.lower(*args)._entry.executable


def test_auto_runs_large_contractions_on_the_thread_pool_and_the_rest_inline(auto_driver):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((64, 64)).astype(np.float32)
    config.update("irax_cpu_threads_min_flops", 64 ** 3)
    big, exe_big = _executable(lambda a: a @ a, a)
    small, exe_small = _executable(lambda a: a[:32, :32] @ a[:32, :32] + 1.0, a)
    elementwise, exe_ew = _executable(lambda a: a * a + 2.0, a)
    assert exe_big.threads and not exe_small.threads and not exe_ew.threads
    # buffers of either HAL device feed programs on the other
    chained = irax.jit(lambda x: x * 0.5)(big)
    np.testing.assert_allclose(np.asarray(big), a @ a, rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(np.asarray(chained), 0.5 * (a @ a), rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(np.asarray(small), a[:32, :32] @ a[:32, :32] + 1, rtol=1e-5,
                               atol=1e-4)
    np.testing.assert_allclose(np.asarray(elementwise), a * a + 2, rtol=1e-6)
    again, exe_again = _executable(lambda a: a @ a, irax.device_put(elementwise))
    assert exe_again.threads
    config.update("irax_cpu_threads_min_flops", 0)
    _, exe_loop = _executable(lambda a: irax.lax.fori_loop(0, 3, lambda i, c: c @ a, a), a)
    assert not exe_loop.threads     # loops never run on the pool (IREE 3.13 races there)
    np.testing.assert_allclose(np.asarray(again), (a * a + 2) @ (a * a + 2), rtol=1e-5)


def test_auto_weighs_a_multi_device_program_per_device(auto_driver):
    """The devices of one multi-device program run one after another, so the pool is for
    a program whose every device has enough products to share out."""
    old = config.jax_num_cpu_devices
    config.update("jax_num_cpu_devices", 2)
    try:
        x = np.random.default_rng(1).standard_normal((2, 64, 64)).astype(np.float32)
        f = lambda x: irax.pmap(lambda b: b @ b)(x)   # noqa: E731 - 64^3 a device
        config.update("irax_cpu_threads_min_flops", 64 ** 3)
        pooled, exe = _executable(f, x)
        assert exe.threads
        clear_executables()
        config.update("irax_cpu_threads_min_flops", 64 ** 3 + 1)   # the two: 2 * 64^3
        inline, exe = _executable(lambda x: f(x) + 0.0, x)
        assert not exe.threads
        for got in (pooled, inline):
            np.testing.assert_allclose(np.asarray(got), x @ x, rtol=1e-5, atol=1e-4)
    finally:
        config.update("jax_num_cpu_devices", old)


def test_loop_kernel_programs_time_both_drivers_and_keep_the_faster(auto_driver):
    """A program whose only loop is a loop kernel over several elements (no host-driven
    trip, so no IREE race) alternates its first calls between the calling thread and the
    pool, then keeps the faster; every call gives the same bits. A host-driven loop, or a
    kernel over one element, is not tuned."""
    from irax.runtime.executable import Tuned

    def loop(v, n):
        return irax.lax.while_loop(lambda c: c[0] < n,
                                   lambda c: (c[0] + 1, jnp.sin(c[1]) * 1.01 + 0.1), (0, v))[1]

    v = np.linspace(-2.0, 2.0, 64, dtype=np.float32)
    first, exe = _executable(loop, v, np.int32(200))
    assert isinstance(exe, Tuned) and exe.chosen is None and exe.threads is None
    f = irax.jit(loop)
    for _ in range(2 * Tuned.TRIALS + 2):
        np.testing.assert_array_equal(np.asarray(f(v, np.int32(200))), np.asarray(first))
    assert exe.chosen is not None and exe.threads in (True, False)
    # its program record (a later trace's way to the program without the passes) keeps
    # what the choice needs: traced again, the program is tuned again
    irax.clear_caches()
    again, exe_again = _executable(loop, v, np.int32(200))
    assert isinstance(exe_again, Tuned)
    np.testing.assert_array_equal(np.asarray(again), np.asarray(first))
    w = measure(_iree_module(loop, v, np.int32(3)))
    assert w.loops and not w.host_loops and w.kernel_elements == 4   # rows of 16 lanes
    _, exe_one = _executable(loop, v[:1], np.int32(5))
    _, exe_host = _executable(
        lambda a, n: irax.lax.while_loop(lambda c: c[0] < n,
                                         lambda c: (c[0] + 1, c[1] + jnp.sum(c[1])),
                                         (0, a))[1], v, np.int32(3))
    assert not isinstance(exe_one, Tuned) and not isinstance(exe_host, Tuned)
    assert not exe_one.threads and not exe_host.threads


def test_mid_sized_products_time_both_drivers_on_one_device_and_on_several(auto_driver):
    """Between ``irax_cpu_tune_min_flops`` and ``irax_cpu_threads_min_flops`` multiply-adds
    (per device), a loop-free program measures both drivers over its first calls (where
    the pool starts to pay depends on the machine), a multi-device one too; below the
    band it stays inline, from its top it goes to the pool untried."""
    from irax.runtime.executable import Tuned

    old = config.jax_num_cpu_devices, config.irax_cpu_tune_min_flops, \
        config.irax_shard_map_threads
    config.update("jax_num_cpu_devices", 2)
    config.update("irax_shard_map_threads", False)   # the one multi-device program
    try:
        config.update("irax_cpu_tune_min_flops", 32 ** 3)
        config.update("irax_cpu_threads_min_flops", 48 ** 3)
        a = np.random.default_rng(2).standard_normal((2, 32, 32)).astype(np.float32)
        g = lambda a: jnp.tanh(a[0] @ a[1])   # noqa: E731
        first, exe = _executable(g, a)
        f = irax.jit(g)
        assert isinstance(exe, Tuned) and exe.chosen is None
        pm = lambda x: irax.pmap(lambda b: b @ b)(x)   # noqa: E731 - 32^3 a device
        pfirst, pexe = _executable(pm, a)
        assert isinstance(pexe, Tuned) and pexe.chosen is None
        for _ in range(2 * Tuned.TRIALS + 2):
            np.testing.assert_array_equal(np.asarray(f(a)), np.asarray(first))
            np.testing.assert_array_equal(np.asarray(irax.jit(pm)(a)), np.asarray(pfirst))
        assert exe.threads in (True, False) and pexe.threads in (True, False)
        np.testing.assert_allclose(np.asarray(pfirst), a @ a, rtol=1e-5, atol=1e-4)
        _, below = _executable(lambda a: a[0, :16] @ a[1] + 1.0, a)   # 16 * 32 * 32
        assert not isinstance(below, Tuned) and not below.threads
        config.update("irax_cpu_threads_min_flops", 32 ** 3)
        _, top = _executable(lambda a: a[0] @ a[1] - 1.0, a)
        assert not isinstance(top, Tuned) and top.threads
        config.update("irax_cpu_tune_min_flops", 0)    # 0: no program is tried
        config.update("irax_cpu_threads_min_flops", 48 ** 3)
        _, off = _executable(lambda a: a[0] @ a[1] * 2.0, a)
        assert not isinstance(off, Tuned) and not off.threads
    finally:
        config.update("jax_num_cpu_devices", old[0])
        config.update("irax_cpu_tune_min_flops", old[1])
        config.update("irax_shard_map_threads", old[2])


def test_forced_drivers_and_bad_values(auto_driver):
    a = np.ones((8, 8), np.float32)
    config.update("irax_cpu_threads_min_flops", 0)
    for driver, threads in (("local-sync", False), ("auto", True)):
        config.update("irax_cpu_driver", driver)
        clear_executables()
        out, exe = _executable(lambda a: a @ a + 1.0, a)
        assert exe.threads == threads, driver
        np.testing.assert_array_equal(np.asarray(out), np.full((8, 8), 9.0, np.float32))
    config.update("irax_cpu_driver", "threads")
    with pytest.raises(RuntimeError, match="irax_cpu_driver must be 'auto', 'local-sync' or "
                                           "'local-task', got 'threads'"):
        devices.devices()


_STRESS = textwrap.dedent("""
    import json, sys
    from pathlib import Path
    import numpy as np
    import irax
    irax.config.update("jax_num_cpu_devices", 4)
    irax.config.update("irax_cpu_threads_min_flops", 0)   # every loop-free program: pool
    text = Path(sys.argv[1]).read_text()
    loops = irax.ir.transform(text, "grad", argnums=(0, 1))
    x, a = np.array([0.3, -0.2], np.float32), np.float32(0.7)
    step = irax.pmap(lambda v: irax.lax.fori_loop(
        0, 20, lambda i, c: irax.numpy.tanh(c * 1.01 + irax.lax.psum(c, "i") * 1e-3), v),
        axis_name="i")
    v = np.linspace(-1, 1, 4 * 16, dtype=np.float32).reshape(4, 16)
    m = np.linspace(-1, 1, 96 * 96, dtype=np.float32).reshape(96, 96)
    pool = irax.jit(lambda m: irax.numpy.tanh(m @ m) @ m + irax.numpy.sum(m * m, axis=0))
    assert pool.lower(m)._entry.executable is None
    pool(m)
    assert pool.lower(m)._entry.executable.threads
    # a loop whose body multiplies matrices: run from the host, the body on the pool
    cut = irax.jit(lambda m: irax.lax.fori_loop(
        0, 8, lambda i, c: irax.numpy.tanh(c @ m) + c * 0.5, m))
    from irax.transforms.split_loops import SplitProgram
    assert isinstance(cut.lower(m).compile()._entry.executable, SplitProgram)
    report = {}
    for name, call in (("loops", lambda: loops(x, a)), ("pmap", lambda: step(v)),
                       ("pool", lambda: pool(m)), ("split", lambda: cut(m))):
        first = [np.asarray(r) for r in irax.tree.leaves(call())]
        bad = 0
        for _ in range(int(sys.argv[2])):
            got = [np.asarray(r) for r in irax.tree.leaves(call())]
            bad += any(not np.array_equal(g, w) for g, w in zip(got, first))
        report[name] = bad
    print(json.dumps(report))
""")


def test_default_driver_stress_loops_pmap_and_pool_programs_are_deterministic():
    """1000 calls each of a program with nested while loops (the one that races on the
    pool), a 4-device pmap with a loop and a collective, a loop-free program on the
    thread pool, and a loop run from the host whose body is on the pool
    (``split_loops.py``), in a fresh process (a crash fails the test): every result
    bit-identical to the first."""
    data = os.path.join(os.path.dirname(__file__), "..", "passes", "data", "control_flow.mlir")
    proc = subprocess.run([sys.executable, "-c", _STRESS, data, "1000"], capture_output=True,
                          text=True, timeout=600, env={**os.environ, "IRAX_CPU_DRIVER": "auto"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert json.loads(proc.stdout.strip().splitlines()[-1]) == {"loops": 0, "pmap": 0,
                                                                 "pool": 0, "split": 0}


def test_caching_allocator_reuses_result_memory_and_trims():
    assert devices.cpu_allocators() == [
        f"caching:*=*;{config.irax_cpu_allocator_cache_bytes};{devices.CACHED_BUFFERS}"]
    old = config.irax_cpu_allocator
    try:
        config.update("irax_cpu_allocator", "system")
        assert devices.cpu_allocators() is None
        config.update("irax_cpu_allocator", "pool")
        with pytest.raises(RuntimeError, match="irax_cpu_allocator must be 'caching' or "
                                               "'system', got 'pool'"):
            devices.cpu_allocators()
    finally:
        config.update("irax_cpu_allocator", old)
    # buffers of 100 other sizes freed first: the allocator still caches (with room for
    # 64 free buffers it stopped caching once it held 64)
    for k in range(100):
        irax.device_put(np.ones(1000 + 37 * k, np.float32)).delete()
    # 64 MB: above glibc's largest mmap threshold, so that the system allocator maps (and
    # faults in) fresh pages for every result, 16384 of them
    # (one driver: a trial of the thread pool's, irax_cpu_tune_min_elements, would fault
    # in its own first result's pages)
    f = irax.jit(lambda x: x * 2.0)
    x = irax.device_put(np.ones(1 << 24, np.float32))
    with config.override("irax_cpu_tune_min_elements", 0):
        faults = 4 * faults_per_call(lambda: f(x))
    assert faults < 1000, faults    # 65,540 with irax_cpu_allocator="system"
    irax.clear_caches()             # hands the kept buffers back


@pytest.fixture
def data_tiling():
    """IREE's data tiling as on a CPU without irax's AVX2 tiles (irax_cpu_matmul_tuning
    off: programs with large contractions data-tile)."""
    old = config.irax_cpu_matmul_tuning
    config.update("irax_cpu_matmul_tuning", False)
    yield
    config.update("irax_cpu_matmul_tuning", old)


def test_large_contractions_compile_with_data_tiling_and_match_jax(data_tiling):
    """A program whose products reach irax_cpu_data_tiling_min_flops compiles with IREE's
    data tiling and microkernels (a different code path for its matrix products): an MLP
    training step of the benchmark's size, against JAX; a small program keeps the plain
    flags."""
    jax = pytest.importorskip("jax")
    from irax.frontend.compile import DATA_TILING_FLAGS

    rng = np.random.default_rng(3)
    w1 = rng.standard_normal((784, 512)).astype(np.float32) * 0.05
    w2 = rng.standard_normal((512, 10)).astype(np.float32) * 0.05
    x = rng.standard_normal((128, 784)).astype(np.float32)

    def step(m, w1, w2, x):
        def loss(w1, w2):
            h = m.numpy.tanh(x @ w1)
            z = h @ w2
            return m.numpy.mean(m.numpy.sum(z * z, axis=1))
        g1, g2 = m.grad(loss, argnums=(0, 1))(w1, w2)
        return w1 - 0.1 * g1, w2 - 0.1 * g2

    f = irax.jit(lambda *a: step(irax, *a))
    got = f(w1, w2, x)
    entry = f.lower(w1, w2, x)._entry
    want = jax.jit(lambda *a: step(jax, *a))(w1, w2, x)
    for a, b in zip(got, want):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-4, atol=1e-5)
    info = measure(_iree_module(lambda *a: step(irax, *a), w1, w2, x))
    assert info.flops >= config.irax_cpu_data_tiling_min_flops
    from irax.frontend.compile import program_of
    big = program_of(entry, devices.default_device(), "step", "")
    assert set(DATA_TILING_FLAGS) <= set(big.info["flags"])
    small = irax.jit(lambda a: a @ a)
    s = small.lower(np.ones((8, 8), np.float32))._entry
    assert not set(DATA_TILING_FLAGS) & set(program_of(s, devices.default_device(), "mm",
                                                       "").info["flags"])


def test_a_program_iree_cannot_data_tile_compiles_without(data_tiling):
    """jit(vmap(grad)) of the benchmark's MLP (per-example gradients, batch 128): IREE
    3.13's data tiling exceeds its stack limit on one dispatch ("exceeded stack allocation
    limit of 32768 bytes"); the program compiles without data tiling instead (a second
    compile, cached under the first's key), with JAX's numbers."""
    jax = pytest.importorskip("jax")
    from irax.runtime import compiler

    rng = np.random.default_rng(4)
    params = [((rng.standard_normal((a, b)) / np.sqrt(a)).astype(np.float32),
               np.zeros(b, np.float32)) for a, b in ((784, 512), (512, 512), (512, 10))]
    x = rng.standard_normal((128, 784)).astype(np.float32)
    y = np.eye(10, dtype=np.float32)[rng.integers(0, 10, 128)]

    def grads(m):
        def loss(p, xe, ye):
            h = xe[None]
            for w, b in p[:-1]:
                h = m.numpy.maximum(h @ w + b, 0.0)
            z = h @ p[-1][0] + p[-1][1]
            logp = z - m.nn.logsumexp(z, axis=-1, keepdims=True)
            return -m.numpy.mean(m.numpy.sum(logp * ye[None], axis=-1))
        return m.jit(m.vmap(m.grad(loss), in_axes=(None, 0, 0)))

    before = compiler.stats["compiles"], compiler.fallbacks["data_tiling"]
    got = grads(irax)(params, x, y)
    compiled = compiler.stats["compiles"] - before[0]
    fallbacks = compiler.fallbacks["data_tiling"] - before[1]
    assert fallbacks == (1 if compiled else 0), (compiled, fallbacks)
    want = grads(jax)(params, x, y)
    for a, b in zip(jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=2e-4, atol=1e-6)


def _iree_workers() -> dict[str, str]:
    """Name -> allowed CPUs of this process's IREE worker threads."""
    out = {}
    for tid in os.listdir("/proc/self/task"):
        try:
            lines = open(f"/proc/self/task/{tid}/status").read().splitlines()
        except OSError:
            continue
        fields = dict(line.split(":\t", 1) for line in lines if ":\t" in line)
        if fields.get("Name", "").startswith("iree-worker"):
            out[fields["Name"]] = fields["Cpus_allowed_list"]
    return out


@pytest.mark.skipif(not os.path.exists("/proc/self/task"), reason="Linux /proc")
def test_thread_pool_workers_are_unpinned_one_per_cpu(auto_driver):
    from irax.runtime import devices

    n = min(devices.available_cpus(), devices.MAX_WORKERS)
    assert devices.task_flags() == [f"--task_topology_group_count={n}"]
    old = config.irax_cpu_threads, config.irax_cpu_pin_threads
    try:
        config.update("irax_cpu_threads", 3)
        assert devices.task_flags() == ["--task_topology_group_count=3"]
        config.update("irax_cpu_pin_threads", True)
        assert devices.task_flags() == []
    finally:
        config.update("irax_cpu_threads", old[0])
        config.update("irax_cpu_pin_threads", old[1])
    config.update("irax_cpu_threads_min_flops", 0)
    a = np.ones((32, 32), np.float32)
    _, exe = _executable(lambda a: a @ a, a)
    assert exe.threads
    workers = _iree_workers()
    assert len(workers) >= n, workers
    mine = os.sched_getaffinity(0)
    for name, cpus in workers.items():   # each may run on every CPU this process may
        allowed = set()
        for part in cpus.split(","):
            lo, _, hi = part.partition("-")
            allowed.update(range(int(lo), int(hi or lo) + 1))
        assert allowed == mine, (name, cpus)


@pytest.mark.skipif(not hasattr(os, "SCHED_BATCH"), reason="Linux scheduling policies")
def test_the_calling_thread_waits_for_the_pool_as_sched_batch(auto_driver):
    seen = []

    def policy(x):
        seen.append(os.sched_getscheduler(0))   # host callbacks run on the calling thread
        return x

    def f(a):
        b = irax.pure_callback(policy, irax.ShapeDtypeStruct(a.shape, a.dtype), a)
        return b @ a

    a = np.eye(16, dtype=np.float32)
    config.update("irax_cpu_threads_min_flops", 0)
    out, exe = _executable(f, a)
    np.testing.assert_array_equal(np.asarray(out), a)
    assert exe.threads and seen[-1] == os.SCHED_BATCH, seen
    assert os.sched_getscheduler(0) == os.SCHED_OTHER
    old = config.irax_cpu_batch_waits
    try:
        config.update("irax_cpu_batch_waits", False)
        irax.block_until_ready(irax.jit(f)(a))
        assert seen[-1] == os.SCHED_OTHER
    finally:
        config.update("irax_cpu_batch_waits", old)
    config.update("irax_cpu_threads_min_flops", 1 << 40)   # inline: the policy is left alone
    _, exe_inline = _executable(lambda a: f(a) + 1.0, a)
    assert not exe_inline.threads and seen[-1] == os.SCHED_OTHER
