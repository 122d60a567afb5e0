"""The factorizations behind the decomposition ops, as array programs (``linalg_arrays``).

IREE 3.13 compiles none of StableHLO's cholesky/triangular_solve nor any LAPACK custom
call, so each ``lower`` rule of ``linalg_decompositions.py`` runs one of these kernels on
``HloArrays``: loops (``stablehlo.while``) over columns or rounds whose bodies are
dynamic slices, masked rank-1 updates and matrix products. Every kernel takes batches of
matrices (leading dimensions) and shares one loop among them. The same code runs on
``NumpyArrays`` (each op's NumPy rule), which is how the kernels are tested quickly.

- ``cholesky``: left-looking, one column per step (a matrix-vector product each); a matrix
  that is not positive definite gives NaNs everywhere (LAPACK's failure, as JAX reports it).
- ``triangular_solve``: every variant is turned into a left-side solve by transposing;
  forward (lower) or back (upper) substitution, one row per step.
- ``lu``: partial pivoting (LAPACK's choice: the first largest ``|re| + |im|``), one column
  per step; row swaps are selects, so each matrix of a batch pivots on its own rows.
- ``geqrf`` / ``householder_product``: Householder QR with LAPACK's reflector convention
  (``beta = -sign(re(alpha)) * norm``), so ``Q`` and ``R`` agree with LAPACK's.
- ``eigh``: cyclic two-sided Jacobi in parallel (round-robin) order: each round rotates
  ``n/2`` disjoint pairs at once, with the pairs held in the two halves of the matrix so a
  round is a few elementwise passes; rounds shift the halves (the circle method), and a
  sweep of ``n - 1`` rounds returns to the original order. Sweeps stop when no pair needed
  a rotation (relative test) or after ``MAX_SWEEPS``.
- ``svd``: QR first (``A = QR``), then one-sided Jacobi on ``R``'s columns in the same
  order; the singular values are the column norms, and ``U`` is the ``Q`` factor of the
  rotated columns (orthonormal even for zero singular values).
- ``eig``: complex Schur form by shifted QR iterations (Wilkinson shifts from the trailing
  unconverged 2x2 block, deflation on the last row), then eigenvectors of the triangular
  factor by back substitution, normalized like LAPACK's (unit norm, largest entry real).

Eigenvectors and singular vectors are defined up to a phase: ``canonical_phases`` picks
one (the first entry whose magnitude is within 10% of the column's largest is real and
positive), applied by both the NumPy rules and these kernels, so eager and compiled
results agree.
"""

from __future__ import annotations

import numpy as np

from irax.core import dtypes
from irax.dialect.linalg_arrays import I32

MAX_SWEEPS = 40
#: the phase convention's tolerance: the first entry with |v_i| >= PHASE_FRACTION * max|v|
PHASE_FRACTION = 0.9


def real_dtype(dt) -> np.dtype:
    return dtypes.real_dtype(np.dtype(dt)) if dtypes.is_complex(dt) else np.dtype(dt)


def eps_of(dt) -> float:
    return float(np.finfo(real_dtype(dt)).eps)


# ---- helpers ---------------------------------------------------------------------------------
def hermitian_from(h, a, lower: bool):
    """The Hermitian matrix whose ``lower`` (or upper) triangle is ``a``'s (the diagonal's
    imaginary part dropped), as LAPACK reads a Hermitian argument."""
    part = h.tril(a, -1) if lower else h.triu(a, 1)
    diag = h.diag_embed(h.to(h.real(h.diagonal(a)), a))
    return h.add(h.add(part, h.H(part)), diag)


