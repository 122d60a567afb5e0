"""irax.vmap end to end: batched models, per-example gradients, composition with grad,
jit and the jacobians, pytree axes, collectives over named axes, and JAX's error texts.

Eager vmap runs the batched IR in the reference interpreter; IREE compiles are few and
each checks many things at once. Results are compared with NumPy loops and, where it is
installed, with real JAX.
"""

import re
from pathlib import Path

import numpy as np
import pytest

import irax
import irax.numpy as jnp
from irax import lax

f32 = np.float32


def _params(rng, sizes=(3, 5, 2)):
    return [(rng.standard_normal((m, n)).astype(f32) * 0.5,
             rng.standard_normal(n).astype(f32) * 0.1) for m, n in zip(sizes[:-1], sizes[1:])]


def predict(params, x, np_mod=jnp):
    """A small MLP on one example (or on a batch, with NumPy broadcasting)."""
    h = x
    for w, b in params[:-1]:
        h = np_mod.tanh(h @ w + b)
    w, b = params[-1]
    return h @ w + b


def loss(params, x, y):
    return jnp.sum((predict(params, x) - y) ** 2)


def _close(a, b, rtol=1e-5, atol=1e-6):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=rtol, atol=atol)


def _tree_close(a, b, rtol=1e-5, atol=1e-6):
    la, lb = irax.tree_util.tree_leaves(a), irax.tree_util.tree_leaves(b)
    assert irax.tree_util.tree_structure(a) == irax.tree_util.tree_structure(b)
    for x, y in zip(la, lb):
        _close(x, y, rtol, atol)


# ---- the acceptance examples ----------------------------------------------------------------
def test_vmap_of_mlp_equals_manual_batching(rng):
    params = _params(rng)
    xs = rng.standard_normal((6, 3)).astype(f32)
    batched = irax.vmap(predict, in_axes=(None, 0))(params, xs)
    assert batched.shape == (6, 2)
    _close(batched, predict(params, xs, np))


def test_per_example_gradients_under_jit(rng):
    params = _params(rng)
    xs = rng.standard_normal((4, 3)).astype(f32)
    ys = rng.standard_normal((4, 2)).astype(f32)
    per_example = irax.jit(irax.vmap(irax.grad(loss), in_axes=(None, 0, 0)))(params, xs, ys)
    loop = [irax.grad(loss)(params, x, y) for x, y in zip(xs, ys)]
    stacked = irax.tree_util.tree_map(lambda *g: np.stack([np.asarray(t) for t in g]), *loop)
    _tree_close(per_example, stacked)
    jax = pytest.importorskip("jax")

    def jloss(p, x, y):
        return jax.numpy.sum((predict(p, x, jax.numpy) - y) ** 2)

    theirs = jax.vmap(jax.grad(jloss), in_axes=(None, 0, 0))(params, xs, ys)
    _tree_close(per_example, [tuple(np.asarray(t) for t in layer) for layer in theirs],
                rtol=1e-4, atol=1e-5)


def test_normalize_with_psum():
    normalize = irax.vmap(lambda x: x / lax.psum(x, "i"), axis_name="i")
    _close(normalize(jnp.arange(4.0)), [0, 1 / 6, 2 / 6, 3 / 6])


def test_grad_of_vmap(rng):
    params = _params(rng)
    xs = rng.standard_normal((5, 3)).astype(f32)

    def total(p):
        return irax.vmap(predict, (None, 0))(p, xs).sum()

    g = irax.grad(total)(params)
    loop = [irax.grad(lambda p, x=x: predict(p, x).sum())(params) for x in xs]
    _tree_close(g, irax.tree_util.tree_map(lambda *t: sum(np.asarray(v) for v in t), *loop),
                rtol=1e-4, atol=1e-5)
    jax = pytest.importorskip("jax")
    theirs = jax.grad(lambda p: jax.vmap(lambda p, x: predict(p, x, jax.numpy),
                                         (None, 0))(p, xs).sum())(params)
    _tree_close(g, [tuple(np.asarray(t) for t in layer) for layer in theirs], 1e-4, 1e-5)


