"""Integer-valued samplers: randint, permutation, choice, categorical, geometric, poisson.

``permutation``, ``choice`` without replacement and ``categorical`` without replacement
sort (see ``_sort``: NumPy eagerly, an O(n**2) comparison sort under jit/vmap).
``poisson`` runs JAX's two loops (Knuth's product of uniforms for ``lam < 10``, Hormann's
transformed rejection otherwise) as arrays of rounds over JAX's key chain: eagerly the
number of rounds grows until every element is done (exact); under jit/vmap it is fixed
(48 Knuth rounds, or fewer when ``lam`` is concrete, and 14 rejection rounds; an element
that would need more, probability below ~1e-12, is -1). Each round costs one Threefry
block in a sequential key chain, about 60 ms of IREE compile time, so a jitted poisson
compiles in seconds; a concrete ``lam`` also drops the branch no element uses.
"""

from __future__ import annotations

import math

import numpy as np

from irax import lax
from irax import numpy as jnp
from irax.core import dtypes
from irax.lax import _util as lu
from irax.random import _prng, _sort
from irax.random._common import (
    broadcast_shapes,
    canonical_shape,
    check_shape,
    concrete_bool,
    const,
    fma,
    is_traced,
    user_dtype,
)
from irax.random._continuous import draw_gumbel, draw_uniform, gumbel_mode
from irax.random._gamma import pick
from irax.random._keys import key_words
from irax.random._special import lgamma

KNUTH_ROUNDS = 48
REJECTION_ROUNDS = 14


# ---- randint --------------------------------------------------------------------------------
def _clip_convert(val, dtype):
    """``val`` (an integer array) in ``dtype``, clipped to the representable range."""
    src = np.dtype(val.dtype)
    lo = max(int(np.iinfo(dtype).min), int(np.iinfo(src).min))
    hi = min(int(np.iinfo(dtype).max), int(np.iinfo(src).max))
    clipped = lax.clamp(np.array(lo, src), val, np.array(hi, src))
    return lax.convert_element_type(clipped, dtype)


def _int_param(name, x):
    x = jnp.asarray(x)
    if not dtypes.is_int(x.dtype):
        x = x.astype(int)
    return x


def randint(key, shape, minval, maxval, dtype=None):
    """Integers in ``[minval, maxval)`` (``minval`` wherever ``maxval <= minval``), by JAX's
    double-width modulus (slightly biased for ranges that are not powers of 2)."""
    keys = key_words("randint", key)
    dt = user_dtype("randint", dtype, default=int)
    if not dtypes.is_int(dt):
        raise TypeError(f"irax.random.randint: randint only accepts integer dtypes, got {dt}")
    shape = canonical_shape("randint", shape)
    check_shape("randint", shape, np.shape(minval), np.shape(maxval))
    return draw_randint(keys, shape, minval, maxval, dt)


def draw_randint(keys, shape, minval, maxval, dt):
    """``randint``; dtypes narrower than 32 bits are sampled as int32 and cast."""
    minval, maxval = _int_param("randint", minval), _int_param("randint", maxval)
    info = np.iinfo(dt)
    sample_dt = dt
    if info.bits < 32:
        sample_dt = np.dtype(np.int32)
        minval = jnp.clip(minval.astype(np.int32), int(info.min), int(info.max))
        maxval = jnp.clip(maxval.astype(np.int32), int(info.min), int(info.max) + 1)
    return _randint(keys, shape, minval, maxval, sample_dt).astype(dt)


