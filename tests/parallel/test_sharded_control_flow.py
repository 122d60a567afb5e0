"""Loops and branches in sharded programs run on the devices' blocks (``irax-partition``'s
``shard_regions`` rules, ``shard/regions.py``): a jit of ``fori_loop``/``while_loop``/
``scan``/``cond``/``switch`` over arrays sharded on a 2x2 mesh gives JAX's values and
JAX's result shardings (``control_flow_cases.py``, run by JAX in a subprocess), whether
the per-device programs run on threads or as the one multi-device program."""

import control_flow_cases
import numpy as np
import pytest
from jax_facts import run_script

import irax
import irax.numpy as jnp
from irax import lax
from irax.config import config


@pytest.fixture(scope="module")
def jax_facts(tmp_path_factory):
    pytest.importorskip("jax")
    return run_script(control_flow_cases.__file__, tmp_path_factory, "control_flow")


@pytest.mark.parametrize("threads", [True, False], ids=["threads", "one_program"])
def test_loops_and_branches_keep_jaxs_shardings_and_values(four_devices, jax_facts, threads,
                                                          monkeypatch):
    from irax.transforms import spmd

    # threads: as on a machine with cores to spare (here 4 devices share 2 cores)
    monkeypatch.setattr(spmd, "cores", lambda: 64 if threads else 1)
    run = []
    monkeypatch.setattr(spmd.SpmdProgram, "_run", _counting(spmd.SpmdProgram._run, run))
    mesh = irax.make_mesh((2, 2), ("x", "y"), axis_types=(irax.sharding.AxisType.Auto,) * 2)
    with config.override("irax_shard_map_threads", threads), \
            config.override("irax_shard_map_threads_min_work", 0):
        got = control_flow_cases.run(irax, jnp, lax, mesh)
    # on threads every case ran a program per device (4 each), else none did
    assert len(run) == (4 * len(jax_facts) if threads else 0)
    assert set(got) == set(jax_facts)
    for name, want in jax_facts.items():
        assert [g[0] for g in got[name]] == [w[0] for w in want], name
        for (_, g), (_, w) in zip(got[name], want):
            np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-5, atol=1e-5,
                                       err_msg=name)


def _counting(method, calls: list):
    def run(self, *a):
        calls.append(1)
        return method(self, *a)
    return run
