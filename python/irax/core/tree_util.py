"""Pytrees: nested containers of leaves, with JAX 0.10 semantics.

A pytree is built from *nodes* (``list``, ``tuple``, ``dict``, ``None``, namedtuples,
``collections.OrderedDict``, ``collections.defaultdict`` and registered custom types) whose
children are pytrees; everything else is a *leaf*. Traversal is depth-first, left to right;
``dict`` and ``defaultdict`` children are visited in sorted key order, ``OrderedDict`` in
insertion order. ``None`` is a node with no children, so it contributes no leaves. Only exact
types are nodes: subclasses of ``list``/``dict`` are leaves; namedtuple classes are nodes.

>>> leaves, treedef = tree_flatten({'b': 1, 'a': [2, (3, None)]}); leaves, treedef
([2, 3, 1], PyTreeDef({'a': [*, (*, None)], 'b': *}))
>>> tree_unflatten(treedef, [20, 30, 10])
{'a': [20, (30, None)], 'b': 10}
"""

from __future__ import annotations

import collections
import dataclasses
import difflib
import functools
import operator
import textwrap
from itertools import islice
from typing import Any, Callable, Iterable

__all__ = [
    "DictKey", "FlattenedIndexKey", "GetAttrKey", "Partial", "PyTreeDef", "SequenceKey",
    "all_leaves", "keystr", "register_dataclass", "register_pytree_node",
    "register_pytree_node_class", "register_pytree_with_keys", "register_static", "tree_all",
    "tree_flatten", "tree_flatten_with_path", "tree_leaves", "tree_leaves_with_path",
    "tree_map", "tree_map_with_path", "tree_reduce", "tree_structure", "tree_transpose",
    "tree_unflatten", "treedef_is_leaf", "treedef_is_strict_leaf", "treedef_tuple",
]


def _key_class(name: str, field: str, fmt: Callable[[Any], str], doc: str) -> type:
    """Make an immutable one-field key-entry class (hashable, ``==`` by class and value)."""

    def __setattr__(self, attr, value):
        raise AttributeError(f"{name} is immutable")

    get = operator.attrgetter(field)
    ns = dict(
        __slots__=(field,), __match_args__=(field,), __doc__=doc, __module__=__name__,
        __init__=lambda self, value: object.__setattr__(self, field, value),
        __setattr__=__setattr__, __hash__=lambda self: hash((name, get(self))),
        __eq__=lambda self, other: (get(self) == get(other) if type(other) is type(self)
                                    else NotImplemented),
        __repr__=lambda self: f"{name}({field}={get(self)!r})",
        __str__=lambda self: fmt(get(self)),
        __reduce__=lambda self: (type(self), (get(self),)))
    return type(name, (), ns)


SequenceKey = _key_class("SequenceKey", "idx", lambda v: f"[{v!r}]",
                         "Key of a list/tuple child: ``str(SequenceKey(0)) == '[0]'``.")
DictKey = _key_class("DictKey", "key", lambda v: f"[{v!r}]",
                     "Key of a mapping child: ``str(DictKey('a')) == \"['a']\"``.")
GetAttrKey = _key_class("GetAttrKey", "name", lambda v: f".{v}",
                        "Key of an attribute child (namedtuple or dataclass field): "
                        "``str(GetAttrKey('y')) == '.y'``.")
FlattenedIndexKey = _key_class(
    "FlattenedIndexKey", "key", lambda v: f"[<flat index {v!r}>]",
    "Positional key of a child of a custom node registered without a key function. As in "
    "JAX, ``str(FlattenedIndexKey(0)) == '[<flat index 0>]'``.")
_KEY_FIELD = {SequenceKey: "idx", DictKey: "key", GetAttrKey: "name", FlattenedIndexKey: "key"}


def keystr(keys: Iterable[Any], *, simple: bool = False, separator: str = "") -> str:
    """Render a key path.

    >>> keystr((DictKey('a'), SequenceKey(1), GetAttrKey('y')))
    "['a'][1].y"
    >>> keystr((DictKey('a'), SequenceKey(1)), simple=True, separator='/')
    'a/1'
    """
    return separator.join(map(_simple_key if simple else str, keys))


def _simple_key(k: Any) -> str:
    field = _KEY_FIELD.get(type(k))
    return str(k if field is None else getattr(k, field))


