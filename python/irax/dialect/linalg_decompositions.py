"""Matrix decompositions: ``irax.cholesky``, ``irax.triangular_solve``, ``irax.lu``,
``irax.lu_pivots_to_permutation``, ``irax.qr`` (``jax.lax.linalg``'s primitives).

    %l = "irax.cholesky"(%a) : (tensor<4x3x3xf32>) -> tensor<4x3x3xf32>
    %lu, %piv, %perm = "irax.lu"(%a) : (tensor<3x4xf32>)
           -> (tensor<3x4xf32>, tensor<3xi32>, tensor<3xi32>)

Every op takes any leading batch dimensions (so a batching rule moves the mapped axis to
the front). The ``lower`` rules run the kernels of ``linalg_kernels.py`` on
``HloArrays`` (IREE 3.13 compiles neither StableHLO's cholesky/triangular_solve nor
LAPACK custom calls); the NumPy rules use ``numpy.linalg`` where it computes the same
thing (LAPACK's conventions), else the same kernels on ``NumpyArrays``. The derivative
rules are JAX's, written once on ``IrArrays``.
"""

from __future__ import annotations

import numpy as np

from irax.core.abstract import ShapedArray
from irax.dialect import attrs as A
from irax.dialect import linalg_kernels as K
from irax.dialect import sharding as S
from irax.dialect.base import Op, OpError
from irax.dialect.linalg_arrays import I32, HloArrays, IrArrays, NumpyArrays

#: the dtypes the factorizations accept (as JAX's LAPACK kernels)
FACTOR_DTYPES = tuple(np.dtype(d) for d in (np.float32, np.float64, np.complex64,
                                            np.complex128))


def check_matrix(x: ShapedArray, what: str = "operand", square: bool = False) -> None:
    """Raises ``OpError`` unless ``x`` is a batch of (square) float or complex matrices."""
    if x.ndim < 2:
        raise OpError(f"expected the {what} to have rank >= 2, but got {x.str_short()}")
    if x.dtype not in FACTOR_DTYPES:
        raise OpError(f"expected a float32, float64, complex64 or complex128 {what}, but got "
                      f"{x.str_short()}")
    if square and x.shape[-1] != x.shape[-2]:
        raise OpError(f"expected square matrices, but got {x.str_short()}")


def _matrix(aval, shape, dtype=None):
    return ShapedArray(tuple(shape), aval.dtype if dtype is None else np.dtype(dtype),
                       aval.weak_type if dtype is None else False)


def _to_front(b, args, dims):
    return [b.to_front(x, d) for x, d in zip(args, dims)]


# ---- Cholesky ----------------------------------------------------------------------------------
class Cholesky(Op):
    """The lower Cholesky factor ``L`` (``A = L L^H``) of the Hermitian positive definite
    matrices whose lower triangle is the operand's (the upper triangle is not read); a
    matrix that is not positive definite gives NaNs (``jax.lax.linalg.cholesky``'s
    primitive).

        %l = "irax.cholesky"(%a) : (tensor<3x3xf32>) -> tensor<3x3xf32>

    Derivative: JAX's (``L phi(L^-1 dA L^-H)``, ``dA`` taken as given, i.e. Hermitian)."""

    name = "irax.cholesky"
    shard = classmethod(S.replicated)
    num_operands = 1
    hermitian_tangents = (0,)

    @classmethod
    def infer(cls, a):
        check_matrix(a, square=True)
        return a

    @classmethod
    def evaluate(cls, a):
        """``numpy.linalg.cholesky`` of the Hermitian matrices; NaNs where it fails."""
        lower = np.tril(a, -1)
        herm = lower + np.conj(np.swapaxes(lower, -1, -2))
        herm = herm + np.real(np.diagonal(a, 0, -2, -1))[..., None] * np.eye(a.shape[-1])
        herm = herm.astype(a.dtype)
        if a.size == 0:
            return herm
        try:
            return np.linalg.cholesky(herm)
        except np.linalg.LinAlgError:
            flat = herm.reshape((-1,) + a.shape[-2:])
            out = np.empty_like(flat)
            for i, m in enumerate(flat):
                try:
                    out[i] = np.linalg.cholesky(m)
                except np.linalg.LinAlgError:
                    out[i] = np.nan
            return out.reshape(a.shape)

    @classmethod
    def lower(cls, lb, a):
        return K.cholesky(HloArrays(lb), a)

    @classmethod
    def jvp(cls, b, primals, tangents, outs):
        h = IrArrays(b)
        (l,), (da,) = outs, tangents
        tmp = h.one(TriangularSolve, l, da, **_ts(False, True, True, True))
        y = h.one(TriangularSolve, l, tmp, **_ts(True, True, False, False))
        n = h.shape(l)[-1]
        half = h.add(h.eye(n, n, h.dtype(l)), 1)
        return h.matmul(l, h.div(h.tril(y), half))

    @classmethod
    def batch(cls, b, args, dims):
        return b.emit(cls, _to_front(b, args, dims)), [0]


