"""Spectral decompositions: ``irax.eigh`` (Hermitian eigendecomposition) and ``irax.svd``.

    %v, %w = "irax.eigh"(%a) {lower = true} : (tensor<2x4x4xf32>)
               -> (tensor<2x4x4xf32>, tensor<2x4xf32>)
    %s, %u, %vh = "irax.svd"(%a) {full_matrices = false, compute_uv = true}
               : (tensor<5x3xf32>) -> (tensor<3xf32>, tensor<5x3xf32>, tensor<3x3xf32>)

Both act on the two trailing dimensions; leading dimensions are a batch. The NumPy rules
call LAPACK through ``numpy.linalg``; the lowerings run the Jacobi kernels of
``linalg_kernels`` (IREE 3.13 compiles no LAPACK custom call) inside ``stablehlo.while``
loops with a sweep cap. Eigenvectors and singular vectors get the kernels' canonical
phases in both, so eager and compiled results agree. The derivative rules are JAX's.
"""

from __future__ import annotations

import numpy as np

from irax.core import dtypes
from irax.core.abstract import ShapedArray
from irax.dialect import attrs as A
from irax.dialect import linalg_kernels as K
from irax.dialect import sharding as S
from irax.dialect.base import Op, OpError
from irax.dialect.linalg_arrays import HloArrays, IrArrays, NumpyArrays

_INEXACT = tuple(np.dtype(d) for d in (np.float32, np.float64, np.complex64, np.complex128))


def _check_matrix(x: ShapedArray) -> None:
    if x.ndim < 2:
        raise OpError(f"expected an operand of rank >= 2, but got {x.str_short()}")
    if x.dtype not in _INEXACT:
        raise OpError(f"expected a float32, float64, complex64 or complex128 operand, but "
                      f"got {x.str_short()}")


def _real(dt) -> np.dtype:
    return dtypes.real_dtype(dt) if dtypes.is_complex(dt) else np.dtype(dt)


def _batched(b, args, dims, cls, **attrs):
    """A batching rule for ops over trailing matrices: the batch dim moves first."""
    (x,), (d,) = args, dims
    outs = b.emit(cls, [b.moveaxis(x, d, 0)], **attrs)
    return outs, [0] * len(outs)


def _symmetrize(h, a):
    return h.div(h.add(a, h.H(a)), 2)


class Eigh(Op):
    """The eigendecomposition of Hermitian matrices (``jax.lax.linalg.eigh_p``):
    eigenvectors ``v`` (columns, unit norm) and eigenvalues ``w`` in ascending order, of
    the Hermitian matrices whose lower (``lower``) or upper triangle is the operand's (the
    other triangle and the diagonal's imaginary part are not read).

        %v, %w = "irax.eigh"(%a) {lower = true}
               : (tensor<3x3xcomplex<f32>>) -> (tensor<3x3xcomplex<f32>>, tensor<3xf32>)

    Each eigenvector's phase is canonical: its first entry of magnitude at least 0.9 times
    its largest is real and positive. Lowers to cyclic Jacobi sweeps (parallel order) in a
    ``stablehlo.while``, at most ``MAX_SWEEPS``; eigenvalues are Rayleigh quotients.
    Derivative: JAX's (distinct eigenvalues assumed), on the symmetrized operand."""

    name = "irax.eigh"
    shard = classmethod(S.replicated)
    hermitian_tangents = (0,)
    num_operands = 1
    attributes = {"lower": A.Bool}
    defaults = {"lower": True}

    @classmethod
    def infer(cls, a, *, lower):
        _check_matrix(a)
        if a.shape[-1] != a.shape[-2]:
            raise OpError(f"expected square matrices, but got {a.str_short()}")
        return [ShapedArray(a.shape, a.dtype), ShapedArray(a.shape[:-1], _real(a.dtype))]

    @classmethod
    def evaluate(cls, a, *, lower):
        """LAPACK's ``syevd``/``heevd`` through ``numpy.linalg.eigh``; NaNs where it fails."""
        h = NumpyArrays()
        if a.shape[-1] == 0:
            return K.eigh(h, a, lower)
        try:
            w, v = np.linalg.eigh(a, UPLO="L" if lower else "U")
        except np.linalg.LinAlgError:
            return [np.full(a.shape, np.nan, a.dtype), np.full(a.shape[:-1], np.nan)]
        v, _ = K.apply_canonical_phases(h, v.astype(a.dtype))
        return [v, w]

    @classmethod
    def lower(cls, lb, a, *, lower):
        return list(K.eigh(HloArrays(lb), a, lower))

    @classmethod
    def jvp_full(cls, b, ins, dins, out_avals, *, lower):
        """JAX's rule: ``dw = diag(V^H dA V)`` (real part), ``dV = V (F * (V^H dA V))`` with
        ``F[i, j] = 1 / (w_j - w_i)`` off the diagonal and 0 on it."""
        h = IrArrays(b)
        (a,), (da,) = ins, dins
        da = b.instantiate(da, b.aval(a))
        v, w_real = b.emit(cls, [_symmetrize(h, a)], lower=lower)
        n = h.shape(a)[-1]
        w = h.to(w_real, a)
        eye = h.eye(n, n, h.dtype(a))
        fmat = h.sub(h.div(1, h.sub(h.add(eye, h.expand(w, -2)), h.expand(w, -1))), eye)
        vdav = h.matmul(h.matmul(h.H(v), da), v)
        dv = h.matmul(v, h.mul(fmat, vdav))
        dw = h.diagonal(h.real(vdav))
        return [v, w_real], [dv, dw]

    @classmethod
    def batch(cls, b, args, dims, *, lower):
        return _batched(b, args, dims, cls, lower=lower)