# ---- registry ------------------------------------------------------------------------------
# A treedef node is ``None`` for a leaf, else ``(spec, aux, children_nodes_tuple)``; nodes are
# plain nested tuples, so treedef ``==`` and ``hash`` run at C speed.

_LIST, _TUPLE, _DICT, _NONE, _NAMEDTUPLE, _CUSTOM = range(6)


class _Spec:
    """How one node type flattens and unflattens."""

    __slots__ = ("type", "kind", "flatten", "build", "keyed")

    def __init__(self, type_, kind, flatten, build, keyed):
        self.type, self.kind = type_, kind
        self.flatten = flatten  # x -> (children, aux)
        self.build = build  # (aux, children_list) -> value
        self.keyed = keyed  # x -> (((key, child), ...), aux)


def _sorted_keys(d: dict) -> list:
    try:
        return sorted(d)
    except Exception:
        raise ValueError(
            "Comparator raised exception while sorting pytree dictionary keys.") from None


def _dict_flatten(d):
    keys = _sorted_keys(d)
    return [d[k] for k in keys], tuple(keys)


def _seq_keyed(x):
    return [(SequenceKey(i), c) for i, c in enumerate(x)], None


_LIST_SPEC = _Spec(list, _LIST, lambda x: (x, None), lambda a, ch: ch, _seq_keyed)
_TUPLE_SPEC = _Spec(tuple, _TUPLE, lambda x: (x, None), lambda a, ch: tuple(ch), _seq_keyed)
_DICT_SPEC = _Spec(dict, _DICT, _dict_flatten, lambda a, ch: dict(zip(a, ch)),
                   lambda d: (lambda v, k: (list(zip(map(DictKey, k), v)), k))(*_dict_flatten(d)))
_NONE_SPEC = _Spec(type(None), _NONE, lambda x: ((), None), lambda a, ch: None,
                   lambda x: ((), None))
_NONE_NODE = (_NONE_SPEC, None, ())
_MISSING = object()

_specs: dict[type, _Spec | None] = {}  # type -> spec, or None for a (cached) leaf type
_dispatch: dict[type, Callable | None] = {}  # type -> fast flatten handler, None for leaves
_leaf_types: set[type] = set()  # types known to be leaves (for the all-leaves fast path)


def _children(seq, leaves: list) -> tuple:
    """Flatten the children ``seq`` (a list/tuple) into ``leaves``; return their nodes."""
    if _leaf_types.issuperset(set(map(type, seq))):
        leaves.extend(seq)
        return (None,) * len(seq)
    out = []
    for c in seq:
        h = _dispatch.get(type(c), _MISSING)
        if h is _MISSING:
            h = _classify(type(c))
        if h is None:
            leaves.append(c)
            out.append(None)
        else:
            out.append(h(c, leaves))
    return tuple(out)


def _h_dict(x, leaves):
    keys = _sorted_keys(x)
    return (_DICT_SPEC, tuple(keys), _children([x[k] for k in keys], leaves))


def _make_handler(spec: _Spec) -> Callable:
    flatten = spec.flatten

    def handler(x, leaves):
        children, aux = flatten(x)
        if type(children) is not list and type(children) is not tuple:
            children = tuple(children)
        return (spec, aux, _children(children, leaves))

    return handler


def _install(spec: _Spec, handler: Callable) -> None:
    _specs[spec.type] = spec
    _dispatch[spec.type] = handler
    _leaf_types.discard(spec.type)


def _classify(t: type) -> Callable | None:
    """Classify an unseen type as a namedtuple node or a leaf, caching the answer."""
    if issubclass(t, tuple) and hasattr(t, "_fields"):
        fields = tuple(t._fields)
        spec = _Spec(t, _NAMEDTUPLE, lambda x: (x, None), lambda a, ch: t(*ch),
                     lambda x: ([(GetAttrKey(f), c) for f, c in zip(fields, x)], None))
        handler = lambda x, leaves: (spec, None, _children(x, leaves))
        _install(spec, handler)
        return handler
    if len(_leaf_types) > 8192:  # bound the cache (e.g. many dynamically created classes)
        for lt in _leaf_types:
            del _specs[lt], _dispatch[lt]
        _leaf_types.clear()
    _specs[t] = _dispatch[t] = None
    _leaf_types.add(t)
    return None


def _spec_of(t: type) -> _Spec | None:
    s = _specs.get(t, _MISSING)
    if s is _MISSING:
        _classify(t)
        s = _specs[t]
    return s


