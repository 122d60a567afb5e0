"""jnp.linalg's products and norms (matmul, tensordot, outer, cross, diagonal, trace,
matrix_transpose, vecdot, multi_dot, norm, vector_norm, matrix_norm): differential against
JAX, eagerly and in one jitted function, with derivatives and errors."""

import numpy as np
import pytest
from factor_helpers import check

import irax
import irax.numpy as jnp

jax = pytest.importorskip("jax")
jjnp = pytest.importorskip("jax.numpy")

_r = np.random.default_rng(0)
X = _r.standard_normal((2, 3, 4)).astype(np.float32)
Z = (_r.standard_normal((3, 3)) + 1j * _r.standard_normal((3, 3))).astype(np.complex64)
V = _r.standard_normal(5).astype(np.float32)
I8 = _r.integers(-4, 5, (3, 4)).astype(np.int8)


def _norm_cases():
    cases = {}
    for ord_ in (None, 1, -1, 2, -2, np.inf, -np.inf, 0, 3, 0.5):
        cases[f"norm vec {ord_}"] = lambda M, o=ord_: M.linalg.norm(V, o)
        cases[f"vector_norm {ord_}"] = lambda M, o=ord_: M.linalg.vector_norm(
            X, ord=2 if o is None else o, axis=(0, 2), keepdims=True)
    for ord_ in (None, "fro", 1, -1, np.inf, -np.inf):
        for axis in ((1, 2), (2, 0)):
            cases[f"norm mat {ord_} {axis}"] = lambda M, o=ord_, a=axis: M.linalg.norm(
                X, o, axis=a)
            cases[f"norm mat keep {ord_} {axis}"] = lambda M, o=ord_, a=axis: M.linalg.norm(
                X, o, axis=a, keepdims=True)
        cases[f"matrix_norm {ord_}"] = lambda M, o=ord_: M.linalg.matrix_norm(
            Z, ord="fro" if o is None else o)
    cases.update({
        "norm all": lambda M: M.linalg.norm(X),
        "norm all keep": lambda M: M.linalg.norm(X, keepdims=True),
        "norm complex": lambda M: M.linalg.norm(Z, axis=0),
        "norm int": lambda M: M.linalg.norm(I8),
        "norm int 1": lambda M: M.linalg.norm(I8, 1),
        "vector_norm all": lambda M: M.linalg.vector_norm(X),
        "vector_norm int": lambda M: M.linalg.vector_norm(I8, ord=np.inf),
    })
    return cases


def _product_cases():
    w = _r.standard_normal((4, 3)).astype(np.float32)
    u = _r.standard_normal((2, 3, 3)).astype(np.float32)
    return {
        "matmul": lambda M: M.linalg.matmul(X, w),
        "matmul int": lambda M: M.linalg.matmul(I8, I8.T),
        "tensordot": lambda M: M.linalg.tensordot(X, w, axes=1),
        "tensordot 2": lambda M: M.linalg.tensordot(X, X, axes=((1, 2), (1, 2))),
        "outer": lambda M: M.linalg.outer(V, V[:3]),
        "outer int": lambda M: M.linalg.outer(I8[0], V),
        "cross": lambda M: M.linalg.cross(u, u[::-1]),
        "cross axis": lambda M: M.linalg.cross(u, u[:, ::-1], axis=1),
        "diagonal": lambda M: M.linalg.diagonal(X),
        "diagonal offset": lambda M: M.linalg.diagonal(X, offset=1),
        "trace": lambda M: M.linalg.trace(X),
        "trace dtype": lambda M: M.linalg.trace(I8, offset=-1, dtype=M.int32),
        "matrix_transpose": lambda M: M.linalg.matrix_transpose(X),
        "vecdot": lambda M: M.linalg.vecdot(X, X),
        "vecdot complex": lambda M: M.linalg.vecdot(Z, Z, axis=0),
        "multi_dot": lambda M: M.linalg.multi_dot([X[0], w, w.T, X[1].T]),
        "multi_dot vec": lambda M: M.linalg.multi_dot([V[:3], X[0], w, V[:3]]),
    }


def _all_cases():
    return {**_norm_cases(), **_product_cases()}


def test_eager_and_jit_match_jax():
    cases = _all_cases()
    keys = list(cases)
    wants = jax.jit(lambda: [cases[k](jjnp) for k in keys])()
    eager = [cases[k](jnp) for k in keys]
    jitted = irax.jit(lambda: [cases[k](jnp) for k in keys])()
    for k, e, j, w in zip(keys, eager, jitted, wants):
        check(e, w, rtol=1e-5, atol=1e-5, msg=k)
        check(j, w, rtol=1e-5, atol=1e-5, msg=f"jit {k}")


def test_norm_gradients_match_jax():
    fs = {"fro": lambda M, x: M.linalg.norm(x), "1": lambda M, x: M.linalg.norm(x, 1),
          "inf": lambda M, x: M.linalg.norm(x, np.inf, axis=(0, 1)),
          "vec 3": lambda M, x: M.linalg.vector_norm(x, ord=3),
          "vec 1": lambda M, x: M.linalg.vector_norm(x, ord=1, axis=0).sum()}
    x = X[0]
    wants = jax.jit(lambda x: [jax.grad(lambda y, f=f: f(jjnp, y))(x) for f in fs.values()])(x)
    for k, f, w in zip(fs, fs.values(), wants):
        check(irax.grad(lambda y, f=f: f(jnp, y))(x), w, rtol=1e-5, atol=1e-5, msg=k)


def test_spectral_norms_need_singular_values():
    try:
        from irax.numpy.linalg import _spectral  # noqa: F401
    except ImportError:
        with pytest.raises(NotImplementedError):
            jnp.linalg.norm(X[0], 2)
        return
    for ord_ in (2, -2, "nuc"):
        check(jnp.linalg.norm(X[0], ord_), jjnp.linalg.norm(X[0], ord_), rtol=1e-4,
              atol=1e-4, msg=str(ord_))
    check(jnp.linalg.matrix_norm(X, ord=2, keepdims=True),
          jjnp.linalg.matrix_norm(X, ord=2, keepdims=True), rtol=1e-4, atol=1e-4)


def _same_error(f):
    try:
        f(jjnp)
    except Exception as e:  # noqa: BLE001 - whatever JAX raises, irax raises its type
        with pytest.raises(type(e)):
            f(jnp)
        return
    raise AssertionError("JAX accepted the input")


@pytest.mark.parametrize("case", [
    lambda M: M.linalg.norm(X, "bad", axis=(1, 2)),
    lambda M: M.linalg.norm(X, "inf", axis=1),
    lambda M: M.linalg.norm(X, 1),
    lambda M: M.linalg.norm(X, axis=(0, 1, 2)),
    lambda M: M.linalg.vector_norm(X, ord="fro"),
    lambda M: M.linalg.outer(X, V),
    lambda M: M.linalg.cross(X, X),
    lambda M: M.linalg.matrix_transpose(V),
    lambda M: M.linalg.multi_dot([X[0]]),
    lambda M: M.linalg.multi_dot([X, X]),
    lambda M: M.linalg.multi_dot([X[0], X[0]]),
    lambda M: M.linalg.norm([1.0, 2.0]),
], ids=lambda f: "")
def test_bad_inputs_raise_jax_error_types(case):
    _same_error(case)
