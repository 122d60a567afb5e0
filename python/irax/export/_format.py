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
pytrees. Pytrees are written as nested tuples (``t``), lists (``l``), dicts (``d``, key and
value pairs) and ``None`` (``n``) around leaf numbers.
"""

from __future__ import annotations

import json

import numpy as np

from irax.core import tree_util
from irax.core.abstract import ShapedArray
from irax.core.dtypes import dtype_from_name
from irax.core.shape_poly import parse

#: the artifact format this irax writes and the newest it reads
FORMAT = 1
#: the reflection key of the signature
KEY = "irax.signature"


def encode_tree(treedef, api: str):
    """JSON for a treedef of tuples, lists, dicts and None."""
    n = treedef.num_leaves
    return _encode(tree_util.tree_unflatten(treedef, list(range(n))), api)


def _encode(node, api: str):
    if node is None:
        return {"n": 0}
    if type(node) is int:
        return node
    if type(node) is tuple:
        return {"t": [_encode(x, api) for x in node]}
    if type(node) is list:
        return {"l": [_encode(x, api) for x in node]}
    if type(node) is dict:
        for k in node:
            if not isinstance(k, (str, int)) or isinstance(k, bool):
                raise TypeError(f"{api}: cannot export a dict with key {k!r}: keys must be "
                                "str or int")
        return {"d": [[k, _encode(v, api)] for k, v in node.items()]}
    raise TypeError(f"{api}: cannot export pytrees with nodes of type "
                    f"{type(node).__name__}: an artifact holds tuples, lists, dicts and None")


def decode_tree(data):
    """The treedef that ``encode_tree`` wrote."""
    return tree_util.tree_structure(_decode(data))


def _decode(data):
    if type(data) is int:
        return data
    if "n" in data:
        return None
    if "t" in data:
        return tuple(_decode(x) for x in data["t"])
    if "l" in data:
        return [_decode(x) for x in data["l"]]
    return {k: _decode(v) for k, v in data["d"]}


def encode_avals(avals) -> list:
    """``[dtype, shape]`` pairs; a symbolic size is its text (``["float32", ["b", 784]]``)."""
    return [[np.dtype(a.dtype).name, [d if type(d) is int else str(d) for d in a.shape]]
            for a in avals]


def decode_avals(data) -> list[ShapedArray]:
    return [ShapedArray(tuple(parse(d) if isinstance(d, str) else d for d in shape),
                        dtype_from_name(name)) for name, shape in data]


def dumps(signature: dict) -> str:
    return json.dumps(signature, sort_keys=True, separators=(",", ":"))


def mlir_string(text: str) -> str:
    """``text`` as an MLIR string literal's contents (quotes and backslashes escaped)."""
    return text.replace("\\", "\\\\").replace('"', '\\"')