def canonical_phases(h, v):
    """Unit scalars ``p`` (``(..., 1, k)``) with ``v * conj(p)`` having its first entry of
    magnitude at least ``PHASE_FRACTION`` times the column's largest real and positive."""
    n = h.shape(v)[-2]
    mag = h.abs(v)
    big = h.max(mag, (-2,), keepdims=True)
    cand = h.convert(h.ge(mag, h.mul(big, PHASE_FRACTION)), np.float32)
    first = h.expand(h.argmax(cand, -2), -2)                      # (..., 1, k)
    onehot = h.eq(h.iota((n, 1), 0), first)
    entry = h.sum(h.select(onehot, v, 0), (-2,), keepdims=True)
    size = h.abs(entry)
    zero = h.eq(size, 0)
    return h.select(zero, h.full_like(entry, 1), h.div(entry, h.to(h.select(zero, 1, size),
                                                                     entry)))


def apply_canonical_phases(h, v, others=()):
    """``v``'s columns (and the same columns of each of ``others``) times ``conj(p)``."""
    p = h.conj(canonical_phases(h, v))
    return h.mul(v, p), [h.mul(o, p) for o in others]


def nan_where(h, bad, x):
    """``x`` with every matrix whose ``bad`` flag (``(..., 1, 1)``) is set filled with NaN."""
    nan = np.nan + 1j * np.nan if h.is_complex(x) else np.nan
    return h.select(bad, h.full_like(x, nan), x)


# ---- Cholesky --------------------------------------------------------------------------------
def cholesky(h, a):
    """The lower Cholesky factor of the Hermitian matrices whose lower triangle is ``a``'s."""
    n = h.shape(a)[-1]
    if n == 0:
        return a
    a = hermitian_from(h, a, lower=True)
    rows = h.iota((n, 1), 0)

    def step(h, j, state):
        (l,) = state
        col = h.sub(h.column(a, j), h.matmul(l, h.H(h.row(l, j))))   # (..., n, 1)
        d = h.sqrt(h.real(h.dynamic_slice(col, [0] * (h.ndim(col) - 2) + [j, 0],
                                          h.shape(col)[:-2] + (1, 1))))
        dd = h.to(d, col)
        new = h.select(h.gt(rows, j), h.div(col, dd), h.select(h.eq(rows, j), dd, 0))
        return [h.set_column(l, new, j)]

    (l,) = h.fori_loop(0, n, step, [h.zeros_like(a)])
    d = h.real(h.diagonal(l))
    ok = h.and_(h.gt(d, 0), h.is_finite(d))
    bad = h.expand(h.expand(h.not_(_all(h, ok, -1)), -1), -1)
    return nan_where(h, bad, l)


def _all(h, x, axis):
    return h.not_(h.any(h.not_(x), (axis,)))


# ---- triangular solve ------------------------------------------------------------------------
def _substitution(h, t, b, unit: bool, lower: bool):
    """``X`` with ``T X = B`` for triangular ``T`` (``(..., m, m)``, only its ``lower`` or
    upper triangle read) and ``B`` (``(..., m, k)``): forward (or back) substitution, one
    row per step."""
    m = h.shape(t)[-1]
    strict = h.tril(t, -1) if lower else h.triu(t, 1)
    diag = h.diagonal(t)

    def step(h, s, state):
        (x,) = state
        i = s if lower else h.sub(h.scalar(m - 1, I32), s)
        r = h.sub(h.row(b, i), h.matmul(h.row(strict, i), x))
        if not unit:
            r = h.div(r, h.expand(h.element(diag, i), -1))
        return [h.set_row(x, r, i)]

    (x,) = h.fori_loop(0, m, step, [h.zeros_like(b)])
    return x


def triangular_solve(h, a, b, *, left_side, lower, transpose_a, conjugate_a, unit_diagonal):
    """``op(a) x = b`` (``left_side``) or ``x op(a) = b``, ``op`` transposing and/or
    conjugating; reduced to a left-side solve by transposes (an upper triangle is solved
    by back substitution: IREE 3.13 miscompiled the reversed form for one-column ``b``)."""
    if h.shape(a)[-1] == 0 or 0 in h.shape(b):
        return b
    if conjugate_a:
        a = h.conj(a)
    if transpose_a:
        a, lower = h.mT(a), not lower
    if not left_side:
        a, b, lower = h.mT(a), h.mT(b), not lower
    x = _substitution(h, a, b, unit_diagonal, lower)
    return x if left_side else h.mT(x)


