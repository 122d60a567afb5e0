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


def test_the_record_key_holds_the_options_that_pick_a_programs_flags(cache_dir):
    """A record made under one choice of AVX2 tiles or data tiling (whose flags the
    program adds itself) is not found under another."""
    x = np.ones((4, 4), np.float32)
    entry = irax.jit(lambda a: a @ a).lower(x)._entry
    keys = set()
    for name, value in (("irax_cpu_matmul_tuning", False),
                        ("irax_cpu_data_tiling_min_flops", 1)):
        keys.add(program_cache.key(entry, "cpu", "main"))
        with config.override(name, value):
            keys.add(program_cache.key(entry, "cpu", "main"))
    assert len(keys) == 3, keys


def test_the_sources_digest_covers_the_tuning_spec():
    """A program record holds the key of a program compiled with the spec; an edited spec
    must not find it (the compile key names the spec by content, the record by this)."""
    digest = program_cache.sources_digest.__wrapped__     # uncached: a fresh walk
    st = os.stat(compiler.AVX2_MATMUL_TUNING)
    before = digest()
    os.utime(compiler.AVX2_MATMUL_TUNING, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    try:
        assert digest() != before
    finally:
        os.utime(compiler.AVX2_MATMUL_TUNING, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert digest() == before


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


def test_a_record_keeps_the_work_the_runtime_reads(cache_dir):
    """The measures that choose a program's driver come back with its record: a large
    elementwise program (``irax_cpu_tune_min_elements``) times both drivers whether it
    was compiled now or found through the record."""
    from irax.runtime.executable import Tuned

    x = np.ones((64, 64), np.float32)
    f = lambda v: v + v * v + v * v * v  # noqa: E731
    with config.override("irax_cpu_tune_min_elements", 4096), \
            config.override("irax_tiered_jit", False):
        fresh = irax.jit(f)
        fresh(x)
        (entry,) = fresh._cache.values()
        assert isinstance(entry.executable, Tuned) and entry.work.elements >= 4 * 4096
        hits = program_cache.stats["hits"]
        irax.clear_caches()
        again = irax.jit(f)
        again(x)
        (entry,) = again._cache.values()
        assert program_cache.stats["hits"] == hits + 1   # found through the record
        assert isinstance(entry.executable, Tuned) and entry.work.elements >= 4 * 4096
