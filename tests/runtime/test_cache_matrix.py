"""Bad compile cache entries, one case each: the program still returns the right numbers,
a warning names the bad entry, and the entry is deleted and rewritten.

The cases run in this process, against a temporary cache directory, with the in-memory
caches cleared between steps (``irax.clear_caches``); only the concurrent writers need
processes of their own. Each case costs one IREE compilation (the recompile).
"""

from __future__ import annotations

import errno
import hashlib
import json
import logging
import os
import struct
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import irax
import irax.numpy as jnp
from irax.config import config
from irax.runtime import cache, compiler

X = np.arange(4, dtype=np.float32)


def _f(x):
    return jnp.sin(x) * 2.0


def _g(x):  # the same signature as _f: its entry is what a misfiled entry looks like
    return jnp.cos(x) - 1.0


F_EXPECTED = np.sin(X) * 2.0


def _entries(d) -> list[str]:
    return sorted(p for p in os.listdir(d) if p.endswith(".vmfb"))


def _run(fun):
    """``jit(fun)(X)`` with empty in-memory caches; the result and what it cost."""
    irax.clear_caches()
    before = irax.compile_stats()
    out = np.asarray(irax.jit(fun)(X))
    after = irax.compile_stats()
    return out, {k: after[k] - before[k] for k in after}


def _record(data: bytes) -> dict:
    """The record (key and what went into it) in the header of an entry's bytes."""
    _, meta_len, _, _ = cache._HEADER.unpack_from(data)
    return json.loads(data[cache._HEADER.size:cache._HEADER.size + meta_len])


def _assert_valid(path, record: dict) -> None:
    """``path`` is a sound entry for ``record``'s key and inputs, and IREE loads it."""
    info = {k: v for k, v in record.items() if k != "key"}
    payload, problem = cache._decode(path.read_bytes(), record["key"], info)
    assert payload is not None, problem
    assert path.name == f"{record['key']}.vmfb"
    assert compiler._load_problem(payload) is None


class _Golden:
    """Good entries of ``_f`` and ``_g``, compiled once for the whole module."""

    def __init__(self, root):
        self.data, self.record = {}, {}
        for name, fun in (("f", _f), ("g", _g)):
            d = root / name
            config.update("irax_compilation_cache_dir", str(d))
            _run(fun)
            (entry,) = _entries(d)
            self.data[name] = (d / entry).read_bytes()
            self.record[name] = _record(self.data[name])

    def path(self, d, name="f"):
        return d / f"{self.record[name]['key']}.vmfb"


@pytest.fixture(scope="module")
def golden(tmp_path_factory):
    saved = config.irax_compilation_cache_dir, config.irax_enable_compilation_cache
    config.update("irax_enable_compilation_cache", True)
    try:
        yield _Golden(tmp_path_factory.mktemp("golden"))
    finally:
        config.update("irax_compilation_cache_dir", saved[0])
        config.update("irax_enable_compilation_cache", saved[1])
        irax.clear_caches()


@pytest.fixture
def cache_dir(golden, tmp_path, caplog):
    """An empty cache directory in force for the test, warnings of ``irax`` captured."""
    config.update("irax_compilation_cache_dir", str(tmp_path))
    caplog.set_level(logging.WARNING, logger="irax")
    yield tmp_path
    os.chmod(tmp_path, 0o755)
    for p in tmp_path.iterdir():
        os.chmod(p, 0o644)


def _flip(offset):
    def damage(data, golden):
        data = bytearray(data)
        data[offset] ^= 0xFF
        return bytes(data)
    return damage


def _old_format(data, golden):
    # the header irax wrote before entries recorded their key (magic version 1), over a
    # payload IREE rejects: it raised "FlatBuffer length prefix out of bounds" on every run
    payload = os.urandom(4096)
    return struct.pack("<9sQ32s", b"IRAXVMFB\x01", len(payload),
                       hashlib.sha256(payload).digest()) + payload


def _rejected(data, golden):
    # a sound header, record and checksum over a payload the IREE runtime rejects
    record = dict(golden.record["f"])
    key = record.pop("key")
    return cache.encode_entry(key, os.urandom(4096), record)


def _misfiled(data, golden):
    # _g's (sound) entry under _f's key: it used to load, and _f returned cos(x) - 1
    return golden.data["g"]


