"""``irax.vmap``: vectorizing map, as an ``irax.vmap`` op expanded by ``irax-vectorize``.

The function is traced once on per-example shapes (abstract values, as in JAX: Python
control flow on mapped values raises); the op records which axis of each argument is
mapped and where each result gets its mapped axis.
"""

from __future__ import annotations

import functools
import inspect
from typing import Any, Callable

from irax import tree_util
from irax.dialect.transform import Vmap
from irax.transform_call import apply_transform, leaf_aval_and_value, trace_callee


def _name(fun) -> str:
    return getattr(fun, "__name__", type(fun).__name__)


def _symbol(fun) -> str:
    return "".join(c if c.isalnum() or c == "_" else "_" for c in _name(fun)).strip("_") or "fn"


def _check_axes_spec(spec, what: str) -> None:
    for leaf in tree_util.tree_leaves(spec, is_leaf=lambda x: x is None):
        if leaf is not None and not isinstance(leaf, int):
            raise TypeError(f"vmap {what} must be an int, None, or (nested) container with "
                            f"those types as leaves, but got {spec}.")


def _arg_names(fun, nargs: int) -> list[str]:
    try:
        params = list(inspect.signature(fun).parameters.values())
    except (TypeError, ValueError):
        params = []
    names = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return [names[i] if i < len(names) else f"args[{i}]" for i in range(nargs)]


def _broadcast_prefix(prefix, tree, what: str, fun):
    """One axis per leaf of ``tree`` from the prefix tree ``prefix``."""
    try:
        subtrees = tree_util.tree_structure(prefix, is_leaf=lambda x: x is None) \
            .flatten_up_to(tree)
    except ValueError as e:
        raise ValueError(f"vmap {what} specification must be a tree prefix of the "
                         f"corresponding value, got specification {prefix} for value tree "
                         f"{tree_util.tree_structure(tree)} (in {_name(fun)}).\n{e}") from None
    axes = tree_util.tree_leaves(prefix, is_leaf=lambda x: x is None)
    out = []
    for ax, sub in zip(axes, subtrees):
        out += [ax] * len(tree_util.tree_leaves(sub))
    return out


def vmap(fun: Callable, in_axes: Any = 0, out_axes: Any = 0, axis_name=None,
         axis_size: int | None = None, spmd_axis_name=None) -> Callable:
    """Vectorizes ``fun`` over axes of its arguments (``jax.vmap``)."""
    if not callable(fun):
        raise TypeError(f"vmap expected a callable, got {fun!r}")
    if isinstance(in_axes, list):
        in_axes = tuple(in_axes)
    _check_axes_spec(in_axes, "in_axes")
    _check_axes_spec(out_axes, "out_axes")

    @functools.wraps(fun, updated=())
    def vmapped(*args, **kwargs):
        if isinstance(in_axes, tuple) and len(in_axes) != len(args):
            raise ValueError(
                "vmap in_axes must be an int, None, or a tuple of entries corresponding to "
                f"the positional arguments passed to the function, but got "
                f"len(in_axes)={len(in_axes)}, len(args)={len(args)}")
        arg_axes = _broadcast_prefix(in_axes, args, "in_axes", fun)
        kw_leaves = tree_util.tree_leaves(kwargs)
        axes = arg_axes + [0] * len(kw_leaves)
        leaves, in_tree = tree_util.tree_flatten((tuple(args), dict(kwargs)))
        names = _leaf_names(fun, args, kwargs)
        avals = [leaf_aval_and_value(x)[0] for x in leaves]
        norm, size = _normalize_axes(fun, avals, axes, names, axis_size)
        per_example = [a if ax is None else _remove(a, ax) for a, ax in zip(avals, norm)]
        callee = trace_callee(fun, leaves, in_tree, _symbol(fun), _name(fun),
                              in_avals=per_example, concrete=False)
        out_spec = _broadcast_prefix(out_axes, tree_util.tree_unflatten(
            callee.out_tree, [0] * len(callee.out_avals)), "out_axes", fun)
        o_norm = []
        for j, (a, ax) in enumerate(zip(callee.out_avals, out_spec)):
            if ax is None:
                o_norm.append(-1)
                continue
            if not -(a.ndim + 1) <= ax <= a.ndim:
                raise ValueError(f"vmap out_axes specification {ax} is out of range for an "
                                 f"output of rank {a.ndim + 1} (output {j} of {_name(fun)})")
            o_norm.append(ax % (a.ndim + 1))
        result_avals = [a if ax < 0 else _insert(a, ax, size)
                        for a, ax in zip(callee.out_avals, o_norm)]
        in_axes_attr = tuple(-1 if ax is None else ax for ax in norm)
        outs = apply_transform(
            Vmap, callee, lambda caps: list(leaves) + caps, result_avals,
            in_axes=in_axes_attr + (-1,) * len(callee.captures), out_axes=tuple(o_norm),
            axis_size=size, axis_name=axis_name or "")
        return tree_util.tree_unflatten(callee.out_tree, outs)

    return vmapped


def _leaf_names(fun, args, kwargs) -> list[str]:
    arg_names = _arg_names(fun, len(args))
    names = []
    for name, a in zip(arg_names, args):
        paths = tree_util.tree_flatten_with_path(a)[0]
        names += [name + tree_util.keystr(p) for p, _ in paths]
    for k in sorted(kwargs):
        paths = tree_util.tree_flatten_with_path(kwargs[k])[0]
        names += [k + tree_util.keystr(p) for p, _ in paths]
    return names


def _normalize_axes(fun, avals, axes, names, axis_size):
    norm = []
    for a, ax in zip(avals, axes):
        if ax is None:
            norm.append(None)
            continue
        if not -a.ndim <= ax < a.ndim:
            raise ValueError(
                f"vmap was requested to map its argument along axis {ax}, which implies that "
                f"its rank should be at least {ax + 1 if ax >= 0 else -ax}, but is only "
                f"{a.ndim} (its shape is {a.shape})")
        norm.append(ax % a.ndim)
    sizes = {a.shape[ax] for a, ax in zip(avals, norm) if ax is not None}
    if axis_size is not None:
        sizes.add(axis_size)
    if not sizes:
        raise ValueError("vmap must have at least one non-None value in in_axes")
    if len(sizes) > 1:
        lines = ["vmap got inconsistent sizes for array axes to be mapped:"]
        for a, ax, name in zip(avals, norm, names):
            if ax is not None:
                lines.append(f"  * one axis had size {a.shape[ax]}: axis {ax} of argument "
                             f"{name} of type {a.str_short()};")
        if axis_size is not None:
            lines.append(f"  * axis_size was given as {axis_size};")
        raise ValueError("\n".join(lines))
    return norm, sizes.pop()


def _remove(aval, axis):
    return aval.update(shape=aval.shape[:axis] + aval.shape[axis + 1:])


def _insert(aval, axis, size):
    shape = list(aval.shape)
    shape.insert(axis, size)
    return aval.update(shape=shape)
