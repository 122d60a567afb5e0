"""irax.pmap on 4 local CPU devices: values against vmap (the same named-axis semantics,
itself tested against JAX) and NumPy, transformations through pmap, placement in the IR,
and errors. Each pmapped function compiles once for the 4 devices."""

import numpy as np
import pytest

import irax
import irax.numpy as jnp
from irax import lax
from irax.config import config

N = 4


@pytest.fixture(scope="module", autouse=True)
def four_devices():
    from irax.config import config

    old = config.jax_num_cpu_devices
    config.update("jax_num_cpu_devices", N)
    try:
        yield
    finally:
        config.update("jax_num_cpu_devices", old)


def _x(*shape, seed=0):
    return np.random.default_rng(seed).normal(size=shape).astype(np.float32)


def collectives(x, w):
    """Every collective over axis 'i' plus per-device arithmetic."""
    s = lax.psum(x, "i")
    return {
        "psum": s, "pmean": lax.pmean(x, "i"), "pmax": lax.pmax(x, "i"),
        "pmin": lax.pmin(x, "i"), "gather": lax.all_gather(x * w, "i"),
        "scatter": lax.psum_scatter(jnp.tile(x, N), "i", tiled=True),
        "shift": lax.ppermute(x, "i", perm=[(k, (k + 1) % N) for k in range(N)]),
        "index": lax.axis_index("i"), "local": jnp.sin(x) * w + x / s,
    }


def test_collectives_match_vmap_and_numpy():
    x, w = _x(N, 3), np.float32(0.5)
    got = irax.pmap(collectives, axis_name="i", in_axes=(0, None))(x, w)
    want = irax.vmap(collectives, axis_name="i", in_axes=(0, None))(x, w)
    for k in want:
        np.testing.assert_allclose(np.asarray(got[k]), np.asarray(want[k]), rtol=1e-6,
                                   atol=1e-6, err_msg=k)
    np.testing.assert_allclose(got["psum"], np.broadcast_to(x.sum(0), (N, 3)), rtol=1e-6)
    np.testing.assert_array_equal(got["index"], np.arange(N))
    np.testing.assert_array_equal(got["shift"], np.roll(x, 1, axis=0))


def test_axes_pytrees_kwargs_and_static_arguments():
    x, y = _x(3, N, seed=1), _x(N, 2, seed=2)

    def f(a, b, scale, *, bias):
        return {"sum": a * scale + bias, "pair": (lax.psum(b.sum(), "j"), jnp.cos(b))}

    pf = irax.pmap(f, "j", in_axes=(1, 0, None), out_axes={"sum": 1, "pair": (None, 0)},
                   static_broadcasted_argnums=2)
    got = pf(x, y, 2.0, bias=np.ones(N, np.float32))
    np.testing.assert_allclose(got["sum"], x * 2 + 1, rtol=1e-6)
    np.testing.assert_allclose(got["pair"][0], y.sum(), rtol=1e-6)
    np.testing.assert_allclose(got["pair"][1], np.cos(y), rtol=1e-6)
    # a new static value retraces; the same one hits the cache
    np.testing.assert_allclose(pf(x, y, 3.0, bias=np.zeros(N, np.float32))["sum"], x * 3,
                               rtol=1e-6)


def _loss(mapper):
    def loss(w, x):
        f = mapper(lambda w, x: jnp.tanh(w * x) / lax.psum(x * x, "i"), axis_name="i",
                   in_axes=(None, 0))
        return jnp.sum(f(w, x) ** 2)
    return loss


def test_grad_jvp_through_pmap_equal_vmap():
    w, x = np.float32(0.7), _x(N, 3, seed=3) + 2
    want = irax.grad(_loss(irax.vmap), argnums=(0, 1))(w, x)
    for got in (irax.grad(_loss(irax.pmap), argnums=(0, 1))(w, x),          # eager
                irax.jit(irax.grad(_loss(irax.pmap), argnums=(0, 1)))(w, x)):
        for g, e in zip(got, want):
            np.testing.assert_allclose(np.asarray(g), np.asarray(e), rtol=2e-5, atol=1e-7)
    t = np.ones_like(x)
    got = irax.jvp(lambda x: _loss(irax.pmap)(w, x), (x,), (t,))
    ref = irax.jvp(lambda x: _loss(irax.vmap)(w, x), (x,), (t,))
    np.testing.assert_allclose(np.asarray(got[1]), np.asarray(ref[1]), rtol=2e-5)


