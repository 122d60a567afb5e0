"""The gamma family: gamma, loggamma, beta, dirichlet, t, chisquare, f, generalized_normal
and ball, on Marsaglia and Tsang's rejection sampler.

JAX draws each element with its own key (``split(key, a.size)``) and two nested while
loops; here the elements are lanes of one pair of loops (exactly what ``vmap`` of JAX's
per-element loops computes): the outer loop ``key, x_key, u_key = split(key, 3)`` runs
until every element has accepted, the inner one ``x_key, s = split(x_key)`` until every
candidate ``v = 1 + c x`` is positive, and an element that is done keeps its state. The
key sequence is JAX's, so the samples equal JAX's to float tolerance, with no limit on
the number of rounds. Under ``irax.jit``/``irax.vmap`` these are ``lax.while_loop``s;
on concrete values the same loop bodies run eagerly in a Python loop (``_common``).

Differentiating a sample with respect to ``a`` gives JAX's implicit reparameterization
gradient, ``d sample / d a = -(dP/da) / (dP/dx)`` with ``P`` the regularized incomplete
gamma function (``_special.random_gamma_grad``), not the derivative of the sampler's
arithmetic.
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
    const,
    finfo,
    float_dtype,
    fma,
    is_traced,
    pick,
    softmax,
    while_loop,
)
from irax.random._continuous import (
    draw_exponential,
    draw_normal,
    draw_rademacher,
    draw_uniform,
)
from irax.random._keys import key_words
from irax.random._special import random_gamma_grad
from irax.transforms.custom_derivatives import custom_jvp


def element_keys(keys, shape):
    """JAX's per-element keys of the gamma sampler: ``split(key, prod(shape))`` reshaped,
    which is ``split(key, shape)``."""
    return _prng.split(keys, tuple(shape))


def draw_gamma(keys, alpha, log_space: bool):
    """Gamma(alpha) samples (or their logs) for keys ``(*A, 2)`` and alphas ``(*A)``."""
    if alpha.size == 0:
        return lax.full(alpha.shape, 0, alpha.dtype)
    if not is_traced(alpha):
        return _marsaglia_tsang(keys, alpha, log_space)
    fixed = lax.stop_gradient(alpha)
    sample = _marsaglia_tsang(keys, fixed, log_space)
    return _attach_tangent(alpha, sample, _sample_derivative(fixed, sample, log_space))


def _marsaglia_tsang(keys, alpha, log_space):
    one = const(alpha, 1.0)
    boost = lax.ge(alpha, one)
    alpha_b = lax.select(boost, alpha, lax.add(alpha, one))
    d = lax.sub(alpha_b, const(alpha, 1.0 / 3.0))
    c = lax.div(const(alpha, 1.0 / 3.0), lax.sqrt(d))
    key, sub = _prng.split_two(keys)
    vvv = _accepted_cube(key, d, c)
    u_sub = draw_uniform(sub, (), alpha.dtype)
    inv_alpha = lax.div(one, alpha)
    if log_space:
        log_u = lax.log1p(lax.neg(u_sub))
        no_boost = lax.bitwise_or(boost, lax.eq(log_u, const(log_u, 0.0)))
        log_boost = lax.select(no_boost, lax.full_like(log_u, 0.0), lax.mul(log_u, inv_alpha))
        return lax.add(lax.add(lax.log(d), lax.log(vvv)), log_boost)
    samples = lax.sub(one, u_sub)
    factor = lax.select(boost, lax.full_like(samples, 1.0), lax.pow(samples, inv_alpha))
    return lax.mul(lax.mul(d, vvv), factor)


def _rejected(xx, vvv, u, d):
    """Marsaglia and Tsang's test: True where the candidate ``(x**2, v**3, u)`` is
    rejected (a squeeze test, then the log test)."""
    one = const(u, 1.0)
    squeeze = lax.ge(u, lax.sub(one, lax.mul(const(u, 0.0331), lax.mul(xx, xx))))
    tail = lax.add(lax.mul(xx, const(u, 0.5)),
                   lax.mul(d, lax.add(lax.sub(one, vvv), lax.log(vvv))))
    return lax.bitwise_and(squeeze, lax.ge(lax.log(u), tail))


def _accepted_cube(keys, d, c):
    """``v**3`` of the first accepted candidate of every element (the outer loop). The
    state starts rejected, as JAX's ``(X, V, U) = (0, 1, 2)`` does (except for NaN or
    infinite ``d``, where JAX's loop never runs and ``V`` stays 1)."""
    dtype = d.dtype
    start = _rejected(lax.full_like(d, 0.0), lax.full_like(d, 1.0), lax.full_like(d, 2.0), d)

    def pending(state):
        return jnp.any(state[3])

    def round_(state):
        k0, k1, vvv, active = state
        three = _prng.split_front((k0, k1), 3)
        x, v = _positive_candidate(_prng.index(three, 1, 0), c, active)
        xx = lax.mul(x, x)
        cube = lax.mul(lax.mul(v, v), v)
        u = draw_uniform(_prng.index(three, 2, 0), (), dtype)
        again = lax.bitwise_and(active, _rejected(xx, cube, u, d))
        return (*_prng.index(three, 0, 0), lax.select(active, cube, vvv), again)

    state = (*keys, lax.full_like(d, 1.0), start)
    return while_loop(pending, round_, state)[2]


