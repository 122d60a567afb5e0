"""irax.nn.dot_product_attention against jax.nn's 'xla' implementation: MHA/GQA/MQA, bias,
masks, causal, local windows, padding lengths, residuals, 16-bit inputs; eager, one jit,
gradients, vmap and errors."""

import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import irax
import irax.nn as nn
import irax.numpy as jnp

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "numpy"))
from numpy_helpers import check  # noqa: E402

jax = pytest.importorskip("jax")
jnn = jax.nn

BF16 = np.dtype(ml_dtypes.bfloat16)
rng = np.random.default_rng(1)


def _n(*shape, dt=np.float32):
    return rng.normal(size=shape).astype(dt)


Q, K, V = _n(2, 3, 4, 8), _n(2, 5, 4, 8), _n(2, 5, 4, 8)
KG, VG = _n(2, 5, 2, 8), _n(2, 5, 2, 8)  # grouped: 2 key/value heads for 4 query heads
K1, V1 = _n(2, 5, 1, 8), _n(2, 5, 1, 8)  # multi-query
BIAS = _n(2, 4, 3, 5)
BIAS1 = _n(1, 1, 3, 5)
MASK = rng.uniform(size=(2, 1, 3, 5)) > 0.3
QL = np.array([2, 3], np.int32)
KL = np.array([4, 1], np.int32)
Q3, K3, V3 = _n(3, 2, 4), _n(3, 2, 4), _n(3, 2, 4)
QS, KS = _n(2, 4, 4, 8), _n(2, 4, 4, 8)
BIAS3 = _n(2, 3, 3)


def _cases(m):
    out = {
        "plain": m.dot_product_attention(Q, K, V),
        "gqa": m.dot_product_attention(Q, KG, VG, is_causal=True),
        "mqa": m.dot_product_attention(Q, K1, V1, bias=BIAS1),
        "bias": m.dot_product_attention(Q, K, V, bias=BIAS, scale=0.3),
        "gqa_bias": m.dot_product_attention(Q, KG, VG, bias=BIAS, mask=MASK),
        "mask": m.dot_product_attention(Q, K, V, mask=MASK, implementation="xla"),
        "causal": m.dot_product_attention(QS, KS, KS, is_causal=True),
        "window": m.dot_product_attention(QS, KS, KS, local_window_size=1),
        "window2": m.dot_product_attention(QS, KS, KS, local_window_size=(2, 0),
                                           is_causal=True),
        "lengths": m.dot_product_attention(Q, K, V, query_seq_lengths=QL,
                                           key_value_seq_lengths=KL),
        "qlen": m.dot_product_attention(Q, KG, VG, query_seq_lengths=QL, mask=MASK),
        "3d": m.dot_product_attention(Q3, K3, V3, bias=BIAS3),
        "bf16": m.dot_product_attention(Q.astype(BF16), K.astype(BF16), V.astype(BF16),
                                        is_causal=True),
    }
    out["res"], out["lse"] = m.dot_product_attention(Q, KG, VG, mask=MASK,
                                                     return_residual=True)
    out["res3"], out["lse3"] = m.dot_product_attention(Q3, K3, V3, return_residual=True)
    return out


def _tol(dt):
    return 3e-2 if np.dtype(dt).itemsize <= 2 else 1e-5


def test_attention_eager_matches_jax():
    want = jax.jit(lambda: _cases(jnn))()
    got = _cases(nn)
    for k in want:
        check(got[k], want[k], rtol=_tol(want[k].dtype), atol=_tol(want[k].dtype), msg=k)
    # float16 (JAX's F16_F16_F32 dot fails under jit on CPU; eagerly it falls back)
    args = (Q.astype(np.float16), KG.astype(np.float16), VG.astype(np.float16))
    bias = BIAS.astype(np.float16)
    check(nn.dot_product_attention(*args, bias=bias), jnn.dot_product_attention(*args, bias=bias),
          rtol=3e-2, atol=3e-2, msg="f16")


def _traced(m, q, k, v, kg, vg, bias, mask, ql):
    return {
        "bias_mask": m.dot_product_attention(q, k, v, bias=bias, mask=mask),
        "gqa_causal_len": m.dot_product_attention(q, kg, vg, is_causal=True,
                                                  query_seq_lengths=ql),
        "res": m.dot_product_attention(q, kg, vg, local_window_size=(1, 2),
                                       return_residual=True),
        "bf16": m.dot_product_attention(q.astype(BF16), k.astype(BF16), v.astype(BF16)),
    }


def test_attention_in_one_jit_and_gradients_match_jax():
    args = (Q, K, V, KG, VG, BIAS, MASK, QL)

    def grads(m, grad):
        def loss(q, k, v, bias):
            return (m.dot_product_attention(q, k, v, bias=bias, is_causal=True) ** 2).sum()

        def loss_gqa(q, k, v):
            return (m.dot_product_attention(q, k, v, mask=MASK) * Q).sum()

        return grad(loss, argnums=(0, 1, 2, 3))(Q, K, V, BIAS), \
            grad(loss_gqa, argnums=(0, 1, 2))(Q, KG, VG)

    got = irax.jit(lambda *a: (_traced(nn, *a), grads(nn, irax.grad)))(*args)
    want = jax.jit(lambda *a: (_traced(jnn, *a), grads(jnn, jax.grad)))(*args)
    for g, w in zip(jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)):
        check(g, w, rtol=_tol(w.dtype), atol=_tol(w.dtype))


def test_attention_vmap_matches_python_loop():
    q, k, v = _n(3, 4, 2, 8), _n(3, 5, 2, 8), _n(3, 5, 2, 8)
    mask = rng.uniform(size=(3, 2, 4, 5)) > 0.2

    def f(q, k, v, m):
        return nn.dot_product_attention(q, k, v, mask=m, is_causal=True)

    got = irax.vmap(f)(q, k, v, mask)
    want = np.stack([np.asarray(f(q[i], k[i], v[i], mask[i])) for i in range(3)])
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-6)


def test_attention_errors():
    with pytest.raises(ValueError, match="value shape should be"):
        nn.dot_product_attention(Q, K, V[:, :4])
    with pytest.raises(ValueError, match="query dtype should be float32, but got float16"):
        nn.dot_product_attention(Q.astype(np.float16), K, V)
    with pytest.raises(ValueError, match="mask dtype should be bool"):
        nn.dot_product_attention(Q, K, V, mask=MASK.astype(np.int32))
    with pytest.raises(ValueError, match="bias ndim should be 4, but got 5"):
        nn.dot_product_attention(Q, K, V, bias=BIAS[None])
    with pytest.raises(ValueError, match="query_seq_lengths dtype should be int32"):
        nn.dot_product_attention(Q, K, V, query_seq_lengths=QL.astype(np.int8))
    with pytest.raises(ValueError, match="multiple of key/value heads, but got 4 vs 3"):
        nn.dot_product_attention(Q, _n(2, 5, 3, 8), _n(2, 5, 3, 8))
    with pytest.raises(ValueError, match="Unsupported implementation option: foo"):
        nn.dot_product_attention(Q, K, V, implementation="foo")
    with pytest.raises(RuntimeError, match="cuDNN"):
        nn.dot_product_attention(Q, K, V, implementation="cudnn")
    assert isinstance(nn.dot_product_attention(Q, K, V), irax.Array)
    assert jnp.asarray(nn.dot_product_attention(Q3, K3, V3)).shape == Q3.shape
