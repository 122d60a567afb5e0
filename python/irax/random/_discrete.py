"""Integer-valued samplers: randint, permutation, choice, categorical, geometric, poisson.

``permutation``, ``choice`` without replacement and ``categorical`` without replacement
sort with the ``irax.sort`` op (see ``_sort``), eagerly and under jit/vmap alike.
``poisson`` runs JAX's two loops (Knuth's product of uniforms for ``lam < 10``, Hormann's
transformed rejection otherwise), each a ``lax.while_loop`` over the whole array with
JAX's key chain, until every element is done: the counts are JAX's, with no limit on the
number of rounds. On concrete values the loop bodies run eagerly in a Python loop; a
concrete ``lam`` (even under jit) skips the loop no element uses.
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
    const,
    fma,
    is_traced,
    pick,
    user_dtype,
    while_loop,
)
from irax.random._continuous import draw_gumbel, draw_uniform, gumbel_mode
from irax.random._keys import key_words
from irax.random._special import lgamma


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
    """Poisson(lam) counts (``lam`` is taken as float32, as JAX does): Knuth's product of
    uniforms for ``lam < 10`` (or NaN), Hormann's transformed rejection otherwise."""
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
    # A concrete lam (even under jit) tells which algorithm each element uses; a loop no
    # element takes is skipped (its result would be masked out anyway).
    known = None if is_traced(lam) else lu.host_data(use_knuth)
    knuth = rej = lax.full(shape, 0, dt)
    if known is None or known.any():
        knuth = _poisson_knuth(keys, lam_knuth, shape, dt)
    if known is None or not known.all():
        rej = _poisson_rejection(keys, lam_rej, shape, dt)
    result = lax.select(use_knuth, knuth, rej)
    return lax.select(lax.eq(lam, const(lam, 0.0)), lax.full_like(result, 0), result)


def _poisson_knuth(keys, lam, shape, dtype):
    """Knuth: count the uniforms whose running log-product stays above ``-lam``, one
    ``key, sub = split(key)`` and one uniform array per round, until every element is
    done (JAX's loop)."""
    neg_lam = lax.neg(lam)

    def more(s):
        return jnp.any(lax.gt(s[3], neg_lam))

    def step(s):
        k0, k1, k, log_prod = s
        key, sub = _prng.split_two((k0, k1))
        k = lax.select(lax.gt(log_prod, neg_lam), lax.add(k, const(k, 1)), k)
        u = draw_uniform(sub, shape, np.float32)
        return (*key, k, lax.add(log_prod, lax.log(u)))

    state = (*keys, lax.full(shape, 0, dtype), lax.full(shape, 0.0, np.float32))
    k = while_loop(more, step, state)[2]
    return lax.sub(k, const(k, 1))


def _poisson_rejection(keys, lam, shape, dtype):
    """Hormann's transformed rejection (PTRS): rounds ``key, s0, s1 = split(key, 3)``
    until every element has accepted once; like JAX's loop, each accepting round
    overwrites the element's count until the loop stops."""
    log_lam = lax.log(lam)
    b = 0.931 + 2.53 * lax.sqrt(lam)
    a = -0.059 + 0.02483 * b
    inv_alpha = 1.1239 + 1.1328 / (b - 3.4)
    v_r = 0.9277 - 3.6224 / (b - 2)

    def more(s):
        return jnp.any(lax.bitwise_not(s[3]))

    def step(s):
        k0, k1, k_out, accepted = s
        three = _prng.split_front((k0, k1), 3)
        u = draw_uniform(_prng.index(three, 1, 0), shape, np.float32) - 0.5
        v = draw_uniform(_prng.index(three, 2, 0), shape, np.float32)
        us = 0.5 - jnp.abs(u)
        k = lax.floor(fma(2 * a / us + b, u, lam) + 0.43)
        s_ = lax.log(v * inv_alpha / (a / (us * us) + b))
        t = fma(k, log_lam, -lam) - lgamma(k + 1)
        accept1 = (us >= 0.07) & (v <= v_r)
        reject = (k < 0) | ((us < 0.013) & (v > us))
        accept = accept1 | (~reject & (s_ <= t))
        return (*_prng.index(three, 0, 0), lax.select(accept, k, k_out), accepted | accept)

    state = (*keys, lax.full(shape, -1.0, np.float32), lax.full(shape, False, np.bool_))
    return while_loop(more, step, state)[2].astype(dtype)
