"""The regularized incomplete gamma and beta functions (``jax.lax.igamma``, ``igammac``,
``igamma_grad_a``, ``random_gamma_grad``, ``betainc``).

JAX's algorithms (XLA's ``math.cc``): the series of ``P(a, x)`` for ``x < max(1, a)``,
the continued fraction of ``Q(a, x)`` otherwise, each a ``while_loop`` iterated until every
element has converged; their derivatives in ``a`` are carried along the same recurrences.
``betainc`` is a continued fraction evaluated with the modified Lentz method.
"""

from __future__ import annotations

import enum
import functools

import numpy as np

from irax.core import dtypes
from irax.core.compat import partial_support
from irax.lax import _util as U
from irax.lax._control import while_loop
from irax.lax._elementwise import (
    abs,
    add,
    bitwise_and,
    bitwise_not,
    bitwise_or,
    div,
    eq,
    exp,
    floor,
    ge,
    gt,
    le,
    log,
    log1p,
    lt,
    mul,
    ne,
    neg,
    select,
    sub,
)
from irax.lax._reduce import reduce_or
from irax.lax._special import _lgamma, c, digamma_raw, lgamma_raw, public, upcast
from irax.transforms.custom_derivatives import custom_jvp


class Mode(enum.Enum):
    VALUE = 1
    DERIVATIVE = 2          # d P(a, x) / d a
    SAMPLE_DERIVATIVE = 3   # d x / d a at a fixed quantile of Gamma(a, 1)


def _any(p):
    return reduce_or(p, tuple(range(len(U.aval_of(p).shape))))


def _isnan(x):
    return ne(x, x)


def _eps(x):
    return float(dtypes.finfo(U.aval_of(x).dtype).eps)


def _series(ax, x, a, enabled, mode):
    """``P(a, x) = ax / a * sum_n c_n`` with ``c_0 = 1``, ``c_n = c_{n-1} x / (a + n)``."""
    eps = _eps(x)

    def cond(s):
        return _any(s[0])

    def body(s):
        on, r, cn, ans, dc, dans = s
        r1 = add(r, 1.0)
        dc1 = sub(mul(dc, div(x, r1)), div(mul(cn, x), mul(r1, r1)))
        dans1 = add(dans, dc1)
        c1 = mul(cn, div(x, r1))
        ans1 = add(ans, c1)
        if mode == Mode.VALUE:
            again = bitwise_and(on, gt(div(c1, ans1), eps))
        else:
            again = bitwise_and(on, gt(abs(div(dc1, dans1)), eps))
        new = [select(on, n, o) for n, o in zip((r1, c1, ans1, dc1, dans1), s[1:])]
        return (again, *new)

    one, zero = c(x, 1.0), c(x, 0.0)
    _, _, _, ans, _, dans = while_loop(cond, body, (enabled, a, one, one, zero, zero))
    if mode == Mode.VALUE:
        return div(mul(ans, ax), a)
    dlog_ax = sub(log(x), digamma_raw(add(a, 1.0)))
    if mode == Mode.DERIVATIVE:
        return div(mul(ax, add(mul(ans, dlog_ax), dans)), a)
    return div(mul(neg(add(dans, mul(ans, dlog_ax))), x), a)


