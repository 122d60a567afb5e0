"""``jax.nn.dot_product_attention``: JAX's ``'xla'`` implementation (multi-head, grouped
and multi-query attention; bias, boolean mask, causal, local-window and padding masks).

Query heads are grouped as ``(K, G)`` (G = N // K query heads per key/value head) and the
whole computation runs on 5-D arrays ``B T K G H``: the same arithmetic as JAX's vmap over
the groups. Logits are float32 for 16-bit inputs and the softmax is always float32.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from irax import numpy as jnp
from irax.core import dtypes
from irax.nn._softmax import logsumexp, softmax
from irax.transforms.custom_derivatives import stop_gradient


def _ensure_4d(t):
    t = jnp.asarray(t)
    missing = 4 - t.ndim
    return jnp.expand_dims(t, tuple(range(missing))) if missing > 0 else t


def _check(t, shape: Sequence[int], dtype, name: str) -> None:
    if t is None:
        return
    if t.ndim != len(shape):
        raise ValueError(f"{name} ndim should be {len(shape)}, but got {t.ndim}")
    if dtype is not None and t.dtype != dtype:
        raise ValueError(f"{name} dtype should be {dtype}, but got {t.dtype}")
    for i in range(t.ndim):
        if shape[i] != -1 and t.shape[i] != shape[i]:
            raise ValueError(f"{name} shape should be {shape}: but got {t.shape}")


def _grouped(t, k: int, g: int):
    """A ``(B|1, N|1, T|1, S|1)`` bias or mask as ``(B|1, K|1, G|1, T|1, S|1)``."""
    if t is None:
        return None
    tb, tn, tt, ts = t.shape
    if tn == 1:
        return jnp.reshape(t, (tb, 1, 1, tt, ts))
    assert tn == k * g
    return jnp.reshape(t, (tb, k, g, tt, ts))


def _large_negative(dtype):
    big = min(float(dtypes.finfo(dtype).max), float(dtypes.finfo(np.float32).max))
    return jnp.asarray(-0.7 * big, dtype=dtype)


def _mask(t: int, s: int, mask, is_causal, q_len, kv_len, window):
    """The combined boolean mask, broadcastable to ``(B, K, G, T, S)``, or None."""
    parts = [] if mask is None else [mask]
    if is_causal:
        parts.append(jnp.tril(jnp.ones((t, s), dtype=bool)))
    if window is not None:
        left, right = window
        qp = jnp.arange(t)[:, None]
        kp = jnp.arange(s)[None, :]
        parts.append(jnp.logical_and(qp >= kp - right, qp <= kp + left))
    if q_len is not None or kv_len is not None:
        pad = jnp.ones((1, t, s), dtype=bool)
        if q_len is not None:
            pad = jnp.logical_and(pad, jnp.arange(t)[None, :, None] < q_len[:, None, None])
        if kv_len is not None:
            pad = jnp.logical_and(pad, jnp.arange(s)[None, None, :] < kv_len[:, None, None])
        parts.append(pad[:, None, None])
    if not parts:
        return None
    out = parts[0]
    for p in parts[1:]:
        out = jnp.logical_and(out, p)
    return out


def _attention(query, key, value, bias, mask, is_causal, scale, q_len, kv_len, window,
               return_residual):
    b, t, n, h = query.shape
    _, s, k, _ = key.shape
    g = n // k
    q = jnp.reshape(query, (b, t, k, g, h))
    logits_dt = jnp.promote_types(query.dtype, np.float32)
    logits = jnp.einsum("BTKGH,BSKH->BKGTS", q, key, preferred_element_type=logits_dt)
    logits = logits * jnp.array(scale, dtype=logits.dtype)
    if bias is not None:
        logits = (logits + _grouped(bias, k, g)).astype(logits.dtype)
    combined = _mask(t, s, _grouped(mask, k, g), is_causal, q_len, kv_len, window)
    if combined is not None:
        logits = jnp.where(combined, logits, _large_negative(logits.dtype))
    logits = logits.astype(np.float32)
    probs = softmax(logits, axis=-1).astype(key.dtype)
    encoded = jnp.einsum("BKGTS,BSKH->BTKGH", probs, value)
    if q_len is not None:
        keep = jnp.arange(t)[None, :] < q_len[:, None]
        encoded = encoded * keep[:, :, None, None, None].astype(encoded.dtype)
    encoded = jnp.reshape(encoded, (b, t, n, h))
    if not return_residual:
        return encoded
    lse = logsumexp(logits, axis=-1).astype(key.dtype)  # B K G T
    lse = jnp.reshape(jnp.transpose(lse, (0, 3, 1, 2)), (b, t, n))
    return encoded, stop_gradient(lse)


def dot_product_attention(query, key, value, bias=None, mask=None, *, scale=None,
                          is_causal: bool = False, query_seq_lengths=None,
                          key_value_seq_lengths=None, local_window_size=None,
                          implementation=None, return_residual: bool = False):
    """``softmax(Q K^T * scale + bias) V`` per head, shapes ``(B)TNH`` (query) and
    ``(B)SKH`` (key, value) (``jax.nn.dot_product_attention``)."""
    out_shape = jnp.asarray(query).shape
    res_shape = out_shape[:-1]
    q, k, v = _ensure_4d(query), _ensure_4d(key), _ensure_4d(value)
    bias = _ensure_4d(bias) if bias is not None else None
    mask = _ensure_4d(mask) if mask is not None else None
    q_len = None if query_seq_lengths is None else jnp.asarray(query_seq_lengths)
    kv_len = None if key_value_seq_lengths is None else jnp.asarray(key_value_seq_lengths)
    if isinstance(local_window_size, int):
        local_window_size = (local_window_size, local_window_size)
    b, s, nk, h = k.shape
    _check(v, [b, s, nk, h], k.dtype, "value")
    _check(q, [b, -1, -1, h], k.dtype, "query")
    _check(mask, [-1] * 4, np.dtype(bool), "mask")
    _check(bias, [-1] * 4, None, "bias")
    _check(q_len, [b], np.dtype("int32"), "query_seq_lengths")
    _check(kv_len, [b], np.dtype("int32"), "key_value_seq_lengths")
    if q.shape[-2] % nk != 0:
        raise ValueError("The number of query heads must be a multiple of key/value heads, "
                         f"but got {q.shape[-2]} vs {nk}")
    scale = (1.0 / np.sqrt(h)) if scale is None else scale
    if implementation == "cudnn":
        raise RuntimeError("cuDNN is not detected.")
    if implementation not in (None, "xla"):
        raise ValueError(f"Unsupported implementation option: {implementation}")
    out = _attention(q, k, v, bias, mask, is_causal, scale, q_len, kv_len, local_window_size,
                     return_residual)
    if return_residual:
        out, res = out
        return jnp.reshape(out, out_shape), jnp.reshape(res, res_shape)
    return jnp.reshape(out, out_shape)
