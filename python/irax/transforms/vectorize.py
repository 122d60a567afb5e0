"""``irax.vmap``: vectorizing map, as an ``irax.vmap`` op expanded by ``irax-vectorize``.

The function is traced once on per-example shapes (abstract values, as in JAX: Python
control flow on mapped values raises); the op records which axis of each argument is
mapped and where each result gets its mapped axis.
"""

from __future__ import annotations

import collections
import functools
from typing import Any, Callable

from irax.core import tree_util
from irax.core.errors import IRError
from irax.dialect import mlir
from irax.dialect.base import OpError
from irax.dialect.vectorize import Vmap
from irax.frontend import eager
from irax.frontend.axes import bound_axis
from irax.frontend.callee import (
    apply_transform,
    arg_names,
    fun_name,
    fun_symbol,
    leaf_aval_and_value,
    trace_callee,
)
from irax.passes import pipelines, run_pipeline
from irax.passes.expand import ExpandContext
from irax.vectorize.batch import output_batch_dims


def check_map_args(api: str, fun, in_axes, out_axes):
    """JAX's checks of a map's function and axis specs; returns ``in_axes`` (a list
    becomes a tuple)."""
    if not callable(fun):
        raise TypeError(f"{api} expected a callable, got {fun!r}")
    if isinstance(in_axes, list):
        in_axes = tuple(in_axes)
    _check_axes_spec(in_axes, "in_axes", api)
    _check_axes_spec(out_axes, "out_axes", api)
    return in_axes


def _check_axes_spec(spec, what: str, api: str = "vmap") -> None:
    for leaf in tree_util.tree_leaves(spec, is_leaf=lambda x: x is None):
        if leaf is not None and not isinstance(leaf, int):
            raise TypeError(f"{api} {what} must be an int, None, or (nested) container with "
                            f"those types as leaves, but got {spec}.")


def _broadcast_prefix(prefix, tree, what: str, fun, api: str = "vmap"):
    """One axis per leaf of ``tree`` from the prefix tree ``prefix``."""
    try:
        subtrees = tree_util.tree_structure(prefix, is_leaf=lambda x: x is None) \
            .flatten_up_to(tree)
    except ValueError as e:
        raise ValueError(f"{api} {what} specification must be a tree prefix of the "
                         f"corresponding value, got specification {prefix} for value tree "
                         f"{tree_util.tree_structure(tree)} (in {fun_name(fun)}).\n{e}") from None
    axes = tree_util.tree_leaves(prefix, is_leaf=lambda x: x is None)
    out = []
    for ax, sub in zip(axes, subtrees):
        out += [ax] * len(tree_util.tree_leaves(sub))
    return out


def vmap(fun: Callable, in_axes: Any = 0, out_axes: Any = 0, axis_name=None,
         axis_size: int | None = None, spmd_axis_name=None) -> Callable:
    """Vectorizes ``fun`` over axes of its arguments (``jax.vmap``)."""
    in_axes = check_map_args("vmap", fun, in_axes, out_axes)

    @functools.wraps(fun, updated=())
    def vmapped(*args, **kwargs):
        return map_call(Vmap, fun, in_axes, out_axes, axis_name, axis_size, args, kwargs)

    return vmapped


def map_call(op_cls, fun, in_axes, out_axes, axis_name, axis_size, args, kwargs,
             what: str = "vmap", check_size=None, **attrs):
    """Traces ``fun`` per example and emits ``op_cls`` (``irax.vmap`` or ``irax.pmap``) on
    ``args``; ``check_size(size)`` may reject the mapped size before tracing."""
    if isinstance(in_axes, tuple) and len(in_axes) != len(args):
        raise ValueError(
            f"{what} in_axes must be an int, None, or a tuple of entries corresponding to "
            f"the positional arguments passed to the function, but got "
            f"len(in_axes)={len(in_axes)}, len(args)={len(args)}\n(in {what} of "
            f"{fun_name(fun)})")
    arg_axes = _broadcast_prefix(in_axes, args, "in_axes", fun, what)
    kw_leaves = tree_util.tree_leaves(kwargs)
    axes = arg_axes + [0] * len(kw_leaves)
    leaves, in_tree = tree_util.tree_flatten((tuple(args), dict(kwargs)))
    names = _leaf_names(fun, args, kwargs)
    avals = [leaf_aval_and_value(x)[0] for x in leaves]
    norm, size = _normalize_axes(fun, avals, axes, names, axis_size, what)
    if check_size is not None:
        check_size(size)
    per_example = [a if ax is None else a.remove_axis(ax) for a, ax in zip(avals, norm)]
    with bound_axis(axis_name, size):
        callee = trace_callee(fun, leaves, in_tree, fun_symbol(fun), fun_name(fun),
                              in_avals=per_example, concrete=False)
    out_spec = _broadcast_prefix(out_axes, tree_util.tree_unflatten(
        callee.out_tree, [0] * len(callee.out_avals)), "out_axes", fun, what)
    o_norm = []
    for j, (a, ax) in enumerate(zip(callee.out_avals, out_spec)):
        if ax is None:
            o_norm.append(-1)
            continue
        if not -(a.ndim + 1) <= ax <= a.ndim:
            raise ValueError(f"{what} out_axes specification {ax} is out of range for an "
                             f"output of rank {a.ndim + 1} (output {j} of {fun_name(fun)})")
        o_norm.append(ax % (a.ndim + 1))
    result_avals = [a if ax < 0 else a.insert_axis(ax, size)
                    for a, ax in zip(callee.out_avals, o_norm)]
    in_axes_attr = tuple(-1 if ax is None else ax for ax in norm)
    if -1 in o_norm:
        _check_unmapped_outputs(fun, callee, norm, o_norm, size, axis_name, out_axes, what)
    outs = apply_transform(
        op_cls, callee, lambda caps: list(leaves) + caps, result_avals,
        in_axes=in_axes_attr + (-1,) * len(callee.captures), out_axes=tuple(o_norm),
        axis_size=size, axis_name=axis_name or "", **attrs)
    return tree_util.tree_unflatten(callee.out_tree, outs)


