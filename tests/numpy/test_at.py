"""``x.at[idx]`` (``irax.numpy._at``) against ``jax.numpy``'s: every update method and mode,
every index form, dtype and weak-type rules, jit (many cases in one module), derivatives,
vmap, and bad input."""

import itertools
import warnings

import jax
import jax.numpy as jjnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy_helpers import check

import irax
import irax.numpy as jnp
from irax.test_util import check_grads

_rng = np.random.default_rng(0)
X = _rng.standard_normal((5, 4)).astype(np.float32)
MASK = X > 0

#: static indices of every form (some out of bounds, negative, reversed...)
INDICES = [
    0, -1, 7, -9, slice(1, 3), slice(None, None, -1), slice(None, None, 2), slice(4, 0, -2),
    (1, 2), (Ellipsis, 1), (None, 1), (1, None, slice(0, 2)), np.array([0, 2, 3, -1]),
    np.array([0, 9, -7]), (np.array([0, 1]), np.array([1, 3])),
    (slice(1, 3), np.array([0, 2, 3])), np.array([[0, 1], [2, 3]]),
    (Ellipsis, np.array([1, -1])), (0, -1), (np.array([0, 1]), slice(None), None), MASK,
    MASK[:, 0], (1, MASK[0]), (), Ellipsis, True, False, (np.int32(2),),
    (np.array([4, 0]), -5), (slice(-100, 100), np.array([[3], [-4]])),
]
#: indices with repeated entries (add/mul/min/max accumulate; set is unspecified)
REPEATED = [np.array([0, 2, 2, -3, 0]), (np.array([1, 1, 1]), np.array([0, 0, -4])),
            np.array([[1, 1], [6, 1]])]
UPDATES = ["add", "subtract", "multiply", "divide", "power", "min", "max"]
MODES = [None, "clip", "drop", "fill"]


def _values(shape, seed=0):
    return np.random.default_rng(seed).uniform(0.5, 2.0, shape).astype(np.float32)


def _slice_shape(idx):
    try:
        return jjnp.asarray(X)[idx].shape
    except IndexError:  # a static out-of-bounds integer
        return ()


def _run(mod, x, idx, op, mode, v):
    ref = mod.asarray(x).at[idx]
    if op == "get":
        return ref.get(mode=mode)
    return getattr(ref, op)(v, mode=mode)


def _jax_all(thunks):
    """JAX's results of ``thunks`` (each called with a numpy module), all traced into one
    ``jax.jit`` (one XLA compile instead of one per case), with each one's warning classes
    and exception."""
    warned, raised = [], []

    def fn():
        outs = []
        for t in thunks:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                try:
                    outs.append(t(jjnp))
                    raised.append(None)
                except (TypeError, ValueError, IndexError) as e:
                    outs.append(None)
                    raised.append(e)
            warned.append(sorted({w.category.__name__ for w in caught}))
        return outs

    return jax.jit(fn)(), warned, raised


def _irax_all(thunks):
    outs, warned, raised = [], [], []
    for t in thunks:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                outs.append(t(jnp))
                raised.append(None)
            except (TypeError, ValueError, IndexError) as e:
                outs.append(None)
                raised.append(e)
        warned.append(sorted({w.category.__name__ for w in caught}))
    return outs, warned, raised


def _compare_all(thunks, names, rtol=1e-5):
    got, gw, ge = _irax_all(thunks)
    want, ww, we = _jax_all(thunks)
    for g, w, name, a, b, c, d in zip(got, want, names, gw, ww, ge, we):
        assert a == b, f"{name}: warnings {a} != {b}"
        if d is not None:
            assert type(c) is type(d) and str(c) == str(d), f"{name}: {c!r} != {d!r}"
        else:
            assert c is None, f"{name}: raised {c!r}"
            check(g, w, rtol=rtol, atol=rtol, msg=name)


def _case(idx, op, mode, v=None):
    return lambda m: _run(m, X, idx, op, mode, v)


def _out_of_bounds(idx) -> bool:
    return any(isinstance(i, int) and not -5 <= i < 5 or
               isinstance(i, np.ndarray) and i.dtype != bool and (i.min() < -5 or i.max() > 4)
               for i in (idx if isinstance(idx, tuple) else (idx,)))


