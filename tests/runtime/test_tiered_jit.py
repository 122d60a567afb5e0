"""Tiered jit (frontend/tiered.py): first calls on the reference interpreter while IREE
compiles on the compile thread, then the compiled program."""

import logging
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import irax
import irax.numpy as jnp
from irax import lax
from irax.config import config
from irax.frontend import tiered
from irax.runtime import compiler


@pytest.fixture
def tiering(tmp_path):
    """Tiered jit on, with an empty persistent cache."""
    old = config.irax_compilation_cache_dir
    config.update("irax_tiered_jit", True)
    config.update("irax_compilation_cache_dir", str(tmp_path / "cache"))
    try:
        yield
    finally:
        tiered.wait()
        config.update("irax_tiered_jit", False)
        config.update("irax_compilation_cache_dir", old)


def _fresh():
    """A constant no other test compiles (the memory cache is keyed by content)."""
    return float(np.random.default_rng().uniform(1.0, 2.0))


def _entry(jitted):
    (entry,) = jitted._cache.values()
    return entry


def test_the_default_is_tiered_and_the_suite_turns_it_off():
    out = subprocess.run([sys.executable, "-c", "import irax; print(irax.config.irax_tiered_jit)"],
                         capture_output=True, text=True,
                         env={k: v for k, v in os.environ.items() if k != "IRAX_TIERED_JIT"})
    assert out.stdout.strip() == "True", out.stderr
    assert config.irax_tiered_jit is False       # tests/conftest.py


def test_first_calls_interpreted_then_the_compiled_program(tiering):
    c = _fresh()

    def f(x, y):
        return {"a": jnp.sin(x) * c + y, "b": jnp.sum(x * 2), "n": 3 * jnp.ones(())}

    x = np.linspace(-3, 3, 12, dtype=np.float32)
    y = np.float32(0.5)
    jf = irax.jit(f)
    before = dict(tiered.stats)
    first = jf(x, y)
    assert tiered.stats["interpreted_calls"] == before["interpreted_calls"] + 1
    assert tiered.stats["background_compiles"] == before["background_compiles"] + 1
    assert _entry(jf).executable is None
    tiered.wait()
    compiled = jf(x, y)
    assert _entry(jf).executable is not None
    assert tiered.stats["interpreted_calls"] == before["interpreted_calls"] + 1
    for k in first:
        a, b = first[k], compiled[k]
        assert isinstance(a, irax.Array) and isinstance(b, irax.Array)
        assert a.aval == b.aval and a.aval.weak_type == b.aval.weak_type, k
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=2e-7, atol=1e-7)
    ref = np.sin(x.astype(np.float64)) * c + 0.5
    np.testing.assert_allclose(np.asarray(first["a"]), ref, rtol=1e-6, atol=1e-6)
    # a new jit of the same program: the compile cache has it, no interpreted call
    again = irax.jit(f)(x, y)
    assert tiered.stats["interpreted_calls"] == before["interpreted_calls"] + 1
    np.testing.assert_array_equal(np.asarray(again["a"]), np.asarray(compiled["a"]))


def test_random_bits_are_the_same_interpreted_and_compiled(tiering):
    c = int(_fresh() * 1000)

    def f(key):
        return irax.random.bits(irax.random.fold_in(key, c), (64,)), \
            irax.random.uniform(key, (8,))

    jf = irax.jit(f)
    key = irax.random.key(0)
    first = jf(key)
    tiered.wait()
    compiled = jf(key)
    assert _entry(jf).executable is not None
    for a, b in zip(first, compiled):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def test_compile_of_a_pending_specialization_waits_for_it(tiering):
    c = _fresh()
    jf = irax.jit(lambda x: x * c)
    x = np.ones(3, np.float32)
    jf(x)
    compiles = compiler.stats["compiles"]
    compiled = jf.lower(x).compile()
    assert _entry(jf).executable is not None
    assert compiler.stats["compiles"] == compiles + 1    # the background one, not a second
    np.testing.assert_array_equal(np.asarray(compiled(x)), np.full(3, np.float32(c)))


@pytest.mark.parametrize("case", ["loop", "donated", "large", "off"])
def test_programs_that_compile_before_their_first_call(tiering, case):
    c = _fresh()
    x = np.ones(4, np.float32)
    if case == "loop":
        jf = irax.jit(lambda x, n: lax.while_loop(lambda s: s[1] < n,
                                                  lambda s: (s[0] * c, s[1] + 1), (x, 0))[0])
        args = (x, 3)
    elif case == "donated":
        jf = irax.jit(lambda x: x * c, donate_argnums=0)
        args = (irax.device_put(x),)
    else:
        jf = irax.jit(lambda x: x * c)
        args = (x,)
        if case == "large":
            config.update("irax_tiered_jit_max_elements", 3)
        else:
            config.update("irax_tiered_jit", False)
    before = tiered.stats["interpreted_calls"]
    try:
        out = jf(*args)
    finally:
        config.update("irax_tiered_jit_max_elements", 1 << 22)
    assert _entry(jf).executable is not None
    assert tiered.stats["interpreted_calls"] == before
    expect = x * c ** 3 if case == "loop" else x * c
    np.testing.assert_allclose(np.asarray(out), expect, rtol=1e-6)
    if case == "donated":
        assert args[0].is_deleted()