def test_vmap_of_vmap(rng):
    m = rng.standard_normal((2, 3, 4)).astype(f32)
    v = rng.standard_normal((4, 3)).astype(f32)

    def f(a, b):
        return jnp.sin(a) @ b

    # outer over m's axis 0; inner over m's (remaining) axis 0 and v's axis 1
    out = irax.vmap(irax.vmap(f, in_axes=(0, 1)), in_axes=(0, None))(m, v)
    expect = np.einsum("ijk,kj->ij", np.sin(m), v)
    _close(out, expect)
    sq = irax.vmap(irax.vmap(lambda x: x * x))(m[0])
    _close(sq, m[0] ** 2)


def _vector_fn(x):
    return jnp.stack([x[0] * x[1], jnp.sin(x[2]), x[0] + x[2]])


_X3 = np.array([1.0, 2.0, 0.5], f32)
_JAC = np.array([[2.0, 1.0, 0.0], [0.0, 0.0, np.cos(0.5)], [1.0, 0.0, 1.0]])


def test_jacfwd_unchanged():
    _close(irax.jacfwd(_vector_fn)(_X3), _JAC)
    jac = irax.vmap(irax.jacfwd(_vector_fn))(np.stack([_X3, 2 * _X3]))
    assert jac.shape == (2, 3, 3)
    _close(jac[0], _JAC)


def test_jacrev_unchanged():
    _close(irax.jacrev(_vector_fn)(_X3), _JAC)
    jac = irax.vmap(irax.jacrev(_vector_fn))(np.stack([_X3, 2 * _X3]))
    assert jac.shape == (2, 3, 3)
    _close(jac[0], _JAC)


# ---- pytrees, in_axes and out_axes -----------------------------------------------------------
def test_pytree_in_axes_and_out_axes(rng):
    a = rng.standard_normal((3, 4)).astype(f32)
    b = rng.standard_normal((4, 3)).astype(f32)
    c = rng.standard_normal(2).astype(f32)

    def f(tree, scale):
        (x, y), d = tree
        return {"sum": x + y * scale, "prod": [x * d["c"].sum(), y]}

    tree = ((a, b), {"c": c})
    out = irax.vmap(f, in_axes=(((0, -1), {"c": None}), None),
                    out_axes={"sum": 1, "prod": [0, -1]})(tree, 2.0)
    assert out["sum"].shape == (4, 3)
    _close(out["sum"], (a + 2.0 * b.T).T)
    _close(out["prod"][0], a * c.sum())
    _close(out["prod"][1], b)  # per example b[:, i], put back on the last axis
    lst = irax.vmap(lambda xs: xs[0] - xs[1], in_axes=([0, 1],))([a, b])
    _close(lst, a - b.T)


def test_kwargs_are_mapped_over_axis_0(rng):
    x = rng.standard_normal((3, 2)).astype(f32)
    y = rng.standard_normal((3, 2)).astype(f32)
    out = irax.vmap(lambda x, y: x * y.sum())(x, y=y)
    _close(out, x * y.sum(1, keepdims=True))


def test_unmapped_outputs_and_axis_size():
    x = np.arange(3.0, dtype=f32)
    const, mapped = irax.vmap(lambda x: (jnp.float32(2.0), x), out_axes=(None, 0))(x)
    assert np.asarray(const).shape == () and float(const) == 2.0
    _close(mapped, x)
    out = irax.vmap(lambda x: x + 1.0, in_axes=None, axis_size=4)(jnp.float32(1.0))
    _close(out, [2.0] * 4)


# ---- collectives ----------------------------------------------------------------------------
X = np.arange(12.0, dtype=f32).reshape(4, 3) * np.array([1, -1, 2], f32)


def _collectives(x):
    """Every collective on one mapped array ``x`` (4 examples of shape (3,))."""
    return {
        "psum": lax.psum(x, "i"),
        "pmean": lax.pmean(x, "i"),
        "pmax": lax.pmax(x, "i"),
        "pmin": lax.pmin(x, "i"),
        "index": lax.axis_index("i"),
        "gather0": lax.all_gather(x, "i"),
        "gather1": lax.all_gather(x, "i", axis=1),
        "gather_tiled": lax.all_gather(x, "i", tiled=True),
        "scatter": lax.psum_scatter(jnp.outer(jnp.ones(4), x), "i"),
        "scatter_tiled": lax.psum_scatter(jnp.concatenate([x, x + 1.0, x, x]), "i",
                                          tiled=True),
        "shift": lax.ppermute(x, "i", [(k, (k + 1) % 4) for k in range(4)]),
        "partial": lax.ppermute(x, "i", [(0, 2), (3, 1)]),
        "tree": lax.psum({"a": x, "b": [2 * x]}, "i"),
        "const": lax.psum(1, "i"),
    }


