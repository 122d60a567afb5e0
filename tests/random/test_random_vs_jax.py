"""irax.random against real jax.random (skipped without jax): keys, splits and bits
bit-identical, floats to tolerance, eagerly, under irax.jit, in legacy mode and in x64."""

import numpy as np
import pytest

import irax
import irax.random as R

jax = pytest.importorskip("jax")
jr = jax.random

EXACT = None
ULP = (1e-6, 1e-6)        # a few float32 ulps (normal: log1p differs between XLA and NumPy)
FLOAT = (1e-5, 1e-5)      # transcendental-heavy transforms (erf, log(-log), gamma family)
LINALG = (1e-4, 2e-5)     # factorizations computed differently from LAPACK

_COV = np.array([[2.0, 0.5, 0.1], [0.5, 1.0, 0.2], [0.1, 0.2, 0.5]], np.float32)
_LOGITS = np.log(np.array([[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]], np.float32))
_ALPHAS = np.array([0.3, 1.0, 2.5, 10.0], np.float32)
_LAMS = np.array([0.0, 0.5, 3.0, 9.9, 10.0, 50.0, 1000.0], np.float32)
_P = np.array([0.125, 0.25, 0.5, 0.125], np.float32)

# name -> (draw(random_module, key), tolerance); every public sampler appears
CASES = {
    "split": (lambda r, k: r.split(k, (2, 3)), EXACT),
    "fold_in": (lambda r, k: r.fold_in(k, 123456789), EXACT),
    "bits32": (lambda r, k: r.bits(k, (7,)), EXACT),
    "bits8": (lambda r, k: r.bits(k, (33,), np.uint8), EXACT),
    "bits16": (lambda r, k: r.bits(k, (2, 5), np.uint16), EXACT),
    "uniform": (lambda r, k: r.uniform(k, (300,)), EXACT),
    "uniform_range": (lambda r, k: r.uniform(k, (300,), minval=-3.3, maxval=7.1), EXACT),
    "uniform_f16": (lambda r, k: r.uniform(k, (50,), np.float16), EXACT),
    "uniform_bf16": (lambda r, k: r.uniform(k, (50,), jax.numpy.bfloat16), EXACT),
    "normal": (lambda r, k: r.normal(k, (300,)), ULP),
    "normal_complex": (lambda r, k: r.normal(k, (20,), np.complex64), ULP),
    "truncated_normal": (lambda r, k: r.truncated_normal(k, -1.5, 2.0, (300,)), FLOAT),
    "randint": (lambda r, k: r.randint(k, (300,), -5, 17), EXACT),
    "randint_full": (lambda r, k: r.randint(k, (50,), -2 ** 31, 2 ** 31 - 1), EXACT),
    "randint_uint8": (lambda r, k: r.randint(k, (50,), 0, 256, np.uint8), EXACT),
    "randint_int8": (lambda r, k: r.randint(k, (50,), -100, 300, np.int8), EXACT),
    "randint_array_bounds": (lambda r, k: r.randint(k, (2, 3), np.array([0, 5, 9]),
                                                    np.array([3, 5, 100])), EXACT),
    "bernoulli": (lambda r, k: r.bernoulli(k, 0.3, (300,)), EXACT),
    "bernoulli_high": (lambda r, k: r.bernoulli(k, np.float32(1e-3), (50,), mode="high"),
                       EXACT),
    "exponential": (lambda r, k: r.exponential(k, (300,)), ULP),
    "gumbel": (lambda r, k: r.gumbel(k, (300,)), FLOAT),
    "gumbel_high": (lambda r, k: r.gumbel(k, (100,), mode="high"), FLOAT),
    "laplace": (lambda r, k: r.laplace(k, (300,)), ULP),
    "logistic": (lambda r, k: r.logistic(k, (300,)), FLOAT),
    "cauchy": (lambda r, k: r.cauchy(k, (300,)), FLOAT),
    "rademacher": (lambda r, k: r.rademacher(k, (50,)), EXACT),
    "gamma": (lambda r, k: r.gamma(k, _ALPHAS, (50, 4)), FLOAT),
    "loggamma": (lambda r, k: r.loggamma(k, _ALPHAS, (50, 4)), FLOAT),
    "beta": (lambda r, k: r.beta(k, 0.5, 2.0, (100,)), FLOAT),
    "dirichlet": (lambda r, k: r.dirichlet(k, np.array([0.5, 1.0, 3.0], np.float32), (50,)),
                  FLOAT),
    "poisson": (lambda r, k: r.poisson(k, _LAMS, (30, 7)), EXACT),
    "t": (lambda r, k: r.t(k, 3.0, (100,)), FLOAT),
    "chisquare": (lambda r, k: r.chisquare(k, 3.0, (100,)), FLOAT),
    "f": (lambda r, k: r.f(k, 3.0, 5.0, (50,)), FLOAT),
    "categorical": (lambda r, k: r.categorical(k, _LOGITS, shape=(40, 2)), EXACT),
    "categorical_axis0": (lambda r, k: r.categorical(k, np.zeros((4, 3), np.float32), axis=0),
                          EXACT),
    "categorical_noreplace": (lambda r, k: r.categorical(
        k, np.arange(20, dtype=np.float32) / 5, shape=(5,), replace=False), EXACT),
    "choice": (lambda r, k: r.choice(k, 10, (20,)), EXACT),
    "choice_noreplace": (lambda r, k: r.choice(k, 10, (5,), replace=False), EXACT),
    "choice_p": (lambda r, k: r.choice(k, np.arange(4) * 10, (30,), p=_P), EXACT),
    "choice_p_noreplace": (lambda r, k: r.choice(
        k, 5, (3,), replace=False, p=np.array([0.1, 0.2, 0.3, 0.2, 0.2], np.float32)), EXACT),
    "choice_axis": (lambda r, k: r.choice(k, np.arange(12).reshape(3, 4), (2,), axis=1),
                    EXACT),
    "permutation": (lambda r, k: r.permutation(k, 20), EXACT),
    "permutation_two_rounds": (lambda r, k: r.permutation(k, 1700), EXACT),
    "permutation_array": (lambda r, k: r.permutation(k, np.arange(12).reshape(3, 4), axis=1),
                          EXACT),
    "permutation_independent": (lambda r, k: r.permutation(
        k, np.arange(12).reshape(3, 4), axis=1, independent=True), EXACT),
    "multivariate_normal": (lambda r, k: r.multivariate_normal(
        k, np.zeros(3, np.float32), _COV, (50,)), LINALG),
    "multivariate_normal_eigh": (lambda r, k: r.multivariate_normal(
        k, np.ones(3, np.float32), _COV, (20,), method="eigh"), LINALG),
    "multivariate_normal_svd": (lambda r, k: r.multivariate_normal(
        k, np.ones(3, np.float32), _COV, (20,), method="svd"), LINALG),
    "orthogonal": (lambda r, k: r.orthogonal(k, 4, (3,)), LINALG),
    "orthogonal_wide": (lambda r, k: r.orthogonal(k, 3, (), m=5), LINALG),
    "ball": (lambda r, k: r.ball(k, 3, 2, (50,)), FLOAT),
    "ball_p1": (lambda r, k: r.ball(k, 3, 1.0, (50,)), FLOAT),
    "generalized_normal": (lambda r, k: r.generalized_normal(k, 3.0, (50,)), FLOAT),
    "pareto": (lambda r, k: r.pareto(k, 2.0, (50,)), FLOAT),
    "weibull_min": (lambda r, k: r.weibull_min(k, 2.0, 1.5, (50,)), FLOAT),
    "rayleigh": (lambda r, k: r.rayleigh(k, 2.0, (50,)), FLOAT),
    "lognormal": (lambda r, k: r.lognormal(k, 0.5, (50,)), FLOAT),
    "maxwell": (lambda r, k: r.maxwell(k, (50,)), FLOAT),
    "double_sided_maxwell": (lambda r, k: r.double_sided_maxwell(k, 1.0, 2.0, (50,)), FLOAT),
    "wald": (lambda r, k: r.wald(k, 1.5, (50,)), FLOAT),
    "triangular": (lambda r, k: r.triangular(k, 0.0, 0.3, 1.0, (50,)), FLOAT),
    "geometric": (lambda r, k: r.geometric(k, 0.3, (50,)), EXACT),
}