_install(_LIST_SPEC, lambda x, leaves: (_LIST_SPEC, None, _children(x, leaves)))
_install(_TUPLE_SPEC, lambda x, leaves: (_TUPLE_SPEC, None, _children(x, leaves)))
_install(_DICT_SPEC, _h_dict)
_install(_NONE_SPEC, lambda x, leaves: _NONE_NODE)


def _register(nodetype, flatten, unflatten, keyed) -> None:
    if _specs.get(nodetype) is not None:
        raise ValueError(f"Duplicate custom PyTreeDef type registration for {nodetype}.")
    if keyed is None:
        def keyed(x):
            children, aux = flatten(x)
            return [(FlattenedIndexKey(i), c) for i, c in enumerate(children)], aux
    spec = _Spec(nodetype, _CUSTOM, flatten, lambda a, ch: unflatten(a, tuple(ch)), keyed)
    _install(spec, _make_handler(spec))


def register_pytree_node(nodetype: type, flatten_func: Callable, unflatten_func: Callable,
                         flatten_with_keys_func: Callable | None = None) -> None:
    """Register ``nodetype`` as a pytree node.

    ``flatten_func(x) -> (children, aux_data)``; ``unflatten_func(aux_data, children)``
    receives the children as a tuple. ``aux_data`` is static: it takes part in treedef
    equality (``==``) and hashing.

    >>> class Pair:
    ...     def __init__(self, a, b): self.a, self.b = a, b
    >>> register_pytree_node(Pair, lambda p: ((p.a, p.b), None), lambda _, ch: Pair(*ch))
    >>> tree_leaves([Pair(1, 2), 3])
    [1, 2, 3]
    """
    _register(nodetype, flatten_func, unflatten_func, flatten_with_keys_func)


def register_pytree_with_keys(nodetype: type, flatten_with_keys: Callable,
                              unflatten_func: Callable,
                              flatten_func: Callable | None = None) -> None:
    """Register ``nodetype`` with a key-aware flatten: ``x -> (((key, child), ...), aux)``.

    >>> class Box:
    ...     def __init__(self, v): self.v = v
    >>> register_pytree_with_keys(Box, lambda b: (((GetAttrKey('v'), b.v),), None),
    ...                           lambda _, ch: Box(*ch))
    >>> keystr(tree_flatten_with_path(Box([1]))[0][0][0])
    '.v[0]'
    """
    if flatten_func is None:
        def flatten_func(x):
            pairs, aux = flatten_with_keys(x)
            return [c for _, c in pairs], aux
    _register(nodetype, flatten_func, unflatten_func, flatten_with_keys)


def register_pytree_node_class(cls: type) -> type:
    """Class decorator: register via ``cls.tree_flatten`` and the classmethod
    ``cls.tree_unflatten(aux_data, children)``."""
    register_pytree_node(cls, operator.methodcaller("tree_flatten"), cls.tree_unflatten)
    return cls


def register_dataclass(nodetype: type, data_fields: Iterable[str] | None = None,
                       meta_fields: Iterable[str] | None = None,
                       drop_fields: Iterable[str] = ()) -> type:
    """Register a dataclass-like type: ``data_fields`` are children, ``meta_fields`` static.

    For a dataclass both may be omitted: fields with ``metadata={'static': True}`` are meta.

    >>> @register_dataclass
    ... @dataclasses.dataclass
    ... class S:
    ...     x: Any
    ...     op: str = dataclasses.field(default='add', metadata=dict(static=True))
    >>> tree_flatten(S([1, 2], 'mul'))
    ([1, 2], PyTreeDef(CustomNode(S[('mul',)], [[*, *]])))
    """
    if data_fields is None or meta_fields is None:
        if (data_fields is None) != (meta_fields is None):
            raise TypeError("register_dataclass: data_fields and meta_fields must both be "
                            f"specified when either is. Got {data_fields=} {meta_fields=}.")
        if not dataclasses.is_dataclass(nodetype):
            raise TypeError("register_dataclass: data_fields and meta_fields are required "
                            f"when nodetype is not a dataclass. Got {nodetype=}.")
        fields = dataclasses.fields(nodetype)
        data_fields = [f.name for f in fields if not f.metadata.get("static", False)]
        meta_fields = [f.name for f in fields if f.metadata.get("static", False)]
    data, meta = tuple(data_fields), tuple(meta_fields)
    if dataclasses.is_dataclass(nodetype):
        init = {f.name for f in dataclasses.fields(nodetype) if f.init} - set(drop_fields)
        if (given := set(data) | set(meta)) != init:
            raise ValueError(
                "data_fields and meta_fields must include all dataclass fields with "
                f"``init=True`` and only them. Missing fields: {init - given}. "
                f"Unexpected fields: {given - init}. Use drop_fields to drop fields.")
    if overlap := set(data) & set(meta):
        raise ValueError(f"data_fields and meta_fields must not overlap: {overlap}.")
    keys = tuple(map(GetAttrKey, data))

    def flatten(x):
        return tuple([getattr(x, n) for n in data]), tuple([getattr(x, n) for n in meta])

    def keyed(x):
        children, aux = flatten(x)
        return tuple(zip(keys, children)), aux

    def unflatten(aux, children):
        return nodetype(**dict(zip(meta, aux)), **dict(zip(data, children)))

    _register(nodetype, flatten, unflatten, keyed)
    return nodetype


