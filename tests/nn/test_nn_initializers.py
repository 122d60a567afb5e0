"""irax.nn.initializers against jax.nn.initializers: the same values for the same key
(bit-identical where the samplers are), dtypes, axes, modes and distributions, errors."""

import ml_dtypes
import numpy as np
import pytest

import irax
import irax.nn as nn
import irax.random as irandom

jax = pytest.importorskip("jax")
ji = jax.nn.initializers
ii = nn.initializers

BF16 = np.dtype(ml_dtypes.bfloat16)
NAMES = ["constant", "delta_orthogonal", "glorot_normal", "glorot_uniform", "he_normal",
         "he_uniform", "kaiming_normal", "kaiming_uniform", "lecun_normal", "lecun_uniform",
         "normal", "ones", "orthogonal", "truncated_normal", "uniform", "variance_scaling",
         "xavier_normal", "xavier_uniform", "zeros", "Initializer"]


def test_all_names_exist():
    public = sorted(n for n in dir(ji) if not n.startswith("_"))
    assert public == sorted(NAMES)
    for n in NAMES:
        assert hasattr(ii, n), n


def _same(got, want, msg, exact=True):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, f"{msg}: {got.dtype} != {want.dtype}"
    assert got.shape == want.shape, f"{msg}: {got.shape} != {want.shape}"
    if exact:
        np.testing.assert_array_equal(np.ascontiguousarray(got).view(np.uint8),
                                      np.ascontiguousarray(want).view(np.uint8), err_msg=msg)
    else:
        tol = 1e-2 if got.dtype.itemsize <= 2 else 1e-5
        np.testing.assert_allclose(got.astype(np.float64) if got.dtype.kind != "c" else got,
                                   want.astype(np.float64) if want.dtype.kind != "c" else want,
                                   rtol=tol, atol=tol, err_msg=msg)


# (builder, builder args, init shape, dtype). JAX compiles each sampler once per shape and
# dtype (~1 s each on these cores), so the cases share a few shapes; the exact cases use
# only uniform bits and arithmetic
EXACT = [
    ("zeros", None, (3, 4), None), ("ones", None, (3, 4), np.float16),
    ("constant", (-7.0,), (3, 4), None), ("constant", (3, np.int32), (3, 4), None),
    ("uniform", (), (3, 4), None), ("uniform", (2.5,), (3, 4), BF16),
    ("uniform", (0.5,), (3, 4), np.float16),
    ("glorot_uniform", (), (3, 4), None), ("he_uniform", (), (2, 3, 4), None),
    ("lecun_uniform", (0, 1), (2, 3, 4), None), ("xavier_uniform", (), (3, 4), BF16),
    ("kaiming_uniform", (-1, -2, 0), (2, 3, 4), None),
    ("variance_scaling", (2.0, "fan_out", "uniform"), (3, 4), None),
    ("variance_scaling", (0.5, "fan_geo_avg", "uniform", (0, 1), 2), (2, 3, 4), None),
]
# normal-based samplers: within a few ulp (XLA's and IREE's log/erf_inv differ slightly)
CLOSE = [
    ("normal", (), (3, 4), None), ("normal", (1.5,), (3, 4), None),
    ("truncated_normal", (), (3, 4), None), ("truncated_normal", (2.0, None, -1.0, 0.5), (3, 4),
                                             None),
    ("glorot_normal", (), (3, 4), None), ("he_normal", (), (3, 4), None),
    ("lecun_normal", (-1, -2), (3, 4), None), ("kaiming_normal", (), (3, 4), None),
    ("xavier_normal", (), (3, 4), None),
    ("variance_scaling", (1.0, "fan_avg", "normal"), (3, 4), None),
    ("variance_scaling", (1.0, "fan_in", "truncated_normal", -1, -2), (3, 4), None),
    ("variance_scaling", (1.0, "fan_in", "uniform"), (3, 4), np.complex64),
    ("variance_scaling", (2.0, "fan_out", "truncated_normal"), (3, 4), np.complex64),
    ("variance_scaling", (1.0, "fan_in", "normal"), (3, 4), np.complex64),
    ("orthogonal", (), (3, 4), None), ("orthogonal", (2.0,), (3, 4), None),
    ("orthogonal", (1.0, 0), (4, 3), None), ("orthogonal", (), (0, 3), None),
    ("delta_orthogonal", (), (3, 3, 4), None), ("delta_orthogonal", (1.5,), (3, 3, 3, 4), None),
    ("delta_orthogonal", (), (2, 3, 1, 3, 4), None),
]