LEGACY = ["split", "fold_in", "bits32", "bits8", "bits16", "uniform", "uniform_range",
          "normal", "randint", "randint_uint8", "bernoulli_high", "gumbel", "gamma",
          "loggamma", "poisson", "categorical_noreplace", "choice_p", "permutation",
          "permutation_two_rounds", "dirichlet", "ball"]

# cheap to compile: one irax.jit holds all of them (the looping samplers are jitted in
# test_random_loops.py)
JIT_CHEAP = [n for n in CASES if n not in (
    "gamma", "loggamma", "beta", "dirichlet", "poisson", "t", "chisquare", "f", "ball",
    "ball_p1", "generalized_normal", "permutation_two_rounds", "multivariate_normal_eigh",
    "multivariate_normal_svd")]

SEEDS = (0, 1, 42)


def assert_matches(got, want, tol, what):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, f"{what}: shape {got.shape} != {want.shape}"
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype} != {want.dtype}"
    if tol is EXACT:
        np.testing.assert_array_equal(got, want, err_msg=what)
        return
    rtol, atol = tol
    if got.dtype.name == "bfloat16" or got.dtype.kind == "f" and got.itemsize == 2:
        got, want = got.astype(np.float32), want.astype(np.float32)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, equal_nan=True, err_msg=what)


