"""The batching-rule meta-test: every op's ``batch`` rule against a Python loop.

For each sample of each op (tests/dialect/op_samples.py, plus the edge cases in ``EXTRA``),
each operand is mapped or left unmapped, at its first, a middle or its last axis, with 3
examples per batch (the sample and two perturbations of it), and ``irax.vmap`` must equal
``np.stack`` of the op applied to each example. Eager vmap runs the vectorized IR in the
reference interpreter; under ``irax.jit`` one compiled function per op family holds a
selection of the cases together with their per-example loops (IREE compiles are slow).
Then: nested vmap, in_axes/out_axes variants, the IR of vectorized products, calls and
call-like ops, and the exactness corners of the index rules.
"""

import itertools
import re
import sys
from pathlib import Path

import numpy as np
import pytest

import irax
import irax.numpy as jnp
from irax import lax
from irax.dialect import REGISTRY
from irax.frontend.compile import clone_module
from irax.frontend.trace import bind
from irax.passes import run_pipeline

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "dialect"))
from op_samples import NO_SAMPLE, SAMPLES  # noqa: E402

f32, i32 = np.float32, np.int32
N = 3  # examples per batch
_r = np.random.default_rng(3)

#: edge cases of the batching rules beyond the op samples
EXTRA = {
    "irax.broadcast_in_dim": [
        ((_r.standard_normal((3, 2)).astype(f32),), dict(shape=(2, 4, 3),
                                                         broadcast_dimensions=(2, 0))),
        ((np.array(1.5, f32),), dict(shape=(2, 3), broadcast_dimensions=()))],
    "irax.reshape": [((np.array(2.0, f32),), dict(new_sizes=(1, 1)))],
    "irax.transpose": [((_r.standard_normal((2, 3)).astype(f32),), dict(permutation=(1, 0)))],
    "irax.pad": [((_r.integers(-5, 5, (3,)).astype(i32), np.array(7, i32)),
                  dict(edge_padding_low=(-1,), edge_padding_high=(2,), interior_padding=(2,)))],
    "irax.reverse": [((_r.standard_normal((2, 3, 2)).astype(f32),), dict(dimensions=(0, 2)))],
    "irax.dynamic_slice": [
        ((np.arange(7, dtype=f32), np.array(5, i32)), dict(slice_sizes=(3,))),
        ((_r.standard_normal((3, 4, 2)).astype(f32), np.array(1, i32), np.array(9, i32),
          np.array(-3, i32)), dict(slice_sizes=(2, 2, 2)))],
    "irax.dynamic_update_slice": [
        ((np.array([1.0, -0.0, np.nan, 4.0], f32), np.array([-0.0, np.nan], f32),
          np.array(3, i32)), {}),
        ((_r.integers(0, 2, (4, 3)).astype(bool), np.ones((2, 2), bool), np.array(1, i32),
          np.array(-1, i32)), {})],
    "irax.gather": [
        # batching dims already present
        ((_r.standard_normal((2, 5, 3)).astype(f32), _r.integers(0, 5, (2, 4, 1)).astype(i32)),
         dict(offset_dims=(2,), collapsed_slice_dims=(1,), start_index_map=(1,),
              index_vector_dim=2, slice_sizes=(1, 1, 3), operand_batching_dims=(0,),
              start_indices_batching_dims=(0,))),
        # the index vector first
        ((_r.standard_normal((5, 3)).astype(f32), np.array([[0, 4, 2, 9]], i32)),
         dict(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,),
              index_vector_dim=0, slice_sizes=(1, 3))),
        # an implicit index vector, a partial window
        ((_r.standard_normal((5, 3)).astype(f32), np.array([1, 3, -1], i32)),
         dict(offset_dims=(1, 2), collapsed_slice_dims=(), start_index_map=(0,),
              index_vector_dim=1, slice_sizes=(2, 2))),
        # two indexed dims, a 2-d window
        ((_r.standard_normal((4, 5, 6)).astype(f32), _r.integers(0, 6, (3, 2)).astype(i32)),
         dict(offset_dims=(1, 2), collapsed_slice_dims=(0,), start_index_map=(0, 2),
              index_vector_dim=1, slice_sizes=(1, 3, 2)))],
    "irax.scatter_add": [
        # batching dims, not leading
        ((_r.standard_normal((5, 2, 3)).astype(f32), _r.integers(0, 5, (4, 2, 1)).astype(i32),
          _r.standard_normal((4, 2, 3)).astype(f32)),
         dict(update_window_dims=(2,), inserted_window_dims=(0,),
              scatter_dims_to_operand_dims=(0,), index_vector_dim=2, input_batching_dims=(1,),
              scatter_indices_batching_dims=(1,)))],
    "irax.reduce_sum": [((_r.standard_normal((2, 3, 4)).astype(f32),), dict(axes=(0, 2)))],
    "irax.argmax": [((_r.standard_normal((2, 3, 4)).astype(f32),),
                     dict(axis=1, index_dtype=np.int32))],
    "irax.dot_general": [
        ((_r.standard_normal((2, 3, 4)).astype(f32), _r.standard_normal((4, 2, 5)).astype(f32)),
         dict(lhs_contracting_dimensions=(2,), rhs_contracting_dimensions=(0,),
              lhs_batch_dimensions=(0,), rhs_batch_dimensions=(1,))),
        ((_r.standard_normal(3).astype(f32), _r.standard_normal(3).astype(f32)),
         dict(lhs_contracting_dimensions=(0,), rhs_contracting_dimensions=(0,)))],
    "irax.select": [((np.array(True), _r.standard_normal(3).astype(f32),
                      _r.standard_normal(3).astype(f32)), {})],
}


