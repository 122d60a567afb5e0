"""irax.nn.initializers: ``jax.nn.initializers``, the Keras/Sonnet weight initializers.

    init = irax.nn.initializers.glorot_uniform()
    w = init(irax.random.key(0), (3, 4))          # the values jax gives for the same key

Each builder returns a function ``init(key, shape, dtype=None)``; the samples come from
``irax.random`` (bit-for-bit JAX's streams), scaled exactly as JAX scales them.
``out_sharding`` is accepted for signature compatibility; only ``None`` is supported.
"""

from __future__ import annotations

import math
import typing
from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np

from irax import numpy as jnp
from irax import random
from irax.core import dtypes


@typing.runtime_checkable
class Initializer(Protocol):
    """Protocol of the functions the builders return (``jax.nn.initializers.Initializer``)."""

    def __call__(self, key, shape, dtype: Any = None, out_sharding: Any = None):
        raise NotImplementedError


def _dtype(dtype):
    return dtypes.default_float_dtype() if dtype is None else dtype


def _no_sharding(out_sharding, name: str) -> None:
    if out_sharding is not None:
        raise NotImplementedError(f"irax.nn.initializers.{name}: out_sharding is not supported")


def _shape(shape) -> tuple:
    if isinstance(shape, (int, np.integer)):
        return (int(shape),)
    try:
        return tuple(int(d) for d in shape)
    except TypeError:
        raise TypeError(f"Shapes must be 1D sequences of concrete values of integer type, "
                        f"got {shape}.") from None


def zeros(key, shape, dtype=None, out_sharding=None):
    """Zeros; ``key`` is ignored (``jax.nn.initializers.zeros``)."""
    _no_sharding(out_sharding, "zeros")
    return jnp.zeros(shape, _dtype(dtype))


def ones(key, shape, dtype=None, out_sharding=None):
    """Ones; ``key`` is ignored (``jax.nn.initializers.ones``)."""
    _no_sharding(out_sharding, "ones")
    return jnp.ones(shape, _dtype(dtype))


def constant(value, dtype=None) -> Initializer:
    """An initializer filling with ``value`` (``jax.nn.initializers.constant``)."""
    def init(key, shape, dtype=dtype, out_sharding=None):
        _no_sharding(out_sharding, "constant")
        return jnp.full(shape, value, dtype=_dtype(dtype))
    return init


def uniform(scale=1e-2, dtype=None) -> Initializer:
    """Uniform samples in ``[0, scale)`` (``jax.nn.initializers.uniform``)."""
    def init(key, shape, dtype=dtype, out_sharding=None):
        _no_sharding(out_sharding, "uniform")
        dtype = _dtype(dtype)
        return random.uniform(key, shape, dtype) * jnp.array(scale, dtype)
    return init


def normal(stddev=1e-2, dtype=None) -> Initializer:
    """Normal samples with standard deviation ``stddev`` (``jax.nn.initializers.normal``)."""
    def init(key, shape, dtype=dtype, out_sharding=None):
        _no_sharding(out_sharding, "normal")
        dtype = _dtype(dtype)
        return random.normal(key, shape, dtype) * jnp.array(stddev, dtype)
    return init


def truncated_normal(stddev=1e-2, dtype=None, lower=-2.0, upper=2.0) -> Initializer:
    """Standard normal samples truncated to ``(lower, upper)``, times ``stddev``
    (``jax.nn.initializers.truncated_normal``)."""
    def init(key, shape, dtype=dtype, out_sharding=None):
        _no_sharding(out_sharding, "truncated_normal")
        dtype = _dtype(dtype)
        return random.truncated_normal(key, lower, upper, shape, dtype) * jnp.array(stddev, dtype)
    return init


def _size(shape, axes) -> int:
    if isinstance(axes, int):
        return shape[axes]
    return math.prod([shape[i] for i in axes])


def _compute_fans(shape: Sequence[int], in_axis=-2, out_axis=-1, batch_axis=()):
    """``(fan_in, fan_out)``: the in/out sizes times the receptive field (other axes)."""
    if isinstance(in_axis, int) and in_axis == -2 and len(shape) <= 1:
        raise ValueError(
            f"Can't compute input and output sizes of a {len(shape)}-dimensional weights "
            "tensor with default in_axis. Must be at least 2D or specify in_axis explicitly.")
    in_size = _size(shape, in_axis)
    out_size = _size(shape, out_axis)
    batch_size = _size(shape, batch_axis)
    receptive = math.prod(shape) / in_size / out_size / batch_size
    return in_size * receptive, out_size * receptive