def _ts(left_side, lower, transpose_a, conjugate_a, unit_diagonal=False):
    return dict(left_side=left_side, lower=lower, transpose_a=transpose_a,
                conjugate_a=conjugate_a, unit_diagonal=unit_diagonal)


# ---- triangular solve ----------------------------------------------------------------------------
class TriangularSolve(Op):
    """``X`` with ``op(A) X = B`` (``left_side``) or ``X op(A) = B``, for triangular ``A``
    (only its ``lower`` or upper triangle read; a unit diagonal assumed, not read, with
    ``unit_diagonal``); ``op`` transposes (``transpose_a``) and/or conjugates
    (``conjugate_a``). ``A`` is ``(..., m, m)``, ``B`` ``(..., m, n)`` (left) or
    ``(..., n, m)``, with the same batch dims (``jax.lax.linalg.triangular_solve``).

        %x = "irax.triangular_solve"(%a, %b) {left_side = true, lower = true,
               transpose_a = false, conjugate_a = false, unit_diagonal = false}
               : (tensor<3x3xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>

    Derivative: linear in ``B`` (transpose: the solve with ``op(A)`` transposed); JAX's
    rule for ``A`` (``-op(A)^-1 op(dA) X``)."""

    name = "irax.triangular_solve"
    shard = classmethod(S.replicated)
    num_operands = 2
    attributes = {"left_side": A.Bool, "lower": A.Bool, "transpose_a": A.Bool,
                  "conjugate_a": A.Bool, "unit_diagonal": A.Bool}
    defaults = {"left_side": False, "lower": False, "transpose_a": False,
                "conjugate_a": False, "unit_diagonal": False}

    @classmethod
    def infer(cls, a, b, *, left_side, lower, transpose_a, conjugate_a, unit_diagonal):
        check_matrix(a, "first operand", square=True)
        check_matrix(b, "second operand")
        if a.dtype != b.dtype:
            raise OpError(f"expected operands of one dtype, but got {a.str_short()} and "
                          f"{b.str_short()}")
        common = b.shape[-2] if left_side else b.shape[-1]
        if a.shape[:-2] != b.shape[:-2] or a.shape[-1] != common:
            raise OpError(f"expected compatible shapes, but got {a.str_short()} and "
                          f"{b.str_short()} (left_side={left_side})")
        return ShapedArray(b.shape, b.dtype, a.weak_type and b.weak_type)

    @classmethod
    def evaluate(cls, a, b, *, left_side, lower, transpose_a, conjugate_a, unit_diagonal):
        """``numpy.linalg.solve`` with the effective triangular matrix (the kernel for a
        singular one, which gives infinities and NaNs as a substitution does)."""
        if a.size == 0 or b.size == 0:
            return np.zeros(b.shape, b.dtype)
        t = np.tril(a) if lower else np.triu(a)
        if unit_diagonal:
            n = a.shape[-1]
            t = np.where(np.eye(n, dtype=bool), np.ones((), a.dtype), t)
        if conjugate_a:
            t = np.conj(t)
        if transpose_a:
            t = np.swapaxes(t, -1, -2)
        diag = np.diagonal(t, 0, -2, -1)
        if np.all(diag != 0) and np.all(np.isfinite(t)):
            with np.errstate(all="ignore"):
                try:
                    if left_side:
                        return np.linalg.solve(t, b)
                    return np.swapaxes(np.linalg.solve(np.swapaxes(t, -1, -2),
                                                       np.swapaxes(b, -1, -2)), -1, -2)
                except np.linalg.LinAlgError:
                    pass
        with np.errstate(all="ignore"):
            return K.triangular_solve(NumpyArrays(), a, b, left_side=left_side, lower=lower,
                                      transpose_a=transpose_a, conjugate_a=conjugate_a,
                                      unit_diagonal=unit_diagonal)

    @classmethod
    def lower(cls, lb, a, b, **attrs):
        return K.triangular_solve(HloArrays(lb), a, b, **attrs)

    @classmethod
    def jvp(cls, b, primals, tangents, outs, **attrs):
        """One solve: ``op(A)^-1 (dB - op(tri(dA)) X)`` (left; ``X op(tri(dA))`` right)."""
        h = IrArrays(b)
        (a, _), (da, db), (x,) = primals, tangents, outs
        rhs = db
        if da is not None:
            k = 1 if attrs["unit_diagonal"] else 0
            g = h.tril(da, -k) if attrs["lower"] else h.triu(da, k)
            if attrs["transpose_a"]:
                g = h.mT(g)
            if attrs["conjugate_a"]:
                g = h.conj(g)
            prod = h.matmul(g, x) if attrs["left_side"] else h.matmul(x, g)
            rhs = h.neg(prod) if rhs is None else h.sub(rhs, prod)
        return h.one(cls, a, rhs, **attrs)

    @classmethod
    def transpose(cls, b, ct, a, rhs, **attrs):
        if b.is_linear(a):
            raise OpError("'irax.triangular_solve' op is not linear in its first operand")
        flipped = dict(attrs, transpose_a=not attrs["transpose_a"])
        return None, b.emit(cls, [a, ct], **flipped)[0]

    @classmethod
    def batch(cls, b, args, dims, **attrs):
        return b.emit(cls, _to_front(b, args, dims), **attrs), [0]