def register_static(cls: type) -> type:
    """Register ``cls`` as a node with no children whose whole value is static aux data."""
    register_pytree_with_keys(cls, lambda x: ((), x), lambda aux, _: aux)
    return cls


def _defaultdict_keyed(d):
    keys = tuple(sorted(d))
    return tuple((DictKey(k), d[k]) for k in keys), (d.default_factory, keys)


register_pytree_with_keys(
    collections.OrderedDict,
    lambda x: (tuple((DictKey(k), v) for k, v in x.items()), tuple(x)),
    lambda keys, values: collections.OrderedDict(zip(keys, values)),
    lambda x: (tuple(x.values()), tuple(x)))
register_pytree_with_keys(
    collections.defaultdict, _defaultdict_keyed,
    lambda aux, values: collections.defaultdict(aux[0], zip(aux[1], values)))


def _count(node) -> tuple[int, int]:
    """``(num_leaves, num_nodes)`` of a node."""
    if node is None:
        return 1, 1
    counts = [_count(k) for k in node[2]]
    return sum(c[0] for c in counts), 1 + sum(c[1] for c in counts)


def _build(node, it):
    spec, aux, kids = node
    if any(kids):
        ch = [next(it) if k is None else _build(k, it) for k in kids]
    else:
        ch = list(islice(it, len(kids)))
    return spec.build(aux, ch)


def _repr(node) -> str:
    if node is None:
        return "*"
    spec, aux, kids = node
    inner = [_repr(k) for k in kids]
    kind = spec.kind
    if kind == _LIST:
        return "[" + ", ".join(inner) + "]"
    if kind == _TUPLE:
        return "(" + ", ".join(inner) + ("," if len(inner) == 1 else "") + ")"
    if kind == _DICT:
        return "{" + ", ".join(f"{k!r}: {v}" for k, v in zip(aux, inner)) + "}"
    if kind == _NONE:
        return "None"
    name = spec.type.__name__
    head = f"namedtuple[{name}]" if kind == _NAMEDTUPLE else f"{name}[{aux}]"
    return f"CustomNode({head}, [{', '.join(inner)}])"


_NONE_HINT = ("\n\nNone is a pytree node with no children, not a prefix of other values. To "
              "treat None as a leaf, pass is_leaf=lambda x: x is None, e.g.\n  tree_map("
              "lambda x, y: None if x is None else f(x, y), a, b, is_leaf=lambda x: x is None)")
_KIND_NAME = {_LIST: "list", _TUPLE: "tuple", _DICT: "dict", _NAMEDTUPLE: "named tuple"}


def _up_to(node, x, out: list) -> None:
    spec, aux, kids = node
    kind, t = spec.kind, type(x)
    if t is not spec.type:
        if kind == _NONE:
            raise ValueError(f"Expected None, got {x!r}.{_NONE_HINT}")
        if kind == _CUSTOM:
            raise ValueError(f"Custom node type mismatch: expected type: {spec.type}, "
                             f"value: {x!r}.")
        if kind == _NAMEDTUPLE and isinstance(x, tuple) and hasattr(t, "_fields"):
            raise ValueError(f"Named tuple type mismatch: expected type: {spec.type}, "
                             f"tuple: {x!r}.")
        raise ValueError(f"Expected {_KIND_NAME[kind]}, got {x!r}.")
    children, aux2 = spec.flatten(x)
    if type(children) is not list and type(children) is not tuple:
        children = tuple(children)
    if aux2 != aux:
        if kind == _DICT:
            raise ValueError(f"Dict key mismatch; expected keys: {list(aux)}; "
                             f"present keys: {list(aux2)}.")
        raise ValueError(f"Mismatch custom node data: {aux!r} != {aux2!r}; value: {x!r}.")
    if len(children) != len(kids):
        if kind == _CUSTOM:
            raise ValueError(f"Custom node arity mismatch: expected: {len(kids)}, got: "
                             f"{len(children)}; value: {x!r}.")
        raise ValueError(f"{_KIND_NAME[kind].capitalize()} arity mismatch: {len(children)} "
                         f"!= {len(kids)}; {'list' if kind == _LIST else 'tuple'}: {x!r}.")
    if not any(kids):
        out.extend(children)
        return
    for k, c in zip(kids, children):
        if k is None:
            out.append(c)
        else:
            _up_to(k, c, out)


