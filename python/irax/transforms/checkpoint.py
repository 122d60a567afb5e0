"""Rematerialization: ``checkpoint``/``remat``, its policies and ``checkpoint_name``.

    @functools.partial(irax.checkpoint, policy=irax.checkpoint_policies.dots_saveable)
    def layer(w, x):
        return jnp.tanh(checkpoint_name(w @ x, "pre"))

Under a trace ``checkpoint`` records the function as a private function and emits
``irax.checkpoint`` with the policy as an expression (``dialect.remat``); reverse mode
saves the results of the ops the policy accepts and recomputes the rest. Outside any
transformation the plain function runs.

A policy is called like JAX's, ``policy(prim, *avals, **params) -> bool``: irax passes
the op class (``irax.dialect.linalg.DotGeneral`` for a dot), the operands' abstract
values and the op's attributes. Offloading policies save what they would offload (irax
has no host memory space to offload to).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Callable

from irax.core import tree_util
from irax.dialect.autodiff import Checkpoint
from irax.dialect.remat import DOT_OPS, CheckpointName, register_custom
from irax.frontend.callee import apply_transform, fun_name, fun_symbol, trace_callee
from irax.frontend.trace import bind, current_trace
from irax.transforms.custom_derivatives import _merge, _split_nondiff


class _Decision:
    """JAX's remat decisions a policy function may return instead of a bool."""

    def __init__(self, kind: str):
        self.remat_decision = kind

    def __repr__(self) -> str:
        return self.remat_decision.capitalize()


Saveable = _Decision("saveable")
Recompute = _Decision("recompute")


@dataclass(frozen=True)
class Offloadable:
    """Save a value in another memory space (``jax.ad_checkpoint.Offloadable``); irax
    keeps it in device memory."""

    src: str
    dst: str
    remat_decision = "offloadable"


class Policy:
    """A named policy: callable like JAX's, and an expression the checkpoint op carries."""

    def __init__(self, expr: str, call: Callable):
        self.expr = expr
        self._call = call

    def __call__(self, prim, *avals, **params):
        return self._call(prim, *avals, **params)

    def __repr__(self) -> str:
        return f"checkpoint_policies.{self.expr}"


def _named(*names) -> str:
    return ", ".join(repr(str(n)) for n in names)


def _is_dot(prim) -> bool:
    return isinstance(prim, type) and issubclass(prim, DOT_OPS)


def _is_name(prim) -> bool:
    return isinstance(prim, type) and issubclass(prim, CheckpointName)


class checkpoint_policies:  # noqa: N801 - JAX's name
    """Which intermediates ``checkpoint`` may keep for the backward pass
    (``jax.checkpoint_policies``)."""

    everything_saveable = Policy("everything_saveable", lambda *_, **__: True)
    nothing_saveable = Policy("nothing_saveable", lambda *_, **__: False)
    dots_saveable = Policy("dots_saveable", lambda prim, *_, **__: _is_dot(prim))
    checkpoint_dots = dots_saveable
    dots_with_no_batch_dims_saveable = Policy(
        "dots_with_no_batch_dims_saveable",
        lambda prim, *_, **p: _is_dot(prim) and not p.get("lhs_batch_dimensions")
        and not p.get("rhs_batch_dimensions"))
    checkpoint_dots_with_no_batch_dims = dots_with_no_batch_dims_saveable

    @staticmethod
    def save_only_these_names(*names) -> Policy:
        """Save only the values tagged with one of ``names`` by ``checkpoint_name``."""
        keep = frozenset(names)
        return Policy(f"save_only_these_names({_named(*sorted(keep))})",
                      lambda prim, *_, **p: _is_name(prim) and p["name"] in keep)

    @staticmethod
    def save_any_names_but_these(*names) -> Policy:
        """Save every named value except those tagged with one of ``names``."""
        drop = frozenset(names)
        return Policy(f"save_any_names_but_these({_named(*sorted(drop))})",
                      lambda prim, *_, **p: _is_name(prim) and p["name"] not in drop)

    @staticmethod
    def save_anything_except_these_names(*names) -> Policy:
        """Save every value (JAX's policy of this name saves everything)."""
        return checkpoint_policies.everything_saveable

    @staticmethod
    def save_from_both_policies(policy_1, policy_2) -> Policy:
        """A value is saved when either policy saves it."""
        first, second = (_as_policy(p) for p in (policy_1, policy_2))

        def either(prim, *avals, **params):
            a, b = first(prim, *avals, **params), second(prim, *avals, **params)
            if not (isinstance(a, bool) and isinstance(b, bool)):
                raise ValueError("The return value of the policies should be a boolean. "
                                 f"Got: {a} and {b}. Please write a custom policy function "
                                 "directly, rather than using this helper function.")
            return a or b

        if first.expr.startswith("custom(") or second.expr.startswith("custom("):
            return Policy(register_custom(either), either)   # JAX's checks on the answers
        return Policy(f"save_from_both_policies({first.expr}, {second.expr})", either)

    @staticmethod
    def save_and_offload_only_these_names(*, names_which_can_be_saved,
                                          names_which_can_be_offloaded, offload_src,
                                          offload_dst) -> Policy:
        """``save_only_these_names`` where the offloaded names are saved too (irax has no
        host memory to offload to)."""
        saved, offloaded = set(names_which_can_be_saved), set(names_which_can_be_offloaded)
        both = saved & offloaded
        if both:
            raise ValueError(
                "The names should be exclusive and should not intersect in "
                "`names_which_can_be_saved` and `names_which_can_be_offloaded`. Got "
                f"names_which_can_be_saved={saved}, names_which_can_be_offloaded="
                f"{offloaded} and the intersection={both}")
        return checkpoint_policies.save_only_these_names(*(saved | offloaded))

    @staticmethod
    def offload_dot_with_no_batch_dims(offload_src, offload_dst) -> Policy:
        """``dots_with_no_batch_dims_saveable`` (the dots are saved, not offloaded)."""
        return checkpoint_policies.dots_with_no_batch_dims_saveable


