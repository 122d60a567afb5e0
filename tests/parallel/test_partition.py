"""irax-partition: jit(in_shardings=, out_shardings=) and with_sharding_constraint
partition the program over the mesh (a shard_map of per-device code with collectives).

Each partitioned program is checked against the same program unpartitioned; the
registry-wide test partitions every op's samples (operands split over a 2x2 mesh where
their sizes allow) and runs the result on the reference interpreter, so every op's
sharding rule is checked against its reference semantics.
"""

import sys
from pathlib import Path

import numpy as np
import pytest

import irax
import irax.numpy as jnp
from irax import lax
from irax.config import config
from irax.dialect.interpreter import evaluate_function
from irax.dialect.sharding import Mesh, ShardingConstraint
from irax.frontend.trace import mark_shardings
from irax.passes import run_pipeline
from irax.sharding import NamedSharding
from irax.sharding import PartitionSpec as P
from irax.transforms import spmd

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "dialect"))
from op_samples import SAMPLES  # noqa: E402

from irax.dialect import REGISTRY  # noqa: E402
from irax.frontend.trace import bind  # noqa: E402


def _x(*shape, seed=0):
    return np.random.default_rng(seed).normal(size=shape).astype(np.float32)


def _partitioned_text(lowered) -> str:
    """The module after irax-partition (before irax-shard expands the shard_map)."""
    module = lowered.compiler_ir("irax")
    run_pipeline(module, "builtin.module(irax-expand-transforms, irax-partition)")
    return str(module)


# ---- MLP training steps ----------------------------------------------------------------------
def _params(sizes=(16, 32, 8), seed=0):
    r = np.random.default_rng(seed)
    return [((r.standard_normal((a, b)) / np.sqrt(a)).astype(np.float32),
             (0.1 * r.standard_normal(b)).astype(np.float32))
            for a, b in zip(sizes[:-1], sizes[1:])]


def _loss(params, x, y):
    h = x
    for w, b in params[:-1]:
        h = jnp.maximum(h @ w + b, 0.0)
    w, b = params[-1]
    z = h @ w + b
    logp = z - irax.nn.logsumexp(z, axis=-1, keepdims=True)
    return -jnp.mean(jnp.sum(logp * y, axis=-1))


def _step(params, x, y):
    loss, grads = irax.value_and_grad(_loss)(params, x, y)
    return [(w - 0.1 * gw, b - 0.1 * gb) for (w, b), (gw, gb) in zip(params, grads)], loss


def _data(batch=16, seed=1):
    r = np.random.default_rng(seed)
    x = r.standard_normal((batch, 16)).astype(np.float32)
    y = np.eye(8, dtype=np.float32)[r.integers(0, 8, batch)]
    return x, y


def _close(a, b):
    for u, v in zip(irax.tree.leaves(a), irax.tree.leaves(b)):
        np.testing.assert_allclose(np.asarray(u), np.asarray(v), rtol=2e-5, atol=2e-6)


def test_data_parallel_training_step_is_partitioned(mesh):
    params, (x, y) = _params(), _data()
    rep, rows = NamedSharding(mesh, P()), NamedSharding(mesh, P(("x", "y")))
    step = irax.jit(_step, in_shardings=(rep, rows, rows), out_shardings=(rep, rep))
    with config.override("irax_tiered_jit", False):   # IREE's program for 4 devices
        new, loss = step(params, x, y)
    ref_new, ref_loss = irax.jit(_step)(params, x, y)
    _close((new, loss), (ref_new, ref_loss))
    assert new[0][0].sharding == rep
    text = _partitioned_text(step.lower(params, x, y))
    # each device holds 16 / 4 examples; the gradients are summed over the batch axes
    assert '"irax.shard_map"' in text and "tensor<4x16xf32>" in text
    assert 'axis_name = "x"' in text and 'axis_name = "y"' in text
    assert '"irax.psum"' in text and '"irax.all_gather"' not in text
    # several steps in a row keep agreeing
    p, q = new, ref_new
    for _ in range(3):
        (p, _), (q, _) = step(p, x, y), irax.jit(_step)(q, x, y)
    _close(p, q)