def _compose(outer, inner):
    if outer is None:
        return inner
    return (outer[0], outer[1], tuple([_compose(k, inner) for k in outer[2]]))


class PyTreeDef:
    """The structure of a pytree: everything but the leaves. Hashable and comparable.

    >>> td = tree_structure([1, (2, None)])
    >>> td, td.num_leaves, td.num_nodes
    (PyTreeDef([*, (*, None)]), 2, 5)
    >>> td.unflatten(['a', 'b'])
    ['a', ('b', None)]
    >>> td.children()
    [PyTreeDef(*), PyTreeDef((*, None))]
    """

    __slots__ = ("_node", "_num_leaves", "_hash")

    def __init__(self, node, num_leaves: int | None = None):
        self._node, self._num_leaves, self._hash = node, num_leaves, None

    @property
    def num_leaves(self) -> int:
        if self._num_leaves is None:
            self._num_leaves = _count(self._node)[0]
        return self._num_leaves

    num_nodes = property(lambda self: _count(self._node)[1])

    def children(self) -> list[PyTreeDef]:
        """Treedefs of the root's immediate children (``[]`` for a leaf or ``None``)."""
        return [] if self._node is None else [PyTreeDef(k) for k in self._node[2]]

    def node_data(self) -> tuple[type, Any] | None:
        """``(node_type, aux_data)`` of the root, or ``None`` for a leaf."""
        if self._node is None:
            return None
        spec, aux = self._node[0], self._node[1]
        return spec.type, (list(aux) if spec.kind == _DICT else aux)

    def unflatten(self, leaves: Iterable[Any]) -> Any:
        """Build a pytree of this structure from ``leaves``.

        >>> tree_structure({'a': 0, 'b': [0]}).unflatten([1, 2])
        {'a': 1, 'b': [2]}
        """
        if type(leaves) is not list and type(leaves) is not tuple:
            leaves = list(leaves)
        n = self.num_leaves
        if len(leaves) != n:
            if len(leaves) < n:
                raise ValueError(f"Too few leaves for PyTreeDef; expected {n}, got "
                                 f"{len(leaves)}")
            raise ValueError(f"Too many leaves for PyTreeDef; expected {n}.")
        node = self._node
        return leaves[0] if node is None else _build(node, iter(leaves))

    def flatten_up_to(self, tree: Any) -> list[Any]:
        """Flatten ``tree`` down to this (prefix) structure: each leaf of ``self`` pairs with
        a whole subtree of ``tree``.

        >>> tree_structure([0, 0]).flatten_up_to([[1, 2], {'k': 3}])
        [[1, 2], {'k': 3}]
        """
        if self._node is None:
            return [tree]
        out: list = []
        _up_to(self._node, tree, out)
        return out

    def compose(self, inner: PyTreeDef) -> PyTreeDef:
        """Treedef of this structure with every leaf replaced by ``inner``."""
        return PyTreeDef(_compose(self._node, inner._node))

    def __eq__(self, other: object) -> bool:
        if type(other) is not PyTreeDef:
            return NotImplemented
        return self is other or self._node == other._node

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(self._node)
        return self._hash

    def __repr__(self) -> str:
        return f"PyTreeDef({_repr(self._node)})"


_LEAF_TREEDEF = PyTreeDef(None, 1)


def treedef_is_leaf(treedef: PyTreeDef) -> bool:
    """True for a single-node treedef: a leaf, ``None`` or an empty container."""
    return treedef.num_nodes == 1


def treedef_is_strict_leaf(treedef: PyTreeDef) -> bool:
    """True only for the leaf treedef ``*``."""
    return treedef._node is None