def _expected(xs):
    n = len(xs)
    total = xs.sum(0)
    tiled_src = np.concatenate([xs, xs + 1, xs, xs], axis=1).sum(0).reshape(4, 3)
    shift = np.roll(xs, 1, axis=0)
    partial = np.zeros_like(xs)
    partial[2], partial[1] = xs[0], xs[3]
    return {
        "psum": np.tile(total, (n, 1)),
        "pmean": np.tile(total / n, (n, 1)),
        "pmax": np.tile(xs.max(0), (n, 1)),
        "pmin": np.tile(xs.min(0), (n, 1)),
        "index": np.arange(n),
        "gather0": np.stack([xs] * n),
        "gather1": np.stack([xs.T] * n),
        "gather_tiled": np.stack([xs.reshape(-1)] * n),
        "scatter": np.stack([total] * n),
        "scatter_tiled": tiled_src,
        "shift": shift,
        "partial": partial,
        "tree": {"a": np.tile(total, (n, 1)), "b": [np.tile(2 * total, (n, 1))]},
        "const": np.full(n, n),
    }


def test_collectives_match_numpy():
    out = irax.vmap(_collectives, axis_name="i")(X)
    _tree_close(out, _expected(X))
    assert out["index"].dtype == np.int32


def test_collectives_under_jit_match_eager():
    eager = irax.vmap(_collectives, axis_name="i")(X)
    compiled = irax.jit(irax.vmap(_collectives, axis_name="i"))(X)
    _tree_close(compiled, eager)


def test_collectives_match_jax():
    jax = pytest.importorskip("jax")
    from jax import lax as jlax

    def theirs(x):
        jnp_ = jax.numpy
        return {
            "psum": jlax.psum(x, "i"), "pmean": jlax.pmean(x, "i"), "pmax": jlax.pmax(x, "i"),
            "pmin": jlax.pmin(x, "i"), "index": jlax.axis_index("i"),
            "gather0": jlax.all_gather(x, "i"), "gather1": jlax.all_gather(x, "i", axis=1),
            "gather_tiled": jlax.all_gather(x, "i", tiled=True),
            "scatter": jlax.psum_scatter(jnp_.outer(jnp_.ones(4), x), "i"),
            "scatter_tiled": jlax.psum_scatter(jnp_.concatenate([x, x + 1.0, x, x]), "i",
                                               tiled=True),
            "shift": jlax.ppermute(x, "i", [(k, (k + 1) % 4) for k in range(4)]),
            "tree": jlax.psum({"a": x, "b": [2 * x]}, "i"), "const": jlax.psum(1, "i"),
        }

    ours = irax.vmap(_collectives, axis_name="i")(X)
    del ours["partial"]  # JAX's vmap accepts only full permutations
    _tree_close(ours, jax.vmap(theirs, axis_name="i")(X))


def test_collectives_over_two_named_axes():
    xs = np.arange(6.0, dtype=f32).reshape(2, 3)

    def f(x):
        return (lax.psum(x, ("i", "j")), lax.pmean(x, "i"), lax.axis_index(("i", "j")),
                lax.all_gather(x, "i"), lax.all_gather(x, ("i", "j")))

    s, m, idx, g, gg = irax.vmap(irax.vmap(f, axis_name="j"), axis_name="i")(xs)
    _close(s, np.full((2, 3), 15.0))
    _close(m, np.tile(xs.mean(0), (2, 1)))
    np.testing.assert_array_equal(idx, np.arange(6).reshape(2, 3))
    _close(g, np.broadcast_to(xs.T[None, :, :], (2, 3, 2)))  # g[i, j] = xs[:, j]
    _close(gg, np.broadcast_to(xs.reshape(-1), (2, 3, 6)))
    jax = pytest.importorskip("jax")
    jlax = jax.lax
    theirs = jax.vmap(jax.vmap(lambda x: (jlax.psum(x, ("i", "j")), jlax.pmean(x, "i"),
                                          jlax.axis_index(("i", "j")), jlax.all_gather(x, "i")),
                               axis_name="j"), axis_name="i")(xs)
    for a, b in zip((s, m, idx, g), theirs):
        _close(a, b)


