"""Derivative rules of the structural ops: shape.py, indexing.py, scatter.py, reduction.py and
linalg.py, each under several attribute configurations.

- forward mode: ``irax.jvp`` against central differences (float64);
- reverse mode: the dot-product test ``<ct, J t> == <J^T ct, t>`` of ``irax.vjp`` against
  ``irax.jvp`` (float64);
- ``irax.grad`` against ``jax.grad`` of the ``jax.lax`` equivalent;
- the rules' IR compiled by IREE: many ops' jvp and vjp in one ``irax.jit``.

Ops are applied with ``bind`` so the tests do not depend on ``irax.numpy``.
"""

import numpy as np
import pytest

import irax
from irax.dialect import REGISTRY
from irax.dialect import indexing as I
from irax.dialect import linalg as L
from irax.dialect import reduction as R
from irax.dialect import scatter as SC
from irax.dialect import shape as S
from irax.frontend.trace import bind

_rng = np.random.default_rng(0)


def _r(*shape):
    return _rng.standard_normal(shape)


def _i(*values):
    return np.array(values, np.int32)


def _op(cls, **attrs):
    return lambda *xs: bind(cls, *xs, **attrs)


def _with(cls, args, **attrs):
    """``cls`` applied to ``args`` where ``None`` marks the differentiated operands (in
    order) and anything else is a fixed operand (indices, constants)."""

    def f(*diff):
        it = iter(diff)
        return bind(cls, *[next(it) if a is None else a for a in args], **attrs)

    return f


_ROWS = dict(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,),
             slice_sizes=(1, 3), index_vector_dim=1)
_ROWS_SCATTER = dict(update_window_dims=(1,), inserted_window_dims=(0,),
                     scatter_dims_to_operand_dims=(0,), index_vector_dim=1)
#: windows of 2x2 at 2-d starts (windows along indexed dims; some starts out of bounds)
_PATCHES = dict(offset_dims=(1, 2), collapsed_slice_dims=(), start_index_map=(1, 0),
                slice_sizes=(2, 2), index_vector_dim=1)
_PATCHES_SCATTER = dict(update_window_dims=(1, 2), inserted_window_dims=(),
                        scatter_dims_to_operand_dims=(1, 0), index_vector_dim=1)
_BATCHED = dict(offset_dims=(2,), collapsed_slice_dims=(1,), start_index_map=(1,),
                slice_sizes=(1, 1, 2), index_vector_dim=2, operand_batching_dims=(0,),
                start_indices_batching_dims=(0,))
_BATCHED_SCATTER = dict(update_window_dims=(2,), inserted_window_dims=(1,),
                        scatter_dims_to_operand_dims=(1,), index_vector_dim=2,
                        input_batching_dims=(0,), scatter_indices_batching_dims=(0,))
_ROW_IDX = _i([1], [4], [7], [-2], [1])
_PATCH_IDX = _i([0, 0], [3, 1], [5, 2], [-1, 4], [3, 1])
_UNIQUE_ROWS = _i([1], [4], [7], [0])
_BATCH_IDX = np.array([[[0], [3]], [[2], [9]]], np.int32)
_DIMS = dict(lhs_contracting_dimensions=(1,), rhs_contracting_dimensions=(0,))
_BATCH_DIMS = dict(lhs_contracting_dimensions=(2,), rhs_contracting_dimensions=(1,),
                   lhs_batch_dimensions=(0,), rhs_batch_dimensions=(0,))
#: batch dims not leading, contracting dims paired out of order
_ODD_DIMS = dict(lhs_contracting_dimensions=(2, 0), rhs_contracting_dimensions=(0, 3),
                 lhs_batch_dimensions=(1,), rhs_batch_dimensions=(2,))
_ODD_RHS = _r(4, 2, 5, 3)
_WITH_ZEROS = np.array([[2.0, 0.0, 3.0, -1.5], [0.0, 1.5, 0.0, 2.0], [1.2, -0.7, 0.9, 2.0]])


