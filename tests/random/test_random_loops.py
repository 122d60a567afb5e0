"""The looping samplers (the gamma family on Marsaglia-Tsang, poisson's Knuth and PTRS
loops) against real JAX (skipped without jax): eagerly, under one irax.jit with traced
parameters, under vmap, in x64; the implicit-reparameterization gradient of gamma; gumbel's
modes; and multivariate_normal's Jacobi eigh factor for a traced covariance.

IREE compiles cost seconds each, so every test compiles at most one function, holding all
of its cases."""

import functools

import numpy as np
import pytest

import irax
import irax.numpy as jnp
import irax.random as R
from irax.config import config
from irax.random._matrix import eigh

jax = pytest.importorskip("jax")
jr = jax.random
stats = pytest.importorskip("scipy.stats")

FLOAT = dict(rtol=1e-5, atol=1e-5)
# alpha < 1 (boosted), around 1, large; tiny alphas give samples near 0 (atol covers
# XLA's flushing of subnormal samples to 0)
ALPHAS = np.array([0.01, 0.3, 0.999, 1.0, 1.5, 7.0, 30.0, 1000.0], np.float32)
# zero, NaN (JAX gives -1), Knuth (< 10) and rejection (>= 10). Counts are bit-exact up to
# lam ~ 1e3; beyond, rare acceptance tests turn on the last bit of XLA's float32 log
LAMS = np.array([0.0, 0.1, 3.0, 9.99, 10.0, 25.0, 1000.0, np.nan], np.float32)
DIRICHLET = np.array([0.2, 1.0, 4.0], np.float32)
SEEDS = (0, 7)


def draw(r, key, alphas, lams):
    """The looping samplers (t, chisquare, f, ball, ... wrap the same gamma loops and are
    checked eagerly in test_random_vs_jax); ``alphas``/``lams`` are traced under jit."""
    return {
        "gamma": r.gamma(key, alphas, (600, 8)),
        "loggamma": r.loggamma(key, alphas, (30, 8)),
        "poisson": r.poisson(key, lams, (40, 8)),
        "beta": r.beta(key, alphas, alphas[::-1], (30, 8)),
        "dirichlet": r.dirichlet(key, alphas[4] * DIRICHLET, (20,)),
    }


def assert_draws(got, want, what):
    assert set(got) == set(want)
    for n in want:
        g = np.asarray(got[n])
        assert g.shape == want[n].shape and g.dtype == want[n].dtype, (what, n)
        if n == "poisson":
            np.testing.assert_array_equal(g, want[n], err_msg=f"{what} {n}")
        else:
            np.testing.assert_allclose(g, want[n], **FLOAT, err_msg=f"{what} {n}")


@pytest.fixture
def x64():
    saved = jax.config.jax_enable_x64, config.jax_enable_x64
    jax.config.update("jax_enable_x64", True)
    config.update("jax_enable_x64", True)
    yield
    jax.config.update("jax_enable_x64", saved[0])
    config.update("jax_enable_x64", saved[1])


def test_loops_match_jax_eager_and_jit():
    want = jax.jit(functools.partial(draw, jr))           # one compile each side
    compiled = irax.jit(functools.partial(draw, R))
    for seed in SEEDS:
        expected = {n: np.asarray(v)
                    for n, v in want(jr.PRNGKey(seed), ALPHAS, LAMS).items()}
        assert_draws(draw(R, R.PRNGKey(seed), ALPHAS, LAMS), expected, f"eager seed={seed}")
        got = compiled(R.PRNGKey(seed), ALPHAS, LAMS)
        assert_draws(got, expected, f"jit seed={seed}")
    # the jitted samples have the right law, too (one column per alpha)
    gamma = np.asarray(got["gamma"], np.float64)
    for j in (1, 3, 5):
        d = stats.kstest(gamma[:, j], stats.gamma(ALPHAS[j]).cdf).statistic
        assert d < 1.95 / np.sqrt(gamma.shape[0]), (ALPHAS[j], d)


def test_loops_vmap_over_keys_match_jax():
    def small(r, k):
        return [r.gamma(k, ALPHAS[:5], (3, 5)), r.loggamma(k, 0.5, (4,)),
                r.poisson(k, LAMS[:6], (2, 6))]

    keys = R.split(R.PRNGKey(3), 4)
    want = jax.vmap(functools.partial(small, jr))(jr.split(jr.PRNGKey(3), 4))
    got = irax.jit(irax.vmap(functools.partial(small, R)))(keys)
    for i, (g, w) in enumerate(zip(got, want)):
        if i == 2:
            np.testing.assert_array_equal(np.asarray(g), np.asarray(w))
        else:
            np.testing.assert_allclose(np.asarray(g), np.asarray(w), **FLOAT, err_msg=str(i))


