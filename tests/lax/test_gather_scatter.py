"""irax.lax.gather / scatter* with dimension numbers against jax.lax: values, dtypes, weak
types, modes, eagerly and under one jit, derivatives, vmap and JAX's errors."""

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.numpy.numpy_helpers import check

import irax
import irax.lax as lax
import irax.numpy as jnp

jax = pytest.importorskip("jax")
jlax = jax.lax
jjnp = jax.numpy

rng = np.random.default_rng(7)
X = rng.normal(size=(5, 4)).astype(np.float32)
X3 = rng.normal(size=(3, 4, 5)).astype(np.float32)
XI = rng.integers(-9, 10, (5, 4)).astype(np.int32)
XB = rng.integers(0, 2, (5, 4)).astype(bool)
XH = X.astype(ml_dtypes.bfloat16)
ROWS = np.array([[0], [4], [2], [7], [-1]], np.int32)  # 7 and -1 are out of bounds
PAIRS = np.array([[0, 1], [4, 3], [3, 2], [5, 0], [1, -2]], np.int32)


def _gd(mod, *a, **k):
    return mod.GatherDimensionNumbers(*a, **k)


def _sd(mod, *a, **k):
    return mod.ScatterDimensionNumbers(*a, **k)


# (operand, indices, dnums args, slice_sizes)
GATHERS = [
    (X, ROWS, ((1,), (0,), (0,)), (1, 4)),          # rows
    (X, ROWS, ((1, 2), (), (0,)), (2, 3)),          # windows of 2x3, not collapsed
    (X, PAIRS, ((), (0, 1), (0, 1)), (1, 1)),       # points
    (X, PAIRS, ((1,), (0,), (0, 1)), (1, 2)),       # point starts, width-2 windows
    (XI, ROWS, ((1,), (0,), (0,)), (1, 4)),
    (XB, ROWS, ((1,), (0,), (0,)), (1, 4)),
    (XH, PAIRS, ((), (0, 1), (0, 1)), (1, 1)),
    (X3, np.array([[[1], [3]], [[0], [9]], [[2], [2]]], np.int32),  # batching dims
     ((2,), (1,), (1,), (0,), (0,)), (1, 1, 5)),
]
MODES = [None, "clip", "fill", jlax.GatherScatterMode.PROMISE_IN_BOUNDS]


def _irax_mode(m):
    return lax.GatherScatterMode[m.name] if isinstance(m, jlax.GatherScatterMode) else m


def _gather(mod, case, mode, fill=None):
    x, idx, dn, sizes = case
    return mod.gather(x, idx, _gd(mod, *dn), sizes,
                      mode=_irax_mode(mode) if mod is lax else mode, fill_value=fill)


def test_gather_matches_jax():
    def cases(mod):
        out = {f"{k} {m}": _gather(mod, c, m) for k, c in enumerate(GATHERS) for m in MODES}
        out["fill7"] = _gather(mod, GATHERS[0], "fill", 7.0)
        out["fill-3"] = _gather(mod, GATHERS[4], "fill", -3)
        return out

    want = jax.jit(lambda: cases(jlax))()  # one XLA compile for every reference
    got = cases(lax)
    for k in want:
        check(got[k], want[k], msg=k)


# (operand, indices, updates, dnums args)
SCATTERS = [
    (X, ROWS, rng.normal(size=(5, 4)).astype(np.float32), ((1,), (0,), (0,))),
    (X, PAIRS, rng.normal(size=(5,)).astype(np.float32), ((), (0, 1), (0, 1))),
    (X, ROWS, rng.normal(size=(5, 2, 3)).astype(np.float32), ((1, 2), (), (0,))),
    (XI, np.array([[1], [1], [3], [9]], np.int32), rng.integers(-5, 5, (4, 4)).astype(np.int32),
     ((1,), (0,), (0,))),  # duplicates combine
    (X3, np.array([[[1], [3]], [[0], [9]], [[2], [2]]], np.int32),
     rng.normal(size=(3, 2, 5)).astype(np.float32), ((2,), (1,), (1,), (0,), (0,))),
]
SCATTER_FNS = ["scatter", "scatter_add", "scatter_sub", "scatter_mul", "scatter_min",
               "scatter_max"]


