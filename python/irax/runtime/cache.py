"""The persistent compile cache: compiled ``.vmfb`` bytes on disk, keyed by content.

Each entry is one file ``<key>.vmfb``: a header (magic, the lengths of the record and of
the payload, SHA-256 of both), a record of what the entry was compiled from (its key,
and the ``info`` the key was made of: compiler version, flags, irax's cache version, the
module's digest; JSON) and the payload. ``load`` returns the payload only when the
header, the checksum and the record all match what the caller asks for, so an entry
copied or renamed under another key is refused rather than run.

Writers write a temporary file and rename it into place, so readers see a whole entry or
none; a reader that finds a torn, corrupt, misfiled or unreadable entry logs a warning on
the ``irax`` logger, deletes it (``discard``) and reports a miss, and the caller
recompiles. Nothing here raises on a bad entry or an unwritable directory.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import secrets
import struct
from pathlib import Path

from irax.core.config import config

log = logging.getLogger("irax")
#: the last byte is the format's version: entries of another format are bad entries
_MAGIC = b"IRAXVMFB\x02"
#: magic, record length, payload length, SHA-256 of record + payload
_HEADER = struct.Struct("<9sIQ32s")


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
    """A hex SHA-256 of ``parts``, each length-prefixed (so ``("a", "b") != ("ab", "")``)."""
    h = hashlib.sha256()
    for p in parts:
        b = p.encode() if isinstance(p, str) else p
        h.update(struct.pack("<Q", len(b)))
        h.update(b)
    return h.hexdigest()


def _record(key: str, info: dict | None) -> dict:
    return {"key": key, **(info or {})}


def _encode(record: dict) -> bytes:
    return json.dumps(record, sort_keys=True, separators=(",", ":")).encode()


def encode_entry(key: str, payload: bytes, info: dict | None = None) -> bytes:
    """The bytes of the entry ``store`` writes for ``key`` (``info``: JSON-serializable
    values of what the key was made from)."""
    meta = _encode(_record(key, info))
    digest = hashlib.sha256(meta + payload).digest()
    return _HEADER.pack(_MAGIC, len(meta), len(payload), digest) + meta + payload


def _decode(data: bytes, key: str, info: dict | None) -> tuple[bytes | None, str]:
    """``(payload, "")`` when ``data`` is a sound entry for ``key`` and ``info``, else
    ``(None, why not)``."""
    if len(data) < _HEADER.size:
        return None, "truncated header"
    magic, meta_len, length, digest = _HEADER.unpack_from(data)
    if magic != _MAGIC:
        return None, "not an irax cache entry of this format"
    if _HEADER.size + meta_len + length != len(data):
        return None, "truncated or overlong"
    body = data[_HEADER.size:]
    if hashlib.sha256(body).digest() != digest:
        return None, "checksum mismatch"
    try:
        record = json.loads(body[:meta_len])
    except ValueError:
        return None, "unreadable record"
    expected = json.loads(_encode(_record(key, info)))
    if not isinstance(record, dict) or record.get("key") != key:
        return None, "recorded under another key (a misfiled entry)"
    if record != expected:
        fields = sorted(k for k in expected.keys() | record.keys()
                        if record.get(k) != expected.get(k))
        return None, f"compiled with another {', '.join(fields)}"
    return body[meta_len:], ""


def load(key: str, info: dict | None = None, suffix: str = ".vmfb") -> bytes | None:
    """The payload stored under ``key``, or None on a miss. An entry that cannot be read,
    is corrupt, or records another key or other ``info`` is discarded (with a warning)."""
    d = cache_dir()
    if d is None:
        return None
    path = d / f"{key}{suffix}"
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        return None
    except OSError as e:
        discard(key, f"cannot be read: {e.strerror or e}", suffix)
        return None
    payload, problem = _decode(data, key, info)
    if payload is None:
        discard(key, problem, suffix)
    return payload


def discard(key: str, reason: str, suffix: str = ".vmfb") -> None:
    """Deletes the entry of ``key``, logging a warning that says why (``reason``)."""
    d = cache_dir()
    if d is None:
        return
    path = d / f"{key}{suffix}"
    log.warning("irax: discarding bad compile cache entry %s (%s); it will be recompiled",
                path, reason)
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    except OSError as e:
        log.warning("irax: could not delete compile cache entry %s: %s", path, e)


def store(key: str, payload: bytes, info: dict | None = None, suffix: str = ".vmfb") -> None:
    """Writes ``payload`` under ``key`` with its record of ``info``; an unwritable cache
    directory only logs a warning. The file gets the mode any new file of the process gets
    (0o666 less the umask)."""
    d = cache_dir()
    if d is None:
        return
    try:
        os.makedirs(d, exist_ok=True)
        write_atomically(d / f"{key}{suffix}", encode_entry(key, payload, info))
    except OSError as e:
        log.warning("irax: could not write compile cache entry under %s: %s", d, e)


def write_atomically(path, data: bytes) -> None:
    """Writes ``data`` to ``path`` through a temporary file beside it and a rename, so
    that no reader (another process too) sees part of it; the folder must exist. The file
    gets the mode any new file of the process gets (0o666 less the umask)."""
    folder, name = os.path.split(os.fspath(path))
    tmp = os.path.join(folder, f".{name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0),
                 0o666)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
