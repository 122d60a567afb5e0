"""Keys: seeding, typed keys, split/fold_in shapes, errors, vmap over keys (without jax)."""

import warnings

import numpy as np
import pytest

import irax
import irax.numpy as jnp
import irax.random as R

# seed -> (x32 key, x64 key): jax-semantics.md section 1.3
SEEDS = {
    0: ([0, 0], [0, 0]),
    42: ([0, 42], [0, 42]),
    2 ** 31: ([0, 2147483648], [0, 2147483648]),
    2 ** 32 + 5: ([0, 5], [1, 5]),
    2 ** 40 + 3: ([0, 3], [256, 3]),
    -1: ([0, 4294967295], [4294967295, 4294967295]),
    -2: ([0, 4294967294], [4294967295, 4294967294]),
    2 ** 63 - 1: ([0, 4294967295], [2147483647, 4294967295]),
}


@pytest.mark.parametrize("seed", sorted(SEEDS))
def test_seeding_x32(seed):
    np.testing.assert_array_equal(np.asarray(R.PRNGKey(seed)), SEEDS[seed][0])
    np.testing.assert_array_equal(np.asarray(R.key_data(R.key(seed))), SEEDS[seed][0])


@pytest.mark.parametrize("seed", sorted(SEEDS))
def test_seeding_x64(x64, seed):
    np.testing.assert_array_equal(np.asarray(R.PRNGKey(seed)), SEEDS[seed][1])


def test_seeding_traced_and_numpy_scalars():
    np.testing.assert_array_equal(np.asarray(R.PRNGKey(np.uint32(7))), [0, 7])
    seeded = irax.jit(R.PRNGKey)
    np.testing.assert_array_equal(np.asarray(seeded(np.int32(-2))), [0, 4294967294])
    keys = irax.vmap(R.PRNGKey)(jnp.arange(3))
    np.testing.assert_array_equal(np.asarray(keys), [[0, 0], [0, 1], [0, 2]])


def test_seed_errors():
    with pytest.raises(OverflowError, match="Python int too large to convert to C long"):
        R.PRNGKey(2 ** 64)
    with pytest.raises(TypeError, match="irax.random.PRNGKey: PRNG key seed must be an integer"):
        R.PRNGKey(1.5)
    with pytest.raises(TypeError, match="irax.random.key: PRNG key seed must be an integer"):
        R.key(jnp.float32(1.0))
    with pytest.raises(TypeError, match=r"accepts a scalar seed, but was given an array of "
                                        r"shape \(2,\)"):
        R.PRNGKey(np.arange(2))
    with pytest.raises(TypeError, match="was given a PRNG key"):
        R.key(R.key(0))


def test_typed_keys_round_trip():
    k = R.key(42)
    assert k.shape == () and str(k.dtype) == "key<fry>" and k.ndim == 0
    data = R.key_data(k)
    np.testing.assert_array_equal(np.asarray(data), [0, 42])
    again = R.wrap_key_data(data)
    assert bool(again == k)
    ks = R.split(k, (2, 3))
    assert ks.shape == (2, 3) and R.key_data(ks).shape == (2, 3, 2)
    assert R.split(R.PRNGKey(42), (2, 3)).shape == (2, 3, 2)
    assert ks[1, 2].shape == () and len(ks) == 2 and ks.reshape(6).shape == (6,)
    np.testing.assert_array_equal(np.asarray(R.key_data(ks[1, 2])),
                                  np.asarray(R.split(R.PRNGKey(42), (2, 3)))[1, 2])
    assert "key<fry>" in repr(k) and R.key_impl(k) == "threefry2x32"


def test_typed_and_raw_keys_sample_alike():
    typed, raw = R.key(7), R.PRNGKey(7)
    for fn in (lambda k: R.normal(k, (4,)), lambda k: R.randint(k, (4,), 0, 9),
               lambda k: R.gamma(k, 2.0, (3,)), lambda k: R.permutation(k, 6),
               lambda k: R.key_data(R.fold_in(k, 3))):
        np.testing.assert_array_equal(np.asarray(fn(typed)), np.asarray(fn(raw)))


def test_typed_keys_through_jit_and_vmap():
    k = R.key(5)
    ks, x = irax.jit(lambda k: (R.split(k, 3), R.normal(k, (2,))))(k)
    assert isinstance(ks, R.KeyArray) and ks.shape == (3,)
    np.testing.assert_array_equal(np.asarray(R.key_data(ks)),
                                  np.asarray(R.key_data(R.split(k, 3))))
    np.testing.assert_array_equal(np.asarray(x), np.asarray(R.normal(k, (2,))))
    out = irax.vmap(lambda k: R.uniform(k, (2,)))(R.split(k, 4))
    want = np.stack([np.asarray(R.uniform(kk, (2,))) for kk in R.split(k, 4)])
    np.testing.assert_array_equal(np.asarray(out), want)


def test_split_is_fold_in_of_the_index():
    key = R.PRNGKey(11)
    keys = np.asarray(R.split(key, 5))
    for i in range(5):
        np.testing.assert_array_equal(keys[i], np.asarray(R.fold_in(key, i)))