def test_a_failed_background_compile_leaves_the_interpreter(tiering, caplog):
    # IREE 3.13 cannot compile float8_e4m3 arithmetic; the interpreter computes it
    import ml_dtypes

    x = np.arange(-4, 4).astype(ml_dtypes.float8_e4m3)
    jf = irax.jit(lambda v: v + v)
    with caplog.at_level(logging.WARNING, logger="irax"):
        first = jf(x)
        tiered.wait()
        second = jf(x)
    assert _entry(jf).executable is None
    expect = (np.arange(-4, 4) * 2).astype(ml_dtypes.float8_e4m3)
    np.testing.assert_array_equal(np.asarray(first), expect)
    np.testing.assert_array_equal(np.asarray(second), expect)
    assert "could not compile it in the background" in caplog.text
    assert "stays on the reference interpreter" in caplog.text
    with pytest.raises(TypeError, match="IREE cannot compile"):
        jf.lower(x).compile()


def test_exit_waits_for_the_compile_in_progress(tmp_path):
    """A process that ends while its first jitted call compiles leaves the program in the
    persistent cache: the next process runs it without compiling or interpreting."""
    code = textwrap.dedent("""
        import sys
        import numpy as np
        import irax
        from irax.frontend import tiered
        from irax.runtime import compiler
        f = irax.jit(lambda x: irax.numpy.tanh(x) * 3.25 + 1.5)
        y = f(np.ones(5, np.float32))
        print(tiered.stats["interpreted_calls"], compiler.stats["compiles"],
              compiler.stats["disk_hits"], float(np.asarray(y)[0]))
    """)
    env = dict(os.environ, IRAX_TIERED_JIT="1", IRAX_ENABLE_COMPILATION_CACHE="1",
               IRAX_COMPILATION_CACHE_DIR=str(tmp_path))
    runs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           env=env, timeout=300) for _ in range(2)]
    for r in runs:
        assert r.returncode == 0, r.stderr
    first, second = (r.stdout.split() for r in runs)
    assert first[:3] == ["1", "0", "0"]       # interpreted; the compile ended after it
    assert second[:3] == ["0", "0", "1"]      # from the disk cache
    assert abs(float(first[3]) - float(second[3])) < 1e-6


def test_an_interpreter_failure_waits_for_the_compiled_program(tiering, monkeypatch):
    def fail(*args):
        raise NotImplementedError("the interpreter cannot evaluate this")

    monkeypatch.setattr(tiered, "_interpret", fail)
    c = _fresh()
    jf = irax.jit(lambda x: x * c)
    out = jf(np.ones(2, np.float32))
    assert _entry(jf).executable is not None
    np.testing.assert_array_equal(np.asarray(out), np.full(2, np.float32(c)))


def test_a_program_for_another_cpu_device_compiles_first(tiering):
    """Interpreted results live on the host (the default device): a jit placed on the
    second CPU device compiles before its first call, so its results are on that one."""
    old = config.jax_num_cpu_devices
    config.update("jax_num_cpu_devices", 2)
    try:
        second = irax.devices("cpu")[1]
        c = _fresh()
        jf = irax.jit(lambda x: x * c, device=second)
        out = jf(np.ones(2, np.float32))
        assert _entry(jf).executable is not None
        assert out.devices() == {second}
    finally:
        config.update("jax_num_cpu_devices", old)


def test_a_slow_interpreted_call_makes_the_next_calls_wait(tiering, monkeypatch):
    """Only the first call is interpreted when it took longer than SLOW_CALL_SECONDS (it
    would compete with the compilation for the cores); the second waits for the program."""
    c = _fresh()
    jf = irax.jit(lambda x: jnp.cos(x) * c)
    x = np.linspace(0, 1, 8, dtype=np.float32)
    monkeypatch.setattr(tiered, "SLOW_CALL_SECONDS", 0.0)   # every call counts as slow
    before = tiered.stats["interpreted_calls"]
    first = jf(x)
    assert tiered.stats["interpreted_calls"] == before + 1
    second = jf(x)                      # waited for the background compile
    assert _entry(jf).executable is not None
    assert tiered.stats["interpreted_calls"] == before + 1
    np.testing.assert_allclose(np.asarray(first), np.asarray(second), rtol=2e-7)
    # fast interpreted calls (the default threshold) keep interpreting meanwhile
    monkeypatch.setattr(tiered, "SLOW_CALL_SECONDS", 60.0)
    jg = irax.jit(lambda x: jnp.sin(x) * _fresh())
    jg(x)
    assert _entry(jg).tier.slow is False
