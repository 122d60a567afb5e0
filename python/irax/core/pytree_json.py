"""Pytree structures and abstract values as JSON: what an exported artifact's signature
(``export/_format.py``) and a function record (``frontend/function_record.py``) write.

    encode_tree(tree_structure(((x, y), {})))   # {"t": [{"t": [0, 1]}, {"d": []}]}
    encode_avals([f32[b, 784]])                 # [["float32", ["b", 784]]]
    encode_avals([f32[3] weak], weak=True)      # [["float32", [3], true]]

Pytrees are nested tuples (``t``), lists (``l``), dicts (``d``, key and value pairs) and
``None`` (``n``) around leaf numbers; any other node is a ``TypeError`` naming ``api``.
"""

from __future__ import annotations

import numpy as np

from irax.core import tree_util
from irax.core.abstract import ShapedArray
from irax.core.dtypes import dtype_from_name
from irax.core.shape_poly import parse


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


def encode_avals(avals, weak: bool = False) -> list:
    """``[dtype, shape]`` pairs (``[dtype, shape, weak]`` with ``weak``); a symbolic size
    is its text (``["float32", ["b", 784]]``)."""
    out = []
    for a in avals:
        entry = [np.dtype(a.dtype).name, [d if type(d) is int else str(d) for d in a.shape]]
        out.append(entry + [bool(a.weak_type)] if weak else entry)
    return out


def decode_avals(data) -> list[ShapedArray]:
    return [ShapedArray(tuple(parse(d) if isinstance(d, str) else d for d in shape),
                        dtype_from_name(name), bool(rest[0]) if rest else False)
            for name, shape, *rest in data]