def _fraction(ax, x, a, enabled, mode):
    """``Q(a, x) = ax * p_k / q_k`` (convergents rescaled when they grow; at most 2000
    terms), with the derivatives of the convergents in ``a``."""
    eps = _eps(x)

    def cond(s):
        return bitwise_and(lt(s[5], 2000.0), _any(s[0]))

    def body(s):
        on, ans, t, y, z, k, p1, q1, p2, q2, dp2, dq2, dp1, dq1, dans = s
        k = add(k, 1.0)
        y = add(y, 1.0)
        z = add(z, 2.0)
        yc = mul(y, k)
        pk = sub(mul(p1, z), mul(p2, yc))
        qk = sub(mul(q1, z), mul(q2, yc))
        nonzero = ne(qk, 0.0)
        r = div(pk, qk)
        t = select(nonzero, abs(div(sub(ans, r), r)), c(r, 1.0))
        ans = select(nonzero, r, ans)
        dpk = add(sub(sub(mul(dp1, z), p1), mul(dp2, yc)), mul(p2, k))
        dqk = add(sub(sub(mul(dq1, z), q1), mul(dq2, yc)), mul(q2, k))
        dans_new = select(nonzero, div(sub(dpk, mul(ans, dqk)), qk), dans)
        gcond = select(nonzero, abs(sub(dans_new, dans)), c(dans, 1.0))
        rescale = gt(abs(pk), 1.0 / eps)
        scaled = [select(rescale, mul(v, eps), v) for v in (p1, pk, q1, qk, dp1, dq1, dpk, dqk)]
        p2n, p1n, q2n, q1n, dp2n, dq2n, dp1n, dq1n = scaled
        if mode == Mode.VALUE:
            again = bitwise_and(on, gt(t, eps))
        else:
            again = bitwise_and(on, gt(gcond, eps))
        new = (ans, t, y, z)
        rest = (p1n, q1n, p2n, q2n, dp2n, dq2n, dp1n, dq1n, dans_new)
        kept = [select(on, n, o) for n, o in zip(new, s[1:5])]
        kept2 = [select(on, n, o) for n, o in zip(rest, s[6:])]
        return (again, *kept, k, *kept2)

    y = sub(1.0, a)
    z = add(add(x, y), 1.0)
    p1 = add(x, 1.0)
    q1 = mul(z, x)
    ans = div(p1, q1)
    zero = c(x, 0.0)
    dq1 = neg(x)
    dans = div(neg(mul(ans, dq1)), q1)
    k0 = np.zeros((), U.aval_of(x).dtype)
    state = (enabled, ans, c(x, 1.0), y, z, k0, p1, q1, c(x, 1.0), x, zero, zero, zero, dq1,
             dans)
    out = while_loop(cond, body, state)
    ans = out[1]
    if mode == Mode.VALUE:
        return mul(ans, ax)
    dlog_ax = sub(log(x), digamma_raw(a))
    if mode == Mode.DERIVATIVE:
        return mul(ax, add(mul(ans, dlog_ax), out[14]))
    return neg(mul(add(out[14], mul(ans, dlog_ax)), x))


def _log_ax(a, x):
    ax = sub(sub(mul(a, log(x)), x), lgamma_raw(a))
    info = dtypes.finfo(U.aval_of(x).dtype)
    return ax, lt(ax, -float(np.log(float(info.max))))


def _any_of(*ps):
    return functools.reduce(bitwise_or, ps)


@upcast
def igamma_raw(a, x):
    nan = bitwise_or(_isnan(a), _isnan(x))
    x_inf = eq(x, np.inf)
    x_zero = eq(x, 0.0)
    domain = _any_of(lt(x, 0.0), lt(a, 0.0), bitwise_and(eq(a, 0.0), x_zero), nan)
    use_q = bitwise_and(ge(x, 1.0), gt(x, a))
    log_ax, underflow = _log_ax(a, x)
    ax = exp(log_ax)
    on = bitwise_not(_any_of(x_zero, domain, underflow, x_inf))
    q = _fraction(ax, x, a, bitwise_and(on, use_q), Mode.VALUE)
    p = _series(ax, x, a, bitwise_and(on, bitwise_not(use_q)), Mode.VALUE)
    out = select(use_q, sub(1.0, q), p)
    out = select(x_zero, c(a, 0.0), out)
    out = select(x_inf, c(a, 1.0), out)
    return select(domain, c(a, np.nan), out)