def _case(id, f, *primals, adds_tangents=False):
    """``adds_tangents``: the rule sums two operands' tangents with ``irax.add``, whose
    reverse-mode rule lives in elementwise.py."""
    return pytest.param(f, primals, adds_tangents, id=id)


CASES = [
    # shape.py
    _case("broadcast_in_dim/unsorted", _op(S.BroadcastInDim, shape=(4, 3, 2),
                                           broadcast_dimensions=(2, 1)), _r(2, 3)),
    _case("broadcast_in_dim/expand-1", _op(S.BroadcastInDim, shape=(3, 4, 2),
                                           broadcast_dimensions=(2, 0)), _r(1, 3)),
    _case("broadcast_in_dim/scalar", _op(S.BroadcastInDim, shape=(2, 3),
                                         broadcast_dimensions=()), _r()),
    _case("reshape", _op(S.Reshape, new_sizes=(4, 6)), _r(2, 3, 4)),
    _case("reshape/to-rank-0", _op(S.Reshape, new_sizes=()), _r(1, 1)),
    _case("transpose", _op(S.Transpose, permutation=(2, 0, 1)), _r(2, 3, 4)),
    _case("slice/strided", _op(S.Slice, start_indices=(1, 0), limit_indices=(5, 6),
                               strides=(2, 4)), _r(6, 7)),
    _case("slice/unit", _op(S.Slice, start_indices=(0, 2), limit_indices=(3, 3),
                            strides=(1, 1)), _r(4, 5)),
    _case("slice/empty", _op(S.Slice, start_indices=(2, 1), limit_indices=(2, 4),
                             strides=(1, 3)), _r(4, 5)),
    _case("concatenate/repeated-operand", lambda x, y: bind(S.Concatenate, x, y, x, dimension=1),
          _r(3, 2), _r(3, 4)),
    _case("concatenate/one-fixed", _with(S.Concatenate, [_r(1, 3), None], dimension=0),
          _r(2, 3)),
    _case("pad/negative-and-interior", _with(S.Pad, [None, np.float64(0.5)],
                                             edge_padding_low=(1, -2), edge_padding_high=(-1, 3),
                                             interior_padding=(2, 1)), _r(4, 5)),
    _case("pad/padding-value", _op(S.Pad, edge_padding_low=(2, -1), edge_padding_high=(-3, 0),
                                   interior_padding=(1, 0)), _r(3, 4), _r()),
    _case("pad/only-padding-value", _with(S.Pad, [_r(2, 2), None], edge_padding_low=(1, 0),
                                          edge_padding_high=(0, 1), interior_padding=(1, 1)),
          _r()),
    _case("pad/crop-everything-but-one", _op(S.Pad, edge_padding_low=(-2,),
                                             edge_padding_high=(-2,), interior_padding=(0,)),
          _r(5), _r()),
    _case("reverse", _op(S.Reverse, dimensions=(0, 2)), _r(2, 3, 4)),
    _case("reverse/none", _op(S.Reverse, dimensions=()), _r(3)),
    # indexing.py
    _case("dynamic_slice", _with(I.DynamicSlice, [None, np.int32(1), np.int32(2)],
                                 slice_sizes=(3, 2)), _r(5, 4)),
    _case("dynamic_slice/clamped", _with(I.DynamicSlice, [None, np.int32(9), np.int32(-3)],
                                         slice_sizes=(3, 2)), _r(5, 4)),
    _case("dynamic_update_slice", _with(I.DynamicUpdateSlice, [None, None, np.int32(1),
                                                               np.int32(2)]),
          _r(5, 4), _r(2, 2)),
    _case("dynamic_update_slice/clamped-update-only",
          _with(I.DynamicUpdateSlice, [_r(5, 4), None, np.int32(7), np.int32(-1)]), _r(3, 2)),
    _case("dynamic_update_slice/operand-only",
          _with(I.DynamicUpdateSlice, [None, _r(3, 2), np.int32(1), np.int32(1)]), _r(5, 4)),
    _case("gather/rows-clamped-duplicates", _with(I.Gather, [None, _ROW_IDX], **_ROWS),
          _r(6, 3)),
    _case("gather/patches", _with(I.Gather, [None, _PATCH_IDX], **_PATCHES), _r(5, 4)),
    _case("gather/batching", _with(I.Gather, [None, _BATCH_IDX], **_BATCHED), _r(2, 5, 2)),
    _case("gather/implicit-index-vector",
          _with(I.Gather, [None, _i(0, 3, 1)], offset_dims=(1, 2), collapsed_slice_dims=(),
                start_index_map=(1,), slice_sizes=(3, 2), index_vector_dim=1), _r(3, 4)),
    # scatter.py
    _case("scatter_add/rows-dropped-duplicates",
          _with(SC.ScatterAdd, [None, _ROW_IDX, None], **_ROWS_SCATTER), _r(6, 3), _r(5, 3)),
    _case("scatter_add/patches", _with(SC.ScatterAdd, [None, _PATCH_IDX, None],
                                       **_PATCHES_SCATTER), _r(5, 4), _r(5, 2, 2)),
    _case("scatter_add/batching-updates-only",
          _with(SC.ScatterAdd, [_r(2, 5, 2), _BATCH_IDX, None], **_BATCHED_SCATTER),
          _r(2, 2, 2)),
    _case("scatter/rows-dropped-duplicates",
          _with(SC.Scatter, [None, _ROW_IDX, None], **_ROWS_SCATTER), _r(6, 3), _r(5, 3)),
    _case("scatter/patches", _with(SC.Scatter, [None, _PATCH_IDX, None], **_PATCHES_SCATTER),
          _r(5, 4), _r(5, 2, 2)),
    _case("scatter_mul/operand-duplicates",
          _with(SC.ScatterMul, [None, _ROW_IDX, _r(5, 3)], **_ROWS_SCATTER), _r(6, 3)),
    _case("scatter_mul/unique", _with(SC.ScatterMul, [None, _UNIQUE_ROWS, None],
                                      **_ROWS_SCATTER, unique_indices=True),
          _r(6, 3), _r(4, 3), adds_tangents=True),
    _case("scatter_min/rows-dropped-duplicates",
          _with(SC.ScatterMin, [None, _ROW_IDX, None], **_ROWS_SCATTER), _r(6, 3), _r(5, 3),
          adds_tangents=True),
    _case("scatter_max/patches", _with(SC.ScatterMax, [None, _PATCH_IDX, None],
                                       **_PATCHES_SCATTER), _r(5, 4), _r(5, 2, 2),
          adds_tangents=True),
    # reduction.py
    _case("reduce_sum", _op(R.ReduceSum, axes=(0, 2)), _r(2, 3, 4)),
    _case("reduce_sum/no-axes", _op(R.ReduceSum, axes=()), _r(2, 3)),
    _case("reduce_max", _op(R.ReduceMax, axes=(1,)), _r(3, 4)),
    _case("reduce_max/unsorted-axes", _op(R.ReduceMax, axes=(2, 0)), _r(2, 3, 4)),
    _case("reduce_min", _op(R.ReduceMin, axes=(0, 1)), _r(3, 4)),
    _case("reduce_prod", _op(R.ReduceProd, axes=(1,)), _r(3, 4)),
    _case("reduce_prod/zeros", _op(R.ReduceProd, axes=(1,)), _WITH_ZEROS),
    _case("reduce_prod/zeros-all-axes", _op(R.ReduceProd, axes=(1, 0)), _WITH_ZEROS),
    _case("reduce_prod/unsorted-axes", _op(R.ReduceProd, axes=(2, 0)), _r(2, 3, 5)),
    _case("reduce_prod/one-element", _op(R.ReduceProd, axes=(0,)), _r(1, 3)),
    # linalg.py
    _case("dot_general/lhs", _with(L.DotGeneral, [None, _r(3, 4)], **_DIMS), _r(2, 3)),
    _case("dot_general/rhs", _with(L.DotGeneral, [_r(2, 3), None], **_DIMS), _r(3, 4)),
    _case("dot_general/both", _op(L.DotGeneral, **_DIMS), _r(2, 3), _r(3, 4),
          adds_tangents=True),
    _case("dot_general/batch-lhs", _with(L.DotGeneral, [None, _r(5, 3, 4)], **_BATCH_DIMS),
          _r(5, 2, 3)),
    _case("dot_general/batch-rhs", _with(L.DotGeneral, [_r(5, 2, 3), None], **_BATCH_DIMS),
          _r(5, 3, 4)),
    _case("dot_general/odd-dims-lhs", _with(L.DotGeneral, [None, _ODD_RHS], **_ODD_DIMS),
          _r(3, 5, 4, 2)),
    _case("dot_general/odd-dims-rhs", _with(L.DotGeneral, [_r(3, 5, 4, 2), None], **_ODD_DIMS),
          _r(4, 2, 5, 3)),
    _case("dot_general/outer", _with(L.DotGeneral, [_r(2), None],
                                     lhs_contracting_dimensions=(),
                                     rhs_contracting_dimensions=()), _r(3)),
]


