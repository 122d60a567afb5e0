"""Gathers in sharded programs (``irax.gather``'s sharding rule): an embedding lookup
``table[ids]`` with ``ids`` split over the batch is split likewise, each device gathering
its own indices; indexed operand dimensions are gathered whole first. Results' shardings
and values equal JAX's (``indexing_cases.py``, run by JAX in a subprocess)."""

import indexing_cases
import numpy as np
import pytest
from jax_facts import run_jitted, run_script

import irax
import irax.numpy as jnp


@pytest.fixture(scope="module")
def jax_facts(tmp_path_factory):
    pytest.importorskip("jax")
    return run_script(indexing_cases.__file__, tmp_path_factory, "indexing")


def test_gathers_keep_jaxs_shardings_and_values(four_devices, jax_facts):
    mesh = irax.make_mesh((2, 2), ("x", "y"), axis_types=(irax.sharding.AxisType.Auto,) * 2)
    got = run_jitted(irax, mesh, indexing_cases.cases(irax, jnp, irax.P))
    assert set(got) == set(jax_facts)
    for name, want in jax_facts.items():
        assert [g[0] for g in got[name]] == [w[0] for w in want], name
        for (_, g), (_, w) in zip(got[name], want):
            np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-6, err_msg=name)


def test_an_embedding_lookup_gathers_no_indices(four_devices):
    """The per-device program of ``table[ids]`` (ids split over "x") gathers its own
    rows of ``ids``: no collective moves them."""
    mesh = irax.make_mesh((2, 2), ("x", "y"), axis_types=(irax.sharding.AxisType.Auto,) * 2)
    rows = irax.sharding.NamedSharding(mesh, irax.P("x"))
    rep = irax.sharding.NamedSharding(mesh, irax.P())
    f = irax.jit(lambda t, i: t[i], in_shardings=(rep, rows))
    text = f.lower(np.zeros((10, 4), np.float32), np.zeros(8, np.int32)).as_text("expanded")
    assert '"irax.gather"' in text
    for collective in ("all_gather", "psum", "all_to_all"):
        assert f"irax.{collective}" not in text, collective
