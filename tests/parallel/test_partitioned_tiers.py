"""A partitioned program's first calls on the reference interpreter while the compile
thread makes it (``transforms/partitioned.py _Tier``), as tiered jit does on one device:
the results are laid out as the partitioner propagated them, with the compiled
program's values; once it is ready it runs."""

import numpy as np
import pytest

import irax
import irax.numpy as jnp
from irax import lax
from irax.config import config
from irax.frontend import tiered
from irax.sharding import NamedSharding
from irax.sharding import PartitionSpec as P


@pytest.fixture
def tiering(tmp_path, four_devices):
    """Tiered jit on (the suite turns it off), with an empty persistent cache."""
    old = config.irax_compilation_cache_dir
    config.update("irax_tiered_jit", True)
    config.update("irax_compilation_cache_dir", str(tmp_path / "cache"))
    try:
        yield irax.make_mesh((2, 2), ("x", "y"), axis_types=(irax.sharding.AxisType.Auto,) * 2)
    finally:
        tiered.wait()
        config.update("irax_tiered_jit", False)
        config.update("irax_compilation_cache_dir", old)


def test_eager_ops_on_sharded_arrays_are_interpreted_until_compiled(tiering):
    mesh = tiering
    x = np.random.default_rng(0).standard_normal((8, 4)).astype(np.float32)
    xs = irax.device_put(x, NamedSharding(mesh, P("x")))
    c = float(np.random.default_rng().uniform(1, 2))   # a program no other test compiles
    before = tiered.stats["interpreted_calls"]
    first = [jnp.sin(xs) * c, jnp.sum(xs * c, 1), xs.T * c]
    assert tiered.stats["interpreted_calls"] - before >= 3   # sin, mul, ... interpreted
    tiered.wait()                                           # the programs are ready
    after = tiered.stats["interpreted_calls"]
    again = [jnp.sin(xs) * c, jnp.sum(xs * c, 1), xs.T * c]
    assert tiered.stats["interpreted_calls"] == after       # compiled now
    for a, b, want in zip(first, again, [np.sin(x) * c, np.sum(x * c, 1), x.T * c]):
        assert a.sharding == b.sharding and a.committed
        np.testing.assert_allclose(np.asarray(a), want, rtol=1e-5)
        np.testing.assert_allclose(np.asarray(b), want, rtol=1e-5)
    assert first[0].sharding.spec == P("x") and first[2].sharding.spec == P(None, "x")


def test_a_sharded_jit_lays_interpreted_results_out_as_compiled(tiering):
    mesh = tiering
    rows = NamedSharding(mesh, P("x"))
    c = float(np.random.default_rng().uniform(1, 2))
    f = irax.jit(lambda a, w: (jnp.tanh(a @ w) * c, jnp.sum(a)), in_shardings=(rows, None))
    a = np.random.default_rng(1).standard_normal((8, 6)).astype(np.float32)
    w = np.random.default_rng(2).standard_normal((6, 3)).astype(np.float32)
    before = tiered.stats["interpreted_calls"]
    interpreted = f(a, w)
    assert tiered.stats["interpreted_calls"] == before + 1
    tiered.wait()
    compiled = f(a, w)
    assert tiered.stats["interpreted_calls"] == before + 1
    for i, k in zip(interpreted, compiled):
        assert i.sharding == k.sharding
        np.testing.assert_allclose(np.asarray(i), np.asarray(k), rtol=1e-5, atol=1e-5)
    assert interpreted[0].sharding == rows


def test_loops_and_tiers_off_compile_first(tiering):
    mesh = tiering
    xs = irax.device_put(np.ones((8, 4), np.float32), NamedSharding(mesh, P("x")))
    c = float(np.random.default_rng().uniform(1, 2))
    before = tiered.stats["interpreted_calls"]
    out = lax.fori_loop(0, 3, lambda i, v: v * c, xs)      # a loop: not interpreted
    np.testing.assert_allclose(np.asarray(out), np.full((8, 4), c ** 3), rtol=1e-6)
    with config.override("irax_tiered_jit", False):
        np.testing.assert_allclose(np.asarray(xs * (c + 1)), np.full((8, 4), c + 1))
    assert tiered.stats["interpreted_calls"] == before
