"""``einsum_path`` (``jax.numpy.einsum_path``): a pairwise contraction order for an
``einsum`` and a report of its cost, with opt_einsum's cost model (a contraction of the
index set ``s`` of ``k`` terms costs ``prod(sizes of s) * max(1, k - 1)``, plus one
``prod`` when it sums an index away).

    path, info = jnp.einsum_path("ij,jk,kl->il", a, b, c)   # [(0, 1), (0, 1)]
    print(info)                                               # the table of contractions

``optimize``: 'optimal' (exhaustive search), 'greedy' (cheapest memory-removing pair first),
'auto' (optimal up to four operands, else greedy; opt_einsum's branch searches for five to
fourteen operands are approximated by greedy), True ('optimal'), False (left to right) or
an explicit path. Only shapes are read, so operands may be traced.
"""

from __future__ import annotations

import itertools
import math
from decimal import Decimal

import numpy as np

_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _shape_of(x):
    return tuple(np.shape(x)) if not hasattr(x, "shape") else tuple(x.shape)


def _interleaved(args):
    """``(arr, axes, arr, axes, ..., [out_axes])`` as a subscripts string and operands."""
    args = list(args)
    ops, terms = [], []
    while len(args) >= 2:
        ops.append(args.pop(0))
        terms.append(args.pop(0))
    out = args[0] if args else None
    labels = sorted({a for t in terms for a in t if a is not Ellipsis} |
                    set(a for a in (out or ()) if a is not Ellipsis))
    name = {a: _LETTERS[i] for i, a in enumerate(labels)}

    def text(t):
        return "".join("..." if a is Ellipsis else name[a] for a in t)

    subs = ",".join(text(t) for t in terms) + ("" if out is None else "->" + text(out))
    return subs, ops


def _parse(subscripts: str, shapes):
    subscripts = subscripts.replace(" ", "")
    lhs, arrow, out = subscripts.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(shapes):
        raise ValueError("Number of einsum subscripts must be equal to the number of operands.")
    n_ell = max((len(s) - (len(t) - 3) for t, s in zip(terms, shapes) if "..." in t), default=0)
    spare = "".join(c for c in _LETTERS if c not in subscripts)[:n_ell]
    fixed = []
    for t, s in zip(terms, shapes):
        if "..." in t:
            k = len(s) - (len(t) - 3)
            t = t.replace("...", spare[n_ell - k:] if k else "")
        fixed.append(t)
    if arrow:
        out = out.replace("...", spare)
    else:
        counts = {}
        for c in "".join(fixed):
            counts[c] = counts.get(c, 0) + 1
        out = spare + "".join(sorted(c for c, k in counts.items() if k == 1 and c not in spare))
    return fixed, out


def _sizes(terms, shapes):
    sizes = {}
    for num, (t, s) in enumerate(zip(terms, shapes)):
        if len(t) != len(s):
            raise ValueError(f"Einstein sum subscript '{t}' does not contain the correct number "
                             f"of indices for operand {num}.")
        for c, d in zip(t, s):
            d = int(d)
            if sizes.get(c, 1) == 1:
                sizes[c] = d
            elif d not in (1, sizes[c]):
                raise ValueError(f"Size of label '{c}' for operand {num} ({sizes[c]}) does not "
                                 f"match previous terms ({d}).")
    return sizes


def _size(labels, sizes) -> int:
    return math.prod(sizes[c] for c in labels)


def _flops(labels, inner: bool, terms: int, sizes) -> int:
    return _size(labels, sizes) * (max(1, terms - 1) + inner)


def _contract(sets, pair, output):
    """The result labels of contracting ``pair`` of ``sets`` and the labels summed away."""
    keep = set(output).union(*(s for i, s in enumerate(sets) if i not in pair))
    either = frozenset().union(*(sets[i] for i in pair))
    return either & keep, either - keep, either


def _to_linear(ssa_path, n):
    ids, linear, nxt = list(range(n)), [], n
    for pair in ssa_path:
        pos = sorted(ids.index(s) for s in pair)
        for p in reversed(pos):
            ids.pop(p)
        ids.append(nxt)
        nxt += 1
        linear.append(tuple(pos))
    return linear


def _optimal(sets, output, sizes):
    best = {"flops": math.inf, "path": [tuple(range(len(sets)))]}

    def search(path, remaining, sets, flops):
        if len(remaining) == 1:
            best["flops"], best["path"] = flops, path
            return
        for i, j in itertools.combinations(sorted(remaining), 2):
            rest = remaining - {i, j}
            keep = set(output).union(*(sets[r] for r in rest))
            either = sets[i] | sets[j]
            new = flops + _flops(either, bool((sets[i] & sets[j]) - keep), 2, sizes)
            if new >= best["flops"]:
                continue
            search(path + [(i, j)], rest | {len(sets)}, sets + [either & keep], new)

    search([], set(range(len(sets))), list(sets), 0)
    return _to_linear(best["path"], len(sets))


