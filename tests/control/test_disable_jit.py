"""irax.disable_jit / jax_disable_jit (as JAX): jit-decorated functions and lax control
flow run as Python on concrete values, so Python control flow and print on values work;
the results equal the compiled ones. Everything here runs eagerly (no compile)."""

import numpy as np
import pytest

import irax
import irax.numpy as jnp
from irax import lax
from irax.errors import TracerBoolConversionError


@irax.jit
def _branchy(x):
    if x.sum() > 0:   # Python control flow on a value: needs concrete x
        return x * 2
    return -x


def test_jit_decorated_python_control_flow_runs_under_disable_jit():
    x = jnp.arange(3.0)
    with irax.disable_jit():
        np.testing.assert_array_equal(_branchy(x), [0.0, 2.0, 4.0])
        np.testing.assert_array_equal(_branchy(-x - 1), [1.0, 2.0, 3.0])
    with pytest.raises(TracerBoolConversionError, match="_branchy"):
        _branchy(x)
    assert not irax.config.jax_disable_jit


def test_config_flag_and_nested_disable_false():
    irax.config.update("jax_disable_jit", True)
    try:
        assert float(_branchy(jnp.ones(()))) == 2.0
        with irax.disable_jit(False):   # back on for the block
            with pytest.raises(TracerBoolConversionError):
                _branchy(jnp.ones(()))
        assert irax.config.jax_disable_jit
    finally:
        irax.config.update("jax_disable_jit", False)


def test_loops_and_branches_run_as_python_with_concrete_values():
    seen = []

    def body(c):
        i, v = c
        seen.append(float(v))          # a concrete value in every trip
        return i + 1, v * 2.0

    with irax.disable_jit():
        i, v = lax.while_loop(lambda c: c[0] < 4, body, (0, 1.0))
        carry, ys = lax.scan(lambda c, x: (c + x, c * x), 0.0, jnp.arange(4.0), reverse=True)
        fori = lax.fori_loop(0, 5, lambda k, v: v + k, 0)
        fori_traced_bounds = lax.fori_loop(jnp.int32(1), jnp.int32(4), lambda k, v: v * k, 1)
        picked = lax.cond(jnp.array(False), lambda x: x + 1, lambda x: x - 1, 3.0)
        clamped = lax.switch(7, [lambda: jnp.int32(0), lambda: jnp.int32(1)])
    assert seen == [1.0, 2.0, 4.0, 8.0]
    assert (int(i), float(v)) == (4, 16.0)
    ref_carry, ref_ys = lax.scan(lambda c, x: (c + x, c * x), 0.0, jnp.arange(4.0),
                                 reverse=True)
    assert float(carry) == float(ref_carry)
    np.testing.assert_array_equal(ys, ref_ys)
    assert int(fori) == 10 and int(fori_traced_bounds) == 6
    assert float(picked) == 2.0 and int(clamped) == 1


def test_zero_length_scan_is_an_error_as_in_jax():
    with irax.disable_jit(), pytest.raises(ValueError, match="zero-length scan"):
        lax.scan(lambda c, x: (c, x), 0.0, jnp.zeros((0, 2)))


def test_traced_values_keep_the_traced_ops():
    """Under grad the values are traced: control flow stays the irax ops, as in JAX."""
    def f(x):
        return lax.fori_loop(0, 3, lambda i, v: v * x, 1.0)
    with irax.disable_jit():
        g = irax.grad(f)(2.0)
        gj = irax.grad(irax.jit(f))(2.0)
    assert float(g) == float(gj) == 12.0


def test_pmap_still_maps_over_devices():
    """pmap is not a jit to disable: its body is traced once and runs per device."""
    f = irax.pmap(lambda x: x * 2 + lax.psum(x, "i"), axis_name="i")
    x = jnp.arange(2.0).reshape(1, 2)
    with irax.disable_jit():
        got = f(x)
    np.testing.assert_array_equal(got, [[0.0, 3.0]])


def test_results_match_jax_disable_jit():
    jax = pytest.importorskip("jax")

    def run(lax_mod, np_mod):
        seen = []

        def body(c):
            seen.append(float(c[1]))
            return c[0] + 1, c[1] * 1.5 + 0.25

        w = lax_mod.while_loop(lambda c: c[0] < 5, body, (0, 1.0))
        s = lax_mod.scan(lambda c, x: (c * x + 1.0, c - x), 0.5,
                         np_mod.arange(1.0, 5.0, dtype=np.float32))
        r = lax_mod.scan(lambda c, x: (c + x, c), 0.0, np_mod.ones(3, np.float32),
                         reverse=True)
        sw = lax_mod.switch(-3, [lambda x: x + 1.0, lambda x: x * 3.0], 2.0)
        return seen, [np.asarray(v) for v in jax.tree_util.tree_leaves((w, s, r, sw))]

    with irax.disable_jit():
        got_seen, got = run(lax, jnp)
    with jax.disable_jit():
        want_seen, want = run(jax.lax, jax.numpy)
    assert got_seen == want_seen
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-6)
        assert g.dtype == w.dtype and g.shape == w.shape