def test_outer_collective_inside_inner_vmap():
    """A collective over the outer axis name is per example of the inner vmap."""
    xs = np.arange(24.0, dtype=f32).reshape(2, 3, 4)

    def f(x):  # x: (4,)
        return (lax.psum(x, "i"), lax.all_gather(x, "i", axis=1),
                lax.psum_scatter(x.reshape(2, 2), "i", scatter_dimension=0),
                lax.ppermute(x, "i", [(0, 1), (1, 0)]), lax.pmax(x, "i"))

    s, g, sc, p, mx = irax.vmap(irax.vmap(f, axis_name="j"), axis_name="i")(xs)
    _close(s, np.broadcast_to(xs.sum(0), xs.shape))
    _close(g, np.broadcast_to(np.moveaxis(xs, 0, 2)[None], (2, 3, 4, 2)))
    tot = xs.reshape(2, 3, 2, 2).sum(0)  # (3, 2, 2): total per j
    _close(sc, np.stack([tot[:, 0], tot[:, 1]]))
    _close(p, xs[::-1])
    _close(mx, np.broadcast_to(xs.max(0), xs.shape))


def test_collective_derivatives_follow_jax():
    x = np.array([1.0, 3.0, 3.0], f32)
    ours = [irax.vmap(irax.grad(f), axis_name="i")(x) for f in (
        lambda x: lax.psum(x, "i"), lambda x: lax.psum(x ** 2, "i"),
        lambda x: lax.psum(x, "i") ** 2)]
    _close(ours[0], [3, 3, 3])
    _close(ours[1], [6, 18, 18])
    _close(ours[2], [42, 42, 42])
    jax = pytest.importorskip("jax")
    jlax = jax.lax
    for o, f in zip(ours, (lambda x: jlax.psum(x, "i"), lambda x: jlax.psum(x ** 2, "i"),
                           lambda x: jlax.psum(x, "i") ** 2)):
        _close(o, jax.vmap(jax.grad(f), axis_name="i")(x))


def test_transposes_of_gather_scatter_and_permute():
    xs = np.arange(6.0, dtype=f32).reshape(3, 2)
    w = np.arange(18.0, dtype=f32).reshape(3, 3, 2)

    def gathered(x, w):  # all_gather's transpose is psum_scatter
        return (lax.all_gather(x, "i") * w).sum()

    def shifted(x, w):  # ppermute's transpose is the inverse permutation
        return (lax.ppermute(x, "i", [(0, 1), (1, 2), (2, 0)]) * w[0]).sum()

    def scattered(x, w):  # psum_scatter's transpose is all_gather
        return (lax.psum_scatter(jnp.outer(jnp.ones(3), x), "i") * w[0]).sum()

    grads = [irax.vmap(irax.grad(f), axis_name="i")(xs, w) for f in (gathered, shifted,
                                                                     scattered)]
    # d/dx_k sum_i <gather_i, w_i> with gather_i[j] = x_j: sum_i w_i[k]
    _close(grads[0], w.sum(0))
    # example i receives x_{i-1}: d/dx_k = w_{k+1}[0]
    _close(grads[1], np.roll(w[:, 0], -1, axis=0))
    # example i gets row i of the total: d/dx_k = sum_i w_i[0]
    _close(grads[2], np.broadcast_to(w[:, 0].sum(0), (3, 2)))
    jax = pytest.importorskip("jax")
    jlax = jax.lax
    jf = [lambda x, w: (jlax.all_gather(x, "i") * w).sum(),
          lambda x, w: (jlax.ppermute(x, "i", [(0, 1), (1, 2), (2, 0)]) * w[0]).sum(),
          lambda x, w: (jlax.psum_scatter(jax.numpy.outer(jax.numpy.ones(3), x), "i")
                        * w[0]).sum()]
    for g, f in zip(grads, jf):
        _close(g, jax.vmap(jax.grad(f), axis_name="i")(xs, w))


