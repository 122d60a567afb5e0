"""irax.numpy.fft: discrete Fourier transforms (``jax.numpy.fft``).

    jnp.fft.rfft(x, n=16)                      # real input: 9 complex bins
    jnp.fft.fftn(x, axes=(0, 2), norm="ortho")
    jnp.fft.fftshift(jnp.fft.fftfreq(8))

Every transform is ``irax.lax.fft`` over the requested axes (moved last), after cropping
or zero-padding them to ``s`` / ``n``; ``norm`` is "backward" (the default: the inverse
transforms divide by n), "ortho" (both by sqrt(n)) or "forward". Results are complex64
(complex128 with 64-bit types) for float and integer input, real for irfft and hfft.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence

import numpy as np

from irax.core import dtypes
from irax.lax import _util as LU
from irax.lax._fft import FftType
from irax.lax._fft import fft as lax_fft
from irax.lax._shape import pad
from irax.numpy import _util as U
from irax.numpy._creation import arange, asarray
from irax.numpy._math import conj
from irax.numpy._shape import moveaxis, roll
from irax.numpy._ufuncs import multiply, remainder, subtract, true_divide

__all__ = ["fft", "ifft", "rfft", "irfft", "fft2", "ifft2", "rfft2", "irfft2", "fftn", "ifftn",
           "rfftn", "irfftn", "hfft", "ihfft", "fftfreq", "rfftfreq", "fftshift", "ifftshift"]

_NORMS = ("backward", "ortho", "forward")


def _full_name(func_name: str) -> str:
    return f"irax.numpy.fft.{func_name}"


def _norm_factor(func_name: str, norm: str | None, s, dtype):
    """The factor JAX multiplies the result by (None: none), of the result's dtype."""
    if norm is None or norm == "backward":
        return None
    if norm not in _NORMS:
        raise ValueError(f'Invalid norm value {norm}; should be "backward","ortho" or '
                         '"forward".')
    size = float(math.prod(s))
    factor = math.sqrt(size) if norm == "ortho" else size
    return np.asarray(factor if func_name.startswith("i") else 1 / factor, dtype)


def _check_axes(full_name: str, arr, axes) -> tuple[int, ...]:
    """``axes`` in range and distinct once normalized (JAX: repeats are an error)."""
    nd = U.aval_of(arr).ndim
    canon = tuple(LU.canonicalize_axis(a, nd) for a in axes)
    if len(set(canon)) != len(canon):  # what JAX's moveaxis then fails with
        perm = [i for i in range(nd) if i not in canon]
        for d, a in sorted(zip(range(nd - len(canon), nd), canon)):
            perm.insert(d, a)
        raise TypeError("transpose permutation isn't a permutation of operand dimensions, got "
                        f"permutation {tuple(perm)} for operand shape "
                        f"{U.aval_of(arr).shape}.")
    return canon


def _fft_core(func_name: str, fft_type: FftType, a, s, axes, norm):
    """``jax.numpy.fft``'s common path: checks, axes moved last, crop/pad, transform."""
    full_name = _full_name(func_name)
    U.check_arraylike(full_name, a)
    arr = U.as_array(full_name, a)
    if s is not None:
        s = tuple(operator.index(n) for n in s)
        if any(n <= 0 for n in s):
            raise ValueError("Shape should be positive.")
    if s is not None and axes is not None and len(s) != len(axes):
        raise ValueError("Shape and axes have different lengths.")
    orig_axes = axes
    nd = U.aval_of(arr).ndim
    if axes is None:
        axes = range(nd) if s is None else range(nd - len(s), nd)
    axes = list(axes)
    if len(axes) != len(set(axes)):
        raise ValueError(f"{full_name} does not support repeated axes. Got axes {axes}.")
    if orig_axes is not None:
        src = _check_axes(full_name, arr, axes)
        axes = list(range(nd - len(axes), nd))
        arr = moveaxis(arr, src, axes)
    shape = U.aval_of(arr).shape
    if s is not None:
        want = list(shape)
        for ax, n in zip(axes, s):
            want[ax] = n
        if fft_type == FftType.IRFFT:
            want[-1] = want[-1] // 2 + 1
        zero = LU.full((), 0, U.aval_of(arr).dtype)
        arr = pad(arr, zero, [(0, w - d, 0) for w, d in zip(want, shape)])
    elif fft_type == FftType.IRFFT:
        s = [shape[ax] for ax in axes[:-1]]
        if axes:
            s.append(max(0, 2 * (shape[axes[-1]] - 1)))
    else:
        s = [shape[ax] for ax in axes]
    out = lax_fft(arr, fft_type, tuple(s))
    factor = _norm_factor(func_name, norm, s, U.aval_of(out).dtype)
    if factor is not None:
        out = multiply(out, LU.host_array(factor))
    if orig_axes is not None:
        out = moveaxis(out, axes, orig_axes)
    return out


