"""irax.scipy.stats against jax.scipy.stats: every distribution function on arrays, Python
scalars (weak types) and integer inputs, eagerly and under jit (a representative subset in
ONE compiled function: the incomplete gamma/beta loops are expensive to compile),
derivatives of the log densities against JAX and finite differences, vmap against a Python
loop, mode/rankdata/sem/gaussian_kde, and JAX's errors."""

import functools
import warnings

import jax
import jax.scipy.stats as jst
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import irax
import irax.scipy.stats as ist
from irax.test_util import check_grads

#: cases whose weak type may differ from JAX's (none: every case compares it)
KNOWN_WEAK_MISMATCH: set[str] = set()


def check(got, want, *, tol=2e-4, weak=True, msg=""):
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want), msg
        for i, (g, w) in enumerate(zip(got, want)):
            check(g, w, tol=tol, weak=weak, msg=f"{msg}[{i}]")
        return
    assert isinstance(got, irax.Array), (msg, type(got))
    assert got.dtype == want.dtype, f"{msg}: dtype {got.dtype} != {want.dtype}"
    if weak:
        assert got.weak_type == want.weak_type, f"{msg}: weak {got.weak_type}"
    assert got.shape == want.shape, f"{msg}: shape {got.shape} != {want.shape}"
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=tol, atol=tol,
                               equal_nan=True, err_msg=msg)


CONTINUOUS = {  # module -> (functions, extra shape parameters, support of x)
    "norm": ("logpdf pdf cdf sf logcdf logsf", (), "real"),
    "expon": ("logpdf pdf cdf sf logcdf logsf", (), "real"),
    "uniform": ("logpdf pdf cdf", (), "real"),
    "laplace": ("logpdf pdf cdf", (), "real"),
    "logistic": ("logpdf pdf cdf sf", (), "real"),
    "cauchy": ("logpdf pdf cdf sf logcdf logsf", (), "real"),
    "gumbel_l": ("logpdf pdf cdf sf logcdf logsf", (), "real"),
    "gumbel_r": ("logpdf pdf cdf sf logcdf logsf", (), "real"),
    "gamma": ("logpdf pdf cdf sf logcdf logsf", (2.5,), "pos"),
    "chi2": ("logpdf pdf cdf sf logcdf logsf", (3.0,), "pos"),
    "beta": ("logpdf pdf cdf sf logcdf logsf", (2.0, 3.0), "unit"),
    "pareto": ("logpdf pdf cdf sf logcdf logsf", (2.0,), "above1"),
    "t": ("logpdf pdf", (3.0,), "real"),
    "truncnorm": ("logpdf pdf cdf sf logcdf logsf", (-1.0, 2.0), "real"),
}
QUANTILES = {"norm": "ppf isf", "expon": "ppf", "uniform": "ppf", "logistic": "ppf isf",
             "cauchy": "ppf isf", "gumbel_l": "ppf", "gumbel_r": "ppf", "pareto": "ppf"}


def _inputs(rng):
    return {"real": rng.uniform(-3, 3, 6).astype(np.float32),
            "pos": rng.uniform(0.1, 5, 6).astype(np.float32),
            "unit": rng.uniform(0.02, 0.98, 6).astype(np.float32),
            "above1": rng.uniform(1.1, 6, 6).astype(np.float32),
            "q": np.array([0.0, 0.01, 0.3, 0.5, 0.9, 1.0], np.float32)}


