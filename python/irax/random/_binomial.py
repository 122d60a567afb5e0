"""Binomial and multinomial samplers, value for value with ``jax.random`` (JAX 0.10).

``binomial(key, n, p)`` follows JAX (which follows TensorFlow): the arithmetic runs in
``p``'s inexact dtype, ``n`` is converted to it and floored, ``q = min(p, 1 - p)`` and
the result is mirrored (``n - k``) where ``p >= 0.5``. Each element takes one of two
algorithms:

- inversion, where ``n q <= 10`` (or ``n`` is NaN or negative): count geometric waiting
  times ``ceil(log U / log1p(-q))`` until their sum exceeds ``n``; each round is
  ``sub, key = split(key)`` and one uniform array;
- BTRS, Hormann's transformed rejection with squeeze (1993), otherwise: each round is
  ``key, ku, kv = split(key, 3)``, a candidate ``k = floor((2a/us + b) u + c)`` and an
  acceptance test of ``log v`` against a Stirling-corrected log ratio of probabilities.

Like JAX, both algorithms run on the whole array with the same key, each as one
``while_loop`` over all elements, until every element is done (no limit on rounds), and
the result picks per element. Elements of the other algorithm run with stand-in
parameters (inversion: ``n = 0``; BTRS: ``n = 1e4, q = 0.5``), so they only decide how
long a loop runs. In the inversion loop a finished element keeps its count; in the BTRS
loop, as in JAX's, every accepting round overwrites the element's sample until the loop
stops. Under ``irax.vmap`` a batch member's loop stops with its own predicate, which is
what ``jax.vmap`` of JAX's loop computes. A concrete ``n``/``p`` skips a loop no element
uses; on concrete values the loop bodies run in a Python loop (``_common.while_loop``).

Special values are JAX's: NaN for NaN or negative ``n``, NaN ``p`` or ``p`` outside
[0, 1]; ``inf`` for ``n = inf``. Two deviations where JAX never returns: for ``n = inf``
with ``p`` = 0 or 1 (BTRS's constants are NaN and nothing is ever accepted) irax runs
those elements with the stand-in parameters and returns ``inf`` as JAX's formula does;
for ``p = -0.0`` (``log1p(+0) = +0`` turns every waiting time into -inf) irax returns 0.

Rounding: the multiply-adds that XLA's CPU compiler contracts into FMAs (``b``, ``a``,
``c``, the candidate ``k`` and the two leading products of the acceptance bound) are
written with ``_common.fma``, which is exact eagerly and contracted by IREE under jit
(float16/bfloat16 arithmetic is rounded op by op, as XLA does, with no FMA). Counts are
therefore JAX's except where the last bit of ``log`` decides an acceptance: XLA, IREE
and NumPy compute ``log`` differently in the last ulp, and for large ``n`` (float32,
``n >~ 1e5``) the acceptance bound cancels large terms, so such a flip happens for a
few elements in 1e5 (see tests/random/test_random_binomial.py). A bfloat16 ``p`` is
exact eagerly but not under jit (IREE rounds bfloat16 intermediates differently).

``multinomial(key, n, p)`` is JAX's chain of conditional binomials: category ``i`` gets
``binomial(key_i, remaining n, p_i / sum(p[i:]))`` with ``key_i = split(key, K)[i]``. The
suffix sums are summed in the order XLA's CPU reduce-window uses (``_suffix_sums``), so
the ratios are JAX's to the bit. Eagerly the categories are a Python loop; traced, a
``lax.scan``.
"""

from __future__ import annotations

import numpy as np

from irax import lax
from irax import numpy as jnp
from irax.core import dtypes
from irax.lax import _util as lu
from irax.numpy._util import promote_dtypes_inexact
from irax.random import _prng
from irax.random._common import (
    canonical_shape,
    check_shape,
    const,
    float_dtype,
    fma,
    is_traced,
    user_dtype,
    while_loop,
)
from irax.random._continuous import draw_uniform
from irax.random._keys import key_words

