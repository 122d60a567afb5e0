"""The gamma family: gamma, loggamma, beta, dirichlet, t, chisquare, f, generalized_normal
and ball, on Marsaglia and Tsang's rejection sampler.

JAX draws each element with its own key (``split(key, a.size)``) and two nested
``while_loop``s. irax has no while loop yet, so the rounds are drawn as arrays instead: the
outer key chain ``key, x_key, u_key = split(key, 3)`` for ``R`` rounds, the inner chain
``x_key, s = split(x_key)`` for ``J`` candidates per round, all candidate normals and
uniforms at once, then the first accepted round (and first ``v > 0`` candidate) is selected
per element. The key sequence is JAX's, so the samples equal JAX's to float tolerance.

- Eagerly the budget grows (``R``, ``J`` doubled) until every element has accepted, so the
  result is exact whatever the draws.
- Under ``irax.jit``/``irax.vmap`` the budget is fixed (``R = 8`` rounds of ``J = 5``
  candidates; about 40 normals per sample): an element that would need more (probability
  below ~1e-10 per element) is NaN.
"""

from __future__ import annotations

import numpy as np

from irax import lax
from irax import numpy as jnp
from irax.lax import _util as lu
from irax.random import _prng
from irax.random._common import (
    broadcast_shapes,
    canonical_shape,
    check_safe_cast,
    check_shape,
    concrete_bool,
    const,
    float_dtype,
    fma,
    is_traced,
    softmax,
)
from irax.random._continuous import (
    draw_exponential,
    draw_normal,
    draw_rademacher,
    draw_uniform,
)
from irax.random._keys import key_words

TRACED_BUDGET = (8, 5)
EAGER_BUDGET = (4, 3)


def pick(x, i: int, axis: int = 0):
    """``x`` at index ``i`` of ``axis`` (that axis removed)."""
    axis %= x.ndim
    start = [0] * x.ndim
    limit = list(x.shape)
    start[axis], limit[axis] = i, i + 1
    part = lax.slice(x, tuple(start), tuple(limit))
    return lax.reshape(part, tuple(d for k, d in enumerate(x.shape) if k != axis))


def first_where(mask, values, fills):
    """Along the leading axis: the entries of ``values`` at the first True of ``mask``
    (``fills`` where there is none)."""
    outs = [lax.full(mask.shape[1:], f, v.dtype) for v, f in zip(values, fills)]
    for i in reversed(range(mask.shape[0])):
        m = pick(mask, i)
        outs = [lax.select(m, pick(v, i), o) for v, o in zip(values, outs)]
    return outs


def element_keys(keys, shape):
    """JAX's per-element keys of the gamma sampler: ``split(key, prod(shape))`` reshaped,
    which is ``split(key, shape)``."""
    return _prng.split(keys, tuple(shape))


def draw_gamma(keys, alpha, log_space: bool):
    """Gamma(alpha) samples (or their logs) for keys ``(*A, 2)`` and alphas ``(*A)``."""
    if alpha.size == 0:
        return lax.full(alpha.shape, 0, alpha.dtype)
    traced = is_traced(*keys, alpha)
    rounds, cands = TRACED_BUDGET if traced else EAGER_BUDGET
    while True:
        out, done = _gamma_rounds(keys, alpha, log_space, rounds, cands)
        if traced:
            return lax.select(done, out, lax.full_like(out, np.nan))
        if concrete_bool(jnp.all(done)) is not False:
            return out
        rounds, cands = 2 * rounds, 2 * cands