# ---- LU --------------------------------------------------------------------------------------
def lu(h, a):
    """``(lu, pivots, permutation)`` of ``P A = L U`` with partial pivoting."""
    s = h.shape(a)
    batch, (m, n) = s[:-2], s[-2:]
    k = min(m, n)
    perm0 = h.broadcast_to(h.iota((m,), 0), batch + (m,))
    piv0 = h.full(batch + (k,), 0, I32)
    if k == 0:
        return a, piv0, perm0
    rows, cols = h.iota((m, 1), 0), h.iota((1, n), 1)
    vrows = h.iota((m,), 0)
    neg_inf = h.scalar(-np.inf, real_dtype(h.dtype(a)))

    def step(h, j, state):
        x, piv, perm = state
        col = h.column(x, j)
        mag = h.add(h.abs(h.real(col)), h.abs(h.imag(col))) if h.is_complex(col) \
            else h.abs(col)
        mag = h.select(h.ge(rows, j), mag, neg_inf)
        i = h.argmax(mag, -2)                                      # (..., 1)
        at_i = h.eq(rows, h.expand(i, -2))                         # (..., m, 1)
        at_j = h.eq(rows, j)
        row_j = h.row(x, j)
        row_i = h.sum(h.select(at_i, x, 0), (-2,), keepdims=True)
        x = h.select(at_j, row_i, h.select(at_i, row_j, x))
        vi, vj = h.eq(vrows, i), h.eq(vrows, j)                    # (..., m)
        p_j = h.element(perm, j)
        p_i = h.sum(h.select(vi, perm, 0), (-1,), keepdims=True)
        perm = h.select(vj, p_i, h.select(vi, p_j, perm))
        piv = h.dynamic_update_slice(piv, i, [0] * len(batch) + [j])
        pivot = h.dynamic_slice(row_i, [0] * (len(batch) + 1) + [j], batch + (1, 1))
        col = h.column(x, j)
        scale = h.and_(h.gt(rows, j), h.ne(pivot, 0))
        col = h.select(scale, h.div(col, h.select(h.ne(pivot, 0), pivot, 1)), col)
        x = h.set_column(x, col, j)
        update = h.mul(col, row_i)
        x = h.sub(x, h.select(h.and_(h.gt(rows, j), h.gt(cols, j)), update, 0))
        return [x, piv, perm]

    return tuple(h.fori_loop(0, k, step, [a, piv0, perm0]))


# ---- Householder QR --------------------------------------------------------------------------
def geqrf(h, a):
    """LAPACK's ``geqrf``: ``R`` on and above the diagonal, the Householder vectors below it
    (unit leading entries implied), and their scalars ``taus``."""
    s = h.shape(a)
    batch, (m, n) = s[:-2], s[-2:]
    k = min(m, n)
    taus0 = h.full(batch + (k,), 0, h.dtype(a))
    if k == 0:
        return a, taus0
    rows, cols = h.iota((m, 1), 0), h.iota((1, n), 1)
    cplx = h.is_complex(a)

    def step(h, j, state):
        x, taus = state
        col = h.column(x, j)                                       # (..., m, 1)
        alpha = h.dynamic_slice(col, [0] * len(batch) + [j, 0], batch + (1, 1))
        below = h.select(h.gt(rows, j), col, 0)
        xnorm2 = h.sum(h.abs2(below), (-2,), keepdims=True)
        ar, ai = h.real(alpha), h.imag(alpha)
        norm = h.sqrt(h.add(h.add(h.mul(ar, ar), h.mul(ai, ai)), xnorm2))
        beta = h.select(h.ge(ar, 0), h.neg(norm), norm)
        trivial = h.and_(h.eq(xnorm2, 0), h.eq(ai, 0))
        safe_beta = h.select(trivial, 1, beta)
        if cplx:
            tau = h.complex(h.div(h.sub(safe_beta, ar), safe_beta),
                            h.neg(h.div(ai, safe_beta)))
        else:
            tau = h.div(h.sub(safe_beta, ar), safe_beta)
        tau = h.select(trivial, 0, tau)
        diff = h.sub(alpha, h.to(safe_beta, alpha))
        v = h.div(below, h.select(trivial, h.full_like(diff, 1), diff))
        v = h.select(h.eq(rows, j), h.full_like(v, 1), v)
        w = h.matmul(h.H(v), x)                                    # (..., 1, n)
        upd = h.mul(h.mul(h.conj(tau), v), w)
        x = h.sub(x, h.select(h.gt(cols, j), upd, 0))
        r_jj = h.select(trivial, alpha, h.to(beta, alpha))
        newcol = h.select(h.lt(rows, j), col, h.select(h.eq(rows, j), r_jj, v))
        x = h.set_column(x, newcol, j)
        taus = h.dynamic_update_slice(taus, h.reshape(tau, batch + (1,)),
                                      [0] * len(batch) + [j])
        return [x, taus]

    return tuple(h.fori_loop(0, k, step, [a, taus0]))