# Stirling series remainders log(k!) - [(k + 1/2) log(k + 1) - (k + 1) + log(2 pi)/2]
# for k = 0..9 (TensorFlow's table, as JAX uses it)
_STIRLING_TAIL = (0.0810614667953272, 0.0413406959554092, 0.0276779256849983,
                  0.02079067210376509, 0.0166446911898211, 0.0138761288230707,
                  0.0118967099458917, 0.0104112652619720, 0.00925546218271273,
                  0.00833056343336287)
_BLOCK = 16  # XLA's reduce-window rewriter sums cumulative windows in blocks of 16


def _check_arraylike(name: str, *args) -> None:
    for i, a in enumerate(args):
        if not lu.is_arraylike(a):
            raise TypeError(f"irax.random.{name} requires ndarray or scalar arguments, got "
                            f"{type(a)} at position {i}.")


def _param_shape(name: str, shape, *args) -> tuple:
    """``shape`` checked against the parameters, or their broadcast shape (JAX's words)."""
    shapes = [tuple(np.shape(a)) for a in args]
    if shape is not None:
        shape = canonical_shape(name, shape)
        shapes.insert(0, shape)
    try:
        joined = tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        raise ValueError(f"irax.random.{name}: Incompatible shapes for broadcasting: "
                         f"shapes={shapes}") from None
    if shape is not None:
        check_shape(name, shape, *shapes[1:])
    return joined


# ---- binomial -------------------------------------------------------------------------------
def binomial(key, n, p, shape=None, dtype=None):
    """Binomial(n, p) counts as floats (``dtype``, default float): the number of successes
    in ``n`` trials of probability ``p`` (inversion for ``n min(p, 1-p) <= 10``, BTRS
    rejection otherwise)."""
    keys = key_words("binomial", key)
    _check_arraylike("binomial", n, p)
    dt = float_dtype("binomial", dtype)
    shape = _param_shape("binomial", shape, n, p)
    return draw_binomial(keys, n, p, shape, dt)


def draw_binomial(keys, n, p, shape, dtype):
    """``binomial`` for one key ``(k0, k1)`` (scalar words); ``dtype`` is the output dtype,
    the arithmetic runs in ``p``'s inexact dtype."""
    with np.errstate(all="ignore"):  # eager inf/NaN arithmetic (n = inf, us = 0) is JAX's
        return _draw_binomial(keys, n, p, shape, dtype)


def _draw_binomial(keys, n, p, shape, dtype):
    (prob,) = promote_dtypes_inexact(p)
    ft = np.dtype(prob.dtype)
    if not dtypes.is_float(ft):
        raise TypeError(f"irax.random.binomial: floor does not accept dtype {ft}. Accepted "
                        "dtypes are subtypes of floating.")
    prob = lu.broadcast_to(lu.convert(prob, ft), shape)
    count = lu.broadcast_to(lu.convert(n, ft), shape)
    p_lt_half = lax.lt(prob, const(prob, 0.5))
    q = lax.select(p_lt_half, prob, lax.sub(const(prob, 1.0), prob))
    count_nan_or_neg = lax.bitwise_or(lax.ne(count, count), lax.lt(count, const(count, 0.0)))
    count_inf = jnp.isinf(count)
    q_is_nan = lax.ne(q, q)
    q_l_0 = lax.lt(q, const(q, 0.0))
    q = lax.select(lax.bitwise_or(q_is_nan, q_l_0), lax.full_like(q, 0.01), q)
    use_inversion = lax.bitwise_or(count_nan_or_neg,
                                   lax.le(lax.mul(count, q), const(q, 10.0)))
    count = lax.floor(count)
    # n = +inf with q = 0 would make BTRS's constants NaN and its loop endless (as JAX's
    # is); those elements are overwritten with inf below, so they get the stand-ins too
    stand_in = lax.bitwise_or(use_inversion,
                              lax.bitwise_and(count_inf, lax.eq(q, const(q, 0.0))))
    count_inv = lax.select(use_inversion, count, lax.full_like(count, 0.0))
    count_btrs = lax.select(stand_in, lax.full_like(count, 1e4), count)
    q_btrs = lax.select(stand_in, lax.full_like(q, 0.5), q)

    known = None if is_traced(use_inversion) else lu.host_data(use_inversion)
    inv = btrs = lax.full(shape, 0, dtype)
    if known is None or known.any():
        inv = _inversion(keys, count_inv, q, shape, dtype)
    if known is None or not known.all():
        btrs = _btrs(keys, count_btrs, q_btrs, shape, dtype)
    samples = lax.select(use_inversion, inv, btrs)

    invalid = lax.bitwise_or(lax.bitwise_or(q_l_0, q_is_nan), count_nan_or_neg)
    samples = lax.select(invalid, lax.full(shape, np.nan, dtype), samples)
    samples = lax.select(lax.bitwise_and(count_inf, lax.bitwise_not(invalid)),
                         lax.full(shape, np.inf, dtype), samples)
    keep = lax.bitwise_or(lax.bitwise_or(p_lt_half, count_nan_or_neg),
                          lax.bitwise_or(q_is_nan, count_inf))
    mirrored = lax.sub(lax.convert_element_type(count, dtype), samples)
    return lax.select(keep, samples, mirrored)