def svd_avals(a: ShapedArray, full_matrices: bool, compute_uv: bool) -> list[ShapedArray]:
    batch, (m, n) = a.shape[:-2], a.shape[-2:]
    k = min(m, n)
    s = ShapedArray((*batch, k), _real(a.dtype))
    if not compute_uv:
        return [s]
    ku, kv = (m, n) if full_matrices else (k, k)
    return [s, ShapedArray((*batch, m, ku), a.dtype), ShapedArray((*batch, kv, n), a.dtype)]


class Svd(Op):
    """The singular value decomposition ``a = u diag(s) vh`` (``jax.lax.linalg.svd_p``):
    singular values ``s`` in descending order and, with ``compute_uv``, the unitary (or,
    without ``full_matrices``, orthonormal-column) factors ``u`` and ``vh``.

        %s, %u, %vh = "irax.svd"(%a) {full_matrices = true, compute_uv = true}
               : (tensor<4x2xf32>) -> (tensor<2xf32>, tensor<4x4xf32>, tensor<2x2xf32>)
        %s = "irax.svd"(%a) {full_matrices = false, compute_uv = false}
               : (tensor<3x5xf32>) -> tensor<3xf32>

    The first ``min(m, n)`` columns of ``u`` have canonical phases (the first entry of
    magnitude at least 0.9 times the column's largest is real and positive); ``vh``'s rows
    follow. Lowers to Householder QR then one-sided Jacobi sweeps on the triangular
    factor (a ``stablehlo.while``, at most ``MAX_SWEEPS``). Derivative: JAX's, for
    ``compute_uv=False`` too; not for full ``u``/``vh`` of non-square matrices (as JAX)."""

    name = "irax.svd"
    shard = classmethod(S.replicated)
    num_operands = 1
    attributes = {"full_matrices": A.Bool, "compute_uv": A.Bool}
    defaults = {"full_matrices": True, "compute_uv": True}

    @classmethod
    def infer(cls, a, *, full_matrices, compute_uv):
        _check_matrix(a)
        return svd_avals(a, full_matrices, compute_uv)

    @classmethod
    def evaluate(cls, a, *, full_matrices, compute_uv):
        """LAPACK's ``gesdd`` through ``numpy.linalg.svd``; NaNs where it fails."""
        h = NumpyArrays()
        if 0 in a.shape[-2:]:
            return K.svd(h, a, full_matrices, compute_uv)
        outs = svd_avals(ShapedArray(a.shape, a.dtype), full_matrices, compute_uv)
        try:
            if not compute_uv:
                return [np.linalg.svd(a, compute_uv=False)]
            u, s, vh = np.linalg.svd(a, full_matrices=full_matrices)
        except np.linalg.LinAlgError:
            return [np.full(o.shape, np.nan, o.dtype) for o in outs]
        return [s, *_phase_svd(h, u.astype(a.dtype), vh.astype(a.dtype), min(a.shape[-2:]))]

    @classmethod
    def lower(cls, lb, a, *, full_matrices, compute_uv):
        return list(K.svd(HloArrays(lb), a, full_matrices, compute_uv))

    @classmethod
    def jvp_full(cls, b, ins, dins, out_avals, *, full_matrices, compute_uv):
        """JAX's rule, from the reduced decomposition ``a = U S V^H``."""
        (a,), (da,) = ins, dins
        m, n = b.aval(a).shape[-2:]
        if compute_uv and full_matrices and m != n:
            raise NotImplementedError(
                "Singular value decomposition JVP not implemented for full matrices")
        da = b.instantiate(da, b.aval(a))
        s, u, vt = b.emit(cls, [a], full_matrices=False, compute_uv=True)
        ds, du, dvt = _svd_tangents(IrArrays(b), s, u, vt, da, compute_uv)
        return ([s, u, vt], [ds, du, dvt]) if compute_uv else ([s], [ds])

    @classmethod
    def batch(cls, b, args, dims, *, full_matrices, compute_uv):
        return _batched(b, args, dims, cls, full_matrices=full_matrices,
                        compute_uv=compute_uv)