def test_all_to_all_is_one_op_whose_transpose_sends_the_blocks_back():
    """``lax.all_to_all`` over one name is one ``irax.all_to_all`` (tiled; the untiled
    form reshapes around it): its batch rule against a NumPy loop over the examples, per
    example under an outer vmap, and its transpose by the adjoint identity
    <a2a(x), w> = <x, a2a^T(w)>, a2a^T the all_to_all with the axes swapped (JAX's grad
    of the untiled form fails its own shape check), and against JAX's grad (tiled)."""
    rng = np.random.default_rng(3)
    xs = rng.standard_normal((3, 2, 6, 3)).astype(f32)
    forms = [(1, 0, True), (1, 1, True), (2, 1, True), (1, 2, False), (2, 0, False)]
    for split, concat, tiled in forms:
        def a2a(v, s=split, c=concat, t=tiled):
            return lax.all_to_all(v, "i", s, c, tiled=t)

        x = xs if tiled else xs[:, :, :3]
        text = irax.make_mlir(irax.vmap(a2a, axis_name="i"))(x)
        assert '"irax.all_to_all"' in text and "all_gather" not in text
        got = np.asarray(irax.vmap(a2a, axis_name="i")(x))
        want = []   # example i: block i of every example's operand, in example order
        for i in range(3):
            blocks = [np.split(x[j], 3, axis=split)[i] for j in range(3)]
            if not tiled:
                blocks = [np.expand_dims(np.squeeze(bl, split), concat) for bl in blocks]
            want.append(np.concatenate(blocks, axis=concat))
        np.testing.assert_array_equal(got, np.stack(want), err_msg=str((split, concat)))
        outer = irax.vmap(irax.vmap(a2a), axis_name="i")(np.stack([x, 2 * x], axis=1))
        np.testing.assert_array_equal(np.asarray(outer)[:, 1], 2 * got)
        w = rng.standard_normal(got.shape).astype(f32)
        grad = irax.vmap(irax.grad(lambda v, w: (a2a(v) * w).sum()), axis_name="i")(x, w)
        back = irax.vmap(lambda u, s=split, c=concat, t=tiled: lax.all_to_all(
            u, "i", c, s, tiled=t), axis_name="i")(w)
        np.testing.assert_allclose(np.asarray(grad), np.asarray(back), rtol=1e-6)
        assert np.isclose((got * w).sum(), (x * np.asarray(back)).sum(), rtol=1e-4)
    jax = pytest.importorskip("jax")

    def loss(m, v, w):
        return (m.all_to_all(v, "i", 1, 0, tiled=True) * w).sum()

    w = rng.standard_normal((3, 6, 2, 3)).astype(f32)
    _close(irax.vmap(irax.grad(lambda v, w: loss(lax, v, w)), axis_name="i")(xs, w),
           jax.vmap(jax.grad(lambda v, w: loss(jax.lax, v, w)), axis_name="i")(xs, w))


def test_all_to_all_over_two_names_matches_jax():
    """Over a tuple of names it is one all_to_all per name (each over that name's share of
    the split axis), the sources' axes joined in row-major order: tiled and untiled, the
    split axis before, after and equal to the concat axis, as JAX's nested vmaps."""
    jax = pytest.importorskip("jax")
    x = np.arange(2 * 3 * 12 * 2, dtype=f32).reshape(2, 3, 12, 2)
    xu = np.arange(2 * 3 * 6 * 2, dtype=f32).reshape(2, 3, 6, 2)
    for split, concat, tiled, a in ((0, 1, True, x), (0, 0, True, x),
                                    (1, 0, True, np.ascontiguousarray(np.swapaxes(x, 2, 3))),
                                    (0, 1, False, xu), (0, 0, False, xu)):
        def f(m, s=split, c=concat, t=tiled):
            return lambda v: m.all_to_all(v, ("i", "j"), s, c, tiled=t)

        want = jax.vmap(jax.vmap(f(jax.lax), axis_name="j"), axis_name="i")(a)
        got = irax.vmap(irax.vmap(f(lax), axis_name="j"), axis_name="i")(a)
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want),
                                      err_msg=str((split, concat, tiled)))


def test_grad_through_batched_collective():
    """vmap expanded first: the derivative of the batched program (grad of vmap)."""
    x = np.array([1.0, 2.0, 4.0], f32)

    def total(x):
        return irax.vmap(lambda v: v / lax.psum(v, "i") + lax.pmax(v, "i"), axis_name="i")(
            x).sum()

    # sum_i x_i / S + 3 max: d/dx_k = 1/S - sum_i x_i / S^2 + 3 [k is the argmax] = 3 [k = 2]
    _close(irax.grad(total)(x), [0.0, 0.0, 3.0], atol=1e-6)