def _as_policy(policy) -> Policy:
    if policy is None:
        return checkpoint_policies.nothing_saveable
    if isinstance(policy, Policy):
        return policy
    if callable(policy):
        return Policy(register_custom(policy), policy)
    raise TypeError(f"irax.checkpoint: policy must be a callable such as "
                    f"checkpoint_policies.dots_saveable, got {policy!r}")


def checkpoint_name(x, name: str):
    """Tags ``x`` (a pytree) with ``name`` for the name-based checkpoint policies
    (``jax.ad_checkpoint.checkpoint_name``); the identity otherwise."""
    if not isinstance(name, str):
        raise TypeError(f"checkpoint_name: name must be a str, got {type(name).__name__}")
    if current_trace() is None:
        return x
    return tree_util.tree_map(lambda leaf: bind(CheckpointName, leaf, name=name), x)


def checkpoint(fun: Callable | None = None, *, prevent_cse: bool = True, policy=None,
               static_argnums=(), static_argnames=()) -> Callable:
    """Recompute ``fun``'s intermediates in the backward pass instead of storing them
    (``jax.checkpoint``); ``policy`` (``checkpoint_policies``) names what may be kept;
    the arguments of ``static_argnums`` and the keyword arguments of ``static_argnames``
    are taken as Python values, not traced."""
    if fun is None:
        return functools.partial(checkpoint, prevent_cse=prevent_cse, policy=policy,
                                 static_argnums=static_argnums,
                                 static_argnames=static_argnames)
    expr = _as_policy(policy).expr
    static_argnums = (static_argnums,) if isinstance(static_argnums, int) else \
        tuple(static_argnums)
    static_argnames = (static_argnames,) if isinstance(static_argnames, str) else \
        tuple(static_argnames)

    @functools.wraps(fun, updated=())
    def remat_f(*args, **kwargs):
        if current_trace() is None:
            return fun(*args, **kwargs)
        static, dyn = _split_nondiff(args, static_argnums)
        n = len(args)
        fixed = {k: kwargs.pop(k) for k in list(kwargs) if k in static_argnames}
        leaves, in_tree = tree_util.tree_flatten((dyn, kwargs))
        callee = trace_callee(lambda *d, **k: fun(*_merge(static, d, n), **k, **fixed),
                              leaves, in_tree, fun_symbol(fun) + "_remat", fun_name(fun))
        outs = apply_transform(Checkpoint, callee, lambda caps: list(leaves) + caps,
                               callee.out_avals, policy=expr)
        return tree_util.tree_unflatten(callee.out_tree, outs)

    return remat_f


remat = checkpoint
