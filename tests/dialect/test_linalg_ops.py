"""dot_general (linalg.py): eager results against NumPy, type errors with their exact
diagnostics, and one jit-vs-eager check over many contractions at once."""

import ml_dtypes
import numpy as np
import pytest

import irax
from irax.dialect import linalg as L
from irax.dialect import shape as S
from irax.frontend.trace import bind

bf16 = ml_dtypes.bfloat16


def dot(lhs, rhs, lc, rc, lb=(), rb=()):
    return bind(L.DotGeneral, lhs, rhs, lhs_contracting_dimensions=lc,
                rhs_contracting_dimensions=rc, lhs_batch_dimensions=lb, rhs_batch_dimensions=rb)


def expect_error(args, attrs, message):
    with pytest.raises(TypeError) as e:
        dot(*args, **attrs)
    assert f"'irax.dot_general' op {message}" == str(e.value)


def data(rng, shape, dtype=np.float32):
    if np.dtype(dtype).kind in "iu":
        return rng.integers(0, 50, shape).astype(dtype)
    x = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


# (lhs shape, rhs shape, dimension numbers, NumPy expectation)
CASES = [
    ((2, 3), (3, 4), dict(lc=(1,), rc=(0,)), lambda a, b: a @ b),
    ((3,), (3,), dict(lc=(0,), rc=(0,)), lambda a, b: np.dot(a, b)),
    ((2, 3), (4, 3), dict(lc=(1,), rc=(1,)), lambda a, b: a @ b.T),
    ((3, 2), (3, 4), dict(lc=(0,), rc=(0,)), lambda a, b: a.T @ b),
    ((2, 3), (4,), dict(lc=(), rc=()), lambda a, b: np.multiply.outer(a, b)),
    ((5, 2, 3), (5, 3, 4), dict(lc=(2,), rc=(1,), lb=(0,), rb=(0,)), lambda a, b: a @ b),
    ((2, 5, 3), (3, 4, 5), dict(lc=(2,), rc=(0,), lb=(1,), rb=(2,)),
     lambda a, b: np.einsum("ibk,kjb->bij", a, b)),
    ((2, 3, 4, 5), (4, 6, 3, 2), dict(lc=(1, 2), rc=(2, 0), lb=(0,), rb=(3,)),
     lambda a, b: np.einsum("bklm,lnkb->bmn", a, b)),
    ((2, 0), (0, 3), dict(lc=(1,), rc=(0,)), lambda a, b: a @ b),
    ((0, 3), (3, 4), dict(lc=(1,), rc=(0,)), lambda a, b: a @ b),
]


@pytest.mark.parametrize("case", range(len(CASES)))
@pytest.mark.parametrize("dtype", [np.float32, np.complex64])
def test_dot_general_matches_numpy(rng, case, dtype):
    ls, rs, dn, fn = CASES[case]
    a, b = data(rng, ls, dtype), data(rng, rs, dtype)
    got = np.asarray(dot(a, b, **dn))
    want = fn(a, b)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtype", [np.int32, np.int8, np.uint8, np.int16])
def test_dot_general_integers_wrap(rng, dtype):
    a, b = data(rng, (3, 7), dtype), data(rng, (7, 2), dtype)
    got = np.asarray(dot(a, b, (1,), (0,)))
    want = (a.astype(np.int64) @ b.astype(np.int64)).astype(dtype)
    assert got.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", [bf16, np.float16])
def test_dot_general_low_precision_accumulates_in_f32(rng, dtype):
    a = np.ones((1, 2048), dtype)
    b = np.ones((2048, 1), dtype)
    got = np.asarray(dot(a, b, (1,), (0,)))
    assert got.dtype == np.dtype(dtype) and float(got[0, 0]) == 2048.0
    x, y = data(rng, (4, 8), dtype), data(rng, (8, 3), dtype)
    want = (x.astype(np.float32) @ y.astype(np.float32)).astype(dtype)
    np.testing.assert_array_equal(np.asarray(dot(x, y, (1,), (0,))).astype(np.float32),
                                  want.astype(np.float32))


