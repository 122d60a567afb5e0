"""Special matrices of ``jax.scipy.linalg``: block_diag, toeplitz, hankel, circulant,
leslie, companion, fiedler, fiedler_companion, convolution_matrix, hilbert, invhilbert,
pascal, invpascal, helmert, hadamard, dft.

The ones built from vectors take leading batch dims (broadcast between two arguments); the
ones of a static size ``n`` are constants (binomials exact, where JAX rounds them through
``lgamma``: equal to float32 precision).
"""

from __future__ import annotations

import math
import operator

import numpy as np

from irax.core import dtypes
from irax.lax import _shape as LS
from irax.numpy import _util as U
from irax.numpy._creation import asarray, eye, zeros, zeros_like
from irax.numpy._indexing import where
from irax.numpy._manipulation import concatenate
from irax.numpy._math import conj
from irax.numpy._shape import atleast_1d, atleast_2d, broadcast_to, expand_dims
from irax.numpy._ufuncs import abs as abs_
from irax.numpy._ufuncs import negative, true_divide


def _shape(x):
    return U.aval_of(x).shape


def _default_float():
    return dtypes.canonicalize_dtype(np.float64)


def _pair(name: str, c, r):
    """``c`` and ``r`` at least 1-D, one dtype, broadcast batch dims."""
    c, r = U.promote_dtypes(atleast_1d(asarray(c)), atleast_1d(asarray(r)))
    sc, sr = _shape(c), _shape(r)
    batch = U.broadcast_shapes(name, sc[:-1], sr[:-1])
    return broadcast_to(c, batch + sc[-1:]), broadcast_to(r, batch + sr[-1:])


def block_diag(*arrs):
    """The block diagonal matrix of ``arrs``, each at most 2-D
    (``jax.scipy.linalg.block_diag``)."""
    if len(arrs) == 0:
        arrs = (zeros((1, 0)),)
    arrs = U.promote_dtypes(*(asarray(a) for a in arrs))
    bad = [i for i, a in enumerate(arrs) if len(_shape(a)) > 2]
    if bad:
        raise ValueError("Arguments to jax.scipy.linalg.block_diag must have at most 2 "
                         f"dimensions, got {arrs[bad[0]]} at argument {bad[0]}.")
    arrs = [atleast_2d(a) for a in arrs]
    dt = U.aval_of(arrs[0]).dtype
    total = sum(_shape(a)[1] for a in arrs)
    rows, col = [], 0
    for a in arrs:
        cols = _shape(a)[1]
        rows.append(LS.pad(a, np.zeros((), dt), ((0, 0, 0), (col, total - cols - col, 0))))
        col += cols
    return concatenate(rows, axis=0)


def toeplitz(c, r=None):
    """The Toeplitz matrix with first column ``c`` and first row ``r`` (default
    ``conj(c)``) (``jax.scipy.linalg.toeplitz``)."""
    U.check_arraylike("toeplitz", c, *(() if r is None else (r,)))
    if r is None:
        r = conj(asarray(c))
    c, r = _pair("toeplitz", c, r)
    m, n = _shape(c)[-1], _shape(r)[-1]
    if m == 0 or n == 0:
        return zeros(_shape(c)[:-1] + (m, n), U.aval_of(c).dtype)
    elems = concatenate([c[..., ::-1], r[..., 1:]], axis=-1)
    idx = m - 1 - np.arange(m)[:, None] + np.arange(n)[None, :]
    out = elems[..., idx]
    return U.convert(out, U.aval_of(out).dtype, False)   # never weak (JAX: a convolution)


def hankel(c, r=None):
    """The Hankel matrix with first column ``c`` and last row ``r`` (default zeros)
    (``jax.scipy.linalg.hankel``)."""
    U.check_arraylike("hankel", c, *(() if r is None else (r,)))
    c = asarray(c)
    r = zeros_like(c) if r is None else asarray(r)
    if len(_shape(c)) == 0:
        raise ValueError("hankel: c must be at least 1-dimensional, got a scalar.")
    if len(_shape(r)) == 0:
        raise ValueError("hankel: r must be at least 1-dimensional, got a scalar.")
    c, r = _pair("hankel", c, r)
    m, n = _shape(c)[-1], _shape(r)[-1]
    if m == 0 or n == 0:
        return zeros(_shape(c)[:-1] + (m, n), U.aval_of(c).dtype)
    v = concatenate([c, r[..., 1:]], axis=-1)
    out = v[..., np.arange(m)[:, None] + np.arange(n)[None, :]]
    return U.convert(out, U.aval_of(out).dtype, False)   # never weak (JAX: a convolution)


def circulant(c):
    """The circulant matrix with first column ``c`` (``jax.scipy.linalg.circulant``)."""
    U.check_arraylike("circulant", c)
    c = atleast_1d(asarray(c))
    n = _shape(c)[-1]
    return c[..., (np.arange(n)[:, None] - np.arange(n)[None, :]) % n]


