"""The PRNG engine: Threefry hashing, ``split``, ``fold_in`` and random bits on key words.

Internally a batch of keys is a pair of uint32 arrays ``(k0, k1)`` of one shape ``B`` (the
two key words; ``words``/``stack`` convert from/to the public ``(*B, 2)`` key data).
Every function works on all ``B`` keys at once, exactly as JAX's functions would under
``vmap`` over those keys, and returns results of shape ``(*B, *shape)``. Samplers with
data-dependent loops (gamma, poisson) rely on this to run many rounds of one key chain as
array computations. Keeping the words apart, and laying out chains of splits with the
subkey axis in front (``split_front``: slices by subkey are contiguous), keeps the IR
elementwise, so IREE fuses it into few dispatches.

Two derivations exist, chosen by ``irax.config.jax_threefry_partitionable`` (JAX's flag):

- partitionable (default): element ``i`` of a split or of random bits is the block of the
  key at counter ``(i >> 32, i & 0xFFFFFFFF)``;
- legacy: the vectorised hash ``threefry_2x32(key, iota(m))`` (the counts split into two
  lanes, ``(i, i + m/2)``) and slices of its output.
"""

from __future__ import annotations

import math

import numpy as np

from irax import lax
from irax.core.config import config
from irax.dialect.random import Threefry2x32
from irax.frontend.trace import bind

U32 = np.dtype(np.uint32)
UINT_DTYPES = {8: np.dtype(np.uint8), 16: np.dtype(np.uint16), 32: U32,
               64: np.dtype(np.uint64)}


def partitionable() -> bool:
    return bool(config.jax_threefry_partitionable)


# ---- key words ----------------------------------------------------------------------------
def words(data):
    """``(k0, k1)``: the two key words of key data of shape ``(*B, 2)``."""
    b = tuple(data.shape[:-1])
    nd = len(b)
    return tuple(lax.reshape(lax.slice(data, (0,) * nd + (i,), b + (i + 1,)), b)
                 for i in (0, 1))


def stack(keys):
    """Key data ``(*B, 2)`` from key words."""
    k0, k1 = keys
    shape = tuple(k0.shape) + (1,)
    return lax.concatenate([lax.reshape(k0, shape), lax.reshape(k1, shape)], len(shape) - 1)


def batch_of(keys) -> tuple:
    return tuple(keys[0].shape)


def index(keys, idx: int, axis: int):
    """The keys at ``idx`` of batch axis ``axis`` (that axis removed)."""
    def pick(w):
        start = [0] * w.ndim
        limit = list(w.shape)
        start[axis], limit[axis] = idx, idx + 1
        out = lax.slice(w, tuple(start), tuple(limit))
        return lax.reshape(out, tuple(d for k, d in enumerate(w.shape) if k != axis))
    return tuple(pick(w) for w in keys)


def concat(key_list, axis: int):
    """Keys with a new batch axis ``axis`` (``stack`` of a list of key batches)."""
    def join(ws):
        shape = list(ws[0].shape)
        shape.insert(axis, 1)
        return lax.concatenate([lax.reshape(w, tuple(shape)) for w in ws], axis)
    return tuple(join([k[i] for k in key_list]) for i in (0, 1))


def u32(x):
    return lax.convert_element_type(x, U32)


def iota(shape) -> object:
    """Row-major flat indices of ``shape`` as uint32 (the low counter word)."""
    n = math.prod(shape)
    if n >= 2 ** 32:
        raise NotImplementedError("irax.random: more than 2**32 - 1 random values in one call")
    return lax.reshape(lax.iota(U32, n), tuple(shape))


def _shape(x) -> tuple:
    return tuple(x.shape) if hasattr(x, "aval") else tuple(np.shape(x))


def block(keys, x0, x1, front: bool = False):
    """``(y0, y1)``: the block function of every key (words of shape ``B``) at the counters
    ``x0``, ``x1`` (uint32, shape ``S``, or Python ints); results have shape ``(*B, *S)``,
    or ``(*S, *B)`` with ``front`` (then slices by counter are contiguous)."""
    b = batch_of(keys)
    x0 = np.uint32(x0) if isinstance(x0, int) else x0
    x1 = np.uint32(x1) if isinstance(x1, int) else x1
    s = tuple(np.broadcast_shapes(_shape(x0), _shape(x1)))
    out = s + b if front else b + s
    key_dims = range(len(s), len(out)) if front else range(len(b))
    ctr_dims = range(len(s)) if front else range(len(b), len(out))
    k0, k1 = (lax.broadcast_in_dim(k, out, tuple(key_dims)) for k in keys)
    xs = []
    for x in (x0, x1):
        x = u32(x)
        x = lax.broadcast_in_dim(x, s, tuple(range(len(s) - x.ndim, len(s))))
        xs.append(lax.broadcast_in_dim(x, out, tuple(ctr_dims)))
    y0, y1 = bind(Threefry2x32, k0, k1, *xs)
    return y0, y1