def _skip_without_add_transpose(adds_tangents):
    if adds_tangents and REGISTRY["irax.add"].transpose is None:
        pytest.skip("irax.add has no transpose rule yet")


def _fd(f, primals, tangents, eps=1e-6):
    plus = f(*[p + eps * t for p, t in zip(primals, tangents)])
    minus = f(*[p - eps * t for p, t in zip(primals, tangents)])
    return (np.asarray(plus) - np.asarray(minus)) / (2 * eps)


def _directions(primals):
    return tuple(_rng.standard_normal(np.shape(p)) for p in primals)


# ---- the rules against finite differences and each other -------------------------------------
def test_every_structural_op_is_covered():
    covered = {cls.name for cls in (S.BroadcastInDim, S.Reshape, S.Transpose, S.Slice,
                                    S.Concatenate, S.Pad, S.Reverse, I.DynamicSlice,
                                    I.DynamicUpdateSlice, I.Gather, SC.ScatterAdd, SC.Scatter,
                                    SC.ScatterMul, SC.ScatterMin, SC.ScatterMax, R.ReduceSum,
                                    R.ReduceMax, R.ReduceMin, R.ReduceProd, L.DotGeneral)}
    modules = {"irax.dialect.shape", "irax.dialect.indexing", "irax.dialect.scatter",
               "irax.dialect.reduction", "irax.dialect.linalg"}
    ours = {name for name, cls in REGISTRY.items() if cls.__module__ in modules}
    non_differentiable = {name for name in ours if not REGISTRY[name].differentiable}
    assert ours - non_differentiable == covered
    assert non_differentiable == {"irax.reduce_and", "irax.reduce_or", "irax.argmax",
                                  "irax.argmin", "irax.dimension_size"}
    for name in covered:
        assert REGISTRY[name].jvp is not None, name


