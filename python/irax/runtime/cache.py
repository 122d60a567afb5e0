"""The persistent compile cache: compiled ``.vmfb`` bytes on disk, keyed by content.

Each entry is one file ``<key>.vmfb`` holding a header (magic, payload length, SHA-256 of
the payload) and the payload. Writers write a temporary file and rename it into place, so
readers see a whole entry or none; a reader that finds a torn or corrupt entry deletes it
and reports a miss, and the caller recompiles. Nothing here raises on a bad entry.
"""

from __future__ import annotations

import hashlib
import logging
import os
import struct
import tempfile
from pathlib import Path

from irax.core.config import config

log = logging.getLogger("irax")
_MAGIC = b"IRAXVMFB\x01"
_HEADER = struct.Struct("<9sQ32s")


def cache_dir() -> Path | None:
    """The cache directory in force, or None when the persistent cache is off."""
    if not config.irax_enable_compilation_cache:
        return None
    d = config.irax_compilation_cache_dir
    if d is None:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        d = os.path.join(base, "irax", "compile")
    return Path(d)


def make_key(*parts: bytes | str) -> str:
    h = hashlib.sha256()
    for p in parts:
        b = p.encode() if isinstance(p, str) else p
        h.update(struct.pack("<Q", len(b)))
        h.update(b)
    return h.hexdigest()


def load(key: str) -> bytes | None:
    d = cache_dir()
    if d is None:
        return None
    path = d / f"{key}.vmfb"
    try:
        data = path.read_bytes()
    except OSError:
        return None
    if len(data) >= _HEADER.size:
        magic, length, digest = _HEADER.unpack_from(data)
        payload = data[_HEADER.size:]
        if magic == _MAGIC and length == len(payload) and \
                hashlib.sha256(payload).digest() == digest:
            return payload
    log.warning("irax: discarding corrupt compile cache entry %s", path)
    try:
        path.unlink()
    except OSError:
        pass
    return None


def store(key: str, payload: bytes) -> None:
    d = cache_dir()
    if d is None:
        return
    try:
        d.mkdir(parents=True, exist_ok=True)
        header = _HEADER.pack(_MAGIC, len(payload), hashlib.sha256(payload).digest())
        fd, tmp = tempfile.mkstemp(dir=d, prefix=f".{key}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(header)
                f.write(payload)
            os.replace(tmp, d / f"{key}.vmfb")
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise
    except OSError as e:
        log.warning("irax: could not write compile cache entry under %s: %s", d, e)
