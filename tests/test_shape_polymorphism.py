"""Shape-polymorphic jit: ``jit(f, abstracted_axes=...)`` traces and compiles once for
every size of the named axes; results equal the static version's and JAX's."""

import logging

import jax
import jax.numpy as jnp_
import numpy as np
import pytest

import irax
import irax.numpy as jnp
from irax import nn
from irax.core.errors import IRError
from irax.core.shape_poly import Dim, InconclusiveDimensionOperation
from irax.dialect.interpreter import evaluate_function
from irax.dialect.verifier import collect_diagnostics
from irax.frontend.compile import at_stage


def _mlp_step(lib, np_, nn_):
    def predict(params, x):
        for w, b in params[:-1]:
            x = np_.maximum(x @ w + b, 0.0)
        w, b = params[-1]
        return x @ w + b

    def loss(params, x, y):
        logits = predict(params, x)
        return -np_.mean(np_.sum(nn_.log_softmax(logits) * nn_.one_hot(y, 10), axis=-1))

    def step(params, x, y):
        value, grads = lib.value_and_grad(loss)(params, x, y)
        new = lib.tree_util.tree_map(lambda p, g: p - 0.1 * g, params, grads)
        return value, new, predict(params, x)

    return step


@pytest.fixture(scope="module")
def params():
    r = np.random.default_rng(1)
    sizes = [784, 64, 32, 10]
    return [(r.normal(size=(m, n)).astype(np.float32) / np.sqrt(m),
             r.normal(size=(n,)).astype(np.float32) * 0.1) for m, n in zip(sizes, sizes[1:])]


def test_mlp_forward_and_grad_step_compiles_once_for_every_batch_size(params):
    poly = irax.jit(_mlp_step(irax, jnp, nn),
                    abstracted_axes=(None, {0: "batch"}, {0: "batch"}))
    static = irax.jit(_mlp_step(irax, jnp, nn))
    oracle = jax.jit(_mlp_step(jax, jnp_, jax.nn))
    r = np.random.default_rng(2)
    for n in (1, 7, 128, 1000):
        x = r.normal(size=(n, 784)).astype(np.float32)
        y = r.integers(0, 10, n).astype(np.int32)
        got = jax.tree_util.tree_leaves(poly(params, x, y))
        same = jax.tree_util.tree_leaves(static(params, x, y))
        want = jax.tree_util.tree_leaves(oracle(params, x, y))
        for g, s, w in zip(got, same, want):
            assert np.shape(g) == np.shape(s) == np.shape(w)
            np.testing.assert_allclose(np.asarray(g), np.asarray(s), rtol=2e-5, atol=2e-6)
            np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=2e-4, atol=2e-5)
    assert poly._cache_size() == 1
    assert static._cache_size() == 4


def _ops(lib, np_, nn_):
    """Many numpy operations on x[n, 4] whose shapes follow the symbolic n."""
    def f(x, w):
        n = x.shape[0]
        att = nn_.softmax(x @ x.T / 2.0, axis=-1) @ x
        norm = (x - x.mean(-1, keepdims=True)) / np_.sqrt(x.var(-1, keepdims=True) + 1e-5)
        grad = lib.grad(lambda x: np_.sum(np_.tanh(x @ w) ** 2) / x.shape[0])(x)
        col = lib.vmap(lambda c: c / c.shape[0], in_axes=1, out_axes=1)(x)
        return (x * np_.arange(n)[:, None], x.reshape(-1) * 2, x.reshape(n, 2, 2),
                x + np_.zeros((n, 4)), np_.ones_like(x) * n, nn_.softmax(x, axis=0),
                np_.mean(x, axis=0), np_.var(x, axis=0), x.T @ x,
                np_.concatenate([x, 2 * x], axis=0), x[:, 1:3], x[1:, :], x[:-1],
                np_.where(x > 0.5, x, 0.0), x[0], att, norm, grad, col, np_.sum(x) / n,
                nn_.gelu(x), nn_.logsumexp(x, axis=0), np_.max(x, 0),
                np_.expand_dims(x, 1) * np_.ones((1, 2, 1)), x[:, None, :].squeeze(1),
                np_.einsum("ij,ik->jk", x, x))
    return f