def test_loops_x64_match_jax(x64):
    def wide(r, k, alphas, lams):
        return [r.gamma(k, alphas, (20, 8)), r.poisson(k, lams, (20, 8))]

    alphas, lams = ALPHAS.astype(np.float64), LAMS.astype(np.float64)
    want = wide(jr, jr.PRNGKey(5), alphas, lams)
    eager = wide(R, R.PRNGKey(5), alphas, lams)
    jitted = irax.jit(functools.partial(wide, R))(R.PRNGKey(5), alphas, lams)
    for got, what in ((eager, "eager"), (jitted, "jit")):
        for i, (g, w) in enumerate(zip(got, want)):
            g, w = np.asarray(g), np.asarray(w)
            assert g.dtype == w.dtype == (np.int64 if i == 1 else np.float64)
            np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-300, err_msg=f"{what} {i}")


def test_gamma_gradient_matches_jax():
    """JAX differentiates gamma samples implicitly (random_gamma_grad), not through the
    rejection loop; irax does the same, eagerly, under jit, in forward and reverse mode."""
    alphas = np.array([0.01, 0.3, 1.0, 2.5, 10.0, 50.0], np.float32)

    def loss(r, k, a, b):
        return (r.gamma(k, a, (8, 6)).sum() + r.loggamma(k, a, (8, 6)).sum()
                + r.beta(k, b, 2.0, (5,)).sum())

    want = jax.grad(functools.partial(loss, jr, jr.PRNGKey(3)), argnums=(0, 1))(
        alphas, np.float32(0.7))
    got = irax.grad(functools.partial(loss, R, R.PRNGKey(3)), argnums=(0, 1))(
        alphas, np.float32(0.7))
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=2e-4)
    # under jit: one sampler (each adds two loops, and its derivative two more)
    got = irax.jit(irax.grad(lambda a: R.loggamma(R.PRNGKey(3), a, (8, 6)).sum()))(alphas)
    want = jax.grad(lambda a: jr.loggamma(jr.PRNGKey(3), a, (8, 6)).sum())(alphas)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=2e-4)
    tangent = irax.jvp(lambda a: R.gamma(R.PRNGKey(3), a), (alphas,), (np.ones_like(alphas),))
    want_t = jax.jvp(lambda a: jr.gamma(jr.PRNGKey(3), a), (alphas,), (np.ones_like(alphas),))
    np.testing.assert_allclose(np.asarray(tangent[1]), np.asarray(want_t[1]), rtol=2e-4)


def test_gumbel_modes_match_jax():
    logits = np.log(np.array([[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]], np.float32))
    p = np.array([0.1, 0.2, 0.3, 0.2, 0.2], np.float32)

    def modes(r, k):
        return {"high": r.gumbel(k, (500,), mode="high"),
                "highest": r.gumbel(k, (500,), mode="highest"),
                "highest_bf16": r.gumbel(k, (50,), jax.numpy.bfloat16, mode="highest"),
                "low": r.gumbel(k, (50,), mode="low"),
                "categorical": r.categorical(k, logits, shape=(40, 2), mode="high"),
                "categorical_noreplace": r.categorical(
                    k, np.arange(8, dtype=np.float32), shape=(3,), replace=False,
                    mode="high"),
                "choice": r.choice(k, 5, (3,), replace=False, p=p, mode="highest")}

    jitted = irax.jit(functools.partial(modes, R))
    for seed in SEEDS:
        want = modes(jr, jr.PRNGKey(seed))
        for what, got in (("eager", modes(R, R.PRNGKey(seed))),
                          ("jit", jitted(R.PRNGKey(seed)))):
            for n, w in want.items():
                g, w = np.asarray(got[n]), np.asarray(w)
                assert g.dtype == w.dtype, n
                if g.dtype.kind == "i":
                    np.testing.assert_array_equal(g, w, err_msg=f"{what} {n}")
                else:
                    # bfloat16: XLA and IREE round float32 intermediates differently
                    tol = 2e-2 if n == "highest_bf16" else 1e-5
                    np.testing.assert_allclose(g.astype(np.float32), w.astype(np.float32),
                                               rtol=tol, atol=tol, err_msg=f"{what} {n}")


