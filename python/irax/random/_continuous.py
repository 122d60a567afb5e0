"""Samplers built directly on uniform floats: uniform, normal and their transforms.

Each public function checks its key and arguments, then calls an internal sampler that
takes key words ``(k0, k1)`` of shape ``B`` (see ``_prng``) and returns ``(*B, *shape)``
samples, so that the rejection samplers can draw for many keys at once. Everything is irax
ops: it runs eagerly, under ``irax.jit`` and under ``irax.vmap``.
"""

from __future__ import annotations

import numpy as np

from irax import lax
from irax import numpy as jnp
from irax.core import dtypes
from irax.core.config import config
from irax.lax import _util as lu
from irax.random import _prng
from irax.random._common import (
    broadcast_shapes,
    canonical_shape,
    check_shape,
    const,
    finfo,
    float_dtype,
    fma,
    nextafter,
    user_dtype,
)
from irax.random._keys import key_words
from irax.random._special import erf, erf_inv, tan


# ---- internal samplers on key words of shape B ------------------------------------------
def uniform_bits_to_float(bits, dtype, rng_bits: int):
    """``(bits >> (rng_bits - nmant)) * 2**-nmant``: a float in [0, 1) with the mantissa
    randomized (equal to JAX's bit cast of ``1.0 | mantissa`` minus one)."""
    info = finfo(dtype)
    nbits, nmant = np.dtype(dtype).itemsize * 8, int(info.nmant)
    udt = _prng.UINT_DTYPES[nbits]
    if rng_bits != nbits:
        bits = lax.convert_element_type(bits, udt)
    mant = lax.shift_right_logical(bits, np.array(rng_bits - nmant, udt))
    return lax.mul(lax.convert_element_type(mant, dtype), np.array(2.0 ** -nmant, dtype))


def draw_uniform(keys, shape, dtype, minval=0.0, maxval=1.0):
    """``uniform`` for every key of ``keys``: ``max(lo, u01 * (hi - lo) + lo)`` with the
    multiply-add fused, as XLA computes it."""
    info = finfo(dtype)
    nbits = np.dtype(dtype).itemsize * 8
    rng_bits = 8 if info.nmant < 8 else nbits
    u01 = uniform_bits_to_float(_prng.bits(keys, rng_bits, shape), dtype, rng_bits)
    out_shape = tuple(u01.shape)
    lo = lu.broadcast_to(lu.convert(minval, dtype), out_shape)
    hi = lu.broadcast_to(lu.convert(maxval, dtype), out_shape)
    return lax.max(lo, fma(u01, lax.sub(hi, lo), lo))


def draw_normal(keys, shape, dtype):
    """Standard normal samples: ``sqrt(2) * erf_inv(U(nextafter(-1, 0), 1))``; a complex
    dtype draws real and imaginary parts from a 2-way split and divides by sqrt(2)."""
    dtype = np.dtype(dtype)
    if dtype.kind == "c":
        real = np.dtype(np.float64 if dtype.itemsize == 16 else np.float32)
        re, im = _prng.split_two(keys)
        z = lax.complex(draw_normal(re, shape, real), draw_normal(im, shape, real))
        return lax.div(z, np.array(np.sqrt(2), dtype))
    lo = np.nextafter(np.array(-1.0, dtype), np.array(0.0, dtype))
    u = draw_uniform(keys, shape, dtype, lo, np.array(1.0, dtype))
    return lax.mul(np.array(np.sqrt(2), dtype), erf_inv(u))


def draw_exponential(keys, shape, dtype):
    u = draw_uniform(keys, shape, dtype)
    return lax.neg(lax.log1p(lax.neg(u)))