def _scatter(mod, name, case, mode=None):
    x, idx, u, dn = case
    if mod is lax:
        mode = _irax_mode(mode)
    return getattr(mod, name)(x, idx, u, _sd(mod, *dn), mode=mode)


def test_scatter_family_matches_jax():
    xb, ib, ub = XB, np.array([[0], [3]], np.int32), np.array([[True] * 4, [False] * 4])
    bdn = ((1,), (0,), (0,))

    def cases(mod):
        out = {}
        for name in SCATTER_FNS:
            for k, case in enumerate(SCATTERS):
                if name == "scatter" and k == 3:
                    continue  # duplicate indices: which update wins is unspecified
                for m in (None, "clip") if k else (None, "clip", "promise_in_bounds"):
                    out[f"{name} {k} {m}"] = _scatter(mod, name, case, m)
        for name in ("scatter", "scatter_max", "scatter_min"):
            out[name + " bool"] = getattr(mod, name)(xb, ib, ub, _sd(mod, *bdn))
        return out

    want = jax.jit(lambda: cases(jlax))()
    got = cases(lax)
    for k in want:
        check(got[k], want[k], rtol=1e-5, atol=1e-5, msg=k)


def test_weak_types_follow_jax():
    idx = np.array([[1]], np.int32)
    dn = ((), (0,), (0,))
    wx = jnp.zeros(3) + 1.0  # float32, strong
    for ux in (1.0, np.float32(1.0)):
        check(lax.scatter_add(wx, idx, jnp.asarray(ux)[None], _sd(lax, *dn)),
              jlax.scatter_add(jjnp.zeros(3) + 1.0, idx, jjnp.asarray(ux)[None],
                               _sd(jlax, *dn)))
    w = lax.full((3,), 2.0)  # weak float32
    jw = jlax.full((3,), 2.0)
    check(lax.gather(w, idx, _gd(lax, (), (0,), (0,)), (1,)),
          jlax.gather(jw, idx, _gd(jlax, (), (0,), (0,)), (1,)))
    check(lax.scatter(w, idx, lax.full((1,), 5.0), _sd(lax, *dn)),
          jlax.scatter(jw, idx, jlax.full((1,), 5.0), _sd(jlax, *dn)))


def test_gather_and_scatter_in_one_jit_match_eager():
    """Every gather mode and scatter function of the cases above in one compiled module."""

    def fn():
        outs = {}
        for k, case in enumerate(GATHERS):
            for m in (None, "fill"):
                outs[f"g{k}{m}"] = _gather(lax, case, m)
        for name in SCATTER_FNS:
            for k, case in enumerate(SCATTERS):
                for m in (None, "clip"):
                    outs[f"{name}{k}{m}"] = _scatter(lax, name, case, m)
        outs["take"] = lax.index_take(X, [np.array([0, -1, 7], np.int32)], [0])
        return outs

    def traced(x):  # operands as jit arguments too, so the ops see tracers
        return {"g": _gather(lax, (x, ROWS, ((1,), (0,), (0,)), (1, 4)), "fill"),
                "s": lax.scatter_mul(x, ROWS, x, _sd(lax, (1,), (0,), (0,)), mode="clip"),
                **fn()}

    compiled = irax.jit(traced)(X)
    eager = traced(X)
    for k in eager:
        check(compiled[k], eager[k], rtol=1e-5, atol=1e-5, msg=k)


