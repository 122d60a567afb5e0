"""Program records (frontend/program_cache.py): a traced module straight to its compiled
program, skipping irax-jit's passes, in this process and the next."""

import glob
import logging
import os

import numpy as np
import pytest

import irax
import irax.numpy as jnp
from irax import lax
from irax.config import config
from irax.frontend import compile as fcompile
from irax.frontend import program_cache
from irax.runtime import compiler


@pytest.fixture
def cache_dir(tmp_path):
    old = config.irax_compilation_cache_dir
    config.update("irax_compilation_cache_dir", str(tmp_path))
    program_cache.clear_memory()
    try:
        yield tmp_path
    finally:
        config.update("irax_compilation_cache_dir", old)


def _count_passes(monkeypatch):
    calls = []
    real = fcompile.at_stage
    monkeypatch.setattr(fcompile, "at_stage", lambda m, s: calls.append(s) or real(m, s))
    return calls


def _f(c):
    return lambda x: jnp.tanh(x) * c + jnp.sum(x)


def test_a_new_trace_of_a_compiled_function_skips_the_passes(cache_dir, monkeypatch):
    x = np.linspace(0, 1, 5, dtype=np.float32)
    f = _f(1.75)
    want = irax.jit(f)(x)
    assert len(glob.glob(str(cache_dir / "*.program"))) == 1
    passes = _count_passes(monkeypatch)
    hits = program_cache.stats["hits"]
    irax.clear_caches()        # drops the specializations and the memory caches
    got = irax.jit(f)(x)
    assert passes == [] and program_cache.stats["hits"] == hits + 1
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


def test_the_record_key_holds_the_traced_configuration(cache_dir, monkeypatch):
    """irax_while_grad_tape_bytes shapes what the passes make of the same trace."""
    def g(x):
        return lax.while_loop(lambda s: s[1] < 20, lambda s: (jnp.sin(s[0]), s[1] + 1),
                              (x, 0))[0].sum()

    x = np.ones(3, np.float32)
    want = irax.jit(irax.grad(g))(x)
    passes = _count_passes(monkeypatch)
    old = config.irax_while_grad_tape_bytes
    config.update("irax_while_grad_tape_bytes", 64)
    try:
        got = irax.jit(irax.grad(g))(x)
    finally:
        config.update("irax_while_grad_tape_bytes", old)
    assert "iree" in passes      # another key: the passes ran again
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)


def test_a_bad_record_is_discarded_and_recompiled(cache_dir, caplog):
    x = np.ones(4, np.float32)
    f = _f(2.5)
    want = irax.jit(f)(x)
    (record,) = glob.glob(str(cache_dir / "*.program"))
    with open(record, "r+b") as fh:
        fh.seek(-3, 2)
        fh.write(b"!!!")
    irax.clear_caches()
    with caplog.at_level(logging.WARNING, logger="irax"):
        got = irax.jit(f)(x)
    assert "discarding bad compile cache entry" in caplog.text
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    assert len(glob.glob(str(cache_dir / "*.program"))) == 1     # written anew


def test_a_record_whose_program_is_gone_compiles_again(cache_dir):
    x = np.ones(4, np.float32)
    f = _f(3.25)
    want = irax.jit(f)(x)
    for p in glob.glob(str(cache_dir / "*.vmfb")):
        os.unlink(p)
    irax.clear_caches()
    compiles = compiler.stats["compiles"]
    got = irax.jit(f)(x)
    assert compiler.stats["compiles"] == compiles + 1
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