# ---- LU ------------------------------------------------------------------------------------------
def lu_numpy(a: np.ndarray):
    """``(lu, pivots, permutation)`` by LAPACK's partial pivoting (the first largest
    ``|re| + |im|`` in the column), one column per step for the whole batch."""
    batch, (m, n) = a.shape[:-2], a.shape[-2:]
    k = min(m, n)
    x = np.array(a, copy=True).reshape((int(np.prod(batch)), m, n))
    nb = x.shape[0]
    piv = np.zeros((nb, k), np.int32)
    perm = np.tile(np.arange(m, dtype=np.int32), (nb, 1))
    rows = np.arange(nb)
    with np.errstate(all="ignore"):
        for j in range(k):
            col = x[:, j:, j]
            mag = np.abs(col.real) + np.abs(col.imag) if np.iscomplexobj(col) else np.abs(col)
            i = np.argmax(mag, axis=1) + j
            piv[:, j] = i
            x[rows, j], x[rows, i] = x[rows, i].copy(), x[rows, j].copy()
            perm[rows, j], perm[rows, i] = perm[rows, i].copy(), perm[rows, j].copy()
            p = x[:, j, j]
            nz = p != 0
            x[:, j + 1:, j] = np.where(nz[:, None], x[:, j + 1:, j] / np.where(nz, p, 1)[:, None],
                                       x[:, j + 1:, j])
            x[:, j + 1:, j + 1:] -= x[:, j + 1:, j, None] * x[:, j, None, j + 1:]
    return (x.reshape(a.shape), piv.reshape(batch + (k,)), perm.reshape(batch + (m,)))