def _axis_check_1d(func_name: str, axis) -> None:
    if isinstance(axis, (list, tuple)):
        full_name = _full_name(func_name)
        raise ValueError(f"{full_name} does not support multiple axes. Please use "
                         f"{full_name}n. Got axis = {axis!r}.")


def _fft_core_1d(func_name, fft_type, a, n, axis, norm):
    _axis_check_1d(func_name, axis)
    return _fft_core(func_name, fft_type, a, None if n is None else [n],
                     None if axis is None else [axis], norm)


def _fft_core_2d(func_name, fft_type, a, s, axes, norm):
    if len(axes) != 2:
        raise ValueError(f"{_full_name(func_name)} only supports 2 axes. Got axes = {axes!r}.")
    return _fft_core(func_name, fft_type, a, s, axes, norm)


# ---- 1-d -----------------------------------------------------------------------------------------
def fft(a, n: int | None = None, axis: int = -1, norm: str | None = None):
    """One-dimensional discrete Fourier transform along ``axis`` (``jax.numpy.fft.fft``)."""
    return _fft_core_1d("fft", FftType.FFT, a, n, axis, norm)


def ifft(a, n: int | None = None, axis: int = -1, norm: str | None = None):
    """One-dimensional inverse discrete Fourier transform (``jax.numpy.fft.ifft``)."""
    return _fft_core_1d("ifft", FftType.IFFT, a, n, axis, norm)


def rfft(a, n: int | None = None, axis: int = -1, norm: str | None = None):
    """One-dimensional DFT of real input: ``n // 2 + 1`` bins (``jax.numpy.fft.rfft``)."""
    return _fft_core_1d("rfft", FftType.RFFT, a, n, axis, norm)


def irfft(a, n: int | None = None, axis: int = -1, norm: str | None = None):
    """Inverse of ``rfft``: ``n`` (default ``2 * (m - 1)``) real values
    (``jax.numpy.fft.irfft``)."""
    return _fft_core_1d("irfft", FftType.IRFFT, a, n, axis, norm)


def hfft(a, n: int | None = None, axis: int = -1, norm: str | None = None):
    """DFT of a Hermitian-symmetric signal given by its first half: real output
    (``jax.numpy.fft.hfft``)."""
    conj_a = conj(a)
    _axis_check_1d("hfft", axis)
    nn = (U.aval_of(conj_a).shape[axis] - 1) * 2 if n is None else n
    return multiply(_fft_core_1d("hfft", FftType.IRFFT, conj_a, n, axis, norm), nn)


def ihfft(a, n: int | None = None, axis: int = -1, norm: str | None = None):
    """Inverse of ``hfft``: ``n // 2 + 1`` complex values (``jax.numpy.fft.ihfft``)."""
    _axis_check_1d("ihfft", axis)
    arr = asarray(a)
    nn = U.aval_of(arr).shape[axis] if n is None else n
    out = _fft_core_1d("ihfft", FftType.RFFT, arr, n, axis, norm)
    return multiply(conj(out), 1 / nn)


# ---- 2-d -----------------------------------------------------------------------------------------
def fft2(a, s: Sequence[int] | None = None, axes: Sequence[int] = (-2, -1),
         norm: str | None = None):
    """Two-dimensional discrete Fourier transform (``jax.numpy.fft.fft2``)."""
    return _fft_core_2d("fft2", FftType.FFT, a, s, axes, norm)


def ifft2(a, s: Sequence[int] | None = None, axes: Sequence[int] = (-2, -1),
          norm: str | None = None):
    """Two-dimensional inverse discrete Fourier transform (``jax.numpy.fft.ifft2``)."""
    return _fft_core_2d("ifft2", FftType.IFFT, a, s, axes, norm)


