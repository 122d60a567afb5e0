"""irax.example_libraries.stax against jax.example_libraries.stax: every layer's
init_fun (output shape, parameters' tree, shapes and dtypes), apply_fun with the same
parameters fed to both (all of jax's outputs computed in one jax.jit), Dropout with its
key and mode, and a small serial CNN's loss and gradient (jax's parameters) under one
irax.jit."""

import numpy as np
import pytest

import irax
import irax.numpy as jnp
import irax.random as irandom
from irax.example_libraries import stax

jax = pytest.importorskip("jax")
from jax.example_libraries import stax as jstax  # noqa: E402

NHWC = (2, 6, 6, 3)
NCHW = (2, 3, 6, 6)

# name -> (layer from a stax module, input shape(s), apply kwargs)
LAYERS = {
    "dense": (lambda m: m.Dense(5), (3, 7)),
    "dense_3d": (lambda m: m.Dense(4, b_init=m.normal(0.5)), (2, 3, 7)),
    "conv_same": (lambda m: m.Conv(4, (3, 3), padding="SAME"), NHWC),
    "conv_valid_strided": (lambda m: m.Conv(2, (2, 3), strides=(2, 1)), NHWC),
    "general_conv_nchw": (lambda m: m.GeneralConv(("NCHW", "OIHW", "NCHW"), 3, (3, 3),
                                                  padding="SAME"), NCHW),
    "conv_transpose": (lambda m: m.ConvTranspose(2, (3, 3), strides=(2, 2),
                                                 padding="SAME"), NHWC),
    "conv1d_transpose": (lambda m: m.Conv1DTranspose(3, (2,), strides=(2,)), (2, 5, 3)),
    "batchnorm": (lambda m: m.BatchNorm(), NHWC),
    "batchnorm_axis0_no_center": (lambda m: m.BatchNorm(axis=0, center=False), (5, 4)),
    "batchnorm_no_scale": (lambda m: m.BatchNorm(axis=(0, 2), scale=False), (3, 4, 5)),
    "batchnorm_plain": (lambda m: m.BatchNorm(axis=(0,), center=False, scale=False), (5, 4)),
    "maxpool_valid": (lambda m: m.MaxPool((2, 2)), NHWC),
    "maxpool_same_strided": (lambda m: m.MaxPool((3, 3), strides=(2, 2), padding="SAME"),
                             NHWC),
    "avgpool_valid_strided": (lambda m: m.AvgPool((2, 2), strides=(2, 2)), NHWC),
    "avgpool_same": (lambda m: m.AvgPool((3, 3), strides=(2, 2), padding="SAME"), NHWC),
    "avgpool_same_nchw": (lambda m: m.AvgPool((3, 2), padding="SAME", spec="NCHW"), NCHW),
    "sumpool_same": (lambda m: m.SumPool((2, 3), padding="SAME"), NHWC),
    "sumpool_valid_nchw": (lambda m: m.SumPool((2, 2), strides=(1, 2), spec="NCHW"), NCHW),
    "flatten": (lambda m: m.Flatten, NHWC),
    "identity": (lambda m: m.Identity, (3, 4)),
    "fanout_parallel_sum": (lambda m: m.serial(m.FanOut(2), m.parallel(m.Dense(4), m.Dense(4)),
                                               m.FanInSum), (3, 5)),
    "fanout_parallel_concat": (lambda m: m.serial(m.FanOut(3),
                                                  m.parallel(m.Dense(2), m.Identity, m.Tanh),
                                                  m.FanInConcat()), (3, 5)),
    "fanin_concat_axis0": (lambda m: m.serial(m.FanOut(2), m.FanInConcat(axis=0)), (3, 5)),
    "shape_dependent": (lambda m: m.shape_dependent(lambda s: m.Dense(s[-1] * 2)), (3, 5)),
    "mlp": (lambda m: m.serial(m.Dense(8), m.Relu, m.Dense(6), m.Gelu, m.Dense(3),
                               m.LogSoftmax), (4, 5)),
}
ACTIVATIONS = ["Tanh", "Relu", "Exp", "LogSoftmax", "Softmax", "Softplus", "Sigmoid", "Elu",
               "LeakyRelu", "Selu", "Gelu"]
for _name in ACTIVATIONS:
    LAYERS[_name.lower()] = ((lambda n: lambda m: getattr(m, n))(_name), (3, 4))
DROPOUT = {
    "dropout_train": (lambda m: m.Dropout(0.7), (4, 6)),
    "dropout_test_mode": (lambda m: m.Dropout(0.7, mode="test"), (4, 6)),
    "dropout_in_serial": (lambda m: m.serial(m.Dense(6), m.Dropout(0.5), m.Relu), (4, 6)),
}
ALL = {**LAYERS, **DROPOUT}


def _input(shape, seed=0):
    if isinstance(shape[0], tuple):
        return [_input(s, seed + i) for i, s in enumerate(shape)]
    return np.random.default_rng(seed).normal(size=shape).astype(np.float32)


def _np(tree):
    return jax.tree.map(np.asarray, tree)