def test_numpy_operations_follow_the_symbolic_size():
    f = irax.jit(_ops(irax, jnp, nn), abstracted_axes=({0: "n"}, None))
    oracle = jax.jit(_ops(jax, jnp_, jax.nn))
    r = np.random.default_rng(3)
    w = r.normal(size=(4, 3)).astype(np.float32)
    for n in (2, 5):
        x = r.normal(size=(n, 4)).astype(np.float32)
        for i, (g, e) in enumerate(zip(f(x, w), oracle(x, w))):
            assert g.shape == e.shape and g.dtype == e.dtype, i
            np.testing.assert_allclose(np.asarray(g), np.asarray(e), rtol=2e-5, atol=2e-6,
                                       err_msg=str(i))
    assert f._cache_size() == 1


def _more_ops(lib, np_, nn_, lax):
    """Control flow over the symbolic axis, vmaps of it, indices and updates."""
    def rnn(h, x, w):
        return np_.tanh(h @ w + x), h.sum()

    def f(x, w):
        h, ys = lax.scan(lambda h, x: rnn(h, x, w), np_.zeros(4), x)
        hr, ysr = lax.scan(lambda h, x: rnn(h, x, w), np_.zeros(4), x, reverse=True)
        g = lib.grad(lambda w: np_.sum(lax.scan(lambda h, x: rnn(h, x, w), np_.zeros(4),
                                                 x)[0]))(w)
        return (h, ys, hr, ysr, g,
                lax.fori_loop(0, 3, lambda i, c: c * 1.5, x),
                lax.while_loop(lambda c: c.sum() < 100.0, lambda c: c * 2.0 + 1.0, x),
                lax.cond(x.sum() > 1.0, lambda x: x * 2.0, lambda x: x, x),
                lib.vmap(lambda r: r * r.sum())(x), np_.argmax(x, axis=0),
                np_.argmax(x, axis=1), nn_.one_hot(np_.argmax(x, axis=1), 4) * x,
                (x * 10).astype(np_.int32) + 1, np_.roll(x, 1, axis=1),
                np_.split(x, 2, axis=1)[1], lax.dynamic_slice_in_dim(x, 1, 2, axis=1),
                x.at[0].add(1.0), x.at[0].set(0.0), np_.std(x, 0), np_.linalg.norm(x, axis=1),
                np_.exp(x), np_.log1p(x * x), np_.clip(x, 0.2, 0.7), x ** 2.5,
                np_.sin(x * 3.0), np_.cos(x * 1e4), np_.tan(x), np_.exp(x * 1j),
                np_.sort(x, axis=1), np_.argsort(x, axis=1), lax.top_k(x, 2)[0],
                np_.tril(x @ x.T), np_.triu(x @ x.T, 1), np_.eye(x.shape[0]) @ x,
                np_.cumsum(x, axis=0), np_.cumprod(x, axis=0), np_.cumsum(x, axis=1),
                np_.stack([x, x]), np_.pad(x, ((1, 1), (0, 2))), np_.flip(x, 0))
    return f


def test_control_flow_vmap_and_indexing_follow_the_symbolic_size():
    f = irax.jit(_more_ops(irax, jnp, nn, irax.lax), abstracted_axes=({0: "n"}, None))
    oracle = jax.jit(_more_ops(jax, jnp_, jax.nn, jax.lax))
    r = np.random.default_rng(8)
    w = r.normal(size=(4, 4)).astype(np.float32) * 0.5
    for n in (2, 5):
        x = r.uniform(0.0, 1.0, size=(n, 4)).astype(np.float32)
        for i, (g, e) in enumerate(zip(f(x, w), oracle(x, w))):
            assert g.shape == e.shape and g.dtype == e.dtype, i
            np.testing.assert_allclose(np.asarray(g), np.asarray(e), rtol=2e-5, atol=2e-6,
                                       err_msg=str(i))
    assert f._cache_size() == 1


def _lookup(np_, nn_):
    """A variable-length sequence through an embedding table (inference)."""
    def f(table, w, ids):
        h = nn_.relu(table[ids] @ w)
        return np_.take(table, ids, axis=0), np_.mean(h, axis=0), nn_.softmax(h @ h.T, axis=-1)
    return f


def test_embedding_lookups_of_symbolic_length():
    f = irax.jit(_lookup(jnp, nn), abstracted_axes=(None, None, {0: "seq"}))
    oracle = jax.jit(_lookup(jnp_, jax.nn))
    r = np.random.default_rng(9)
    table = r.normal(size=(50, 8)).astype(np.float32)
    w = r.normal(size=(8, 8)).astype(np.float32)
    for n in (1, 6, 23):
        ids = r.integers(0, 50, n).astype(np.int32)
        for g, e in zip(f(table, w, ids), oracle(table, w, ids)):
            assert g.shape == e.shape
            np.testing.assert_allclose(np.asarray(g), np.asarray(e), rtol=2e-5, atol=2e-6)
    assert f._cache_size() == 1