class Lu(Op):
    """LU decomposition with partial pivoting, ``P A = L U``: ``(lu, pivots, permutation)``
    as ``jax.lax.linalg.lu``: ``L`` (unit diagonal, not stored) below the diagonal of
    ``lu`` and ``U`` on and above it, the row swaps ``pivots`` (int32, ``(..., min(m,
    n))``) and the permutation they make (int32, ``(..., m)``).

        %lu, %piv, %perm = "irax.lu"(%a) : (tensor<3x3xf32>)
               -> (tensor<3x3xf32>, tensor<3xi32>, tensor<3xi32>)

    Derivative: JAX's (``L tril(L^-1 P dA U^-1, -1) + triu(L^-1 P dA U^-1) U``); the
    integer results have none."""

    name = "irax.lu"
    shard = classmethod(S.replicated)
    num_operands = 1

    @classmethod
    def infer(cls, a):
        check_matrix(a)
        batch, (m, n) = a.shape[:-2], a.shape[-2:]
        return [a, _matrix(a, batch + (min(m, n),), I32), _matrix(a, batch + (m,), I32)]

    @classmethod
    def evaluate(cls, a):
        return list(lu_numpy(a))

    @classmethod
    def lower(cls, lb, a):
        return list(K.lu(HloArrays(lb), a))

    @classmethod
    def jvp(cls, b, primals, tangents, outs):
        h = IrArrays(b)
        (da,), (lu, _, perm) = tangents, outs
        return [lu_tangent(h, lu, perm, da), None, None]

    @classmethod
    def batch(cls, b, args, dims):
        return b.emit(cls, _to_front(b, args, dims)), [0, 0, 0]


def permutation_matrix(h, perm, dtype):
    """``P`` with ``(P x)[i] = x[perm[i]]`` (``(..., m, m)`` for ``perm`` ``(..., m)``)."""
    m = h.shape(perm)[-1]
    return h.convert(h.eq(h.expand(perm, -1), h.iota((m, m), 1)), dtype)


def lu_factors(h, lu):
    """``(L, U)``: the unit lower ``(..., m, m)`` and upper ``(..., n, n)`` square factors
    held in ``lu`` (extended by the identity past ``min(m, n)``)."""
    s = h.shape(lu)
    nb, (m, n) = len(s) - 2, s[-2:]
    k = min(m, n)
    dt = h.dtype(lu)
    l_part = h.pad(h.tril(h.slice(lu, -1, 0, k), -1), [(0, 0)] * (nb + 1) + [(0, m - k)])
    l_full = h.add(l_part, h.eye(m, m, dt))
    u_part = h.pad(h.triu(h.slice(lu, -2, 0, k)), [(0, 0)] * nb + [(0, n - k), (0, 0)])
    i, j = h.iota((n, n), 0), h.iota((n, n), 1)
    u_eye = h.convert(h.and_(h.eq(i, j), h.ge(i, k)), dt)
    return l_full, h.add(u_part, u_eye)


def lu_tangent(h, lu, perm, da):
    """JAX's tangent of ``lu`` for the operand tangent ``da``."""
    l_full, u_full = lu_factors(h, lu)
    x = h.matmul(permutation_matrix(h, perm, h.dtype(lu)), da)
    la = h.one(TriangularSolve, l_full, x, **_ts(True, True, False, False, True))
    lau = h.one(TriangularSolve, u_full, la, **_ts(False, False, False, False))
    return h.add(h.matmul(l_full, h.tril(lau, -1)), h.matmul(h.triu(lau), u_full))