def threefry_2x32(keys, m: int):
    """JAX's vectorised hash of the counts ``iota(m)`` (legacy derivation): the counts,
    padded to even length, split into two lanes; the output is both lanes' results
    concatenated, the pad dropped. Shape ``(*B, m)``."""
    h = (m + 1) // 2
    x0 = lax.iota(U32, h)
    x1 = lax.add(lax.iota(U32, h), np.uint32(h))
    if m % 2:
        x1 = lax.concatenate([lax.slice(x1, (0,), (h - 1,)), np.zeros(1, U32)], 0)
    y0, y1 = block(keys, x0, x1)
    out = lax.concatenate([y0, y1], y0.ndim - 1)
    b = batch_of(keys)
    return lax.slice(out, (0,) * (len(b) + 1), b + (m,)) if m % 2 else out


# ---- split, fold_in, bits -----------------------------------------------------------------
def split_front(keys, n: int):
    """``split(key, n)`` for every key, as key words of shape ``(n, *B)``: ``index(...,
    j, 0)`` then takes subkey ``j`` of every key as a contiguous slice."""
    b = batch_of(keys)
    if partitionable():
        return block(keys, 0, lax.iota(U32, n), front=True)
    x0 = lax.iota(U32, n)
    y0, y1 = block(keys, x0, lax.add(x0, np.uint32(n)), front=True)
    flat = lax.reshape(lax.concatenate([y0, y1], 0), (n, 2) + b)
    nd = len(b)
    return tuple(lax.reshape(lax.slice(flat, (0, i) + (0,) * nd, (n, i + 1) + b), (n,) + b)
                 for i in (0, 1))


def split(keys, shape: tuple):
    """Key words of shape ``(*B, *shape)``: ``split(key, shape)`` for every key."""
    shape = tuple(shape)
    b = batch_of(keys)
    n = math.prod(shape)
    if n == 0:
        z = lax.full(b + shape, 0, U32)
        return z, z
    if partitionable():
        return block(keys, 0, iota(shape))
    flat = threefry_2x32(keys, 2 * n)                         # (*B, 2n)
    pairs = lax.reshape(flat, b + (n, 2))
    k0, k1 = (lax.reshape(lax.slice(pairs, (0,) * (len(b) + 1) + (i,), b + (n, i + 1)),
                          b + shape) for i in (0, 1))
    return k0, k1


def split_two(keys):
    """``split(key)`` as two key batches."""
    pair = split_front(keys, 2)
    return index(pair, 0, 0), index(pair, 1, 0)


def fold_in(keys, data):
    """``fold_in(key, data)`` for every key; ``data`` is a uint32 scalar."""
    return block(keys, 0, lax.reshape(u32(data), ()))


def bits(keys, width: int, shape: tuple):
    """Uniform random bits: unsigned ints of ``width`` bits, shape ``(*B, *shape)``."""
    shape = tuple(shape)
    b = batch_of(keys)
    dtype = UINT_DTYPES[width]
    size = math.prod(shape)
    if size == 0:
        return lax.full(b + shape, 0, dtype)
    if partitionable():
        y0, y1 = block(keys, 0, iota(shape))
        if width == 64:
            hi = lax.convert_element_type(y0, dtype)
            return lax.bitwise_or(lax.shift_left(hi, np.uint64(32)),
                                  lax.convert_element_type(y1, dtype))
        out = lax.bitwise_xor(y0, y1)
        return out if width == 32 else lax.convert_element_type(out, dtype)
    if size == 1 and width <= 32:
        w = block(keys, 0, 0)[0]                      # threefry_2x32(key, [0]): lane 0
        w = w if width == 32 else lax.bitwise_and(w, np.uint32((1 << width) - 1))
        return lax.reshape(lax.convert_element_type(w, dtype), b + shape)
    return _legacy_bits(keys, width, shape, size)


def _legacy_bits(keys, width, shape, size):
    b = batch_of(keys)
    dtype = UINT_DTYPES[width]
    m = -(-width * size // 32)
    if m >= 2 ** 32 - 1:
        raise NotImplementedError("irax.random: legacy random bits beyond 2**32 - 1 words")
    w = threefry_2x32(keys, m)
    nd = len(b)
    if width == 32:
        return lax.reshape(w, b + shape)
    if width == 64:
        half = m // 2
        hi = lax.slice(w, (0,) * (nd + 1), b + (half,))
        lo = lax.slice(w, (0,) * nd + (half,), b + (m,))
        hi, lo = (lax.convert_element_type(x, dtype) for x in (hi, lo))
        return lax.reshape(lax.bitwise_or(lax.shift_left(hi, np.uint64(32)), lo), b + shape)
    per = 32 // width
    shifts = lax.mul(lax.iota(U32, per), np.uint32(width))
    wide = lax.broadcast_in_dim(w, b + (m, per), tuple(range(nd + 1)))
    shifts = lax.broadcast_in_dim(shifts, b + (m, per), (nd + 1,))
    parts = lax.bitwise_and(lax.shift_right_logical(wide, shifts),
                            np.uint32((1 << width) - 1))
    parts = lax.reshape(parts, b + (m * per,))
    parts = lax.slice(parts, (0,) * (nd + 1), b + (size,))
    return lax.reshape(lax.convert_element_type(parts, dtype), b + shape)
