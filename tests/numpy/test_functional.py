"""vectorize (signature=, excluded=), apply_along_axis, apply_over_axes, piecewise,
frompyfunc and jnp.ufunc (user-defined, every method and the keyword overrides) against
JAX: eagerly, in one jit, hypothesis, derivatives, vmap and errors."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from manip_helpers import (
    check_cases_eager,
    check_cases_jit,
    check_derivatives,
    check_error,
    check_tree,
    check_vmap_loop,
)

import irax.numpy as jnp

jax = pytest.importorskip("jax")
jjnp = pytest.importorskip("jax.numpy")

R = np.random.default_rng(0)
F = R.standard_normal((3, 4)).astype(np.float32)
F3 = R.standard_normal((2, 3, 4)).astype(np.float32)
I = R.integers(-5, 6, (3, 4)).astype(np.int32)
V = np.arange(1, 6, dtype=np.float32)
IV = np.array([3, -1, 4, 1, -5, 9], np.int32)
W = ("weak", F)


def _muladd(m):
    return m.frompyfunc(lambda a, b: a * b + 1, nin=2, nout=1, identity=1)


def _hypot(m):
    return m.ufunc(lambda a, b: m.sqrt(a * a + b * b), 2, 1, name="hyp")


def _maxu(m):
    return m.frompyfunc(m.maximum, 2, 1)


def _divmod(m):
    return m.frompyfunc(lambda a, b: (a // b, a % b), 2, 2)


def _neg(m):
    return m.frompyfunc(lambda a: -a, 1, 1)


def _custom(m):
    """A ufunc whose methods are JAX's keyword overrides."""
    return m.ufunc(m.add, 2, 1, name="myadd", identity=0, call=lambda x, y: x + y + 100,
                   reduce=lambda a, axis, dtype, keepdims, initial, where: m.sum(
                       a, axis=axis, keepdims=keepdims) * 2,
                   accumulate=lambda a, axis, dtype: m.cumsum(a, axis=axis) - 1,
                   at=lambda a, i, b=None: m.asarray(a).at[i].add(b if b is not None else 1) * 3,
                   reduceat=lambda a, idx, axis, dtype: m.take(a, idx, axis=axis) + 7)


def _stats(m):
    return lambda v: m.stack([v.min(), v.max(), v.sum()])


def _pw_funcs(m):
    return [lambda v: -v, 1.5, lambda v, k: v * k]