def _real_dtype(dtype):
    return np.array(0, dtype).real.dtype


def _complex_uniform(key, shape, dtype):
    """Uniform samples on the unit-variance disk of the complex plane."""
    key_r, key_theta = random.split(key)
    real = _real_dtype(dtype)
    cdt = dtypes.to_complex_dtype(real)
    r = jnp.sqrt(2 * random.uniform(key_r, shape, real)).astype(cdt)
    theta = 2 * np.pi * random.uniform(key_theta, shape, real).astype(cdt)
    return r * jnp.exp(1j * theta)


def _complex_truncated_normal(key, upper, shape, dtype):
    """Complex normal samples (variance 1 before truncation), modulus truncated at ``upper``."""
    key_r, key_theta = random.split(key)
    real = _real_dtype(dtype)
    cdt = dtypes.to_complex_dtype(real)
    t = ((1 - jnp.exp(jnp.array(-(upper ** 2), cdt)))
         * random.uniform(key_r, shape, real).astype(cdt))
    r = jnp.sqrt(-jnp.log(1 - t))
    theta = 2 * np.pi * random.uniform(key_theta, shape, real).astype(cdt)
    return r * jnp.exp(1j * theta)


def _denominator(mode, fan_in, fan_out):
    if mode == "fan_in":
        return fan_in
    if mode == "fan_out":
        return fan_out
    if mode == "fan_avg":
        return (fan_in + fan_out) / 2
    if mode == "fan_geo_avg":
        return (fan_in * fan_out) ** 0.5
    raise ValueError(f"invalid mode for variance scaling initializer: {mode}")


def variance_scaling(scale, mode, distribution, in_axis=-2, out_axis=-1, batch_axis=(),
                     dtype=None) -> Initializer:
    """Samples with variance ``scale / n``, n from ``mode`` (fan_in, fan_out, fan_avg,
    fan_geo_avg); ``distribution`` truncated_normal, normal or uniform
    (``jax.nn.initializers.variance_scaling``)."""
    def init(key, shape, dtype=dtype, out_sharding=None):
        _no_sharding(out_sharding, "variance_scaling")
        shape = _shape(shape)
        dtype = _dtype(dtype)
        fan_in, fan_out = _compute_fans(shape, in_axis, out_axis, batch_axis)
        variance = jnp.array(scale / _denominator(mode, fan_in, fan_out), dtype=dtype)
        real = dtypes.issubdtype(dtype, np.floating)
        if distribution == "truncated_normal":
            if real:
                # the standard deviation of a standard normal truncated to (-2, 2)
                stddev = jnp.sqrt(variance) / jnp.array(.87962566103423978, dtype)
                return random.truncated_normal(key, -2, 2, shape, dtype) * stddev
            # the same for a complex standard normal with modulus truncated at 2
            stddev = jnp.sqrt(variance) / jnp.array(.95311164380491208, dtype)
            return _complex_truncated_normal(key, 2, shape, dtype) * stddev
        if distribution == "normal":
            return random.normal(key, shape, dtype) * jnp.sqrt(variance)
        if distribution == "uniform":
            if real:
                return random.uniform(key, shape, dtype, -1) * jnp.sqrt(3 * variance)
            return _complex_uniform(key, shape, dtype) * jnp.sqrt(variance)
        raise ValueError(
            f"invalid distribution for variance scaling initializer: {distribution}")
    return init


def glorot_uniform(in_axis=-2, out_axis=-1, batch_axis=(), dtype=None) -> Initializer:
    """``variance_scaling(1, "fan_avg", "uniform")`` (``jax.nn.initializers.glorot_uniform``)."""
    return variance_scaling(1.0, "fan_avg", "uniform", in_axis=in_axis, out_axis=out_axis,
                            batch_axis=batch_axis, dtype=dtype)


