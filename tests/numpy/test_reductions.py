"""Reductions: values, dtypes (JAX's accumulation rules), axis/keepdims/where, cumulative."""

import numpy as np
import pytest
from numpy_helpers import BF16, check, sample

import irax
import irax.numpy as jnp

jax = pytest.importorskip("jax")
jjnp = pytest.importorskip("jax.numpy")

rng = np.random.default_rng(1)
X = {dt: sample((3, 4, 5), dt, rng) for dt in
     (np.float32, np.int32, np.int8, np.uint8, np.bool_, np.float16, np.complex64)}
X["bf16"] = sample((3, 4, 5), np.float32, rng).astype(BF16)
NAMES = ["sum", "prod", "max", "min", "mean", "var", "std", "any", "all", "argmax", "argmin",
         "cumsum", "cumprod", "nansum", "count_nonzero", "ptp"]
# every axis form for float32; fewer for the other dtypes (each JAX call compiles once)
AXES = {np.float32: [None, 0, 1, -1, (0, 2), ()], np.int32: [None, 1], np.int8: [None, 1],
        np.bool_: [None, 1], np.float16: [None, 1], np.uint8: [None], np.complex64: [None],
        "bf16": [None]}


def _cases():
    for name in NAMES:
        for key in X:
            for axis in AXES[key]:
                if name in ("argmax", "argmin", "cumsum", "cumprod") and \
                        not (axis is None or isinstance(axis, int)):
                    continue
                yield name, key, axis


def _kw(axis):
    return {} if axis is None else {"axis": axis}


@pytest.mark.parametrize("name,key,axis", [pytest.param(n, k, a, id=f"{n}-{k}-{a}")
                                           for n, k, a in _cases()])
def test_reduction_matches_jax(name, key, axis):
    x = X[key]
    kw = _kw(axis)
    try:
        want = getattr(jjnp, name)(x, **kw)
    except (TypeError, ValueError) as e:
        with pytest.raises(type(e)):
            getattr(jnp, name)(x, **kw)
        return
    try:
        got = getattr(jnp, name)(x, **kw)
    except (TypeError, NotImplementedError):
        assert x.dtype.kind == "c"  # complex max/min/argmax: documented gap
        return
    low = x.dtype in (np.float16, BF16)
    rtol = 2e-2 if low else 1e-4 if name in ("prod", "cumprod") else 1e-5
    atol = 1e-4
    if low and name.startswith("cum"):  # f16 running sums: rounding depends on the order
        w = np.abs(np.asarray(want, np.float32))
        atol = 1e-2 * float(np.max(w[np.isfinite(w)], initial=1.0))
    check(got, want, rtol=rtol, atol=atol if x.dtype.kind in "fc" or low else None,
          msg=f"{name}({key}, axis={axis})")


def test_keepdims_where_initial_dtype():
    x = X[np.float32]
    mask = x > 0
    cases = [
        lambda m: m.sum(x, axis=1, keepdims=True), lambda m: m.max(x, axis=(0, 2), keepdims=True),
        lambda m: m.sum(x, where=mask), lambda m: m.max(x, where=mask, initial=-10.0),
        lambda m: m.min(x, axis=0, initial=0.0), lambda m: m.prod(x, axis=2, dtype=m.float32),
        lambda m: m.sum(X[np.int8], dtype=m.int8), lambda m: m.mean(x, axis=1, where=mask),
        lambda m: m.var(x, axis=0, ddof=1), lambda m: m.std(x, correction=2, keepdims=True),
        lambda m: m.var(X[np.complex64], axis=1), lambda m: m.mean(X[np.int32], dtype=m.float16),
        lambda m: m.any(x, axis=0, keepdims=True), lambda m: m.all(mask, where=mask),
        lambda m: m.argmax(x, axis=1, keepdims=True), lambda m: m.argmin(x, keepdims=True),
        lambda m: m.cumsum(X[np.bool_], axis=1), lambda m: m.cumsum(X[np.int8]),
        lambda m: m.cumsum(x, axis=2, dtype=m.int32), lambda m: m.cumprod(X[np.int32][:, :, :3]),
        lambda m: m.sum(X[np.uint8], promote_integers=False), lambda m: m.amax(x, axis=1),
        lambda m: m.nanmax(np.float32([[np.nan, 1], [np.nan, np.nan]]), axis=1),
        lambda m: m.nanmean(np.float32([np.nan, 1, 3])), lambda m: m.sum(3),
        lambda m: m.mean(np.float16([2048, 1, 1, 1, 1, 1, 1, 1, 1])),
        lambda m: m.sum(np.float16([2048, 1, 1, 1, 1, 1, 1, 1, 1])),
        lambda m: m.var(np.float32([1.0]), ddof=1), lambda m: m.var(np.float32([1.0, 3.0]), ddof=3),
        lambda m: m.mean(np.zeros((0,), np.float32)),
        lambda m: m.argmax(np.float32([1, np.nan, 3, np.nan])),
        lambda m: m.argmin(np.float32([3, 1, 1, 2])), lambda m: m.max(np.float32([1, np.nan])),
    ]
    for i, case in enumerate(cases):
        want = case(jjnp)
        rtol = 2e-3 if want.dtype == np.float16 else 2e-5
        check(case(jnp), want, rtol=rtol, atol=1e-5, msg=f"case {i}")


def test_reduction_errors():
    with pytest.raises(ValueError, match="zero-size array to reduction operation max which has "
                                         "no identity"):
        jnp.max(jnp.zeros((0,)))
    with pytest.raises(ValueError, match="out of bounds"):
        jnp.sum(jnp.ones(3), axis=1)
    with pytest.raises(ValueError, match="attempt to get argmax of an empty sequence"):
        jnp.argmax(jnp.zeros((0,)))
    with pytest.raises(ValueError, match="does not have an identity"):
        jnp.max(jnp.ones(3), where=jnp.ones(3, bool))


def test_methods():
    x = jnp.arange(12.0).reshape(3, 4)
    np.testing.assert_allclose(np.asarray(x.sum(axis=0)), np.arange(12.0).reshape(3, 4).sum(0))
    assert float(x.mean()) == 5.5 and int(x.argmax()) == 11
    np.testing.assert_allclose(np.asarray(x.cumsum()), np.cumsum(np.arange(12.0)))
    assert x.max(axis=1).shape == (3,) and x.var() > 0 and x.std() > 0
    assert bool(x.any()) and not bool(x.all())


def test_reductions_in_one_jit():
    def f(x, i):
        return (jnp.sum(x, axis=1), jnp.mean(x), jnp.var(x, axis=0), jnp.std(x),
                jnp.max(x, axis=-1, keepdims=True), jnp.min(x), jnp.prod(x[:2, :2, :2]),
                jnp.argmax(x, axis=2), jnp.argmin(x), jnp.any(x > 1), jnp.all(x > -10),
                jnp.cumsum(x, axis=1), jnp.cumprod(i[0, 0]), jnp.sum(i), jnp.sum(i > 0),
                jnp.mean(i, axis=0), jnp.sum(x, where=x > 0), jnp.cumsum(i, axis=2),
                jnp.count_nonzero(i, axis=1), jnp.nansum(x))

    x, i = X[np.float32], X[np.int8]
    for k, (got, want) in enumerate(zip(irax.jit(f)(x, i), f(x, i))):
        check(got, want, rtol=1e-5, atol=1e-5, msg=str(k))
