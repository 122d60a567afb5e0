"""The persistent compile cache: reuse across processes, the entry's record of its key,
the compiler's identity, file modes, and the bounded in-memory cache.

Bad entries of every kind (truncated, bit-flipped, misfiled, rejected by IREE, unreadable,
in a read-only directory, written concurrently) are in ``test_cache_matrix.py``.
"""

import glob
import hashlib
import json
import logging
import os
import stat
import struct
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from irax.config import config
from irax.runtime import cache, compiler

_SCRIPT = textwrap.dedent("""
    import json, numpy as np, irax
    f = irax.jit(lambda x: x * x + x * 2.0 - {k})
    out = f(np.arange(4, dtype=np.float32))
    assert np.allclose(np.asarray(out), np.arange(4) ** 2 + 2 * np.arange(4) - {k}), out
    print(json.dumps(irax.compile_stats()))
""")

#: what a compile passes as ``info``; any JSON values do for the cache itself
INFO = {"compiler": "3.13.0", "flags": ["--a", "--b"], "irax_cache_version": "irax-2",
        "module_sha256": "00" * 32}


def _run(cache_dir, k=1.0):
    env = dict(os.environ, IRAX_COMPILATION_CACHE_DIR=str(cache_dir))
    proc = subprocess.run([sys.executable, "-c", _SCRIPT.format(k=k)], env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1]), proc.stderr


def _entries(d):
    return sorted(p for p in os.listdir(d) if p.endswith(".vmfb"))


@pytest.fixture
def cache_dir(tmp_path, caplog):
    saved = config.irax_compilation_cache_dir, config.irax_enable_compilation_cache
    config.update("irax_compilation_cache_dir", str(tmp_path))
    config.update("irax_enable_compilation_cache", True)
    caplog.set_level(logging.WARNING, logger="irax")
    yield tmp_path
    config.update("irax_compilation_cache_dir", saved[0])
    config.update("irax_enable_compilation_cache", saved[1])


def test_second_process_hits_disk_cache_and_a_rejected_entry_is_replaced(tmp_path):
    """Regression: an entry with a sound header of the old format over a payload IREE
    rejects raised ``ValueError ... FlatBuffer length prefix out of bounds`` in every later
    process. It is now a bad entry: deleted, recompiled, and a hit again afterwards."""
    first, _ = _run(tmp_path)
    assert first == {"compiles": 1, "memory_hits": 0, "disk_hits": 0}
    (entry,) = glob.glob(str(tmp_path / "*.vmfb"))
    payload = os.urandom(4096)
    with open(entry, "wb") as f:
        f.write(struct.pack("<9sQ32s", b"IRAXVMFB\x01", len(payload),
                            hashlib.sha256(payload).digest()) + payload)
    second, err = _run(tmp_path)
    assert second["compiles"] == 1 and second["disk_hits"] == 0
    assert "discarding bad compile cache entry" in err
    third, err = _run(tmp_path)
    assert third == {"compiles": 0, "memory_hits": 0, "disk_hits": 1}
    assert "discarding" not in err


def test_store_load_roundtrip_and_disabled(cache_dir):
    key = cache.make_key(b"module", "flags")
    assert cache.load(key) is None
    cache.store(key, b"payload" * 10)
    assert cache.load(key) == b"payload" * 10
    config.update("irax_enable_compilation_cache", False)
    assert cache.load(key) is None


def test_entry_records_its_key_and_inputs(cache_dir, caplog):
    """Regression: the header recorded no key, so an entry renamed to another key with the
    same signature loaded silently (``f`` returned ``cos(x) - 1``). The record names the
    key and what it was made of; a mismatch is a bad entry."""
    key, other = cache.make_key(b"f"), cache.make_key(b"g")
    cache.store(key, b"payload of f", INFO)
    data = (cache_dir / f"{key}.vmfb").read_bytes()
    _, meta_len, _, _ = cache._HEADER.unpack_from(data)
    assert json.loads(data[cache._HEADER.size:cache._HEADER.size + meta_len]) == \
        {"key": key, **INFO}
    assert cache.load(key, INFO) == b"payload of f"

    (cache_dir / f"{other}.vmfb").write_bytes(data)  # misfiled
    assert cache.load(other, INFO) is None
    assert "another key" in caplog.text
    assert not (cache_dir / f"{other}.vmfb").exists()

    for field, value in [("compiler", "3.14.0"), ("flags", ["--a"]),
                         ("irax_cache_version", "irax-3")]:
        caplog.clear()
        cache.store(key, b"payload of f", INFO)
        assert cache.load(key, {**INFO, field: value}) is None
        assert f"compiled with another {field}" in caplog.text
        assert not (cache_dir / f"{key}.vmfb").exists()