def _gamma_rounds(keys, alpha, log_space, rounds, cands):
    """All ``rounds`` outer rounds of ``cands`` candidates at once; arrays carry the
    candidate and round axes in front: ``(J, R, *A)``."""
    dtype = alpha.dtype
    boost = lax.ge(alpha, const(alpha, 1.0))
    alpha_b = lax.select(boost, alpha, lax.add(alpha, const(alpha, 1.0)))
    d = lax.sub(alpha_b, const(alpha, 1.0 / 3.0))
    c = lax.div(const(alpha, 1.0 / 3.0), lax.sqrt(d))
    pair = _prng.split_front(keys, 2)
    key, sub = _prng.index(pair, 0, 0), _prng.index(pair, 1, 0)
    x_keys, u_keys = [], []
    for _ in range(rounds):
        three = _prng.split_front(key, 3)
        x_keys.append(_prng.index(three, 1, 0))
        u_keys.append(_prng.index(three, 2, 0))
        key = _prng.index(three, 0, 0)
    xk = _prng.concat(x_keys, 0)                              # (R, *A)
    subs = []
    for _ in range(cands):
        two = _prng.split_front(xk, 2)
        subs.append(_prng.index(two, 1, 0))
        xk = _prng.index(two, 0, 0)
    x = draw_normal(_prng.concat(subs, 0), (), dtype)         # (J, R, *A)
    v = fma(x, lu.broadcast_to(c, x.shape), lax.full_like(x, 1.0))
    valid = lax.gt(v, const(v, 0.0))
    x, v = first_where(valid, [x, v], [0.0, 1.0])              # (R, *A)
    u = draw_uniform(_prng.concat(u_keys, 0), (), dtype)
    xx = lax.mul(x, x)
    vvv = lax.mul(lax.mul(v, v), v)
    de = lu.broadcast_to(d, u.shape)
    squeeze = lax.ge(u, lax.sub(const(u, 1.0), lax.mul(const(u, 0.0331), lax.mul(xx, xx))))
    tail = lax.add(lax.mul(xx, const(u, 0.5)),
                   lax.mul(de, lax.add(lax.sub(const(u, 1.0), vvv), lax.log(vvv))))
    rejected = lax.bitwise_and(squeeze, lax.ge(lax.log(u), tail))
    accept = lax.bitwise_and(lax.bitwise_not(rejected), _prefix_and(jnp.any(valid, axis=0)))
    (vsel,) = first_where(accept, [vvv], [1.0])
    done = jnp.any(accept, axis=0)
    u_sub = draw_uniform(sub, (), dtype)
    inv_alpha = lax.div(const(alpha, 1.0), alpha)
    if log_space:
        log_u = lax.log1p(lax.neg(u_sub))
        no_boost = lax.bitwise_or(boost, lax.eq(log_u, const(log_u, 0.0)))
        log_boost = lax.select(no_boost, lax.full_like(log_u, 0.0), lax.mul(log_u, inv_alpha))
        return lax.add(lax.add(lax.log(d), lax.log(vsel)), log_boost), done
    samples = lax.sub(const(u_sub, 1.0), u_sub)
    factor = lax.select(boost, lax.full_like(samples, 1.0), lax.pow(samples, inv_alpha))
    return lax.mul(lax.mul(d, vsel), factor), done


def _prefix_and(ok):
    """``out[r] = all(ok[:r+1])`` along the leading (round) axis: the rounds whose inner
    loops all finished within the budget."""
    acc = pick(ok, 0)
    cols = [acc]
    for r in range(1, ok.shape[0]):
        acc = lax.bitwise_and(acc, pick(ok, r))
        cols.append(acc)
    return jnp.stack(cols, axis=0)


# ---- public samplers ------------------------------------------------------------------------
def _gamma_public(name, key, a, shape, dtype, log_space):
    keys = key_words(name, key)
    dt = float_dtype(name, dtype)
    if shape is None:
        shape = tuple(np.shape(a))
    else:
        shape = canonical_shape(name, shape)
        check_shape(name, shape, np.shape(a))
    a = lu.broadcast_to(lu.convert(a, dt), shape)
    return draw_gamma(element_keys(keys, shape), a, log_space)


def gamma(key, a, shape=None, dtype=None):
    """Gamma(a, 1) samples (Marsaglia-Tsang; see the module docstring for jit)."""
    return _gamma_public("gamma", key, a, shape, dtype, False)


def loggamma(key, a, shape=None, dtype=None):
    """``log`` of Gamma(a, 1) samples, accurate for small ``a``."""
    return _gamma_public("loggamma", key, a, shape, dtype, True)


def beta(key, a, b, shape=None, dtype=None):
    """Beta(a, b) samples from two log-gamma draws."""
    keys = key_words("beta", key)
    dt = float_dtype("beta", dtype)
    check_safe_cast("beta", dt, a, b)
    shape = broadcast_shapes("beta", shape, a, b)
    key_a, key_b = _prng.split_two(keys)
    a = lu.broadcast_to(lu.convert(a, dt), shape)
    b = lu.broadcast_to(lu.convert(b, dt), shape)
    log_a = draw_gamma(element_keys(key_a, shape), a, True)
    log_b = draw_gamma(element_keys(key_b, shape), b, True)
    log_max = lax.max(log_a, log_b)
    ga = lax.exp(lax.sub(log_a, log_max))
    gb = lax.exp(lax.sub(log_b, log_max))
    return lax.div(ga, lax.add(ga, gb))