def _cases(rng):
    """``name -> (module, function, args)``."""
    xs = _inputs(rng)
    pos = xs["pos"]
    cases = {}

    def add(mod, fn, *args):
        cases[f"{mod}.{fn} {len(cases)}"] = (mod, fn, args)

    for mod, (fns, shape, support) in CONTINUOUS.items():
        x = xs[support]
        scalar = {"real": 0.7, "pos": 1.3, "unit": 0.4, "above1": 2.5}[support]
        for i, fn in enumerate(fns.split()):
            add(mod, fn, x, *shape)                              # standard, weak params
            if i == 0:   # loc and scale arrays; all Python scalars (weak types)
                add(mod, fn, x, *shape, np.float32(0.1), pos[:1] + 0.5)
            if i in (0, 2):
                add(mod, fn, scalar, *shape)
        for i, fn in enumerate(QUANTILES.get(mod, "").split()):
            add(mod, fn, xs["q"], *shape, *((1.0, 2.0) if i else ()))
            if i == 0:
                add(mod, fn, 0.25, *shape)
    add("gamma", "logpdf", pos, pos)                             # array shape parameters
    add("beta", "cdf", xs["unit"], pos, pos[::-1])
    add("t", "logpdf", xs["real"], pos)
    add("chi2", "logpdf", np.arange(6, dtype=np.int32), 4)        # integer x promotes
    add("truncnorm", "logpdf", xs["real"], np.float32(0.5), np.float32(3.0), 0.2, 1.5)
    add("truncnorm", "cdf", xs["real"], -4.0, -1.0)
    add("gennorm", "logpdf", xs["real"], 1.5)
    add("gennorm", "pdf", xs["real"], np.float32(0.8))
    add("vonmises", "pdf", xs["real"], 2.0)
    add("vonmises", "logpdf", xs["real"], np.array([-1.0, 0.5, 3.0, 0.1, 9.0, 1.0], np.float32))
    add("wrapcauchy", "pdf", pos, 0.5)
    add("wrapcauchy", "logpdf", pos, np.float32(1.5))
    add("gennorm", "cdf", xs["real"], 1.5)
    kf = np.array([0.0, 1.0, 2.0, 3.0, 5.0, 2.5], np.float32)
    ki = np.array([0, 1, 2, 3, 5, -1], np.int32)
    for fn, k in (("logpmf", kf), ("pmf", ki)):
        add("bernoulli", fn, k, 0.3)
        add("binom", fn, k, 5, 0.3)
        add("betabinom", fn, k, 5, 2.0, 3.0)
        add("geom", fn, k, 0.3)
        add("nbinom", fn, k, 5, 0.3)
        add("poisson", fn, k, 2.5)
    add("bernoulli", "logpmf", kf, xs["unit"], 1)
    add("binom", "logpmf", ki, 5.0, xs["unit"])
    add("poisson", "logpmf", ki, pos)
    add("bernoulli", "cdf", kf, 0.3)
    add("bernoulli", "ppf", xs["q"], 0.3)
    add("poisson", "cdf", kf, 2.5)
    add("poisson", "entropy", np.array([0.0, 0.5, 5.0, 50.0, 500.0], np.float32))
    p = np.array([0.2, 0.3, 0.5], np.float32)
    add("multinomial", "logpmf", np.array([1, 2, 3]), 6, p)
    add("multinomial", "pmf", np.array([[1, 2, 3], [0, 0, 6], [1, 1, 1]]), 6, p)
    alpha = np.array([1.0, 2.0, 3.0], np.float32)
    add("dirichlet", "logpdf", p, alpha)
    add("dirichlet", "pdf", np.array([[0.2, 0.1], [0.3, 0.4]], np.float32), alpha)
    add("dirichlet", "logpdf", np.array([[0.2, 0.7], [0.3, 0.4], [0.5, -0.1]], np.float32), alpha)
    cov = np.array([[2.0, 0.5], [0.5, 1.0]], np.float32)
    y = rng.standard_normal((4, 2)).astype(np.float32)
    add("multivariate_normal", "logpdf", y, np.zeros(2, np.float32), cov)
    add("multivariate_normal", "logpdf", y, np.ones(2, np.float32), np.stack([cov, 2 * cov] * 2))
    add("multivariate_normal", "pdf", y, np.ones(2, np.float32), 2.0)
    add("multivariate_normal", "logpdf", xs["real"], 0.5, 2.0)
    return cases


def _call(M, case):
    mod, fn, args = case
    return getattr(getattr(M, mod), fn)(*args)


@functools.lru_cache(maxsize=None)
def _reference():
    """The cases and JAX's results from ONE jitted function."""
    cases = _cases(np.random.default_rng(0))
    keys = list(cases)
    return cases, dict(zip(keys, jax.jit(lambda: [_call(jst, cases[k]) for k in keys])()))