def test_index_take_and_scatter_apply():
    idxs = [np.array([0, -1, 7, 2], np.int32), np.array([1, 3, -4, 0], np.int32)]
    check(lax.index_take(X, idxs, [0, 1]), jlax.index_take(X, idxs, [0, 1]))
    check(lax.index_take(X3, idxs[:1], [1]), jlax.index_take(X3, idxs[:1], [1]))
    idx = np.array([[0], [3], [3], [9]], np.int32)
    dn = ((), (0,), (0,))
    for mode in (None, "clip"):
        got = lax.scatter_apply(np.arange(5.0, dtype=np.float32), idx, jnp.sin,
                                _sd(lax, *dn), update_shape=(4,), mode=mode)
        want = jlax.scatter_apply(np.arange(5.0, dtype=np.float32), idx, jjnp.sin,
                                  _sd(jlax, *dn), update_shape=(4,), mode=mode)
        check(got, want, rtol=1e-6, msg=str(mode))
    f = irax.jit(lambda x: lax.scatter_apply(x, idx, lambda v: v * 2, _sd(lax, *dn),
                                             update_shape=(4,)))
    check(f(np.arange(5.0, dtype=np.float32)),
          jlax.scatter_apply(np.arange(5.0, dtype=np.float32), idx, lambda v: v * 2,
                             _sd(jlax, *dn), update_shape=(4,)))


@settings(max_examples=8, deadline=None)
@given(st.integers(1, 5), st.integers(1, 4), st.integers(1, 3), st.integers(1, 4),
       st.sampled_from([None, "clip", "fill"]), st.integers(0, 10**6))
def test_gather_and_scatter_add_random_windows(n, m, w, nidx, mode, seed):
    r = np.random.default_rng(seed)
    x = r.normal(size=(n, m)).astype(np.float32)
    w = min(w, m)
    idx = r.integers(-2, n + m, (nidx, 2)).astype(np.int32)
    dn = ((1,), (0,), (0, 1))
    check(lax.gather(x, idx, _gd(lax, *dn), (1, w), mode=mode),
          jlax.gather(x, idx, _gd(jlax, *dn), (1, w), mode=mode))
    u = r.normal(size=(nidx, w)).astype(np.float32)
    smode = "clip" if mode == "clip" else None
    check(lax.scatter_add(x, idx, u, _sd(lax, *dn), mode=smode),
          jlax.scatter_add(x, idx, u, _sd(jlax, *dn), mode=smode), rtol=1e-5, atol=1e-5)


# ---- derivatives -------------------------------------------------------------------------------
def _losses(mod, np_):
    g = (ROWS, ((1,), (0,), (0,)), (1, 4))
    s = SCATTERS[0]

    def gather_fill(x):
        return np_.sum(np_.where(np_.isnan(y := mod.gather(
            x, g[0], _gd(mod, *g[1]), g[2], mode="fill")), 0.0, y) ** 2)

    def gather_clip(x):
        return np_.sum(np_.sin(mod.gather(x, g[0], _gd(mod, *g[1]), g[2], mode="clip")))

    def scatter_add(x, u):
        return np_.sum(np_.sin(mod.scatter_add(x, s[1], u, _sd(mod, *s[3]))))

    def scatter_set(x, u):
        return np_.sum(np_.sin(mod.scatter(x, s[1], u, _sd(mod, *s[3]), mode="clip")) * x)

    def scatter_mul(x, u):
        return np_.sum(mod.scatter_mul(x, s[1], u, _sd(mod, *s[3]), unique_indices=True))

    def scatter_max(x, u):
        return np_.sum(mod.scatter_max(x, s[1], u, _sd(mod, *s[3])) ** 2)

    return dict(gather_fill=gather_fill, gather_clip=gather_clip, scatter_add=scatter_add,
                scatter_set=scatter_set, scatter_mul=scatter_mul, scatter_max=scatter_max)


def test_gradients_match_jax_and_finite_differences():
    ours, theirs = _losses(lax, jnp), _losses(jlax, jjnp)
    u = SCATTERS[0][2]
    for name in ours:
        args = (X,) if name.startswith("gather") else (X, u)
        argnums = tuple(range(len(args)))
        got = irax.grad(ours[name], argnums=argnums)(*args)
        want = jax.jit(jax.grad(theirs[name], argnums=argnums))(*args)
        for g_, w_ in zip(got, want):
            check(g_, w_, rtol=1e-4, atol=1e-5, msg=name)
        t = tuple(np.ones_like(a) for a in args)
        check(irax.jvp(ours[name], args, t)[1],
              jax.jit(lambda *a, f=theirs[name], t=t: jax.jvp(f, a, t)[1])(*args),
              rtol=1e-4, atol=1e-4, msg=name)
    # finite differences of one loss along a random direction
    f = ours["scatter_add"]
    d = rng.normal(size=X.shape).astype(np.float32)
    eps = 1e-2
    fd = (f(X + eps * d, u) - f(X - eps * d, u)) / (2 * eps)
    np.testing.assert_allclose(float(irax.jvp(lambda x: f(x, u), (X,), (d,))[1]), float(fd),
                               rtol=2e-3)