@pytest.mark.parametrize("name", sorted(CASES))
def test_eager_matches_jax(jax_config, name):
    jax_config(jax_threefry_partitionable=True)
    draw, tol = CASES[name]
    for seed in SEEDS:
        assert_matches(draw(R, R.PRNGKey(seed)), draw(jr, jr.PRNGKey(seed)), tol,
                       f"{name} seed={seed}")


@pytest.mark.parametrize("name", LEGACY)
def test_legacy_mode_matches_jax(jax_config, name):
    jax_config(jax_threefry_partitionable=False)
    draw, tol = CASES[name]
    for seed in SEEDS[:2]:
        assert_matches(draw(R, R.PRNGKey(seed)), draw(jr, jr.PRNGKey(seed)), tol,
                       f"{name} seed={seed} (legacy)")


def test_typed_keys_match_jax(jax_config):
    jax_config(jax_threefry_partitionable=True)
    k, kj = R.key(5), jr.key(5)
    np.testing.assert_array_equal(np.asarray(R.key_data(R.split(k, 3))),
                                  np.asarray(jr.key_data(jr.split(kj, 3))))
    np.testing.assert_array_equal(np.asarray(R.key_data(R.fold_in(k, 9))),
                                  np.asarray(jr.key_data(jr.fold_in(kj, 9))))
    assert_matches(R.normal(k, (5,)), jr.normal(kj, (5,)), ULP, "typed normal")


def test_jit_matches_jax(jax_config):
    jax_config(jax_threefry_partitionable=True)
    names = JIT_CHEAP

    def draw_all(key):
        return {n: CASES[n][0](R, key) for n in names}

    compiled = irax.jit(draw_all)
    for seed in SEEDS[:2]:
        got = compiled(R.PRNGKey(seed))
        for n in names:
            draw, tol = CASES[n]
            assert_matches(got[n], draw(jr, jr.PRNGKey(seed)), tol, f"jit {n} seed={seed}")


X64_CASES = {
    "bits64": (lambda r, k: r.bits(k, (5,), np.uint64), EXACT),
    "uniform64": (lambda r, k: r.uniform(k, (200,)), EXACT),
    "uniform64_range": (lambda r, k: r.uniform(k, (200,), minval=-1.5, maxval=3.0), EXACT),
    "normal64": (lambda r, k: r.normal(k, (200,)), (1e-13, 1e-14)),
    "normal128": (lambda r, k: r.normal(k, (10,), np.complex128), (1e-13, 1e-14)),
    "randint64": (lambda r, k: r.randint(k, (100,), -10 ** 12, 10 ** 12), EXACT),
    "truncated_normal64": (lambda r, k: r.truncated_normal(k, -2.0, 1.0, (100,)),
                           (1e-12, 1e-13)),
    "gamma64": (lambda r, k: r.gamma(k, 0.7, (50,)), (1e-12, 1e-13)),
    "poisson64": (lambda r, k: r.poisson(k, 20.0, (50,)), EXACT),
    "cauchy64": (lambda r, k: r.cauchy(k, (100,)), (1e-13, 1e-13)),
    "permutation64": (lambda r, k: r.permutation(k, 30), EXACT),
}


@pytest.mark.parametrize("partitionable", [True, False], ids=["partitionable", "legacy"])
def test_x64_matches_jax(jax_config, partitionable):
    jax_config(jax_enable_x64=True, jax_threefry_partitionable=partitionable)
    for seed in (0, 2 ** 40 + 3, -2):
        np.testing.assert_array_equal(np.asarray(R.PRNGKey(seed)),
                                      np.asarray(jr.PRNGKey(seed)))
    for n, (draw, tol) in X64_CASES.items():
        assert_matches(draw(R, R.PRNGKey(7)), draw(jr, jr.PRNGKey(7)), tol, n)


def test_vmap_over_keys_matches_jax(jax_config):
    jax_config(jax_threefry_partitionable=True)
    keys = R.split(R.PRNGKey(2), 4)
    keys_j = jr.split(jr.PRNGKey(2), 4)
    names = ("normal", "uniform_range", "randint", "permutation", "categorical")
    got = irax.jit(irax.vmap(lambda k: [CASES[n][0](R, k) for n in names]))(keys)
    want = jax.vmap(lambda k: [CASES[n][0](jr, k) for n in names])(keys_j)
    for n, g, w in zip(names, got, want):
        assert_matches(g, w, CASES[n][1], f"vmap {n}")