def draw_gumbel(keys, shape, dtype, mode: str):
    """Standard Gumbel samples. ``'low'``: ``-log(-log(U(tiny, 1)))``. ``'high'``: two
    uniforms ``(h, l)``, ``x = h`` if ``h >= 1/2`` else ``h + 2**-nmant l + tiny``, and
    ``-log(-log1p(-x))``. ``'highest'`` (float32; other dtypes use ``'high'``): a 64-bit
    fixed-point uniform, folded below 1/2 and rounded down to 24 significant bits."""
    info = finfo(dtype)
    if mode == "low":
        u = draw_uniform(keys, shape, dtype, np.array(info.tiny, dtype), 1.0)
        return lax.neg(lax.log(lax.neg(lax.log(u))))
    if mode == "highest" and np.dtype(dtype) == np.float32:
        return _gumbel_highest(keys, shape)
    both = draw_uniform(keys, (2,) + tuple(shape), dtype)
    high, low = jnp.take(both, 0, axis=-len(shape) - 1), jnp.take(both, 1, axis=-len(shape) - 1)
    fine = lax.add(lax.add(high, lax.mul(np.array(2.0 ** -info.nmant, dtype), low)),
                   np.array(info.tiny, dtype))
    x = lax.select(lax.ge(high, np.array(0.5, dtype)), high, fine)
    return lax.neg(lax.log(lax.neg(lax.log1p(lax.neg(x)))))


def _gumbel_highest(keys, shape):
    """JAX's float32 ``mode='highest'``: bits ``(hi, lo)`` as a 64-bit fraction ``u``;
    ``x = u`` below 1/2 (Gumbel ``-log(-log1p(-x))``), else ``x = 1 - u`` exactly in
    fixed point (Gumbel ``-log(-log(x))``)."""
    u32 = np.uint32
    bits = _prng.bits(keys, 32, (2,) + tuple(shape))
    axis = bits.ndim - len(shape) - 1
    hi, lo = jnp.take(bits, 0, axis=axis), jnp.take(bits, 1, axis=axis)
    n_hi, n_lo = lax.bitwise_not(hi), lax.bitwise_not(lo)
    n_hi = lax.add(n_hi, lax.convert_element_type(lax.eq(n_lo, u32(0xFFFFFFFF)), np.uint32))
    n_lo = lax.add(n_lo, u32(1))
    low_half = lax.lt(hi, u32(1 << 31))
    x = _fraction_to_f32(lax.select(low_half, hi, n_hi), lax.select(low_half, lo, n_lo))
    tail = lax.neg(lax.log(lax.neg(lax.log1p(lax.neg(x)))))
    head = lax.neg(lax.log(lax.neg(lax.log(x))))
    return lax.select(low_half, tail, head)


def _clz32(x):
    """Leading zero bits of uint32 ``x`` (32 for 0), by binary search."""
    n = lax.full_like(x, 0)
    for s in (16, 8, 4, 2, 1):
        empty = lax.eq(lax.shift_right_logical(x, np.uint32(32 - s)), np.uint32(0))
        n = lax.select(empty, lax.add(n, np.uint32(s)), n)
        x = lax.select(empty, lax.shift_left(x, np.uint32(s)), x)
    top_clear = lax.eq(lax.shift_right_logical(x, np.uint32(31)), np.uint32(0))
    return lax.select(top_clear, lax.add(n, np.uint32(1)), n)


def _fraction_to_f32(hi, lo):
    """The float32 of the 64-bit fraction ``(hi:lo) / 2**64`` rounded toward zero (JAX's
    ``_safe_int_to_float``; ``2**-65`` for 0), without bit casts: the 24 bits after the
    leading zeros as an integer times a power of two built from exact factors."""
    u32 = np.uint32
    hz, lz = _clz32(hi), _clz32(lo)
    hz31 = lax.min(hz, u32(31))
    joined = lax.bitwise_or(lax.shift_left(hi, hz31),
                            lax.shift_right_logical(lax.shift_right_logical(lo, u32(1)),
                                                    lax.sub(u32(31), hz31)))
    hi_zero = lax.eq(hz, u32(32))
    top = lax.select(hi_zero, lax.shift_left(lo, lax.min(lz, u32(31))), joined)
    zeros = lax.select(hi_zero, lax.add(lz, u32(32)), hz)
    mant = lax.convert_element_type(lax.shift_right_logical(top, u32(8)), np.float32)
    exponent = lax.add(zeros, u32(24))                    # x = mant * 2**-exponent
    scale = lax.full_like(mant, 1.0)
    for b in range(7):
        bit = lax.ne(lax.bitwise_and(exponent, u32(1 << b)), u32(0))
        scale = lax.select(bit, lax.mul(scale, np.float32(2.0 ** -(1 << b))), scale)
    x = lax.mul(mant, scale)
    return lax.select(lax.eq(zeros, u32(64)), lax.full_like(x, 2.0 ** -65), x)