def test_gradients_under_jit():
    keep = ("gather_fill", "scatter_set", "scatter_mul")  # the other rules: eagerly above
    ours = {k: v for k, v in _losses(lax, jnp).items() if k in keep}
    theirs = {k: v for k, v in _losses(jlax, jjnp).items() if k in keep}
    u = SCATTERS[0][2]

    def all_grads(x, u):
        return {n: irax.grad(f, argnums=0)(*((x,) if n.startswith("gather") else (x, u)))
                for n, f in ours.items()}

    got = irax.jit(all_grads)(X, u)
    want = jax.jit(lambda x, u: {n: jax.grad(f, argnums=0)(*((x,) if n.startswith("gather")
                                                             else (x, u)))
                                 for n, f in theirs.items()})(X, u)
    for n in want:
        check(got[n], want[n], rtol=1e-4, atol=1e-5, msg=n)


def test_vmap_matches_a_loop():
    xs = rng.normal(size=(3, 5, 4)).astype(np.float32)
    idxs = np.array([[[0], [4]], [[2], [9]], [[-1], [1]]], np.int32)
    us = rng.normal(size=(3, 2, 4)).astype(np.float32)
    gdn, sdn = _gd(lax, (1,), (0,), (0,)), _sd(lax, (1,), (0,), (0,))

    def g(x, i):
        return lax.gather(x, i, gdn, (1, 4), mode="fill", fill_value=0.0)

    def s(x, i, u):
        return lax.scatter_add(x, i, u, sdn, mode="clip")

    got = irax.jit(lambda xs, idxs, us: (irax.vmap(g)(xs, idxs), irax.vmap(s)(xs, idxs, us),
                                         irax.vmap(g, in_axes=(None, 0))(X, idxs)))(xs, idxs, us)
    wants = (np.stack([np.asarray(g(xs[k], idxs[k])) for k in range(3)]),
             np.stack([np.asarray(s(xs[k], idxs[k], us[k])) for k in range(3)]),
             np.stack([np.asarray(g(X, i)) for i in idxs]))
    for got_, want in zip(got, wants):
        np.testing.assert_allclose(np.asarray(got_), want, rtol=1e-6)


# ---- errors --------------------------------------------------------------------------------------
def test_errors_name_the_function():
    with pytest.raises(TypeError, match="irax.lax.gather"):
        lax.gather(X, ROWS, _gd(lax, (1,), (0,), (0, 1)), (1, 4))  # index vector of size 1
    with pytest.raises(TypeError, match="irax.lax.gather"):
        lax.gather(X, ROWS, _gd(lax, (1,), (0,), (0,)), (2, 4))  # collapsed dim of size 2
    with pytest.raises(TypeError, match="integer"):
        lax.gather(X, ROWS.astype(np.float32), _gd(lax, (1,), (0,), (0,)), (1, 4))
    with pytest.raises(TypeError, match="irax.lax.scatter_add"):
        lax.scatter_add(X, ROWS, X[:, :2], _sd(lax, (1,), (), (0,)))  # rank mismatch
    with pytest.raises(TypeError, match="same dtypes"):
        lax.scatter_add(X, ROWS, XI, _sd(lax, (1,), (0,), (0,)))
    with pytest.raises(ValueError, match="Unknown gather mode"):
        lax.gather(X, ROWS, _gd(lax, (1,), (0,), (0,)), (1, 4), mode="wrap")
    with pytest.raises(TypeError):
        irax.jit(lambda x: lax.gather(x, ROWS, _gd(lax, (1,), (0,), (0,)), (1, 9)))(X)