def glorot_normal(in_axis=-2, out_axis=-1, batch_axis=(), dtype=None) -> Initializer:
    """``variance_scaling(1, "fan_avg", "truncated_normal")``
    (``jax.nn.initializers.glorot_normal``)."""
    return variance_scaling(1.0, "fan_avg", "truncated_normal", in_axis=in_axis,
                            out_axis=out_axis, batch_axis=batch_axis, dtype=dtype)


def lecun_uniform(in_axis=-2, out_axis=-1, batch_axis=(), dtype=None) -> Initializer:
    """``variance_scaling(1, "fan_in", "uniform")`` (``jax.nn.initializers.lecun_uniform``)."""
    return variance_scaling(1.0, "fan_in", "uniform", in_axis=in_axis, out_axis=out_axis,
                            batch_axis=batch_axis, dtype=dtype)


def lecun_normal(in_axis=-2, out_axis=-1, batch_axis=(), dtype=None) -> Initializer:
    """``variance_scaling(1, "fan_in", "truncated_normal")``
    (``jax.nn.initializers.lecun_normal``)."""
    return variance_scaling(1.0, "fan_in", "truncated_normal", in_axis=in_axis,
                            out_axis=out_axis, batch_axis=batch_axis, dtype=dtype)


def he_uniform(in_axis=-2, out_axis=-1, batch_axis=(), dtype=None) -> Initializer:
    """``variance_scaling(2, "fan_in", "uniform")`` (``jax.nn.initializers.he_uniform``)."""
    return variance_scaling(2.0, "fan_in", "uniform", in_axis=in_axis, out_axis=out_axis,
                            batch_axis=batch_axis, dtype=dtype)


def he_normal(in_axis=-2, out_axis=-1, batch_axis=(), dtype=None) -> Initializer:
    """``variance_scaling(2, "fan_in", "truncated_normal")``
    (``jax.nn.initializers.he_normal``)."""
    return variance_scaling(2.0, "fan_in", "truncated_normal", in_axis=in_axis,
                            out_axis=out_axis, batch_axis=batch_axis, dtype=dtype)


xavier_uniform = glorot_uniform
xavier_normal = glorot_normal
kaiming_uniform = he_uniform
kaiming_normal = he_normal


def orthogonal(scale=1.0, column_axis: int = -1, dtype=None) -> Initializer:
    """Haar-random matrices with orthonormal rows or columns (whichever side is smaller),
    times ``scale`` (``jax.nn.initializers.orthogonal``)."""
    def init(key, shape, dtype=dtype, out_sharding=None):
        if out_sharding is not None:
            raise NotImplementedError
        dtype = _dtype(dtype)
        shape = _shape(shape)
        if len(shape) < 2:
            raise ValueError("orthogonal initializer requires at least a 2D shape")
        if any(d == 0 for d in shape):
            return jnp.zeros(shape, dtype=dtype)
        n_cols = shape[column_axis]
        n_rows = math.prod(shape) // n_cols
        q = random.orthogonal(key, n_rows, (), dtype, n_cols)
        q = jnp.reshape(q, tuple(np.delete(shape, column_axis)) + (n_cols,))
        q = jnp.moveaxis(q, -1, column_axis)
        return jnp.array(scale, dtype) * q
    return init


def delta_orthogonal(scale=1.0, column_axis: int = -1, dtype=None) -> Initializer:
    """Convolution kernels (3-D to 5-D) that are zero except for an orthogonal matrix at
    the spatial centre (``jax.nn.initializers.delta_orthogonal``)."""
    def init(key, shape, dtype=dtype, out_sharding=None):
        if out_sharding is not None:
            raise NotImplementedError
        dtype = _dtype(dtype)
        shape = _shape(shape)
        if len(shape) not in (3, 4, 5):
            raise ValueError("Delta orthogonal initializer requires a 3D, 4D or 5D shape.")
        if shape[-1] < shape[-2]:
            raise ValueError("`fan_in` must be less or equal than `fan_out`. ")
        ortho = orthogonal(scale=scale, column_axis=column_axis, dtype=dtype)(key, shape[-2:])
        centre = tuple((k - 1) // 2 for k in shape[:-2])
        return jnp.zeros(shape, dtype=dtype).at[centre + (Ellipsis,)].set(ortho)
    return init