class LuPivotsToPermutation(Op):
    """The permutation (int32, ``(..., permutation_size)``) made by applying the row swaps
    ``pivots`` (int32, ``(..., k)``, ``k <= permutation_size``) in order to the identity
    (``jax.lax.linalg.lu_pivots_to_permutation``).

        %p = "irax.lu_pivots_to_permutation"(%piv) {permutation_size = 4 : i64}
               : (tensor<3xi32>) -> tensor<4xi32>
    """

    name = "irax.lu_pivots_to_permutation"
    shard = classmethod(S.replicated)
    num_operands = 1
    attributes = {"permutation_size": A.I64}
    differentiable = False

    @classmethod
    def infer(cls, pivots, *, permutation_size):
        if pivots.ndim < 1 or pivots.dtype != I32:
            raise OpError(f"expected int32 pivots of rank >= 1, but got {pivots.str_short()}")
        if permutation_size < pivots.shape[-1]:
            raise OpError(f"expected permutation_size >= {pivots.shape[-1]} (the pivots' "
                          f"trailing dimension), but got {permutation_size}")
        return _matrix(pivots, pivots.shape[:-1] + (permutation_size,), I32)

    @classmethod
    def evaluate(cls, pivots, *, permutation_size):
        return pivots_to_permutation(NumpyArrays(), pivots, permutation_size)

    @classmethod
    def lower(cls, lb, pivots, *, permutation_size):
        return pivots_to_permutation(HloArrays(lb), pivots, permutation_size)

    @classmethod
    def batch(cls, b, args, dims, *, permutation_size):
        return b.emit(cls, _to_front(b, args, dims), permutation_size=permutation_size), [0]


def pivots_to_permutation(h, pivots, m: int):
    """The swaps ``pivots`` applied to ``iota(m)`` one after the other."""
    s = h.shape(pivots)
    batch, k = s[:-1], s[-1]
    perm0 = h.broadcast_to(h.iota((m,), 0), batch + (m,))
    if m == 0 or k == 0:
        return perm0
    vrows = h.iota((m,), 0)

    def step(h, j, state):
        (perm,) = state
        i = h.element(pivots, j)
        vi, vj = h.eq(vrows, i), h.eq(vrows, j)
        p_i = h.sum(h.select(vi, perm, 0), (-1,), keepdims=True)
        p_j = h.element(perm, j)
        return [h.select(vj, p_i, h.select(vi, p_j, perm))]

    return h.fori_loop(0, k, step, [perm0])[0]


# ---- QR ------------------------------------------------------------------------------------------
class Qr(Op):
    """The QR decomposition ``A = Q R`` by Householder reflections (LAPACK's ``geqrf`` and
    ``orgqr`` conventions): ``Q`` ``(..., m, m)`` with ``full_matrices`` else ``(..., m,
    min(m, n))``, ``R`` upper trapezoidal ``(..., m or min(m, n), n)``
    (``jax.lax.linalg.qr`` without pivoting).

        %q, %r = "irax.qr"(%a) {full_matrices = false}
               : (tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<3x3xf32>)

    Derivative: JAX's (thin, wide and full-matrices cases)."""

    name = "irax.qr"
    shard = classmethod(S.replicated)
    num_operands = 1
    attributes = {"full_matrices": A.Bool}
    defaults = {"full_matrices": True}

    @classmethod
    def infer(cls, a, *, full_matrices):
        check_matrix(a)
        batch, (m, n) = a.shape[:-2], a.shape[-2:]
        k = m if full_matrices else min(m, n)
        return [_matrix(a, batch + (m, k)), _matrix(a, batch + (k, n))]

    @classmethod
    def evaluate(cls, a, *, full_matrices):
        """``numpy.linalg.qr`` (LAPACK's geqrf and orgqr, as JAX on CPU)."""
        if a.size == 0:
            return list(K.qr(NumpyArrays(), a, full_matrices))
        q, r = np.linalg.qr(a, mode="complete" if full_matrices else "reduced")
        return [q, r]

    @classmethod
    def lower(cls, lb, a, *, full_matrices):
        return list(K.qr(HloArrays(lb), a, full_matrices))

    @classmethod
    def jvp(cls, b, primals, tangents, outs, *, full_matrices):
        h = IrArrays(b)
        (x,), (dx,), (q, r) = primals, tangents, outs
        return list(qr_tangents(h, x, dx, q, r, full_matrices))

    @classmethod
    def batch(cls, b, args, dims, *, full_matrices):
        return b.emit(cls, _to_front(b, args, dims), full_matrices=full_matrices), [0, 0]