@pytest.mark.parametrize("spec", [P(("x", "y")), P("x")])
def test_partitioned_step_runs_a_program_per_device_on_threads(mesh, spec):
    """On CPU devices the per-device function runs on a thread per device, its
    collectives met on the host; the results stay as the devices' shards."""
    from irax.transforms.spmd import SpmdProgram

    params, (x, y) = _params(), _data()
    rep, rows = NamedSharding(mesh, P()), NamedSharding(mesh, spec)
    step = irax.jit(lambda *a: _step(*a), in_shardings=(rep, rows, rows),
                    out_shardings=(rep, rep))   # its own specializations
    with config.override("irax_shard_map_threads_min_work", 0):
        new, loss = step(params, x, y)
        again = step(new, x, y)
    ref = irax.jit(_step)(params, x, y)
    _close((new, loss), ref)
    _close(again, irax.jit(_step)(*ref[:1], x, y))
    (entry,) = step._jitted._cache.values()
    program = entry.partitioned.program
    assert isinstance(program, SpmdProgram) and not program.small
    assert new[0][0].sharding == rep and len(new[0][0].addressable_shards) == 4
    # per-device inputs: a sharded argument gives each device its own block
    xs = irax.device_put(x, rows)
    with config.override("irax_shard_map_threads_min_work", 0):
        _close(step(params, xs, y), ref)
    # without threads: the one multi-device program, the same values
    with config.override("irax_shard_map_threads", False):
        _close(step(params, x, y), ref)


def test_model_parallel_training_step_is_partitioned(mesh):
    params, (x, y) = _params(), _data()
    (w1, b1), (w2, b2) = params
    col, row = NamedSharding(mesh, P(None, "y")), NamedSharding(mesh, P("y"))
    rep, batch = NamedSharding(mesh, P()), NamedSharding(mesh, P("x"))
    spec = [(col, row), (row, rep)]   # w1 split by output dim, w2 by input dim
    step = irax.jit(_step, in_shardings=(spec, batch, batch), out_shardings=(spec, rep))
    new, loss = step(params, x, y)
    _close((new, loss), irax.jit(_step)(params, x, y))
    assert new[0][0].sharding == col and new[1][0].sharding == row
    text = _partitioned_text(step.lower(params, x, y))
    assert "tensor<16x16xf32>" in text   # each device's half of w1's 32 columns
    assert '"irax.psum"' in text


def test_with_sharding_constraint_partitions_a_plain_jit(mesh):
    a, b = _x(8, 6), _x(6, 4, seed=1)

    def f(a, b):
        h = lax.with_sharding_constraint(jnp.tanh(a @ b), NamedSharding(mesh, P("x", "y")))
        return jnp.sum(h, axis=0), jnp.max(h), h.T

    g = irax.jit(f)
    out = g(a, b)
    ref = irax.jit(f, inline=True).lower(a, b)   # another key: compiled apart
    h = np.tanh(a @ b)
    np.testing.assert_allclose(np.asarray(out[0]), h.sum(0), rtol=1e-5)
    np.testing.assert_allclose(np.asarray(out[1]), h.max(), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(out[2]), h.T, rtol=1e-6)
    text = _partitioned_text(ref)
    assert '"irax.pmax"' in text and '"irax.sharding_constraint"' not in text