# ---- values against JAX, eagerly -------------------------------------------------------------
def test_every_index_form_and_method_matches_jax():
    """Every index form with every method; modes where an index is out of bounds."""
    thunks, names = [], []
    for n, idx in enumerate(INDICES):
        v = _values(_slice_shape(idx), n)
        for op, mode in itertools.product(["get", "set"] + UPDATES,
                                          MODES if _out_of_bounds(idx) else [None]):
            thunks.append(_case(idx, op, mode, v))
            names.append(f"{idx!r} {op} {mode}")
    _compare_all(thunks, names)


def test_repeated_indices_accumulate_as_in_jax():
    cases = list(itertools.product(REPEATED, UPDATES, MODES))
    _compare_all([_case(idx, op, mode, _values(_slice_shape(idx))) for idx, op, mode in cases],
                 [repr(c) for c in cases])


def test_set_with_repeated_indices_writes_one_of_the_values():
    """JAX leaves the winner unspecified; each element is one of its candidate values."""
    idx = np.array([1, 3, 1, 1])
    v = np.array([10.0, 20.0, 30.0, 40.0], np.float32)
    for f in (lambda x: x.at[idx].set(v), irax.jit(lambda x: x.at[idx].set(v))):
        out = np.asarray(f(jnp.zeros(5)))
        assert out[1] in (10.0, 30.0, 40.0) and out[3] == 20.0
        assert out[0] == out[2] == out[4] == 0.0


def test_apply_and_fill_values_match_jax():
    x = np.arange(5.0, dtype=np.float32)
    cases = [
        lambda m: m.asarray(x).at[np.array([0, 0, 2])].apply(lambda v: v * 2 + 1),
        lambda m: m.asarray(x).at[np.array([0, 9])].apply(m.sin, mode="clip"),
        lambda m: m.asarray(x).at[1:3].apply(m.exp),
        lambda m: m.asarray(x).at[np.array([0, 9, -9])].get(mode="fill", fill_value=-3),
        lambda m: m.arange(5).at[np.array([0, 9])].get(mode="fill"),
        lambda m: (m.arange(5) > 2).at[np.array([0, 9])].get(mode="fill"),
        lambda m: m.arange(5, dtype=np.uint8).at[np.array([0, 9])].get(mode="fill"),
        lambda m: m.asarray(x).at[np.array([-1, 1])].set(7.0, wrap_negative_indices=False),
        lambda m: m.asarray(x).at[np.array([-1, 1])].get(wrap_negative_indices=False),
        lambda m: m.asarray(x).at[np.array([-7, 11])].add(10.0, mode="clip"),
        lambda m: m.asarray(x).at[np.array([0, 1])].set(5.0, indices_are_sorted=True,
                                                        unique_indices=True),
        lambda m: m.asarray(x).at[np.array([2, 7])].get(mode="promise_in_bounds")[0],
        lambda m: m.zeros((0, 3)).at[np.array([], np.int32)].add(1.0),
        lambda m: m.zeros((2, 0)).at[1].set(1.0),
    ]
    _compare_all(cases, [str(n) for n in range(len(cases))])


# ---- dtypes and weak types -------------------------------------------------------------------
_DTYPES = [np.bool_, np.int8, np.uint8, np.int32, np.float16, np.float32, np.complex64]
_VALUES = [True, 3, 2.5, 1j, np.int32(2), np.float32(1.5), np.array([1, 2], np.int8),
           np.array([1.5, 2], np.float32), np.uint32(7)]


def test_updates_are_cast_to_the_dtype_of_x_as_in_jax():
    cases = list(itertools.product(_DTYPES, _VALUES, ["set", "add", "multiply", "min",
                                                      "divide"]))

    def thunk(dtype, v, op):
        return lambda m: getattr(m.zeros(4, dtype).at[np.array([0, 2])], op)(v)

    _compare_all([thunk(*c) for c in cases], [repr(c) for c in cases])


def test_weak_types_follow_x():
    cases = [lambda m: m.asarray(1.0).at[()].add(2),
             lambda m: m.asarray(1.0).at[()].add(np.float32(2)),
             lambda m: (m.zeros(3) + 1.0).at[1].set(5),
             lambda m: m.asarray(3).at[()].multiply(2.5),
             lambda m: m.zeros(3, np.int8).at[0].set(300 - 200)]
    _compare_all(cases, [str(n) for n in range(len(cases))])


