"""The persistent compile cache: reuse across processes, corruption, concurrent writers."""

import os
import subprocess
import sys
import textwrap

import numpy as np

from irax.runtime import cache

_SCRIPT = textwrap.dedent("""
    import json, numpy as np, irax
    f = irax.jit(lambda x: x * x + x * 2.0 - {k})
    out = f(np.arange(4, dtype=np.float32))
    assert np.allclose(np.asarray(out), np.arange(4) ** 2 + 2 * np.arange(4) - {k}), out
    print(json.dumps(irax.compile_stats()))
""")


def _run(cache_dir, k=1.0):
    env = dict(os.environ, IRAX_COMPILATION_CACHE_DIR=str(cache_dir))
    proc = subprocess.run([sys.executable, "-c", _SCRIPT.format(k=k)], env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    import json

    return json.loads(proc.stdout.strip().splitlines()[-1]), proc.stderr


def _entries(d):
    return sorted(p for p in os.listdir(d) if p.endswith(".vmfb"))


def test_second_process_hits_disk_cache(tmp_path):
    first, _ = _run(tmp_path)
    assert first == {"compiles": 1, "memory_hits": 0, "disk_hits": 0}
    assert len(_entries(tmp_path)) == 1
    second, _ = _run(tmp_path)
    assert second == {"compiles": 0, "memory_hits": 0, "disk_hits": 1}


def test_corrupt_entry_is_detected_and_recompiled(tmp_path):
    _run(tmp_path)
    (entry,) = _entries(tmp_path)
    path = tmp_path / entry
    data = bytearray(path.read_bytes())
    data[-100] ^= 0xFF  # flip bits in the payload
    path.write_bytes(bytes(data))
    stats, err = _run(tmp_path)
    assert stats["compiles"] == 1 and stats["disk_hits"] == 0
    assert "corrupt" in err
    # the rewritten entry is valid again
    stats, _ = _run(tmp_path)
    assert stats["disk_hits"] == 1


def test_truncated_entry_is_recompiled(tmp_path):
    _run(tmp_path)
    (entry,) = _entries(tmp_path)
    (tmp_path / entry).write_bytes(b"IRAX")
    stats, _ = _run(tmp_path)
    assert stats["compiles"] == 1


def test_concurrent_writers(tmp_path):
    env = dict(os.environ, IRAX_COMPILATION_CACHE_DIR=str(tmp_path))
    procs = [subprocess.Popen([sys.executable, "-c", _SCRIPT.format(k=2.0)], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(3)]
    for p in procs:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
    assert len(_entries(tmp_path)) == 1
    assert not [p for p in os.listdir(tmp_path) if p.endswith(".tmp")]
    stats, _ = _run(tmp_path, k=2.0)
    assert stats["disk_hits"] == 1


def test_store_load_roundtrip_and_disabled(tmp_path):
    from irax.config import config

    config.update("irax_compilation_cache_dir", str(tmp_path))
    try:
        key = cache.make_key(b"module", "flags")
        assert cache.load(key) is None
        cache.store(key, b"payload" * 10)
        assert cache.load(key) == b"payload" * 10
        config.update("irax_enable_compilation_cache", False)
        assert cache.load(key) is None
    finally:
        config.update("irax_enable_compilation_cache", True)
        config.update("irax_compilation_cache_dir", None)


def test_unwritable_cache_dir_does_not_fail(tmp_path):
    from irax.config import config

    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    config.update("irax_compilation_cache_dir", str(blocker / "sub"))
    try:
        cache.store("k", b"x")  # logs a warning, raises nothing
        assert cache.load("k") is None
    finally:
        config.update("irax_compilation_cache_dir", None)


def test_key_depends_on_every_part():
    assert cache.make_key(b"a", "b") != cache.make_key(b"ab", "")
    assert cache.make_key(b"a", "b") == cache.make_key(b"a", "b")
    assert np.unique([cache.make_key(b"m", f) for f in ("x", "y", "z")]).size == 3
