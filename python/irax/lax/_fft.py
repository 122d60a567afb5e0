"""``irax.lax.fft`` and ``FftType`` (``jax.lax.fft``) on the ``irax.fft`` op.

    lax.fft(x, lax.FftType.FFT, (8,))          # complex forward over the last dim
    lax.fft(x, "rfft", (4, 8))                 # real input: last dim 8 -> 5 bins

The operand is converted first: to its complex dtype (FFT, IFFT, IRFFT) or its inexact
dtype (RFFT, which rejects complex input); the result is strongly typed.
"""

from __future__ import annotations

import enum
import operator

import numpy as np

from irax.core import dtypes
from irax.dialect.fft import Fft
from irax.frontend.trace import bind
from irax.lax import _util as U


class FftType(enum.IntEnum):
    """Which FFT to perform (``jax.lax.FftType``)."""

    FFT = 0    #: forward complex-to-complex
    IFFT = 1   #: inverse complex-to-complex
    RFFT = 2   #: forward real-to-complex
    IRFFT = 3  #: inverse complex-to-real


#: the names JAX accepts: lower or upper case
_BY_NAME = {name: typ for typ in FftType for name in (typ.name, typ.name.lower())}


def fft_type_of(fft_type) -> FftType:
    """``fft_type``: an ``FftType`` or its name (``"fft"`` or ``"FFT"``, ...)."""
    if isinstance(fft_type, FftType):
        return fft_type
    if isinstance(fft_type, str):
        if fft_type not in _BY_NAME:
            raise ValueError(f"Unknown FFT type '{fft_type}'")
        return _BY_NAME[fft_type]
    raise TypeError(f"Unknown FFT type value '{fft_type}'")


def fft(x, fft_type, fft_lengths):
    """The FFT ``fft_type`` over the trailing ``len(fft_lengths)`` dims of ``x``
    (``jax.lax.fft``)."""
    typ = fft_type_of(fft_type)
    lengths = tuple(operator.index(n) for n in fft_lengths)
    x = U.as_operand(x)
    dt = U.aval_of(x).dtype
    if dt == np.bool_ or (dt.kind == "u" and dt.itemsize < 4):
        # IREE 3.13 fuses such a convert into the DFT's matmul and then fails to compile it
        # (bool: "'linalg.vecmat' op expected type of bb argument #0 ('i1')") or reads the
        # unsigned values as signed ones: narrow unsigned and bool values go through int32.
        x, dt = U.convert(x, np.int32), np.dtype(np.int32)
    if typ == FftType.RFFT:
        if dtypes.is_complex(dt):
            raise ValueError("only real valued inputs supported for rfft")
        x = U.convert(x, dtypes.to_inexact_dtype(dt))
    else:
        x = U.convert(x, dtypes.to_complex_dtype(dt))
    if not lengths:
        return x
    _check(U.aval_of(x), typ, lengths)
    return bind(Fft, x, fft_type=typ.name, fft_lengths=lengths)


def _check(a, typ: FftType, lengths: tuple) -> None:
    """JAX's (and XLA's) errors for operands the transform does not accept."""
    k = len(lengths)
    if k > a.ndim:
        raise ValueError(f"FFT input shape {a.shape} must have at least as many input "
                         f"dimensions as fft_lengths {lengths}.")
    minor = a.shape[a.ndim - k:]
    if typ == FftType.RFFT:
        if a.dtype not in (np.float32, np.float64):
            raise ValueError(f"RFFT input must be float32 or float64, got {a.dtype}")
        if minor != lengths:
            raise ValueError(f"RFFT input shape {a.shape} minor dimensions must be equal to "
                             f"fft_lengths {lengths}")
        if lengths[-1] == 0:
            raise ValueError(f"RFFT of a zero-length axis is not supported (fft_lengths "
                             f"{lengths})")
    elif typ == FftType.IRFFT:
        if minor[:-1] != lengths[:-1]:
            raise ValueError(f"IRFFT input shape {a.shape} minor dimensions must be equal to "
                             f"all except the last fft_length, got fft_lengths={lengths}")
        if minor[-1] != lengths[-1] // 2 + 1:
            raise ValueError("IRFFT requires innermost dimension to be compatible with "
                             f"fft_length[-1]/2+1. Got: {minor[-1]} but fft_length is "
                             f"{lengths[-1]}.")
    elif minor != lengths:
        raise ValueError(f"FFT input shape {a.shape} minor dimensions must be equal to "
                         f"fft_lengths {lengths}")