def test_fold_in_data_conversion():
    key = R.PRNGKey(3)
    np.testing.assert_array_equal(np.asarray(R.fold_in(key, 1.5)),
                                  np.asarray(R.fold_in(key, 1)))
    np.testing.assert_array_equal(np.asarray(R.fold_in(key, jnp.int32(-1))),
                                  np.asarray(R.fold_in(key, 2 ** 32 - 1)))
    with pytest.raises(OverflowError, match="Python integer -1 out of bounds for uint32"):
        R.fold_in(key, -1)
    with pytest.raises(TypeError, match="fold_in accepts a scalar"):
        R.fold_in(key, np.arange(2))


def test_invalid_keys():
    with pytest.raises(TypeError, match=r"irax.random.normal: encountered invalid PRNG key "
                                        r"data: expected key_data.shape to end with \(2,\); "
                                        r"got shape=\(3,\)"):
        R.normal(np.zeros(3, np.uint32), (2,))
    with pytest.raises(TypeError, match="expected key_data.dtype = uint32; got dtype=float32"):
        R.uniform(np.zeros(2, np.float32))
    with pytest.raises(TypeError, match="expected key_data to have ndim, shape, and dtype"):
        R.split(3)
    with pytest.raises(TypeError, match="unexpected PRNG key type"):
        R.split([0, 0])
    with pytest.raises(ValueError, match=r"irax.random.normal accepts a single key, but was "
                                         r"given a key array of shape \(2, 2\)"):
        R.normal(R.split(R.PRNGKey(0)), (2,))


def test_argument_errors():
    key = R.PRNGKey(0)
    with pytest.raises(ValueError, match="irax.random.uniform: dtype argument to `uniform` "
                                         "must be a float dtype, got int32"):
        R.uniform(key, (2,), dtype=jnp.int32)
    with pytest.raises(ValueError, match="irax.random.normal: dtype argument"):
        R.normal(key, (2,), dtype=jnp.int32)
    with pytest.raises(ValueError, match="irax.random.uniform: parameter shapes"):
        R.uniform(key, (2,), minval=jnp.zeros(3))
    with pytest.raises(ValueError, match="irax.random.gamma: parameter shapes"):
        R.gamma(key, jnp.ones(3), (2,))
    with pytest.raises(TypeError, match="irax.random.randint: randint only accepts integer"):
        R.randint(key, (3,), 0, 5, dtype=jnp.float32)
    with pytest.raises(TypeError, match="irax.random.bernoulli: bernoulli probability"):
        R.bernoulli(key, 1, (2,))
    with pytest.raises(ValueError, match="irax.random.bernoulli: got mode="):
        R.bernoulli(key, 0.5, mode="mid")
    with pytest.raises(ValueError, match="irax.random.choice: Cannot take a larger sample"):
        R.choice(key, 3, (5,), replace=False)
    with pytest.raises(ValueError, match="irax.random.categorical: Number of samples"):
        R.categorical(key, jnp.zeros(3), shape=(4,), replace=False)
    with pytest.raises(ValueError, match="irax.random.bits: dtype argument"):
        R.bits(key, (2,), np.int32)
    with pytest.raises(ValueError, match="irax.random.gumbel: Must provide valid mode"):
        R.gumbel(key, mode="x")
    with pytest.raises(ValueError, match=r"requires cov.shape == \(..., n, n\) for n=2"):
        R.multivariate_normal(key, jnp.zeros(2), jnp.eye(3))
    with pytest.raises(ValueError, match="irax.random.multivariate_normal: method must be"):
        R.multivariate_normal(key, jnp.zeros(2), jnp.eye(2), method="qr")


def test_randint_empty_range_returns_minval():
    out = R.randint(R.PRNGKey(0), (4,), 5, 2)
    np.testing.assert_array_equal(np.asarray(out), [5, 5, 5, 5])


def test_x32_truncation_warns():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        x = R.uniform(R.PRNGKey(0), (2,), dtype=np.float64)
    assert x.dtype == np.float32 and caught


def test_vmap_over_keys_matches_stacked_results():
    keys = R.split(R.PRNGKey(9), 4)
    cases = {
        "normal": lambda k: R.normal(k, (3,)),
        "randint": lambda k: R.randint(k, (5,), 0, 10),
        "split": lambda k: R.split(k, 3),
        "fold_in": lambda k: R.fold_in(k, 5),
        "gamma": lambda k: R.gamma(k, 1.5, (4,)),
        "poisson": lambda k: R.poisson(k, 4.0, (4,)),
        "permutation": lambda k: R.permutation(k, 8),
        "categorical": lambda k: R.categorical(k, np.zeros(4, np.float32), shape=(6,)),
    }
    for name, fn in cases.items():
        out = np.asarray(irax.vmap(fn)(keys))
        want = np.stack([np.asarray(fn(k)) for k in keys])
        # eager vmap runs the interpreter, which has no FMA: floats may differ in an ulp
        np.testing.assert_allclose(out, want, rtol=1e-6, atol=1e-6, err_msg=name)
        if out.dtype.kind in "iub":
            np.testing.assert_array_equal(out, want, err_msg=name)


def test_jit_of_vmap_over_keys():
    keys = R.split(R.PRNGKey(1), 3)

    def draws(k):
        return (R.normal(k, (3,)), R.uniform(k, (2,), minval=-1.0, maxval=3.0),
                R.permutation(k, 5), R.bits(k, (2,)))

    out = irax.jit(irax.vmap(draws))(keys)
    for j, got in enumerate(out):
        want = np.stack([np.asarray(draws(k)[j]) for k in keys])
        np.testing.assert_array_equal(np.asarray(got), want)