def _samples(name):
    return list(SAMPLES.get(name, [])) + list(EXTRA.get(name, []))


# ---- batched inputs --------------------------------------------------------------------------
def _examples(x, rng) -> list[np.ndarray]:
    """The sample and two perturbations with the same kind of values: scaled floats keep
    their signs, zeros and NaNs; integers move by at most 2 (start indices stay near, and
    sometimes beyond, the bounds the sample tests; unsigned ones stay non-negative)."""
    x = np.asarray(x)
    out = [x]
    for _ in range(N - 1):
        if x.dtype == np.bool_:
            y = rng.integers(0, 2, x.shape).astype(bool)
        elif x.dtype.kind in "iu":
            y = x.astype(np.int64) + rng.integers(-2, 3, x.shape)
            y = np.maximum(y, 0) if x.dtype.kind == "u" else y
        else:
            y = x.astype(np.complex64 if x.dtype.kind == "c" else f32) \
                * rng.uniform(0.7, 1.3, x.shape).astype(f32)
        out.append(np.asarray(y).astype(x.dtype))
    return out


def _masked(ranks, mask, pick):
    mapped = [i for i in range(len(ranks)) if mask[i]]
    return tuple(pick(ranks[i], mapped.index(i)) if mask[i] else None for i in range(len(ranks)))


_FIRST, _LAST = (lambda r, k: 0), (lambda r, k: r)
_ALTERNATING = (lambda r, k: (0, r)[k % 2])  # first, last, first, ... among mapped operands


def _cases(operands, picks=(_FIRST, _LAST, _ALTERNATING), alone=True, unmapped=None):
    """in_axes tuples: every non-empty set of mapped operands (or with ``unmapped``, those
    with at most that many unmapped operands or just one mapped) with the batch axis at
    each of ``picks``; with ``alone``, each operand mapped alone at each of its axes."""
    ranks = [np.ndim(x) for x in operands]
    n = len(ranks)
    masks = [m for m in itertools.product([False, True], repeat=n)
             if any(m) and (unmapped is None or n - sum(m) <= unmapped or sum(m) == 1)]
    seen = [_masked(ranks, m, pick) for m in masks for pick in picks]
    if alone:
        seen += [tuple(ax if j == i else None for j in range(n))
                 for i in range(n) for ax in range(ranks[i] + 1)]
    return list(dict.fromkeys(seen))