def _weak(key):
    return key.split()[0] not in KNOWN_WEAK_MISMATCH


def test_every_jax_name_exists():
    for mod in dir(jst):
        if mod.startswith("_"):
            continue
        assert hasattr(ist, mod), mod
        jmod = getattr(jst, mod)
        if isinstance(jmod, type(jst)):
            for fn in dir(jmod):
                if not fn.startswith("_"):
                    assert hasattr(getattr(ist, mod), fn), f"{mod}.{fn}"


def test_eager_matches_jax():
    cases, wants = _reference()
    for key, case in cases.items():
        check(_call(ist, case), wants[key], weak=_weak(key), msg=key)


JIT_KEYS = ("norm.logpdf", "norm.cdf", "norm.ppf", "norm.logcdf", "gamma.logpdf", "chi2.sf",
            "beta.logpdf", "t.logpdf", "truncnorm.logpdf", "poisson.logpmf", "binom.pmf",
            "multivariate_normal.logpdf", "gumbel_r.logsf", "logistic.cdf", "vonmises.pdf",
            "dirichlet.logpdf", "cauchy.ppf", "expon.cdf")


def test_representative_cases_in_one_jit_match_eager_and_jax():
    cases, wants = _reference()
    first = {}
    for k in cases:   # the first case of each function in JIT_KEYS
        first.setdefault(k.split()[0], k)
    keys = [first[name] for name in JIT_KEYS]
    got = irax.jit(lambda: [_call(ist, cases[k]) for k in keys])()
    for k, g in zip(keys, got):
        check(g, wants[k], weak=_weak(k), msg=f"jit {k}")
        check(g, _call(ist, cases[k]), weak=_weak(k), msg=f"jit vs eager {k}")


def _norm_gamma_t(S, x, loc, scale, a):
    return (S.norm.logpdf(x, loc, scale), S.norm.cdf(x, loc, scale),
            S.gamma.logpdf(x, a, loc, scale), S.gamma.cdf(x, a, loc, scale),
            S.t.logpdf(x, a, loc, scale))


_JAX_NORM_GAMMA_T = jax.jit(functools.partial(_norm_gamma_t, jst))


@settings(max_examples=10, deadline=None)
@given(st.floats(-4, 4), st.floats(0.2, 3), st.floats(0.3, 6), st.integers(0, 2 ** 16))
def test_hypothesis_norm_gamma_t_match_jax(loc, scale, a, seed):
    x = np.random.default_rng(seed).uniform(-5, 8, 5).astype(np.float32)
    want = _JAX_NORM_GAMMA_T(x, loc, scale, a)
    check(_norm_gamma_t(ist, x, loc, scale, a), tuple(want), tol=5e-4, weak=False)


# ---- derivatives and vmap ------------------------------------------------------------------
GRADS = {
    "norm.logpdf": lambda S, x: S.norm.logpdf(x, 0.3, 1.7),
    "norm.cdf": lambda S, x: S.norm.cdf(x, 0.3, 1.7),
    "gamma.logpdf x": lambda S, x: S.gamma.logpdf(x * x + 0.5, 2.5),
    "gamma.logpdf a": lambda S, x: S.gamma.logpdf(1.5, x * x + 0.5),
    "beta.logpdf": lambda S, x: S.beta.logpdf(0.3, x * x + 1.0, 2.0),
    "t.logpdf": lambda S, x: S.t.logpdf(x, 3.0, 0.5, 2.0),
    "poisson.logpmf": lambda S, x: S.poisson.logpmf(3.0, x * x + 1.0),
    "laplace.logpdf": lambda S, x: S.laplace.logpdf(x, 0.1, 2.0),
    "logistic.logpdf": lambda S, x: S.logistic.logpdf(x),
    "gumbel_r.logsf": lambda S, x: S.gumbel_r.logsf(x),
    "multivariate_normal.logpdf": lambda S, x: S.multivariate_normal.logpdf(
        x.reshape(3, 2), np.zeros(2, np.float32), np.array([[2.0, 0.5], [0.5, 1.0]],
                                                            np.float32)),
}


