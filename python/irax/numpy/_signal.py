"""Signal helpers of ``jax.numpy``: ``convolve``, ``correlate`` and the window functions
``bartlett``, ``blackman``, ``hamming``, ``hanning`` and ``kaiser``.

    jnp.convolve(x, jnp.ones(3) / 3, mode="same")   # a moving average
    jnp.correlate(x, y, mode="full")                # y is conjugated
    x * jnp.hanning(len(x))

Like JAX, ``convolve`` and ``correlate`` are computed directly (not by FFT), as one 1-D
``lax.conv_general_dilated`` of the longer operand, zero-padded for the mode, with the
shorter one (reversed for ``convolve``), which carries ``precision`` and
``preferred_element_type``.
"""

from __future__ import annotations

import numpy as np

from irax.core import dtypes
from irax.lax import _shape as LS
from irax.lax import _util as LU
from irax.lax._conv import conv_general_dilated
from irax.numpy import _aux as X
from irax.numpy import _util as U
from irax.numpy._math import conj, cos, sqrt
from irax.numpy._math_more import i0
from irax.numpy._ufuncs import absolute, add, multiply, subtract, true_divide

__all__ = ["convolve", "correlate", "bartlett", "blackman", "hamming", "hanning", "kaiser"]

_MODES = ("full", "same", "valid")


# ---- convolve / correlate ------------------------------------------------------------------
def _promoted(x, y, preferred_element_type):
    """JAX's promotion of the operands (to inexact without ``preferred_element_type``).
    Bool and narrow unsigned operands that the contraction widens (to a float, or to a wider
    ``preferred_element_type``) are converted through int32 first (same values): IREE 3.13
    fuses their conversion into the ``dot`` and then reads them as signed (or fails to
    compile a bool one)."""
    if preferred_element_type is None:
        px, py = U.promote_dtypes_inexact(x, y)
        wide = None
    else:
        px, py = U.promote_dtypes(x, y)
        wide = dtypes.canonicalize_dtype(preferred_element_type)
    return tuple(_via_int32(a, p, wide) for a, p in ((x, px), (y, py)))


def _via_int32(orig, promoted, wide):
    a, p = U.aval_of(orig), U.aval_of(promoted)
    if not (a.dtype == np.bool_ or (a.dtype.kind == "u" and a.dtype.itemsize < 4)):
        return promoted
    if p.dtype.kind in "fc":
        target = p.dtype
    elif wide is not None and wide.itemsize > a.dtype.itemsize:
        target = wide   # the result dtype: the same products, reduced in it
    else:
        return promoted
    return LU.convert(LU.convert(orig, np.int32), target, p.weak_type)


def _conv(x, y, mode: str, op: str, precision, preferred_element_type):
    """JAX's ``_conv``: ``out[k] = sum_j xpad[k + j] * y[j]`` over the longer operand
    ``x`` padded for ``mode``."""
    U.check_arraylike(op, x, y)
    x, y = U.as_array(op, x), U.as_array(op, y)
    if U.aval_of(x).ndim != 1 or U.aval_of(y).ndim != 1:
        raise ValueError(f"{op}() only support 1-dimensional inputs.")
    x, y = _promoted(x, y, preferred_element_type)
    xs, ys = U.aval_of(x).shape, U.aval_of(y).shape
    if xs[0] == 0 or ys[0] == 0:
        raise ValueError(f"{op}: inputs cannot be empty, got shapes {xs} and {ys}.")
    reverse = False
    if op == "correlate":
        y = conj(y)
        if xs[0] < ys[0]:
            x, y, reverse = y, x, True
    else:
        if xs[0] < ys[0]:
            x, y = y, x
        y = LS.rev(y, (0,))
    m = U.aval_of(y).shape[0]
    if mode == "valid":
        lo, hi = 0, 0
    elif mode == "same":
        lo, hi = m // 2, m - m // 2 - 1
    elif mode == "full":
        lo, hi = m - 1, m - 1
    else:
        raise ValueError(f"mode must be one of {list(_MODES)}")
    n = U.aval_of(x).shape[0]
    out = conv_general_dilated(LS.reshape(x, (1, 1, n)), LS.reshape(y, (1, 1, m)), (1,),
                               [(lo, hi)], precision=precision,
                               preferred_element_type=preferred_element_type)
    out = LS.reshape(out, (U.aval_of(out).shape[2],))
    return LS.rev(out, (0,)) if reverse else out


def convolve(a, v, mode: str = "full", *, precision=None, preferred_element_type=None):
    """Discrete linear convolution of two 1-D arrays (``jax.numpy.convolve``)."""
    return _conv(a, v, mode, "convolve", precision, preferred_element_type)


def correlate(a, v, mode: str = "valid", *, precision=None, preferred_element_type=None):
    """Cross-correlation of two 1-D arrays, ``v`` conjugated (``jax.numpy.correlate``)."""
    return _conv(a, v, mode, "correlate", precision, preferred_element_type)


# ---- windows -------------------------------------------------------------------------------
def _window_length(M, name: str):
    """``M`` as a concrete int, and the window's sample positions ``0 .. M-1`` (or None
    for ``M <= 1``, whose window is all ones)."""
    M = int(X.concrete_or_error(M, f"M argument of jnp.{name}"))
    dt = dtypes.default_float_dtype()
    if M < 0:
        raise TypeError(f"broadcast_in_dim shape must have every element be nonnegative, "
                        f"got {(M,)}.")
    if M <= 1:
        return M, LU.full((M,), 1, dt)
    return M, LS.iota(dt, M)


def _cosine_window(M, name: str, coeffs):
    """``sum_i c_i cos(2 pi i n / (M - 1))`` with alternating signs (``coeffs[0]`` first)."""
    M, n = _window_length(M, name)
    if M <= 1:
        return n
    out = None
    for i, c in enumerate(coeffs):
        term = c if i == 0 else multiply(c, cos(true_divide(multiply(2 * i * np.pi, n), M - 1)))
        out = term if out is None else (subtract(out, term) if i % 2 else add(out, term))
    return out


def bartlett(M: int):
    """The Bartlett (triangular) window of ``M`` points (``jax.numpy.bartlett``)."""
    M, n = _window_length(M, "bartlett")
    if M <= 1:
        return n
    return subtract(1, true_divide(absolute(subtract(add(multiply(2, n), 1), M)), M - 1))


def blackman(M: int):
    """The Blackman window of ``M`` points (``jax.numpy.blackman``)."""
    return _cosine_window(M, "blackman", (0.42, 0.5, 0.08))


def hamming(M: int):
    """The Hamming window of ``M`` points (``jax.numpy.hamming``)."""
    return _cosine_window(M, "hamming", (0.54, 0.46))


def hanning(M: int):
    """The Hann window of ``M`` points (``jax.numpy.hanning``)."""
    M, n = _window_length(M, "hanning")
    if M <= 1:
        return n
    return multiply(0.5, subtract(1, cos(true_divide(multiply(2 * np.pi, n), M - 1))))


def kaiser(M: int, beta):
    """The Kaiser window of ``M`` points with shape ``beta`` (``jax.numpy.kaiser``)."""
    M, n = _window_length(M, "kaiser")
    if M <= 1:
        return n
    alpha = 0.5 * (M - 1)
    r = true_divide(subtract(n, alpha), alpha)
    return true_divide(i0(multiply(beta, sqrt(subtract(1, multiply(r, r))))), i0(beta))