def leslie(f, s):
    """The Leslie matrix of fecundities ``f`` and survival rates ``s``
    (``jax.scipy.linalg.leslie``)."""
    U.check_arraylike("leslie", f, s)
    f, s = atleast_1d(asarray(f)), atleast_1d(asarray(s))
    sf, ss = _shape(f), _shape(s)
    if sf[-1] < 2:
        raise ValueError(f"The length of f along the last axis must be at least 2; got shape "
                         f"{sf}.")
    if ss[-1] != sf[-1] - 1:
        raise ValueError("Incorrect lengths for f and s. The length of s along the last axis "
                         "must be one less than the length of f; got f shape "
                         f"{sf} and s shape {ss}.")
    f, s = _pair("leslie", f, s)
    n = sf[-1]
    below = np.eye(n, n - 1, -1, dtype=bool)          # (n, n-1): entry (i+1, i)
    sub = where(below, expand_dims(s, -2), np.zeros((), U.aval_of(s).dtype))
    sub = concatenate([sub, zeros(_shape(sub)[:-1] + (1,), U.aval_of(s).dtype)], axis=-1)
    first = np.arange(n)[:, None] == 0
    return where(first, expand_dims(f, -2), sub)


def companion(a):
    """The companion matrix of the polynomial with coefficients ``a``
    (``jax.scipy.linalg.companion``)."""
    U.check_arraylike("companion", a)
    (a,) = U.promote_dtypes_inexact(asarray(a))
    a = atleast_1d(a)
    if _shape(a)[-1] < 2:
        raise ValueError(f"The length of `a` along the last axis must be at least 2; got shape "
                         f"{_shape(a)}.")
    first = negative(true_divide(a[..., 1:], a[..., :1]))
    m = _shape(a)[-1] - 1
    dt = U.aval_of(first).dtype
    out = broadcast_to(eye(m, m, k=-1, dtype=dt), _shape(first)[:-1] + (m, m))
    return where(np.arange(m)[:, None] == 0, expand_dims(first, -2), out)


def fiedler(a):
    """The Fiedler matrix ``|a_i - a_j|`` (``jax.scipy.linalg.fiedler``)."""
    U.check_arraylike("fiedler", a)
    a = atleast_1d(asarray(a))
    return abs_(expand_dims(a, -1) - expand_dims(a, -2))


def fiedler_companion(a):
    """The Fiedler companion matrix of the polynomial ``a``
    (``jax.scipy.linalg.fiedler_companion``)."""
    U.check_arraylike("fiedler_companion", a)
    (a,) = U.promote_dtypes_inexact(asarray(a))
    a = atleast_1d(a)
    s = _shape(a)
    if s[-1] == 0:
        raise ValueError("fiedler_companion requires the last axis of 'a' to have nonzero "
                         f"length, but got an array of shape {s}.")
    n = s[-1] - 1
    dt = U.aval_of(a).dtype
    if n == 0:
        return zeros(s[:-1] + (0, 0), dt)
    a = true_divide(a, a[..., :1])
    if n == 1:
        return expand_dims(negative(a[..., 1:]), -1)
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    even, odd = i % 2 == 0, i % 2 == 1
    choices = [  # (mask, value): value an (..., n, n) gather of -a or a constant
        ((i == 0) & (j == 0), negative(a[..., 1])[..., None, None]),
        ((i == 1) & (j == 0), 1),
        ((j == i + 1) & even, negative(a[..., np.minimum(i + 2, n) + 0 * j])),
        ((j == i + 2) & even, 1),
        ((j == i - 1) & even & (i >= 2), negative(a[..., np.minimum(i + 1, n) + 0 * j])),
        ((j == i - 2) & odd & (i >= 3), 1),
    ]
    out = zeros(s[:-1] + (n, n), dt)
    for mask, value in reversed(choices):
        out = where(mask, value if not isinstance(value, int) else np.ones((), dt), out)
    return out


def convolution_matrix(a, n: int, mode: str = "full"):
    """The matrix ``A`` with ``A @ v == convolve(a, v, mode)`` for ``v`` of length ``n``
    (``jax.scipy.linalg.convolution_matrix``)."""
    n = operator.index(n)
    if n <= 0:
        raise ValueError(f"n must be a positive integer; got {n}.")
    U.check_arraylike("convolution_matrix", a)
    a = asarray(a)
    s = _shape(a)
    if len(s) == 0:
        raise ValueError("convolution_matrix: a must be at least 1-dimensional, got a scalar.")
    m = s[-1]
    if m < 1:
        raise ValueError(f"len(a) must be at least 1; got shape {s}.")
    if mode not in ("full", "valid", "same"):
        raise ValueError(f"mode must be one of 'full', 'valid', 'same'; got {mode!r}.")
    pad = zeros(s[:-1] + (n - 1,), U.aval_of(a).dtype)
    az = concatenate([a, pad], axis=-1)
    raz = concatenate([a[..., ::-1], pad], axis=-1)
    total = m + n - 1
    if mode == "same":
        trim = min(n, m) - 1
        tb, te = trim // 2, trim - trim // 2
    elif mode == "valid":
        tb = te = min(n, m) - 1
    else:
        tb = te = 0
    return toeplitz(az[..., tb:total - te], raz[..., total - n - tb:total - tb])


