"""The collectives' threaded rules (each class's ``between_threads``): how a device whose
program runs on a thread of its own computes its part of a collective from its group's
operands, with NumPy, while the group's threads wait between two barriers
(``transforms/spmd.py``, the rendezvous). ``between_threads(aval, **attrs)`` returns a
rule ``rule(vals, i, x, out)``: ``vals`` the group's operands (read-only views of the
devices' buffers, valid until the second barrier), ``i`` this device's index in the
group, ``x`` its operand, ``out`` the group's shared result when ``rule.shares`` (made
once per meeting, filled by every member), else None. It returns this device's result::

    rule = Psum.between_threads(aval, axis_name="x")    # Reduce(np.add)
    rule([a0, a1], 1, a1, out)                           # fills out's second half
"""

from __future__ import annotations

import numpy as np


def part(size: int, n: int, i: int) -> slice:
    """Member ``i`` of ``n``'s share of ``size`` flat elements."""
    return slice(size * i // n, size * (i + 1) // n)


class Reduce:
    """psum / pmax / pmin: each member reduces its share of the elements over the group's
    operands into the group's shared result (a reduce-scatter and an all-gather in one
    array); every member's result is that array."""

    shares = True

    def __init__(self, ufunc, aval):
        self.ufunc, self.aval = ufunc, aval

    def __call__(self, vals, i, x, out):
        at = part(out.size, len(vals), i)
        dst = out.reshape(-1)[at]
        src = [np.asarray(v, self.aval.dtype).reshape(-1)[at] for v in vals]
        if len(src) == 1:
            np.copyto(dst, src[0])
        else:
            self.ufunc(src[0], src[1], out=dst)
            for v in src[2:]:
                self.ufunc(dst, v, out=dst)
        return out


class Gather:
    """all_gather: each member copies its own operand into its place of the group's
    shared result."""

    shares = True

    def __init__(self, axis: int, tiled: bool, aval):
        self.axis, self.tiled, self.aval = axis, tiled, aval

    def __call__(self, vals, i, x, out):
        at = [slice(None)] * out.ndim
        if self.tiled:
            n = out.shape[self.axis] // len(vals)
            at[self.axis] = slice(i * n, (i + 1) * n)
        else:
            at[self.axis] = i
        out[tuple(at)] = x
        return out


class Own:
    """A collective whose members' results differ (psum_scatter, ppermute, all_to_all):
    each computes its own from the group's operands into a new array (``fn`` returns one
    that no operand's buffer backs: the operands are unmapped once the call returns)."""

    shares = False

    def __init__(self, fn, aval):
        self.fn, self.aval = fn, aval

    def __call__(self, vals, i, x, out):
        return np.asarray(self.fn(vals, i, x), dtype=self.aval.dtype)


def reducing(ufunc):
    """The threaded rule of a reduction applying ``ufunc``."""
    def rule(cls, aval, **attrs):
        return Reduce(ufunc, aval)
    return classmethod(rule)


def _block(ndim: int, dim: int, tiled: bool, n: int, size: int, i: int) -> tuple:
    """The index of member ``i``'s block along ``dim`` (of ``size``, ``n`` members)."""
    at = [slice(None)] * ndim
    at[dim] = slice(i * (size // n), (i + 1) * (size // n)) if tiled else i
    return tuple(at)


def all_gather(cls, aval, *, axis, tiled, **attrs):
    return Gather(axis, tiled, aval)


def psum_scatter(cls, aval, *, scatter_dimension, tiled, **attrs):
    def scatter(vals, i, x):
        at = _block(x.ndim, scatter_dimension, tiled, len(vals), x.shape[scatter_dimension], i)
        total = np.array(vals[0][at])      # a copy, summed into in place
        for v in vals[1:]:
            np.add(total, v[at], out=total)
        return total
    return Own(scatter, aval)


def all_to_all(cls, aval, *, split_axis, concat_axis, **attrs):
    def exchange(vals, i, x):
        at = _block(x.ndim, split_axis, True, len(vals), x.shape[split_axis], i)
        return np.concatenate([v[at] for v in vals], axis=concat_axis)
    return Own(exchange, aval)


def ppermute(cls, aval, *, perm, **attrs):
    source = {d: s for s, d in zip(perm[::2], perm[1::2])}

    def permute(vals, i, x):
        return np.array(vals[source[i]]) if i in source else np.zeros_like(x)
    return Own(permute, aval)