def test_pmax_jvp_shares_ties():
    """JAX has no derivative for pmax; irax follows reduce_max: ties share the tangent."""
    x = np.array([1.0, 3.0, 3.0], f32)
    g = irax.vmap(irax.grad(lambda v: lax.pmax(v, "i") * 2.0), axis_name="i")(x)
    # every example's output is max(x): each of the 2 tied examples gets 1/2 of each
    # example's cotangent 2, summed over the 3 examples
    _close(g, [0.0, 3.0, 3.0])
    gmin = irax.vmap(irax.grad(lambda v: lax.pmin(v, "i")), axis_name="i")(x)
    _close(gmin, [3.0, 0.0, 0.0])


# ---- errors ---------------------------------------------------------------------------------
def test_inconsistent_sizes_names_each_argument():
    def f(x, y, z):
        return x + y.sum() + z["w"].sum()

    with pytest.raises(ValueError) as e:
        irax.vmap(f)(np.ones(3, f32), np.ones((4, 2), f32), {"w": np.ones(3, f32)})
    assert str(e.value) == (
        "vmap got inconsistent sizes for array axes to be mapped:\n"
        "  * most axes (2 of them) had size 3, e.g. axis 0 of argument x of type float32[3];\n"
        "  * one axis had size 4: axis 0 of argument y of type float32[4,2]")
    with pytest.raises(ValueError) as e:
        irax.vmap(lambda x, y: x + y)(np.ones(3, f32), y=np.ones(4, f32))
    assert str(e.value).splitlines()[1:] == [
        "  * one axis had size 3: axis 0 of argument x of type float32[3];",
        "  * one axis had size 4: axis 0 of kwargs['y'] of type float32[4]"]
    jax = pytest.importorskip("jax")
    with pytest.raises(ValueError) as theirs:
        jax.vmap(f)(np.ones(3, f32), np.ones((4, 2), f32), {"w": np.ones(3, f32)})
    with pytest.raises(ValueError) as ours:
        irax.vmap(f)(np.ones(3, f32), np.ones((4, 2), f32), {"w": np.ones(3, f32)})
    assert str(ours.value) == str(theirs.value)


def test_in_axes_errors():
    def add(x, y):
        return x + y

    one = np.ones(3, f32)
    msg = ("vmap in_axes must be an int, None, or a tuple of entries corresponding to the "
           "positional arguments passed to the function, but got len(in_axes)=1, len(args)=2")
    with pytest.raises(ValueError, match=re.escape(msg) + r"\n\(in vmap of add\)"):
        irax.vmap(add, in_axes=(0,))(one, one)
    with pytest.raises(ValueError, match=r"vmap in_axes specification must be a tree prefix "
                                         r"of the corresponding value.*\(in add\)"):
        irax.vmap(add, in_axes=({"a": 0}, 0))(one, one)
    msg = ("vmap was requested to map its argument along axis 1, which implies that its rank "
           "should be at least 2, but is only 1 (its shape is (3,))")
    with pytest.raises(ValueError, match=re.escape(msg) + r"\n\(in argument x of add\)"):
        irax.vmap(add, in_axes=(1, 0))(one, one)
    with pytest.raises(ValueError, match=re.escape("along axis -2, which implies that its "
                                                   "rank should be at least 2")):
        irax.vmap(add, in_axes=(0, -2))(one, one)
    with pytest.raises(ValueError, match="vmap must have at least one non-None value in "
                                         "in_axes or axis_size must be specified"):
        irax.vmap(add, in_axes=None)(one, one)
    with pytest.raises(TypeError, match="vmap in_axes must be an int, None, or"):
        irax.vmap(add, in_axes=(0.5, 0))