def _inversion(keys, count, prob, shape, dtype):
    """Counts geometric waiting times (one uniform array per round, ``sub, key =
    split(key)``) while their running sum stays ``<= count``; the count minus one."""
    # q = 0 must give log1p(-q) = -0 (every waiting time +inf, count 0): IREE's float64
    # log1p returns +0 there, and for p = -0.0 JAX itself gets +0 and never returns
    log1m_prob = lax.select(lax.eq(prob, const(prob, 0.0)), lax.full_like(prob, -0.0),
                            lax.log1p(lax.neg(prob)))
    one = const(prob, 1.0)

    def more(s):
        return jnp.any(lax.le(s[3], count))

    def step(s):
        k0, k1, num, total = s
        sub, key = _prng.split_two((k0, k1))
        num = lax.select(lax.le(total, count), lax.add(num, one), num)
        u = draw_uniform(sub, shape, prob.dtype)
        geom = lax.ceil(lax.div(lax.log(u), log1m_prob))
        return (*key, num, lax.add(total, geom))

    zeros = lax.full(shape, 0.0, prob.dtype)
    num = while_loop(more, step, (*keys, zeros, zeros))[2]
    return lax.convert_element_type(lax.sub(num, one), dtype)


def _stirling_tail(k):
    """JAX's Stirling remainder of ``log(k!)``: the table for ``k <= 9``, else the series
    ``(1/12 - (1/360 - 1/1260/(k+1)^2)/(k+1)^2)/(k+1)`` evaluated at ``clamp(k, 0, 9)``
    (JAX clamps before the series, so every ``k > 9`` gets the value at 9)."""
    kc = lax.clamp(const(k, 0.0), k, const(k, 9.0))
    kp1 = lax.add(kc, const(k, 1.0))
    kp1sq = lax.mul(kp1, kp1)
    inner = lax.sub(const(k, 1.0 / 360), lax.div(const(k, 1.0 / 1260), kp1sq))
    approx = lax.div(lax.sub(const(k, 1.0 / 12), lax.div(inner, kp1sq)), kp1)
    index = lax.floor(kc)
    table = lax.full_like(k, _STIRLING_TAIL[-1])
    for j in range(len(_STIRLING_TAIL) - 2, -1, -1):
        table = lax.select(lax.eq(index, const(k, j)), lax.full_like(k, _STIRLING_TAIL[j]),
                           table)
    return lax.select(lax.le(k, const(k, 9.0)), table, approx)


def _mul_add(a, b, c):
    return lax.add(lax.mul(a, b), c)