@upcast
def igammac_raw(a, x):
    nan = bitwise_or(_isnan(a), _isnan(x))
    a_zero = eq(a, 0.0)
    x_zero = eq(x, 0.0)
    x_inf = eq(x, np.inf)
    domain = _any_of(lt(x, 0.0), lt(a, 0.0), bitwise_and(a_zero, x_zero), nan)
    use_p = bitwise_or(lt(x, 1.0), lt(x, a))
    log_ax, underflow = _log_ax(a, x)
    on = bitwise_not(_any_of(domain, underflow, x_inf, a_zero))
    ax = exp(log_ax)
    p = _series(ax, x, a, bitwise_and(on, use_p), Mode.VALUE)
    q = _fraction(ax, x, a, bitwise_and(on, bitwise_not(use_p)), Mode.VALUE)
    out = select(use_p, sub(1.0, p), q)
    out = select(bitwise_or(x_inf, a_zero), c(out, 0.0), out)
    return select(domain, c(a, np.nan), out)


def _grad_a(a, x, mode):
    nan = bitwise_or(_isnan(a), _isnan(x))
    x_zero = eq(x, 0.0)
    domain = bitwise_or(lt(x, 0.0), le(a, 0.0))
    use_q = bitwise_and(gt(x, 1.0), gt(x, a))
    log_ax, underflow = _log_ax(a, x)
    ax = exp(log_ax)
    on = bitwise_not(_any_of(x_zero, domain, underflow, nan))
    q = _fraction(ax, x, a, bitwise_and(on, use_q), mode)
    p = _series(ax, x, a, bitwise_and(on, bitwise_not(use_q)), mode)
    out = select(use_q, neg(q), p)
    out = select(x_zero, c(out, 0.0), out)
    return select(bitwise_or(domain, nan), c(a, np.nan), out)


@upcast
def igamma_grad_a_raw(a, x):
    return _grad_a(a, x, Mode.DERIVATIVE)


@upcast
def random_gamma_grad_raw(a, x):
    return _grad_a(a, x, Mode.SAMPLE_DERIVATIVE)


def _igamma_dx(a, x):
    return exp(sub(add(neg(x), mul(sub(a, 1.0), log(x))), _lgamma(a)))


@custom_jvp
def _igamma(a, x):
    return igamma_raw(a, x)


@_igamma.defjvp
def _igamma_jvp(primals, tangents):
    (a, x), (ta, tx) = primals, tangents
    d = add(mul(ta, igamma_grad_a_raw(a, x)), mul(tx, _igamma_dx(a, x)))
    return _igamma(a, x), d


@custom_jvp
def _igammac(a, x):
    return igammac_raw(a, x)


@_igammac.defjvp
def _igammac_jvp(primals, tangents):
    (a, x), (ta, tx) = primals, tangents
    d = add(mul(ta, igamma_grad_a_raw(a, x)), mul(tx, _igamma_dx(a, x)))
    return _igammac(a, x), neg(d)


# ---- betainc --------------------------------------------------------------------------------
def _lentz(a, b, x, num_iterations, small, threshold):
    """The continued fraction of ``betainc`` (DLMF 8.17.22) by the modified Lentz method,
    iterated until every element has converged (or ``num_iterations``)."""
    def numerator(it):
        """The ``it``-th partial numerator (``it`` is a Python int or a traced scalar)."""
        itf = U.broadcast_to(it, U.aval_of(a).shape)
        m = floor(mul(sub(itf, 1.0), 0.5))
        two_m = mul(m, 2.0)
        even = eq(sub(itf, mul(floor(mul(itf, 0.5)), 2.0)), 0.0)
        zero_num = div(mul(neg(add(a, b)), x), add(a, 1.0))
        even_num = div(mul(mul(neg(add(a, m)), add(add(a, b), m)), x),
                       mul(add(a, two_m), add(add(a, two_m), 1.0)))
        even_num = select(eq(m, 0.0), zero_num, even_num)
        odd_num = div(mul(mul(m, sub(b, m)), x), mul(sub(add(a, two_m), 1.0), add(a, two_m)))
        out = select(even, even_num, odd_num)
        return select(eq(itf, 1.0), c(x, 1.0), out)

    def cond(s):
        return bitwise_and(lt(s[0], float(num_iterations)), s[1])

    def body(s):
        it, _, cc, d, h = s
        num = numerator(it)
        den = c(x, 1.0)
        cc = add(den, div(num, cc))
        cc = select(lt(abs(cc), small), c(cc, small), cc)
        d = add(den, mul(num, d))
        d = select(lt(abs(d), small), c(d, small), d)
        d = div(1.0, d)
        delta = mul(cc, d)
        h = mul(h, delta)
        return (add(it, 1.0), _any(ge(abs(sub(delta, 1.0)), threshold)), cc, d, h)

    h = c(x, small)   # the 0-th partial denominator is 0, below `small`
    it0 = np.ones((), U.aval_of(x).dtype)
    state = (it0, np.array(True), h, c(x, 0.0), h)
    return while_loop(cond, body, state)[4]


