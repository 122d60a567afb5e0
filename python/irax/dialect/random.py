"""The PRNG core: the Threefry-2x32 block cipher (Random123, 20 rounds) as one op.

Everything else in ``irax.random`` (seeding, ``split``, ``fold_in``, random bits, every
sampler) is ordinary irax ops built in Python on top of this one.

    %y0, %y1 = "irax.threefry2x32"(%k0, %k1, %x0, %x1)
        : (tensor<4xui32>, tensor<4xui32>, tensor<4xui32>, tensor<4xui32>)
        -> (tensor<4xui32>, tensor<4xui32>)

Element ``i`` of the results is the block function of key ``(k0[i], k1[i])`` applied to
counter ``(x0[i], x1[i])``; the op is elementwise, so its vmap rule is the elementwise one
and a batch of keys maps to a batch of blocks. It lowers to StableHLO uint32 ``add``,
``xor``, ``shift_left``, ``shift_right_logical`` and ``or``, fully unrolled.
"""

from __future__ import annotations

import numpy as np

from irax.core.abstract import ShapedArray
from irax.dialect import sharding as S
from irax.dialect.base import Op, OpError
from irax.dialect.elementwise import batch_elementwise

#: the rotation amounts of the even and odd groups of four rounds
ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))
#: the key-schedule parity constant of Threefry
PARITY = 0x1BD11BDA


def threefry_rounds(k0, k1, x0, x1, add, xor, rotl, const):
    """The 20 rounds of Threefry-2x32, written once for NumPy and for StableHLO.

    ``add``/``xor`` combine two words, ``rotl(v, r)`` rotates left by the integer ``r``,
    ``const(c)`` makes the uint32 constant ``c`` shaped like the operands."""
    ks = (k0, k1, xor(xor(k0, k1), const(PARITY)))
    x0, x1 = add(x0, ks[0]), add(x1, ks[1])
    for i in range(5):
        for r in ROTATIONS[i % 2]:
            x0 = add(x0, x1)
            x1 = xor(rotl(x1, r), x0)
        x0 = add(x0, ks[(i + 1) % 3])
        x1 = add(add(x1, ks[(i + 2) % 3]), const(i + 1))
    return x0, x1


def threefry_numpy(k0, k1, x0, x1):
    """The block function on NumPy uint32 arrays of one shape (wrapping arithmetic)."""
    u32 = np.uint32
    k0, k1, x0, x1 = (np.asarray(a, u32) for a in (k0, k1, x0, x1))

    def rotl(v, r):
        return (v << u32(r)) | (v >> u32(32 - r))

    with np.errstate(over="ignore"):
        return threefry_rounds(k0, k1, x0, x1, np.add, np.bitwise_xor, rotl,
                               lambda c: u32(c))


class Threefry2x32(Op):
    """``%y0, %y1 = "irax.threefry2x32"(%k0, %k1, %x0, %x1)``: the Threefry-2x32 block
    function, elementwise on four uint32 tensors of one shape (key words ``k0``, ``k1``,
    counter words ``x0``, ``x1``); the results are the two output words.

        %y0, %y1 = "irax.threefry2x32"(%k0, %k1, %x0, %x1)
            : (tensor<3xui32>, tensor<3xui32>, tensor<3xui32>, tensor<3xui32>)
            -> (tensor<3xui32>, tensor<3xui32>)

    Lowers to 20 unrolled rounds of StableHLO ``add``/``xor``/``shift_left``/
    ``shift_right_logical``/``or`` with five key injections. Not differentiable (integer
    results); batched like any elementwise op."""

    name = "irax.threefry2x32"
    shard = classmethod(S.replicated)
    num_operands = 4
    differentiable = False

    @classmethod
    def infer(cls, k0, k1, x0, x1):
        for a in (k0, k1, x0, x1):
            if a.dtype != np.uint32:
                raise OpError(f"expected uint32 operands, but got {a.str_short()}")
            if a.shape != k0.shape:
                raise OpError(f"expected operands of one shape, but got "
                              f"{k0.str_short()} and {a.str_short()}")
        aval = ShapedArray(k0.shape, np.dtype(np.uint32))
        return [aval, aval]

    @classmethod
    def evaluate(cls, k0, k1, x0, x1):
        return list(threefry_numpy(k0, k1, x0, x1))

    @classmethod
    def lower(cls, lb, k0, k1, x0, x1):
        aval = lb.out_avals[0]
        if aval.size == 1:
            return _lower_single(lb, aval, [k0, k1, x0, x1])
        return _lower_rounds(lb, aval, k0, k1, x0, x1)

    batch = classmethod(batch_elementwise)


def _lower_single(lb, aval, operands):
    """One block on two lanes (the operand and a zero pad), then lane 0: IREE compiles a
    chain of single-element uint32 computations very slowly (seconds per block), while
    two-lane tensors stay on the fast path."""
    one = ShapedArray((1,), aval.dtype)
    two = ShapedArray((2,), aval.dtype)
    pad = lb.constant(np.zeros(1, np.uint32))
    wide = [lb.op("stablehlo.concatenate", [lb.op("stablehlo.reshape", [v], one), pad], two,
                  dimension=lb.i64(0)) for v in operands]
    outs = _lower_rounds(lb, two, *wide)
    return [lb.op("stablehlo.reshape", [lb.op("stablehlo.slice", [y], one,
                                              start_indices=lb.i64s([0]),
                                              limit_indices=lb.i64s([1]),
                                              strides=lb.i64s([1]))], aval)
            for y in outs]


def _lower_rounds(lb, aval, k0, k1, x0, x1):
    """The unrolled rounds on operands of type ``aval``."""
    consts: dict[int, object] = {}

    def const(c):
        if c not in consts:
            scalar = lb.constant(np.uint32(c))
            consts[c] = scalar if not aval.shape else lb.op(
                "stablehlo.broadcast_in_dim", [scalar], aval,
                broadcast_dimensions=lb.i64s(()))
        return consts[c]

    def binary(name):
        return lambda a, b: lb.op(name, [a, b], aval)

    shl, shr = binary("stablehlo.shift_left"), binary("stablehlo.shift_right_logical")

    def rotl(v, r):
        return lb.op("stablehlo.or", [shl(v, const(r)), shr(v, const(32 - r))], aval)

    y0, y1 = threefry_rounds(k0, k1, x0, x1, binary("stablehlo.add"),
                             binary("stablehlo.xor"), rotl, const)
    return [y0, y1]