def _btrs(keys, count, prob, shape, dtype):
    """Hormann's BTRS: rounds ``key, ku, kv = split(key, 3)`` until every element has
    accepted once; each accepting round overwrites the element's sample (JAX's loop)."""
    ft = prob.dtype
    # XLA rounds every float16/bfloat16 operation, so it contracts nothing there
    mul_add = fma if np.dtype(ft).itemsize >= 4 else _mul_add

    def c_(v):
        return const(prob, v)

    one, half = c_(1.0), c_(0.5)
    stddev = lax.sqrt(lax.mul(lax.mul(count, prob), lax.sub(one, prob)))
    b = mul_add(stddev, c_(2.53), c_(1.15))
    a = mul_add(prob, c_(0.01), mul_add(b, c_(0.0248), c_(-0.0873)))
    c = mul_add(count, prob, half)
    v_r = lax.sub(c_(0.92), lax.div(c_(4.2), b))
    r = lax.div(prob, lax.sub(one, prob))
    alpha = lax.mul(lax.add(c_(2.83), lax.div(c_(5.1), b)), stddev)
    m = lax.floor(lax.mul(lax.add(count, one), prob))
    two_a = lax.mul(c_(2.0), a)
    count_m1 = lax.add(lax.sub(count, m), one)                  # count - m + 1
    ub_m = lax.mul(lax.add(m, half),
                   lax.log(lax.div(lax.add(m, one), lax.mul(r, count_m1))))
    count_p1 = lax.add(count, one)
    tail_m, tail_count_m = _stirling_tail(m), _stirling_tail(lax.sub(count, m))

    def more(s):
        return jnp.any(lax.bitwise_not(s[3]))

    def step(s):
        k0, k1, k_out, accepted = s
        three = _prng.split_front((k0, k1), 3)
        u = lax.sub(draw_uniform(_prng.index(three, 1, 0), shape, ft), half)
        v = draw_uniform(_prng.index(three, 2, 0), shape, ft)
        us = lax.sub(half, lax.abs(u))
        accept1 = lax.bitwise_and(lax.ge(us, c_(0.07)), lax.le(v, v_r))
        k = lax.floor(mul_add(lax.add(lax.div(two_a, us), b), u, c))
        reject = lax.bitwise_or(lax.lt(k, c_(0.0)), lax.gt(k, count))
        log_v = lax.log(lax.div(lax.mul(v, alpha),
                                lax.add(lax.div(a, lax.mul(us, us)), b)))
        count_k1 = lax.add(lax.sub(count, k), one)              # count - k + 1
        log_nk = lax.log(lax.div(count_m1, count_k1))
        log_k = lax.log(lax.div(lax.mul(r, count_k1), lax.add(k, one)))
        ub = mul_add(lax.add(k, half), log_k, mul_add(count_p1, log_nk, ub_m))
        ub = lax.add(lax.add(ub, tail_m), tail_count_m)
        ub = lax.sub(lax.sub(ub, _stirling_tail(k)), _stirling_tail(lax.sub(count, k)))
        accept = lax.bitwise_or(accept1, lax.bitwise_and(lax.bitwise_not(reject),
                                                         lax.le(log_v, ub)))
        k_out = lax.select(accept, k, k_out)
        return (*_prng.index(three, 0, 0), k_out, lax.bitwise_or(accepted, accept))

    state = (*keys, lax.full(shape, -1.0, ft), lax.full(shape, False, np.bool_))
    k_out = while_loop(more, step, state)[2]
    return lax.convert_element_type(k_out, dtype)


