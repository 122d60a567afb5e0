"""``irax.test_util``: check derivatives against finite differences (``jax.test_util``).

    irax.test_util.check_grads(jnp.sin, (0.5,), order=2)     # fwd and rev, up to 2nd order
    irax.test_util.check_grads(f, (x, y), order=1, modes=("rev",), atol=1e-3)

Each check draws one random direction (a fixed seed, so failures reproduce): forward mode
compares ``jvp(f, args, t)`` with the central difference ``(f(x + eps t) - f(x - eps t)) /
(2 eps)``; reverse mode checks the adjoint identity ``<t, vjp(ct)> == <jvp(t), ct>`` with
the tangent from finite differences. Higher orders apply the same checks to the jvp and
vjp functions themselves. A mismatch raises ``AssertionError``.
"""

from __future__ import annotations

import functools

import numpy as np

from irax.core import dtypes
from irax.core.tree_util import tree_leaves, tree_map
from irax.transforms.autodiff import jvp, vjp

EPS = 1e-4

# Default absolute and relative tolerance of a derivative check, by dtype.
_GRAD_TOL = {
    np.dtype(dtypes.bfloat16): 1e-1, np.dtype(np.float16): 1e-2,
    np.dtype(np.float32): 2e-3, np.dtype(np.float64): 1e-5,
    np.dtype(np.complex64): 1e-3, np.dtype(np.complex128): 1e-5,
}


def _dtype(x) -> np.dtype:
    """``x``'s dtype; a Python scalar's is 64-bit (steps are taken in full precision)."""
    if hasattr(x, "dtype"):
        return np.dtype(x.dtype)
    return dtypes.python_scalar_dtypes[type(x)]


def _is_scalar(x) -> bool:
    return isinstance(x, (bool, int, float, complex)) and not isinstance(x, np.generic)


def _tolerance(tol, dt: np.dtype) -> float:
    if tol is None:
        return _GRAD_TOL.get(dt, 1e-1 if dtypes.is_inexact(dt) else 0.0)
    if isinstance(tol, dict):
        merged = dict(_GRAD_TOL)
        merged.update({np.dtype(k): v for k, v in tol.items()})
        return merged.get(dt, 0.0)
    return float(tol)


def _like(x, value):
    """``value`` (NumPy) in ``x``'s dtype, a Python scalar when ``x`` is one."""
    out = np.asarray(value).astype(_dtype(x))
    return out.item() if _is_scalar(x) else out


def _random_like(rng, x):
    dt = _dtype(x)
    shape = np.shape(x)
    value = rng.standard_normal(shape)
    if dtypes.is_complex(dt):
        value = value + 1j * rng.standard_normal(shape)
    return _like(x, value)


def _step(xs, ts, eps):
    return tree_map(lambda x, t: _like(x, np.asarray(x) + eps * np.asarray(t)), xs, ts)


def numerical_jvp(f, primals, tangents, eps=EPS):
    """The central difference of ``f`` at ``primals`` in direction ``tangents``."""
    plus = f(*_step(primals, tangents, eps))
    minus = f(*_step(primals, tangents, -eps))

    def difference(p, m):
        p, m = np.asarray(p), np.asarray(m)
        with np.errstate(invalid="ignore"):
            d = np.where(p == m, np.zeros_like(p), p - m)   # inf - inf counts as no change
        return _like(p, d * (0.5 / eps))

    return tree_map(difference, plus, minus)


def _inner(xs, ys) -> float:
    total = 0.0
    for x, y in zip(tree_leaves(xs), tree_leaves(ys)):
        total += float(np.real(np.vdot(np.asarray(x).ravel(), np.asarray(y).ravel())))
    return total


def check_close(xs, ys, atol=None, rtol=None, err_msg=""):
    """Asserts every leaf of ``xs`` is close to the matching leaf of ``ys``."""
    x_leaves, y_leaves = tree_leaves(xs), tree_leaves(ys)
    if len(x_leaves) != len(y_leaves):
        raise AssertionError(f"{err_msg}: {len(x_leaves)} leaves vs {len(y_leaves)}")
    for x, y in zip(x_leaves, y_leaves):
        dt = dtypes.canonicalize_dtype(dtypes.promote_types(_dtype(x), _dtype(y)))
        wide = np.complex128 if dtypes.is_complex(dt) else np.float64
        np.testing.assert_allclose(
            np.asarray(x).astype(wide), np.asarray(y).astype(wide),
            atol=_tolerance(atol, np.dtype(dt)), rtol=_tolerance(rtol, np.dtype(dt)),
            err_msg=err_msg)


def check_jvp(f, f_jvp, args, atol=None, rtol=None, eps=EPS, err_msg=""):
    """Checks ``f_jvp(primals, tangents)`` (typically ``partial(jvp, f)``) against finite
    differences of ``f`` in one random direction."""
    rng = np.random.default_rng(0)
    tangents = tree_map(functools.partial(_random_like, rng), tuple(args))
    out, tangent_out = f_jvp(tuple(args), tangents)
    check_close(out, f(*args), atol, rtol, f"{err_msg} primal".strip())
    check_close(tangent_out, numerical_jvp(f, tuple(args), tangents, eps), atol, rtol,
                f"{err_msg} tangent".strip())


def check_vjp(f, f_vjp, args, atol=None, rtol=None, eps=EPS, err_msg=""):
    """Checks ``f_vjp(*primals)`` (typically ``partial(vjp, f)``) through the adjoint
    identity against finite differences of ``f`` in one random direction."""
    rng = np.random.default_rng(0)
    out, pullback = f_vjp(*args)
    check_close(out, f(*args), atol, rtol, f"{err_msg} primal".strip())
    tangents = tree_map(functools.partial(_random_like, rng), tuple(args))
    tangent_out = numerical_jvp(f, tuple(args), tangents, eps)
    cotangent = tree_map(functools.partial(_random_like, rng), out)
    conj = functools.partial(tree_map, lambda x: _like(x, np.conj(np.asarray(x))))
    cotangent_in = conj(pullback(conj(cotangent)))
    check_close(_inner(tangents, cotangent_in), _inner(tangent_out, cotangent), atol, rtol,
                f"{err_msg} cotangent projection".strip())


def check_grads(f, args, order, modes=("fwd", "rev"), atol=None, rtol=None, eps=None):
    """Checks forward- and/or reverse-mode derivatives of ``f`` at ``args`` up to ``order``
    against finite differences (``jax.test_util.check_grads``)."""
    if set(modes) - {"fwd", "rev"}:
        raise ValueError(f"check_grads: modes must be among ('fwd', 'rev'), got {modes!r}")
    eps = eps or EPS

    def check(fun, xs, n, what):
        if "fwd" in modes:
            label = f"JVP of {what}" if what else "JVP"
            check_jvp(fun, functools.partial(jvp, fun), xs, atol, rtol, eps, label)
            if n > 1:
                check(functools.partial(jvp, fun), (xs, xs), n - 1, label)
        if "rev" in modes:
            label = f"VJP of {what}" if what else "VJP"
            check_vjp(fun, functools.partial(vjp, fun), xs, atol, rtol, eps, label)
            if n > 1:
                def pulled_back(*ys):
                    out, pullback = vjp(fun, *ys)
                    return pullback(out)
                check(pulled_back, xs, n - 1, label)

    check(f, tuple(args), order, "")