def _out_axis(in_axes, out_rank):
    """Varies out_axes with the case: first, last (negative), or 1."""
    k = sum(a or 0 for a in in_axes) % 3
    return (0, -1, min(1, out_rank))[k]


def _batch(operands, in_axes, rng):
    """The batched operands and each example's operands."""
    exs = [_examples(x, rng) if a is not None else None for x, a in zip(operands, in_axes)]
    batched = [np.stack(e, axis=a) if a is not None else np.asarray(x)
               for x, e, a in zip(operands, exs, in_axes)]
    per = [[e[i] if e is not None else np.asarray(x) for x, e in zip(operands, exs)]
           for i in range(N)]
    return batched, per


def _op(cls, attrs):
    def f(*operands):
        return bind(cls, *operands, **attrs)

    return f


def _results(out):
    return [np.asarray(o) for o in out] if isinstance(out, (list, tuple)) else [np.asarray(out)]


def _check(got, want, what, rtol=1e-5, atol=1e-6):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype, \
        f"{what}: got {got.dtype}{list(got.shape)}, expected {want.dtype}{list(want.shape)}"
    if want.dtype.kind in "fc":
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, equal_nan=True, err_msg=what)
    else:
        np.testing.assert_array_equal(got, want, err_msg=what)


# ---- the meta-test -----------------------------------------------------------------------------
def _has_results(name, operands, attrs) -> bool:
    from irax.core.abstract import ShapedArray

    cls = REGISTRY[name]
    avals = [ShapedArray(np.shape(x), np.asarray(x).dtype) for x in operands]
    return bool(cls.infer_list(avals, cls.normalize_attrs(attrs)))


def _params():
    for name in sorted(set(SAMPLES) | set(EXTRA)):
        for k, (operands, _attrs) in enumerate(_samples(name)):
            # an op without results (irax.debug_callback) is checked by the calls it makes:
            # tests/runtime/test_host_callbacks.py compares them with a loop
            if operands and _has_results(name, operands, _attrs):
                yield pytest.param(name, k, id=f"{name}#{k}")


def test_every_op_with_samples_has_a_batch_rule():
    missing = [n for n in SAMPLES if REGISTRY[n].batch is None]
    assert not missing, f"ops without a batching rule: {missing}"
    # plain calls are batched by the driver; custom-rule and checkpoint calls batch their
    # callee and rule functions together (so custom derivatives survive vmap)
    from irax.dialect.autodiff import CallLike
    from irax.dialect.control import Call

    for name in NO_SAMPLE & set(REGISTRY):
        cls = REGISTRY[name]
        if cls is Call:
            assert cls.batch is None, f"{name}: the driver's call batching is bypassed"
        elif issubclass(cls, CallLike):
            assert cls.batch is not None, f"{name}: custom rules would be lost under vmap"


@pytest.fixture
def interpreted():
    """vmap outside jit on the reference interpreter: each in_axes case would otherwise be
    a compile, and the compiled batch rules are the jit tests' below (per family chunk)."""
    with irax.config.override("irax_eager_vmap_compiled", False):
        yield


@pytest.mark.parametrize("name,k", list(_params()))
def test_vmap_matches_a_loop(name, k, interpreted):
    cls = REGISTRY[name]
    operands, attrs = _samples(name)[k]
    f = _op(cls, attrs)
    rng = np.random.default_rng(k)
    for in_axes in _cases(operands):
        batched, per = _batch(operands, in_axes, rng)
        loop = [_results(f(*ex)) for ex in per]  # per example: a list of results
        out = _out_axis(in_axes, loop[0][0].ndim)
        got = _results(irax.vmap(f, in_axes=in_axes, out_axes=out)(*batched))
        for j, g in enumerate(got):  # multi-result ops: each result separately
            _check(g, np.stack([ex[j] for ex in loop], axis=out),
                   f"{name}#{k} result {j} in_axes={in_axes} out_axes={out}")