def _leaf_names(fun, args, kwargs) -> list[str]:
    names = []
    for name, a in zip(arg_names(fun, len(args)), args):
        paths = tree_util.tree_flatten_with_path(a)[0]
        prefix = name if name.startswith("args[") else f"argument {name}"
        names += [prefix + tree_util.keystr(p) for p, _ in paths]
    paths = tree_util.tree_flatten_with_path(dict(kwargs))[0]
    names += ["kwargs" + tree_util.keystr(p) for p, _ in paths]
    return names


def _normalize_axes(fun, avals, axes, names, axis_size, what: str = "vmap"):
    norm = []
    for a, ax, name in zip(avals, axes, names):
        if ax is None:
            norm.append(None)
            continue
        if not -a.ndim <= ax < a.ndim:
            raise ValueError(
                f"{what} was requested to map its argument along axis {ax}, which implies that "
                f"its rank should be at least {ax + 1 if ax >= 0 else -ax}, but is only "
                f"{a.ndim} (its shape is {a.shape})\n(in {name} of {fun_name(fun)})")
        norm.append(ax % a.ndim)
    sizes = {a.shape[ax] for a, ax in zip(avals, norm) if ax is not None}
    if axis_size is not None:
        sizes.add(axis_size)
    if not sizes:
        raise ValueError(f"{what} must have at least one non-None value in in_axes or "
                         f"axis_size must be specified (in {what} of {fun_name(fun)})")
    if len(sizes) > 1:
        raise ValueError(_inconsistent_sizes(avals, axes, norm, names, axis_size, what))
    return norm, sizes.pop()


def _inconsistent_sizes(avals, axes, norm, names, axis_size, what: str = "vmap") -> str:
    """JAX's message: one line per distinct size (most common first), naming an example
    argument of each."""
    mapped = [(a.shape[n], ax, name, a) for a, ax, n, name in zip(avals, axes, norm, names)
              if ax is not None]
    counts = collections.Counter(sz for sz, *_ in mapped)
    lines = [f"{what} got inconsistent sizes for array axes to be mapped:"]
    if axis_size is not None:
        lines.append(f"  * the `axis_size` argument was {axis_size};")
    for rank, (sz, ct) in enumerate(counts.most_common()):
        _, ax, name, a = next(m for m in mapped if m[0] == sz)
        example = f"axis {ax} of {name} of type {a.str_short()};"
        if ct == 1:
            lines.append(f"  * one axis had size {sz}: {example}")
        else:
            many = "most" if rank == 0 else "some"
            lines.append(f"  * {many} axes ({ct} of them) had size {sz}, e.g. {example}")
    return "\n".join(lines)[:-1]


def _check_unmapped_outputs(fun, callee, in_dims, out_norm, size, axis_name, out_axes,
                            what: str = "vmap"):
    """JAX's error for an output that out_axes leaves unmapped (None) but that depends on
    the mapped axis; the batch dims come from the batching rules, run on a scratch copy."""
    dims = _output_batch_dims(callee, in_dims, size, axis_name)
    if dims is None:  # not batchable here: irax-vectorize reports it
        return
    full = tree_util.tree_unflatten(callee.out_tree, [0] * len(callee.out_avals))
    for j, (ax, d) in enumerate(zip(out_norm, dims)):
        if ax < 0 and d is not None:
            path = _leaf_path(out_axes, full, j)
            raise ValueError(f"at {what} out_axes{path}, got axis spec None but output was "
                             f"batched on axis {d}\n(output {j} of {fun_name(fun)})")


def _leaf_path(prefix, full, j: int) -> str:
    """The key path of the out_axes entry that covers output leaf ``j``."""
    spec = tree_util.tree_structure(prefix, is_leaf=lambda x: x is None)
    subtrees = spec.flatten_up_to(full)
    paths = tree_util.tree_flatten_with_path(prefix, is_leaf=lambda x: x is None)[0]
    seen = 0
    for (path, _), sub in zip(paths, subtrees):
        seen += len(tree_util.tree_leaves(sub))
        if j < seen:
            return tree_util.keystr(path)
    return ""


def _output_batch_dims(callee, in_dims, size, axis_name):
    """The batch dims irax-vectorize gives the callee's results (None: unmapped), or None
    when the callee cannot be batched here."""
    dims = tuple(in_dims) + (None,) * len(callee.captures)
    scratch = eager.copy_functions(callee.trace.module, callee.name)
    try:
        run_pipeline(scratch, pipelines.EAGER)
        with mlir.context(), mlir.unknown_loc():
            return output_batch_dims(ExpandContext(scratch), callee.name, dims, size,
                                     axis_name or "")
    except (IRError, OpError, NotImplementedError):
        return None