def householder_product(h, a, taus):
    """LAPACK's ``orgqr``: the first ``n`` columns of ``H_1 ... H_k`` for the reflectors
    stored below the diagonal of ``a`` (``(..., m, n)``, ``m >= n >= k``)."""
    s = h.shape(a)
    m, n = s[-2:]
    k = h.shape(taus)[-1]
    q = h.broadcast_to(h.eye(m, n, h.dtype(a)), s)
    if k == 0:
        return q
    rows = h.iota((m, 1), 0)

    def step(h, t, state):
        (q,) = state
        j = h.sub(h.scalar(k - 1, I32), t)
        col = h.column(a, j)
        v = h.select(h.gt(rows, j), col, h.select(h.eq(rows, j), h.full_like(col, 1), 0))
        tau = h.expand(h.element(taus, j), -1)                     # (..., 1, 1)
        w = h.matmul(h.H(v), q)
        return [h.sub(q, h.mul(h.mul(tau, v), w))]

    (q,) = h.fori_loop(0, k, step, [q])
    return q


def qr(h, a, full_matrices: bool):
    """``(q, r)``: ``q`` ``(..., m, m)`` or ``(..., m, min(m, n))``, ``r`` upper trapezoidal
    (JAX's ``qr`` without pivoting)."""
    s = h.shape(a)
    batch, (m, n) = s[:-2], s[-2:]
    kk = m if full_matrices else min(m, n)
    if m == 0 or n == 0:
        q = h.broadcast_to(h.eye(m, kk, h.dtype(a)), batch + (m, kk))
        return q, h.full(batch + (kk, n), 0, h.dtype(a))
    r, taus = geqrf(h, a)
    if m < n:
        q = householder_product(h, h.slice(r, -1, 0, m), taus)
    elif full_matrices:
        q = householder_product(h, h.pad(r, [(0, 0)] * (len(batch) + 1) + [(0, m - n)]), taus)
    else:
        q = householder_product(h, r, taus)
        r = h.slice(r, -2, 0, n)
    return q, h.triu(r)


# ---- Jacobi rotations in round-robin order -------------------------------------------------------
def rotation(h, a, d, b):
    """``(c, s, e, shift)`` of the unitary ``J = [[c, s], [-s conj(e), c conj(e)]]`` that
    makes ``J^H [[a, b], [conj(b), d]] J`` diagonal, namely ``[[a - shift, 0], [0, d +
    shift]]`` (``a``, ``d`` real; ``e`` the phase of ``b``, None for real ``b``)."""
    if h.is_complex(b):
        beta = h.abs(b)
        nz = h.ne(beta, 0)
        e = h.select(nz, h.div(b, h.to(h.select(nz, beta, 1), b)), h.full_like(b, 1))
    else:
        beta, e = b, None
        nz = h.ne(beta, 0)
    tau = h.div(h.sub(d, a), h.mul(h.select(nz, beta, 1), 2))
    sign = h.select(h.ge(tau, 0), h.full_like(tau, 1), h.full_like(tau, -1))
    t = h.div(sign, h.add(h.abs(tau), h.sqrt(h.add(h.mul(tau, tau), 1))))
    t = h.select(nz, t, 0)
    c = h.rsqrt(h.add(h.mul(t, t), 1))
    return c, h.mul(t, c), e, h.mul(t, beta)