# ---- hypothesis over index arrays ------------------------------------------------------------
@settings(max_examples=15, deadline=None)
@given(shape=st.lists(st.integers(1, 4), min_size=1, max_size=3),
       n=st.integers(0, 5), seed=st.integers(0, 2**16),
       op=st.sampled_from(["get", "add", "multiply", "min", "max", "set"]),
       mode=st.sampled_from(MODES), axis_form=st.sampled_from(["first", "ellipsis", "pair"]),
       dtype=st.sampled_from([np.float32, np.int32, np.uint8, np.bool_]))
def test_random_integer_array_indices_match_jax(shape, n, seed, op, mode, axis_form, dtype):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(shape) * 3).astype(dtype)
    if dtype == np.bool_ and op in ("add", "multiply"):
        op = "max"
    d = shape[0]
    if axis_form == "pair" and len(shape) < 2:
        axis_form = "first"
    # set: unique in-bounds-after-wrapping indices only (JAX leaves duplicates unspecified)
    if op == "set":
        i = rng.permutation(np.arange(-d, d))[:min(n, d)]
        i = i[np.unique(np.mod(i, d), return_index=True)[1]]
    else:
        i = rng.integers(-d - 2, d + 2, n)
    idx = {"first": i, "ellipsis": (Ellipsis, np.mod(i, shape[-1]) if op == "set" else i),
           "pair": (i, slice(None))}[axis_form]
    if axis_form == "ellipsis" and op == "set":
        idx = (Ellipsis, np.unique(np.mod(i, shape[-1])))
    want_ref, got_ref = jjnp.asarray(x).at[idx], jnp.asarray(x).at[idx]
    if op == "get":
        check(got_ref.get(mode=mode), want_ref.get(mode=mode))
        return
    v = rng.uniform(0.5, 4.0, jjnp.asarray(x).at[idx].get(mode="clip").shape).astype(dtype)
    check(getattr(got_ref, op)(v, mode=mode), getattr(want_ref, op)(v, mode=mode),
          rtol=1e-5, atol=1e-5)


# ---- jit ---------------------------------------------------------------------------------------
_JIT_CASES = [(idx, op, mode) for idx, op, mode in itertools.product(
    [0, -1, 7, slice(1, 3), slice(None, None, -2), (Ellipsis, 1), np.array([0, 2, 3, -1]),
     np.array([0, 9, -7]), (np.array([0, 1]), np.array([1, 3])), (1, MASK[0]),
     np.array([0, 2, 2, -3])],
    ["get", "set", "add", "multiply", "min", "max"], [None, "clip", "fill"])
    if not (op == "set" and isinstance(idx, np.ndarray) and idx.tolist() == [0, 2, 2, -3])]


def test_many_updates_in_one_jit_match_eager_and_jax():
    """Static indices, traced values, and traced integer and array indices: one module."""

    def fn(x, i, arr):
        outs = {}
        for n, (idx, op, mode) in enumerate(_JIT_CASES):
            v = x[0, 0] + 1.0 if op != "get" else None
            outs[str(n)] = _run_on(x, idx, op, mode, v)
        for mode in MODES:
            outs[f"dyn-int-{mode}"] = x.at[i].add(3.0, mode=mode)
            outs[f"dyn-pair-{mode}"] = x.at[i, -i].set(3.0, mode=mode)
            outs[f"dyn-arr-{mode}"] = x.at[arr].max(2.0, mode=mode)
            outs[f"dyn-get-{mode}"] = x.at[arr, i].get(mode=mode)
        outs["dyn-slice-get"] = x.at[1:3, i].get()
        return outs

    def _run_on(x, idx, op, mode, v):
        return x.at[idx].get(mode=mode) if op == "get" else getattr(x.at[idx], op)(v, mode=mode)

    arr = np.array([0, -2, 6, 4], np.int32)
    for i in (2, -7):
        compiled = irax.jit(fn)(X, np.int32(i), arr)
        eager = fn(jnp.asarray(X), jnp.asarray(np.int32(i)), jnp.asarray(arr))
        want = jax.jit(fn)(jjnp.asarray(X), np.int32(i), arr)
        for k in eager:
            check(compiled[k], eager[k], msg=f"{k} compiled vs eager")
            check(eager[k], want[k], msg=f"{k} vs jax")