def _thin_qr_tangents(h, q, r, dx):
    """JAX's ``(dq, dr)`` of ``(..., m, n)`` matrices with ``m >= n`` (thin factors)."""
    dx_rinv = h.one(TriangularSolve, r, dx, **_ts(False, False, False, False))
    qt = h.matmul(h.H(q), dx_rinv)
    low = h.tril(qt, -1)
    do = h.sub(low, h.H(low))
    if h.is_complex(qt):
        n = h.shape(r)[-1]
        do = h.add(do, h.mul(h.eye(n, n, h.dtype(qt)), h.mul(h.sub(qt, h.conj(qt)), 0.5)))
    dq = h.add(h.matmul(q, h.sub(do, qt)), dx_rinv)
    dr = h.matmul(h.sub(qt, do), r)
    return dq, dr


def qr_tangents(h, x, dx, q, r, full_matrices: bool):
    """JAX's ``(dq, dr)`` for the operand tangent ``dx``."""
    m, n = h.shape(x)[-2:]
    if m < n:
        dq, dr1 = _thin_qr_tangents(h, q, h.slice(r, -1, 0, m), h.slice(dx, -1, 0, m))
        dr2 = h.add(h.matmul(h.H(dq), h.slice(x, -1, m, n)),
                    h.matmul(h.H(q), h.slice(dx, -1, m, n)))
        return dq, h.concatenate([dr1, dr2], -1)
    q_mn = h.slice(q, -1, 0, n)
    r_nn = h.slice(r, -2, 0, n)
    dq_mn, dr_nn = _thin_qr_tangents(h, q_mn, r_nn, dx)
    if not full_matrices or m == n:
        return dq_mn, dr_nn
    # the full-matrices extension (arXiv:2409.13374, eqs. 32-33)
    q_nn, q_pn = h.slice(q_mn, -2, 0, n), h.slice(q_mn, -2, n, m)
    q_mp = h.slice(q, -1, n, m)
    dq_nn, dq_pn = h.slice(dq_mn, -2, 0, n), h.slice(dq_mn, -2, n, m)
    shifted = h.sub(q_nn, h.eye(n, n, h.dtype(q)))
    z_pn_h = lu_solve_adjoint(h, shifted, h.H(q_pn))
    z_pn = h.H(z_pn_h)
    dq_mp = h.sub(h.matmul(dq_mn, z_pn_h),
                  h.matmul(h.add(q_mn, h.matmul(q_mp, z_pn)),
                           h.H(h.sub(dq_pn, h.matmul(z_pn, dq_nn)))))
    dq = h.concatenate([dq_mn, dq_mp], -1)
    s = h.shape(dr_nn)
    dr = h.concatenate([dr_nn, h.full(s[:-2] + (m - n, n), 0, h.dtype(dr_nn))], -2)
    return dq, dr


def lu_solve_adjoint(h, a, rhs):
    """``X`` with ``A^H X = rhs`` through ``A``'s LU decomposition (``P A = L U``)."""
    lu, _, perm = h.apply(Lu, a)
    y = h.one(TriangularSolve, lu, rhs, **_ts(True, False, True, True))
    w = h.one(TriangularSolve, lu, y, **_ts(True, True, True, True, True))
    return h.matmul(h.mT(permutation_matrix(h, perm, h.dtype(a))), w)