CASES = [
    ("vectorize", lambda m, x, y: m.vectorize(lambda a, b: a * 2 + b)(x, y), [F, V[:4]]),
    ("vectorize_weak", lambda m, x: m.vectorize(lambda a: a + 1)(x), [W]),
    ("vectorize_int", lambda m, x: m.vectorize(lambda a: a // 2)(x), [I]),
    ("vectorize_tuple", lambda m, x: m.vectorize(lambda a: (a, a * a))(x), [F]),
    ("vectorize_sig", lambda m, x, y: m.vectorize(m.dot, signature="(n),(n)->()")(x, y),
     [F3, V[:4]]),
    ("vectorize_sig_mat", lambda m, x: m.vectorize(lambda a: a @ a.T,
                                                   signature="(m,n)->(m,m)")(x), [F3]),
    ("vectorize_sig_outs", lambda m, x: m.vectorize(lambda a: (a.sum(), a * 2),
                                                    signature="(n)->(),(n)")(x), [F3]),
    ("vectorize_sig_new", lambda m, x: m.vectorize(lambda a: m.stack([a, -a]),
                                                   signature="()->(k)")(x), [F]),
    ("vectorize_excluded", lambda m, x: m.vectorize(lambda a, p: a ** p,
                                                    excluded={1})(x, 2), [F]),
    ("vectorize_kw", lambda m, x: m.vectorize(lambda a, s=1.0: a * s,
                                              excluded={"s"})(x, s=3.0), [F]),
    ("along", lambda m, x: m.apply_along_axis(m.sum, 1, x), [F]),
    ("along_0", lambda m, x: m.apply_along_axis(lambda v: v[::-1] * 2, 0, x), [F3]),
    ("along_stats", lambda m, x: m.apply_along_axis(_stats(m), -1, x), [F3]),
    ("along_args", lambda m, x: m.apply_along_axis(lambda v, a, b=0: v * a + b, 1, x, 2.0,
                                                   b=1), [I]),
    ("along_mat", lambda m, x: m.apply_along_axis(lambda v: m.outer(v, v), 1, x), [F3]),
    ("over_axes", lambda m, x: m.apply_over_axes(m.sum, x, [0, 2]), [F3]),
    ("over_axes_int", lambda m, x: m.apply_over_axes(m.max, x, [1]), [I]),
    ("over_axes_mean", lambda m, x: m.apply_over_axes(m.mean, x, (1, -1)), [F3]),
    ("piecewise", lambda m, x: m.piecewise(x, [x < 0, x > 1], _pw_funcs(m)[:2]), [F]),
    ("piecewise_default", lambda m, x: m.piecewise(x, [x < 0, x > 0.5], [lambda v: v * 2,
                                                                            -1.0, 7.0]), [F]),
    ("piecewise_args", lambda m, x: m.piecewise(x, [x < 0], [_pw_funcs(m)[2], 0.0], 3.0),
     [F]),
    ("piecewise_int", lambda m, x: m.piecewise(x, [x > 2], [lambda v: v * 10, 1.5]), [I]),
    ("piecewise_one", lambda m, x: m.piecewise(x, [x > 0], [lambda v: v + 1]), [F]),
    ("piecewise_weak", lambda m, x: m.piecewise(x, [x < 0], [0, 1]), [W]),
    ("ufunc_call", lambda m, x, y: _muladd(m)(x, y), [F, V[:4]]),
    ("ufunc_call_int", lambda m, x: _muladd(m)(x, 3), [I]),
    ("ufunc_hyp", lambda m, x, y: _hypot(m)(x, y), [F, F]),
    ("ufunc_two_out", lambda m, x: _divmod(m)(x, 3), [I]),
    ("ufunc_unary", lambda m, x: _neg(m)(x), [F]),
    ("reduce", lambda m, x: _muladd(m).reduce(x), [F]),
    ("reduce_axis", lambda m, x: _maxu(m).reduce(x, axis=1, keepdims=True), [I]),
    ("reduce_none", lambda m, x: _hypot(m).reduce(x, axis=None), [F3]),
    ("reduce_initial", lambda m, x: _maxu(m).reduce(x, axis=-1, initial=2), [I]),
    ("reduce_where", lambda m, x: _muladd(m).reduce(x, axis=0, where=x > 0), [F]),
    ("reduce_dtype", lambda m, x: _muladd(m).reduce(x, dtype=np.float32), [I]),
    ("reduce_empty", lambda m: _muladd(m).reduce(np.zeros((0, 2), np.float32)), []),
    ("accumulate", lambda m, x: _muladd(m).accumulate(x), [F]),
    ("accumulate_axis", lambda m, x: _maxu(m).accumulate(x, axis=1), [I]),
    ("accumulate_3d", lambda m, x: _hypot(m).accumulate(x, axis=-1), [F3]),
    ("accumulate_dtype", lambda m, x: _maxu(m).accumulate(x, dtype=np.float32), [I]),
    ("at_scalar", lambda m, x: _muladd(m).at(x, 2, 5.0, inplace=False), [V]),
    ("at_repeat", lambda m, x: _muladd(m).at(x, np.array([0, 2, 0]), 2.0, inplace=False), [V]),
    ("at_vals", lambda m, x, v: _maxu(m).at(x, np.array([1, 1, 4]), v, inplace=False),
     [V, V[:3]]),
    ("at_unary", lambda m, x: _neg(m).at(x, np.array([0, 3, 3]), inplace=False), [V]),
    ("at_2d", lambda m, x: _muladd(m).at(x, (np.array([0, 2]), np.array([1, 1])), 0.5,
                                       inplace=False), [F]),
    ("reduceat", lambda m, x: _muladd(m).reduceat(x, np.array([0, 2, 3])), [V]),
    ("reduceat_axis", lambda m, x: _maxu(m).reduceat(x, np.array([0, 3, 1]), axis=1), [I]),
    ("outer", lambda m, x, y: _muladd(m).outer(x, y), [V, F]),
    ("outer_hyp", lambda m, x: _hypot(m).outer(x, x), [V]),
    ("custom_call", lambda m, x: _custom(m)(x, 1), [I]),
    ("custom_reduce", lambda m, x: _custom(m).reduce(x, axis=1), [F]),
    ("custom_accumulate", lambda m, x: _custom(m).accumulate(x, axis=0), [I]),
    ("custom_at", lambda m, x: _custom(m).at(x, np.array([1, 2]), 4.0, inplace=False), [V]),
    ("custom_at_unary", lambda m, x: _custom(m).at(x, 1, inplace=False), [V]),
    ("custom_reduceat", lambda m, x: _custom(m).reduceat(x, np.array([0, 2])), [V]),
]


@pytest.mark.parametrize("i", range(len(CASES)), ids=[c[0] for c in CASES])
def test_functional_matches_jax_eagerly(i):
    check_cases_eager(CASES, i)


def test_functional_cases_in_one_jit():
    check_cases_jit(CASES)


def test_ufunc_attributes_match_jax():
    for make in (_muladd, _hypot, _divmod, _neg, _custom):
        ui, uj = make(jnp), make(jjnp)
        assert (ui.nin, ui.nout, ui.nargs, ui.identity) == (uj.nin, uj.nout, uj.nargs,
                                                            uj.identity)
        assert ui.__name__ == uj.__name__ and repr(ui) == repr(uj)
        assert hash(ui) == hash(ui) and ui == ui and (ui == make(jnp)) == (uj == make(jjnp))
    assert isinstance(_muladd(jnp), jnp.ufunc)
    assert jnp.ufunc(jnp.add, 2, 1, nargs=3).nargs == 3


@settings(max_examples=5, deadline=None)
@given(st.lists(st.integers(1, 4), min_size=1, max_size=3), st.data())
def test_functional_hypothesis(shape, data):
    x = R.standard_normal(shape).astype(np.float32)
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    idx = np.sort(np.array(data.draw(st.lists(st.integers(0, shape[axis] - 1), min_size=1,
                                              max_size=3)), np.int32))
    t = float(data.draw(st.floats(-1, 1)))
    for fn in [lambda m: m.apply_along_axis(lambda v: v.cumsum() * 2, axis, x),
               lambda m: m.apply_over_axes(m.sum, x, [axis]),
               lambda m: m.piecewise(x, [x < t, x > t + 0.5], [lambda v: v * v, 2.0]),
               lambda m: _muladd(m).reduce(x, axis=axis),
               lambda m: _maxu(m).accumulate(x, axis=axis),
               lambda m: _muladd(m).reduceat(x, idx, axis=axis),
               lambda m: m.vectorize(lambda v: v.max(), signature="(n)->()")(x)]:
        check_tree(fn(jnp), fn(jjnp), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name,fn,args", [
    ("vectorize", lambda m, x, y: m.vectorize(lambda a, b: a * m.sin(b))(x, y), [F, V[:4]]),
    ("vectorize_sig", lambda m, x: m.vectorize(lambda a: a @ a, signature="(n)->()")(x),
     [F3]),
    ("along", lambda m, x: m.apply_along_axis(lambda v: v * v.sum(), 1, x), [F]),
    ("over_axes", lambda m, x: m.apply_over_axes(m.sum, x, [0, 2]), [F3]),
    ("piecewise", lambda m, x: m.piecewise(x, [x < 0], [lambda v: v * v, lambda v: 3 * v]),
     [F]),
    ("ufunc_call", lambda m, x, y: _hypot(m)(x, y + 3), [F, F]),
    ("ufunc_reduce", lambda m, x: _muladd(m).reduce(x, axis=1), [F]),
    ("ufunc_accumulate", lambda m, x: _muladd(m).accumulate(x * 0.5), [F]),
    ("ufunc_reduce_1d", lambda m, x: _muladd(m).reduce(x), [V]),
    ("ufunc_outer", lambda m, x, y: _muladd(m).outer(x, y), [V, V[:3]]),
    ("ufunc_at", lambda m, x, v: _muladd(m).at(x, np.array([0, 2, 0]), v, inplace=False),
     [V, V[:3]]),
])
def test_functional_derivatives(name, fn, args):
    check_derivatives(name, fn, args, np.random.default_rng(1))


def test_functional_vmap_matches_loop():
    mul_add = _muladd(jnp)

    def fn(x, v):
        return (jnp.vectorize(lambda a, b: a * b)(x, v[0]),
                jnp.vectorize(jnp.dot, signature="(n),(n)->()")(x, v),
                jnp.apply_along_axis(jnp.cumsum, 0, x), jnp.apply_over_axes(jnp.sum, x, [1]),
                jnp.piecewise(x, [x < v[0]], [lambda a: a * 2, 0.0]), mul_add.reduce(x),
                mul_add.accumulate(v), mul_add.outer(v, v),
                mul_add.at(v, np.array([0, 0]), v[1], inplace=False),
                mul_add.reduceat(v, np.array([0, 2])))

    xs = R.standard_normal((3, 2, 4)).astype(np.float32)
    vs = R.standard_normal((3, 4)).astype(np.float32)
    check_vmap_loop(fn, [xs, vs], msg="functional")


ERRORS = [
    (lambda m: m.vectorize(lambda a: a, signature="(n)->")(np.ones(2)),
     "not a valid gufunc signature"),
    (lambda m: m.vectorize(m.dot, signature="(n),(n)->()")(np.ones(2), np.ones(3)),
     "inconsistent size for core dimension 'n'"),
    (lambda m: m.vectorize(lambda a: a, signature="(n)->()")(np.ones(2)),
     "output shape .* does not match"),
    (lambda m: m.vectorize(lambda a: a, signature="(n,m)->()")(np.ones(2)),
     "input with shape .* does not have enough dimensions"),
    (lambda m: m.vectorize(lambda a: (a, a), signature="()->()")(np.ones(2)),
     "wrong number of output arguments"),
    (lambda m: m.vectorize(lambda a: a, excluded={-1})(np.ones(2)),
     "excluded=.* contains negative numbers"),
    (lambda m: m.piecewise(np.ones(3), [np.ones(3) > 0, np.ones(3) > 0], [1]),
     "with 2 condition"),
    (lambda m: m.apply_over_axes(lambda a, axis: m.sum(a, axis)[0], np.ones((2, 2, 2)), [0]),
     "function is not returning an array of the correct shape"),
    (lambda m: m.frompyfunc(m.add, 2, 1)(np.ones(2), out=np.ones(2)), "out argument of"),
    (lambda m: m.frompyfunc(m.add, 2, 1)([1, 2], 1), "requires ndarray or scalar arguments"),
    (lambda m: m.frompyfunc(m.negative, 1, 1).reduce(np.ones(2)),
     "reduce only supported for binary ufuncs"),
    (lambda m: _divmod(m).accumulate(np.ones(2)),
     "accumulate only supported for functions returning a single value"),
    (lambda m: _neg(m).outer(np.ones(2), np.ones(2)), "outer only supported for binary"),
    (lambda m: _neg(m).reduceat(np.ones(2), np.array([0])), "reduceat only supported for "
                                                           "binary"),
    (lambda m: _maxu(m).reduce(np.ones(3), where=np.ones(3) > 0), "does not have an identity"),
    (lambda m: _muladd(m).reduce(np.ones(3), where=np.ones(3)), "where argument must have "
                                                                "dtype=bool"),
    (lambda m: _maxu(m).reduce(np.zeros(0)), "zero-size array to reduction operation"),
    (lambda m: _muladd(m).reduce(np.ones((2, 2)), axis=(0, 1)), "tuple of axes"),
    (lambda m: _muladd(m).accumulate(np.ones(2), axis=None), "accumulate does not allow "
                                                             "multiple axes"),
    (lambda m: _muladd(m).at(np.ones(3), 1, 2.0), "inplace=False"),
    (lambda m: _muladd(m).reduceat(np.float32(1), np.array([0])), "must have 1 or more "
                                                                  "dimension"),
    (lambda m: _muladd(m).reduceat(np.ones(3), np.array([[0]])), "indices must be "
                                                                 "one-dimensional"),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_functional_errors_match_jax(i):
    fn, pattern = ERRORS[i]
    check_error(fn, pattern)
