"""Regressions found by the array API test suite (docs/array-api.md), against jax.numpy:
complex special values, signbit of -NaN, boolean masks with zero-length dims, gathers from
empty dims and the DLPack protocol; eagerly and in one jit."""

import inspect
import itertools

import jax
import jax.numpy as jjnp
import numpy as np
import pytest
from numpy_helpers import check

import irax
import irax.numpy as jnp

_V = [0.0, -0.0, 1.0, -1.0, 2.5, -3.0, np.inf, -np.inf, np.nan]


def _grid(keep):
    pts = [(a, b) for a, b in itertools.product(_V, _V) if keep(a, b)]
    z = np.zeros(len(pts), np.complex64)
    z.real = [a for a, _ in pts]
    z.imag = [b for _, b in pts]
    return z


def _inf(a, b):
    return np.isinf(a) or np.isinf(b)


# the points each function's special-value selection covers (JAX's values there)
CASES = {
    "arccos": _grid(_inf),
    "arccosh": _grid(_inf),
    "arcsinh": _grid(_inf),
    "arctanh": _grid(lambda a, b: _inf(a, b) and not np.isnan(b)),
    "sinh": _grid(lambda a, b: b == 0),
    "cosh": _grid(lambda a, b: b == 0),
    "expm1": _grid(lambda a, b: b == 0),
}


def _same_special(got, want, msg):
    """Equal parts, NaN where JAX has NaN (any sign), and the sign of every zero."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, msg
    for part in (np.real, np.imag):
        g, w = part(got), part(want)
        nan = np.isnan(w)
        assert (np.isnan(g) == nan).all(), (msg, got, want)
        np.testing.assert_allclose(g[~nan], w[~nan], rtol=1e-6, err_msg=msg)
        assert (np.signbit(g[~nan]) == np.signbit(w[~nan])).all(), (msg, got, want)


def _special_fns(m):
    return lambda *zs: [getattr(m, n)(z) for n, z in zip(CASES, zs)]


def test_complex_special_values_match_jax_eagerly_and_in_one_jit():
    zs = list(CASES.values())
    want = _special_fns(jjnp)(*zs)
    eager = _special_fns(jnp)(*[jnp.asarray(z) for z in zs])
    compiled = irax.jit(_special_fns(jnp))(*zs)
    for name, z, w, e, c in zip(CASES, zs, want, eager, compiled):
        _same_special(e, w, f"{name} eager at {z}")
        _same_special(c, w, f"{name} jit at {z}")
        check(e, w, msg=name)  # dtype and weak type


def test_special_value_selection_keeps_grad_and_vmap():
    z = np.array([0.3 + 0.2j, -1.5 + 2j, 2 - 1j], np.complex64)
    for name in ("arccos", "arcsinh", "arctanh", "sinh"):
        f = lambda x, n=name: getattr(jnp, n)(x).real  # noqa: E731
        jf = lambda x, n=name: getattr(jjnp, n)(x).real  # noqa: E731
        for zi in z:
            check(irax.grad(f)(zi), jax.grad(jf)(zi), rtol=1e-5, msg=f"grad {name}")
        got = irax.vmap(getattr(jnp, name))(z)
        loop = np.stack([np.asarray(getattr(jnp, name)(zi)) for zi in z])
        np.testing.assert_allclose(np.asarray(got), loop, rtol=1e-6, err_msg=name)


def test_signbit_sees_the_sign_of_nan_and_zero():
    nan = np.float32(np.nan)
    x = np.array([-nan, nan, -0.0, 0.0, -1.0, 2.0, -np.inf, np.inf], np.float32)
    want = jjnp.signbit(x)
    check(jnp.signbit(x), want)
    check(irax.jit(jnp.signbit)(x), want)
    h = x.astype(np.float16)
    check(jnp.signbit(h), jjnp.signbit(h))


MASKS = [((1,), (0,)), ((2, 3), (0,)), ((0, 3), (0,)), ((0,), (0,)), ((3, 0), (3, 0)),
         ((2, 0), (2,)), ((4,), (4,))]


@pytest.mark.parametrize("jit", [False, True])
def test_boolean_masks_with_zero_length_dims_match_jax(jit):
    rng = np.random.default_rng(0)
    for xs, ks in MASKS:
        x = rng.standard_normal(xs).astype(np.float32)
        k = rng.integers(0, 2, ks).astype(bool)
        f = (lambda a, k=k: a[k]) if not jit else irax.jit(lambda a, k=k: a[k])
        check(f(jnp.asarray(x)), jjnp.asarray(x)[k], msg=f"{xs}[{ks}]")
    with pytest.raises(IndexError, match="boolean index did not match"):
        jnp.zeros((2,))[np.zeros(3, bool)]


def test_integer_indices_into_an_empty_dim_match_jax():
    x = np.zeros((2, 0, 3), np.float32)
    empty = np.array([], np.int32)
    check(jnp.asarray(x)[:, empty], jjnp.asarray(x)[:, empty])
    check(jnp.zeros((0, 3))[empty], jjnp.zeros((0, 3))[empty])
    with pytest.raises(TypeError, match="out of range"):
        jnp.zeros((0, 3))[np.array([0, 1])]


def test_take_and_repeat_from_an_empty_axis_match_jax():
    for xs, idx, axis in [((0, 3), np.array([], np.int32), 0), ((2, 0), np.zeros((1, 0), int), 1),
                          ((0,), np.array([], np.int32), None)]:
        x = np.zeros(xs, np.float32)
        check(jnp.take(x, idx, axis=axis), jjnp.take(x, idx, axis=axis), msg=f"take {xs}")
    e, r = np.array([], bool), np.array([], np.int8)
    check(jnp.repeat(e, r), jjnp.repeat(e, r))
    check(irax.jit(lambda v: jnp.repeat(v, 2))(np.zeros(0, np.float32)),
          jjnp.repeat(np.zeros(0, np.float32), 2))
    with pytest.raises(IndexError, match="empty axis"):
        jnp.take(np.zeros((0, 3)), np.array([0, 1]), axis=0)


def test_dlpack_protocol_has_jax_keywords():
    params = inspect.signature(irax.Array.__dlpack__).parameters
    want = inspect.signature(type(jjnp.zeros(1)).__dlpack__).parameters
    assert list(params) == list(want)
    assert all(p.kind == inspect.Parameter.KEYWORD_ONLY for n, p in params.items()
               if n != "self")
    x = jnp.arange(6.0).reshape(2, 3)
    for kw in ({}, {"copy": True}):
        got = np.from_dlpack(x, **kw)
        np.testing.assert_array_equal(got, np.arange(6.0, dtype=np.float32).reshape(2, 3))
    got = jnp.from_dlpack(x)
    check(got, jjnp.from_dlpack(jjnp.arange(6.0).reshape(2, 3)))
    capsule = x.__dlpack__(max_version=(1, 0), dl_device=x.__dlpack_device__())
    assert type(capsule).__name__ == "PyCapsule"
