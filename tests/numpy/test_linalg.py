"""Products: dot, matmul (batched broadcasting, 1-D rules), vdot, inner, outer, tensordot,
einsum."""

import itertools

import numpy as np
import pytest
from numpy_helpers import check, sample

import irax
import irax.numpy as jnp

jax = pytest.importorskip("jax")
jjnp = pytest.importorskip("jax.numpy")

rng = np.random.default_rng(2)
MATMUL_SHAPES = [(3,), (2, 3), (4, 2, 3), (1, 2, 3), (5, 1, 2, 3)]
RHS_SHAPES = [(3,), (3, 4), (4, 3, 2), (1, 3, 4), (2, 1, 3, 4)]


@pytest.mark.parametrize("sa,sb", list(itertools.product(MATMUL_SHAPES, RHS_SHAPES)))
def test_matmul_shapes_match_jax(sa, sb):
    a, b = sample(sa, np.float32, rng), sample(sb, np.float32, rng)
    try:
        want = jjnp.matmul(a, b)
    except (TypeError, ValueError) as e:
        with pytest.raises(type(e)):
            jnp.matmul(a, b)
        return
    check(jnp.matmul(a, b), want, rtol=1e-5, atol=1e-5)
    check(jnp.asarray(a) @ b, want, rtol=1e-5, atol=1e-5)


CASES = [
    lambda m, a, b: m.dot(a, b), lambda m, a, b: m.dot(a[0], b), lambda m, a, b: m.dot(a, b[:, 0]),
    lambda m, a, b: m.dot(2.0, a), lambda m, a, b: m.dot(a[0], a[0]),
    lambda m, a, b: m.dot(np.ones((2, 4, 3), np.float32), b),
    lambda m, a, b: m.dot(a.astype(np.int8), b.astype(np.int8)),
    lambda m, a, b: m.dot(a.astype(np.float16), b), lambda m, a, b: m.dot(a > 0, b > 0),
    lambda m, a, b: m.dot(a, b, preferred_element_type=m.float16),
    lambda m, a, b: m.vdot(a, a), lambda m, a, b: m.vdot(a + 1j, a),
    lambda m, a, b: m.inner(a, a), lambda m, a, b: m.inner(a[0], 3),
    lambda m, a, b: m.outer(a[0], b[0]), lambda m, a, b: m.outer(a, 2),
    lambda m, a, b: m.tensordot(a, b, 1), lambda m, a, b: m.tensordot(a, a, 2),
    lambda m, a, b: m.tensordot(a, a, ((0,), (0,))), lambda m, a, b: m.tensordot(a, b, 0),
    lambda m, a, b: m.matmul(a.astype(np.int32), b.astype(np.int8)),
    lambda m, a, b: m.einsum("ij,jk->ik", a, b), lambda m, a, b: m.einsum("ij,jk", a, b),
    lambda m, a, b: m.einsum("ij->ji", a), lambda m, a, b: m.einsum("ij->", a),
    lambda m, a, b: m.einsum("ii->i", a[:, :2]), lambda m, a, b: m.einsum("ii", a[:, :2]),
    lambda m, a, b: m.einsum("ij,ij->i", a, a), lambda m, a, b: m.einsum("i,j->ij", a[0], b[0]),
    lambda m, a, b: m.einsum("bij,bjk->bik", m.stack([a, a]), m.stack([b, b])),
    lambda m, a, b: m.einsum("...ij,jk->...ik", m.stack([a, a]), b),
    lambda m, a, b: m.einsum("ij,jk,kl->il", a, b, b.T),
    lambda m, a, b: m.einsum("i,i", a[0], a[1]),
]


@pytest.mark.parametrize("i", range(len(CASES)))
def test_products_match_jax(i):
    a, b = sample((2, 3), np.float32, rng), sample((3, 4), np.float32, rng)
    want = CASES[i](jjnp, a, b)
    check(CASES[i](jnp, a, b), want, rtol=2e-2 if want.dtype == np.float16 else 1e-5,
          atol=1e-4, msg=str(i))


def test_product_errors():
    with pytest.raises(TypeError, match=r"dot_general requires contracting dimensions to have "
                                        r"the same shape, got \(3,\) and \(2,\)\."):
        jnp.matmul(jnp.ones((2, 3)), jnp.ones((2, 3)))
    with pytest.raises(TypeError, match=r"got \(3,\) and \(4,\)\."):
        jnp.dot(jnp.ones(3), jnp.ones(4))
    with pytest.raises(ValueError, match=r"irax\.numpy\.matmul: incompatible shapes for "
                                         r"broadcasting: \(2, 2, 3\) and \(5, 3, 4\)"):
        jnp.matmul(jnp.ones((2, 2, 3)), jnp.ones((5, 3, 4)))
    with pytest.raises(ValueError, match="does not have enough dimensions"):
        jnp.matmul(jnp.ones(3), 2.0)


def test_products_in_one_jit():
    a, b = sample((2, 3), np.float32, rng), sample((3, 4), np.float32, rng)

    def f(a, b):
        outs = [c(jnp, a, b) for c in CASES]
        return outs + [jnp.matmul(jnp.stack([a, a]), b),
                       jnp.stack([a, a])[:, None] @ jnp.stack([b])]

    got = irax.jit(f)(a, b)
    want = f(jnp.asarray(a), jnp.asarray(b))
    assert len(got) == len(want)
    for k, (g, w) in enumerate(zip(got, want)):
        check(g, w, rtol=2e-2 if w.dtype == np.float16 else 1e-5, atol=1e-4, msg=str(k))