@pytest.fixture(scope="module")
def reference():
    """jax's init shapes (jax.eval_shape: XLA takes ~25 s to compile the random draws of
    all the inits), and every layer's jax output, in one jax.jit, with the parameters of
    irax's init (as NumPy arrays, fed to both). The output shapes are static Python
    values, taken while init_all is traced."""
    shapes = {}

    def init_all(key):
        params = {}
        for n in ALL:
            shapes[n], params[n] = ALL[n][0](jstax)[0](key, ALL[n][1])
        return params

    def apply_all(params, xs):
        return {n: ALL[n][0](jstax)[1](params[n], xs[n],
                                       rng=jax.random.PRNGKey(3) if n in DROPOUT else None)
                for n in ALL}

    param_shapes = jax.eval_shape(init_all, jax.random.PRNGKey(1))
    params = {n: _np(ALL[n][0](stax)[0](irandom.PRNGKey(1), ALL[n][1])[1]) for n in ALL}
    outs = jax.jit(apply_all)(params, {n: _input(ALL[n][1]) for n in ALL})
    return {n: (shapes[n], param_shapes[n], params[n], np.asarray(outs[n])) for n in ALL}


def _shape(s):
    return tuple(int(d) for d in s)


@pytest.mark.parametrize("name", sorted(ALL))
def test_init_shapes(name, reference):
    """init_fun's output shape and its parameters' tree, shapes and dtypes are jax's."""
    want_shape, want_params, _, _ = reference[name]
    shape, params = ALL[name][0](stax)[0](irandom.PRNGKey(1), ALL[name][1])
    assert _shape(shape) == _shape(want_shape)
    _same_structure_and_shapes(params, want_params, name)


def _same_structure_and_shapes(got, want, msg):
    g_leaves, g_tree = jax.tree.flatten(_np(got))
    w_leaves, w_tree = jax.tree.flatten(want)
    assert g_tree == w_tree, f"{msg}: params {g_tree} != {w_tree}"
    for g, w in zip(g_leaves, w_leaves):
        assert (g.shape, g.dtype) == (w.shape, w.dtype), f"{msg}: {g.shape} != {w.shape}"


@pytest.mark.parametrize("name", sorted(ALL))
def test_apply_equals_jax(name, reference):
    """apply_fun with the same parameters (and, for Dropout, the same key: irax.random
    draws jax.random's bits) gives jax's outputs."""
    _, _, params, want = reference[name]
    rng = irandom.PRNGKey(3) if name in DROPOUT else None
    got = ALL[name][0](stax)[1](params, jnp.asarray(_input(ALL[name][1])), rng=rng)
    got = np.asarray(got)
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-6, err_msg=name)


def test_dropout_keeps_or_zeroes():
    x = _input((50, 40)) + 10.0
    _, apply_fun = stax.Dropout(0.75)
    y = np.asarray(apply_fun((), jnp.asarray(x), rng=irandom.PRNGKey(0)))
    kept = y != 0
    np.testing.assert_allclose(y[kept], x[kept] / 0.75, rtol=1e-6)
    assert 0.7 < kept.mean() < 0.8


def test_dropout_needs_rng():
    _, apply_fun = stax.Dropout(0.5)
    with pytest.raises(ValueError, match=r"stax.Dropout: expected apply_fun to be called with "
                       r"a PRNG key.*got rng=None"):
        apply_fun((), jnp.ones(3))


def test_bad_arguments():
    with pytest.raises(ValueError, match=r"stax.GeneralConv: expected a filter_shape of 2 "
                       r"spatial sizes for 'HWIO', got \(3,\)"):
        stax.Conv(4, (3,))
    with pytest.raises(ValueError, match=r"stax.MaxPool: expected strides of length 2"):
        stax.MaxPool((2, 2), strides=(1,))
    init_fun, _ = stax.parallel(stax.Dense(2), stax.Dense(3))
    with pytest.raises(ValueError, match="stax.parallel: expected 2 input shapes"):
        init_fun(irandom.PRNGKey(0), [(1, 2)])


def _cnn(m):
    return m.serial(m.Conv(4, (3, 3), padding="SAME"), m.BatchNorm(), m.Relu,
                    m.MaxPool((2, 2), strides=(2, 2)),
                    m.Conv(6, (3, 3), strides=(2, 2)), m.Elu,
                    m.AvgPool((2, 2), padding="SAME"), m.Flatten, m.Dense(5), m.LogSoftmax)


def test_serial_cnn_loss_and_grad_under_jit():
    """A small CNN: irax.jit(value_and_grad) of a cross-entropy equals jax's with the same
    parameters (irax's init; jax's init_fun gives the same tree and shapes)."""
    x = _input((3, 12, 12, 2))
    labels = np.eye(5, dtype=np.float32)[[0, 3, 4]]
    jinit, japply = _cnn(jstax)
    iinit, iapply = _cnn(stax)
    ishape, iparams = iinit(irandom.PRNGKey(0), x.shape)
    shapes = {}

    def jax_init(key):
        shapes["out"], params = jinit(key, x.shape)
        return params

    _same_structure_and_shapes(iparams, jax.eval_shape(jax_init, jax.random.PRNGKey(0)), "cnn")
    assert _shape(ishape) == _shape(shapes["out"]) == (3, 5)
    params = _np(iparams)

    def loss(apply_fun, params, x):
        return -(apply_fun(params, x) * labels).sum() / 3

    want_v, want_g = jax.jit(jax.value_and_grad(lambda p, x: loss(japply, p, x)))(params, x)
    got_v, got_g = irax.jit(irax.value_and_grad(lambda p, x: loss(iapply, p, x)))(
        params, jnp.asarray(x))
    np.testing.assert_allclose(np.asarray(got_v), np.asarray(want_v), rtol=1e-5)
    for g, w in zip(jax.tree.leaves(_np(got_g)), jax.tree.leaves(_np(want_g))):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5)
