"""The confluent hypergeometric function ``hyp1f1`` of ``jax.scipy.special``.

JAX evaluates it element by element (``vectorize``); here each series runs on whole arrays,
every element stopping at the term where its own series converges (at most 250 terms).
"""

from __future__ import annotations

import numpy as np

from irax import lax
from irax import numpy as jnp
from irax.core import dtypes
from irax.numpy._util import promote_args_inexact
from irax.scipy.special._gamma import digamma, gamma
from irax.transforms.custom_derivatives import custom_jvp


def _series(init_sum, term0, step, weight, eps, on):
    """``sum_k weight(k) * term_k`` with ``term_{k+1} = term_k * step(k)``, per element until
    ``|term| / |sum| <= eps`` or 250 terms."""
    def body(s):
        act, total, k, term = s
        total1 = total + term * weight(k)
        term1 = term * step(k)
        k1 = k + 1
        new = [jnp.where(act, v, o) for v, o in zip((total1, k1, term1), s[1:])]
        again = act & (new[1] < 250) & (jnp.abs(new[2]) / jnp.abs(new[0]) > eps)
        return (again, *new)

    one = jnp.ones_like(term0)
    start = on & (jnp.abs(term0) / jnp.abs(init_sum) > eps)
    return lax.while_loop(lambda s: jnp.any(s[0]), body, (start, init_sum, one, term0))[1]


def _eps(x):
    return float(dtypes.finfo(x.dtype).eps)


def _hyp1f1_raw(a, b, x):
    eps = _eps(x)
    near = jnp.abs(x) < 100
    one = jnp.ones_like(x)
    xs = jnp.where(near, x, 1.0)
    serie = _series(one, a / b * xs, lambda k: (a + k) / (b + k) * xs / (k + 1),
                    lambda k: 1.0, eps, near)
    xa = jnp.where(near, 200.0, x)
    asym = _series(one, (b - a) * (1 - a) / xa,
                   lambda k: (b - a + k) * (1 - a + k) / (k + 1) / xa, lambda k: 1.0, eps,
                   ~near)
    asym = gamma(b) / gamma(a) * lax.exp(xa) * xa ** (a - b) * asym
    out = jnp.where(near, serie, asym)
    index = ((a == 0) * 1 + ((a == b) & (a != 0)) * 2 + ((b == 0) & (a != 0)) * 3)
    return lax.select_n(index.astype(np.int32), out, jnp.ones_like(out), jnp.exp(x),
                        jnp.full_like(out, np.inf))


def _d_a(a, b, x):
    return _series(jnp.zeros_like(x), a / b * x, lambda k: (a + k) / (b + k) * x / (k + 1),
                   lambda k: digamma(a + k) - digamma(a), _eps(x), jnp.ones_like(x, bool))


def _d_b(a, b, x):
    return _series(jnp.zeros_like(x), a / b * x, lambda k: (a + k) / (b + k) * x / (k + 1),
                   lambda k: digamma(b) - digamma(b + k), _eps(x), jnp.ones_like(x, bool))


@custom_jvp
def _hyp1f1(a, b, x):
    return _hyp1f1_raw(a, b, x)


@_hyp1f1.defjvp
def _hyp1f1_jvp(primals, tangents):
    (a, b, x), (ta, tb, tx) = primals, tangents
    out = _hyp1f1(a, b, x)
    dx = a / b * _hyp1f1(a + 1, b + 1, x)
    return out, _d_a(a, b, x) * ta + _d_b(a, b, x) * tb + dx * tx


def hyp1f1(a, b, x):
    """Kummer's confluent hypergeometric function ``1F1(a; b; x)``
    (``jax.scipy.special.hyp1f1``)."""
    a, b, x = promote_args_inexact("hyp1f1", a, b, x)
    if jnp.iscomplexobj(x):
        raise ValueError("hyp1f1 does not support complex-valued inputs.")
    return _hyp1f1(a, b, x)
