"""Statistical sanity of every sampler: moments within a few standard errors and a
Kolmogorov-Smirnov distance below its 0.1% critical value (fixed keys: deterministic)."""

import math

import numpy as np
import pytest

import irax.random as R

N = 20000
KEY = R.PRNGKey(2024)


def ks_distance(samples, cdf) -> float:
    x = np.sort(np.asarray(samples, np.float64).ravel())
    n = x.size
    f = np.asarray(cdf(x), np.float64)
    upper = np.arange(1, n + 1) / n - f
    lower = f - np.arange(n) / n
    return float(max(upper.max(), lower.max()))


def assert_ks(samples, cdf):
    n = np.asarray(samples).size
    d = ks_distance(samples, cdf)
    assert d < 1.95 / math.sqrt(n), f"KS distance {d:.4f} for n={n}"


def assert_moments(samples, mean, var, sigmas=5.0):
    x = np.asarray(samples, np.float64).ravel()
    n = x.size
    assert abs(x.mean() - mean) < sigmas * math.sqrt(var / n), (x.mean(), mean)
    if var > 0:
        # the variance of the sample variance, for a rough bound: var^2 * (2 + kurtosis)
        assert abs(x.var() - var) < 0.1 * var + sigmas * var * math.sqrt(8 / n), (x.var(), var)


_phi = np.vectorize(lambda v: 0.5 * (1 + math.erf(v / math.sqrt(2))))

KS_CASES = {
    "uniform": (lambda k: R.uniform(k, (N,)), lambda x: np.clip(x, 0, 1)),
    "uniform_range": (lambda k: R.uniform(k, (N,), minval=-2.0, maxval=3.0),
                      lambda x: np.clip((x + 2) / 5, 0, 1)),
    "normal": (lambda k: R.normal(k, (N,)), _phi),
    "truncated_normal": (lambda k: R.truncated_normal(k, -1.0, 2.0, (N,)),
                         lambda x: (_phi(x) - _phi(-1.0)) / (_phi(2.0) - _phi(-1.0))),
    "exponential": (lambda k: R.exponential(k, (N,)), lambda x: 1 - np.exp(-x)),
    "laplace": (lambda k: R.laplace(k, (N,)),
                lambda x: np.where(x < 0, 0.5 * np.exp(x), 1 - 0.5 * np.exp(-x))),
    "logistic": (lambda k: R.logistic(k, (N,)), lambda x: 1 / (1 + np.exp(-x))),
    "cauchy": (lambda k: R.cauchy(k, (N,)), lambda x: 0.5 + np.arctan(x) / np.pi),
    "gumbel": (lambda k: R.gumbel(k, (N,)), lambda x: np.exp(-np.exp(-x))),
    "gumbel_high": (lambda k: R.gumbel(k, (N,), mode="high"), lambda x: np.exp(-np.exp(-x))),
    "gamma_1": (lambda k: R.gamma(k, 1.0, (5000,)), lambda x: 1 - np.exp(-x)),
    "gamma_small": (lambda k: R.gamma(k, 0.5, (5000,)),  # Gamma(1/2) = chi2(1)/2
                    np.vectorize(lambda v: math.erf(math.sqrt(v)))),
    "loggamma_1": (lambda k: np.exp(R.loggamma(k, 1.0, (5000,))), lambda x: 1 - np.exp(-x)),
    "weibull_min": (lambda k: R.weibull_min(k, 2.0, 1.5, (N,)),
                    lambda x: 1 - np.exp(-(x / 2.0) ** 1.5)),
    "rayleigh": (lambda k: R.rayleigh(k, 2.0, (N,)), lambda x: 1 - np.exp(-x * x / 8.0)),
    "pareto": (lambda k: R.pareto(k, 3.0, (N,)), lambda x: 1 - x ** -3.0),
    "triangular": (lambda k: R.triangular(k, 0.0, 0.3, 1.0, (N,)),
                   lambda x: np.where(x < 0.3, x * x / 0.3, 1 - (1 - x) ** 2 / 0.7)),
    "ball_radius_2d": (lambda k: np.linalg.norm(np.asarray(R.ball(k, 2, 2, (N,))), axis=-1),
                       lambda r: r ** 2),
}


@pytest.mark.parametrize("name", sorted(KS_CASES))
def test_ks(name):
    draw, cdf = KS_CASES[name]
    assert_ks(draw(KEY), cdf)


