"""The artifact format: a ``.vmfb`` whose ``main`` carries irax's signature.

An exported program is one IREE module per target. Its entry function's reflection holds
``irax.signature``, a JSON object saying what the program is:

    {"format": 1, "irax": "0.1.0", "iree": "iree.compiler 3.13.0 (...)",
     "function": "predict", "target": {"name": "cpu", "backend": "llvm-cpu",
     "arch": "x86_64", "flags": [...]},
     "in_tree": {"t": [{"t": [0, 1]}, {"d": []}]}, "out_tree": 0,
     "in_avals": [["float32", ["batch", 784]], ...], "out_avals": [...],
     "donated": [0], "devices": 0}

So the file is what ``iree-run-module --module=f.vmfb --function=main`` runs, and all a
loader needs (``irax.aot.load``: the IREE runtime only) to call it with the original
pytrees (written by ``core/pytree_json.py``, as function records are).
"""

from __future__ import annotations

import json

from irax.core.pytree_json import (  # noqa: F401 - the artifact's pytrees and types
    decode_avals,
    decode_tree,
    encode_avals,
    encode_tree,
)

#: the artifact format this irax writes and the newest it reads
FORMAT = 1
#: the reflection key of the signature
KEY = "irax.signature"


def dumps(signature: dict) -> str:
    return json.dumps(signature, sort_keys=True, separators=(",", ":"))


def mlir_string(text: str) -> str:
    """``text`` as an MLIR string literal's contents (quotes and backslashes escaped)."""
    return text.replace("\\", "\\\\").replace('"', '\\"')