def test_reshards_between_constraints(mesh):
    """Moving a split between dimensions; a reshape keeps a split that
    stays contiguous; a grad through constraints gives the unconstrained gradient."""
    a = _x(8, 12)
    c = lambda v, *s: lax.with_sharding_constraint(v, NamedSharding(mesh, P(*s)))  # noqa: E731

    def f(a):
        u = c(a, "x", "y")
        v = c(u * 2.0, "y", "x")
        r = c(jnp.reshape(v, (4, 2, 12)), "x")
        return jnp.sum(jnp.sin(r) * r[..., ::-1])

    g = irax.jit(irax.value_and_grad(f))
    val, grad = g(a)
    ref_val, ref_grad = irax.jit(irax.value_and_grad(f), inline=True)(a)
    np.testing.assert_allclose(np.asarray(val), np.asarray(ref_val), rtol=1e-5)
    np.testing.assert_allclose(np.asarray(grad), np.asarray(ref_grad), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("threads,boundary", [(True, True), (False, True), (False, False)],
                         ids=["threads", "device-program", "stacked"])
def test_axes_moving_between_dimensions_are_exchanged(mesh, threads, boundary):
    """A mesh axis leaving one dimension for another moves with an all_to_all (each
    device sends each other one the block it will own), one per axis, innermost first:
    ``("x", "y")`` rows to ``("y", "x")`` columns is two; back from ``("y", "x")``
    columns to rows all of a dimension's axes move together, in their order (two, over
    each axis' share of the rows); ``("y", "x")`` rows to ``("y",)`` rows and ``("x",)``
    columns one. Only ``a[::-1]`` (a reverse needs its dimension whole) gathers. Values
    (and gradients, whose transposes move the blocks back) as unpartitioned, in every way
    of running."""
    a = _x(8, 12)
    c = lambda v, *s: lax.with_sharding_constraint(v, NamedSharding(mesh, P(*s)))  # noqa: E731

    def f(a):
        u = jnp.tanh(a)
        v = c(u * 2.0, None, ("y", "x"))     # ("x", "y") rows to ("y", "x") columns
        w = c(jnp.sin(v), ("y", "x"), None)  # and back
        return jnp.sum(w * a[::-1]), c(w[:, :4] + 1.0, "y", "x")

    rows = NamedSharding(mesh, P(("x", "y")))
    g = irax.jit(irax.value_and_grad(f, has_aux=True), in_shardings=rows)
    text = _partitioned_text(irax.jit(f, in_shardings=rows).lower(a))
    body = text.split("_spmd(")[1]
    assert body.count('"irax.all_to_all"') == 5
    assert body.count('"irax.all_gather"') == 2   # (the reverse's operand, over x and y)
    with config.override("irax_shard_map_threads", threads), \
            config.override("irax_device_program", boundary):
        (val, aux), grad = g(a)
    (ref_val, ref_aux), ref_grad = irax.jit(irax.value_and_grad(f, has_aux=True),
                                            inline=True)(a)
    np.testing.assert_allclose(np.asarray(val), np.asarray(ref_val), rtol=1e-5)
    np.testing.assert_allclose(np.asarray(aux), np.asarray(ref_aux), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(grad), np.asarray(ref_grad), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("threads", [True, False], ids=["threads", "one-program"])
def test_a_split_contraction_reduce_scatters_into_a_split_result(mesh, threads):
    """A product whose contraction is split over "x" leaves partial sums; a constraint
    split over "x" (then "y") completes them with a psum_scatter, each device summing
    only its block, then cut by "y"; a second use wanting the product whole gathers the
    blocks."""
    x, w = _x(8, 4), _x(4, 6, seed=1)
    cols, rows = NamedSharding(mesh, P(None, "x")), NamedSharding(mesh, P("x"))
    out = (NamedSharding(mesh, P(("x", "y"))), NamedSharding(mesh, P()))

    def f(x, w):   # the constraint splits the scattered rows over "y" too
        p = x @ w
        return lax.with_sharding_constraint(p, out[0]) * 2.0, jnp.tanh(p)

    text = _partitioned_text(
        irax.jit(f, in_shardings=(cols, rows), out_shardings=out).lower(x, w))
    assert "irax.psum_scatter" in text and '"irax.psum"(' not in text
    g = irax.jit(f, in_shardings=(cols, rows), out_shardings=out)
    with config.override("irax_shard_map_threads", threads), \
            config.override("irax_shard_map_threads_min_work", 0):
        s, t = g(x, w)
    assert s.sharding == out[0] and t.sharding == out[1]
    np.testing.assert_allclose(np.asarray(s), 2 * (x @ w), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np.asarray(t), np.tanh(x @ w), rtol=1e-5, atol=1e-6)


def test_a_partitioned_program_compiles_for_two_cuda_devices(mesh, tmp_path):
    """Compile only (no GPU here): a jit partitioned over 2 devices is PTX for two CUDA
    devices; the CPU export of it runs and matches. So is one whose constraint moves an
    axis between dimensions (an all_to_all) around a shard_map."""
    two = irax.make_mesh((2,), ("d",))
    rows, rep = NamedSharding(two, P("d")), NamedSharding(two, P())
    f = irax.jit(lambda x, w: jnp.sum(jnp.tanh(x @ w), axis=0), in_shardings=(rows, rep),
                 out_shardings=rep)
    x, w = _x(8, 3), _x(3, 5, seed=1)
    exp = irax.export.export(f, targets=["cuda:sm_80", "cpu"])(x, w)
    assert exp.nr_devices == 2
    blob = exp.serialize("cuda:sm_80")
    assert b".target sm_80" in blob and b"dev1=cuda[1]" in blob
    exp.save(tmp_path / "cpu.vmfb", "cpu")
    np.testing.assert_allclose(np.asarray(irax.aot.load(tmp_path / "cpu.vmfb")(x, w)),
                               np.tanh(x @ w).sum(0), rtol=1e-5)
    # an axis moving between dimensions (all_to_all) and a jit around a shard_map
    cols = NamedSharding(two, P(None, "d"))
    mapped = irax.shard_map(lambda v: lax.psum(v, "d"), mesh=two, in_specs=P("d"),
                            out_specs=P())
    g = irax.jit(lambda v: (lax.with_sharding_constraint(jnp.tanh(v), cols),
                            mapped(v) * 2.0), in_shardings=rows)
    v = _x(4, 6)
    assert '"irax.all_to_all"' in _partitioned_text(g.lower(v))
    exp = irax.export.export(g, targets=["cuda:sm_80", "cpu"])(v)
    text = exp.mlir_module()
    assert "dev1=cuda[1]" in exp.serialize("cuda:sm_80").decode("latin-1")
    assert exp.nr_devices == 2 and "flow.tensor.transfer" in text
    exp.save(tmp_path / "moves.vmfb", "cpu")
    moved, total = irax.aot.load(tmp_path / "moves.vmfb")(v)
    np.testing.assert_allclose(np.asarray(moved), np.tanh(v), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(total), 2 * (v[:2] + v[2:]), rtol=1e-6)


def test_partitioned_ir_errors(mesh):
    rows = NamedSharding(mesh, P("x"))
    other = irax.make_mesh((4,), ("z",))
    g = irax.jit(lambda u, v: u + v,
                 in_shardings=(rows, NamedSharding(other, P("z"))))
    with pytest.raises(ValueError, match="in_shardings and out_shardings must use one mesh"):
        g(_x(4, 4), _x(4, 4))


# ---- every op's rule against its reference ---------------------------------------------------
def _cases():
    for name in sorted(SAMPLES):
        for i, (operands, attrs) in enumerate(SAMPLES[name]):
            yield f"{name}#{i}", REGISTRY[name], operands, attrs


def _all_ops(*flat):
    outs, it = [], iter(flat)
    for _, cls, operands, attrs in _cases():
        r = bind(cls, *[next(it) for _ in operands], **attrs)
        outs.extend(r if isinstance(r, list) else [r])
    return outs


def test_every_op_partitions_like_its_reference():
    """All samples of all ops in one function whose arguments are split over a 2x2 mesh
    (dimension 0 over "x", 1 over "y", where they divide), partitioned, expanded per
    device and interpreted: the values of the unpartitioned function."""
    flat = [op for _, _, operands, _ in _cases() for op in operands]
    module = irax.jit(_all_ops).lower(*flat).compiler_ir("irax")
    specs = []
    for x in flat:
        shape = np.shape(x)
        spec = tuple(((a,) if d < len(shape) and shape[d] % 2 == 0 else ())
                     for d, a in enumerate(("x", "y")))
        specs.append(spec[:len(shape)])
    mark_shardings(module, Mesh(("x", "y"), (2, 2), (0, 1, 2, 3)), specs,
                   [None] * len(_all_ops(*flat)))
    run_pipeline(module, "builtin.module(irax-expand-transforms, irax-partition, irax-shard)")
    assert "main_spmd" in str(module)
    got = evaluate_function(module, "main", flat)
    want = [np.asarray(r) for r in _all_ops(*flat)]
    names = []
    for name, cls, operands, attrs in _cases():
        out = bind(cls, *operands, **attrs)
        names += [name] * (len(out) if isinstance(out, list) else 1)
    for name, g, w in zip(names, got, want):
        g = np.asarray(g)
        assert g.shape == w.shape and g.dtype == w.dtype, name
        if w.dtype.kind in "fc" or w.dtype.name == "bfloat16":
            np.testing.assert_allclose(g.astype(np.complex128), w.astype(np.complex128),
                                       rtol=2e-2 if w.dtype.itemsize == 2 else 1e-5,
                                       atol=1e-5, err_msg=name)
        else:
            np.testing.assert_array_equal(g, w, err_msg=name)


@pytest.mark.usefixtures("mesh")
def test_sharding_constraint_rules():
    """The op's own rules: shape checks, identity semantics, batch and transpose (the
    compiled vmap places its work on the constraint's two devices, so it needs the mesh's
    CPU devices whatever ran before in this process)."""
    x = _x(4, 6)
    attrs = dict(sharding=(("x",),), mesh_axes=("x",), mesh_shape=(2,), devices=(0, 1))
    np.testing.assert_array_equal(np.asarray(bind(ShardingConstraint, x, **attrs)), x)
    with pytest.raises(TypeError, match=r"'irax.sharding_constraint' op expected dimension 0 "
                       r"of the operand \(size 3\) to be divisible by 2"):
        bind(ShardingConstraint, _x(3, 6), **attrs)
    f = irax.vmap(lambda v: bind(ShardingConstraint, v, **dict(attrs, sharding=((), ("x",)))))
    np.testing.assert_array_equal(np.asarray(f(_x(3, 4, 6))), _x(3, 4, 6))
    g = irax.grad(lambda v: jnp.sum(bind(ShardingConstraint, v, **attrs) ** 2))
    np.testing.assert_allclose(np.asarray(g(x)), 2 * x, rtol=1e-6)


def test_a_shard_map_inside_a_sharded_jit_places_its_own_work(mesh):
    """A jit with shardings around a shard_map: the shard_map is already per device, so
    the shardings lay the values out (no partitioning of the rest), with the same values."""
    f = irax.shard_map(lambda v: lax.psum(v, "y"), mesh=mesh, in_specs=P("x", "y"),
                       out_specs=P("x"))
    rows = NamedSharding(mesh, P("x"))
    g = irax.jit(lambda v: f(v) * 2.0, in_shardings=rows, out_shardings=rows)
    a = _x(4, 6)
    out = g(a)
    np.testing.assert_allclose(np.asarray(out), (a[:, :3] + a[:, 3:]) * 2, rtol=1e-6)
    assert out.sharding == rows


def test_jits_of_one_function_with_other_shardings_trace_apart(mesh):
    """jit(f) and jit(f, in_shardings=...) of the same f do not share a specialization
    (only the sharded one is partitioned); two jits with equal shardings do."""
    a, b = _x(8, 6), _x(6, 4, seed=1)

    def f(u, v):
        return jnp.tanh(u @ v)

    rows = NamedSharding(mesh, P("x"))
    irax.jit(f)(a, b)
    g = irax.jit(f, in_shardings=(rows, None), out_shardings=rows)
    np.testing.assert_allclose(np.asarray(g(a, b)), np.tanh(a @ b), rtol=1e-6)
    (entry,) = g._jitted._cache.values()
    assert entry.partitioned is not None
    h = irax.jit(f, in_shardings=(rows, None), out_shardings=rows)
    assert h._jitted._cache is g._jitted._cache


def test_a_partitioned_loop_runs_on_threads(mesh):
    """A loop left in the per-device function is replayed into each device's trace as
    the lax loop over its replayed body, so the partitioned jit still runs a program per
    device on threads (its collectives, here the condition's psum, meet on every trip);
    with threads off it runs as the one multi-device program, with the same values."""
    from irax.transforms.spmd import SpmdProgram

    a = _x(8, 6)
    rows = NamedSharding(mesh, P("x"))

    def f(v):
        v = lax.while_loop(lambda c: jnp.sum(jnp.abs(c)) < 1e3, lambda c: c * 1.5 + 0.25, v)
        return lax.fori_loop(0, 3, lambda i, c: jnp.tanh(c) * 1.5, v) @ v.T

    want = a
    while np.abs(want).sum() < 1e3:
        want = want * 1.5 + 0.25
    grown = want
    for _ in range(3):
        want = np.tanh(want) * 1.5
    want = want @ grown.T
    g = irax.jit(f, in_shardings=rows, out_shardings=rows)
    with config.override("irax_shard_map_threads_min_work", 0):
        out = g(a)
    np.testing.assert_allclose(np.asarray(out), want, rtol=1e-4, atol=1e-4)
    (entry,) = g._jitted._cache.values()
    assert isinstance(entry.partitioned.program, SpmdProgram)
    assert out.sharding == rows
    h = irax.jit(lambda v: f(v), in_shardings=rows, out_shardings=rows)
    with config.override("irax_shard_map_threads", False):
        np.testing.assert_allclose(np.asarray(h(a)), want, rtol=1e-4, atol=1e-4)
    # with no core to spare the loop still runs on threads: its collectives keep it from
    # the one multi-device program, and the stacked one would use the first device only
    k = irax.jit(lambda v: f(v), in_shardings=rows, out_shardings=rows)
    with config.override("irax_shard_map_threads_min_work", 0), \
            pytest.MonkeyPatch.context() as patch:
        patch.setattr(spmd, "cores", lambda: 2)
        np.testing.assert_allclose(np.asarray(k(a)), want, rtol=1e-4, atol=1e-4)
    (entry,) = k._jitted._cache.values()
    assert entry.partitioned.one is False and isinstance(entry.partitioned.program, SpmdProgram)
    assert entry.partitioned.program.entries   # it ran


def test_results_left_open_keep_the_propagated_sharding(mesh):
    """Results out_shardings leaves open come back as irax-partition propagated them, as
    in JAX, whether the program runs per device on threads or as the one multi-device
    program."""
    a = _x(8, 6)
    rows = NamedSharding(mesh, P("x"))

    def f(v):
        return jnp.tanh(v) * 2.0, jnp.sum(v)

    def g(v):
        return lax.fori_loop(0, 2, lambda i, c: c * 0.5, v) + 1.0

    with config.override("irax_shard_map_threads_min_work", 0):
        threaded = irax.jit(f, in_shardings=rows)(a)
    with config.override("irax_shard_map_threads", False):
        single = irax.jit(lambda v: f(v), in_shardings=rows)(a)
    for t, s in zip(threaded, single):
        assert t.sharding == s.sharding and t.sharding.mesh == mesh
        np.testing.assert_allclose(np.asarray(t), np.asarray(s), rtol=1e-6)
    assert single[0].sharding == rows and len(single[0].addressable_shards) == 4
    out = irax.jit(g, in_shardings=rows, out_shardings=None)(a)
    np.testing.assert_allclose(np.asarray(out), a * 0.25 + 1.0, rtol=1e-6)
    # the loop keeps its carry's split, as JAX does
    assert out.sharding == rows


def test_reshape_keeps_every_split_whose_blocks_stay_contiguous():
    """The reshape rule (``sharding.reshaped``) over every reshape among the shapes of 8,
    12 and 16 elements (rank <= 3) and every sharding of the operand on a 2x2 mesh: each
    device's block of the operand (resharded as the rule needs) reshaped to its local
    shape is its block of the result under the rule's result sharding; and the rule keeps
    the splits it should (a split dimension into its parts, fully split merges)."""
    import itertools

    from irax.dialect.sharding import reshaped

    m = Mesh(("x", "y"), (2, 2), (0, 1, 2, 3))

    def block(a, spec, coords):
        index = []
        for d, axes in enumerate(spec):
            size, pos = a.shape[d] // m.count(axes), 0
            for axis in axes:
                pos = pos * m.shape[m.axes.index(axis)] + coords[axis]
            index.append(slice(pos * size, (pos + 1) * size))
        return a[tuple(index)]

    def shapes(n, rank=3):
        if rank == 0:
            return [()] if n == 1 else []
        out = [(n,)] if n > 1 or rank == 3 else []
        for f in range(1, n + 1):
            if n % f == 0:
                out += [(f,) + s for s in shapes(n // f, rank - 1) if s]
        return sorted(set(out))

    choices = [(), ("x",), ("y",), ("x", "y"), ("y", "x")]
    for n in (8, 12, 16):
        for shape in shapes(n):
            a = np.arange(n).reshape(shape)
            for spec in itertools.product(choices, repeat=len(shape)):
                used = [x for axes in spec for x in axes]
                if len(set(used)) != len(used) or any(
                        shape[d] % m.count(axes) for d, axes in enumerate(spec)):
                    continue
                for new in shapes(n):
                    need, out = reshaped(spec, shape, new, m)
                    assert all(u in (s, ()) for u, s in zip(need, spec))
                    local = m.local_shape(new, out)
                    for cx, cy in itertools.product(range(2), range(2)):
                        c = {"x": cx, "y": cy}
                        np.testing.assert_array_equal(
                            block(a, need, c).reshape(local), block(a.reshape(new), out, c),
                            err_msg=f"{shape} {spec} -> {new}: {need} {out}")
    split = (("x", "y"),)
    assert reshaped(split, (8,), (2, 4), m) == (split, (("x",), ("y",)))
    assert reshaped(split, (4,), (2, 1, 2), m) == (split, (("x",), (), ("y",)))
    assert reshaped((("x",), ("y",), ()), (2, 2, 3), (4, 3), m)[1] == (("x", "y"), ())
    assert reshaped((("x",), (), ("y",)), (2, 3, 2), (6, 2), m)[1] == (("x",), ("y",))
    # not fully split, "x" leaves the rows' blocks in pieces: "y" must go
    assert reshaped((("x",), ("y",)), (4, 2), (8,), m) == ((("x",), ()), (("x",),))
