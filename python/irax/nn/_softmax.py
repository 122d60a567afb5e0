"""Normalising functions of ``jax.nn``: softmax, log_softmax, logsumexp, logmeanexp,
standardize, and one_hot.

``softmax`` has JAX's custom JVP ``y * (dx - sum(y * dx))``; the max subtracted by
``log_softmax`` and ``logsumexp`` is a ``stop_gradient``. ``where=`` masks elements out
(softmax gives them 0, log_softmax ``-inf``).
"""

from __future__ import annotations

import operator
import warnings

import numpy as np

from irax import lax
from irax import numpy as jnp
from irax.core import dtypes
from irax.core.errors import ConcretizationTypeError
from irax.frontend.axes import bound_axis_size
from irax.frontend.tracer import Tracer
from irax.lax import _util as LU
from irax.numpy import _util as U
from irax.transforms.custom_derivatives import custom_jvp, stop_gradient


def _reduction_dims(ndim: int, axis):
    """``axis`` as a tuple of non-negative axes (JAX's order kept; duplicates rejected)."""
    if axis is None:
        return tuple(range(ndim))
    axes = tuple(axis) if isinstance(axis, (tuple, list, np.ndarray)) else (axis,)
    canon = tuple(LU.canonicalize_axis(a, ndim) for a in axes)
    if len(canon) != len(set(canon)):
        raise ValueError(f"duplicate value in 'axis': {axis}")
    return canon


def _softmax_impl(x, axis, where):
    x_max = jnp.max(x, axis, where=where, initial=-np.inf, keepdims=True)
    x_safe = x if where is None else jnp.where(where, x, -np.inf)
    unnormalized = jnp.exp(x_safe - x_max)
    result = unnormalized / jnp.sum(unnormalized, axis, where=where, keepdims=True)
    if where is not None:
        result = jnp.where(where, result, 0)
    return result


_softmax = custom_jvp(_softmax_impl, nondiff_argnums=(1,))


def _softmax_jvp(axis, primals, tangents):
    (x, where), (x_dot, _) = primals, tangents
    y = _softmax(x, axis, where)
    return y, y * (x_dot - (y * x_dot).sum(axis, where=where, keepdims=True))


_softmax.defjvp(_softmax_jvp)


def softmax(x, axis=-1, where=None):
    """``exp(x) / sum(exp(x))`` along ``axis``, with JAX's custom JVP (``jax.nn.softmax``)."""
    if isinstance(axis, list):
        axis = tuple(axis)
    return _softmax(x, axis, where)


def log_softmax(x, axis=-1, where=None):
    """``x - logsumexp(x)`` along ``axis``; ``-inf`` where masked (``jax.nn.log_softmax``)."""
    x = U.as_array("log_softmax", x)
    x_max = jnp.max(x, axis, where=where, initial=-np.inf, keepdims=True)
    x_safe = x if where is None else jnp.where(where, x, -np.inf)
    shifted = x_safe - stop_gradient(x_max)
    shifted_lse = jnp.log(jnp.sum(jnp.exp(shifted), axis, where=where, keepdims=True))
    result = shifted - shifted_lse
    if where is not None:
        return jnp.where(where, result, -np.inf)
    return result


def logsumexp(a, axis=None, b=None, keepdims: bool = False, return_sign: bool = False,
              where=None):
    """``log(sum(b * exp(a)))``, stable; ``(log|s|, sign)`` with ``return_sign``
    (``jax.nn.logsumexp``, ``jax.scipy.special.logsumexp``)."""
    if where is not None:
        a = jnp.where(where, a, 0)
    if b is not None:
        a, b = U.promote_args_inexact("logsumexp", a, b)
        a = jnp.where(b != 0, a, -np.inf)
    else:
        (a,) = U.promote_args_inexact("logsumexp", a)
    dims = _reduction_dims(a.ndim, axis)
    amax = jnp.max(jnp.real(a), axis=dims, keepdims=keepdims, where=where, initial=-np.inf)
    amax = stop_gradient(lax.select(jnp.isfinite(amax), amax, lax.full_like(amax, 0)))
    amax_dims = amax if keepdims else lax.expand_dims(amax, sorted(dims))
    exp_a = lax.exp(lax.sub(a, amax_dims.astype(a.dtype)))
    if b is not None:
        exp_a = lax.mul(exp_a, b)
    sumexp = exp_a.sum(axis=dims, keepdims=keepdims, where=where)
    sign = lax.sign(sumexp)
    is_complex = dtypes.is_complex(a.dtype)
    if return_sign or not is_complex:
        sumexp = abs(sumexp)
    out = lax.add(lax.log(sumexp), amax.astype(sumexp.dtype))
    if return_sign:
        return out, sign
    if b is not None and not is_complex:
        out = jnp.where(sign < 0, jnp.array(np.nan, dtype=out.dtype), out)
    return out


