"""Block-scaled (microscaling) matrix products of ``jax.nn``: ``scaled_matmul``,
``scaled_dot_general`` and ``get_scaled_dot_general_config``.

JAX runs these only on CUDA (cuDNN's block-scaled GEMM); irax computes the same mathematics
with ordinary ops: ``scaled_matmul`` multiplies each operand by its block scales (repeated
along the contracting axis) in float32 and contracts; ``scaled_dot_general`` quantizes
both operands with JAX's mxfp8 / nvfp4 recipe (per-block amax scales, e8m0 rounded up or
e4m3) and then calls ``scaled_matmul``. Derivatives differentiate this composition (JAX
has a custom VJP that quantizes the cotangent too).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import ml_dtypes
import numpy as np

from irax import lax
from irax import numpy as jnp
from irax.core import dtypes
from irax.core.compat import partial_support


@dataclass(slots=True)
class BlockScaleConfig:
    """A quantization recipe of ``scaled_dot_general`` (JAX's ``BlockScaleConfig``)."""

    mode: str
    block_size: int
    data_type: Any
    scale_type: Any
    global_scale: Any
    infer_only: bool


def get_scaled_dot_general_config(mode, global_scale=None) -> BlockScaleConfig:
    """The ``'nvfp4'`` or ``'mxfp8'`` recipe (``jax.nn.get_scaled_dot_general_config``)."""
    if mode == "nvfp4":
        one = jnp.ones((1,), dtype=np.float32)
        return BlockScaleConfig(mode="nvfp4", block_size=16, data_type=ml_dtypes.float4_e2m1fn,
                                scale_type=ml_dtypes.float8_e4m3fn,
                                global_scale=one if global_scale is None else global_scale,
                                infer_only=False)
    if mode == "mxfp8":
        return BlockScaleConfig(mode="mxfp8", block_size=32, data_type=ml_dtypes.float8_e4m3fn,
                                scale_type=ml_dtypes.float8_e8m0fnu, global_scale=None,
                                infer_only=False)
    raise ValueError(f"Unsupported mode: {mode}")


def _check_matmul_shapes(a, b, a_s, b_s) -> None:
    if not all(x.ndim == 3 for x in (a, b, a_s, b_s)):
        raise ValueError("scaled_matmul requires all inputs to be 3-dimensional arrays")
    if a.shape[2] != b.shape[2] or a.shape[0] != b.shape[0]:
        raise ValueError("scaled_matmul requires inputs a and b to have matching batch (B) and "
                         f"contract (K) dimensions, but got shapes {a.shape} and {b.shape}")
    if a_s.shape[2] != b_s.shape[2] or a_s.shape[0] != b_s.shape[0]:
        raise ValueError("scaled_matmul requires scales to have matching batch (B) and contract "
                         f"(K) dimensions, but got shapes {a_s.shape} and {b_s.shape}")
    if a_s.shape[1] != a.shape[1] or b_s.shape[1] != b.shape[1]:
        raise ValueError("scaled_matmul requires scales to match non-contract dimensions of "
                         f"inputs, but got shapes a: {a.shape}, b: {b.shape}, a_scales: "
                         f"{a_s.shape}, b_scales: {b_s.shape}")


def _scaled(x, scales):
    block = x.shape[-1] // scales.shape[-1]
    return x.astype(np.float32) * jnp.repeat(scales.astype(np.float32), block, axis=-1)


@partial_support("computed with plain float32 ops (JAX runs it only through cuDNN on CUDA)")
def scaled_matmul(lhs, rhs, lhs_scales, rhs_scales, preferred_element_type=np.float32):
    """``einsum('BMK,BNK->BMN')`` of ``lhs`` and ``rhs`` times their block scales
    (``jax.nn.scaled_matmul``)."""
    a, b = jnp.asarray(lhs), jnp.asarray(rhs)
    a_s, b_s = jnp.asarray(lhs_scales), jnp.asarray(rhs_scales)
    _check_matmul_shapes(a, b, a_s, b_s)
    out_dt = dtypes.check_user_dtype(preferred_element_type, "scaled_matmul")
    out = jnp.einsum("BMK,BNK->BMN", _scaled(a, a_s), _scaled(b, b_s),
                     preferred_element_type=np.float32)
    return out.astype(out_dt)


def _normalize(x, contract, batch):
    """``x`` transposed and reshaped to ``(batch, rows, contracting)``."""
    order = list(range(x.ndim))
    b = [d for d in order if d in batch]
    c = [d for d in order if d in contract]
    r = [d for d in order if d not in contract and d not in batch]
    size = lambda dims: int(np.prod([x.shape[d] for d in dims], dtype=int))  # noqa: E731
    return jnp.reshape(jnp.transpose(x, b + r + c), (size(b), size(r), size(c)))


def _e8m0_round_up(x):
    """float32 scales as e8m0 exponents (uint8), rounded up to the next power of two."""
    bits = x.astype(np.float32).view(np.uint32)
    exp = bits >> 23
    mant = bits & 0x7FFFFF
    up = jnp.logical_and(jnp.logical_and(mant > 0, exp != 0xFE),
                         ~jnp.logical_and(exp == 0, mant <= 0x400000))
    return jnp.where(up, exp + 1, exp).astype(np.uint8)


def _e8m0_value(e, dtype):
    value = (e.astype(np.uint32) << 23).view(np.float32)
    tiny = 2.0 ** -15 if np.dtype(dtype) == np.float16 else 2.0 ** -127
    return jnp.where(value == 0, jnp.array(tiny, np.float32), value).astype(dtype)


def _quantize(x, config):
    """``x`` (B, M, K) as ``config.data_type`` values and per-block scales."""
    shape = x.shape
    block = config.block_size
    assert shape[-1] >= block and shape[-1] % block == 0
    x = x.reshape(shape[:-1] + (shape[-1] // block, block))
    top = np.array(float(ml_dtypes.finfo(config.data_type).max), x.dtype)
    amax = jnp.max(jnp.abs(x), axis=-1, keepdims=True) / top
    if config.mode == "mxfp8":
        scales = _e8m0_round_up(amax)
        scaled = x / _e8m0_value(scales, x.dtype)
        scales = scales.view(np.dtype(config.scale_type))
    elif config.mode == "nvfp4":
        top_scale = np.array(float(ml_dtypes.finfo(config.scale_type).max), x.dtype)
        x = x / config.global_scale
        scales = jnp.clip(amax, 0, top_scale).astype(config.scale_type)
        scaled = x / scales.astype(np.float32)
    else:
        raise ValueError(f"Unrecognized mode: {config.mode}.")
    q = jnp.clip(scaled, -top, top).astype(config.data_type).reshape(shape)
    return q, jnp.reshape(scales, scales.shape[:-1])


def _out_shape(lhs_shape, rhs_shape, lhs_dn, rhs_dn):
    (lc, lb), (rc, rb) = lhs_dn, rhs_dn
    return (tuple(d for i, d in enumerate(lhs_shape) if i in lb)
            + tuple(d for i, d in enumerate(lhs_shape) if i not in lc and i not in lb)
            + tuple(d for i, d in enumerate(rhs_shape) if i not in rc and i not in rb))


def _quantized_dot(lhs, rhs, dn, out_dt, configs):
    (lc, rc), (lb, rb) = dn
    lq, ls = _quantize(_normalize(lhs, lc, lb), configs[0])
    rq, rs = _quantize(_normalize(rhs, rc, rb), configs[1])
    nvfp4 = configs[0].mode == "nvfp4"
    out = scaled_matmul(lq, rq, ls, rs, preferred_element_type=np.float32 if nvfp4 else out_dt)
    if nvfp4:
        out = (out * (configs[0].global_scale * configs[1].global_scale)).astype(out_dt)
    return jnp.reshape(out, _out_shape(lhs.shape, rhs.shape, (lc, lb), (rc, rb)))


@partial_support("quantization emulated with plain ops (JAX: cuDNN on CUDA only); no "
                 "custom VJP quantizing the cotangent")
def scaled_dot_general(lhs, rhs, dimension_numbers, preferred_element_type=np.float32,
                       configs=None, implementation=None):
    """``lax.dot_general`` of block-scale-quantized operands; plain ``dot_general`` when
    ``configs`` is None (``jax.nn.scaled_dot_general``)."""
    if implementation is not None:
        warnings.warn("Backend selector, now ignored. The system chooses the backend "
                      "automatically.", DeprecationWarning, stacklevel=2)
    if configs is None:
        return lax.dot_general(lhs, rhs, dimension_numbers,
                               preferred_element_type=preferred_element_type)
    out_dt = np.dtype(preferred_element_type)
    if out_dt not in (np.dtype(np.float32), np.dtype(ml_dtypes.bfloat16),
                      np.dtype(np.float16)):
        raise TypeError("Only support preferred_element_type in (f32, bf16, f16), but got "
                        "{preferred_element_type}")
    lhs, rhs = jnp.asarray(lhs), jnp.asarray(rhs)
    (lc, rc), (lb, rb) = dimension_numbers
    lc, rc, lb, rb = (tuple(v) for v in (lc, rc, lb, rb))
    squeeze = not lb or not rb
    if not lb:
        lhs, lb = jnp.expand_dims(lhs, lhs.ndim), (lhs.ndim,)
    if not rb:
        rhs, rb = jnp.expand_dims(rhs, rhs.ndim), (rhs.ndim,)
    out = _quantized_dot(lhs, rhs, ((lc, rc), (lb, rb)), out_dt, configs)
    return jnp.squeeze(out, axis=0) if squeeze else out
