"""``irax.lax`` bit-level operations and generic reductions, built from integer ops and
bitcasts: ``population_count``, ``clz``, ``nextafter``, ``mulhi``, ``reduce_precision`` (an
op), ``bitcast_convert_type``, ``reciprocal``, ``reduce`` and ``reduce_xor``.

    lax.population_count(np.uint8(7))            # 3 (SWAR bit counting)
    lax.reduce_precision(x, exponent_bits=5, mantissa_bits=10)   # rounds like float16
    lax.reduce((x, i), (-inf, 0), fn, (0,))      # a pairwise tree of ``fn``
"""

from __future__ import annotations

import operator

import numpy as np

from irax.core import dtypes, tree_util
from irax.dialect import bitcast as BC
from irax.dialect import elementwise as E
from irax.dialect import lax_misc as LM
from irax.frontend.trace import bind
from irax.lax import _util as U
from irax.lax._elementwise import FLOAT, INT, INT_BOOL, check_kind, integer_pow, prepare
from irax.lax._shape import pad, slice_in_dim


def _c(x, v):
    """The constant ``v`` shaped and typed like ``x`` (strong)."""
    a = U.aval_of(x)
    return U.full(a.shape, v, a.dtype)


def _unsigned(dt) -> np.dtype:
    return np.dtype(f"u{np.dtype(dt).itemsize}")


def _as_bits(x):
    """``x``'s bits as an unsigned integer of its width (no op for unsigned ``x``)."""
    dt = U.aval_of(x).dtype
    if dtypes.is_unsigned(dt):
        return x
    return bind(BC.BitcastConvert, x, new_dtype=_unsigned(dt))


def _from_bits(u, dt):
    return u if U.aval_of(u).dtype == np.dtype(dt) else bind(BC.BitcastConvert, u,
                                                              new_dtype=np.dtype(dt))


def _shr(x, s: int):
    return bind(E.ShiftRightLogical, x, _c(x, s))


def _shl(x, s: int):
    return bind(E.ShiftLeft, x, _c(x, s))


def _and(x, m):
    return bind(E.And, x, _c(x, m) if isinstance(m, int) else m)