def hilbert(n: int):
    """The Hilbert matrix ``1 / (i + j + 1)`` (``jax.scipy.linalg.hilbert``)."""
    n = operator.index(n)
    a = np.arange(n, dtype=np.float64)[:, None]
    return asarray((1 / (a + a.T + 1)).astype(_default_float()))


def _comb(n, k):
    return np.vectorize(lambda a, b: math.comb(a, b) if 0 <= b <= a else 0,
                        otypes=[object])(n, k)


def invhilbert(n: int):
    """The inverse of the Hilbert matrix (``jax.scipy.linalg.invhilbert``)."""
    n = operator.index(n)
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    s = i + j
    val = (np.where(s % 2 == 0, 1, -1).astype(object) * (s + 1) * _comb(n + i, n - j - 1)
           * _comb(n + j, n - i - 1) * _comb(s, i) ** 2)
    return asarray(np.array(val.astype(float), dtype=_default_float()).reshape(n, n))


def _kind(kind, msg_word: str) -> str:
    kind = "symmetric" if kind is None else kind
    valid = ["symmetric", "lower", "upper"]
    if kind not in valid:
        raise ValueError(f"Expected kind to be {msg_word} of: {valid}; got {kind}")
    return kind


def pascal(n: int, kind: str | None = None):
    """The Pascal matrix: binomial coefficients, "symmetric", "lower" or "upper" (float32 as
    JAX's) (``jax.scipy.linalg.pascal``)."""
    kind = _kind(kind, "on")
    n = operator.index(n)
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    low = _comb(i, j).astype(float)
    out = {"lower": low, "upper": low.T, "symmetric": low @ low.T}[kind]
    return asarray(out.astype(np.float32).reshape(n, n))


def invpascal(n: int, kind: str | None = None):
    """The inverse of the Pascal matrix (``jax.scipy.linalg.invpascal``)."""
    kind = _kind(kind, "one")
    n = operator.index(n)
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    low = (np.where((i - j) % 2 == 0, 1, -1) * _comb(i, j)).astype(float)
    out = {"lower": low, "upper": low.T, "symmetric": low.T @ low}[kind]
    return asarray(out.astype(_default_float()).reshape(n, n))


def helmert(n: int, full: bool = False):
    """The Helmert matrix, ``(n-1, n)`` or ``(n, n)`` with ``full``
    (``jax.scipy.linalg.helmert``)."""
    n = operator.index(n)
    if n < 1:
        raise ValueError(f"n must be a positive integer; got {n}.")
    i, j = np.arange(n - 1)[:, None], np.arange(n)[None, :]
    k = (i + 1).astype(np.float64)
    denom = np.sqrt(k * (k + 1))
    h = np.where(j <= i, 1.0 / denom, np.where(j == i + 1, -k / denom, 0.0))
    if full:
        h = np.concatenate([np.full((1, n), 1.0 / np.sqrt(n)), h], axis=0)
    return asarray(h.astype(_default_float()))


def hadamard(n: int, dtype=int):
    """The Sylvester-Hadamard matrix of order ``n`` (a power of 2)
    (``jax.scipy.linalg.hadamard``)."""
    n = operator.index(n)
    if n < 1 or not math.log2(n).is_integer():
        raise ValueError(f"n must be a positive power of 2; got {n}.")
    h = np.ones((1, 1), np.int64)
    for _ in range(int(math.log2(n))):
        h = np.block([[h, h], [h, -h]])
    return asarray(h, dtype=dtype)


def dft(n: int, scale: str | None = None, *, dtype=None):
    """The discrete Fourier transform matrix ``exp(-2 pi i jk / n)``, scaled by ``1/sqrt(n)``
    ("sqrtn") or ``1/n`` ("n") (``jax.scipy.linalg.dft``)."""
    if scale is not None and scale not in ("sqrtn", "n"):
        raise ValueError(f"scale must be None, 'sqrtn', or 'n'; got {scale!r}.")
    if dtype is None:
        dt = dtypes.canonicalize_dtype(np.complex128)
    else:
        dt = dtypes.canonicalize_dtype(np.dtype(dtype))
        if not dtypes.is_complex(dt):
            raise ValueError(f"dtype must be a complex floating-point type; got {dt}.")
    a = np.arange(n)
    w = np.exp(-2j * np.pi * np.outer(a, a) / n)
    if scale == "sqrtn":
        w = w / np.sqrt(n)
    elif scale == "n":
        w = w / n
    return asarray(w.astype(dt))


__all__ = ["block_diag", "circulant", "companion", "convolution_matrix", "dft", "fiedler",
           "fiedler_companion", "hadamard", "hankel", "helmert", "hilbert", "invhilbert",
           "invpascal", "leslie", "pascal", "toeplitz"]