def _jvp_vjp(ad, S, f, x, t):
    """``(jvp, vjp with ones)`` of ``f(S, .)`` at ``x`` with ``ad`` (irax or jax)."""
    y, dy = ad.jvp(lambda v: f(S, v), (x,), (t,))
    (g,) = ad.vjp(lambda v: f(S, v), x)[1](ad.numpy.ones_like(y))
    return dy, g


def test_jvp_and_vjp_match_jax():
    rng = np.random.default_rng(1)
    x = rng.uniform(-1.5, 1.5, 6).astype(np.float32)
    t = rng.standard_normal(6).astype(np.float32)
    wants = jax.jit(lambda: {n: _jvp_vjp(jax, jst, f, x, t) for n, f in GRADS.items()})()
    for name, f in GRADS.items():
        check(_jvp_vjp(irax, ist, f, x, t), tuple(wants[name]), tol=1e-3, msg=name)


def test_logpdf_derivatives_match_finite_differences():
    x = np.linspace(-1.2, 1.3, 6)
    for name in ("norm.logpdf", "t.logpdf", "gamma.logpdf x", "multivariate_normal.logpdf"):
        check_grads(lambda v, f=GRADS[name]: f(ist, v), (x,), order=1, atol=2e-2, rtol=2e-2)


def test_grad_under_jit_matches_jax():
    x = np.linspace(-1.0, 1.0, 4).astype(np.float32)

    def loss(S, v):
        return (S.norm.logpdf(v, 0.2, 1.5) + S.t.logpdf(v, 4.0)).sum()

    check(irax.jit(irax.grad(lambda v: loss(ist, v)))(x), jax.grad(lambda v: loss(jst, v))(x),
          tol=1e-4)


def test_vmap_matches_python_loop():
    rng = np.random.default_rng(2)
    x = rng.uniform(0.1, 3, (3, 4)).astype(np.float32)
    s = rng.uniform(0.5, 2, 3).astype(np.float32)
    cov = np.array([[2.0, 0.5], [0.5, 1.0]], np.float32)
    def f(x, s):
        return (ist.norm.logpdf(x, 0.0, s) + ist.gamma.cdf(x, s)
                + ist.poisson.logpmf(np.arange(4.0), s),
                ist.multivariate_normal.logpdf(x.reshape(2, 2), np.zeros(2, np.float32),
                                               cov * s))

    got = irax.vmap(f)(x, s)
    for i in range(3):
        for g, w in zip(got, f(x[i], s[i])):
            np.testing.assert_allclose(np.asarray(g[i]), np.asarray(w), rtol=1e-5, atol=1e-5)


# ---- mode, rankdata, sem, gaussian_kde -----------------------------------------------------
def _core_cases(rng):
    x = rng.uniform(-3, 3, 6).astype(np.float32)
    w = rng.uniform(0.1, 2, 6).astype(np.float32)
    d2 = rng.standard_normal((2, 7)).astype(np.float32)
    ints = np.array([[1, 2, 2, 4], [3, 3, 1, 4], [1, 2, 1, 4]])
    return {
        "mode": lambda S: S.mode(ints),
        "mode axis 1": lambda S: S.mode(ints, axis=1),
        "mode scalar": lambda S: S.mode(3.0),
        "rankdata": lambda S: S.rankdata(np.array([3.0, 1, 4, 1, 5])),
        "rankdata min": lambda S: S.rankdata(np.array([3, 1, 4, 1, 5]), "min"),
        "rankdata dense": lambda S: S.rankdata(np.array([3, 1, 4, 1, 5]), "dense"),
        "rankdata ordinal": lambda S: S.rankdata(np.array([3, 1, 4, 1, 5]), "ordinal"),
        "rankdata axis": lambda S: S.rankdata(np.array([[3, 1], [4, 1], [5, 9]]), axis=0),
        "rankdata nan": lambda S: S.rankdata(np.array([3.0, np.nan, 1.0])),
        "sem": lambda S: S.sem(x),
        "sem axis": lambda S: S.sem(np.arange(12.0).reshape(3, 4), axis=1, ddof=0,
                                    keepdims=True),
        "sem none": lambda S: S.sem(np.arange(12).reshape(3, 4), axis=None),
        "sem omit": lambda S: S.sem(np.array([1.0, np.nan, 3, 4]), nan_policy="omit"),
        "kde": lambda S: S.gaussian_kde(x).evaluate(np.linspace(-2, 2, 5)),
        "kde 2d logpdf": lambda S: S.gaussian_kde(d2).logpdf(np.zeros((2, 3), np.float32)),
        "kde weights silverman": lambda S: S.gaussian_kde(x, "silverman", weights=w).pdf(
            np.array([0.0, 1.0])),
        "kde fields": lambda S: (lambda k: (k.neff, k.covariance, k.inv_cov, k.weights))(
            S.gaussian_kde(d2)),
        "kde integrate_box_1d": lambda S: S.gaussian_kde(x).integrate_box_1d(-1.0, 1.0),
        "kde integrate_gaussian": lambda S: S.gaussian_kde(x, 0.5).integrate_gaussian(0.5, 2.0),
    }