MOMENT_CASES = {
    "gamma_4.5": (lambda k: R.gamma(k, 4.5, (5000,)), 4.5, 4.5),
    "gamma_0.3": (lambda k: R.gamma(k, 0.3, (5000,)), 0.3, 0.3),
    "beta": (lambda k: R.beta(k, 2.0, 5.0, (5000,)), 2 / 7, 10 / (49 * 8)),
    "t": (lambda k: R.t(k, 5.0, (N,)), 0.0, 5 / 3),
    "chisquare": (lambda k: R.chisquare(k, 3.0, (5000,)), 3.0, 6.0),
    "f": (lambda k: R.f(k, 4.0, 10.0, (5000,)), 10 / 8, 2 * 100 * 12 / (4 * 64 * 6)),
    "poisson_small": (lambda k: R.poisson(k, 0.7, (N,)), 0.7, 0.7),
    "poisson_knuth": (lambda k: R.poisson(k, 4.0, (N,)), 4.0, 4.0),
    "poisson_rejection": (lambda k: R.poisson(k, 25.0, (N,)), 25.0, 25.0),
    "poisson_large": (lambda k: R.poisson(k, 400.0, (5000,)), 400.0, 400.0),
    "bernoulli": (lambda k: R.bernoulli(k, 0.3, (N,)), 0.3, 0.21),
    "bernoulli_high": (lambda k: R.bernoulli(k, 0.3, (N,), mode="high"), 0.3, 0.21),
    "rademacher": (lambda k: R.rademacher(k, (N,)), 0.0, 1.0),
    "randint": (lambda k: R.randint(k, (N,), -3, 7), 1.5, (100 - 1) / 12),
    "geometric": (lambda k: R.geometric(k, 0.25, (N,)), 4.0, 0.75 / 0.0625),
    "lognormal": (lambda k: R.lognormal(k, 0.5, (N,)), math.exp(0.125),
                  (math.exp(0.25) - 1) * math.exp(0.25)),
    "maxwell": (lambda k: R.maxwell(k, (N,)), 2 * math.sqrt(2 / math.pi),
                3 - 8 / math.pi),
    "double_sided_maxwell": (lambda k: R.double_sided_maxwell(k, 1.0, 2.0, (N,)), 1.0, 12.0),
    "wald": (lambda k: R.wald(k, 1.5, (N,)), 1.5, 1.5 ** 3),
    "generalized_normal_2": (lambda k: R.generalized_normal(k, 2.0, (N,)), 0.0, 0.5),
    "normal_complex_real": (lambda k: np.real(R.normal(k, (N,), np.complex64)), 0.0, 0.5),
}


@pytest.mark.parametrize("name", sorted(MOMENT_CASES))
def test_moments(name):
    draw, mean, var = MOMENT_CASES[name]
    assert_moments(draw(KEY), mean, var)


def test_loggamma_tiny_alpha_is_finite():
    x = np.asarray(R.loggamma(KEY, 1e-3, (2000,)))
    assert np.isfinite(x).all() and x.mean() < -100


def test_dirichlet():
    alpha = np.array([0.5, 1.0, 3.0], np.float32)
    x = np.asarray(R.dirichlet(KEY, alpha, (5000,)))
    np.testing.assert_allclose(x.sum(-1), 1.0, rtol=1e-5)
    np.testing.assert_allclose(x.mean(0), alpha / alpha.sum(), atol=0.01)


def _frequencies(values, k):
    return np.bincount(np.asarray(values).ravel(), minlength=k) / np.asarray(values).size


def test_categorical_and_choice_frequencies():
    logits = np.log(np.array([0.1, 0.2, 0.7], np.float32))
    freq = _frequencies(R.categorical(KEY, logits, shape=(N,)), 3)
    np.testing.assert_allclose(freq, [0.1, 0.2, 0.7], atol=0.015)
    p = np.array([0.5, 0.25, 0.125, 0.125], np.float32)
    freq = _frequencies(R.choice(KEY, 4, (N,), p=p), 4)
    np.testing.assert_allclose(freq, p, atol=0.015)
    picks = np.asarray(R.choice(KEY, 10, (8,), replace=False))
    assert len(set(picks.tolist())) == 8 and picks.min() >= 0 and picks.max() < 10
    rows = np.asarray(R.categorical(KEY, np.zeros((6, 50), np.float32), shape=(7, 6),
                                    replace=False))
    assert rows.shape == (7, 6)
    assert all(len(set(rows[:, j].tolist())) == 7 for j in range(6))


def test_permutation_is_uniform():
    keys = R.split(KEY, 3000)
    firsts = [int(np.asarray(R.permutation(k, 5))[0]) for k in np.asarray(keys)[:3000:3]]
    freq = _frequencies(firsts, 5)
    np.testing.assert_allclose(freq, 0.2, atol=0.05)
    p = np.asarray(R.permutation(KEY, 2000))
    np.testing.assert_array_equal(np.sort(p), np.arange(2000))
    x = np.arange(24).reshape(4, 6)
    shuffled = np.asarray(R.permutation(KEY, x, axis=1, independent=True))
    np.testing.assert_array_equal(np.sort(shuffled, axis=1), x)


def test_multivariate_normal_covariance():
    cov = np.array([[2.0, 0.6], [0.6, 1.0]], np.float32)
    mean = np.array([1.0, -2.0], np.float32)
    for method in ("cholesky", "eigh", "svd"):
        x = np.asarray(R.multivariate_normal(KEY, mean, cov, (N,), method=method))
        np.testing.assert_allclose(x.mean(0), mean, atol=0.05)
        np.testing.assert_allclose(np.cov(x.T), cov, atol=0.06)


def test_orthogonal_and_ball():
    q = np.asarray(R.orthogonal(KEY, 5, (10,)), np.float64)
    np.testing.assert_allclose(q @ np.swapaxes(q, -1, -2), np.broadcast_to(np.eye(5), q.shape),
                               atol=1e-5)
    w = np.asarray(R.orthogonal(KEY, 3, m=6), np.float64)
    np.testing.assert_allclose(w @ w.T, np.eye(3), atol=1e-5)
    b = np.asarray(R.ball(KEY, 4, 1.0, (2000,)))
    assert (np.abs(b).sum(-1) <= 1 + 1e-6).all()