def _positive_candidate(keys, c, active):
    """The first ``x = normal(s)``, ``x_key, s = split(x_key)``, with ``v = 1 + c x > 0``
    (the inner loop), for the ``active`` elements; others get ``(0, 1)`` and no round."""
    dtype = c.dtype

    def pending(state):
        return jnp.any(lax.le(state[3], const(state[3], 0.0)))

    def draw(state):
        k0, k1, x, v = state
        todo = lax.le(v, const(v, 0.0))
        xk, s = _prng.split_two((k0, k1))
        x_new = draw_normal(s, (), dtype)
        v_new = fma(x_new, c, lax.full_like(x_new, 1.0))
        return (*xk, lax.select(todo, x_new, x), lax.select(todo, v_new, v))

    v0 = lax.select(active, lax.full_like(c, -1.0), lax.full_like(c, 1.0))
    state = (*keys, lax.full_like(c, 0.0), v0)
    return while_loop(pending, draw, state)[2:]


# The sample's derivative with respect to alpha (JAX's ``random_gamma_p`` JVP). The
# derivative is computed outside the JVP rule and passed in: a rule holding a while loop
# loses the loop's regions when irax's autodiff inlines it (Builder.inline re-emits ops
# without their regions). When nothing differentiates, it is dead code for the compiler.
def _sample_derivative(alpha, sample, log_space):
    """``d sample / d alpha`` (of ``log sample`` when ``log_space``)."""
    if not log_space:
        return random_gamma_grad(alpha, sample)
    # exp underflows to 0 (or, on NumPy, a subnormal that XLA's CPU code flushes to 0):
    # JAX then takes the smallest normal float instead
    x = lax.exp(sample)
    tiny = lax.full_like(x, float(finfo(x.dtype).tiny))
    x = lax.select(lax.lt(x, tiny), tiny, x)
    return lax.div(random_gamma_grad(alpha, x), x)


@custom_jvp
def _attach_tangent(alpha, sample, d_sample):
    """``sample``, with tangent ``d_sample * d alpha``."""
    return sample


@_attach_tangent.defjvp
def _attach_tangent_jvp(primals, tangents):
    _, sample, d_sample = primals
    return sample, lax.mul(tangents[0], d_sample)


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
    log_a, log_b = _draw_gamma_pair(key_a, a, key_b, b, shape)
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


def _draw_gamma_pair(keys_a, a, keys_b, b, shape):
    """``loggamma`` of ``a`` with ``keys_a`` and of ``b`` with ``keys_b`` (both broadcast
    to ``shape``) as the two halves of one sampler call: one pair of loops to compile."""
    keys = _prng.concat([element_keys(keys_a, shape), element_keys(keys_b, shape)], 0)
    both = draw_gamma(keys, jnp.stack([a, b]), True)
    return pick(both, 0), pick(both, 1)


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
    dfnum = lu.broadcast_to(lu.convert(dfnum, dt), shape)
    dfden = lu.broadcast_to(lu.convert(dfden, dt), shape)
    half = np.array(0.5, dt)
    log_num, log_den = _draw_gamma_pair(key_dfn, lax.mul(dfnum, half),
                                        key_dfd, lax.mul(dfden, half), shape)
    two = np.array(2.0, dt)
    num = lax.div(lax.mul(lax.exp(log_num), two), dfnum)
    den = lax.div(lax.mul(lax.exp(log_den), two), dfden)
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