def _make(mod, name, args):
    b = getattr(mod, name)
    return b if args is None else b(*args)


def _run(mod, rand, cases, seed):
    out = []
    for name, args, shape, dt in cases:
        init = _make(mod, name, args)
        key = rand.PRNGKey(seed)
        out.append(init(key, shape) if dt is None else init(key, shape, dt))
    return out


def test_uniform_family_bit_identical():
    for seed in (0, 42, 2**31 - 1):
        got = _run(ii, irandom, EXACT, seed)
        want = _run(ji, jax.random, EXACT, seed)
        for case, g, w in zip(EXACT, got, want):
            _same(g, w, f"{case} seed {seed}")


def test_normal_family_and_orthogonal_match():
    for seed in (0, 7):
        got = _run(ii, irandom, CLOSE, seed)
        want = _run(ji, jax.random, CLOSE, seed)
        for case, g, w in zip(CLOSE, got, want):
            _same(g, w, str(case), exact=False)
    q = np.asarray(ii.orthogonal()(irandom.PRNGKey(3), (4, 3)))
    np.testing.assert_allclose(q.T @ q, np.eye(3), atol=1e-5)


JIT_NAMES = ("glorot_uniform", "he_normal", "orthogonal")


def test_typed_keys_jit_and_vmap():
    got = irax.jit(lambda k: [getattr(ii, n)()(k, (3, 4)) for n in JIT_NAMES])(irandom.key(5))
    for name, g in zip(JIT_NAMES, got):
        want = getattr(ji, name)()(jax.random.key(5), (3, 4))
        _same(g, want, name, exact=name == "glorot_uniform")
    keys = irandom.split(irandom.PRNGKey(9), 3)
    init = ii.lecun_uniform()
    batched = irax.vmap(lambda k: init(k, (3, 4)))(keys)
    for i in range(3):
        _same(batched[i], init(keys[i], (3, 4)), f"vmap {i}")
    assert isinstance(ii.glorot_uniform(), ii.Initializer)
    assert isinstance(ii.zeros, ii.Initializer)


def test_x64_dtypes(x64):
    jax.config.update("jax_enable_x64", True)
    try:
        for name in ("glorot_uniform", "zeros", "uniform"):
            got = _make(ii, name, None if name == "zeros" else ())(irandom.PRNGKey(1), (3, 4))
            want = _make(ji, name, None if name == "zeros" else ())(jax.random.PRNGKey(1), (3, 4))
            _same(got, want, name)
    finally:
        jax.config.update("jax_enable_x64", False)


def test_errors():
    key = irandom.PRNGKey(0)
    with pytest.raises(ValueError, match="Can't compute input and output sizes of a 1-dim"):
        ii.glorot_uniform()(key, (5,))
    with pytest.raises(ValueError, match="invalid mode for variance scaling initializer: bad"):
        ii.variance_scaling(1.0, "bad", "normal")(key, (2, 3))
    with pytest.raises(ValueError, match="invalid distribution for variance scaling"):
        ii.variance_scaling(1.0, "fan_in", "bad")(key, (2, 3))
    with pytest.raises(ValueError, match="orthogonal initializer requires at least a 2D shape"):
        ii.orthogonal()(key, (3,))
    with pytest.raises(ValueError, match="requires a 3D, 4D or 5D shape"):
        ii.delta_orthogonal()(key, (3, 3))
    with pytest.raises(ValueError, match="`fan_in` must be less or equal than `fan_out`"):
        ii.delta_orthogonal()(key, (3, 4, 2))
    # JAX's own errors for the same calls, so the messages above are JAX's
    jkey = jax.random.PRNGKey(0)
    with pytest.raises(ValueError, match="Can't compute input and output sizes of a 1-dim"):
        ji.glorot_uniform()(jkey, (5,))
    with pytest.raises(ValueError, match="`fan_in` must be less or equal than `fan_out`"):
        ji.delta_orthogonal()(jkey, (3, 4, 2))