def test_out_axes_errors():
    def double(x):
        return x * 2.0, x.sum()

    one = np.ones((2, 3), f32)
    msg = "at vmap out_axes[0], got axis spec None but output was batched on axis 0"
    with pytest.raises(ValueError, match=re.escape(msg) + r"\n\(output 0 of double\)"):
        irax.vmap(double, out_axes=(None, 0))(one)
    with pytest.raises(ValueError, match=re.escape("at vmap out_axes, got axis spec None but "
                                                   "output was batched on axis 1")):
        irax.vmap(lambda x: x * 2.0, in_axes=1, out_axes=None)(one)
    with pytest.raises(ValueError, match="out_axes specification must be a tree prefix"):
        irax.vmap(double, out_axes=(0, 1, 2))(one)
    # psum's result is unmapped, so out_axes=None is fine
    s = irax.vmap(lambda x: lax.psum(x, "i"), axis_name="i", out_axes=None)(one)
    _close(s, one.sum(0))


def test_unbound_axis_names():
    with pytest.raises(NameError, match="^unbound axis name: i$"):
        lax.psum(jnp.ones(3), "i")
    with pytest.raises(NameError, match="^unbound axis name: j$"):
        irax.vmap(lambda x: lax.psum(x, "j"), axis_name="i")(jnp.ones(3))
    with pytest.raises(NameError, match="^unbound axis name: k$"):
        irax.vmap(lambda x: lax.axis_index(("i", "k")), axis_name="i")(jnp.ones(3))
    with pytest.raises(NameError, match="^unbound axis name: i$"):
        irax.vmap(lambda x: lax.all_gather(x, "i"))(jnp.ones(3))


def test_collective_argument_errors():
    one = jnp.ones(4)
    with pytest.raises(ValueError, match=re.escape("ppermute sources and destinations must "
                                                   "be unique, got [(0, 1), (0, 2)].")):
        irax.vmap(lambda x: lax.ppermute(x, "i", [(0, 1), (0, 2)]), axis_name="i")(one)
    with pytest.raises(ValueError, match=r"ppermute: perm indices must be in \[0, 4\)"):
        irax.vmap(lambda x: lax.ppermute(x, "i", [(0, 4)]), axis_name="i")(one)
    with pytest.raises(ValueError, match="psum_scatter: dimension 0 of an operand of shape "
                                         r"\(3,\) must be equal to the size 4"):
        irax.vmap(lambda x: lax.psum_scatter(jnp.ones(3), "i"), axis_name="i")(one)
    with pytest.raises(ValueError, match=r"all_gather: axis 2 is out of bounds"):
        irax.vmap(lambda x: lax.all_gather(x, "i", axis=2), axis_name="i")(one)


def test_unexpanded_collective_cannot_run():
    from irax.dialect.base import OpError
    from irax.dialect.collective import Psum

    with pytest.raises(OpError, match="unbound axis name: i"):
        Psum.evaluate(np.ones(3), axis_name="i")


# ---- documentation --------------------------------------------------------------------------
def _ir_before_after(fun, *args):
    """The traced IR of ``jit(fun)`` and the same module after irax-vectorize."""
    from irax.frontend.compile import clone_module
    from irax.passes import run_pipeline

    module = clone_module(irax.jit(fun).lower(*args).compiler_ir("irax"))
    before = str(module).strip()
    run_pipeline(module, "builtin.module(irax-vectorize)")
    return before, str(module).strip()


def _doc_examples():
    """The IR shown in docs/vmap.md: a matrix-vector product mapped over the vectors, and
    a normalization with psum."""

    def mv(m, v):
        return m @ v

    def normalize(x):
        return x / lax.psum(x, "i")

    yield _ir_before_after(irax.vmap(mv, in_axes=(None, 0)), np.ones((3, 4), f32),
                           np.ones((8, 4), f32))
    yield _ir_before_after(irax.vmap(normalize, axis_name="i"), np.ones(4, f32))


def test_docs_show_the_ir_the_pass_prints():
    doc = (Path(__file__).parents[2] / "docs" / "vmap.md").read_text()
    for before, after in _doc_examples():
        assert before in doc, f"docs/vmap.md is out of date; the traced IR is now:\n{before}"
        assert after in doc, f"docs/vmap.md is out of date; after irax-vectorize:\n{after}"


def test_collective_in_an_unmapped_call_is_vectorized():
    # the callee's operands are not mapped, but it sums over the named axis
    out = irax.vmap(lambda x: x + irax.grad(lambda w: lax.psum(w, "i"))(1.0), axis_name="i")(
        np.zeros(3, np.float32))
    np.testing.assert_allclose(out, [3.0, 3.0, 3.0])