def test_grad_of_an_unmapped_output():
    x = _x(N, 2, seed=4)
    for mapper in (irax.pmap, irax.vmap):
        f = mapper(lambda x: (lax.psum(x ** 2, "i"), jnp.sin(x)), axis_name="i",
                   out_axes=(None, 0))
        g = irax.grad(lambda x, f=f: jnp.sum(f(x)[0]) + jnp.sum(f(x)[1]))(x)
        np.testing.assert_allclose(np.asarray(g), 2 * x + np.cos(x), rtol=1e-5,
                                   err_msg=str(mapper))


def test_vmap_of_pmap_and_pmap_of_vmap():
    xs = _x(2, N, 3, seed=5) + 3
    pf = irax.pmap(lambda x: x / lax.psum(x, "i"), axis_name="i")
    got = irax.jit(irax.vmap(pf, in_axes=1, out_axes=2))(np.moveaxis(xs, 0, 1))
    want = np.stack([x / x.sum(0) for x in xs], axis=-1)
    np.testing.assert_allclose(got, want, rtol=1e-6)
    inner = irax.pmap(irax.vmap(lambda x: x * lax.axis_index("i")), axis_name="i")
    np.testing.assert_allclose(inner(xs[0]), xs[0] * np.arange(N)[:, None], rtol=1e-6)


def test_control_flow_inside_pmap():
    x = np.abs(_x(N, 2, seed=6)) + 1
    loop = irax.pmap(lambda x: lax.while_loop(lambda c: c[0] < 10, lambda c: c * 2, x))
    want = np.stack([_double_until(r) for r in x])
    np.testing.assert_allclose(loop(x), want, rtol=1e-6)
    # a collective inside a loop: expanded as the equivalent vmap (one device)
    body = lambda x: lax.fori_loop(0, 3, lambda i, c: c + lax.psum(c, "i"), x)  # noqa: E731
    np.testing.assert_allclose(irax.pmap(body, axis_name="i")(x),
                               irax.vmap(body, axis_name="i")(x), rtol=1e-6)


def _double_until(row):
    while row[0] < 10:
        row = row * 2
    return row


def _samples(random, k):
    a, b = random.split(k)
    return (random.normal(a, (3,)), random.uniform(b, (2,), minval=-1.0),
            random.randint(k, (2,), 0, 9), random.bits(random.fold_in(k, 3), (2,)),
            random.bernoulli(b, 0.3, (4,)), random.permutation(a, 5),
            random.exponential(k, (2,)))


def _loop_samples(random, k):
    """The samplers with loops (gamma's and poisson's while loops), a sort (choice), a
    factorization (multivariate_normal), and categorical and truncated_normal, which
    are cheap enough to ride along. This case runs on two devices, not four. beta and
    dirichlet are left out because they reuse gamma's loop."""
    a, b = random.split(k)
    return (random.gamma(a, np.array([0.3, 1.0, 4.0], np.float32)),
            random.categorical(a, np.log(np.array([0.2, 0.5, 0.3], np.float32)), shape=(3,)),
            random.truncated_normal(b, -1.0, 2.0, (2,)),
            random.poisson(b, np.array([2.0, 30.0], np.float32)),
            random.choice(b, 6, (3,), replace=False),
            random.multivariate_normal(a, np.zeros(2, np.float32),
                                       np.array([[2.0, 0.5], [0.5, 1.0]], np.float32)))


@pytest.mark.parametrize("samples,n", [(_samples, N), (_loop_samples, 2)],
                         ids=["simple", "loops"])
def test_random_under_pmap_equals_vmap_and_jax(samples, n):
    """``n`` devices: the program holds one copy of the samplers per device (the loop
    samplers on two, not four: they were 70 s of IREE compile). The eager vmap it is
    compared with runs on the reference interpreter (compiled, it is one more copy of the
    samplers to compile; the random tests check vmap compiled)."""
    from irax import random

    keys = random.split(random.PRNGKey(7), n)
    got = irax.pmap(lambda k: samples(random, k), devices=irax.devices()[:n])(keys)
    with config.override("irax_eager_vmap_compiled", False):
        _same(got, irax.vmap(lambda k: samples(random, k))(keys))
    jax = pytest.importorskip("jax")
    _same(got, jax.vmap(lambda k: samples(jax.random, k))(np.asarray(keys)))


def _same(got, want):
    """Bits, integers and booleans exactly; floats to a few ulps (log1p and friends may
    round differently per device and batched)."""
    for g, w in zip(got, want):
        g, w = np.asarray(g), np.asarray(w)
        if w.dtype.kind == "f":
            np.testing.assert_allclose(g, w, rtol=2e-5, atol=1e-6)
        else:
            np.testing.assert_array_equal(g, w)