# ---- derivatives -----------------------------------------------------------------------------
_GRAD_CASES = [
    ("set", np.array([0, 3])), ("set", (1, slice(0, 2))), ("add", np.array([0, 2, 2])),
    ("add", slice(None, None, -1)), ("multiply", (np.array([0, 3]), 1)),
    ("multiply", 2), ("min", np.array([0, 2, 2])), ("max", np.array([4, 1, 4])),
    ("max", slice(1, 3)), ("divide", np.array([0, 3])), ("power", 1), ("subtract", -1),
]


def _grad_fn(mod, op, idx):
    kw = {"unique_indices": True} if op in ("multiply", "divide") else {}

    def f(x, v):
        return getattr(mod.asarray(x).at[idx], op)(v, **kw)
    return f


@pytest.mark.parametrize("op,idx", _GRAD_CASES)
def test_grads_match_finite_differences_and_jax(op, idx, x64):
    rng = np.random.default_rng(1)
    x = rng.uniform(0.5, 2.0, (5, 2))
    v = rng.uniform(0.5, 2.0, jjnp.asarray(x)[idx].shape)
    if op in ("min", "max"):  # ties: the subgradient convention must match JAX's too
        v.flat[0] = x[np.unravel_index(0, (5, 2))] if idx is not None else v.flat[0]
    f = _grad_fn(jnp, op, idx)
    check_grads(f, (x, v), order=1, atol=1e-6, rtol=1e-6)

    def loss(mod, fn):
        return lambda x, v: mod.sum(mod.sin(fn(x, v)))

    got = irax.grad(loss(jnp, f), argnums=(0, 1))(x, v)
    with jax.enable_x64(True):
        want = jax.grad(loss(jjnp, _grad_fn(jjnp, op, idx)), argnums=(0, 1))(x, v)
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-10, atol=1e-12)


def test_min_max_ties_share_the_gradient_as_in_jax(x64):
    x = np.array([1.0, 2.0, 3.0])
    v = np.array([1.0, 1.0, 5.0])
    idx = np.array([0, 0, 2])
    def loss(m, op):
        return lambda x, v: m.sum(getattr(m.asarray(x).at[idx], op)(v) * m.arange(3.0))

    for op in ("min", "max"):
        got = irax.grad(loss(jnp, op), argnums=(0, 1))(x, v)
        with jax.enable_x64(True):
            want = jax.grad(loss(jjnp, op), argnums=(0, 1))(x, v)
        for g, w in zip(got, want):
            np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-12)


def test_multiply_gradient_needs_unique_indices_as_in_jax():
    x, v = np.ones(4, np.float32), np.full(2, 2.0, np.float32)
    idx = np.array([1, 1])
    with pytest.raises(NotImplementedError, match="unique_indices"):
        irax.grad(lambda v: jnp.sum(jnp.asarray(x).at[idx].multiply(v)))(v)
    got = irax.grad(lambda v: jnp.sum(jnp.asarray(x).at[np.array([1, 2])].multiply(
        v, unique_indices=True)))(v)
    want = jax.grad(lambda v: jjnp.sum(jjnp.asarray(x).at[np.array([1, 2])].multiply(
        v, unique_indices=True)))(v)
    check(got, want)
    # the operand's gradient needs no promise
    got = irax.grad(lambda x: jnp.sum(x.at[idx].multiply(v)))(x)
    want = jax.grad(lambda x: jjnp.sum(x.at[idx].multiply(v)))(x)
    check(got, want)


def test_grads_under_jit_match_jax():
    def loss(mod):
        def f(x, v):
            y = x.at[np.array([0, 2, 2])].add(v).at[1:3].set(v[:2] * 2)
            y = y.at[np.array([3, 0])].max(v[1:]).at[-1].multiply(v[0])
            return mod.sum(y * y)
        return f

    x, v = X[:, 0], _values(3)
    got = irax.jit(irax.grad(loss(jnp), argnums=(0, 1)))(x, v)
    want = jax.grad(loss(jjnp), argnums=(0, 1))(x, v)
    for g, w in zip(got, want):
        check(g, w, rtol=1e-5, atol=1e-5)