# ---- multinomial ----------------------------------------------------------------------------
def multinomial(key, n, p, *, shape=None, dtype=None, unroll=1):
    """Multinomial(n, p) counts (``dtype``, default float) with the outcomes along the last
    axis of ``p``: a chain of binomials, one per category. ``shape`` is the full result
    shape (``p`` and ``n`` broadcast to it and to ``shape[:-1]``), as in JAX's code."""
    keys = key_words("multinomial", key)
    _check_arraylike("multinomial", n, p)
    dt = user_dtype("multinomial", dtype)
    n, p = promote_dtypes_inexact(n, p)
    shape = tuple(p.shape) if shape is None else canonical_shape("multinomial", shape)
    if not shape:
        raise ValueError("irax.random.multinomial: axis -1 is out of bounds for array of "
                         "dimension 0")
    n = _broadcast("multinomial", n, shape[:-1])
    p = jnp.moveaxis(_broadcast("multinomial", p, shape), -1, 0)
    if shape[-1] == 0:
        return jnp.zeros(shape, dt)
    remaining = _suffix_sums(p)
    ratios = lax.div(p, jnp.where(lax.eq(remaining, const(p, 0.0)), const(p, 1.0), remaining))
    ratios = jnp.clip(ratios, 0, 1)
    k0, k1 = _prng.split(keys, (shape[-1],))
    rtype = np.dtype(n.dtype)

    def step(remainder, x):
        ratio, w0, w1 = x
        count = draw_binomial((w0, w1), remainder, ratio, tuple(remainder.shape), rtype)
        return lax.sub(remainder, count), count

    if is_traced(n, ratios, k0):
        counts = lax.scan(step, n, (ratios, k0, k1), unroll=unroll)[1]
    else:
        remainder, rows = n, []
        for i in range(shape[-1]):
            remainder, count = step(remainder, (ratios[i], k0[i], k1[i]))
            rows.append(count)
        counts = jnp.stack(rows)
    return jnp.moveaxis(counts, 0, -1).astype(dt)


def _broadcast(name, x, shape):
    if tuple(x.shape) != tuple(shape) and not _broadcastable(tuple(x.shape), tuple(shape)):
        raise ValueError(f"irax.random.{name}: Incompatible types for broadcasting: input "
                         f"type={x.aval.str_short()} and requested type="
                         f"{x.aval.update(shape=tuple(shape)).str_short()}")
    return jnp.broadcast_to(x, shape)


def _broadcastable(src: tuple, dst: tuple) -> bool:
    if len(src) > len(dst):
        return False
    return all(s in (1, d) for s, d in zip(src[::-1], dst[::-1]))


def _suffix_sums(x):
    """``sum(x[i:])`` along axis 0, rounded as XLA's CPU reduce-window computes JAX's
    reverse cumsum: a window of at most 16 is summed from 0 in forward order; a longer
    axis is cut into blocks of 16 (zero-padded at the end), each element gets its
    in-block window sum plus the suffix sum (recursively) of the later blocks' totals."""
    size = x.shape[0]
    if size <= _BLOCK:
        return _window_sums(x, 0)
    nb = -(-size // _BLOCK)
    rest = tuple(x.shape[1:])
    pad = jnp.zeros((nb * _BLOCK - size, *rest), x.dtype)
    blocks = jnp.reshape(jnp.concatenate([x, pad], 0), (nb, _BLOCK, *rest))
    inner = _window_sums(blocks, 1)
    later = _suffix_sums(inner[:, 0])
    later = jnp.concatenate([later[1:], jnp.zeros((1, *rest), x.dtype)], 0)
    out = jnp.reshape(inner + jnp.expand_dims(later, 1), (nb * _BLOCK, *rest))
    return out[:size]


def _window_sums(x, axis: int):
    """``((0 + x[i]) + x[i+1]) + ...`` to the end of ``axis`` for every ``i``."""
    size = x.shape[axis]
    index = lax.broadcasted_iota(np.int32, tuple(x.shape), axis)
    acc = jnp.zeros(x.shape, x.dtype)
    zero = jnp.zeros((), x.dtype)
    for j in range(size):
        start = [0] * x.ndim
        limit = list(x.shape)
        start[axis], limit[axis] = j, j + 1
        xj = lax.slice(x, tuple(start), tuple(limit))
        acc = acc + jnp.where(index <= j, xj, zero)
    return acc
