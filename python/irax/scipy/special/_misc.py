"""Logistic, entropy, log-sum-exp, Box-Cox and Bessel functions of ``jax.scipy.special``.

``logsumexp``, ``softmax`` and ``log_softmax`` also exist in ``irax.nn`` (jax.nn); these
are ``jax.scipy.special``'s versions (``axis=None`` by default for softmax).
"""

from __future__ import annotations

import numpy as np

from irax import lax
from irax import numpy as jnp
from irax.numpy._util import aval_of, canonical_axes, promote_args_inexact
from irax.scipy.special._common import K, full_like, no_complex, scalar_int
from irax.transforms.custom_derivatives import custom_jvp
from irax.transforms.vectorize import vmap


@custom_jvp
def _logit(x):
    return lax.log(lax.div(x, lax.sub(K(x, 1), x)))


@_logit.defjvp
def _logit_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return _logit(x), lax.div(t, lax.mul(x, lax.sub(K(x, 1), x)))


def logit(x):
    """``log(x / (1 - x))`` (``jax.scipy.special.logit``)."""
    (x,) = promote_args_inexact("logit", x)
    return _logit(x)


def expit(x):
    """The logistic sigmoid ``1 / (1 + exp(-x))`` (``jax.scipy.special.expit``)."""
    (x,) = promote_args_inexact("expit", x)
    return lax.logistic(x)


@custom_jvp
def _xlogy(x, y):
    return jnp.where((x != 0.0) | jnp.isnan(y), lax.mul(x, lax.log(y)), jnp.zeros_like(x))


@_xlogy.defjvp
def _xlogy_jvp(primals, tangents):
    (x, y), (tx, ty) = primals, tangents
    out = _xlogy(x, y)
    return out, (tx * lax.log(y) + ty * x / y).astype(out.dtype)


def xlogy(x, y):
    """``x * log(y)``, 0 where ``x == 0`` (``jax.scipy.special.xlogy``)."""
    x, y = promote_args_inexact("xlogy", x, y)
    return _xlogy(x, y)


@custom_jvp
def _xlog1py(x, y):
    return jnp.where((x != 0.0) | jnp.isnan(y), lax.mul(x, lax.log1p(y)), jnp.zeros_like(x))


@_xlog1py.defjvp
def _xlog1py_jvp(primals, tangents):
    (x, y), (tx, ty) = primals, tangents
    out = _xlog1py(x, y)
    return out, (tx * lax.log1p(y) + ty * x / (1 + y)).astype(out.dtype)


def xlog1py(x, y):
    """``x * log1p(y)``, 0 where ``x == 0`` (``jax.scipy.special.xlog1py``)."""
    x, y = promote_args_inexact("xlog1py", x, y)
    return _xlog1py(x, y)


@custom_jvp
def _xlogx(x):
    return _xlogy(x, x)


@_xlogx.defjvp
def _xlogx_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return _xlogx(x), t * (lax.log(x) + 1)


def entr(x):
    """The elementwise entropy ``-x log x`` (``-inf`` for ``x < 0``)
    (``jax.scipy.special.entr``)."""
    (x,) = promote_args_inexact("entr", x)
    no_complex("entr", x)
    return lax.select(lax.lt(x, K(x, 0)), full_like(x, -np.inf), lax.neg(_xlogx(x)))


def rel_entr(p, q):
    """The elementwise relative entropy ``p log(p / q)`` (``jax.scipy.special.rel_entr``)."""
    p, q = promote_args_inexact("rel_entr", p, q)
    no_complex("rel_entr", p)
    zero = K(p, 0.0)
    both = lax.bitwise_and(lax.gt(p, zero), lax.gt(q, zero))
    one_zero = lax.bitwise_and(lax.eq(p, zero), lax.ge(q, zero))
    sp = jnp.where(both, p, 1)
    sq = jnp.where(both, q, 1)
    val = lax.sub(_xlogx(sp), _xlogy(sp, sq))
    return jnp.where(both, val, jnp.where(one_zero, zero, np.inf))


def kl_div(p, q):
    """The elementwise Kullback-Leibler divergence ``p log(p / q) - p + q``
    (``jax.scipy.special.kl_div``)."""
    p, q = promote_args_inexact("kl_div", p, q)
    no_complex("kl_div", p)
    return rel_entr(p, q) - p + q


def _boxcox(name, x, lmbda, log_fn):
    x, lmbda = promote_args_inexact(name, x, lmbda)
    zero = lmbda == 0
    safe = jnp.where(zero, jnp.ones_like(lmbda), lmbda)
    lx = log_fn(x)
    return jnp.where(zero, lx, jnp.expm1(safe * lx) / safe)


def boxcox(x, lmbda):
    """The Box-Cox transform (``jax.scipy.special.boxcox``)."""
    return _boxcox("boxcox", x, lmbda, jnp.log)


def boxcox1p(x, lmbda):
    """The Box-Cox transform of ``1 + x`` (``jax.scipy.special.boxcox1p``)."""
    return _boxcox("boxcox1p", x, lmbda, jnp.log1p)


