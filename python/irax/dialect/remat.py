"""Rematerialization: which intermediates of a checkpointed call the backward pass keeps.

``irax.checkpoint_name`` tags a value for the name-based policies; it is the identity
(its tangent is the operand's, it lowers to nothing):

    %h = "irax.checkpoint_name"(%x) {name = "hidden"} : (tensor<4xf32>) -> tensor<4xf32>

A checkpoint's ``policy`` attribute is a policy expression, read by :func:`parse_policy`:

    nothing_saveable | everything_saveable | dots_saveable
    dots_with_no_batch_dims_saveable
    save_only_these_names('a', 'b') | save_any_names_but_these('a')
    save_from_both_policies(<policy>, <policy>)
    custom(<n>)          -- a Python policy function registered in this process

A policy decides per op of the checkpointed function (calls inlined; loops and branches
count as one op) whether its results are saved; every other primal value the backward
pass needs is recomputed from the call's operands and the saved values.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from irax.dialect import attrs as A
from irax.dialect import sharding as S
from irax.dialect.base import Op, OpError
from irax.dialect.elementwise import batch_elementwise
from irax.dialect.linalg import DotGeneral

SIMPLE_POLICIES = ("nothing_saveable", "everything_saveable", "dots_saveable",
                   "dots_with_no_batch_dims_saveable")
NAMED_POLICIES = ("save_only_these_names", "save_any_names_but_these")

#: the ops ``dots_saveable`` saves
DOT_OPS: tuple[type[Op], ...] = (DotGeneral,)

# Python policy functions (``custom(<n>)``), registered by the checkpoint API.
_CUSTOM: dict[int, Callable] = {}


class CheckpointName(Op):
    """The identity, naming its value for checkpoint policies (``checkpoint_name``)."""

    name = "irax.checkpoint_name"
    shard = classmethod(S.elementwise)
    num_operands = 1
    attributes = {"name": A.Str}

    @classmethod
    def infer(cls, x, *, name):
        return x

    @classmethod
    def evaluate(cls, x, *, name):
        return x

    @classmethod
    def lower(cls, lb, x, *, name):
        return x

    @classmethod
    def fold(cls, operands, consts, results, *, name):
        return None   # never folded away before differentiation reads it; lowering drops it

    @classmethod
    def jvp(cls, b, primals, tangents, outs, *, name):
        return tangents[0]

    batch = classmethod(batch_elementwise)


def register_custom(policy: Callable) -> str:
    """The policy expression standing for a Python policy function in this process."""
    key = id(policy)
    _CUSTOM[key] = policy
    return f"custom({key})"


Predicate = Callable[[type, list, dict], bool]


def parse_policy(text: str) -> Predicate:
    """The predicate ``(op class, operand avals, attributes) -> saved?`` of a policy
    expression; raises ``OpError`` for an unknown or malformed one."""
    try:
        node = ast.parse(text, mode="eval").body
    except SyntaxError:
        raise OpError(f"malformed checkpoint policy {text!r}") from None
    return _predicate(node, text)


def _predicate(node, text: str) -> Predicate:
    if isinstance(node, ast.Name) and node.id in SIMPLE_POLICIES:
        return _SIMPLE[node.id]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
        kind, args = node.func.id, node.args
        if kind in NAMED_POLICIES and all(_is_str(a) for a in args):
            names = frozenset(a.value for a in args)
            keep = kind == "save_only_these_names"
            return lambda cls, avals, attrs: (issubclass(cls, CheckpointName)
                                              and (attrs["name"] in names) == keep)
        if kind == "save_from_both_policies" and len(args) == 2:
            first, second = (_predicate(a, text) for a in args)
            return lambda cls, avals, attrs: first(cls, avals, attrs) or second(
                cls, avals, attrs)
        if kind == "custom" and len(args) == 1 and isinstance(args[0], ast.Constant):
            fn = _CUSTOM.get(args[0].value)
            if fn is not None:
                return lambda cls, avals, attrs: _saves(fn(cls, *avals, **attrs), text)
            raise OpError(f"checkpoint policy {text!r} names a Python function of "
                          "another process")
    raise OpError(f"unknown checkpoint policy {text!r}; expected one of "
                  f"{list(SIMPLE_POLICIES + NAMED_POLICIES)}, save_from_both_policies or "
                  "custom")


def _is_str(node) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def _saves(answer, text: str) -> bool:
    """A policy function's answer: a bool, or JAX's Saveable/Offloadable/Recompute."""
    if isinstance(answer, bool):
        return answer
    kind = getattr(answer, "remat_decision", None)
    if kind in ("saveable", "offloadable"):
        return True
    if kind == "recompute":
        return False
    raise OpError(f"checkpoint policy {text!r} returned {answer!r}; expected a bool, "
                  "Saveable, Offloadable or Recompute")


def _dot_without_batch_dims(cls, avals, attrs) -> bool:
    return issubclass(cls, DOT_OPS) and not attrs.get("lhs_batch_dimensions") and \
        not attrs.get("rhs_batch_dimensions")


_SIMPLE: dict[str, Predicate] = {
    "nothing_saveable": lambda cls, avals, attrs: False,
    "everything_saveable": lambda cls, avals, attrs: True,
    "dots_saveable": lambda cls, avals, attrs: issubclass(cls, DOT_OPS),
    "dots_with_no_batch_dims_saveable": _dot_without_batch_dims,
}