def rfft2(a, s: Sequence[int] | None = None, axes: Sequence[int] = (-2, -1),
          norm: str | None = None):
    """Two-dimensional DFT of real input (``jax.numpy.fft.rfft2``)."""
    return _fft_core_2d("rfft2", FftType.RFFT, a, s, axes, norm)


def irfft2(a, s: Sequence[int] | None = None, axes: Sequence[int] = (-2, -1),
           norm: str | None = None):
    """Inverse of ``rfft2`` (``jax.numpy.fft.irfft2``)."""
    return _fft_core_2d("irfft2", FftType.IRFFT, a, s, axes, norm)


# ---- n-d -----------------------------------------------------------------------------------------
def fftn(a, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
         norm: str | None = None):
    """N-dimensional discrete Fourier transform (``jax.numpy.fft.fftn``)."""
    return _fft_core("fftn", FftType.FFT, a, s, axes, norm)


def ifftn(a, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
          norm: str | None = None):
    """N-dimensional inverse discrete Fourier transform (``jax.numpy.fft.ifftn``)."""
    return _fft_core("ifftn", FftType.IFFT, a, s, axes, norm)


def rfftn(a, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
          norm: str | None = None):
    """N-dimensional DFT of real input (``jax.numpy.fft.rfftn``)."""
    return _fft_core("rfftn", FftType.RFFT, a, s, axes, norm)


def irfftn(a, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
           norm: str | None = None):
    """Inverse of ``rfftn`` (``jax.numpy.fft.irfftn``)."""
    return _fft_core("irfftn", FftType.IRFFT, a, s, axes, norm)


# ---- frequencies and shifts ----------------------------------------------------------------------
def _freq_args(func_name: str, n, d) -> None:
    if isinstance(n, (list, tuple)):
        raise ValueError(f"The n argument of irax.numpy.fft.{func_name} only takes an int. "
                         f"Got n = {list(n)}.")
    if isinstance(d, (list, tuple)):
        raise ValueError(f"The d argument of irax.numpy.fft.{func_name} only takes a single "
                         f"value. Got d = {list(d)}.")


def fftfreq(n: int, d=1.0, *, dtype=None, device=None):
    """The sample frequencies of an ``n``-point FFT with spacing ``d``
    (``jax.numpy.fft.fftfreq``)."""
    del device
    dtype = dtype or dtypes.default_float_dtype()
    _freq_args("fftfreq", n, d)
    out_dtype = dtype
    dtype = dtypes.finfo(dtypes.to_inexact_dtype(dtype)).dtype
    i = arange(n, dtype=dtype)
    k = subtract(remainder(i + n // 2, n), n // 2)
    result = true_divide(k, asarray(d * n, dtype=dtype))
    return LU.convert(result, dtypes.canonicalize_dtype(out_dtype))


def rfftfreq(n: int, d=1.0, *, dtype=None, device=None):
    """The sample frequencies of an ``n``-point ``rfft`` with spacing ``d``
    (``jax.numpy.fft.rfftfreq``)."""
    del device
    dtype = dtype or dtypes.default_float_dtype()
    _freq_args("rfftfreq", n, d)
    k = arange(0, n // 2 + 1 if n % 2 == 0 else (n - 1) // 2 + 1, dtype=dtype)
    return true_divide(k, asarray(d * n, dtype=dtype))


def _shift(func_name: str, x, axes, sign: int):
    U.check_arraylike(func_name, x)
    x = U.as_array(func_name, x)
    shape = U.aval_of(x).shape
    if axes is None:
        axes = tuple(range(len(shape)))
        shift = [sign * (dim // 2) for dim in shape]
    elif isinstance(axes, int):
        shift = sign * (shape[axes] // 2)
    else:
        shift = [sign * (shape[ax] // 2) for ax in axes]
    return roll(x, shift, axes)


def fftshift(x, axes: None | int | Sequence[int] = None):
    """Moves the zero-frequency bin to the center (``jax.numpy.fft.fftshift``)."""
    return _shift("fftshift", x, axes, 1)


def ifftshift(x, axes: None | int | Sequence[int] = None):
    """The inverse of ``fftshift`` (``jax.numpy.fft.ifftshift``)."""
    return _shift("ifftshift", x, axes, -1)