def treedef_tuple(treedefs: Iterable[PyTreeDef]) -> PyTreeDef:
    """Treedef of a tuple whose children have the given treedefs."""
    return PyTreeDef((_TUPLE_SPEC, None, tuple(t._node for t in treedefs)))


def _flatten_pred(x, leaves: list, is_leaf: Callable) -> Any:
    if is_leaf(x):
        leaves.append(x)
        return None
    spec = _spec_of(type(x))
    if spec is None:
        leaves.append(x)
        return None
    children, aux = spec.flatten(x)
    return (spec, aux, tuple([_flatten_pred(c, leaves, is_leaf) for c in children]))


def tree_flatten(tree: Any, is_leaf: Callable[[Any], bool] | None = None
                 ) -> tuple[list[Any], PyTreeDef]:
    """Flatten ``tree`` into ``(leaves, treedef)``.

    ``is_leaf(x)`` is consulted at every subtree before descending into it.

    >>> tree_flatten([1, None, (2,)])
    ([1, 2], PyTreeDef([*, None, (*,)]))
    >>> tree_flatten([1, None], is_leaf=lambda x: x is None)
    ([1, None], PyTreeDef([*, *]))
    """
    leaves: list = []
    if is_leaf is None:
        h = _dispatch.get(type(tree), _MISSING)
        if h is _MISSING:
            h = _classify(type(tree))
        if h is None:
            return [tree], _LEAF_TREEDEF
        node = h(tree, leaves)
    else:
        node = _flatten_pred(tree, leaves, is_leaf)
    return leaves, PyTreeDef(node, len(leaves))


def tree_unflatten(treedef: PyTreeDef, leaves: Iterable[Any]) -> Any:
    """Inverse of :func:`tree_flatten`: ``tree_unflatten(tree_structure([0]), [1]) == [1]``."""
    return treedef.unflatten(leaves)