def gumbel_mode(mode) -> str:
    """``mode`` checked; None reads ``irax.config.jax_high_dynamic_range_gumbel``."""
    if mode is None:
        mode = "high" if config.jax_high_dynamic_range_gumbel else "low"
    if mode not in ("highest", "high", "low"):
        raise ValueError(f"irax.random.gumbel: Must provide valid mode for gumbel got: {mode}")
    return mode


# ---- public samplers ------------------------------------------------------------------------
def bits(key, shape=(), dtype=None):
    """Uniform random bits as unsigned integers (uint32 by default, uint64 in x64 mode)."""
    keys = key_words("bits", key)
    dt = user_dtype("bits", dtype, default=dtypes.default_uint_dtype())
    if dt.kind != "u":
        raise ValueError(f"irax.random.bits: dtype argument to `bits` must be an unsigned int "
                         f"dtype, got {dt}")
    return _prng.bits(keys, dt.itemsize * 8, canonical_shape("bits", shape))


def uniform(key, shape=(), dtype=None, minval=0.0, maxval=1.0):
    """Uniform floats in ``[minval, maxval)`` (``maxval`` itself may appear by rounding)."""
    keys = key_words("uniform", key)
    dt = float_dtype("uniform", dtype)
    shape = canonical_shape("uniform", shape)
    check_shape("uniform", shape, np.shape(minval), np.shape(maxval))
    return draw_uniform(keys, shape, dt, minval, maxval)


def normal(key, shape=(), dtype=None):
    """Standard normal floats (complex dtypes: real and imaginary parts each N(0, 1/2))."""
    keys = key_words("normal", key)
    dt = float_dtype("normal", dtype, allow_complex=True)
    return draw_normal(keys, canonical_shape("normal", shape), dt)


def truncated_normal(key, lower, upper, shape=None, dtype=None):
    """Standard normal samples conditioned on the open interval ``(lower, upper)``."""
    keys = key_words("truncated_normal", key)
    dt = float_dtype("truncated_normal", dtype)
    shape = broadcast_shapes("truncated_normal", shape, lower, upper)
    sqrt2 = np.array(np.sqrt(2), dt)
    lower, upper = lu.convert(lower, dt), lu.convert(upper, dt)
    a = erf(lax.div(lower, sqrt2))
    b = erf(lax.div(upper, sqrt2))
    u = draw_uniform(keys, shape, dt, a, b)
    out = lax.mul(sqrt2, erf_inv(u))
    lo = lax.stop_gradient(nextafter(lower, np.inf))
    hi = lax.stop_gradient(nextafter(upper, -np.inf))
    return jnp.clip(out, lo, hi)


def exponential(key, shape=(), dtype=None):
    """Exponential(1) samples, ``-log1p(-U)``."""
    keys = key_words("exponential", key)
    dt = float_dtype("exponential", dtype)
    return draw_exponential(keys, canonical_shape("exponential", shape), dt)


def gumbel(key, shape=(), dtype=None, mode=None):
    """Standard Gumbel samples. ``mode``: ``'low'`` (one uniform), ``'high'`` (two, for a
    finer lower tail), ``'highest'`` (64 random bits; float32 only, else ``'high'``) or
    None for ``irax.config.jax_high_dynamic_range_gumbel`` (``'high'`` when set)."""
    keys = key_words("gumbel", key)
    dt = float_dtype("gumbel", dtype)
    return draw_gumbel(keys, canonical_shape("gumbel", shape), dt, gumbel_mode(mode))


