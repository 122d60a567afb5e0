"""FFTs: ``irax.fft``, StableHLO's ``fft`` over the trailing dimensions.

    %y = "irax.fft"(%x) {fft_type = "RFFT", fft_lengths = array<i64: 3, 8>}
           : (tensor<2x3x8xf32>) -> tensor<2x3x5xcomplex<f32>>

The lowering is built from what IREE 3.13 compiles: ``stablehlo.fft`` only for one
power-of-two length (so N-d transforms are 1-d transforms along each axis, moved last by
transposes), a DFT as one real matmul with a precomputed twiddle matrix for short
lengths, the four-step split ``n = n1 * n2`` for longer lengths (``n1`` the power-of-two
part, done natively, when it is at least 8; else the longest short factor) whose prime factors
are short, and Bluestein's chirp-z algorithm (a convolution by power-of-two FFTs of length
>= 2n - 1) for the rest. Complex matmuls are real ones on the stacked real and
imaginary parts. ``irax-legalize-iree`` rewrites float64 ``stablehlo.fft`` (which IREE
3.13 miscompiles) with the same helpers, without ``stablehlo.fft`` (``lower_fft``).
"""

from __future__ import annotations

import math

import numpy as np

from irax.core import dtypes
from irax.core.abstract import ShapedArray
from irax.dialect import attrs as A
from irax.dialect import mlir
from irax.dialect import raising as R
from irax.dialect import sharding as S
from irax.dialect.base import Linear, Op, OpError
from irax.dialect.upstream import UpstreamOp

FFT_TYPES = ("FFT", "IFFT", "RFFT", "IRFFT")
#: the longest transform done as one DFT matmul (a (2n, 2n) twiddle matrix)
DFT_MAX = 64


class StableHLOFft(UpstreamOp):
    """``stablehlo.fft``, which ``irax.fft`` lowers to for power-of-two lengths (and
    ``irax-legalize-iree`` rewrites in float64)."""

    name = "stablehlo.fft"


def _complex_of(dt) -> np.dtype:
    """The complex dtype of a float32 / float64 part (not canonicalized: a float64 FFT in a
    module read with 64-bit types off stays float64)."""
    return np.dtype(np.complex128 if np.dtype(dt) == np.float64 else np.complex64)