def tree_leaves(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> list[Any]:
    """Leaves of ``tree`` in flattening order: ``tree_leaves({'b': 1, 'a': [2]}) == [2, 1]``.
    """
    return tree_flatten(tree, is_leaf)[0]


def tree_structure(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> PyTreeDef:
    """Treedef of ``tree``: ``tree_structure({'a': [1], 'b': None})`` is
    ``PyTreeDef({'a': [*], 'b': None})``."""
    return tree_flatten(tree, is_leaf)[1]


def all_leaves(iterable: Iterable[Any], is_leaf: Callable[[Any], bool] | None = None) -> bool:
    """True if every element of ``iterable`` is a leaf (``None`` is not, unless ``is_leaf``).

    >>> all_leaves([1, 'a']), all_leaves([1, [2]]), all_leaves([None])
    (True, False, False)
    """
    return all((is_leaf is not None and is_leaf(x)) or _spec_of(type(x)) is None
               for x in iterable)


def _flatten_paths(x, path: tuple, out: list, is_leaf) -> Any:
    if is_leaf is not None and is_leaf(path, x):
        out.append((path, x))
        return None
    spec = _spec_of(type(x))
    if spec is None:
        out.append((path, x))
        return None
    pairs, aux = spec.keyed(x)
    return (spec, aux, tuple([_flatten_paths(c, (*path, k), out, is_leaf) for k, c in pairs]))


def _path_pred(is_leaf, takes_path: bool):
    if is_leaf is None or takes_path:
        return is_leaf
    return lambda _, x: is_leaf(x)


def tree_flatten_with_path(tree: Any, is_leaf: Callable[..., bool] | None = None,
                           is_leaf_takes_path: bool = False
                           ) -> tuple[list[tuple[tuple, Any]], PyTreeDef]:
    """Like :func:`tree_flatten` but each leaf comes with its key path.

    >>> [(keystr(p), v) for p, v in tree_flatten_with_path({'a': [1, 2]})[0]]
    [("['a'][0]", 1), ("['a'][1]", 2)]
    """
    out: list = []
    node = _flatten_paths(tree, (), out, _path_pred(is_leaf, is_leaf_takes_path))
    return out, PyTreeDef(node, len(out))


def tree_leaves_with_path(tree: Any, is_leaf: Callable[..., bool] | None = None,
                          is_leaf_takes_path: bool = False) -> list[tuple[tuple, Any]]:
    """``(key_path, leaf)`` pairs of ``tree``.

    >>> tree_leaves_with_path([1, (2,)])
    [((SequenceKey(idx=0),), 1), ((SequenceKey(idx=1), SequenceKey(idx=0)), 2)]
    """
    return tree_flatten_with_path(tree, is_leaf, is_leaf_takes_path)[0]


def _prefix_error(prefix, full, path: tuple, name: str, is_leaf) -> ValueError | None:
    """Error for the first place ``prefix`` (flattened with ``is_leaf(path, x)``) is not a
    prefix of ``full``, or None."""
    if is_leaf is not None and is_leaf(path, prefix):
        return None
    spec = _spec_of(type(prefix))
    if spec is None:
        return None
    where = (f"pytree structure error: different {{}} at key path\n    {name}{keystr(path)}\n"
             f"At that key path, the prefix pytree {name} has a subtree of type")
    if type(prefix) is not type(full):
        return ValueError(
            f"{where.format('types')}\n    {type(prefix)}\nbut at the same key path the full "
            f"pytree has a subtree of different type\n    {type(full)}.")
    (pairs_p, meta_p), (pairs_f, meta_f) = spec.keyed(prefix), spec.keyed(full)
    pairs_p, pairs_f = tuple(pairs_p), tuple(pairs_f)
    if spec.kind in (_LIST, _TUPLE):
        if len(prefix) != len(full):
            ty = spec.type.__name__
            return ValueError(
                f"{where.format('lengths of ' + ty)} {ty} of length {len(prefix)}, but the "
                f"full pytree has a subtree of the same type but of length {len(full)}.")
    elif len(pairs_p) != len(pairs_f):
        keys_p, keys_f = [k for k, _ in pairs_p], [k for k, _ in pairs_f]
        try:
            diff = "so the symmetric difference on key sets is\n    " + " ".join(
                map(_simple_key, set(keys_p) ^ set(keys_f)))
        except TypeError:
            diff = ""
        return ValueError(
            f"{where.format('numbers of pytree children')}\n    {type(prefix)}\n"
            f"with {len(keys_p)} child keys\n    {' '.join(map(_simple_key, keys_p))}\n"
            "but at the same key path the full pytree has a subtree of the same type but with "
            f"{len(keys_f)} child keys\n    {' '.join(map(_simple_key, keys_f))}\n{diff}")
    if meta_p != meta_f:
        a, b = str(meta_p), str(meta_f)
        ndiff = textwrap.indent("\n".join(difflib.ndiff(a.splitlines(), b.splitlines())),
                                "    ")
        return ValueError(
            f"{where.format('pytree metadata')}\n    {type(prefix)}\nwith metadata\n    {a}\n"
            "but at the same key path the full pytree has a subtree of the same type but with "
            f"metadata\n    {b}\nso the diff in the metadata at these pytree nodes is\n{ndiff}")
    for (k, p), (_, f) in zip(pairs_p, pairs_f):
        err = _prefix_error(p, f, (*path, k), name, is_leaf)
        if err is not None:
            return err
    return None


def _flatten_rest(treedef: PyTreeDef, tree, rest, name: str, is_leaf) -> list[list]:
    out = []
    for r in rest:
        try:
            out.append(treedef.flatten_up_to(r))
        except ValueError as e:
            err = _prefix_error(tree, r, (), name, is_leaf)
            raise (e if err is None else err) from None
    return out


def tree_map(f: Callable[..., Any], tree: Any, *rest: Any,
             is_leaf: Callable[[Any], bool] | None = None) -> Any:
    """Apply ``f`` to the leaves of ``tree`` (and matching subtrees of ``rest``).

    ``tree``'s structure must be a prefix of each of ``rest``: ``f`` receives a leaf of
    ``tree`` together with the whole corresponding subtree of each other tree.

    >>> tree_map(lambda x: x + 1, {'a': [1, 2], 'b': None})
    {'a': [2, 3], 'b': None}
    >>> tree_map(lambda x, y: (x, y), [1, 2], [[10, 11], {'k': 12}])
    [(1, [10, 11]), (2, {'k': 12})]
    """
    leaves, treedef = tree_flatten(tree, is_leaf)
    if not rest:
        return treedef.unflatten([f(x) for x in leaves])
    others = _flatten_rest(treedef, tree, rest, "tree_map tree", _path_pred(is_leaf, False))
    return treedef.unflatten([f(*xs) for xs in zip(leaves, *others)])


def tree_map_with_path(f: Callable[..., Any], tree: Any, *rest: Any,
                       is_leaf: Callable[..., bool] | None = None,
                       is_leaf_takes_path: bool = False) -> Any:
    """Like :func:`tree_map` but calls ``f(key_path, leaf, *others)``.

    >>> tree_map_with_path(lambda p, x: keystr(p), {'a': [0], 'b': 0})
    {'a': ["['a'][0]"], 'b': "['b']"}
    """
    pairs, treedef = tree_flatten_with_path(tree, is_leaf, is_leaf_takes_path)
    if not rest:
        return treedef.unflatten([f(p, x) for p, x in pairs])
    others = _flatten_rest(treedef, tree, rest, "tree_map_with_path tree",
                           _path_pred(is_leaf, is_leaf_takes_path))
    return treedef.unflatten([f(p, x, *xs) for (p, x), *xs in zip(pairs, *others)])


_NO_INIT: Any = type("_Missing", (), {"__repr__": lambda self: "<missing>"})()


def tree_reduce(function: Callable[[Any, Any], Any], tree: Any, initializer: Any = _NO_INIT,
                is_leaf: Callable[[Any], bool] | None = None) -> Any:
    """``functools.reduce`` over the leaves of ``tree``.

    >>> tree_reduce(operator.add, [1, (2, 3)]), tree_reduce(operator.add, [], 0)
    (6, 0)
    """
    leaves = tree_leaves(tree, is_leaf)
    if initializer is _NO_INIT:
        return functools.reduce(function, leaves)
    return functools.reduce(function, leaves, initializer)


def tree_all(tree: Any, *, is_leaf: Callable[[Any], bool] | None = None) -> bool:
    """``all()`` over the leaves of ``tree``.

    >>> tree_all([True, (1, None)]), tree_all({'a': 0})
    (True, False)
    """
    return all(tree_leaves(tree, is_leaf))


def tree_transpose(outer_treedef: PyTreeDef, inner_treedef: PyTreeDef | None,
                   pytree_to_transpose: Any) -> Any:
    """Turn an outer-of-inner pytree into an inner-of-outer one.

    >>> tree_transpose(tree_structure([0, 0]), tree_structure((0, 0, 0)),
    ...                [(1, 2, 3), (4, 5, 6)])
    ([1, 4], [2, 5], [3, 6])
    """
    flat, treedef = tree_flatten(pytree_to_transpose)
    if inner_treedef is None:
        inner_treedef = tree_structure(outer_treedef.flatten_up_to(pytree_to_transpose)[0])
    n_in, n_out = inner_treedef.num_leaves, outer_treedef.num_leaves
    if treedef.num_leaves != n_in * n_out:
        raise TypeError(f"Mismatch\n{treedef}\n != \n{outer_treedef.compose(inner_treedef)}")
    rows = [flat[i * n_in:(i + 1) * n_in] for i in range(n_out)]
    return inner_treedef.unflatten([outer_treedef.unflatten(col) for col in zip(*rows)])


class _WrappedPartial:
    """Hides a ``functools.partial`` from ``partial.__new__`` so its arguments stay static."""

    __slots__ = ("inner", "func", "args", "keywords")

    def __init__(self, inner: functools.partial):
        self.inner = inner

    __call__ = lambda self, *args, **kwargs: self.inner(*args, **kwargs)
    __hash__ = lambda self: hash(self.inner)
    __eq__ = lambda self, other: type(other) is _WrappedPartial and self.inner == other.inner
    __repr__ = lambda self: repr(self.inner)


class Partial(functools.partial):
    """A ``functools.partial`` that is a pytree: ``func`` is static aux data, the bound
    ``args`` and ``keywords`` are children.

    >>> p = Partial(operator.add, 1)
    >>> p(2), tree_leaves(p), tree_map(lambda x: x * 10, p)(2)
    (3, [1], 12)
    """

    def __new__(cls, func, *args, **kwargs):
        if not isinstance(func, functools.partial):
            return super().__new__(cls, func, *args, **kwargs)
        wrapped = _WrappedPartial(func)  # else partial.__new__ would merge func's arguments
        out = super().__new__(cls, wrapped, *args, **kwargs)
        wrapped.func, wrapped.args, wrapped.keywords = func.func, func.args, func.keywords
        return out


register_pytree_node(Partial, lambda p: ((p.args, p.keywords), p.func),
                     lambda func, ch: Partial(func, *ch[0], **ch[1]))