def _greedy(sets, output, sizes):
    """Repeatedly contracts the pair whose result frees the most memory (``size(result) -
    size(a) - size(b)`` smallest; pairs sharing no label last), ties to the earliest pair."""
    sets, ids, path = list(sets), list(range(len(sets))), []
    nxt = len(sets)
    while len(sets) > 1:
        best = None
        for i, j in itertools.combinations(range(len(sets)), 2):
            res, _, _ = _contract(sets, (i, j), output)
            share = bool(sets[i] & sets[j])
            cost = (not share, _size(res, sizes) - _size(sets[i], sizes) - _size(sets[j], sizes),
                    max(ids[i], ids[j]), min(ids[i], ids[j]))
            if best is None or cost < best[0]:
                best = (cost, i, j, res)
        _, i, j, res = best
        path.append((i, j))
        for k in (j, i):
            sets.pop(k)
            ids.pop(k)
        sets.append(res)
        ids.append(nxt)
        nxt += 1
    return path


class PathInfo:
    """The cost report of an einsum path (the fields and table of opt_einsum's
    ``PathInfo``)."""

    def __init__(self, eq, terms, output, path, contractions, sizes):
        self.eq = eq
        self.input_subscripts, self.output_subscript = ",".join(terms), output
        self.path = path
        self.contraction_list = contractions
        self.size_dict = sizes
        labels = set("".join(terms))
        inner = sum(len(set(t)) for t in terms) - len(labels) > 0
        # Decimals, as opt_einsum's (JAX's): they print as ``3.600e+2``
        self.naive_cost = Decimal(_flops(labels, inner, len(terms), sizes))
        self.opt_cost = Decimal(sum(c["flops"] for c in contractions))
        self.speedup = self.naive_cost / max(self.opt_cost, Decimal(1))
        self.size_list = [c["size"] for c in contractions]
        self.scale_list = [c["scale"] for c in contractions]
        self.largest_intermediate = Decimal(max(self.size_list, default=1))

    def __repr__(self) -> str:
        head = [f"  Complete contraction:  {self.eq}",
                f"         Naive scaling:  {len(self.size_dict)}",
                f"     Optimized scaling:  {max(self.scale_list, default=0)}",
                f"      Naive FLOP count:  {self.naive_cost:.3e}",
                f"  Optimized FLOP count:  {self.opt_cost:.3e}",
                f"   Theoretical speedup:  {self.speedup:.3e}",
                f"  Largest intermediate:  {self.largest_intermediate:.3e} elements",
                "-" * 80,
                f"{'scaling':<15}{'current':>24}{'remaining':>41}",
                "-" * 80]
        for c in self.contraction_list:
            remaining = ",".join(c["remaining"]) + "->" + self.output_subscript
            head.append(f"{c['scale']:>4}{c['einsum']:>35}{remaining:>41}")
        return "\n".join(head)

    __str__ = __repr__


def einsum_path(subscripts, /, *operands, optimize="auto"):
    """The contraction order (a list of operand-position tuples) and its ``PathInfo``."""
    if not isinstance(subscripts, str):
        subscripts, operands = _interleaved((subscripts, *operands))
    shapes = [_shape_of(x) for x in operands]
    terms, output = _parse(subscripts, shapes)
    sizes = _sizes(terms, shapes)
    sets = [frozenset(t) for t in terms]
    n = len(terms)
    if optimize is True:
        optimize = "optimal"
    if optimize is False:
        path = [(0, 1)] * (n - 1) if n > 1 else [(0,)]
    elif not isinstance(optimize, str):
        path = [tuple(p) for p in optimize]
        if path and path[0] == "einsum_path":
            path = path[1:]
    elif optimize not in ("auto", "optimal", "greedy"):
        raise KeyError(f"Path optimizer '{optimize}' not found, valid options are "
                       "['auto', 'greedy', 'optimal'].")
    elif n <= 2:
        path = [tuple(range(n))]
    elif optimize == "optimal" or (optimize == "auto" and n <= 4):
        path = _optimal(sets, output, sizes)
    else:
        path = _greedy(sets, output, sizes)
    return path, _report(subscripts, terms, output, path, sizes)


def _report(eq, terms, output, path, sizes):
    current, sets, contractions = list(terms), [frozenset(t) for t in terms], []
    for num, pair in enumerate(path):
        pair = tuple(sorted(pair, reverse=True))
        res, removed, either = _contract(sets, pair, output)
        inputs = [current.pop(p) for p in pair]
        for p in pair:
            sets.pop(p)
        joined = "".join(inputs)
        result = output if num == len(path) - 1 else "".join(sorted(res, key=joined.find))
        current.append(result)
        sets.append(frozenset(result))
        contractions.append({"pair": pair, "removed": removed, "scale": len(either),
                             "flops": _flops(either, bool(removed), len(pair), sizes),
                             "size": _size(res, sizes), "remaining": tuple(current),
                             "einsum": ",".join(inputs) + "->" + result})
    return PathInfo(eq if "->" in eq else eq + "->" + output, terms, output, path,
                    contractions, sizes)
