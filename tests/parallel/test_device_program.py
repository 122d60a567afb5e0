"""One multi-device program with each device's blocks at its boundary
(transforms/device_program.py): how a top-level pmap, shard_map or partitioned jit runs
where it does not get a program per device on threads. Its arguments arrive on their
devices (a sharded argument's shards as they are), its results stay there as the
devices' shards, and its values are the stacked program's."""

import numpy as np
import pytest

import irax
import irax.numpy as jnp
from irax import lax
from irax.config import config
from irax.frontend.compile import at_stage
from irax.sharding import NamedSharding
from irax.sharding import PartitionSpec as P
from irax.transforms.device_program import DeviceProgram

N = 4
PMAP_AXIS = "_internal_pmap_axis_name"   # JAX's mesh axis for a pmap without axis_name


@pytest.fixture(scope="module", autouse=True)
def one_program():
    """Four CPU devices, no program per device on threads (as on a 2-core machine)."""
    old = config.jax_num_cpu_devices
    config.update("jax_num_cpu_devices", N)
    try:
        with config.override("irax_shard_map_threads", False), \
                config.override("irax_device_program", True):
            yield
    finally:
        config.update("jax_num_cpu_devices", old)


def _stacked(f, *args):
    with config.override("irax_device_program", False):
        return f(*args)


def test_pmap_results_are_the_devices_shards_as_in_jax():
    """As jax.pmap in JAX 0.10: a NamedSharding over a 1-D mesh of the devices, one
    (1, ...) block of the mapped axis per device, each on its device, not gathered."""
    x = np.arange(12, dtype=np.float32).reshape(N, 3)
    out = irax.pmap(jnp.sin)(x)
    assert out._host is None
    assert isinstance(out.sharding, NamedSharding)
    assert out.sharding.spec == P(PMAP_AXIS)
    assert out.sharding.mesh.axis_names == (PMAP_AXIS,)
    shards = out.addressable_shards
    assert [s.device.id for s in shards] == list(range(N))
    for k, s in enumerate(shards):
        assert s.data.shape == (1, 3)
        assert s.data.devices() == {s.device}
        np.testing.assert_allclose(np.asarray(s.data), np.sin(x[k:k + 1]), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(out), np.asarray(_stacked(irax.pmap(jnp.sin), x)),
                               rtol=0, atol=0)


def test_pmap_results_keep_dtypes_and_weak_types():
    """Python scalars among the results stay weakly typed, as in the stacked program;
    unsigned and boolean values cross devices in the collectives."""
    x = np.arange(12, dtype=np.float32).reshape(N, 3)
    f = irax.pmap(lambda v, u: (v.sum(), 2.0, lax.psum(u, "i"), lax.psum(u, "i") > 20),
                  "i")
    u = np.arange(12, dtype=np.uint32).reshape(N, 3)
    got, want = f(x, u), _stacked(f, x, u)
    for g, w in zip(got, want):
        assert (g.dtype, g.shape, g.weak_type) == (w.dtype, w.shape, w.weak_type)
        assert g.sharding.spec == P("i")
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w))


def step(w, x):
    h = jnp.tanh(x @ w)
    return h / lax.psum(jnp.mean(h * h), "i") ** 0.5 + lax.axis_index("i")


def test_arguments_arrive_where_they_are():
    """A result fed back passes its shards as they are (not assembled on the host); an
    array on the first device serves every CPU device without a copy to the host; the
    values are the stacked program's, call after call."""
    rng = np.random.default_rng(0)
    x0 = rng.standard_normal((N, 5, 8)).astype(np.float32)
    w = irax.jit(lambda v: v * 1)(rng.standard_normal((8, 8)).astype(np.float32) / 4)
    f = irax.pmap(step, "i", in_axes=(None, 0))
    y = f(w, x0)
    z = f(w, y)
    assert y._host is None and w._host is None   # neither read back to the host
    assert z.sharding.spec == P("i")
    want = _stacked(f, w, _stacked(f, w, x0))
    np.testing.assert_allclose(np.asarray(z), np.asarray(want), rtol=1e-6, atol=1e-6)


def test_the_program_takes_and_leaves_each_devices_blocks():
    """The compiled program's arguments and results carry their devices (IREE's
    iree.abi.affinity), device 0's operands first; a collective-free function moves
    nothing between devices and stacks nothing."""
    mesh = irax.make_mesh((2, 2), ("x", "y"))
    program = DeviceProgram(lambda a, b: (jnp.sin(a) * b, a.sum()), mesh, irax.jit)
    a = np.arange(32, dtype=np.float32).reshape(4, 8)
    out, total = program((a, np.float32(2)), [P("x", "y"), P()],
                         lambda tree, avals: [P("x", "y"), P()])
    np.testing.assert_allclose(np.asarray(out), np.sin(a) * 2, rtol=1e-6)
    assert total.sharding.spec == P()
    np.testing.assert_allclose(np.asarray(total), a[:2, :4].sum())   # a replica's block
    (entry,) = program.entries.values()
    irax_text = str(entry.spec.trace_module)
    for k in range(N):
        assert f"irax.device = {k} : i64" in irax_text
    text = str(at_stage(entry.spec.trace_module, "stablehlo"))
    head = text[text.index("func.func @main("):].split("{\n", 1)[0]
    assert head.count("iree.abi.affinity") == 4 * N   # 2 arguments, 2 results each
    for k in range(N):
        assert f"tensor<2x4xf32> {{iree.abi.affinity = #hal.device.promise<@dev{k}>}}" in head
    assert "irax.num_devices = 4" in text
    assert "flow.tensor.transfer" not in text and "concatenate" not in text