def test_the_traced_program_has_named_dynamic_sizes_and_interprets_like_the_compiled_one():
    def f(x, y):
        g = irax.grad(lambda y: jnp.sum(jnp.tanh(x @ y)) / x.shape[0])(y)
        return jnp.tanh(x @ (y + g)).sum(axis=1) / x.shape[1]

    jf = irax.jit(f, abstracted_axes=({0: "b"}, None))
    x = np.random.default_rng(4).normal(size=(6, 3)).astype(np.float32)
    y = np.ones((3, 5), np.float32)
    lowered = jf.lower(x, y)
    text = lowered.as_text("irax")
    assert 'tensor<?x3xf32, ["b"]>' in text and 'tensor<?xf32, ["b"]>' in text
    assert "tensor<?x3xf32>" in lowered.as_text("stablehlo")
    expanded = at_stage(lowered.compiler_ir("irax"), "expanded")
    assert collect_diagnostics(lowered.compiler_ir("irax")) == []
    assert collect_diagnostics(expanded) == []
    (interpreted,) = evaluate_function(expanded, "main", [x, y])
    np.testing.assert_allclose(interpreted, np.asarray(jf(x, y)), rtol=1e-6)
    out = jf.eval_shape(x, y)
    assert out.shape == (Dim.symbol("b"),) and out.dtype == np.float32


def test_abstracted_axes_errors_name_the_arguments():
    f = irax.jit(lambda a, b: a + b, abstracted_axes=({0: "n"}, {0: "n"}))
    with pytest.raises(ValueError, match=r"'n' has size 3 in argument args\[0\] axis 0 but 4 "
                                         r"in argument args\[1\] axis 0"):
        f(np.ones(3, np.float32), np.ones(4, np.float32))
    g = irax.jit(lambda a: a, abstracted_axes=({2: "n"},))
    with pytest.raises(ValueError, match=r"names axis 2 of argument args\[0\], which has shape "
                                         r"\(3,\)"):
        g(np.ones(3, np.float32))
    h = irax.jit(lambda a: a, abstracted_axes=({0: "2n"},))
    with pytest.raises(ValueError, match="expected a name .* got '2n'"):
        h(np.ones(3, np.float32))
    k = irax.jit(lambda a, b: a, abstracted_axes=({0: "n"}, None, None))
    with pytest.raises(ValueError, match="must be a pytree prefix of the positional"):
        k(np.ones(3, np.float32), np.ones(3, np.float32))


def test_operations_that_need_a_static_size_say_what_to_do():
    def loop(x):
        return sum(x[i] for i in range(x.shape[0]))

    with pytest.raises(InconclusiveDimensionOperation,
                       match="symbolic dimension n has no value.*leave this axis out of "
                             "abstracted_axes"):
        irax.jit(loop, abstracted_axes=({0: "n"},))(np.ones(3, np.float32))
    with pytest.raises(InconclusiveDimensionOperation, match="only a non-negative start"):
        irax.jit(lambda x: x[:2], abstracted_axes=({0: "n"},))(np.ones(3, np.float32))
    with pytest.raises(IRError, match=r"'irax.sort' op expected a static size to sort along, "
                                      r"but dimension 0 of float32\[n,2\] is symbolic"):
        irax.jit(lambda x: jnp.sort(x, axis=0),
                 abstracted_axes=({0: "n"},))(np.ones((3, 2), np.float32))


def test_auto_dynamic_axes_switch_after_repeated_sizes(caplog):
    def f(x, y):
        return x * 2.0 + y.sum()

    jf = irax.jit(f)
    y = np.ones(3, np.float32)
    with irax.config.override("irax_auto_dynamic_axes", True), \
            irax.config.override("jax_log_compiles", True), \
            caplog.at_level(logging.WARNING, logger="irax"):
        for n in (2, 3, 4, 5, 6, 7):
            out = jf(np.arange(n, dtype=np.float32), y)
            np.testing.assert_array_equal(np.asarray(out), np.arange(n) * 2.0 + 3.0)
    assert jf._cache_size() == 3         # 2, 3, then one program for every other size
    assert any("shape-polymorphic" in r.getMessage() and "leaf 0 axis 0" in r.getMessage()
               for r in caplog.records)
    jf(np.arange(9, dtype=np.float32), y)          # off again: a static specialization
    assert jf._cache_size() == 4
