"""``jit(f, abstracted_axes=...)``: one trace and one compiled program for every size of
the named axes (shape polymorphism, ``core/shape_poly.py``).

``abstracted_axes`` is a pytree prefix of the positional arguments whose leaves are
``None`` (all sizes known) or ``{axis: "name"}``; axes with one name must have one size:

    f = irax.jit(mlp, abstracted_axes=(None, {0: "batch"}))    # params, x[batch, 784]
    f(params, x_of_7_rows); f(params, x_of_1000_rows)           # one trace, one compile

The traced argument types are ``f32[batch,784]``; in IR ``tensor<?x784xf32, ["batch"]>``.

With ``irax_auto_dynamic_axes`` on, a jitted function called with a third size of an
axis (its other sizes alike) makes that axis symbolic for later calls (``AutoDynamic``).
"""

from __future__ import annotations

import logging

from irax.core import tree_util
from irax.core.config import config
from irax.core.shape_poly import Dim

#: specializations of one function that differ in one axis's size before that axis is
#: made symbolic under ``irax_auto_dynamic_axes``
AUTO_DYNAMIC_AFTER = 2


def _is_spec_leaf(x) -> bool:
    return x is None or isinstance(x, dict)


class AxesPlan:
    """Where the symbolic sizes of one argument structure are: ``(leaf, axis, Dim)``
    triples, and each leaf's path (for errors)."""

    __slots__ = ("entries", "paths")

    def __init__(self, entries, paths):
        self.entries = entries
        self.paths = paths

    def abstract(self, avals, api: str) -> tuple:
        """``avals`` with the planned axes symbolic; raises when one name gets two sizes."""
        if not self.entries:
            return avals
        shapes = [list(a.shape) for a in avals]
        env: dict = {}
        for leaf, axis, dim in self.entries:
            size = shapes[leaf][axis]
            name = str(dim)
            seen = env.get(name)
            if seen is not None and seen[0] != size:
                raise ValueError(
                    f"{api}: the abstracted axis {name!r} has size {seen[0]} in argument "
                    f"{seen[1]} but {size} in argument {self.paths[leaf]} axis {axis}: "
                    "axes with one name must have one size")
            env.setdefault(name, (size, f"{self.paths[leaf]} axis {axis}"))
            shapes[leaf][axis] = dim
        return tuple(a if s == list(a.shape) else a.update(shape=s)
                     for a, s in zip(avals, shapes))


def plan(abstracted_axes, dyn_args: tuple, n_leaves: int, avals, api: str) -> AxesPlan:
    """The plan of ``abstracted_axes`` (a prefix of the positional arguments) for these
    arguments; leaves past the positional ones (keyword arguments) keep their sizes."""
    try:
        treedef = tree_util.tree_structure(abstracted_axes, is_leaf=_is_spec_leaf)
        subtrees = treedef.flatten_up_to(dyn_args)
    except ValueError as e:
        got = tree_util.tree_structure(dyn_args)
        raise ValueError(f"{api}: abstracted_axes must be a pytree prefix of the positional "
                         f"arguments: expected a prefix of {got}, got {abstracted_axes!r} "
                         f"({e})") from None
    specs = tree_util.tree_leaves(abstracted_axes, is_leaf=_is_spec_leaf)
    paths = [tree_util.keystr(p) for p, _ in tree_util.tree_flatten_with_path(dyn_args)[0]]
    paths = [f"args{p}" for p in paths] + ["kwargs"] * (n_leaves - len(paths))
    entries = []
    leaf = 0
    for spec, sub in zip(specs, subtrees):
        count = len(tree_util.tree_leaves(sub))
        for i in range(leaf, leaf + count):
            entries += _leaf_entries(spec, i, avals[i], paths[i], api)
        leaf += count
    return AxesPlan(entries, paths)


def _leaf_entries(spec, leaf: int, aval, path: str, api: str) -> list:
    if spec is None:
        return []
    out = []
    for axis, name in spec.items():
        if not isinstance(axis, int) or not -aval.ndim <= axis < aval.ndim:
            raise ValueError(f"{api}: abstracted_axes names axis {axis!r} of argument {path}, "
                             f"which has shape {aval.shape} (rank {aval.ndim})")
        try:
            dim = Dim.symbol(name)
        except ValueError:
            raise ValueError(f"{api}: abstracted_axes: expected a name (letters, digits, _) "
                             f"for axis {axis} of argument {path}, got {name!r}") from None
        out.append((leaf, axis % aval.ndim, dim))
    return out


class AutoDynamic:
    """``irax_auto_dynamic_axes``: remembers the shapes a function was specialized for;
    once ``AUTO_DYNAMIC_AFTER`` specializations differ from a new one in the same axes
    only, those axes become symbolic (named ``_d<leaf>_<axis>``) for this and later calls
    of that structure."""

    __slots__ = ("seen", "axes")

    def __init__(self):
        self.seen: dict = {}    # (treedef, statics, dtypes, ranks) -> list of shapes
        self.axes: dict = {}    # (treedef, statics, dtypes, ranks) -> AxesPlan

    def abstract(self, treedef, statics, avals, name: str):
        """``avals`` with the axes this structure made symbolic, deciding anew when a new
        combination of sizes arrives."""
        key = (treedef, statics, tuple(a.dtype for a in avals), tuple(a.ndim for a in avals))
        plan_ = self.axes.get(key)
        if plan_ is not None:
            return plan_.abstract(avals, f"irax.jit({name})")
        shapes = self.seen.setdefault(key, [])
        shape = tuple(a.shape for a in avals)
        if shape in shapes:
            return avals
        varying = set()
        for old in shapes:
            varying |= {(i, k) for i, (s, t) in enumerate(zip(old, shape))
                        for k, (m, n) in enumerate(zip(s, t)) if m != n}
        shapes.append(shape)
        if len(shapes) <= AUTO_DYNAMIC_AFTER or not varying:
            return avals
        entries = [(i, k, Dim.symbol(f"_d{i}_{k}")) for i, k in sorted(varying)]
        plan_ = self.axes[key] = AxesPlan(entries, [f"leaf {i}" for i in range(len(avals))])
        if config.jax_log_compiles:
            logging.getLogger("irax").warning(
                "irax: jit(%s) was specialized for %d sizes of %s; compiling one "
                "shape-polymorphic program for them (irax_auto_dynamic_axes)", name,
                len(shapes), ", ".join(f"argument leaf {i} axis {k}" for i, k, _ in entries))
        return plan_.abstract(avals, f"irax.jit({name})")


def is_polymorphic(avals) -> bool:
    return any(not a.is_static for a in avals)


__all__ = ["AxesPlan", "AutoDynamic", "plan", "is_polymorphic"]
