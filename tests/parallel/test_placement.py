"""Committed arrays, as in JAX: ``device_put(x, device)`` commits ``x`` there, every
computation it enters (jitted, eager op, transformation, control flow, random) runs for
that device and commits its results there, uncommitted operands follow, and arrays
committed to different devices get JAX's error. Compared with JAX's own facts
(``placement_cases.py``, run by JAX in a subprocess with two CPU devices)."""

import threading

import numpy as np
import placement_cases
import pytest
from jax_facts import run_script

import irax
import irax.numpy as jnp
from irax import lax


@pytest.fixture(scope="module")
def two_devices(four_devices):
    """The first two of four CPU devices (the sharded cases use a 2x2 mesh)."""
    return four_devices[:2]


@pytest.fixture(scope="module")
def jax_facts(tmp_path_factory):
    pytest.importorskip("jax")
    return run_script(placement_cases.__file__, tmp_path_factory, "placement")


def test_results_are_placed_and_committed_as_jax_places_them(two_devices, jax_facts):
    got = {name: placement_cases.describe(thunk())
           for name, thunk in placement_cases.cases(irax, jnp, lax).items()}
    wrong = {name: (got[name], jax_facts[name]) for name in got if got[name] != jax_facts[name]}
    assert not wrong, "(irax, JAX) [committed, device ids] per result: " + repr(wrong)


def test_eager_computations_on_sharded_arrays_stay_sharded_as_in_jax(two_devices, jax_facts):
    """An eager op (or transformation) on sharded arrays is a jitted primitive partitioned
    by their shardings, as in JAX: the results' specs and values are JAX's."""
    mesh = irax.make_mesh((2, 2), ("x", "y"), axis_types=(irax.sharding.AxisType.Auto,) * 2)
    for name, thunk in placement_cases.sharded_cases(irax, jnp, lax, mesh).items():
        got, want = placement_cases.spec_and_values(thunk()), jax_facts[f"sharded/{name}"]
        assert [g[0] for g in got] == [w[0] for w in want], name
        for (_, g), (_, w) in zip(got, want):
            np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-6, err_msg=name)


def test_arrays_committed_to_different_devices_get_jaxs_error(two_devices, jax_facts):
    mesh = irax.make_mesh((2, 2), ("x", "y"), axis_types=(irax.sharding.AxisType.Auto,) * 2)
    errs = {**placement_cases.errors(irax, jnp, lax),
            **placement_cases.sharded_errors(irax, jnp, mesh)}
    for name, thunk in errs.items():
        with pytest.raises(ValueError) as info:
            thunk()
        assert f"ValueError: {info.value}" == jax_facts[f"error/{name}"], name


def test_a_jit_runs_on_the_device_of_its_committed_arguments(two_devices):
    """One specialization per device: the program runs there (not on the first device
    with its results relabelled), a call on each device in turn finds its own, and the
    values are the same."""
    d0, d1 = two_devices
    f = irax.jit(lambda a: jnp.tanh(a) * 2)
    x = np.linspace(-1, 1, 8, dtype=np.float32)
    on = [irax.device_put(x, d) for d in (d0, d1)]
    for _ in range(2):   # the one-argument hot path must tell the devices apart too
        for d, a in zip((d0, d1), on):
            out = f(a)
            assert out.devices() == {d} and out.committed
            assert out._device is d   # computed there: its buffer is that device's
            np.testing.assert_allclose(np.asarray(out), np.tanh(x) * 2, rtol=1e-6)
    assert not f(x).committed and f(x).devices() == {d0}
    assert f._cache_size() == 3   # uncommitted, d0, d1 (d0 committed is its own entry)


def test_jits_on_two_devices_run_at_once_from_two_threads(two_devices):
    """Each device's program is its own executable, so two threads calling one jitted
    function on arrays committed to two devices do not take turns on one program's lock
    (measured: benchmarks/sharding.py, "two threads" row)."""
    d0, d1 = two_devices
    f = irax.jit(lambda a: a @ a.T)
    x = np.ones((64, 64), np.float32)
    a0, a1 = irax.device_put(x, d0), irax.device_put(x, d1)
    e0, e1 = f(a0), f(a1)
    exes = {id(entry.executable) for entry in f._cache.values()}
    assert len(exes) == 2
    results = {}

    def run(k, a):
        results[k] = [f(a) for _ in range(5)]

    threads = [threading.Thread(target=run, args=(k, a)) for k, a in ((0, a0), (1, a1))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(r.devices() == {d0} for r in results[0])
    assert all(r.devices() == {d1} for r in results[1])
    np.testing.assert_allclose(np.asarray(results[1][-1]), np.asarray(e1))
    np.testing.assert_allclose(np.asarray(e0), x @ x.T)