@pytest.mark.parametrize("f,primals,adds_tangents", CASES)
def test_jvp_matches_finite_differences(f, primals, adds_tangents, x64):
    tangents = _directions(primals)
    y, dy = irax.jvp(f, primals, tangents)
    np.testing.assert_allclose(np.asarray(y), np.asarray(f(*primals)), rtol=1e-15)
    np.testing.assert_allclose(np.asarray(dy), _fd(f, primals, tangents), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("f,primals,adds_tangents", CASES)
def test_vjp_is_the_transpose_of_jvp(f, primals, adds_tangents, x64):
    _skip_without_add_transpose(adds_tangents)
    tangents = _directions(primals)
    _, dy = irax.jvp(f, primals, tangents)
    y, pullback = irax.vjp(f, *primals)
    ct = _rng.standard_normal(np.shape(y))
    cts = pullback(ct)
    assert [np.shape(c) for c in cts] == [np.shape(p) for p in primals]
    lhs = np.sum(ct * np.asarray(dy))
    rhs = sum(np.sum(np.asarray(c) * t) for c, t in zip(cts, tangents))
    np.testing.assert_allclose(lhs, rhs, rtol=1e-12, atol=1e-12)


# ---- special points --------------------------------------------------------------------------
def _sum_all(x):
    return bind(R.ReduceSum, x, axes=tuple(range(np.ndim(x))))


def test_max_and_min_share_the_gradient_between_ties(x64):
    x = np.array([[1.0, 3.0, 3.0, 2.0], [5.0, 5.0, 5.0, -1.0]])
    g = irax.grad(lambda x: _sum_all(bind(R.ReduceMax, x, axes=(1,))))(x)
    np.testing.assert_allclose(np.asarray(g), [[0, 0.5, 0.5, 0], [1 / 3, 1 / 3, 1 / 3, 0]])
    g = irax.grad(lambda x: _sum_all(bind(R.ReduceMin, x, axes=(0, 1))))(-x)
    np.testing.assert_allclose(np.asarray(g), [[0, 0, 0, 0], [1 / 3, 1 / 3, 1 / 3, 0]])


def test_prod_gradient_is_exact_at_zeros(x64):
    x = np.array([[2.0, 0.0, 3.0], [0.0, 0.0, 3.0], [1.0, 2.0, 4.0]])
    g = irax.grad(lambda x: _sum_all(bind(R.ReduceProd, x, axes=(1,))))(x)
    np.testing.assert_array_equal(np.asarray(g), [[0, 6, 0], [0, 0, 0], [8, 4, 2]])


def test_scatter_add_transpose_drops_the_cotangent_of_dropped_windows(x64):
    f = _with(SC.ScatterAdd, [np.zeros((4, 3)), _i([1], [9], [-1], [3]), None], **_ROWS_SCATTER)
    _, pullback = irax.vjp(f, np.ones((4, 3)))
    (ct,) = pullback(np.arange(12.0).reshape(4, 3))
    np.testing.assert_array_equal(np.asarray(ct), [[3, 4, 5], [0, 0, 0], [0, 0, 0],
                                                   [9, 10, 11]])


# ---- against JAX -----------------------------------------------------------------------------
def _jax_cases():
    """(id, irax op on the differentiated operands, the jax.lax equivalent, primals)."""
    from jax import lax

    def gdn(offset_dims, collapsed_slice_dims, start_index_map, operand_batching_dims=(),
            start_indices_batching_dims=(), **_):
        return lax.GatherDimensionNumbers(offset_dims, collapsed_slice_dims, start_index_map,
                                          operand_batching_dims, start_indices_batching_dims)

    def sdn(update_window_dims, inserted_window_dims, scatter_dims_to_operand_dims,
            input_batching_dims=(), scatter_indices_batching_dims=(), **_):
        return lax.ScatterDimensionNumbers(update_window_dims, inserted_window_dims,
                                           scatter_dims_to_operand_dims, input_batching_dims,
                                           scatter_indices_batching_dims)

    clip, drop = lax.GatherScatterMode.CLIP, lax.GatherScatterMode.FILL_OR_DROP
    ties = np.array([[1.0, 3.0, 3.0, 2.0], [5.0, 5.0, 5.0, -1.0], [0.5, 0.1, 0.2, 0.3]])
    return [
        ("broadcast_in_dim", _op(S.BroadcastInDim, shape=(3, 4, 2), broadcast_dimensions=(0, 2)),
         lambda x: lax.broadcast_in_dim(x, (3, 4, 2), (0, 2)), (_r(3, 1),)),
        ("slice", _op(S.Slice, start_indices=(1, 0), limit_indices=(5, 6), strides=(2, 4)),
         lambda x: lax.slice(x, (1, 0), (5, 6), (2, 4)), (_r(6, 7),)),
        ("pad", _op(S.Pad, edge_padding_low=(1, -2), edge_padding_high=(-1, 3),
                    interior_padding=(2, 1)),
         lambda x, v: lax.pad(x, v, [(1, -1, 2), (-2, 3, 1)]), (_r(4, 5), _r())),
        ("concatenate", lambda x, y: bind(S.Concatenate, x, y, x, dimension=1),
         lambda x, y: lax.concatenate([x, y, x], 1), (_r(3, 2), _r(3, 4))),
        ("reverse", _op(S.Reverse, dimensions=(0, 2)), lambda x: lax.rev(x, (0, 2)),
         (_r(2, 3, 4),)),
        # (lax.dynamic_slice wraps negative starts like Python indexing; the op clamps them)
        ("dynamic_update_slice", _with(I.DynamicUpdateSlice, [None, None, np.int32(4),
                                                              np.int32(1)]),
         lambda x, u: lax.dynamic_update_slice(x, u, (4, 1)), (_r(5, 4), _r(2, 2))),
        ("dynamic_slice", _with(I.DynamicSlice, [None, np.int32(4), np.int32(7)],
                                slice_sizes=(3, 2)),
         lambda x: lax.dynamic_slice(x, (4, 7), (3, 2)), (_r(5, 4),)),
        ("gather", _with(I.Gather, [None, _PATCH_IDX], **_PATCHES),
         lambda x: lax.gather(x, _PATCH_IDX, gdn(**_PATCHES), (2, 2), mode=clip), (_r(5, 4),)),
        ("gather/batching", _with(I.Gather, [None, _BATCH_IDX], **_BATCHED),
         lambda x: lax.gather(x, _BATCH_IDX, gdn(**_BATCHED), (1, 1, 2), mode=clip),
         (_r(2, 5, 2),)),
        ("scatter_add", _with(SC.ScatterAdd, [None, _ROW_IDX, None], **_ROWS_SCATTER),
         lambda x, u: lax.scatter_add(x, _ROW_IDX, u, sdn(**_ROWS_SCATTER), mode=drop),
         (_r(6, 3), _r(5, 3))),
        ("scatter_add/patches", _with(SC.ScatterAdd, [None, _PATCH_IDX, None],
                                      **_PATCHES_SCATTER),
         lambda x, u: lax.scatter_add(x, _PATCH_IDX, u, sdn(**_PATCHES_SCATTER), mode=drop),
         (_r(5, 4), _r(5, 2, 2))),
        ("scatter/duplicates", _with(SC.Scatter, [None, _ROW_IDX, None], **_ROWS_SCATTER),
         lambda x, u: lax.scatter(x, _ROW_IDX, u, sdn(**_ROWS_SCATTER), mode=drop),
         (_r(6, 3), _r(5, 3))),
        ("scatter_mul/unique", _with(SC.ScatterMul, [None, _UNIQUE_ROWS, None],
                                     **_ROWS_SCATTER, unique_indices=True),
         lambda x, u: lax.scatter_mul(x, _UNIQUE_ROWS, u, sdn(**_ROWS_SCATTER),
                                      unique_indices=True, mode=drop),
         (_r(6, 3), _r(4, 3))),
        ("scatter_min", _with(SC.ScatterMin, [None, _ROW_IDX, None], **_ROWS_SCATTER),
         lambda x, u: lax.scatter_min(x, _ROW_IDX, u, sdn(**_ROWS_SCATTER), mode=drop),
         (_r(6, 3), _r(5, 3))),
        ("scatter_max/patches", _with(SC.ScatterMax, [None, _PATCH_IDX, None],
                                      **_PATCHES_SCATTER),
         lambda x, u: lax.scatter_max(x, _PATCH_IDX, u, sdn(**_PATCHES_SCATTER), mode=drop),
         (_r(5, 4), _r(5, 2, 2))),
        ("reduce_max/ties", _op(R.ReduceMax, axes=(1,)), lambda x: lax.reduce_max(x, (1,)),
         (ties,)),
        ("reduce_min/ties", _op(R.ReduceMin, axes=(0, 1)), lambda x: lax.reduce_min(x, (0, 1)),
         (-ties,)),
        ("reduce_prod/zeros", _op(R.ReduceProd, axes=(1,)), lambda x: lax.reduce_prod(x, (1,)),
         (_WITH_ZEROS,)),
        ("reduce_prod/unsorted-axes", _op(R.ReduceProd, axes=(2, 0)),
         lambda x: lax.reduce_prod(x, (2, 0)), (_r(2, 3, 5),)),
        ("dot_general/odd-dims", _with(L.DotGeneral, [None, _ODD_RHS], **_ODD_DIMS),
         lambda x: lax.dot_general(x, _ODD_RHS, (((2, 0), (0, 3)), ((1,), (2,)))),
         (_r(3, 5, 4, 2),)),
        ("dot_general/both", _op(L.DotGeneral, **_BATCH_DIMS),
         lambda x, y: lax.dot_general(x, y, (((2,), (1,)), ((0,), (0,)))),
         (_r(5, 2, 3), _r(5, 3, 4))),
    ]


def _contract_all(y, w):
    """``sum(y * w)`` as one contraction (reverse mode needs only dot_general's rule)."""
    every = tuple(range(np.ndim(w)))
    return bind(L.DotGeneral, y, w, lhs_contracting_dimensions=every,
                rhs_contracting_dimensions=every)


def test_grad_matches_jax(x64):
    jax = pytest.importorskip("jax")
    for id, f, jf, primals in _jax_cases():
        if id == "dot_general/both" and REGISTRY["irax.add"].transpose is None:
            continue  # irax.add has no transpose rule yet
        w = _rng.standard_normal(np.shape(f(*primals)))
        argnums = tuple(range(len(primals)))
        got = irax.grad(lambda *xs, f=f, w=w: _contract_all(f(*xs), w), argnums=argnums)(*primals)
        with jax.enable_x64(True):
            want = jax.grad(lambda *xs, jf=jf, w=w: (jf(*xs) * w).sum(), argnums=argnums)(*primals)
        for g, e in zip(got, want):
            np.testing.assert_allclose(np.asarray(g), np.asarray(e), rtol=1e-12, atol=1e-12,
                                       err_msg=id)


# ---- the emitted rules compile ---------------------------------------------------------------
def test_jvp_and_vjp_of_every_case_under_one_jit():
    """float32 through IREE: every case's jvp and vjp in one compiled function agree with the
    eager (reference interpreter) derivatives."""
    cases = [p.values[:2] for p in CASES if not p.values[2]]
    primals = [tuple(np.asarray(x, np.float32) for x in ps) for _, ps in cases]
    tangents = [tuple(np.asarray(t, np.float32) for t in _directions(ps)) for ps in primals]
    cts = [np.asarray(_rng.standard_normal(np.shape(f(*ps))), np.float32)
           for (f, _), ps in zip(cases, primals)]

    def everything(primals, tangents, cts):
        outs = []
        for (f, _), ps, ts, ct in zip(cases, primals, tangents, cts):
            outs.append(irax.jvp(f, ps, ts)[1])
            outs.extend(irax.vjp(f, *ps)[1](ct))
        return outs

    eager = everything(primals, tangents, cts)
    compiled = irax.jit(everything)(primals, tangents, cts)
    assert len(eager) == len(compiled)
    for e, c in zip(eager, compiled):
        np.testing.assert_allclose(np.asarray(c), np.asarray(e), rtol=1e-5, atol=1e-5)
