"""Sharded arrays built from their blocks (``make_array_from_callback``,
``make_array_from_single_device_arrays``, ``make_array_from_process_local_data``), the
process API and ``default_device``, compared with JAX (``make_array_cases.py``, run by JAX
in a subprocess with four CPU devices)."""


import make_array_cases
import numpy as np
import pytest
from jax_facts import run_script

import irax
import irax.numpy as jnp


@pytest.fixture(scope="module")
def mesh(four_devices):
    return irax.make_mesh((2, 2), ("x", "y"), axis_types=(irax.sharding.AxisType.Auto,) * 2)


@pytest.fixture(scope="module")
def jax_facts(tmp_path_factory):
    pytest.importorskip("jax")
    return run_script(make_array_cases.__file__, tmp_path_factory, "make_array")


def test_arrays_built_from_blocks_match_jax(mesh, jax_facts):
    """Specs, devices, dtype, commitment, values, each device's index and block, and how
    often the callback ran (once for a replicated array)."""
    for name, thunk in make_array_cases.cases(irax, mesh).items():
        assert make_array_cases.describe(thunk()) == jax_facts[name], name


def test_errors_match_jax(mesh, jax_facts):
    for name, thunk in make_array_cases.errors(irax, mesh).items():
        with pytest.raises(Exception) as info:
            thunk()
        want = jax_facts[f"error/{name}"].replace("jax.", "irax.")
        assert f"{type(info.value).__name__}: {info.value}" == want, name


def test_default_device_and_processes_match_jax(mesh, jax_facts):
    d1 = irax.devices()[1]
    with irax.default_device(d1):
        x = jnp.arange(3.0)   # (host data made here belongs to d1 when read after)
        y = irax.jit(lambda a: a * 2)(jnp.arange(3.0))
        assert y._device is d1   # computed there, not relabelled
    assert [[sorted(d.id for d in v.devices()), v.committed] for v in (x, y)] == \
        jax_facts["default_device"]
    # outside the block, uncommitted arguments go to the first device again (as JAX's)
    assert irax.jit(lambda a: a + 1)(x).devices() == {irax.devices()[0]}
    with irax.default_device("cpu"):
        assert jnp.zeros(2).devices() == {irax.devices()[0]}
    with pytest.raises(ValueError, match="must be passed either a Device object"):
        with irax.default_device(3):
            pass
    with pytest.raises(ValueError, match="jax_default_device: irax.default_device must"):
        irax.config.update("jax_default_device", 3.5)
    assert irax.config.jax_default_device is None
    assert [irax.process_count(), irax.process_index(), irax.process_indices()] == \
        jax_facts["process"]


def test_blocks_go_straight_to_their_devices(mesh):
    """Each block is put on its device: the whole array is not assembled on the host, and
    a single-device array handed over on its own device is not copied."""
    s = irax.sharding.NamedSharding(mesh, irax.P("x", "y"))
    data = np.arange(24, dtype=np.float32).reshape(4, 6)
    a = irax.make_array_from_callback((4, 6), s, lambda index: data[index])
    assert a._host is None and all(sh.data._device is sh.device for sh in a.addressable_shards)
    blocks = [irax.device_put(data[sh.index], sh.device) for sh in a.addressable_shards]
    b = irax.make_array_from_single_device_arrays((4, 6), s, blocks)
    assert [sh.data._dev for sh in b.addressable_shards] == [x._dev for x in blocks]
    np.testing.assert_array_equal(np.asarray(irax.jit(lambda u: u * 2)(b)), data * 2)
    live = irax.live_arrays()
    assert any(x is a for x in live) and any(x is b for x in live)
    a.delete()
    assert not any(x is a for x in irax.live_arrays())