def test_unwritable_cache_dir_does_not_fail(tmp_path, caplog):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    config.update("irax_compilation_cache_dir", str(blocker / "sub"))
    try:
        cache.store("k", b"x")  # logs a warning, raises nothing
        assert cache.load("k") is None
        assert "could not write compile cache entry" in caplog.text
    finally:
        config.update("irax_compilation_cache_dir", None)


@pytest.mark.parametrize("umask", [0o022, 0o027, 0o002])
def test_entry_mode_follows_the_umask(cache_dir, umask):
    """Regression: entries were written 0600 (``tempfile.mkstemp``); they get the mode of
    any new file of the process."""
    saved = os.umask(umask)
    try:
        cache.store("k", b"x")
    finally:
        os.umask(saved)
    assert stat.S_IMODE((cache_dir / "k.vmfb").stat().st_mode) == 0o666 & ~umask


def test_key_depends_on_every_part():
    assert cache.make_key(b"a", "b") != cache.make_key(b"ab", "")
    assert cache.make_key(b"a", "b") == cache.make_key(b"a", "b")
    assert np.unique([cache.make_key(b"m", f) for f in ("x", "y", "z")]).size == 3


@pytest.fixture
def fresh_version():
    compiler.compiler_version.cache_clear()
    yield compiler.compiler_version
    compiler.compiler_version.cache_clear()


def test_compiler_version_falls_back_to_a_real_identity(fresh_version, monkeypatch):
    """Regression: without package metadata the version was "unknown", so cache keys no
    longer depended on the compiler. The identity is iree.compiler's version module
    (read as a file, then imported), then the package's metadata, then a digest of the
    native library."""
    import importlib.metadata

    import iree.compiler
    from iree.compiler import version as iree_version

    from_module = fresh_version()
    assert iree_version.VERSION in from_module
    assert all(r in from_module for r in iree_version.REVISIONS.values())
    monkeypatch.setattr(compiler, "_version_file", lambda: None)
    fresh_version.cache_clear()
    assert fresh_version() == from_module          # the module imported: the same identity

    monkeypatch.delattr(iree.compiler, "version")
    monkeypatch.setitem(sys.modules, "iree.compiler.version", None)  # import fails
    fresh_version.cache_clear()
    assert fresh_version() == importlib.metadata.version("iree-base-compiler")

    def no_metadata(name):
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "version", no_metadata)
    fresh_version.cache_clear()
    from_library = fresh_version()
    with open(compiler._compiler_library(), "rb") as f:
        digest = hashlib.file_digest(f, "sha256").hexdigest()
    assert from_library.endswith(f"sha256:{digest}")
    assert "unknown" not in (from_module + from_library)


@pytest.fixture
def memory():
    saved = config.irax_compilation_cache_memory_bytes
    compiler.clear_memory_cache()
    yield compiler._memory
    config.update("irax_compilation_cache_memory_bytes", saved)
    compiler.clear_memory_cache()


def test_memory_cache_is_an_lru_bounded_by_bytes(memory):
    """Regression: every compiled module stayed in memory for the life of the process."""
    config.update("irax_compilation_cache_memory_bytes", 100)
    memory.put("a", b"a" * 40)
    memory.put("b", b"b" * 40)
    assert memory.get("a") == b"a" * 40  # now the most recently used
    memory.put("c", b"c" * 40)
    assert "b" not in memory and "a" in memory and "c" in memory
    assert memory.nbytes == 80
    memory.put("big", b"x" * 101)  # larger than the bound: not kept
    assert "big" not in memory and memory.nbytes == 80
    config.update("irax_compilation_cache_memory_bytes", 40)  # lowering it evicts at once
    assert memory.nbytes <= 40 and len(memory) == 1
    config.update("irax_compilation_cache_memory_bytes", 0)
    assert len(memory) == 0 and memory.nbytes == 0
    with pytest.raises(ValueError, match="non-negative"):
        config.update("irax_compilation_cache_memory_bytes", -1)


def test_clear_memory_cache_forgets_everything(memory):
    memory.put("a", b"a" * 10)
    compiler.clear_memory_cache()
    assert len(memory) == 0 and memory.nbytes == 0 and memory.get("a") is None