@upcast
def betainc_raw(a, b, x):
    dt = U.aval_of(x).dtype
    info = dtypes.finfo(dt)
    a_zero = bitwise_or(eq(a, 0.0), eq(b, np.inf))
    b_zero = bitwise_or(eq(b, 0.0), eq(a, np.inf))
    x_zero, x_one = eq(x, 0.0), eq(x, 1.0)
    nan = _any_of(_isnan(a), _isnan(b), _isnan(x))
    res_zero = bitwise_or(bitwise_and(b_zero, bitwise_not(x_one)), bitwise_and(a_zero, x_zero))
    res_one = bitwise_or(bitwise_and(a_zero, bitwise_not(x_zero)), bitwise_and(b_zero, x_one))
    res_nan = _any_of(lt(a, 0.0), lt(b, 0.0), lt(x, 0.0), gt(x, 1.0),
                      bitwise_and(a_zero, b_zero), nan)
    fast = lt(x, div(add(a, 1.0), add(add(a, b), 2.0)))
    a, b = select(fast, a, b), select(fast, b, a)
    x = select(fast, x, sub(1.0, x))
    tol = float(np.asarray(info.eps / 2, dt))
    cf = _lentz(a, b, x, 200 if np.dtype(dt) == np.float32 else 600, tol, tol)
    lbeta_small = sub(lgamma_raw(b), lgamma_raw(add(a, b)))
    lbeta = add(lgamma_raw(a), lbeta_small)
    very_small = float(np.asarray(info.tiny * 2, dt))
    factor = select(lt(a, very_small), exp(sub(mul(log1p(neg(x)), b), lbeta_small)),
                    div(exp(sub(add(mul(log(x), a), mul(log1p(neg(x)), b)), lbeta)), a))
    out = mul(cf, factor)
    out = select(fast, out, sub(1.0, out))
    out = select(res_zero, c(out, 0.0), out)
    out = select(res_one, c(out, 1.0), out)
    return select(res_nan, c(out, np.nan), out)


@custom_jvp
def _betainc(a, b, x):
    return betainc_raw(a, b, x)


@_betainc.defjvp
def _betainc_jvp(primals, tangents):
    """Derivative in ``x`` only (JAX defines none in ``a`` or ``b``)."""
    (a, b, x), (_, _, tx) = primals, tangents
    lbeta = sub(add(_lgamma(a), _lgamma(b)), _lgamma(add(a, b)))
    dx = exp(sub(add(mul(sub(b, 1.0), log1p(neg(x))), mul(sub(a, 1.0), log(x))), lbeta))
    return _betainc(a, b, x), mul(tx, dx)


igamma = public("igamma", _igamma, 2)
igammac = public("igammac", _igammac, 2)
igamma_grad_a = public("igamma_grad_a", igamma_grad_a_raw, 2)
random_gamma_grad = public("random_gamma_grad", random_gamma_grad_raw, 2)
betainc = partial_support("derivatives in a and b are zero (JAX raises an error)")(
    public("betainc", _betainc, 3, prim="regularized_incomplete_beta"))