def laplace(key, shape=(), dtype=None):
    """Standard Laplace samples."""
    keys = key_words("laplace", key)
    dt = float_dtype("laplace", dtype)
    shape = canonical_shape("laplace", shape)
    u = draw_uniform(keys, shape, dt, np.array(-1.0 + finfo(dt).epsneg, dt), 1.0)
    return lax.mul(lax.sign(u), lax.log1p(lax.neg(lax.abs(u))))


def logistic(key, shape=(), dtype=None):
    """Standard logistic samples."""
    keys = key_words("logistic", key)
    dt = float_dtype("logistic", dtype)
    shape = canonical_shape("logistic", shape)
    x = draw_uniform(keys, shape, dt, np.array(finfo(dt).tiny, dt), 1.0)
    return lax.sub(lax.log(x), lax.log1p(lax.neg(x)))


def cauchy(key, shape=(), dtype=None):
    """Standard Cauchy samples, ``tan(pi * (U(eps, 1) - 1/2))``."""
    keys = key_words("cauchy", key)
    dt = float_dtype("cauchy", dtype)
    shape = canonical_shape("cauchy", shape)
    u = draw_uniform(keys, shape, dt, np.array(finfo(dt).eps, dt), 1.0)
    return tan(lax.mul(const(u, np.pi), lax.sub(u, const(u, 0.5))))


def bernoulli(key, p=0.5, shape=None, mode="low"):
    """Booleans that are True with probability ``p`` (a float; ``mode='high'`` resolves
    probabilities below ~1e-7 with a second uniform)."""
    if mode not in ("high", "low"):
        raise ValueError(f"irax.random.bernoulli: got mode={mode!r}, expected 'high' or 'low'")
    keys = key_words("bernoulli", key)
    dt = lu.aval_of(p).dtype
    if dt.kind != "f" and dt.name != "bfloat16":
        raise TypeError(f"irax.random.bernoulli: bernoulli probability `p` must have a "
                        f"floating dtype, got {dt}.")
    shape = broadcast_shapes("bernoulli", shape, p)
    p = lu.convert(p, dt)
    if mode == "low":
        return lax.lt(draw_uniform(keys, shape, dt), lu.broadcast_to(p, shape))
    both = draw_uniform(keys, (2,) + shape, dt)
    u1, u2 = jnp.take(both, 0, axis=0), jnp.take(both, 1, axis=0)
    u2 = lax.mul(u2, np.array(2.0 ** -finfo(dt).nmant, dt))
    return lax.lt(u2, lax.sub(lu.broadcast_to(p, shape), u1))


def draw_rademacher(keys, shape, dtype):
    """``2 * bernoulli(key, 0.5) - 1`` in ``dtype``."""
    b = lax.lt(draw_uniform(keys, shape, dtypes.default_float_dtype()), 0.5)
    b = lax.convert_element_type(b, dtype)
    return (2 * b - 1).astype(dtype)


def rademacher(key, shape=(), dtype=None):
    """Random signs: -1 or +1 with equal probability (integer dtype by default)."""
    keys = key_words("rademacher", key)
    dt = user_dtype("rademacher", dtype, default=int)
    return draw_rademacher(keys, canonical_shape("rademacher", shape), dt)


def pareto(key, b, shape=None, dtype=None):
    """Pareto samples with shape parameter ``b``: ``exp(E / b)``."""
    keys = key_words("pareto", key)
    dt = float_dtype("pareto", dtype)
    shape = broadcast_shapes("pareto", shape, b)
    return lax.exp(lax.div(draw_exponential(keys, shape, dt), _param(b, dt, shape)))