def fft_result(x: ShapedArray, fft_type: str, fft_lengths) -> ShapedArray:
    """The result type of an FFT of ``x``; raises ``OpError`` for invalid operands."""
    lengths = tuple(fft_lengths)
    if fft_type not in FFT_TYPES:
        raise OpError(f"expected fft_type to be one of {', '.join(FFT_TYPES)}, but got "
                      f"{fft_type!r}")
    k = len(lengths)
    if not 1 <= k <= x.ndim:
        raise OpError(f"expected 1 to {x.ndim} fft_lengths (the operand rank), but got "
                      f"{list(lengths)}")
    if any(n < 0 for n in lengths):
        raise OpError(f"expected non-negative fft_lengths, but got {list(lengths)}")
    batch, minor = x.shape[:-k], x.shape[-k:]
    if fft_type == "RFFT":
        if x.dtype not in (np.float32, np.float64):
            raise OpError(f"expected a float32 or float64 operand, but got {x.str_short()}")
        if lengths[-1] == 0:
            raise OpError("expected a positive last fft length for RFFT")
    elif not dtypes.is_complex(x.dtype):
        raise OpError(f"expected a complex operand, but got {x.str_short()}")
    if fft_type == "IRFFT":
        want = (*lengths[:-1], lengths[-1] // 2 + 1)
        if minor != want:
            raise OpError(f"expected the minor dimensions {list(minor)} to be {list(want)} "
                          f"for IRFFT of lengths {list(lengths)}")
        return ShapedArray((*batch, *lengths), dtypes.real_dtype(x.dtype), x.weak_type)
    if minor != lengths:
        raise OpError(f"expected the minor dimensions {list(minor)} to equal the fft_lengths "
                      f"{list(lengths)}")
    if fft_type == "RFFT":
        shape = (*batch, *lengths[:-1], lengths[-1] // 2 + 1)
        return ShapedArray(shape, _complex_of(x.dtype), x.weak_type)
    return x


class Fft(Linear, Op):
    """A discrete Fourier transform over the trailing ``len(fft_lengths)`` dimensions
    (StableHLO ``fft``, ``jax.lax.fft``).

    ``fft_type``: ``FFT`` (complex forward, unnormalized), ``IFFT`` (complex inverse,
    divided by the product of the lengths), ``RFFT`` (real forward: the last dim keeps
    ``n // 2 + 1`` bins) or ``IRFFT`` (its inverse: the last dim grows from ``n // 2 + 1``
    to ``n``, the imaginary parts of the zero and Nyquist bins are ignored). The result
    keeps the operand's weak type.

        %y = "irax.fft"(%x) {fft_type = "FFT", fft_lengths = array<i64: 4, 8>}
               : (tensor<2x4x8xcomplex<f32>>) -> tensor<2x4x8xcomplex<f32>>
    """

    name = "irax.fft"
    shard = classmethod(S.replicated)
    num_operands = 1
    attributes = {"fft_type": A.Str, "fft_lengths": A.I64Array}
    raises_from = "stablehlo.fft"

    @classmethod
    def raise_attrs(cls, op):
        return {"fft_type": R.enum(op, "fft_type"), "fft_lengths": R.i64s(op, "fft_length")}

    @classmethod
    def infer(cls, x, *, fft_type, fft_lengths):
        return fft_result(x, fft_type, fft_lengths)

    @classmethod
    def evaluate(cls, x, *, fft_type, fft_lengths):
        """NumPy's FFTs in double precision (the result is rounded to the result type)."""
        out = fft_result(ShapedArray(x.shape, x.dtype), fft_type, fft_lengths)
        if out.size == 0 or x.size == 0:
            return np.zeros(out.shape, out.dtype)
        axes = tuple(range(x.ndim - len(fft_lengths), x.ndim))
        wide = x.astype(np.float64 if fft_type == "RFFT" else np.complex128)
        if fft_type == "FFT":
            return np.fft.fftn(wide, axes=axes)
        if fft_type == "IFFT":
            return np.fft.ifftn(wide, axes=axes)
        if fft_type == "RFFT":
            return np.fft.rfftn(wide, axes=axes)
        return np.fft.irfftn(wide, s=fft_lengths, axes=axes)

    @classmethod
    def lower(cls, lb, x, *, fft_type, fft_lengths):
        return lower_fft(lb, x, fft_type, fft_lengths, native=True)

    @classmethod
    def transpose(cls, b, ct, x, *, fft_type, fft_lengths):
        """JAX's rules: FFT and IFFT are symmetric; RFFT's transpose is an IRFFT of the
        conjugate cotangent, IRFFT's the conjugate of an RFFT, each with the doubled bins
        (all but the zero and Nyquist ones) weighted."""
        lengths = tuple(fft_lengths)
        if fft_type in ("FFT", "IFFT"):
            return (b.fft(ct, fft_type=fft_type, fft_lengths=lengths),)
        n, size = lengths[-1], math.prod(lengths)
        if fft_type == "RFFT":
            scaled = _times(b, _conj(b, ct), 1 / _bin_weights(n))
            out = b.fft(scaled, fft_type="IRFFT", fft_lengths=lengths)
            return (b.mul(out, b.full_like(out, size)),)
        spectrum = b.fft(ct, fft_type="RFFT", fft_lengths=lengths)
        return (_conj(b, _times(b, spectrum, _bin_weights(n) / size)),)

    @classmethod
    def batch(cls, b, args, dims, *, fft_type, fft_lengths):
        """The batch dim moves first, ahead of the transformed trailing dims."""
        (x,), (d,) = args, dims
        outs = b.emit(cls, [b.moveaxis(x, d, 0)], fft_type=fft_type, fft_lengths=fft_lengths)
        return outs, [0]


def _bin_weights(n: int) -> np.ndarray:
    """How often each of the ``n // 2 + 1`` bins of a real signal's spectrum counts in the
    full spectrum: once for the zero and (even ``n``) Nyquist bins, else twice."""
    w = np.full(n // 2 + 1, 2.0)
    w[0] = 1.0
    if n % 2 == 0:
        w[-1] = 1.0
    return w


def _conj(b, z):
    return b.complex(b.real(z), b.neg(b.imag(z)))


def _times(b, z, weights: np.ndarray):
    """``z`` times ``weights`` along its last dim (a complex constant of ``z``'s dtype)."""
    a = b.aval(z)
    c = b.constant(value=weights.astype(a.dtype))
    return b.mul(z, b.broadcast_in_dim(c, shape=a.shape, broadcast_dimensions=(a.ndim - 1,)))


# ---- the lowering ------------------------------------------------------------------------------
def lower_fft(lb, x, fft_type: str, fft_lengths, native: bool):
    """StableHLO for an FFT of ``x`` over its trailing dims. ``native``: power-of-two
    lengths use ``stablehlo.fft`` (else the matmul-based transforms)."""
    h = _Hlo(lb, native)
    lengths = tuple(int(n) for n in fft_lengths)
    out = fft_result(mlir.aval_of(x), fft_type, lengths)
    if out.size == 0:
        return lb.constant(np.zeros(out.shape, out.dtype))
    k = len(lengths)
    if fft_type in ("FFT", "IFFT"):
        for n in reversed(lengths):
            x = h.rotate(h.c2c(x, n, fft_type == "IFFT"), k)
        return x
    if fft_type == "RFFT":
        x = h.rotate(h.rfft(x, lengths[-1]), k)
        for n in reversed(lengths[:-1]):
            x = h.rotate(h.c2c(x, n, False), k)
        return x
    x = h.rotate(x, k)
    for n in reversed(lengths[:-1]):
        x = h.rotate(h.c2c(x, n, True), k)
    return h.irfft(x, lengths[-1])


def _is_pow2(n: int) -> bool:
    return n > 0 and n & (n - 1) == 0


def _largest_prime_factor(n: int) -> int:
    p, f = 1, 2
    while f * f <= n:
        while n % f == 0:
            p, n = f, n // f
        f += 1
    return max(p, n)


def _twiddles(n: int, sign: int) -> np.ndarray:
    """``exp(sign * 2j * pi * r / n)`` for ``r`` in ``[0, n)``, exact at the quarters."""
    r = np.arange(n)
    w = np.exp(sign * 2j * np.pi * r / n)
    w[0] = 1
    if n % 2 == 0:
        w[n // 2] = -1
    if n % 4 == 0:
        w[n // 4], w[3 * n // 4] = sign * 1j, -sign * 1j
    return w


def _dft_matrix(n: int, rows: int, cols: int, sign: int) -> np.ndarray:
    """``W[j, k] = exp(sign * 2j * pi * j * k / n)`` for ``j < rows``, ``k < cols``."""
    j, k = np.arange(rows)[:, None], np.arange(cols)[None, :]
    return _twiddles(n, sign)[(j * k) % n]


class _Hlo:
    """StableHLO helpers on a ``LoweringBuilder``; the 1-d transforms act on the last dim."""

    def __init__(self, lb, native: bool):
        self.lb = lb
        self.native = native

    # ---- ops ---------------------------------------------------------------------------------
    @staticmethod
    def aval(v) -> ShapedArray:
        return mlir.aval_of(v)

    def op(self, name, operands, shape, dtype, **attrs):
        return self.lb.op(name, list(operands), ShapedArray(tuple(shape), dtype), **attrs)

    def transpose(self, x, perm):
        a = self.aval(x)
        if tuple(perm) == tuple(range(a.ndim)):
            return x
        return self.op("stablehlo.transpose", [x], [a.shape[p] for p in perm], a.dtype,
                       permutation=self.lb.i64s(perm))

    def rotate(self, x, k: int):
        """Moves the last dim to the front of the trailing ``k`` dims."""
        r = self.aval(x).ndim
        return self.transpose(x, [*range(r - k), r - 1, *range(r - k, r - 1)])

    def swap_last(self, x):
        r = self.aval(x).ndim
        return self.transpose(x, [*range(r - 2), r - 1, r - 2])

    def reshape(self, x, shape):
        return self.op("stablehlo.reshape", [x], shape, self.aval(x).dtype)

    def slice_last(self, x, start: int, stop: int):
        a = self.aval(x)
        return self.op("stablehlo.slice", [x], (*a.shape[:-1], stop - start), a.dtype,
                       start_indices=self.lb.i64s([0] * (a.ndim - 1) + [start]),
                       limit_indices=self.lb.i64s([*a.shape[:-1], stop]),
                       strides=self.lb.i64s([1] * a.ndim))

    def concat_last(self, xs):
        a = self.aval(xs[0])
        size = sum(self.aval(x).shape[-1] for x in xs)
        return self.op("stablehlo.concatenate", xs, (*a.shape[:-1], size), a.dtype,
                       dimension=self.lb.i64(a.ndim - 1))

    def reverse_last(self, x):
        a = self.aval(x)
        return self.op("stablehlo.reverse", [x], a.shape, a.dtype,
                       dimensions=self.lb.i64s([a.ndim - 1]))

    def const(self, value: np.ndarray):
        """A constant; a complex one as ``complex(re, im)`` of real constants (the f64
        lowering runs inside ``irax-legalize-iree``, after its complex-constant pattern)."""
        if not dtypes.is_complex(value.dtype):
            return self.lb.constant(value)
        return self.complex(self.lb.constant(value.real), self.lb.constant(value.imag))

    def pad_last(self, x, size: int):
        """``x`` zero-extended to ``size`` along its last dim (a concatenation)."""
        a = self.aval(x)
        return self.concat_last([x, self.const(np.zeros((*a.shape[:-1], size - a.shape[-1]),
                                                        a.dtype))])

    def part(self, z, which: str):
        a = self.aval(z)
        return self.op(f"stablehlo.{which}", [z], a.shape, dtypes.real_dtype(a.dtype))

    def complex(self, re, im):
        a = self.aval(re)
        return self.op("stablehlo.complex", [re, im], a.shape, _complex_of(a.dtype))

    def conj(self, z):
        im = self.part(z, "imag")
        return self.complex(self.part(z, "real"), self.op("stablehlo.negate", [im],
                                                           self.aval(im).shape,
                                                           self.aval(im).dtype))

    def zeros_like(self, x):
        a = self.aval(x)
        zero = self.lb.constant(np.zeros((), a.dtype))
        return self.op("stablehlo.broadcast_in_dim", [zero], a.shape, a.dtype,
                       broadcast_dimensions=self.lb.i64s([]))

    def times(self, x, value: np.ndarray):
        """``x`` times the constant ``value``, which spans ``x``'s trailing dims."""
        a = self.aval(x)
        c = self.const(np.asarray(value).astype(a.dtype))
        nd = np.ndim(value)
        c = self.op("stablehlo.broadcast_in_dim", [c], a.shape, a.dtype,
                    broadcast_dimensions=self.lb.i64s(range(a.ndim - nd, a.ndim)))
        return self.op("stablehlo.multiply", [x, c], a.shape, a.dtype)

    def matmul(self, x, m: np.ndarray):
        """``x``'s last dim contracted with the constant matrix ``m``'s first."""
        a = self.aval(x)
        dn = (f"#stablehlo.dot<lhs_contracting_dimensions = [{a.ndim - 1}], "
              f"rhs_contracting_dimensions = [0]>")
        return self.op("stablehlo.dot_general", [x, self.lb.constant(m.astype(a.dtype))],
                       (*a.shape[:-1], m.shape[1]), a.dtype,
                       dot_dimension_numbers=self.lb.attr(dn))

    def hlo_fft(self, x, fft_type: str, n: int):
        a = self.aval(x)
        out = fft_result(a, fft_type, (n,))
        return self.op("stablehlo.fft", [x], out.shape, out.dtype,
                       fft_type=self.lb.attr(f"#stablehlo<fft_type {fft_type}>"),
                       fft_length=self.lb.i64s([n]))

    def stacked(self, z):
        """``[re, im]`` of ``z`` along its last dim (a real tensor twice as long)."""
        return self.concat_last([self.part(z, "real"), self.part(z, "imag")])

    def unstacked(self, y, m: int):
        return self.complex(self.slice_last(y, 0, m), self.slice_last(y, m, 2 * m))

    # ---- 1-d transforms along the last dim ---------------------------------------------------
    def c2c(self, z, n: int, inverse: bool):
        if n == 1:
            return z
        if self.native and _is_pow2(n):
            return self.hlo_fft(z, "IFFT" if inverse else "FFT", n)
        if n <= DFT_MAX:
            return self.dft(z, n, inverse)
        p = n & -n  # the power-of-two part: native transforms of length p, when long enough
        if self.native and p >= 8 and n > 4 * DFT_MAX:
            return self.four_step(z, p, n // p, inverse)
        if _largest_prime_factor(n) <= DFT_MAX:
            n1 = max(d for d in range(2, DFT_MAX + 1) if n % d == 0)
            return self.four_step(z, n1, n // n1, inverse)
        return self.bluestein(z, n, inverse)

    def dft(self, z, n: int, inverse: bool):
        """One real matmul: ``[re, im] @ [[C, S], [-S, C]]`` for twiddles ``C + iS``."""
        w = _dft_matrix(n, n, n, 1 if inverse else -1) / (n if inverse else 1)
        c, s = w.real, w.imag
        m = np.block([[c, s], [-s, c]])
        return self.unstacked(self.matmul(self.stacked(z), m), n)

    def four_step(self, z, n1: int, n2: int, inverse: bool):
        """``n = n1 * n2``: transforms of length ``n1`` over ``j1`` of ``j = j1 * n2 + j2``,
        twiddles ``w_n^(j2 * k1)``, transforms of length ``n2`` over ``j2``; the result
        index is ``k1 + n1 * k2``."""
        a = self.aval(z)
        batch, n = a.shape[:-1], n1 * n2
        y = self.swap_last(self.reshape(z, (*batch, n1, n2)))          # (j2, j1)
        y = self.c2c(y, n1, inverse)                                    # (j2, k1)
        y = self.times(y, _dft_matrix(n, n2, n1, 1 if inverse else -1))
        y = self.c2c(self.swap_last(y), n2, inverse)                    # (k1, k2)
        return self.reshape(self.swap_last(y), (*batch, n))             # (k2, k1)

    def bluestein(self, z, n: int, inverse: bool):
        """Bluestein's chirp-z: ``X_k = c_k sum_j (z_j c_j) conj(c_(k-j))`` with chirps
        ``c_j = exp(-+ i pi j^2 / n)``, the sum a circular convolution of length
        ``m >= 2n - 1`` (a power of two) whose kernel's spectrum is a constant."""
        sign = 1 if inverse else -1
        m = 1 << (2 * n - 2).bit_length()
        j = np.arange(n, dtype=np.int64)
        chirp = np.exp(sign * 1j * np.pi * ((j * j) % (2 * n)) / n)
        kernel = np.zeros(m, np.complex128)
        kernel[:n] = np.conj(chirp)
        kernel[m - n + 1:] = np.conj(chirp[1:])[::-1]
        y = self.pad_last(self.times(z, chirp), m)
        y = self.times(self.c2c(y, m, False), np.fft.fft(kernel))
        y = self.slice_last(self.c2c(y, m, True), 0, n)
        return self.times(y, chirp / n if inverse else chirp)

    def rfft(self, x, n: int):
        """Real to ``n // 2 + 1`` complex bins."""
        m = n // 2 + 1
        if n == 1:
            return self.complex(x, self.zeros_like(x))
        if self.native and _is_pow2(n):
            return self.hlo_fft(x, "RFFT", n)
        if n <= DFT_MAX:
            w = _dft_matrix(n, n, m, -1)
            return self.unstacked(self.matmul(x, np.concatenate([w.real, w.imag], 1)), m)
        z = self.complex(x, self.zeros_like(x))
        return self.slice_last(self.c2c(z, n, False), 0, m)

    def irfft(self, z, n: int):
        """``n // 2 + 1`` complex bins to ``n`` reals (Hermitian symmetry: each bin but the
        zero and Nyquist ones stands for its conjugate too, their imaginary parts unused)."""
        if n == 1:
            return self.part(z, "real")
        if self.native and _is_pow2(n):
            return self.hlo_fft(z, "IRFFT", n)
        m = n // 2 + 1
        if n <= DFT_MAX:
            w = _dft_matrix(n, m, n, 1) * (_bin_weights(n)[:, None] / n)
            return self.matmul(self.stacked(z), np.concatenate([w.real, -w.imag], 0))
        tail = self.conj(self.reverse_last(self.slice_last(z, 1, n - m + 1)))
        full = self.concat_last([z, tail])
        return self.part(self.c2c(full, n, True), "real")