# ---- vmap ------------------------------------------------------------------------------------
def test_vmap_matches_a_python_loop():
    xs = _rng.standard_normal((3, 5, 2)).astype(np.float32)
    vs = _values((3, 2))
    idxs = np.array([[0, 4], [1, 1], [7, -1]], np.int32)
    fns = {
        "set-batched-all": (lambda x, v, i: x.at[i, 0].set(v), (0, 0, 0)),
        "add-batched-idx": (lambda x, v, i: x.at[i].add(v[:, None]), (None, 0, 0)),
        "max-batched-x": (lambda x, v, i: x.at[i, 1].max(v), (0, None, None)),
        "mul-clip": (lambda x, v, i: x.at[i, 1].multiply(v, mode="clip"), (0, 0, 0)),
        "get-fill": (lambda x, v, i: x.at[i].get(mode="fill", fill_value=-1.0), (0, None, 0)),
        "get-int": (lambda x, v, i: x.at[i[0]].get(), (0, None, 0)),
    }
    def args_for(axes, *arrays):
        return tuple(a if ax == 0 else a[0] for a, ax in zip(arrays, axes))

    def all_vmapped(vmap, *arrays):  # one compiled module for every case
        return {name: vmap(f, in_axes=axes)(*args_for(axes, *arrays))
                for name, (f, axes) in fns.items()}

    got = irax.jit(lambda *a: all_vmapped(irax.vmap, *a))(xs, vs, idxs)
    want = jax.jit(lambda *a: all_vmapped(jax.vmap, *a))(xs, vs, idxs)
    for name, (f, axes) in fns.items():
        args = args_for(axes, xs, vs, idxs)
        loop = [f(*[jnp.asarray(a[b] if ax == 0 else a) for a, ax in zip(args, axes)])
                for b in range(3)]
        check(got[name], jnp.stack(loop), msg=name)
        check(got[name], want[name], msg=name)


# ---- bad input -------------------------------------------------------------------------------
def _both_raise(f, exc, match=None):
    for mod in (jjnp, jnp):
        with pytest.raises(exc, match=match):
            f(mod)


def test_bad_input_raises_as_jax():
    _both_raise(lambda m: m.zeros(3).at[1].set(5.0, mode="bogus"), ValueError,
                'Unknown gather mode "bogus"')
    _both_raise(lambda m: m.zeros(3).at[1].get(mode="bogus"), ValueError, "Unknown gather")
    _both_raise(lambda m: m.zeros(3).at[1.0].set(5.0), TypeError, "Indexer must have integer")
    _both_raise(lambda m: m.zeros(3).at[np.array([1.0])].add(5.0), TypeError, "integer")
    _both_raise(lambda m: m.zeros(3).at["a"].set(5.0), TypeError, "string indexing")
    _both_raise(lambda m: m.zeros(3).at[[0, 1]].set(5.0), TypeError, "non-tuple sequence")
    _both_raise(lambda m: m.zeros(3).at[:2].set(m.ones(3)), ValueError)
    _both_raise(lambda m: m.zeros(3).at[0, 0].set(1.0), IndexError, "Too many indices")
    _both_raise(lambda m: m.zeros(3, bool).at[0].add(True), TypeError,
                "add does not accept dtype bool")
    _both_raise(lambda m: m.zeros(3).at[np.ones(2, bool)].set(1.0), IndexError)


def test_item_assignment_points_at_at():
    with pytest.raises(TypeError, match=r"\.at\[idx\]\.set"):
        jnp.zeros(3)[0] = 5.0


def test_boolean_masks_need_concrete_values_under_jit():
    with pytest.raises(irax.errors.NonConcreteBooleanIndexError):
        irax.jit(lambda x: x.at[x > 0].set(0.0))(X)


def test_promise_in_bounds_accepts_out_of_bounds_indices():
    """Out of bounds under ``promise_in_bounds`` is the caller's broken promise: any value,
    but no error (as JAX)."""
    out = jnp.zeros(3).at[np.array([5, 1])].add(1.0, mode="promise_in_bounds")
    assert out.shape == (3,)
    assert jnp.zeros(3).at[np.array([5])].get(mode="promise_in_bounds").shape == (1,)


def test_repr_of_the_helpers():
    assert "IndexUpdateHelper" in repr(jnp.zeros(2).at)
    assert "IndexUpdateRef" in repr(jnp.zeros(2).at[0])