def test_dot_general_weak_type_needs_both_weak():
    w = bind(S.BroadcastInDim, 2.0, shape=(3,), broadcast_dimensions=())
    s = np.ones(3, np.float32)
    assert dot(w, w, (0,), (0,)).weak_type
    assert not dot(w, s, (0,), (0,)).weak_type
    assert not dot(s, s, (0,), (0,)).weak_type


def test_dot_general_batch_dimensions_default_to_empty():
    a = np.ones((2, 3), np.float32)
    r = bind(L.DotGeneral, a, a, lhs_contracting_dimensions=(1,), rhs_contracting_dimensions=(1,))
    assert r.shape == (2, 2)


F = np.ones((2, 3), np.float32)
G = np.ones((4, 3), np.float32)
B = np.ones((5, 3, 4), np.float32)


@pytest.mark.parametrize("args, attrs, message", [
    ((F, np.ones((3, 4), np.float32)), dict(lc=(1,), rc=(1,)),
     "expected contracting dimensions to have the same size, but got (3,) and (4,)"),
    ((B, np.ones((6, 4, 2), np.float32)), dict(lc=(2,), rc=(1,), lb=(0,), rb=(0,)),
     "expected batch dimensions to have the same size, but got (5,) and (6,)"),
    ((F, G), dict(lc=(1,), rc=(1, 0)),
     "expected the same number of lhs and rhs contracting dimensions, but got [1] and [1, 0]"),
    ((B, B), dict(lc=(1,), rc=(1,), lb=(0,), rb=()),
     "expected the same number of lhs and rhs batch dimensions, but got [0] and []"),
    ((F, G.astype(np.int32)), dict(lc=(1,), rc=(1,)),
     "expected operands of the same dtype, but got float32[2,3] and int32[4,3]"),
    ((F.astype(bool), G.astype(bool)), dict(lc=(1,), rc=(1,)),
     "expected numeric operands, but got bool[2,3] and bool[4,3]"),
    ((F, G), dict(lc=(2,), rc=(1,)),
     "expected lhs batch and contracting dimensions to be in [0, 2), but got [2]"),
    ((F, G), dict(lc=(1,), rc=(-1,)),
     "expected rhs batch and contracting dimensions to be in [0, 2), but got [-1]"),
    ((B, B), dict(lc=(0,), rc=(0,), lb=(0,), rb=(0,)),
     "expected lhs batch and contracting dimensions to be unique, but got [0, 0]"),
])
def test_dot_general_errors(args, attrs, message):
    expect_error(args, attrs, message)


# ---- one compiled check over many contractions -----------------------------------------------
def _many_dots(*operands):
    outs = []
    it = iter(operands)
    for _, _, dn, _ in CASES[:8]:
        outs.append(dot(next(it), next(it), **dn))
    for _ in range(3):  # int32, bf16, complex64 matmuls
        outs.append(dot(next(it), next(it), (1,), (0,)))
    return outs


def test_jit_matches_eager_for_dot_general(rng):
    operands = []
    for ls, rs, _, _ in CASES[:8]:
        operands += [data(rng, ls), data(rng, rs)]
    for dtype in (np.int32, bf16, np.complex64):
        operands += [data(rng, (3, 16), dtype), data(rng, (16, 5), dtype)]
    eager = _many_dots(*operands)
    compiled = irax.jit(_many_dots)(*operands)
    assert len(eager) == len(compiled)
    for n, (e, c) in enumerate(zip(eager, compiled)):
        e, c = np.asarray(e), np.asarray(c)
        assert e.dtype == c.dtype and e.shape == c.shape, n
        if e.dtype.kind in "iu":
            np.testing.assert_array_equal(c, e, err_msg=f"output {n}")
            continue
        tol = 2e-2 if e.dtype == bf16 else 1e-5
        if e.dtype == bf16:
            e, c = e.astype(np.float32), c.astype(np.float32)
        np.testing.assert_allclose(c, e, rtol=tol, atol=tol, err_msg=f"output {n}")