def test_mode_rankdata_sem_kde_match_jax():
    cases = _core_cases(np.random.default_rng(3))
    wants = jax.jit(lambda: {k: f(jst) for k, f in cases.items()})()
    for key, f in cases.items():
        got, want = f(ist), wants[key]
        if isinstance(got, tuple):
            assert type(got).__name__ == type(want).__name__, key
            got, want = tuple(got), tuple(want)
        check(got, want, tol=1e-4, msg=key)


def test_rankdata_and_sem_under_jit_match_jax():
    x = np.array([3.0, 1.0, 4.0, 1.0, 5.0, 9.0], np.float32)
    f = irax.jit(lambda x: (ist.rankdata(x), ist.rankdata(x, "dense"), ist.sem(x),
                            ist.mode(x)))
    want = (jst.rankdata(x), jst.rankdata(x, "dense"), jst.sem(x), tuple(jst.mode(x)))
    got = f(x)
    check((got[0], got[1], got[2], tuple(got[3])), want)


def test_kde_is_a_pytree_and_resamples_with_shape():
    kde = ist.gaussian_kde(np.array([0.0, 1.0, 3.0], np.float32))
    leaves = irax.tree_util.tree_leaves(kde)
    assert len(leaves) == 5
    sample = kde.resample(irax.random.key(0), (4,))
    assert sample.shape == (1, 4) and sample.dtype == np.float32


# ---- errors ----------------------------------------------------------------------------------
def test_errors_match_jax():
    for fn in (lambda S: S.dirichlet.logpdf(np.ones(2), np.ones((2, 2))),
               lambda S: S.dirichlet.logpdf(np.ones(5), np.ones(3)),
               lambda S: S.multinomial.logpmf(np.ones(3), 3, np.ones(3) / 3),
               lambda S: S.multivariate_normal.logpdf(np.ones(2), np.ones(2), np.eye(3)),
               lambda S: S.multivariate_normal.logpdf(np.ones(2), np.ones(2), np.eye(2),
                                                      allow_singular=True),
               lambda S: S.mode(np.ones(3), nan_policy="omit"),
               lambda S: S.mode(np.ones(3), nan_policy="bad"),
               lambda S: S.rankdata(np.ones(3), method="top"),
               lambda S: S.rankdata(np.ones(3), nan_policy="raise"),
               lambda S: S.sem(np.ones(3), nan_policy="raise"),
               lambda S: S.norm.logpdf([1.0, 2.0]),
               lambda S: S.gaussian_kde(np.ones(1)),
               lambda S: S.gaussian_kde(np.ones(3), bw_method="wide"),
               lambda S: S.gaussian_kde(np.ones(3)).integrate_box(0, 1),
               lambda S: S.gaussian_kde(np.ones((2, 3))).integrate_box_1d(0.0, 1.0)):
        with pytest.raises(Exception) as want:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                fn(jst)
        with pytest.raises(want.type) as got:
            fn(ist)
        assert str(got.value) == str(want.value)