#: case -> (damage(good entry bytes, golden) -> bad bytes, the reason the warning gives)
CASES = {
    "truncated": (lambda data, golden: data[:len(data) // 2], "truncated or overlong"),
    "truncated-header": (lambda data, golden: data[:10], "truncated header"),
    "empty": (lambda data, golden: b"", "truncated header"),
    "bit-flipped-payload": (_flip(-100), "checksum mismatch"),
    "bit-flipped-record": (_flip(cache._HEADER.size + 5), "checksum mismatch"),
    "bit-flipped-length": (_flip(12), "truncated or overlong"),
    "zeroed": (lambda data, golden: bytes(len(data)), "not an irax cache entry"),
    "misfiled": (_misfiled, "recorded under another key"),
    "old-format-rejected-payload": (_old_format, "not an irax cache entry"),
    "valid-header-rejected-payload": (_rejected, "the IREE runtime rejects it"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_bad_entry_is_discarded_and_recompiled(case, golden, cache_dir, caplog):
    damage, reason = CASES[case]
    path = golden.path(cache_dir)
    path.write_bytes(damage(golden.data["f"], golden))
    out, stats = _run(_f)
    np.testing.assert_allclose(out, F_EXPECTED, rtol=1e-6)
    assert stats["compiles"] == 1 and stats["disk_hits"] == 0, stats
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert any("discarding bad compile cache entry" in w and str(path) in w and reason in w
               for w in warnings), warnings
    assert _entries(cache_dir) == [path.name]
    _assert_valid(path, golden.record["f"])


def test_sound_entry_is_a_disk_hit(golden, cache_dir, caplog):
    path = golden.path(cache_dir)
    path.write_bytes(golden.data["f"])
    out, stats = _run(_f)
    np.testing.assert_allclose(out, F_EXPECTED, rtol=1e-6)
    assert stats == {"compiles": 0, "memory_hits": 0, "disk_hits": 1}
    assert not caplog.records


def test_unreadable_entry(golden, cache_dir, caplog):
    path = golden.path(cache_dir)
    path.write_bytes(golden.data["f"])
    path.chmod(0)
    try:
        with open(path, "rb") as f:
            f.read(1)
    except PermissionError:
        pass
    else:
        pytest.skip("the file mode does not stop this user (root) from reading it")
    out, stats = _run(_f)
    np.testing.assert_allclose(out, F_EXPECTED, rtol=1e-6)
    assert stats["compiles"] == 1
    assert any("cannot be read" in r.getMessage() for r in caplog.records)
    _assert_valid(path, golden.record["f"])


class _ReadOnlyOs:
    """``os`` as ``cache.py`` sees it on a read-only file system under ``root``: for a user
    (root) whom a directory's mode does not stop."""

    def __init__(self, root):
        self._root = str(root)

    def __getattr__(self, name):
        return getattr(os, name)

    def _refuse(self, path):
        if str(path).startswith(self._root):
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(path))

    def open(self, path, flags, *args, **kwargs):
        if flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT):
            self._refuse(path)
        return os.open(path, flags, *args, **kwargs)

    def unlink(self, path, *args, **kwargs):
        self._refuse(path)
        return os.unlink(path, *args, **kwargs)

    def replace(self, src, dst, *args, **kwargs):
        self._refuse(dst)
        return os.replace(src, dst, *args, **kwargs)


@pytest.fixture
def read_only(cache_dir, monkeypatch):
    """``cache_dir`` made read-only (mode 0o555, or refused writes for root)."""
    cache_dir.chmod(0o555)
    probe = cache_dir / "probe"
    try:
        probe.write_bytes(b"")
    except PermissionError:
        pass
    else:
        probe.unlink()
        monkeypatch.setattr(cache, "os", _ReadOnlyOs(cache_dir))
    return cache_dir


@pytest.mark.parametrize("bad_entry", [False, True], ids=["empty", "with-bad-entry"])
def test_read_only_cache_dir(bad_entry, golden, cache_dir, read_only, caplog):
    path = golden.path(cache_dir)
    if bad_entry:
        cache_dir.chmod(0o755)
        path.write_bytes(_flip(-100)(golden.data["f"], golden))
        cache_dir.chmod(0o555)
    out, stats = _run(_f)
    np.testing.assert_allclose(out, F_EXPECTED, rtol=1e-6)
    assert stats["compiles"] == 1
    messages = [r.getMessage() for r in caplog.records]
    assert any("could not write compile cache entry" in m for m in messages), messages
    if bad_entry:
        assert any("discarding bad compile cache entry" in m for m in messages), messages
        assert any("could not delete" in m for m in messages), messages
    assert not [p for p in os.listdir(cache_dir) if p.endswith(".tmp")]
    # a second run in the same process is a memory hit, and still correct
    assert np.allclose(np.asarray(irax.jit(_f)(X)), F_EXPECTED)


_WRITER = textwrap.dedent("""
    import os, sys, time
    import numpy as np
    import iree.compiler, iree.runtime  # loaded before the barrier: compile at once
    import irax, irax.numpy as jnp
    barrier, n = sys.argv[1], int(sys.argv[2])
    open(os.path.join(barrier, str(os.getpid())), "w").close()
    deadline = time.time() + 120
    while len(os.listdir(barrier)) < n and time.time() < deadline:
        time.sleep(0.005)
    out = irax.jit(lambda x: jnp.sin(x) * 3.0 - 0.5)(np.arange(4, dtype=np.float32))
    assert np.allclose(np.asarray(out), np.sin(np.arange(4)) * 3.0 - 0.5), out
""")


def test_concurrent_writers(tmp_path):
    """Several processes compiling the same function at once: all succeed, one sound entry
    is left, and no temporary file."""
    d, barrier = tmp_path / "cache", tmp_path / "barrier"
    barrier.mkdir()
    env = dict(os.environ, IRAX_COMPILATION_CACHE_DIR=str(d))
    n = 3
    procs = [subprocess.Popen([sys.executable, "-c", _WRITER, str(barrier), str(n)], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(n)]
    for p in procs:
        _, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
    (entry,) = _entries(d)
    assert not [p for p in os.listdir(d) if p.endswith(".tmp")]
    data = (d / entry).read_bytes()
    _assert_valid(d / entry, _record(data))