def logsumexp(a, axis=None, b=None, keepdims: bool = False, return_sign: bool = False,
              where=None):
    """``log(sum(b * exp(a)))`` over ``axis``, computed stably
    (``jax.scipy.special.logsumexp``)."""
    if where is not None:
        a = jnp.where(where, a, 0)
    if b is not None:
        a, b = promote_args_inexact("logsumexp", a, b)
        a = jnp.where(b != 0, a, -np.inf)
    else:
        (a,) = promote_args_inexact("logsumexp", a)
    dims = canonical_axes(axis, a.ndim)
    real = jnp.real(a) if jnp.iscomplexobj(a) else a
    amax = jnp.max(real, axis=dims, keepdims=keepdims, where=where, initial=-np.inf)
    amax = lax.stop_gradient(lax.select(jnp.isfinite(amax), amax, full_like(amax, 0)))
    amax_b = amax if keepdims else jnp.expand_dims(amax, dims)
    e = lax.exp(lax.sub(a, amax_b.astype(a.dtype)))
    if b is not None:
        e = lax.mul(e, b)
    s = jnp.sum(e, axis=dims, keepdims=keepdims, where=where)
    sign = lax.sign(s)
    if return_sign or not jnp.iscomplexobj(a):
        s = jnp.abs(s)
    out = lax.add(lax.log(s), amax.astype(s.dtype))
    if return_sign:
        return out, sign
    if b is not None and not jnp.iscomplexobj(out):
        out = jnp.where(sign < 0, jnp.array(np.nan, dtype=out.dtype), out)
    return out


def _axis_or_all(x, axis):
    return tuple(range(x.ndim)) if axis is None else axis


def softmax(x, /, *, axis=None):
    """``exp(x) / sum(exp(x))`` over ``axis`` (all axes by default)
    (``jax.scipy.special.softmax``)."""
    (x,) = promote_args_inexact("softmax", x)
    axis = _axis_or_all(x, axis)
    m = lax.stop_gradient(jnp.max(x, axis, keepdims=True))
    e = jnp.exp(x - m)
    return e / jnp.sum(e, axis, keepdims=True)


def log_softmax(x, /, *, axis=None):
    """``x - logsumexp(x)`` over ``axis`` (all axes by default)
    (``jax.scipy.special.log_softmax``)."""
    (x,) = promote_args_inexact("log_softmax", x)
    axis = _axis_or_all(x, axis)
    shifted = x - lax.stop_gradient(jnp.max(x, axis, keepdims=True))
    return shifted - jnp.log(jnp.sum(jnp.exp(shifted), axis, keepdims=True))


# ---- Bessel functions -----------------------------------------------------------------------
def i0e(x):
    """The exponentially scaled modified Bessel function of order 0
    (``jax.scipy.special.i0e``)."""
    (x,) = promote_args_inexact("i0e", x)
    return lax.bessel_i0e(x)


def i0(x):
    """The modified Bessel function of order 0 (``jax.scipy.special.i0``)."""
    (x,) = promote_args_inexact("i0", x)
    return lax.mul(lax.exp(lax.abs(x)), lax.bessel_i0e(x))


def i1e(x):
    """The exponentially scaled modified Bessel function of order 1
    (``jax.scipy.special.i1e``)."""
    (x,) = promote_args_inexact("i1e", x)
    return lax.bessel_i1e(x)


def i1(x):
    """The modified Bessel function of order 1 (``jax.scipy.special.i1``)."""
    (x,) = promote_args_inexact("i1", x)
    return lax.mul(lax.exp(lax.abs(x)), lax.bessel_i1e(x))


def _bessel_jn_one(z, v: int, n_iter: int):
    """Miller's backward recurrence for ``J_0 .. J_v`` at one point, normalized by
    ``J_0 + 2 J_2 + 2 J_4 + ... = 1``."""
    def body(carry, k):
        f0, f1, bs = carry
        f = 2.0 * (k + 1.0) * f1 / z - f0
        bs = jnp.where(jnp.mod(k, 2) == 0, bs + 2.0 * f, bs)
        return (f1, f, bs), f

    init = (K(z, 0.0) + 0 * z, K(z, 1e-16) + 0 * z, K(z, 0.0) + 0 * z)
    (_, _, bs), vals = lax.scan(body, init, lax.iota(aval_of(z).dtype, n_iter + 1),
                                reverse=True)
    f = vals[0]
    return vals[:v + 1] / (bs - f)


def bessel_jn(z, *, v: int, n_iter: int = 50):
    """Bessel functions of the first kind ``J_0(z) .. J_v(z)``, stacked on a new leading
    axis (``jax.scipy.special.bessel_jn``)."""
    z = jnp.asarray(z)
    (z,) = promote_args_inexact("bessel_jn", z)
    if jnp.iscomplexobj(z):
        raise ValueError("complex input not supported.")
    v = scalar_int(v, "Argument v of bessel_jn.")
    n_iter = scalar_int(n_iter, "Argument n_iter of bessel_jn.")
    flat = jnp.ravel(z)
    if flat.size == 0:
        return jnp.zeros((v + 1,) + z.shape, z.dtype)
    out = vmap(lambda p: _bessel_jn_one(p, v, n_iter))(flat)
    return jnp.moveaxis(out, -1, 0).reshape((v + 1,) + z.shape)