@pytest.mark.parametrize("name", ["irax.constant", "irax.iota"])
def test_ops_without_operands_are_never_batched(name):
    cls = REGISTRY[name]
    for _, attrs in SAMPLES[name]:
        f = _op(cls, attrs)
        want = np.asarray(f())
        dummy = np.zeros((N, 2), f32)
        _check(irax.vmap(lambda d, f=f: f())(dummy), np.stack([want] * N), name)
        _check(irax.vmap(lambda d, f=f: f(), out_axes=None)(dummy), want, name)


#: families where every set of mapped operands runs under jit; the others run a selection
_EVERY_CASE = ("shape", "indexing", "scatter", "linalg")


def _jit_cases(family):
    """In the rule-heavy families, each operand mapped alone, all mapped, and all but one
    mapped (batch axes alternating first and last); elsewhere all operands mapped at their
    last axis and the first operand alone at axis 0."""
    for name in sorted(set(SAMPLES) | set(EXTRA)):
        cls = REGISTRY[name]
        if cls.__module__.rsplit(".", 1)[1] != family:
            continue
        for k, (operands, attrs) in enumerate(_samples(name)):
            if not operands:
                continue
            n = len(operands)
            cases = [tuple(np.ndim(x) for x in operands), (0,) + (None,) * (n - 1)]
            if family in _EVERY_CASE:
                cases = _cases(operands, (_ALTERNATING,), alone=False, unmapped=1)
            for in_axes in dict.fromkeys(cases):
                yield name, k, cls, attrs, operands, in_axes


_FAMILIES = ["elementwise", "shape", "indexing", "scatter", "reduction", "linalg",
             "autodiff", "fft", "bitcast"]  # linalg decompositions: tests/linalg
#: cases per jitted function: IREE's compile time grows faster than the function's size
_CHUNK = 30


def _chunks():
    for family in _FAMILIES:
        for start in range(0, len(list(_jit_cases(family))), _CHUNK):
            yield pytest.param(family, start, id=f"{family}@{start}")


@pytest.mark.parametrize("family,start", list(_chunks()))
def test_vmap_under_jit_matches_a_loop(family, start):
    """One jitted function per chunk of a family's cases returns each case's vmap and its
    per-example loop."""
    rng = np.random.default_rng(1)
    cases, inputs = [], []
    for name, k, cls, attrs, operands, in_axes in list(_jit_cases(family))[start:start + _CHUNK]:
        cases.append((f"{name}#{k} in_axes={in_axes}", _op(cls, attrs), in_axes))
        inputs.append(_batch(operands, in_axes, rng))
    assert cases

    def everything(inputs):
        return [(irax.vmap(f, in_axes=in_axes)(*batched), [f(*ex) for ex in per])
                for (_, f, in_axes), (batched, per) in zip(cases, inputs)]

    results = irax.jit(everything)(inputs)
    for (what, _, _), (got, loop) in zip(cases, results):
        _check(got, np.stack([np.asarray(r) for r in loop]), what, rtol=1e-5, atol=1e-5)


# ---- axes and nesting --------------------------------------------------------------------------
def test_vmap_of_vmap(rng):
    a = rng.standard_normal((4, 3, 2, 5)).astype(f32)  # outer axis 0, inner axis 1
    b = rng.standard_normal((5, 6, 4)).astype(f32)     # outer axis 2 (last), inner unmapped
    idx = rng.integers(-1, 7, (2, 4)).astype(i32)      # outer axis 1 (last), inner axis 0

    def f(x, y, i):  # x: (3, 5), y: (5, 6), i: ()
        z = jnp.tanh(x @ y)                     # (3, 6)
        return jnp.sum(z, axis=0)[jnp.clip(i, 0, 5)] + lax.dynamic_slice(z, (i, i), (2, 2))

    inner = irax.vmap(f, in_axes=(1, None, 0))
    got = irax.vmap(inner, in_axes=(0, 2, 1), out_axes=-1)(a, b, idx)
    want = np.stack([np.stack([np.asarray(f(a[o, :, j], b[:, :, o], idx[j, o]))
                               for j in range(2)]) for o in range(4)], axis=-1)
    _check(got, want, "vmap(vmap(f))")
    jitted = irax.jit(irax.vmap(inner, in_axes=(0, 2, 1), out_axes=-1))(a, b, idx)
    _check(jitted, want, "jit(vmap(vmap(f)))", atol=1e-5)