def test_gumbel_default_mode_follows_config():
    saved = config.jax_high_dynamic_range_gumbel
    key = R.PRNGKey(1)
    try:
        config.update("jax_high_dynamic_range_gumbel", True)
        np.testing.assert_array_equal(np.asarray(R.gumbel(key, (20,))),
                                      np.asarray(R.gumbel(key, (20,), mode="high")))
    finally:
        config.update("jax_high_dynamic_range_gumbel", saved)
    np.testing.assert_array_equal(np.asarray(R.gumbel(key, (20,))),
                                  np.asarray(R.gumbel(key, (20,), mode="low")))
    for bad in ("x", "HIGH"):
        with pytest.raises(ValueError, match="Must provide valid mode for gumbel got"):
            R.gumbel(key, mode=bad)
        with pytest.raises(ValueError, match="Must provide valid mode for gumbel got"):
            R.categorical(key, np.zeros(3, np.float32), mode=bad)


def test_gumbel_highest_tail():
    """mode='highest' resolves the far lower tail: draws below -log(-log(2**-24)) ~ 2.8."""
    x = np.asarray(R.gumbel(R.PRNGKey(2), (20000,), mode="highest"), np.float64)
    d = stats.kstest(x, stats.gumbel_r.cdf).statistic
    assert d < 1.95 / np.sqrt(x.size)


COV = np.array([[2.0, 0.5, 0.1], [0.5, 1.0, 0.2], [0.1, 0.2, 0.5]], np.float32)


def _degenerate(n):
    """A symmetric matrix with repeated eigenvalues and a zero one."""
    q = np.linalg.qr(np.sin(np.arange(n * n, dtype=np.float64).reshape(n, n)) + np.eye(n))[0]
    return (q * (np.arange(n) // 2)) @ q.T


def test_eigh_under_jit_and_vmap():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(3, 5, 5)).astype(np.float32)
    mats = x @ np.swapaxes(x, -1, -2) / 5
    mats = np.concatenate([mats, _degenerate(5)[None]], 0).astype(np.float32)

    def both(a):
        return eigh(a), irax.vmap(eigh)(a), eigh(COV)

    batched, mapped, single = irax.jit(both)(mats)
    for (w, v), a in ((batched, mats), (mapped, mats), (single, COV)):
        w, v = np.asarray(w, np.float64), np.asarray(v, np.float64)
        assert np.all(np.diff(w, axis=-1) >= 0)
        np.testing.assert_allclose(w, np.linalg.eigvalsh(a.astype(np.float64)), atol=1e-5)
        rebuilt = v @ (w[..., :, None] * np.swapaxes(v, -1, -2))
        np.testing.assert_allclose(rebuilt, a, atol=1e-5)
        np.testing.assert_allclose(np.swapaxes(v, -1, -2) @ v,
                                   np.broadcast_to(np.eye(a.shape[-1]), v.shape), atol=1e-5)


def test_multivariate_normal_traced_eigh_svd():
    """A traced covariance: the Jacobi factor may flip eigenvector signs against LAPACK's,
    so the samples match JAX in distribution, not value for value."""
    mean = np.array([1.0, -1.0, 0.5], np.float32)
    n = 20000

    def draws(k, c):
        return [R.multivariate_normal(k, mean, c, (n,), method=m) for m in ("eigh", "svd")]

    for x in irax.jit(draws)(R.PRNGKey(0), COV):
        x = np.asarray(x, np.float64)
        np.testing.assert_allclose(x.mean(0), mean, atol=0.04)
        # standard error of a covariance entry is about sqrt(2) * 2 / sqrt(n) = 0.02
        np.testing.assert_allclose(np.cov(x.T), COV, atol=0.08)
    for method in ("eigh", "svd"):  # a concrete covariance still gives JAX's values
        np.testing.assert_allclose(
            np.asarray(R.multivariate_normal(R.PRNGKey(1), mean, COV, (5,), method=method)),
            np.asarray(jr.multivariate_normal(jr.PRNGKey(1), mean, COV, (5,), method=method)),
            rtol=1e-4, atol=2e-5)


def test_no_rejection_budget():
    """Loops run as long as JAX's: tiny alphas and rates near the algorithms' switch are
    exact for many elements at once (a fixed budget would show NaN or -1)."""
    key = R.PRNGKey(11)
    g = np.asarray(R.loggamma(key, jnp.full((3000,), 1e-3)))
    assert np.isfinite(g).all()
    p = np.asarray(R.poisson(key, 9.999, (3000,)))
    np.testing.assert_array_equal(p, np.asarray(jr.poisson(jr.PRNGKey(11), 9.999, (3000,))))
    assert p.min() >= 0 and p.max() > 20