def test_shard_map_and_sharded_jit_leave_shards_on_their_devices():
    mesh = irax.make_mesh((2, 2), ("x", "y"))
    a = np.random.default_rng(1).standard_normal((4, 8)).astype(np.float32)
    x = irax.device_put(a, NamedSharding(mesh, P("x", "y")))
    f = irax.shard_map(lambda b, s: lax.psum(b * s, "x"), mesh=mesh,
                       in_specs=(P("x", "y"), P()), out_specs=P(None, "y"))
    out = f(x, 2.0)
    assert x._host is None and out._host is None
    assert out.sharding == NamedSharding(mesh, P(None, "y"))
    for shard in out.addressable_shards:
        assert shard.data.devices() == {shard.device}
    np.testing.assert_allclose(np.asarray(out), 2 * (a[:2] + a[2:]), rtol=1e-6)

    rows, rep = NamedSharding(mesh, P("x")), NamedSharding(mesh, P())
    g = irax.jit(lambda v, w: (jnp.tanh(v @ w), jnp.sum(v)), in_shardings=(rows, rep),
                 out_shardings=(rows, rep))
    w = np.eye(8, dtype=np.float32) * 0.5
    xr = irax.device_put(a, rows)
    h, s = g(xr, w)
    assert xr._host is None and h._host is None
    assert h.sharding == rows and s.sharding == rep
    wh, ws = _stacked(g, xr, w)
    np.testing.assert_allclose(np.asarray(h), np.asarray(wh), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(s), np.asarray(ws), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(h), np.tanh(a @ w), rtol=1e-6)


def test_a_collective_in_a_loop_runs_the_stacked_program():
    """The per-device form cannot split a loop that holds a collective: the stacked
    program (a vmap on one device) runs, with the same values."""
    x = np.random.default_rng(2).standard_normal((N, 3)).astype(np.float32)
    body = lambda v: lax.fori_loop(0, 3, lambda i, c: c + lax.psum(c, "i"), v)  # noqa: E731
    got = irax.pmap(body, axis_name="i")(x)
    assert not isinstance(got.sharding, NamedSharding)
    np.testing.assert_allclose(np.asarray(got), np.asarray(irax.vmap(body, axis_name="i")(x)),
                               rtol=1e-6)


def test_the_program_compiles_for_two_cuda_devices():
    """Compile only (no GPU here): the program with the devices' blocks at its boundary,
    affinities included, is PTX for two CUDA devices."""
    import dataclasses

    from irax.passes import pipelines
    from irax.runtime.compiler import compile_module, target_for_platform

    mesh = irax.make_mesh((2,), ("d",))
    program = DeviceProgram(lambda x, w: lax.psum(jnp.tanh(x @ w), "d"), mesh, irax.jit)
    x = np.random.default_rng(3).standard_normal((8, 3)).astype(np.float32)
    w = np.random.default_rng(4).standard_normal((3, 5)).astype(np.float32)
    out = program((x, w), [P("d"), P()], lambda tree, avals: [P()])
    np.testing.assert_allclose(np.asarray(out), np.tanh(x[:4] @ w) + np.tanh(x[4:] @ w),
                               rtol=1e-5)
    (entry,) = program.entries.values()
    target = dataclasses.replace(target_for_platform("cuda"), num_devices=2)
    module = at_stage(entry.spec.trace_module, pipelines.iree_stage(target.backend))
    blob = compile_module(module, target)
    assert b".target sm_80" in blob
    assert b"dev0" in blob and b"dev1" in blob   # the two devices the program declares


def test_a_traced_option_retraces():
    """The program of a signature is traced again when an option that changes traces
    does (``config.trace_key``), as jit's are."""
    f = irax.pmap(lambda v: v + 1)
    x = np.arange(N, dtype=np.int64).reshape(N, 1)
    assert f(x).dtype == np.int32
    from irax.transforms import device_program

    assert any(p.entries for p in device_program._LIVE)
    irax.clear_caches()   # drops the compiled programs of top-level maps too
    assert not any(p.entries for p in device_program._LIVE)
    assert f(x).dtype == np.int32
    with config.override("jax_enable_x64", True):
        assert f(x).dtype == np.int64
        assert f(x).sharding.spec == P(PMAP_AXIS)
    assert f(x).dtype == np.int32
    from irax.transforms import device_program

    assert any(p.entries for p in device_program._LIVE)
    irax.clear_caches()   # drops the compiled programs of top-level maps too
    assert not any(p.entries for p in device_program._LIVE)
    assert f(x).dtype == np.int32


def test_without_a_spare_core_a_shard_map_runs_as_one_program(monkeypatch):
    """With no more cores than the mesh has devices (this 2-core machine and 4 devices)
    a top-level shard_map does not get a program per device on threads even with them
    on: one program with the devices' blocks at its boundary runs (faster there)."""
    from irax.transforms import spmd

    runs = []
    monkeypatch.setattr(spmd.SpmdProgram, "_run", lambda self, k, args: runs.append(k))
    monkeypatch.setattr(spmd, "cores", lambda: N)
    mesh = irax.make_mesh((2, 2), ("x", "y"))
    a = np.arange(32, dtype=np.float32).reshape(4, 8)
    f = irax.shard_map(lambda b: lax.psum(b, "x"), mesh=mesh, in_specs=P("x", "y"),
                       out_specs=P(None, "y"))
    with config.override("irax_shard_map_threads", True), \
            config.override("irax_shard_map_threads_min_work", 0):
        out = f(a)
    assert runs == [] and out.sharding == NamedSharding(mesh, P(None, "y"))
    np.testing.assert_allclose(np.asarray(out), a[:2] + a[2:])