def test_in_axes_last_and_out_axes(rng):
    m = rng.standard_normal((3, 4, 5)).astype(f32)  # mapped over the last axis
    v = rng.standard_normal((4, 5)).astype(f32)     # mapped over the last axis

    def f(m, v):
        return jnp.outer(m @ v, v[:2])             # (3, 2)

    loop = [np.asarray(f(m[..., i], v[:, i])) for i in range(5)]
    for out in (0, 1, 2, -1, -2, -3):
        got = irax.vmap(f, in_axes=(-1, 1), out_axes=out)(m, v)
        _check(got, np.stack(loop, axis=out), f"out_axes={out}")


def test_batched_padding_value_and_pad_of_an_unbatched_operand(rng):
    x = rng.standard_normal((3, 4)).astype(f32)
    vals = np.array([7.0, -0.0, np.nan], f32)

    def f(x, v):
        return lax.pad(x, v, [(1, -2, 1), (0, 2, 0)])

    for in_axes in ((0, 0), (None, 0), (1, 0)):
        xs = x if in_axes[0] is None else np.stack([x, 2 * x, -x], axis=in_axes[0])
        per = [x if in_axes[0] is None else np.take(xs, i, axis=in_axes[0]) for i in range(3)]
        want = np.stack([np.asarray(f(p, v)) for p, v in zip(per, vals)])
        got = irax.vmap(f, in_axes=in_axes)(xs, vals)
        _check(got, want, f"pad in_axes={in_axes}")
        assert np.array_equal(np.signbit(np.asarray(got)), np.signbit(want))


def test_dynamic_update_slice_with_batched_starts_is_exact():
    """Per-example starts become a scatter into -0.0 plus a mask: NaN and -0.0 in the operand
    and in the update survive bit for bit, starts clamp as dynamic_update_slice clamps."""
    x = np.array([[1.0, -0.0, np.nan, 4.0, np.inf]] * 4, f32)
    u = np.array([[-0.0, np.nan], [0.0, -0.0], [5.0, 6.0], [-np.inf, 0.0]], f32)
    starts = np.array([-3, 0, 2, 9], i32)

    def f(x, u, s):
        return lax.dynamic_update_slice(x, u, (s,))

    want = np.stack([np.asarray(f(x[i], u[i], starts[i])) for i in range(4)])
    for run in (irax.vmap(f), irax.jit(irax.vmap(f))):
        got = np.asarray(run(x, u, starts))
        assert np.array_equal(got.view(np.uint32), want.view(np.uint32)), (got, want)


def test_dynamic_slice_with_batched_starts_clamps():
    x = np.arange(24, dtype=f32).reshape(4, 6)
    i = np.array([-5, 0, 3, 100], i32)
    j = np.array([2, 7, -1, 4], i32)

    def f(x, i, j):
        return lax.dynamic_slice(x, (i, j), (2, 3))

    want = np.stack([np.asarray(f(x, a, c)) for a, c in zip(i, j)])
    _check(irax.vmap(f, in_axes=(None, 0, 0))(x, i, j), want, "dynamic_slice")


# ---- the IR: one batched op, no per-example loop -----------------------------------------------
def _vectorized(fun, *args, passes="irax-vectorize") -> str:
    """The irax IR of ``jit(fun)`` after ``passes``."""
    module = clone_module(irax.jit(fun).lower(*args).compiler_ir("irax"))
    run_pipeline(module, f"builtin.module({passes})")
    return module.operation.get_asm()


def _body(text: str, name: str) -> str:
    m = re.search(rf"func\.func private @{name}\(.*?\n  }}\n", text, re.S)
    assert m, f"no @{name} in\n{text}"
    return m.group(0)