def _count(x, axis, where, keepdims, dtype):
    if where is None:
        shape = np.shape(x)
        n = int(np.prod([shape[d] for d in _reduction_dims(len(shape), axis)]))
        return lax.convert_element_type(n, dtype)
    return jnp.sum(jnp.broadcast_to(where, np.shape(x)), axis, dtype=dtype, keepdims=keepdims)


def logmeanexp(x, axis=None, where=None, keepdims: bool = False):
    """``logsumexp(x) - log(n)`` (``jax.nn.logmeanexp``)."""
    lse = logsumexp(x, axis=axis, where=where, keepdims=keepdims)
    return lse - jnp.log(_count(x, axis, where, keepdims, lse.dtype))


def standardize(x, axis=-1, mean=None, variance=None, epsilon=1e-5, where=None, *,
                algorithm: str = "fast"):
    """``(x - mean) / sqrt(variance + epsilon)`` along ``axis`` (``jax.nn.standardize``)."""
    U.check_arraylike("standardize", x)
    for v in (mean, variance, where):
        if v is not None:
            U.check_arraylike("standardize", v)
    if mean is None:
        mean = jnp.mean(x, axis, keepdims=True, where=where)
    if variance is None:
        if algorithm == "stable":
            variance = jnp.mean(jnp.square(jnp.subtract(x, mean)), axis, keepdims=True,
                                where=where)
        elif algorithm == "fast":
            variance = jnp.mean(jnp.square(x), axis, keepdims=True, where=where) \
                - jnp.square(mean)
            variance = jnp.clip(variance, 0)
        else:
            raise ValueError(f"Unknown algorithm '{algorithm}'. Expected 'fast' or 'stable'.")
    return jnp.subtract(x, mean) * lax.rsqrt(jnp.add(variance, epsilon))


def _concrete_classes(num_classes) -> int:
    try:
        return operator.index(num_classes)
    except TypeError:
        if not isinstance(num_classes, Tracer):
            raise
        raise ConcretizationTypeError(
            num_classes, "The error arose in jax.nn.one_hot argument `num_classes`.") from None


def one_hot(x, num_classes, *, dtype=None, axis=-1):
    """``x`` one-hot encoded along a new ``axis`` of size ``num_classes``; indices out of
    range give rows of zeros (``jax.nn.one_hot``). A named ``axis`` compares ``x`` with
    the position along that mapped axis."""
    num_classes = _concrete_classes(num_classes)
    x = jnp.asarray(x)
    if not (dtypes.is_int(x.dtype) or x.dtype == np.bool_):
        warnings.warn(f"jax.nn.one_hot input should be integer-typed; got dtype={x.dtype}",
                      DeprecationWarning, stacklevel=2)
    dtype = dtypes.default_float_dtype() if dtype is None else dtype
    if isinstance(axis, str) or not hasattr(axis, "__index__"):
        size = bound_axis_size(axis)
        if num_classes != size:
            raise ValueError(f"Expected num_classes to match the size of axis {axis}, but "
                             f"{num_classes} != {size}")
        return jnp.asarray(x == lax.axis_index(axis), dtype=dtype)
    axis = operator.index(axis)
    pos = LU.canonicalize_axis(axis, x.ndim + 1)
    lhs = lax.expand_dims(x, (pos,))
    rhs_shape = [1] * x.ndim
    rhs_shape.insert(pos, num_classes)
    rhs = lax.broadcasted_iota(x.dtype, rhs_shape, pos)
    return jnp.equal(lhs, rhs).astype(dtype)