def _halves(h, x, axis):
    m = h.shape(x)[axis]
    return h.slice(x, axis, 0, m // 2), h.slice(x, axis, m // 2, m)


def reorder(h, x, axis):
    """``x`` along ``axis`` in the next round's order (the circle method: position 0 stays,
    the others move one step around the cycle top[1..] -> bottom reversed -> top[1])."""
    top, bottom = _halves(h, x, axis)
    k = h.shape(top)[axis]
    if k == 1:
        return x
    pieces = [h.slice(top, axis, 0, 1), h.slice(bottom, axis, 0, 1)]
    if k > 2:
        pieces.append(h.slice(top, axis, 1, k - 1))
    pieces += [h.slice(bottom, axis, 1, k), h.slice(top, axis, k - 1, k)]
    return h.concatenate(pieces, axis)


def _bcast_pairs(h, v, axis, like):
    """Per-pair scalars ``v`` (``(..., k)``) shaped to scale the halves of ``like`` along
    ``axis`` (-1: columns, -2: rows)."""
    v = h.to(v, like)
    return h.expand(v, -2) if axis == -1 else h.expand(v, -1)


def rotate(h, x, c, s, e, axis, adjoint: bool):
    """The pairs (top half, bottom half) of ``x`` along ``axis`` rotated: columns by ``J``
    (``x J``), or rows by ``J^H`` (``J^H x``, ``adjoint``)."""
    top, bottom = _halves(h, x, axis)
    cc, ss = _bcast_pairs(h, c, axis, x), _bcast_pairs(h, s, axis, x)
    if e is not None:
        bottom = h.mul(_bcast_pairs(h, e if adjoint else h.conj(e), axis, x), bottom)
    new_top = h.sub(h.mul(cc, top), h.mul(ss, bottom))
    new_bottom = h.add(h.mul(ss, top), h.mul(cc, bottom))
    return h.concatenate([new_top, new_bottom], axis)


def _pad_even(h, x, axes):
    """``x`` padded with one zero row/column along ``axes`` when their size is odd."""
    m = h.shape(x)[axes[0]]
    if m % 2 == 0:
        return x
    widths = [(0, 0)] * h.ndim(x)
    for ax in axes:
        widths[ax % h.ndim(x)] = (0, 1)
    return h.pad(x, widths)


def orthonormalize(h, v):
    """The ``Q`` factor of ``v`` with its columns' phases those of ``v`` (``v`` nearly
    unitary: restores orthogonality lost to rounding, moving each column by about as
    much)."""
    q, r = qr(h, v, False)
    d = h.expand(h.diagonal(r), -2)
    size = h.abs(d)
    nz = h.ne(size, 0)
    return h.mul(q, h.select(nz, h.div(d, h.to(h.select(nz, size, 1), d)), h.full_like(d, 1)))


# ---- symmetric eigendecomposition ------------------------------------------------------------
def eigh(h, a, lower: bool):
    """``(v, w)``: eigenvectors (columns, canonical phases) and ascending eigenvalues of the
    Hermitian matrices whose ``lower`` (or upper) triangle is ``a``'s.

    Jacobi sweeps find the eigenvectors; the eigenvalues are then the Rayleigh quotients
    of the re-orthonormalized vectors (as accurate as a matrix product)."""
    s = h.shape(a)
    batch, n = s[:-2], s[-1]
    rdt = real_dtype(h.dtype(a))
    if n == 0:
        return a, h.full(batch + (0,), 0, rdt)
    herm = hermitian_from(h, a, lower)
    x0 = _pad_even(h, herm, (-2, -1))
    m = h.shape(x0)[-1]
    half = m // 2
    v0 = h.broadcast_to(h.eye(m, m, h.dtype(a)), h.shape(x0))
    tol = eps_of(rdt)
    floor = h.mul(h.sqrt(h.sum(h.abs2(x0), (-2, -1), keepdims=True)), tol / m)
    floor = h.reshape(floor, batch + (1,))
    ii, jj = h.iota((m, m), 0), h.iota((m, m), 1)
    on_diag = h.eq(ii, jj)
    on_pair = h.or_(h.eq(jj, h.add(ii, half)), h.eq(ii, h.add(jj, half)))

    def one_round(h, _, state):
        x, v, rotated = state
        flat = h.reshape(x, batch + (m * m,))
        app, aqq = _halves(h, h.real(h.slice(flat, -1, 0, m * m, m + 1)), -1)
        apq = h.slice(h.slice(flat, -1, half, m * m, m + 1), -1, 0, half)
        size = h.abs(apq)
        need = h.and_(h.gt(size, floor),
                      h.gt(size, h.mul(h.sqrt(h.abs(h.mul(app, aqq))), tol)))
        c, sn, e, shift = rotation(h, app, aqq, h.select(need, apq, 0))
        x = rotate(h, x, c, sn, e, -1, adjoint=False)
        x = rotate(h, x, c, sn, e, -2, adjoint=True)
        diag = h.concatenate([h.sub(app, shift), h.add(aqq, shift)], -1)
        x = h.select(on_diag, h.diag_embed(h.to(diag, x)), h.select(on_pair, 0, x))
        x = reorder(h, reorder(h, x, -1), -2)
        v = reorder(h, rotate(h, v, c, sn, e, -1, adjoint=False), -1)
        return [x, v, h.or_(rotated, h.any(need))]

    def more(h, state):
        _, _, rotated, sweeps = state
        return h.and_(rotated, h.lt(sweeps, MAX_SWEEPS))

    def sweep(h, state):
        x, v, _, sweeps = state
        x, v, rotated = h.fori_loop(0, m - 1, one_round,
                                    [x, v, h.constant(np.array(False))])
        return [x, v, rotated, h.add(sweeps, h.scalar(1, I32))]

    _, v, _, _ = h.while_loop(more, sweep, [x0, v0, h.constant(np.array(True)),
                                             h.scalar(0, I32)])
    v = orthonormalize(h, h.slice(h.slice(v, -2, 0, n), -1, 0, n))
    w = h.real(h.sum(h.mul(h.conj(v), h.matmul(herm, v)), (-2,)))
    idx = h.broadcast_to(h.iota((n,), 0), batch + (n,))
    w, perm = h.sort([w, idx])
    v = h.permute_columns(v, perm)
    v, _ = apply_canonical_phases(h, v)
    return v, w


# ---- singular value decomposition ------------------------------------------------------------
def _jacobi_columns(h, w):
    """One-sided Jacobi on the columns of ``w`` (``(..., r, p)``, ``p`` even): the unitary
    ``v`` with ``w v``'s columns orthogonal."""
    s = h.shape(w)
    batch, r, p = s[:-2], s[-2], s[-1]
    tol = eps_of(h.dtype(w)) * float(np.sqrt(r))
    v0 = h.broadcast_to(h.eye(p, p, h.dtype(w)), batch + (p, p))
    floor = h.mul(h.sum(h.abs2(w), (-2, -1), keepdims=True), tol * tol)
    floor = h.reshape(floor, batch + (1,))

    def one_round(h, _, state):
        x, v, rotated = state
        top, bottom = _halves(h, x, -1)
        alpha = h.sum(h.abs2(top), (-2,))
        beta = h.sum(h.abs2(bottom), (-2,))
        gamma = h.sum(h.mul(h.conj(top), bottom), (-2,))
        size = h.abs(gamma)
        need = h.and_(h.gt(size, h.mul(h.sqrt(h.mul(alpha, beta)), tol)), h.gt(size, floor))
        c, sn, e, _ = rotation(h, alpha, beta, h.select(need, gamma, 0))
        x = reorder(h, rotate(h, x, c, sn, e, -1, adjoint=False), -1)
        v = reorder(h, rotate(h, v, c, sn, e, -1, adjoint=False), -1)
        return [x, v, h.or_(rotated, h.any(need))]

    def more(h, state):
        return h.and_(state[2], h.lt(state[3], MAX_SWEEPS))

    def sweep(h, state):
        x, v, _, sweeps = state
        x, v, rotated = h.fori_loop(0, p - 1, one_round, [x, v, h.constant(np.array(False))])
        return [x, v, rotated, h.add(sweeps, h.scalar(1, I32))]

    init = [w, v0, h.constant(np.array(True)), h.scalar(0, I32)]
    return h.while_loop(more, sweep, init)[1]


def svd(h, a, full_matrices: bool, compute_uv: bool):
    """``(s, u, vh)`` (or ``(s,)``): descending singular values; canonical phases on
    ``u``'s first ``min(m, n)`` columns (``v``'s follow)."""
    m, n = h.shape(a)[-2:]
    if m < n:
        out = _svd_tall(h, h.H(a), full_matrices, compute_uv)
        if not compute_uv:
            return out
        sv, v, u = out
    else:
        out = _svd_tall(h, a, full_matrices, compute_uv)
        if not compute_uv:
            return out
        sv, u, v = out
    k = min(m, n)
    if k == 0:
        return sv, u, h.H(v)
    lead, lead_v = h.slice(u, -1, 0, k), h.slice(v, -1, 0, k)
    lead, (lead_v,) = apply_canonical_phases(h, lead, (lead_v,))
    u = h.concatenate([lead, h.slice(u, -1, k, h.shape(u)[-1])], -1)
    v = h.concatenate([lead_v, h.slice(v, -1, k, h.shape(v)[-1])], -1)
    return sv, u, h.H(v)


def _svd_tall(h, a, full_matrices: bool, compute_uv: bool):
    """``(s, u, v)`` of ``(..., m, n)`` matrices with ``m >= n`` (``v`` not transposed)."""
    s = h.shape(a)
    batch, (m, n) = s[:-2], s[-2:]
    rdt = real_dtype(h.dtype(a))
    if n == 0:
        sv = h.full(batch + (0,), 0, rdt)
        if not compute_uv:
            return (sv,)
        k = m if full_matrices else 0
        return (sv, h.broadcast_to(h.eye(m, k, h.dtype(a)), batch + (m, k)),
                h.full(batch + (0, 0), 0, h.dtype(a)))
    q, r = qr(h, a, full_matrices and compute_uv)
    r = h.slice(r, -2, 0, n)                                       # (..., n, n)
    idx = h.broadcast_to(h.iota((n,), 0), batch + (n,))
    # R^H J = V S  =>  A = (Q J) S V^H
    j = orthonormalize(h, h.slice(h.slice(_jacobi_columns(h, _pad_even(h, h.H(r), (-1,))),
                                           -2, 0, n), -1, 0, n))
    w = h.matmul(h.H(r), j)
    sv = h.sqrt(h.sum(h.abs2(w), (-2,)))
    neg, perm = h.sort([h.neg(sv), idx])
    sv = h.neg(neg)
    if not compute_uv:
        return (sv,)
    v = orthonormalize(h, h.permute_columns(w, perm))
    u = h.matmul(h.slice(q, -1, 0, n), h.permute_columns(j, perm))
    if full_matrices and m > n:
        u = h.concatenate([u, h.slice(q, -1, n, m)], -1)
    return sv, u, v