def weibull_min(key, scale, concentration, shape=(), dtype=None):
    """Weibull samples, ``(-log1p(-U)) ** (1/concentration) * scale``."""
    keys = key_words("weibull_min", key)
    dt = float_dtype("weibull_min", dtype)
    u = draw_uniform(keys, canonical_shape("weibull_min", shape), dt)
    e = lax.neg(lax.log1p(lax.neg(u)))
    inv = (1.0 / concentration if lu.is_python_scalar(concentration)
           else jnp.divide(1.0, concentration))
    return jnp.power(e, inv) * scale


def rayleigh(key, scale, shape=None, dtype=None):
    """Rayleigh samples, ``scale * sqrt(-2 log U)``."""
    keys = key_words("rayleigh", key)
    dt = float_dtype("rayleigh", dtype)
    shape = broadcast_shapes("rayleigh", shape, scale)
    u = draw_uniform(keys, shape, dt)
    return lax.mul(_param(scale, dt, shape), lax.sqrt(lax.mul(lax.log(u), const(u, -2.0))))


def lognormal(key, sigma=1.0, shape=None, dtype=None):
    """Log-normal samples, ``exp(sigma * N)``."""
    keys = key_words("lognormal", key)
    dt = float_dtype("lognormal", dtype)
    shape = broadcast_shapes("lognormal", shape, sigma)
    return lax.exp(lax.mul(draw_normal(keys, shape, dt), _param(sigma, dt, shape)))


def maxwell(key, shape=(), dtype=None):
    """Maxwell samples: the norm of three standard normals."""
    keys = key_words("maxwell", key)
    dt = float_dtype("maxwell", dtype)
    z = draw_normal(keys, canonical_shape("maxwell", shape) + (3,), dt)
    return jnp.sqrt(jnp.sum(z * z, axis=-1))


def double_sided_maxwell(key, loc, scale, shape=(), dtype=None):
    """Double-sided Maxwell samples around ``loc``."""
    keys = key_words("double_sided_maxwell", key)
    dt = float_dtype("double_sided_maxwell", dtype)
    params = tuple(np.broadcast_shapes(np.shape(loc), np.shape(scale)))
    shape = canonical_shape("double_sided_maxwell", shape) or params
    shape = shape + params
    k_max, k_sign = _prng.split_two(keys)
    z = draw_normal(k_max, shape + (3,), dt)
    mx = jnp.sqrt(jnp.sum(z * z, axis=-1))
    sign = draw_rademacher(k_sign, shape, dt)
    return sign * mx * jnp.asarray(scale, dt) + jnp.asarray(loc, dt)


def wald(key, mean, shape=None, dtype=None):
    """Wald (inverse Gaussian) samples."""
    keys = key_words("wald", key)
    dt = float_dtype("wald", dtype)
    shape = broadcast_shapes("wald", shape, mean)
    k_v, k_z = _prng.split_two(keys)
    mean = _param(mean, dt, shape)
    v = draw_normal(k_v, shape, dt)
    z = draw_uniform(k_z, shape, dt)
    y = lax.integer_pow(v, 2)
    y_sq = lax.integer_pow(y, 2)
    mean_sq = lax.integer_pow(mean, 2)
    sqrt_term = lax.sqrt(4 * mean * y + mean_sq * y_sq)
    x = mean + mean_sq * y / 2 - mean / 2 * sqrt_term
    return lax.select(lax.le(z, mean / (mean + x)), x, mean_sq / x)


def triangular(key, left, mode, right, shape=None, dtype=None):
    """Triangular samples on ``[left, right]`` peaking at ``mode``."""
    keys = key_words("triangular", key)
    dt = float_dtype("triangular", dtype)
    shape = broadcast_shapes("triangular", shape, left, mode, right)
    left, mode, right = (_param(v, dt, shape) for v in (left, mode, right))
    fc = (mode - left) / (right - left)
    u = draw_uniform(keys, shape, dt)
    out1 = left + lax.sqrt(u * (right - left) * (mode - left))
    out2 = right - lax.sqrt((1 - u) * (right - left) * (right - mode))
    return lax.select(u < fc, out1, out2)


def _param(x, dtype, shape):
    return lu.broadcast_to(lu.convert(x, dtype), shape)