def mv(m, v):
    return m @ v


def test_vmap_of_matrix_vector_products_is_one_batched_dot_general(rng):
    ms = rng.standard_normal((8, 3, 4)).astype(f32)
    vs = rng.standard_normal((8, 4)).astype(f32)
    body = _body(_vectorized(irax.vmap(mv), ms, vs), "mv_vmap")
    assert body.count('"irax.dot_general"') == 1, body
    assert "lhs_batch_dimensions = array<i64: 0>" in body
    assert "rhs_batch_dimensions = array<i64: 0>" in body
    assert "irax.call" not in body and "irax.vmap" not in body and "irax.slice" not in body
    _check(irax.vmap(mv)(ms, vs), np.einsum("bij,bj->bi", ms, vs), "batched matvec")


def test_vmap_of_matrix_vector_products_over_vectors_is_one_matrix_product(rng):
    m = rng.standard_normal((3, 4)).astype(f32)
    vs = rng.standard_normal((8, 4)).astype(f32)
    body = _body(_vectorized(irax.vmap(mv, in_axes=(None, 0)), m, vs), "mv_vmap")
    assert body.count('"irax.dot_general"') == 1, body
    assert "batch_dimensions" not in body  # the batch dim is a free dim of the rhs
    assert "irax.broadcast_in_dim" not in body  # the matrix is not copied per example
    got = irax.jit(irax.vmap(mv, in_axes=(None, 0)))(m, vs)
    _check(got, vs @ m.T, "matrix times vectors", atol=1e-5)


# ---- calls and call-like ops -------------------------------------------------------------------
def test_calls_are_batched_through_their_callee(rng):
    """vmap of grad: the expanded grad is an irax.call that the driver batches as a call of
    the vectorized callee."""
    w = rng.standard_normal(4).astype(f32)
    xs = rng.standard_normal((5, 4)).astype(f32)

    def loss(w, x):
        return jnp.sum(jnp.sin(w * x) ** 2)

    g = irax.vmap(irax.grad(loss), in_axes=(None, 0))
    want = np.stack([np.asarray(irax.grad(loss)(w, x)) for x in xs])
    _check(g(w, xs), want, "vmap(grad)")
    _check(irax.jit(g)(w, xs), want, "jit(vmap(grad))", atol=1e-5)
    text = _vectorized(g, w, xs, passes="irax-expand-transforms")
    assert re.search(r'"irax.call"\(.*\) \{callee = @\w*vmap', text), text


def test_custom_rules_and_checkpoint_are_batched_as_calls(rng):
    @irax.custom_jvp
    def softplus(x):
        return jnp.log1p(jnp.exp(x))

    @softplus.defjvp
    def _softplus_jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        return softplus(x), t / (1 + jnp.exp(-x))

    def f(x):
        return irax.checkpoint(lambda y: jnp.sum(softplus(y) * y))(x)

    xs = rng.standard_normal((4, 3)).astype(f32)
    want = np.stack([np.asarray(f(x)) for x in xs])
    _check(irax.vmap(f)(xs), want, "vmap of custom_jvp and checkpoint")
    _check(irax.jit(irax.vmap(f))(xs), want, "jit(vmap)", atol=1e-5)
    grads = np.stack([np.asarray(irax.grad(f)(x)) for x in xs])
    _check(irax.vmap(irax.grad(f))(xs), grads, "vmap(grad)")


def test_argmax_followed_by_transpose_compiles():
    x = np.random.default_rng(1).random((3, 2, 4)).astype(np.float32)
    got = irax.jit(irax.vmap(lambda a: irax.numpy.argmax(a, axis=1), out_axes=1))(x)
    np.testing.assert_array_equal(got, np.argmax(x, axis=2).T)
    got = irax.jit(lambda a: irax.numpy.argmax(a, axis=2).T)(x)
    np.testing.assert_array_equal(got, np.argmax(x, axis=2).T)