def dirichlet(key, alpha, shape=None, dtype=None):
    """Dirichlet(alpha) samples over the last axis of ``alpha``."""
    keys = key_words("dirichlet", key)
    dt = float_dtype("dirichlet", dtype)
    if np.ndim(alpha) < 1:
        raise ValueError(f"irax.random.dirichlet: dirichlet requires alpha.ndim >= 1, got "
                         f"alpha.ndim == {np.ndim(alpha)}")
    k = np.shape(alpha)[-1:]
    if shape is None:
        shape = tuple(np.shape(alpha)[:-1])
    else:
        shape = canonical_shape("dirichlet", shape)
        check_shape("dirichlet", shape, np.shape(alpha)[:-1])
    full = shape + tuple(k)
    alpha = lu.broadcast_to(lu.convert(alpha, dt), full)
    return softmax(draw_gamma(element_keys(keys, full), alpha, True), -1)


def t(key, df, shape=None, dtype=None):
    """Student's t samples with ``df`` degrees of freedom."""
    keys = key_words("t", key)
    dt = float_dtype("t", dtype)
    shape = broadcast_shapes("t", shape, df)
    check_safe_cast("t", dt, df)
    df = lu.convert(df, dt)
    key_n, key_g = _prng.split_two(keys)
    n = draw_normal(key_n, shape, dt)
    half_df = lu.broadcast_to(lax.div(df, const(df, 2.0)), shape)
    g = draw_gamma(element_keys(key_g, shape), half_df, False)
    return lax.mul(n, lax.sqrt(lax.div(half_df, g)))


def _chisquare(keys, df, shape, dt):
    df = lu.convert(df, dt)
    half_df = lu.broadcast_to(lax.div(df, const(df, 2.0)), shape)
    log_g = draw_gamma(element_keys(keys, shape), half_df, True)
    return lax.mul(lax.exp(log_g), const(log_g, 2.0))


def chisquare(key, df, shape=None, dtype=None):
    """Chi-square samples with ``df`` degrees of freedom."""
    keys = key_words("chisquare", key)
    dt = float_dtype("chisquare", dtype)
    shape = broadcast_shapes("chisquare", shape, df)
    check_safe_cast("chisquare", dt, df)
    return _chisquare(keys, df, shape, dt)


def f(key, dfnum, dfden, shape=None, dtype=None):
    """F-distribution samples."""
    keys = key_words("f", key)
    dt = float_dtype("f", dtype)
    shape = broadcast_shapes("f", shape, dfnum, dfden)
    check_safe_cast("f", dt, dfnum, dfden)
    key_dfd, key_dfn = _prng.split_two(keys)
    num = lax.div(_chisquare(key_dfn, dfnum, shape, dt),
                  lu.broadcast_to(lu.convert(dfnum, dt), shape))
    den = lax.div(_chisquare(key_dfd, dfden, shape, dt),
                  lu.broadcast_to(lu.convert(dfden, dt), shape))
    return lax.div(num, den)


def generalized_normal(key, p, shape=(), dtype=None):
    """Generalized normal samples with shape parameter ``p`` (``p = 2``: N(0, 1/2))."""
    keys = key_words("generalized_normal", key)
    dt = float_dtype("generalized_normal", dtype)
    shape = canonical_shape("generalized_normal", shape)
    return _generalized_normal(keys, p, shape, dt)


def _generalized_normal(keys, p, shape, dt):
    key_g, key_r = _prng.split_two(keys)
    inv_p = lu.convert(1 / p if lu.is_python_scalar(p) else jnp.divide(1, p), dt)
    g = draw_gamma(element_keys(key_g, shape), lu.broadcast_to(inv_p, shape), False)
    r = draw_rademacher(key_r, shape, dt)
    return r * g ** inv_p


def ball(key, d: int, p=2, shape=(), dtype=None):
    """Uniform samples from the unit ``p``-norm ball in ``d`` dimensions."""
    keys = key_words("ball", key)
    dt = float_dtype("ball", dtype)
    shape = canonical_shape("ball", shape)
    d = int(d)
    key_g, key_e = _prng.split_two(keys)
    g = _generalized_normal(key_g, p, shape + (d,), dt)
    e = draw_exponential(key_e, shape, dt)
    inv_p = 1 / p if lu.is_python_scalar(p) else jnp.divide(1, p)
    radius = (jnp.sum(jnp.abs(g) ** p, axis=-1) + e) ** inv_p
    return g / jnp.expand_dims(radius, -1)