def _popcount_bits(u):
    """Set bits of each unsigned ``u`` (SWAR: pairs, nibbles, bytes, then byte sums)."""
    bits = np.dtype(U.aval_of(u).dtype).itemsize * 8

    def every_byte(byte):
        return int.from_bytes(bytes([byte]) * (bits // 8), "little")

    u = bind(E.Sub, u, _and(_shr(u, 1), every_byte(0x55)))
    u = bind(E.Add, _and(u, every_byte(0x33)), _and(_shr(u, 2), every_byte(0x33)))
    u = _and(bind(E.Add, u, _shr(u, 4)), every_byte(0x0F))
    s = 8
    while s < bits:
        u = bind(E.Add, u, _shr(u, s))
        s *= 2
    return _and(u, 0xFF if bits > 8 else 0x0F)


def population_count(x):
    """The number of set bits of each integer, in its dtype (``jax.lax.population_count``)."""
    (x,) = prepare("population_count", [x], (INT,))
    dt = U.aval_of(x).dtype
    return _from_bits(_popcount_bits(_as_bits(x)), dt)


def clz(x):
    """The number of leading zero bits of each integer, in its dtype (``jax.lax.clz``)."""
    (x,) = prepare("clz", [x], (INT,))
    dt = U.aval_of(x).dtype
    u = _as_bits(x)
    bits = dt.itemsize * 8
    s = 1
    while s < bits:  # smear the highest set bit into every lower bit
        u = bind(E.Or, u, _shr(u, s))
        s *= 2
    return _from_bits(bind(E.Sub, _c(u, bits), _popcount_bits(u)), dt)


def nextafter(x1, x2):
    """The next float after ``x1`` towards ``x2`` (``jax.lax.nextafter``)."""
    x, y = prepare("nextafter", [x1, x2], (FLOAT,))
    a = U.aval_of(x)
    u = _as_bits(x)
    ud = U.aval_of(u).dtype
    sign_bit = 1 << (ud.itemsize * 8 - 1)
    zero = _c(x, 0)
    mag = _and(u, sign_bit - 1)
    is_zero = bind(E.Compare, mag, _c(u, 0), direction="EQ")
    # away from zero when y lies beyond x (on x's side); otherwise towards zero
    up = bind(E.Compare, bind(E.Compare, y, x, direction="GT"),
              bind(E.Compare, x, zero, direction="GE"), direction="EQ")
    stepped = bind(E.Select, up, bind(E.Add, u, _c(u, 1)), bind(E.Sub, u, _c(u, 1)))
    tiny = bind(E.Or, _and(_as_bits(y), sign_bit), _c(u, 1))  # smallest subnormal, y's sign
    r = _from_bits(bind(E.Select, is_zero, tiny, stepped), a.dtype)
    r = bind(E.Select, bind(E.Compare, x, y, direction="EQ"), y, r)
    nan = bind(E.Or, bind(E.Compare, x, x, direction="NE"), bind(E.Compare, y, y, direction="NE"))
    return bind(E.Select, nan, bind(E.Add, x, y), r)


def mulhi(x, y, /):
    """The high half of the double-width product of two integers (``jax.lax.mulhi``)."""
    x, y = prepare("mulhi", [x, y], (INT,))
    dt = U.aval_of(x).dtype
    a, b = _as_bits(x), _as_bits(y)
    h = dt.itemsize * 4
    mask = (1 << h) - 1
    a0, a1, b0, b1 = _and(a, mask), _shr(a, h), _and(b, mask), _shr(b, h)
    p00, p01 = bind(E.Mul, a0, b0), bind(E.Mul, a0, b1)
    p10, p11 = bind(E.Mul, a1, b0), bind(E.Mul, a1, b1)
    mid = bind(E.Add, bind(E.Add, _shr(p00, h), _and(p01, mask)), _and(p10, mask))
    hi = bind(E.Add, bind(E.Add, p11, _shr(p01, h)), bind(E.Add, _shr(p10, h), _shr(mid, h)))
    if dtypes.is_signed(dt):  # two's complement: subtract the other operand per negative one
        zero = _c(a, 0)
        hi = bind(E.Sub, hi, bind(E.Select, bind(E.Compare, x, _c(x, 0), direction="LT"),
                                  b, zero))
        hi = bind(E.Sub, hi, bind(E.Select, bind(E.Compare, y, _c(y, 0), direction="LT"),
                                  a, zero))
    return _from_bits(hi, dt)


def reciprocal(x):
    """``1 / x`` (``jax.lax.reciprocal``)."""
    return integer_pow(x, -1)


def bitcast_convert_type(operand, new_dtype):
    """The bits of ``operand`` read as ``new_dtype``; a narrower dtype adds a trailing dim, a
    wider one consumes it (``jax.lax.bitcast_convert_type``)."""
    x = U.as_operand(operand)
    a = U.aval_of(x)
    new = dtypes.canonicalize_dtype(new_dtype)
    if a.dtype == new:
        return U.convert(x, new) if a.weak_type else x
    for dt in (a.dtype, new):
        if dt == np.bool_ or dtypes.is_complex(dt):
            raise TypeError(f"lax.bitcast_convert_type does not support bool or complex "
                            f"values unless the operand and destination types match. Got "
                            f"operand dtype={a.dtype}, new_dtype={new}.")
    src, dst = a.dtype.itemsize, new.itemsize
    if src < dst and (not a.shape or a.shape[-1] != dst // src):
        raise ValueError(f"Attempting to convert array of shape {a.shape} from "
                        f"{dtypes.short_name(a.dtype)} of size {src} to "
                        f"{dtypes.short_name(new)} of size {dst}, but "
                        f"{a.shape[-1] if a.shape else None} != {dst // src}")
    return bind(BC.BitcastConvert, x, new_dtype=new)


# ---- reduce_precision ---------------------------------------------------------------------
def reduce_precision(operand, exponent_bits: int, mantissa_bits: int):
    """``operand`` rounded (to nearest even) to a float with ``exponent_bits`` exponent and
    ``mantissa_bits`` mantissa bits, in its own dtype (``jax.lax.reduce_precision``)."""
    eb = operator.index(exponent_bits)
    mb = operator.index(mantissa_bits)
    (x,) = prepare("reduce_precision", [operand], (FLOAT,))
    return bind(LM.ReducePrecision, x, exponent_bits=eb, mantissa_bits=mb)


# ---- generic reductions -------------------------------------------------------------------
def _move_to_end(x, dims):
    """``x`` with ``dims`` moved last and merged into one axis."""
    a = U.aval_of(x)
    keep = [d for d in range(a.ndim) if d not in dims]
    x = U.transpose(x, keep + list(dims))
    return U.reshape(x, [a.shape[d] for d in keep] + [int(np.prod([a.shape[d] for d in dims]))])


def _tree(leaves, inits, combine):
    """Pairwise-combines the last axis of ``leaves`` down to size 1 (odd lengths padded with
    the init values), then drops it."""
    n = U.aval_of(leaves[0]).shape[-1]
    while n > 1:
        if n % 2:
            leaves = [pad(v, i, [(0, 0, 0)] * (U.aval_of(v).ndim - 1) + [(0, 1, 0)])
                      for v, i in zip(leaves, inits)]
            n += 1
        axis = U.aval_of(leaves[0]).ndim - 1
        lo = [slice_in_dim(v, 0, n // 2, axis=axis) for v in leaves]
        hi = [slice_in_dim(v, n // 2, n, axis=axis) for v in leaves]
        leaves = combine(lo, hi)
        n //= 2
    return [U.reshape(v, U.aval_of(v).shape[:-1]) for v in leaves]


def reduce(operands, init_values, computation, dimensions):
    """Reduces ``operands`` (an array or a pytree of arrays of one shape) over
    ``dimensions`` with ``computation(acc, x)``, which must be associative and commutative
    with ``init_values`` as its identity; applied to whole arrays, as a pairwise tree
    (``jax.lax.reduce``)."""
    flat, tree = tree_util.tree_flatten(operands)
    inits, init_tree = tree_util.tree_flatten(init_values)
    if tree != init_tree:
        raise ValueError(f"reduce: operands and init_values must have the same tree structure, "
                         f"got {tree} and {init_tree}")
    flat = [U.as_operand(v) for v in flat]
    shapes = {U.aval_of(v).shape for v in flat}
    if len(shapes) != 1:
        raise ValueError(f"reduce: operands must have one shape, got {sorted(shapes)}")
    shape = shapes.pop()
    dims = tuple(sorted(U.canonicalize_axis(d, len(shape)) for d in dimensions))
    inits = [U.convert(i, U.aval_of(v).dtype) for i, v in zip(inits, flat)]
    if any(U.aval_of(i).ndim for i in inits):
        raise TypeError("reduce: init_values must be scalars")

    def combine(xs, ys):
        out = computation(tree_util.tree_unflatten(tree, xs), tree_util.tree_unflatten(tree, ys))
        return [U.as_operand(o) for o in tree_util.tree_leaves(out)]

    out_shape = tuple(n for d, n in enumerate(shape) if d not in dims)
    moved = [_move_to_end(v, dims) for v in flat]
    if shape and U.aval_of(moved[0]).shape[-1] == 0:
        res = [U.broadcast_to(i, out_shape) for i in inits]
    else:
        res = _tree(moved, inits, combine)
        res = combine([U.broadcast_to(i, out_shape) for i in inits], res)
    res = [U.convert(r, U.aval_of(v).dtype) for r, v in zip(res, flat)]
    return tree_util.tree_unflatten(tree, res)


def reduce_xor(operand, axes):
    """Bitwise xor over ``axes`` (``jax.lax.reduce_xor``)."""
    a = U.aval_of(operand)
    check_kind("reduce_xor", a.dtype, INT_BOOL)
    x = U.as_operand(operand)
    axes = tuple(operator.index(d) for d in axes)
    if not axes:
        return x
    return reduce(x, U.full((), 0, a.dtype), lambda p, q: bind(E.Xor, p, q), axes)