def test_the_program_places_each_example_on_its_device():
    x = _x(N, 3)
    lowered = irax.jit(irax.pmap(jnp.sin)).lower(x)
    text = lowered.as_text("stablehlo")
    assert "irax.num_devices = 4" in text
    for k in range(N):
        assert f"#hal.device.promise<@dev{k}>" in text
    assert text.count("stablehlo.sine") == N
    # called outside jit: each device's example and result at the program's boundary
    assert irax.pmap(jnp.sin)(x).devices() == set(irax.devices())
    with config.override("irax_device_program", False):   # the stacked program
        assert irax.pmap(jnp.sin)(x).devices() == {irax.devices()[0]}


def test_devices_argument_selects_devices():
    devs = irax.devices()[2:4]
    f = irax.pmap(lambda x: x + lax.axis_index("i"), axis_name="i", devices=devs)
    text = irax.jit(f).lower(np.zeros((2, 3), np.float32)).as_text("stablehlo")
    assert "@dev3" in text and "@dev1>" not in text
    np.testing.assert_allclose(f(np.zeros((2, 3), np.float32)), [[0] * 3, [1] * 3])


def test_errors():
    with pytest.raises(ValueError, match=r"pmap of sin: the mapped axis has size 5, but "
                                         r"only 4 device\(s\) are available"):
        irax.pmap(jnp.sin)(np.ones((5, 2), np.float32))
    with pytest.raises(ValueError, match="pmap got inconsistent sizes for array axes"):
        irax.pmap(lambda a, b: a + b)(np.ones((2, 3)), np.ones((3, 3)))
    with pytest.raises(TypeError, match="devices must be a non-empty sequence"):
        irax.pmap(jnp.sin, devices=[0, 1])(np.ones((2,), np.float32))
    with pytest.raises(TypeError, match="pmap expected a callable"):
        irax.pmap(3)


def test_compiling_for_more_devices_than_exist_is_an_error():
    from irax.config import config

    lowered = irax.jit(irax.pmap(jnp.sin)).lower(np.ones((N, 2), np.float32))
    config.update("jax_num_cpu_devices", 2)
    try:
        with pytest.raises(ValueError, match=r"irax.jit\(sin\): the compiled program needs 4 "
                                             r"cpu devices, but only 2 are available"):
            lowered.compile()
    finally:
        config.update("jax_num_cpu_devices", N)


def test_pmap_runs_a_program_per_device_on_threads(monkeypatch):
    """Called outside a trace on CPU devices (more cores than devices), a pmap is a
    shard_map over a 1-D mesh of its devices (as JAX builds pmap): a program per device
    on a thread of its own, every collective met on the host, the results the devices'
    shards; the values are the one multi-device program's. A collective in a loop falls
    back to that program."""
    from irax.sharding import NamedSharding, PartitionSpec
    from irax.transforms import spmd

    monkeypatch.setattr(spmd, "cores", lambda: 64)   # as on a machine with cores to spare

    x, w = _x(N, 3), np.float32(0.5)
    f = irax.pmap(collectives, axis_name="i", in_axes=(0, None))
    with config.override("irax_shard_map_threads_min_work", 0):
        got = f(x, w)
    with config.override("irax_shard_map_threads", False):
        want = f(x, w)
    for k in want:
        np.testing.assert_allclose(np.asarray(got[k]), np.asarray(want[k]), rtol=1e-6,
                                   atol=1e-6, err_msg=k)
        assert isinstance(got[k].sharding, NamedSharding), k
        assert got[k].sharding.spec == PartitionSpec("i"), k
    assert sorted(d.id for d in got["psum"].devices()) == list(range(N))
    # fewer examples than devices: a mesh of the first ones
    with config.override("irax_shard_map_threads_min_work", 0):
        two = irax.pmap(lambda v: lax.psum(v, "j"), axis_name="j")(x[:2])
    np.testing.assert_allclose(np.asarray(two), np.broadcast_to(x[:2].sum(0), (2, 3)),
                               rtol=1e-6)
    body = lambda v: lax.fori_loop(0, 3, lambda i, c: c + lax.psum(c, "i"), v)  # noqa: E731
    with config.override("irax_shard_map_threads_min_work", 0):
        looped = irax.pmap(body, axis_name="i")(x)
    np.testing.assert_allclose(np.asarray(looped), np.asarray(irax.vmap(body, axis_name="i")(x)),
                               rtol=1e-6)
    # without a spare core (this 2-core machine) the one program runs, its results the
    # devices' shards too (device_program.py); gathered on the first device without it
    monkeypatch.setattr(spmd, "cores", lambda: N)
    with config.override("irax_shard_map_threads_min_work", 0):
        assert f(x, w)["psum"].sharding.spec == PartitionSpec("i")
        with config.override("irax_device_program", False):
            assert not isinstance(f(x, w)["psum"].sharding, NamedSharding)
