"""irax.sharding and irax.shard_map on a 2x2 mesh of 4 CPU devices, against real JAX:
tests/parallel/shard_map_cases.py runs the same programs and API calls under JAX (in a
process of its own, with 4 host devices) and the values, shards and error messages must
match. Training steps (data- and model-parallel) must equal the single-device step."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import irax
import irax.numpy as jnp
from irax import lax
from irax.config import config
from irax.experimental.shard_map import shard_map as old_spelling
from irax.sharding import AxisType, Mesh, NamedSharding
from irax.sharding import PartitionSpec as P

sys.path.insert(0, os.path.dirname(__file__))
import shard_map_cases  # noqa: E402

from irax.transforms import spmd  # noqa: E402


@pytest.fixture(scope="module", autouse=True)
def four_devices():
    old = config.jax_num_cpu_devices
    config.update("jax_num_cpu_devices", 4)
    try:
        # the small programs here run on threads too (by default a device's program
        # must do some work to get a thread of its own)
        with config.override("irax_shard_map_threads_min_work", 0), \
                pytest.MonkeyPatch.context() as patch:
            patch.setattr(spmd, "cores", lambda: 64)   # as on a machine with cores to spare
            yield
    finally:
        config.update("jax_num_cpu_devices", old)


@pytest.fixture(scope="module")
def mesh(four_devices):
    # Auto axes, as the JAX side uses (the reprs name the axis types)
    return irax.make_mesh((2, 2), ("x", "y"), axis_types=(AxisType.Auto,) * 2)


@pytest.fixture(scope="module")
def jax_ref(tmp_path_factory):
    path = tmp_path_factory.mktemp("jax") / "ref.npz"
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    subprocess.run([sys.executable, shard_map_cases.__file__, str(path)], check=True,
                   env=env, capture_output=True, timeout=600)
    with np.load(path) as data:
        return {k: data[k] for k in data.files}


CASES = ("reductions", "movement", "scatter", "replicated_args")


@pytest.mark.parametrize("threads,boundary", [(True, True), (False, True), (False, False)],
                         ids=["threads", "device-program", "stacked"])
@pytest.mark.parametrize("name", CASES)
def test_programs_match_jax(name, threads, boundary, mesh, jax_ref):
    """Every way irax runs a shard_map: a program per device on threads of its own (the
    default outside jit with cores to spare), one multi-device program with the devices'
    blocks at its boundary (without), and the stacked multi-device program (inside a
    trace, and with both options off)."""
    fn, arg_names = shard_map_cases.cases(jnp, lax, P, irax.shard_map, mesh)[name]
    data = shard_map_cases.inputs()
    with config.override("irax_shard_map_threads", threads), \
            config.override("irax_device_program", boundary):
        got = fn(*(data[a] for a in arg_names))
    keys = sorted(k.split("/", 1)[1] for k in jax_ref if k.startswith(name + "/"))
    assert sorted(got) == keys
    for k in keys:
        np.testing.assert_allclose(np.asarray(got[k]), jax_ref[f"{name}/{k}"], rtol=1e-6,
                                   atol=1e-6, err_msg=f"{name}/{k}")


JIT_CASES = ("around", "dp_step", "dp_grad_outside", "follow", "looped", "vmapped")


@pytest.mark.parametrize("threads,boundary", [(True, True), (False, True), (False, False)],
                         ids=["threads", "device-program", "stacked"])
@pytest.mark.parametrize("name", JIT_CASES)
def test_jits_around_shard_maps_match_jax(name, threads, boundary, mesh, jax_ref):
    """A jit of code around shard_maps is partitioned whole over their mesh (the maps
    inlined, the code around them propagated): values and result shardings as JAX's,
    in each way of running the partitioned program. ``looped`` holds its map in a loop,
    which stays the stacked program, and ``dp_grad_outside`` differentiates the jit from
    outside: values only."""
    def put(x, spec):
        return irax.device_put(x, NamedSharding(mesh, spec))

    fn, arg_names = shard_map_cases.jit_cases(jnp, lax, P, irax.shard_map, irax.jit,
                                              irax.grad, irax.vmap, put, mesh)[name]
    data = shard_map_cases.inputs()
    with config.override("irax_shard_map_threads", threads), \
            config.override("irax_device_program", boundary):
        got = fn(*(data[a] for a in arg_names))
    prefix = f"jit:{name}/"
    keys = sorted({k[len(prefix):].split("/")[0] for k in jax_ref if k.startswith(prefix)})
    assert sorted(got) == keys
    for k in keys:
        np.testing.assert_allclose(np.asarray(got[k]), jax_ref[prefix + k], rtol=2e-6,
                                   atol=2e-6, err_msg=prefix + k)
        if boundary and name in ("around", "dp_step", "follow", "vmapped"):
            assert shard_map_cases.spec_of(got[k]) == json.loads(str(jax_ref[
                f"{prefix}{k}/spec"])), prefix + k
            assert got[k].sharding.mesh == mesh   # (the maps' own mesh, axis types too)


def test_results_are_sharded_by_out_specs(mesh):
    f = irax.shard_map(lambda a: {"s": lax.psum(a, "y"), "t": a * 2}, mesh=mesh,
                       in_specs=P("x", "y"), out_specs={"s": P("x"), "t": P("x", "y")})
    a = shard_map_cases.inputs()["a"]
    out = f(a)
    assert out["t"].sharding == NamedSharding(mesh, P("x", "y"))
    assert out["s"].sharding == NamedSharding(mesh, P("x"))
    blocks = {s.device.id: np.asarray(s.data) for s in out["t"].addressable_shards}
    np.testing.assert_array_equal(blocks[1], 2 * a[:2, 4:])   # device (x=0, y=1)
    np.testing.assert_array_equal(blocks[2], 2 * a[2:, :4])   # device (x=1, y=0)
    # a sharded result feeds the next shard_map, whose in_specs default to its sharding
    g = irax.shard_map(lambda t: t + lax.axis_index("x"), mesh=mesh, out_specs=P("x", "y"))
    np.testing.assert_array_equal(np.asarray(g(out["t"])),
                                  2 * a + np.float32([0, 0, 1, 1])[:, None])


def test_threaded_results_stay_on_their_devices(mesh):
    """A program per device: each result block is computed on its device and kept there
    (no gather); a sharded argument's blocks are used where they are; weak types of
    Python scalars survive; a collective in a loop runs as one program instead."""
    a = shard_map_cases.inputs()["a"]
    x = irax.device_put(a, NamedSharding(mesh, P("x", "y")))
    f = irax.shard_map(lambda b, s: lax.psum(b * s, "x"), mesh=mesh,
                       in_specs=(P("x", "y"), P()), out_specs=P(None, "y"))
    for run in (f, irax.jit(f)):   # jit(shard_map(f)) runs the same way, as in JAX
        out = run(x, 2.0)
        assert out._host is None   # not assembled
        assert out.sharding == NamedSharding(mesh, P(None, "y"))
        for shard in out.addressable_shards:
            assert shard.data.devices() == {shard.device}
        np.testing.assert_allclose(np.asarray(out), 2 * (a[:2] + a[2:]), rtol=1e-6)
    assert "irax.shard_map" in irax.jit(f).lower(x, 2.0).as_text("irax")   # traced form
    h = irax.shard_map(lambda b, s: b * s, mesh=mesh, in_specs=(P("x", "y"), P()),
                       out_specs=P("x", "y"))
    assert h(x.astype(jnp.bfloat16), 3.0).dtype == jnp.bfloat16
    looped = irax.shard_map(lambda b: lax.fori_loop(0, 2, lambda i, c: lax.psum(c, "y"), b),
                            mesh=mesh, in_specs=P("x", "y"), out_specs=P("x", "y"))
    s = a[:, :4] + a[:, 4:]
    np.testing.assert_allclose(np.asarray(looped(a)), np.tile(2 * s, (1, 2)), rtol=1e-6)


def test_threaded_collectives_share_their_work(mesh, monkeypatch):
    """On threads each member of a psum group sums its share of the elements into one
    array the group fills together, and each all_gather member writes its own place:
    sizes that do not divide among the members, 0-d values, integers, collectives one
    after another on the same axis (a new shared array each), and the operands read
    as views of the devices' buffers (not copied), all equal NumPy's."""
    runs = []
    original = spmd.SpmdProgram._run
    monkeypatch.setattr(spmd.SpmdProgram, "_run",   # (each device's compiled program)
                        lambda self, fn, args: runs.append(args[0].home.id)
                        or original(self, fn, args))
    writeable = []
    meet = spmd._Rendezvous.meet
    monkeypatch.setattr(spmd._Rendezvous, "meet", lambda self, pos, value, *a: (
        writeable.append(value.flags.writeable), meet(self, pos, value, *a))[1])

    def f(v, i):
        s = lax.psum(v, ("x", "y"))           # 5 elements over 4 members
        t = lax.psum(s * v, "x")              # the next one on an overlapping group
        return {"s": s, "t": t, "m": lax.pmax(v[:1], "y"), "i": lax.psum(i, "x"),
                "z": lax.psum(v[0], ("x", "y")),
                "g": lax.all_gather(v[:3], ("x", "y"), tiled=True),
                "gs": lax.all_gather(v[0], "y")}

    g = irax.shard_map(f, mesh=mesh, in_specs=(P(("x", "y")), P(("x", "y"))),
                       out_specs={"s": P(), "t": P("y"), "m": P("x"), "i": P("y"),
                                  "z": P(), "g": P(), "gs": P("x")},
                       check_vma=False)   # JAX's check does not see an all_gather's result
                                          # equal over its axes either
    rng = np.random.default_rng(5)
    v = rng.standard_normal(20).astype(np.float32)
    i = rng.integers(-50, 50, 4).astype(np.int32)
    out = g(v, i)
    assert sorted(runs) == sorted(d.id for d in mesh.devices.flat)
    assert writeable and not any(writeable)   # the mapped buffers, read-only
    blocks = v.reshape(4, 5)   # device k = 2 * x + y holds blocks[k]
    s = blocks.sum(0)
    np.testing.assert_allclose(np.asarray(out["s"]), s, rtol=1e-6)
    t = np.stack([s * blocks[0] + s * blocks[2], s * blocks[1] + s * blocks[3]])
    np.testing.assert_allclose(np.asarray(out["t"]), t.reshape(-1), rtol=1e-5)
    np.testing.assert_array_equal(np.asarray(out["m"]),
                                  [max(blocks[0, 0], blocks[1, 0]),
                                   max(blocks[2, 0], blocks[3, 0])])
    np.testing.assert_array_equal(np.asarray(out["i"]), [i[0] + i[2], i[1] + i[3]])
    np.testing.assert_allclose(np.asarray(out["z"]), blocks[:, 0].sum(), rtol=1e-6)
    np.testing.assert_array_equal(np.asarray(out["g"]), blocks[:, :3].reshape(-1))
    np.testing.assert_array_equal(np.asarray(out["gs"]), blocks[:, 0])


def test_threaded_psum_of_a_pytree_meets_once_per_dtype(mesh, monkeypatch):
    """On threads, psum/pmean/pmax of a pytree (a gradient's leaves) sends the leaves of
    one dtype as one flat array: the devices meet once per dtype and collective, not once
    per leaf; each leaf's values are those of its own collective."""
    meets = []
    meet = spmd._Rendezvous.meet
    monkeypatch.setattr(spmd._Rendezvous, "meet", lambda self, pos, value, *a: (
        meets.append((pos, value.shape)), meet(self, pos, value, *a))[1])

    def f(w, b, n):
        tree = {"w": w, "b": b[:1], "n": n, "v": 2 * w[:1]}
        return lax.psum(tree, "x"), lax.pmax(tree, ("x", "y")), lax.pmean((w, b), "y")

    g = irax.shard_map(f, mesh=mesh, in_specs=(P("x", "y"), P(("x", "y")), P(("x", "y"))),
                       out_specs=(P("y"), P(), P("x")), check_vma=False)
    rng = np.random.default_rng(3)
    w = rng.standard_normal((4, 6)).astype(np.float32)
    b = rng.standard_normal(12).astype(np.float32)
    n = rng.integers(-9, 9, 8).astype(np.int32)
    s, m, mean = g(w, b, n)
    per_device = {}
    for pos, shape in meets:
        per_device.setdefault(pos, []).append(shape)
    # float32 leaves w (2x3), b[:1] (1), 2w[:1] (1x3) as one array of 10, the int32 leaf
    # alone (pmax over two axes: one meeting per axis); pmean's two leaves as one of 9
    assert per_device[0] == [(10,), (2,), (10,), (10,), (2,), (2,), (9,)], per_device[0]
    blk = [w[2 * (k // 2):2 * (k // 2) + 2, 3 * (k % 2):3 * (k % 2) + 3] for k in range(4)]
    bk, nk = b.reshape(4, 3), n.reshape(4, 2)
    np.testing.assert_allclose(np.asarray(s["w"]), np.vstack([blk[0] + blk[2],
                                                              blk[1] + blk[3]]), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(s["b"]), [bk[0, 0] + bk[2, 0], bk[1, 0] + bk[3, 0]],
                               rtol=1e-6)
    np.testing.assert_array_equal(np.asarray(s["n"]), np.hstack([nk[0] + nk[2],
                                                                 nk[1] + nk[3]]))
    np.testing.assert_allclose(np.asarray(s["v"]), np.vstack([2 * (blk[0] + blk[2])[:1],
                                                              2 * (blk[1] + blk[3])[:1]]),
                               rtol=1e-6)
    np.testing.assert_array_equal(np.asarray(m["w"]), np.max(blk, axis=0))
    np.testing.assert_array_equal(np.asarray(m["n"]), nk.max(0))
    np.testing.assert_allclose(np.asarray(mean[0]), np.vstack([(blk[0] + blk[1]) / 2,
                                                               (blk[2] + blk[3]) / 2]),
                               rtol=1e-6)
    np.testing.assert_allclose(np.asarray(mean[1]), np.hstack([(bk[0] + bk[1]) / 2,
                                                               (bk[2] + bk[3]) / 2]),
                               rtol=1e-6)


def test_clear_caches_drops_the_threaded_programs(mesh):
    """The devices' compiled programs a shard_map on threads keeps per signature go with
    ``irax.clear_caches``; the next call compiles them again, with the same values."""
    g = irax.shard_map(lambda b: lax.psum(b * 2, "x"), mesh=mesh, in_specs=P("x", "y"),
                       out_specs=P(None, "y"))
    a = np.arange(32, dtype=np.float32).reshape(4, 8)
    first = np.asarray(g(a))
    programs = [p for p in spmd._PROGRAMS if p.mesh is mesh and p.entries]
    assert programs
    irax.clear_caches()
    assert not any(p.entries for p in programs)
    np.testing.assert_array_equal(np.asarray(g(a)), first)
    assert any(p.entries for p in programs)


def test_a_failing_device_stops_the_others(mesh):
    """On threads, a device whose program fails releases the others waiting for it at a
    collective: its error is raised (no hang), and the next call runs normally."""
    def refuse_positive(v):
        if float(v.sum()) > 0:
            raise ValueError("this device refuses")
        return v

    def f(b):
        b = irax.pure_callback(refuse_positive, irax.ShapeDtypeStruct(b.shape, b.dtype), b)
        return lax.psum(b, ("x", "y"))

    g = irax.shard_map(f, mesh=mesh, in_specs=P(("x", "y")), out_specs=P())
    with pytest.raises(ValueError, match="this device refuses"):
        g(np.float32([-1, -2, 3, -4]))
    np.testing.assert_allclose(np.asarray(g(np.float32([-1, -2, -3, -4]))), [-10.0])


def test_small_programs_run_as_one(mesh, monkeypatch):
    """Below irax_shard_map_threads_min_work a device's program does not get a thread:
    the shard_map runs as one program (the same values), decided once per signature."""
    runs = []
    original = spmd.SpmdProgram._run
    monkeypatch.setattr(spmd.SpmdProgram, "_run",   # (each device's compiled program)
                        lambda self, fn, args: runs.append(args[0].home.id)
                        or original(self, fn, args))
    f = irax.shard_map(lambda b: lax.psum(b, "x") * 2, mesh=mesh, in_specs=P("x"),
                       out_specs=P())
    a = shard_map_cases.inputs()["a"]
    want = 2 * (a[:2] + a[2:])
    with config.override("irax_shard_map_threads_min_work", 1 << 17):
        for _ in range(2):
            np.testing.assert_allclose(np.asarray(f(a)), want, rtol=1e-6)
        assert runs == []
    np.testing.assert_allclose(np.asarray(f(a)), want, rtol=1e-6)   # min_work 0: threads
    assert sorted(runs) == [0, 1, 2, 3]


def test_sharding_api_matches_jax(mesh, jax_ref):
    want = json.loads(str(jax_ref["facts"]))
    got = shard_map_cases.sharding_facts(P, NamedSharding, irax.device_put, mesh)
    assert set(got) == set(want)
    for key in want:
        assert got[key] == want[key], key


@pytest.mark.parametrize("threads", [True, False], ids=["threads", "device-program"])
def test_errors_match_jax(threads, mesh, jax_ref):
    """The facts of each message (its first paragraphs) are JAX's; the advice after them
    is irax's own. JAX names the manual axes as a frozenset, irax as the mesh's names.
    Both ways a top-level shard_map runs check first."""
    paragraphs = {"spec_too_long": 2, "indivisible": 3, "indivisible_one_axis": 3,
                  "out_spec_too_long": 2}
    thunks = shard_map_cases.errors(P, irax.shard_map, NamedSharding, irax.device_put, mesh)
    for name, thunk in thunks.items():
        want = str(jax_ref[f"error/{name}"])
        with pytest.raises(ValueError) as info, \
                config.override("irax_shard_map_threads", threads):
            thunk()
        got = f"{type(info.value).__name__}: {info.value}"
        if name == "unknown_axis":
            assert got.startswith("ValueError: shard_map in_specs argument must refer to an "
                                  "axis of the mesh ('x', 'y'), but:")
            assert got.split("\n\n")[1:] == want.split("\n\n")[1:]
        elif name.startswith("vma_"):   # JAX names an inner wrapper, irax the function
            assert got.startswith("ValueError: shard_map applied to the function 'f' was "
                                  "given out_specs which require replication")
            assert got.split("\n\n")[1:3] == want.split("\n\n")[1:3], name
        elif name in paragraphs:
            n = paragraphs[name]
            assert got.split("\n\n")[:n] == want.split("\n\n")[:n], name
        else:
            assert got == want, name


def test_spec_structure_errors(mesh):
    f = irax.shard_map(lambda a, b: a, mesh=mesh, in_specs=(P(), P(), P()), out_specs=P())
    with pytest.raises(ValueError, match=r"in_specs that are not a pytree prefix of its "
                       r"arguments: expected a prefix of PyTreeDef\(\(\*, \*\)\), got "
                       r"in_specs of structure PyTreeDef\(\(\*, \*, \*\)\)"):
        f(np.zeros(4), np.zeros(4))
    g = irax.shard_map(lambda a: (a, a), mesh=mesh, in_specs=P(), out_specs=[P()])
    with pytest.raises(ValueError, match="out_specs that are not a pytree prefix of its "
                       "outputs"):
        g(np.zeros(4))
    with pytest.raises(TypeError, match="shard_map in_specs entries must be "
                       "PartitionSpecs or None, got 'x'"):
        irax.shard_map(lambda a: a, mesh=mesh, in_specs=("x",), out_specs=P())
    with pytest.raises(ValueError, match=r"shard_map requires a mesh"):
        irax.shard_map(lambda a: a, in_specs=P(), out_specs=P())


# ---- training steps: sharded == single device --------------------------------------------
def _mlp_params(seed=0):
    rng = np.random.default_rng(seed)
    f = lambda *s: (rng.normal(size=s) * 0.5).astype(np.float32)  # noqa: E731
    return {"w1": f(3, 8), "b1": f(8), "w2": f(8, 2), "b2": f(2)}


def _forward(p, x):
    return jnp.tanh(x @ p["w1"] + p["b1"]) @ p["w2"] + p["b2"]


def _loss(p, x, y):
    return jnp.mean((_forward(p, x) - y) ** 2)


def _batch(seed=1, n=16):
    rng = np.random.default_rng(seed)
    return (rng.normal(size=(n, 3)).astype(np.float32),
            rng.normal(size=(n, 2)).astype(np.float32))


LR = 0.1


@irax.jit
def _single_step(p, x, y):
    loss, g = irax.value_and_grad(_loss)(p, x, y)
    return irax.tree_util.tree_map(lambda a, b: a - LR * b, p, g), loss


def _assert_trees_close(got, want, rtol=2e-5):
    for k in want:
        np.testing.assert_allclose(np.asarray(got[k]), np.asarray(want[k]), rtol=rtol,
                                   atol=1e-6, err_msg=k)


def test_data_parallel_step_equals_single_device(mesh):
    """Batch split over both mesh axes, params replicated; each device takes the gradient
    of its shard's loss and the gradients are averaged with pmean (the classic pattern)."""
    batch = P(("x", "y"))

    def local_step(p, x, y):
        loss, g = irax.value_and_grad(_loss)(p, x, y)
        g = lax.pmean(g, ("x", "y"))
        return irax.tree_util.tree_map(lambda a, b: a - LR * b, p, g), \
            lax.pmean(loss, ("x", "y"))

    mapped = irax.shard_map(local_step, mesh=mesh, in_specs=(P(), batch, batch),
                            out_specs=(P(), P()))
    step = irax.jit(mapped)          # one program; called directly: one per device
    p, (x, y) = _mlp_params(), _batch()
    want_p, want_loss = _single_step(p, x, y)
    for run in (step, mapped):
        got_p, got_loss = run(p, x, y)
        _assert_trees_close(got_p, want_p)
        np.testing.assert_allclose(got_loss, want_loss, rtol=1e-5)
    # a second step from the first's (replicated, sharded) outputs
    want_p2, _ = _single_step(want_p, x, y)
    got_p2, _ = step(got_p, x, y)
    _assert_trees_close(got_p2, want_p2)


def test_model_parallel_step_equals_single_device(mesh):
    """The hidden layer split over "y" (w1 by its output dimension, w2 by its input) and
    the batch over "x"; the gradient is taken through the shard_map, outside it."""
    specs = {"w1": P(None, "y"), "b1": P("y"), "w2": P("y", None), "b2": P()}

    def local_loss(p, x, y):
        h = jnp.tanh(x @ p["w1"] + p["b1"])
        out = lax.psum(h @ p["w2"], "y") + p["b2"]
        return lax.psum(jnp.sum((out - y) ** 2), "x") / (x.shape[0] * 2 * y.shape[1])

    loss = irax.shard_map(local_loss, mesh=mesh, in_specs=(specs, P("x"), P("x")),
                          out_specs=P())

    @irax.jit
    def step(p, x, y):
        value, g = irax.value_and_grad(loss)(p, x, y)
        return irax.tree_util.tree_map(lambda a, b: a - LR * b, p, g), value

    p, (x, y) = _mlp_params(2), _batch(3)
    want_p, want_loss = _single_step(p, x, y)
    got_p, got_loss = step(p, x, y)
    np.testing.assert_allclose(got_loss, want_loss, rtol=1e-5)
    _assert_trees_close(got_p, want_p)


def test_transforms_of_shard_map(mesh):
    a = shard_map_cases.inputs()["a"]
    # a collective inside a loop: one program over the mesh, not per-device copies
    def loopy(x):
        return lax.fori_loop(0, 3, lambda i, c: c + lax.psum(x * i, "x"), jnp.zeros_like(x))

    got = irax.shard_map(loopy, mesh=mesh, in_specs=P("x", "y"), out_specs=P(None, "y"))(a)
    np.testing.assert_allclose(np.asarray(got), 3 * (a[:2] + a[2:]), rtol=1e-6)
    # vmap over a shard_map: the batch axis rides along in every block
    f = irax.shard_map(lambda b: lax.psum(b, "y"), mesh=mesh, in_specs=P("x", "y"),
                       out_specs=P("x", None))
    got = irax.vmap(f)(np.stack([a, -a]))
    want = a[:, :4] + a[:, 4:]
    np.testing.assert_allclose(np.asarray(got), np.stack([want, -want]), rtol=1e-6)
    # jvp through it
    primal, tangent = irax.jvp(f, (a,), (np.ones_like(a),))
    np.testing.assert_allclose(np.asarray(tangent), np.full((4, 4), 2.0))


def test_mesh_construction_and_context(four_devices):
    devices = irax.devices()
    mesh = Mesh(np.array(devices).reshape(2, 2), ("a", "b"))
    assert mesh.shape == {"a": 2, "b": 2} and mesh.size == 4
    assert mesh.axis_types == (AxisType.Auto,) * 2        # as jax.sharding.Mesh
    assert irax.make_mesh((4,), ("d",)).axis_types == (AxisType.Explicit,)  # as make_mesh
    with pytest.raises(ValueError, match=r"Number of devices 4 must be >= the "
                       r"product of mesh_shape \(4, 2\)"):
        irax.make_mesh((4, 2), ("a", "b"))
    with irax.set_mesh(mesh):
        assert irax.sharding.get_abstract_mesh() is mesh
        x = irax.device_put(np.arange(8.0), P("a"))
        assert x.sharding == NamedSharding(mesh, P("a"))
        out = irax.shard_map(lambda v: v * lax.axis_index("b"), in_specs=P("a"),
                             out_specs=P("a"), check_vma=False)(x)
        # "b" is not in the out spec: the first device's block along "b" (index 0); with
        # check_vma (the default) JAX's error says the value varies along "b"
        with pytest.raises(ValueError, match="replicated across mesh axis 'b'"):
            irax.shard_map(lambda v: v * lax.axis_index("b"), in_specs=P("a"),
                           out_specs=P("a"))(x)
        np.testing.assert_array_equal(np.asarray(out), np.zeros(8))
    assert irax.sharding.get_abstract_mesh() is not mesh
    with mesh:                       # a mesh is a context manager too
        assert irax.sharding.get_abstract_mesh() is mesh
    assert irax.sharding.get_abstract_mesh() is not mesh
    assert old_spelling is irax.shard_map


def test_a_shard_map_program_compiles_for_two_cuda_devices(four_devices, tmp_path):
    """Compile only (no GPU here): the multi-device program of a shard_map over 2 devices
    is PTX for two CUDA devices; the same export for the CPU runs and matches."""
    mesh = irax.make_mesh((2,), ("d",))
    f = irax.jit(irax.shard_map(lambda x, w: lax.psum(jnp.tanh(x @ w), "d"), mesh=mesh,
                                in_specs=(P("d"), P()), out_specs=P()))
    x, w = _batch(4, n=8)[0], _mlp_params(5)["w2"][:3]
    exp = irax.export.export(f, targets=["cuda:sm_80", "cpu"])(x, w)
    assert exp.nr_devices == 2
    blob = exp.serialize("cuda:sm_80")
    assert b".target sm_80" in blob
    assert b"dev0=cuda[0]" in blob and b"dev1=cuda[1]" in blob
    exp.save(tmp_path / "cpu.vmfb", "cpu")
    want = np.tanh(x[:4] @ w) + np.tanh(x[4:] @ w)
    np.testing.assert_allclose(np.asarray(irax.aot.load(tmp_path / "cpu.vmfb")(x, w)), want,
                               rtol=1e-5)


def test_check_vma_follows_the_collectives(mesh):
    """What varies along which mesh axis (JAX's rules): psum/pmax over an axis make a value
    the same along it; all_gather and axis_index make it vary; an out spec claiming more
    is refused, traced or not, unless check_vma=False. Loops holding collectives are not
    analysed (never refused)."""
    a = shard_map_cases.inputs()["a"]

    def sm(f, out_specs, **kw):
        return irax.shard_map(f, mesh=mesh, in_specs=P("x", "y"), out_specs=out_specs, **kw)

    ok = [sm(lambda v: lax.psum(v, "y") * 2, P("x")), sm(lambda v: lax.pmax(v, "y"), P("x")),
          sm(lambda v: lax.psum(lax.psum(v, "x"), "y"), P()),
          sm(lambda v: lax.psum(lax.pcast(v, "y", to="varying"), "y"), P("x")),
          sm(lambda v: lax.fori_loop(0, 2, lambda i, c: lax.psum(c, "y") / 2, v), P("x"))]
    for f in ok:
        irax.jit(lambda v, f=f: f(v) + 1)(a)
    bad = [sm(lambda v: v * 2, P("x")),
           sm(lambda v: lax.all_gather(lax.psum(v, "y"), "y", tiled=True), P("x")),
           sm(lambda v: lax.psum(v, "y") + lax.axis_index("y"), P("x"))]
    for f in bad:
        with pytest.raises(ValueError, match="replicated across mesh axis 'y'"):
            irax.jit(lambda v, f=f: f(v) + 1)(a)       # traced inside a larger jit
        with pytest.raises(ValueError, match="replicated across mesh axis 'y'"):
            f(a)                                       # a program per device on threads
    loose = sm(lambda v: v * 2, P("x"), check_vma=False)
    np.testing.assert_array_equal(np.asarray(loose(a)), np.asarray(a)[:, :a.shape[1] // 2] * 2)


@pytest.mark.parametrize("threads", [True, False], ids=["threads", "device-program"])
def test_collectives_in_a_loop_of_a_jit_of_a_map_over_one_axis(threads):
    """A jit around a shard_map whose loop holds ``axis_index`` and ``psum``, over a mesh
    of one axis: the loop cannot be split per device, so the map runs as its vmap over
    that axis (regression: the vmap was made for no axis name, leaving both collectives
    unbound inside the loop)."""
    mesh = irax.make_mesh((2,), ("d",), devices=irax.devices()[:2])
    x = np.arange(8.0, dtype=np.float32)

    def g(v):
        return lax.fori_loop(0, 2, lambda i, c: c + lax.axis_index("d") + lax.psum(c, "d"), v)

    h = irax.jit(irax.shard_map(g, mesh=mesh, in_specs=P("d"), out_specs=P("d")))
    runs = []
    run = spmd.SpmdProgram._run
    with config.override("irax_shard_map_threads", threads), \
            pytest.MonkeyPatch.context() as patch:
        patch.setattr(spmd.SpmdProgram, "_run", lambda self, *a: runs.append(1) or run(self, *a))
        out = h(irax.device_put(x, NamedSharding(mesh, P("d"))))
    # on threads: traced per device the loop's collectives cannot meet, but the map's
    # partitioned jit replays the loop, whose trips are the same on both devices
    assert len(runs) == (2 if threads else 0)
    want = x.reshape(2, 4)
    for _ in range(2):
        want = want + np.arange(2, dtype=np.float32)[:, None] + want.sum(0)
    np.testing.assert_array_equal(np.asarray(out), want.reshape(8))


def test_a_loop_whose_trips_differ_between_devices_meets_no_collective_on_threads(mesh):
    """In a jit around a shard_map, a loop whose condition reads ``axis_index`` takes a
    different number of trips on each device. Without a collective inside, the devices'
    programs still run on threads, each its own trips; with one, they would wait there
    for devices that left the loop: such a program runs as one program instead."""
    from irax.transforms.spmd import SpmdProgram

    def g(v, meet):
        k = lax.axis_index("x") * 2 + lax.axis_index("y")

        def body(c):
            return c[0] + 1, (lax.pmax(c[1], "y") if meet else c[1]) * 2.0
        return lax.while_loop(lambda c: c[0] < k + 1, body, (0, v))[1]

    spec = P(("x", "y"))
    for meet in (False, True):
        mapped = irax.shard_map(lambda v, m=meet: g(v, m), mesh=mesh, in_specs=spec,
                                out_specs=spec)
        f = irax.jit(lambda v, m=mapped: m(v) + 1.0)   # partitioned over the map's mesh
        out = np.asarray(f(np.ones(8, np.float32))) - 1.0
        (entry,) = f._cache.values()
        if not meet:
            np.testing.assert_array_equal(out, np.repeat([2.0, 4.0, 8.0, 16.0], 2))
            assert isinstance(entry.partitioned.program, SpmdProgram)
        else:
            assert entry.partitioned.program is False