def _randint(keys, shape, minval, maxval, dtype):
    nbits = np.dtype(dtype).itemsize * 8
    udt = _prng.UINT_DTYPES[nbits]
    top = _clip_convert(jnp.asarray(np.array(np.iinfo(dtype).max, dtype)), maxval.dtype)
    out_of_range = lax.gt(maxval, lu.broadcast_to(top, maxval.shape))
    minval = lu.broadcast_to(_clip_convert(minval, dtype), shape)
    maxval = lu.broadcast_to(_clip_convert(maxval, dtype), shape)
    out_of_range = lu.broadcast_to(out_of_range, shape)
    k_hi, k_lo = _prng.split_two(keys)
    hi_bits = _prng.bits(k_hi, nbits, shape)
    lo_bits = _prng.bits(k_lo, nbits, shape)
    span = lax.convert_element_type(lax.sub(maxval, minval), udt)
    empty = lax.le(maxval, minval)
    span = lax.select(empty, lax.full_like(span, 1), span)
    widen = lax.bitwise_and(out_of_range, lax.gt(maxval, minval))
    span = lax.select(widen, lax.add(span, const(span, 1)), span)
    mult = lax.rem(lax.full_like(span, 2 ** (nbits // 2)), span)
    mult = lax.rem(lax.mul(mult, mult), span)
    offset = lax.add(lax.mul(lax.rem(hi_bits, span), mult), lax.rem(lo_bits, span))
    offset = lax.rem(offset, span)
    return lax.add(minval, lax.convert_element_type(offset, dtype))


# ---- permutations ---------------------------------------------------------------------------
def _shuffle(keys, x, axis: int):
    """JAX's sort-based shuffle: ``ceil(3 ln(size) / ln(2**32 - 1))`` rounds of a stable
    sort by fresh 32-bit keys."""
    size = math.prod(x.shape)
    rounds = int(np.ceil(3 * np.log(max(1, size)) / np.log(np.iinfo(np.uint32).max)))
    for _ in range(rounds):
        keys, sub = _prng.split_two(keys)
        sort_keys = _prng.bits(sub, 32, tuple(x.shape))
        x = _sort.sort_key_val(sort_keys, x, axis)
    return x


def permutation(key, x, axis: int = 0, independent: bool = False):
    """A random permutation of ``arange(x)`` (integer ``x``) or of ``x`` along ``axis``
    (``independent=True`` shuffles each slice along ``axis`` separately)."""
    keys = key_words("permutation", key)
    return draw_permutation(keys, x, axis, independent)


def draw_permutation(keys, x, axis, independent):
    if not lu.is_arraylike(x):
        raise TypeError(f"irax.random.permutation requires ndarray or scalar arguments, got "
                        f"{type(x)} at position 1.")
    ndim = len(np.shape(x))
    if ndim == 0:
        if not dtypes.is_int(lu.aval_of(x).dtype):
            raise TypeError("irax.random.permutation: x must be an integer or at least "
                            "1-dimensional")
        return _shuffle(keys, jnp.arange(int(x)), 0)
    axis = _axis("permutation", axis, ndim)
    x = jnp.asarray(x)
    if independent or ndim == 1:
        return _shuffle(keys, x, axis)
    order = _shuffle(keys, jnp.arange(x.shape[axis]), 0)
    return jnp.take(x, order, axis=axis)


def _axis(name, axis, ndim):
    if not -ndim <= axis < ndim:
        raise ValueError(f"irax.random.{name}: axis {axis} is out of bounds for array of "
                         f"dimension {ndim}")
    return axis % ndim


def choice(key, a, shape=(), replace: bool = True, p=None, axis: int = 0, mode=None):
    """Samples from ``a`` (or ``arange(a)``) along ``axis``, with or without replacement,
    uniformly or with probabilities ``p``."""
    keys = key_words("choice", key)
    if not isinstance(shape, (tuple, list)):
        raise TypeError(f"irax.random.choice: shape argument of irax.random.choice must be a "
                        f"sequence, got {shape}")
    shape = canonical_shape("choice", shape)
    arr = jnp.asarray(a)
    if arr.ndim == 0:
        n_inputs, axis = int(a), 0
    else:
        axis = _axis("choice", axis, arr.ndim)
        n_inputs = arr.shape[axis]
    n_draws = math.prod(shape)
    if n_draws == 0:
        return jnp.zeros(shape, dtype=arr.dtype)
    if n_inputs <= 0:
        raise ValueError("irax.random.choice: a must be greater than 0 unless no samples "
                         "are taken")
    if not replace and n_draws > n_inputs:
        raise ValueError(f"irax.random.choice: Cannot take a larger sample (size {n_draws}) "
                         f"than population (size {n_inputs}) when 'replace=False'")
    if p is None:
        if replace:
            ind = draw_randint(keys, shape, 0, n_inputs, dtypes.default_int_dtype())
            result = ind if arr.ndim == 0 else jnp.take(arr, ind, axis=axis)
        else:
            perm = draw_permutation(keys, n_inputs if arr.ndim == 0 else arr, axis, False)
            result = lax.slice(perm, (0,) * perm.ndim, tuple(
                n_draws if k == axis else d for k, d in enumerate(perm.shape)))
    else:
        ind = _choice_p(keys, p, n_inputs, shape, replace, n_draws, mode)
        result = ind if arr.ndim == 0 else jnp.take(arr, ind, axis=axis)
    out = shape if arr.ndim == 0 else arr.shape[:axis] + shape + arr.shape[axis + 1:]
    return jnp.reshape(result, out)


def _choice_p(keys, p, n_inputs, shape, replace, n_draws, mode):
    p = jnp.asarray(p)
    if not dtypes.is_inexact(p.dtype):
        p = p.astype(dtypes.default_float_dtype())
    if tuple(p.shape) != (n_inputs,):
        raise ValueError("irax.random.choice: p must be None or a 1D vector with the same size "
                         f"as a.shape[axis]. p has shape {tuple(p.shape)} and a.shape[axis] is "
                         f"{n_inputs}.")
    if replace:
        cum = jnp.cumsum(p)
        total = pick(cum, n_inputs - 1, 0)
        r = total * (1 - draw_uniform(keys, shape, p.dtype))
        below = jnp.expand_dims(cum, 0) < jnp.reshape(r, (-1, 1))
        ind = jnp.sum(below.astype(np.int32), axis=-1)
        return jnp.reshape(ind, shape).astype(dtypes.default_int_dtype())
    g = draw_gumbel(keys, (n_inputs,), p.dtype, gumbel_mode(mode)) + jnp.log(p)
    return _sort.top_k_indices(g, n_draws).astype(dtypes.default_int_dtype())


def categorical(key, logits, axis: int = -1, shape=None, replace: bool = True, mode=None):
    """Category indices drawn from ``softmax(logits)`` along ``axis`` (Gumbel max; without
    replacement Gumbel top-k, ``shape``'s leading extra dimensions counting the draws)."""
    keys = key_words("categorical", key)
    logits = jnp.asarray(logits)
    nd = logits.ndim
    axis = _axis("categorical", axis, nd)
    batch_shape = tuple(d for k, d in enumerate(logits.shape) if k != axis)
    if shape is None:
        shape = batch_shape
    else:
        shape = canonical_shape("categorical", shape)
        check_shape("categorical", shape, batch_shape)
    mode = gumbel_mode(mode)
    prefix = shape[:len(shape) - len(batch_shape)]
    if replace:
        logits_shape = list(shape[len(shape) - len(batch_shape):])
        logits_shape.insert(axis, logits.shape[axis])
        g = draw_gumbel(keys, prefix + tuple(logits_shape), logits.dtype, mode)
        z = g + jnp.reshape(logits, (1,) * len(prefix) + tuple(logits.shape))
        return jnp.argmax(z, axis=axis + len(prefix))
    k = math.prod(prefix)
    if k > logits.shape[axis]:
        raise ValueError(f"irax.random.categorical: Number of samples without replacement ({k}) "
                         f"cannot exceed number of categories ({logits.shape[axis]}).")
    z = logits + draw_gumbel(keys, tuple(logits.shape), logits.dtype, mode)
    idx = _sort.top_k_indices(jnp.moveaxis(z, axis, -1), k)      # batch_shape + (k,)
    idx = jnp.moveaxis(idx, -1, 0)                                # (k,) + batch_shape
    return jnp.reshape(idx, shape)


def geometric(key, p, shape=None, dtype=None):
    """Geometric samples (number of trials to the first success), ``>= 1``."""
    keys = key_words("geometric", key)
    dt = user_dtype("geometric", dtype, default=int)
    if not dtypes.is_int(dt):
        raise ValueError(f"irax.random.geometric: dtype argument to `geometric` must be an int "
                         f"dtype, got {dt}")
    shape = broadcast_shapes("geometric", shape, p)
    p = jnp.asarray(p)
    if not dtypes.is_inexact(p.dtype):
        p = p.astype(dtypes.default_float_dtype())
    u = draw_uniform(keys, shape, p.dtype)
    u = jnp.where(u == 0, 1, u)
    log_q = lu.broadcast_to(lax.log1p(lax.neg(p)), shape)
    g = lax.add(lax.floor(lax.div(lax.log(u), log_q)), const(u, 1.0))
    return g.astype(dt)


# ---- poisson --------------------------------------------------------------------------------
def poisson(key, lam, shape=None, dtype=None):
    """Poisson(lam) counts (``lam`` is taken as float32, as JAX does). See the module
    docstring for the number of rounds under jit."""
    keys = key_words("poisson", key)
    dt = user_dtype("poisson", dtype, default=int)
    if not dtypes.is_int(dt):
        raise TypeError(f"irax.random.poisson: dtype must be an integer dtype, got {dt}")
    shape = canonical_shape("poisson", shape) if shape is not None else tuple(np.shape(lam))
    check_shape("poisson", shape, np.shape(lam))
    lam = lu.broadcast_to(lu.convert(lam, np.float32), shape)
    use_knuth = lax.bitwise_or(lax.ne(lam, lam), lax.lt(lam, const(lam, 10.0)))
    lam_knuth = lax.select(use_knuth, lam, lax.full_like(lam, 0.0))
    lam_rej = lax.select(use_knuth, lax.full_like(lam, 1e5), lam)
    # A concrete lam (even under jit) tells which algorithm each element uses: a branch
    # no element takes is skipped, and Knuth's budget follows the largest rate.
    known = None if is_traced(lam) else lu.host_data(use_knuth)
    knuth_rounds = KNUTH_ROUNDS
    if known is not None and known.any():
        knuth_rounds = _knuth_budget(float(np.nanmax(lu.host_data(lam_knuth), initial=0.0)))
    knuth = rej = lax.full(shape, 0, dt)
    if known is None or known.any():
        knuth = _poisson_knuth(keys, lam_knuth, shape, dt, knuth_rounds)
    if known is None or not known.all():
        rej = _poisson_rejection(keys, lam_rej, shape, dt)
    result = lax.select(use_knuth, knuth, rej)
    return lax.select(lax.eq(lam, const(lam, 0.0)), lax.full_like(result, 0), result)


def _knuth_budget(lam_max: float) -> int:
    """Rounds that Knuth's loop needs for Poisson(lam_max) except with probability below
    1e-13 (a sample ``x`` needs ``x + 1`` rounds)."""
    if not lam_max > 0:
        return 1
    pmf = cdf = math.exp(-lam_max)
    x = 0
    while 1.0 - cdf > 1e-13 and x < KNUTH_ROUNDS:
        x += 1
        pmf *= lam_max / x
        cdf += pmf
    return min(x + 2, KNUTH_ROUNDS)


def _key_chain(keys, rounds: int, ways: int):
    """``key, *subs = split(key, ways)`` repeated ``rounds`` times: for each subkey
    position, the keys of every round (a batch axis of length ``rounds`` in front)."""
    subs = [[] for _ in range(ways - 1)]
    for _ in range(rounds):
        parts = _prng.split_front(keys, ways)
        for j, acc in enumerate(subs):
            acc.append(_prng.index(parts, j + 1, 0))
        keys = _prng.index(parts, 0, 0)
    return [_prng.concat(acc, 0) for acc in subs]


def _rounds_loop(run, traced_rounds: int, eager_rounds: int, *values):
    """Runs ``run(rounds) -> (out, done)`` with a fixed budget when traced, else doubling
    the rounds until ``done`` everywhere."""
    if is_traced(*values):
        out, done = run(traced_rounds)
        return lax.select(done, out, lax.full_like(out, -1))
    rounds = eager_rounds
    while True:
        out, done = run(rounds)
        if concrete_bool(jnp.all(done)) is not False:
            return out
        rounds *= 2


def _poisson_knuth(keys, lam, shape, dtype, traced_rounds):
    def run(rounds):
        (subs,) = _key_chain(keys, rounds, 2)                     # batch (T,)
        u = draw_uniform(subs, shape, np.float32)                 # (T, *shape)
        neg_lam = lax.neg(lam)
        k = lax.full(shape, 0, dtype)
        log_prod = lax.full(shape, 0.0, np.float32)
        for i in range(rounds):
            k = lax.select(lax.gt(log_prod, neg_lam), lax.add(k, const(k, 1)), k)
            log_prod = lax.add(log_prod, lax.log(pick(u, i, 0)))
        return lax.sub(k, const(k, 1)), lax.bitwise_not(lax.gt(log_prod, neg_lam))

    return _rounds_loop(run, traced_rounds, min(16, traced_rounds), *keys, lam)


def _poisson_rejection(keys, lam, shape, dtype):
    log_lam = lax.log(lam)
    b = 0.931 + 2.53 * lax.sqrt(lam)
    a = -0.059 + 0.02483 * b
    inv_alpha = 1.1239 + 1.1328 / (b - 3.4)
    v_r = 0.9277 - 3.6224 / (b - 2)

    def run(rounds):
        k_u, k_v = _key_chain(keys, rounds, 3)                    # batch (R,)
        u = draw_uniform(k_u, shape, np.float32) - 0.5
        v = draw_uniform(k_v, shape, np.float32)
        us = 0.5 - jnp.abs(u)
        k = lax.floor(fma(2 * a / us + b, u, lu.broadcast_to(lam, u.shape)) + 0.43)
        s = lax.log(v * inv_alpha / (a / (us * us) + b))
        t = fma(k, lu.broadcast_to(log_lam, k.shape), lu.broadcast_to(-lam, k.shape))
        t = t - lgamma(k + 1)
        accept1 = (us >= 0.07) & (v <= v_r)
        reject = (k < 0) | ((us < 0.013) & (v > us))
        accept = accept1 | (~reject & (s <= t))
        # JAX's loop overwrites k on every accepting round until *all* elements have
        # accepted once: the last accepting round before the global stop wins
        stop = jnp.max(jnp.argmax(accept.astype(np.int32), axis=0))
        out = lax.full(shape, -1.0, np.float32)
        for r in range(rounds):
            take = lax.bitwise_and(pick(accept, r, 0), lax.le(np.array(r, stop.dtype), stop))
            out = lax.select(take, pick(k, r, 0), out)
        return out.astype(dtype), jnp.any(accept, axis=0)

    return _rounds_loop(run, REJECTION_ROUNDS, 4, *keys, lam)