def _phase_svd(h, u, vh, k: int):
    """``u``'s first ``k`` columns (and ``vh``'s first ``k`` rows) in canonical phases."""
    if k == 0:
        return [u, vh]
    lead, (lead_v,) = K.apply_canonical_phases(h, u[..., :k], (h.H(vh[..., :k, :]),))
    u = np.concatenate([lead, u[..., k:]], -1)
    vh = np.concatenate([h.H(lead_v), vh[..., k:, :]], -2)
    return [u, vh]


def _svd_tangents(h, s, u, vt, da, compute_uv: bool):
    """``(ds, du, dvt)`` (``du``, ``dvt`` None without ``compute_uv``)."""
    v = h.H(vt)
    ds_mat = h.matmul(h.matmul(h.H(u), da), v)
    ds = h.diagonal(h.real(ds_mat))
    if not compute_uv:
        return ds, None, None
    k = h.shape(s)[-1]
    row = h.expand(s, -2)                                         # (..., 1, k)
    col = h.mT(row)
    diffs = h.mul(h.add(row, col), h.sub(row, col))
    eye = h.eye(k, k, h.dtype(s))
    f = h.to(h.sub(h.div(1, h.add(diffs, eye)), eye), da)
    dss = h.mul(h.to(row, da), ds_mat)
    sds = h.mul(h.to(col, da), ds_mat)
    zeros = h.convert(h.eq(s, 0), h.dtype(s))
    s_inv = h.sub(h.div(1, h.add(s, zeros)), zeros)
    diag = h.mul(h.mul(h.sub(ds_mat, h.H(ds_mat)), 0.5), h.to(h.diag_embed(s_inv), da))
    du = h.matmul(u, h.add(h.mul(f, h.add(dss, h.H(dss))), diag))
    dv = h.matmul(v, h.mul(f, h.add(sds, h.H(sds))))
    m, n = h.shape(da)[-2:]
    srow = h.to(row, da)
    if m > n:
        dav = h.matmul(da, v)
        du = h.add(du, h.div(h.sub(dav, h.matmul(u, h.matmul(h.H(u), dav))), srow))
    if n > m:
        dahu = h.matmul(h.H(da), u)
        dv = h.add(dv, h.div(h.sub(dahu, h.matmul(v, h.matmul(vt, dahu))), srow))
    return ds, du, h.H(dv)
