"""irax.lax.reduce_window, pooling and the cumulative reductions against jax.lax: values,
dtypes and weak types eagerly and under one jit, derivatives (JAX and finite differences),
vmap against a loop, stax's pooling call pattern, and JAX's errors."""

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import irax
import irax.lax as lax
import irax.numpy as jnp

jax = pytest.importorskip("jax")
jlax = jax.lax
jjnp = jax.numpy

BF16 = np.dtype(ml_dtypes.bfloat16)
rng = np.random.default_rng(7)


def _data(shape, dtype, distinct=False, gen=None):
    g = rng if gen is None else gen
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return g.integers(0, 2, shape).astype(bool)
    if dtype.kind == "i":
        return g.integers(-9, 10, shape).astype(dtype)
    if dtype.kind == "c":
        return (g.uniform(-3, 3, shape) + 1j * g.uniform(-3, 3, shape)).astype(dtype)
    if distinct:  # no ties: the derivatives of max/min are then smooth
        n = int(np.prod(shape))
        return (g.permutation(n).reshape(shape) * 0.37 - n * 0.1).astype(dtype)
    return g.uniform(-3, 3, shape).astype(dtype)


def check(got, want, msg="", rtol=None):
    want_dt = np.dtype(want.dtype)
    assert got.dtype == want_dt, (msg, got.dtype, want_dt)
    assert got.shape == tuple(want.shape), (msg, got.shape, want.shape)
    if want_dt != np.bool_:
        assert got.weak_type == want.weak_type, (msg, got.weak_type, want.weak_type)
    g, w = np.asarray(got), np.asarray(want)
    if want_dt.kind in "fc" or want_dt == BF16:
        r = rtol or (2e-2 if want_dt.itemsize == 2 else 2e-5)
        wide = np.complex128 if want_dt.kind == "c" else np.float64
        np.testing.assert_allclose(g.astype(wide), w.astype(wide), rtol=r, atol=r,
                                   equal_nan=True, err_msg=msg)
    else:
        np.testing.assert_array_equal(g, w, err_msg=msg)


def _mine(x, y):  # a Python computation of scalars: the generic path in both libraries
    return x + y


# (computation name, init, shape, dtype, window, strides, padding, base, window dilation)
CASES = [
    ("add", 0.0, (7,), np.float32, (3,), (1,), "VALID", None, None),
    ("add", 0, (6, 5), np.int32, (2, 3), (2, 1), "SAME", None, None),
    ("add", 0.0, (2, 5, 6, 3), np.float32, (1, 3, 3, 1), (1, 2, 2, 1), "SAME_LOWER", None, None),
    ("add", 0.0, (5, 4), np.float16, (2, 2), (1, 1), ((1, 0), (-1, 2)), (2, 1), (1, 2)),
    ("add", 0.0, (3, 6), np.complex64, (2, 2), (1, 2), "SAME", None, None),
    ("add", 0.0, (3, 2, 4, 5), BF16, (2, 1, 2, 2), None, "VALID", None, (1, 1, 2, 1)),
    ("max", -np.inf, (8,), np.float32, (2,), (2,), "VALID", None, None),
    ("max", -np.inf, (2, 6, 6, 2), np.float32, (1, 3, 3, 1), (1, 2, 2, 1), "SAME", None, None),
    ("max", -np.inf, (4, 5), BF16, (2, 3), (1, 2), ((0, 1), (2, 1)), (1, 2), (2, 1)),
    ("max", np.iinfo(np.int32).min, (5, 5), np.int32, (3, 3), (1, 1), "SAME", None, None),
    ("max", False, (9,), np.bool_, (3,), (2,), "VALID", None, None),
    ("min", np.inf, (3, 4, 5), np.float16, (2, 2, 2), (1, 2, 1), "SAME", None, None),
    ("min", np.iinfo(np.int32).max, (6,), np.int32, (2,), (1,), ((2, -1),), (2,), None),
    ("min", True, (4, 4), np.bool_, (2, 2), (1, 1), "VALID", None, None),
    ("mul", 1.0, (6,), np.float32, (2,), (1,), "VALID", None, None),
    ("mul", 1, (3, 4), np.int32, (2, 2), (1, 2), ((1, 1), (0, 1)), None, None),
    ("max", 0.0, (6, 3), np.float32, (3, 2), (1, 1), "SAME", None, None),  # init not -inf
    ("add", 1.0, (5,), np.float32, (3,), (1,), ((1, 1),), (2,), None),  # init not 0
    ("mine", 0.0, (2, 6), np.float32, (1, 3), (1, 2), "SAME", None, (1, 2)),
]


def _comp(lib, name):
    return _mine if name == "mine" else getattr(lib, name)


def _init(init, dtype):
    return np.array(init, dtype) if dtype == BF16 or dtype == np.float16 else init


def _call(lib, case, x):
    name, init, _, dtype, dims, strides, padding, base, wdil = case
    return lib.reduce_window(x, _init(init, dtype), _comp(lib, name), dims, strides, padding,
                             base, wdil)


def _operands():
    return [_data(c[2], c[3]) for c in CASES]


def test_reduce_window_matches_jax_eagerly_and_in_one_jit():
    xs = _operands()
    want = jax.jit(lambda *xs: [_call(jlax, c, x) for c, x in zip(CASES, xs)])(*xs)
    for c, x, w in zip(CASES, xs, want):
        check(_call(lax, c, x), w, msg=f"eager {c}")

    @irax.jit
    def all_cases(*xs):
        return [_call(lax, c, x) for c, x in zip(CASES, xs)]

    for c, g, w in zip(CASES, all_cases(*xs), want):
        check(g, w, msg=f"jit {c}")


def test_multiple_operands_with_a_pair_computation():
    """A (value, index) argmax per window: two operands reduced by one computation."""
    x = _data((3, 8), np.float32, distinct=True)
    idx = np.broadcast_to(np.arange(8, dtype=np.int32), (3, 8)).copy()

    def pick(lib):
        def reducer(a, b):
            take = lib.ge(a[0], b[0])
            return lib.select(take, a[0], b[0]), lib.select(take, a[1], b[1])
        return reducer

    def run(lib, x, i):
        return lib.reduce_window((x, i), (-np.inf, np.int32(0)), pick(lib), (1, 3), (1, 2),
                                 "SAME")

    want = run(jlax, x, idx)
    for got in (run(lax, x, idx), irax.jit(lambda a, b: run(lax, a, b))(x, idx)):
        check(got[0], want[0], "values")
        check(got[1], want[1], "indices")


@settings(max_examples=20, deadline=None)
@given(st.data())
def test_random_window_configs_match_jax_eagerly(data):
    rank = data.draw(st.integers(1, 3))
    shape = tuple(data.draw(st.integers(1, 6)) for _ in range(rank))
    dims = tuple(data.draw(st.integers(1, 3)) for _ in range(rank))
    strides = tuple(data.draw(st.integers(1, 3)) for _ in range(rank))
    base = tuple(data.draw(st.integers(1, 2)) for _ in range(rank))
    wdil = tuple(data.draw(st.integers(1, 2)) for _ in range(rank))
    padding = data.draw(st.one_of(
        st.sampled_from(["VALID", "SAME", "SAME_LOWER"]),
        st.tuples(*[st.tuples(st.integers(0, 2), st.integers(0, 2)) for _ in range(rank)])))
    name, init = data.draw(st.sampled_from([("add", 0.0), ("max", -np.inf), ("min", np.inf)]))
    x = _data(shape, np.float32)
    args = (dims, strides, padding, base, wdil)
    try:
        want = jlax.reduce_window(x, init, getattr(jlax, name), *args)
    except Exception as e:  # noqa: BLE001 - the same kind of error is expected
        with pytest.raises(type(e)):
            lax.reduce_window(x, init, getattr(lax, name), *args)
        return
    check(lax.reduce_window(x, init, getattr(lax, name), *args), want, msg=str(args))


def test_shape_tuple_and_padtype_to_pads_match_jax():
    for shape, dims, strides, pad in [((5, 7), (2, 3), (2, 2), "SAME"),
                                      ((4, 4), (3, 1), (1, 3), "SAME_LOWER"),
                                      ((6,), (4,), (3,), "VALID")]:
        assert lax.padtype_to_pads(shape, dims, strides, pad) == \
            jlax.padtype_to_pads(shape, dims, strides, pad)
    for args in [((5, 7), (2, 3), (2, 2), ((0, 1), (1, 1))),
                 ((5, 7), (2, 3), (1, 2), ((0, 1), (1, 1)), (2, 1), (1, 2))]:
        assert lax.reduce_window_shape_tuple(*args) == jlax.reduce_window_shape_tuple(*args)


# ---- derivatives ----------------------------------------------------------------------------
GRAD_CASES = [
    ("add", 0.0, (2, 5, 6, 3), (1, 3, 3, 1), (1, 2, 2, 1), "SAME", None, None),
    ("add", 0.0, (5, 4), (2, 2), (1, 2), ((1, 0), (0, 2)), (2, 1), (1, 2)),
    ("max", -np.inf, (2, 6, 6, 2), (1, 2, 2, 1), (1, 2, 2, 1), "VALID", None, None),
    ("max", -np.inf, (7, 5), (3, 2), (2, 1), "SAME", (1, 2), None),
    ("min", np.inf, (3, 8), (2, 3), (1, 2), ((1, 1), (0, 2)), None, None),
    ("mul", 1.0, (6,), (2,), (1,), "VALID", None, None),
]


def _loss(lib, case, x):
    name, init, _, dims, strides, padding, base, wdil = case
    y = lib.reduce_window(x, init, _comp(lib, name), dims, strides, padding, base, wdil)
    return (y * y).sum()


def test_window_gradients_match_jax_and_finite_differences():
    xs = [_data(c[2], np.float32, distinct=True) for c in GRAD_CASES]
    # JAX cannot differentiate a generic computation (mul): its equivalent product instead
    want = [jax.grad(lambda x: ((x[:-1] * x[1:]) ** 2).sum()) if c[0] == "mul" else
            jax.grad(lambda x, c=c: _loss(jlax, c, x)) for c in GRAD_CASES]
    want = jax.jit(lambda *xs: [w(x) for w, x in zip(want, xs)])(*xs)  # one XLA compile

    @irax.jit
    def grads(*xs):
        return [irax.grad(lambda x, c=c: _loss(lax, c, x))(x) for c, x in zip(GRAD_CASES, xs)]

    for c, g, w in zip(GRAD_CASES, grads(*xs), want):
        check(g, w, msg=f"grad {c}", rtol=1e-4)
    # eager derivative of two cases against central differences along a random direction
    for c, x in zip(GRAD_CASES[2:4], xs[2:4]):  # quadratic between kinks: exact
        x = x * np.float32(0.05)  # distinct values 0.018 apart, small losses
        v = rng.uniform(-1, 1, x.shape).astype(np.float32)
        g = np.asarray(irax.grad(lambda x, c=c: _loss(lax, c, x))(x))
        eps = 5e-3
        fd = (float(_loss(lax, c, x + eps * v)) - float(_loss(lax, c, x - eps * v))) / (2 * eps)
        np.testing.assert_allclose(np.sum(g * v), fd, rtol=2e-2)


def test_max_pool_gradient_ties_go_to_the_first_window_element_as_in_jax():
    x = np.array([[1.0, 1.0, 0.0, 2.0], [1.0, 1.0, 2.0, 2.0], [0.0, 3.0, 3.0, 1.0]], np.float32)

    def f(lib, init, comp):
        return lambda x: lib.reduce_window(x, init, comp(lib), (2, 2), (1, 1), "SAME").sum()

    for init, comp in ((-np.inf, lambda m: m.max), (np.inf, lambda m: m.min)):
        want = jax.grad(f(jlax, init, comp))(x)
        check(irax.grad(f(lax, init, comp))(x), want, "ties")


def test_window_jvp_with_window_dilation_matches_jax():
    """JAX has no VJP of max pooling with window dilation but forward mode works."""
    x, t = _data((9,), np.float32, distinct=True), _data((9,), np.float32)

    def f(lib):
        return lambda x: lib.reduce_window(x, -np.inf, lib.max, (3,), (1,), "SAME", None, (2,))

    want = jax.jvp(f(jlax), (x,), (t,))
    got = irax.jvp(f(lax), (x,), (t,))
    check(got[0], want[0], "primal")
    check(got[1], want[1], "tangent")


# ---- vmap ---------------------------------------------------------------------------------------
def test_vmap_matches_a_python_loop():
    x = _data((3, 2, 6, 5), np.float32, distinct=True)

    def f(x):
        a = lax.reduce_window(x, -np.inf, lax.max, (1, 3, 2), (1, 2, 1), "SAME")
        b = lax.reduce_window(x, 0.0, lax.add, (2, 2, 2), (1, 1, 2), ((0, 1), (1, 0), (0, 0)),
                              (1, 2, 1))
        c = lax.reduce_window(x, 1.0, lax.mul, (1, 2, 1), None, "VALID")
        return a, b, c, lax.cumsum(x, 1, True), lax.cummax(x, 2)

    for axis in (2,):  # (eager vmap compiles: one batch position)
        xa = np.moveaxis(x, 0, axis)
        got = irax.vmap(f, in_axes=axis)(xa)
        loop = [f(x[i]) for i in range(x.shape[0])]
        for k, g in enumerate(got):
            np.testing.assert_allclose(np.asarray(g), np.stack([np.asarray(r[k]) for r in loop]),
                                       rtol=1e-5, atol=1e-5, err_msg=f"axis {axis} out {k}")
    # the batched derivative rules too
    g = irax.vmap(irax.grad(lambda x: f(x)[0].sum() + f(x)[1].sum()))(x)

    def jax_f(x):
        a = jlax.reduce_window(x, -np.inf, jlax.max, (1, 3, 2), (1, 2, 1), "SAME")
        b = jlax.reduce_window(x, 0.0, jlax.add, (2, 2, 2), (1, 1, 2), ((0, 1), (1, 0), (0, 0)),
                               (1, 2, 1))
        return a.sum() + b.sum()

    want = jax.jit(jax.vmap(jax.grad(jax_f)))(x)
    check(g, want, "vmap of grad", rtol=1e-4)


# ---- stax's pooling layers ----------------------------------------------------------------------
def _pooling(lax_mod, jnp_mod, reducer, init, rescale, window, strides, padding):
    """``stax.MaxPool``/``AvgPool``/``SumPool``'s apply function on NHWC inputs, written with
    ``lax_mod``/``jnp_mod``: the window gains 1s for the batch and channel dims, and an average
    divides by the number of non-padding elements per window."""
    full_window = (1, *window, 1)
    full_strides = (1, *strides, 1)

    def apply(x):
        out = lax_mod.reduce_window(x, init, reducer, full_window, full_strides, padding)
        if not rescale:
            return out
        one = jnp_mod.ones(x.shape[1:-1], dtype=x.dtype)
        sizes = lax_mod.reduce_window(one, 0.0, lax_mod.add, window, strides, padding)
        return out / jnp_mod.expand_dims(jnp_mod.expand_dims(sizes, 0), -1)

    return apply


POOLS = [("max", -np.inf, False, (2, 2), (2, 2), "VALID"),
         ("max", -np.inf, False, (3, 3), (2, 2), "SAME"),
         ("add", 0.0, True, (3, 3), (1, 1), "SAME"),
         ("add", 0.0, False, (2, 3), (2, 1), "VALID")]


def test_stax_pooling_call_pattern_matches_jax():
    from jax.example_libraries import stax

    x = _data((2, 7, 6, 3), np.float32, distinct=True)
    layers = {("max", False): stax.MaxPool, ("add", True): stax.AvgPool,
              ("add", False): stax.SumPool}
    applies = [layers[name, rescale](window, strides, padding)[1]
               for name, _, rescale, window, strides, padding in POOLS]
    want = jax.jit(lambda x: [apply((), x) for apply in applies])(x)

    def ours(x):
        return [_pooling(lax, jnp, getattr(lax, n), i, r, w, s, p)(x)
                for n, i, r, w, s, p in POOLS]

    for got in (ours(x), irax.jit(ours)(x)):
        for p, g, w in zip(POOLS, got, want):
            check(g, w, msg=str(p))
    # and the gradient of an average-then-max pooling network
    def net(lib, jnp_mod, x):
        y = _pooling(lib, jnp_mod, lib.add, 0.0, True, (3, 3), (1, 1), "SAME")(x)
        return (_pooling(lib, jnp_mod, lib.max, -np.inf, False, (2, 2), (2, 2), "SAME")(y)
                ** 2).sum()

    check(irax.grad(lambda x: net(lax, jnp, x))(x),
          jax.jit(jax.grad(lambda x: net(jlax, jjnp, x)))(x), "pool grad", rtol=1e-4)


def test_stax_pooling_layers_themselves_run_on_irax():
    """stax's own layer code with its ``lax``/``jnp`` globals bound to irax's: init_fun
    (padtype_to_pads, reduce_window_shape_tuple) and apply_fun, NHWC and a spec."""
    import types

    from jax.example_libraries import stax

    env = {**stax.__dict__, "lax": lax, "jnp": jnp}
    layer = types.FunctionType(stax._pooling_layer.__code__, env, None,
                               stax._pooling_layer.__defaults__)
    rescale = types.FunctionType(stax._normalize_by_window_size.__code__, env)
    ours = {"max": layer(lax.max, -jnp.inf), "avg": layer(lax.add, 0.0, rescale),
            "sum": layer(lax.add, 0.0)}
    theirs = {"max": stax.MaxPool, "avg": stax.AvgPool, "sum": stax.SumPool}
    x = _data((2, 7, 6, 3), np.float32, distinct=True)
    for kind, window, strides, padding, spec in [("max", (3, 3), (2, 2), "SAME", None),
                                                 ("avg", (2, 3), (1, 2), "VALID", None),
                                                 ("avg", (3, 2), None, "SAME", "NHWC"),
                                                 ("sum", (2, 2), (2, 1), "SAME", "NHWC")]:
        init, apply = ours[kind](window, strides, padding, spec)
        jinit, japply = theirs[kind](window, strides, padding, spec)
        assert tuple(init(None, x.shape)[0]) == tuple(jinit(None, x.shape)[0])
        check(apply((), x), jax.jit(lambda x, f=japply: f((), x))(x), msg=f"{kind} {window}")


# ---- cumulative reductions ----------------------------------------------------------------------
CUMS = ["cumsum", "cumprod", "cummax", "cummin", "cumlogsumexp"]
CUM_CONFIGS = [(np.float32, (7,), 0, False), (np.float32, (3, 5), 1, True),
               (np.float16, (4, 3), 0, True), (BF16, (9,), 0, False),
               (np.int32, (2, 3, 4), 2, False)]
CUM_CASES = [(n, *c) for n in CUMS for c in CUM_CONFIGS
             if not (n == "cumlogsumexp" and c[0] == np.int32)]


def _cum_data(name, dt, shape, gen):
    if name == "cumprod" and np.dtype(dt).kind == "f":
        return gen.uniform(0.5, 1.5, shape).astype(dt)
    if name == "cumprod":
        return gen.integers(-2, 3, shape).astype(dt)
    return _data(shape, dt, gen=gen)


def test_cumulative_reductions_match_jax_eagerly_and_in_one_jit():
    # data of its own: drawn from the module's generator, the values depended on which
    # tests of the module ran before in the same worker, and some drew a bfloat16 cumsum
    # whose rounding differs from JAX's past the tolerance
    gen = np.random.default_rng(3)
    xs = [_cum_data(n, dt, s, gen) for n, dt, s, _, _ in CUM_CASES]
    big = np.array([1000.0, 1000.0, -1000.0, 20.0, -np.inf, 3.0], np.float32)  # stability
    want = jax.jit(lambda *xs: [getattr(jlax, n)(x, a, r) for (n, _, _, a, r), x in
                                zip(CUM_CASES, xs)])(*xs)
    want.append(jlax.cumlogsumexp(big))

    def ours(*xs):
        out = [getattr(lax, n)(x, a, r) for (n, _, _, a, r), x in zip(CUM_CASES, xs)]
        return out + [lax.cumlogsumexp(xs[-1])]

    for c, g, w in zip(CUM_CASES + ["big"], ours(*xs, big), want):
        check(g, w, msg=f"eager {c}")
    # compiled: each function once, the configurations rotating (one IREE compile)
    rotate = {"cumsum": 4, "cumprod": 0, "cummax": 1, "cummin": 2, "cumlogsumexp": 3}
    some = [next(k for k, c in enumerate(CUM_CASES) if c[0] == n and c[1:] == CUM_CONFIGS[i])
            for n, i in rotate.items()]

    @irax.jit
    def compiled(*xs):
        return [getattr(lax, CUM_CASES[k][0])(x, *CUM_CASES[k][3:]) for k, x in
                zip(some, xs)] + [lax.cumlogsumexp(xs[-1])]

    for k, g, w in zip(some + [-1], compiled(*[xs[k] for k in some], big),
                       [want[k] for k in some] + [want[-1]]):
        check(g, w, msg=f"jit {CUM_CASES[k] if k >= 0 else 'big'}")


def test_cumulative_gradients_match_jax():
    x = _data((4, 6), np.float32)
    x[1, 3] = x[1, 1]  # a tie for cummax / cummin, shared as JAX's scan shares it
    x[2, :] = [0.5, 2.0, 2.0, 1.0, 2.0, -1.0]
    pos = rng.uniform(0.5, 1.5, (4, 6)).astype(np.float32)
    # (the last one: cumlogsumexp with -inf entries, JAX's custom rule of logaddexp)
    cases = [("cumsum", 1, True), ("cumprod", 0, False), ("cummax", 0, False),
             ("cummax", 1, True), ("cummin", 1, True), ("cumlogsumexp", 1, False),
             ("cumlogsumexp", 0, True)]
    wneg = np.array([[-np.inf, 0.5, -np.inf, 2.0, 1.0, -np.inf]] * 2, np.float32)
    inputs = [pos if n == "cumprod" else x for n, _, _ in cases[:-1]] + [wneg]

    def loss(lib, n, a, r):
        return lambda x: (getattr(lib, n)(x, a, r) * np.arange(1.0, 7.0, dtype=np.float32)).sum()

    want = jax.jit(lambda *vs: [jax.grad(loss(jlax, *c))(v) for c, v in zip(cases, vs)])(*inputs)
    for c, v, w in zip(cases, inputs, want):  # eagerly: every case
        check(irax.grad(loss(lax, *c))(v), w, msg=f"eager {c}", rtol=1e-4)
    jitted = [0, 3, 5]

    @irax.jit
    def grads(*vs):  # compiled: one of each kind of derivative rule
        return [irax.grad(loss(lax, *cases[k]))(v) for k, v in zip(jitted, vs)]

    for k, g in zip(jitted, grads(*[inputs[k] for k in jitted])):
        check(g, want[k], msg=f"jit {cases[k]}", rtol=1e-4)
    v = rng.normal(size=6).astype(np.float32)
    z = rng.normal(size=6).astype(np.float32)
    f = lambda z: float((lax.cumlogsumexp(z, 0, True) ** 2).sum())  # noqa: E731
    g = np.asarray(irax.grad(lambda z: (lax.cumlogsumexp(z, 0, True) ** 2).sum())(z))
    np.testing.assert_allclose(np.sum(g * v), (f(z + 1e-3 * v) - f(z - 1e-3 * v)) / 2e-3,
                               rtol=2e-2)


# ---- errors -------------------------------------------------------------------------------------
ERRORS = [
    lambda m, x: m.reduce_window(x, 0.0, m.add, (2,), (1,), "VALID"),          # rank
    lambda m, x: m.reduce_window(x, 0.0, m.add, (2, 2), (1,), "VALID"),        # strides rank
    lambda m, x: m.reduce_window(x, 0.0, m.add, (0, 2), (1, 1), "VALID"),      # zero window
    lambda m, x: m.reduce_window(x, 0.0, m.add, (2, 2), (1, 1), "FULL"),       # bad string
    lambda m, x: m.reduce_window(x, 0.0, m.add, (2, 2), (1, 1), ((0, 0),)),    # pairs
    lambda m, x: m.reduce_window(x > 0, False, m.add, (2, 2), (1, 1), "VALID"),  # bool sum
    lambda m, x: m.reduce_window(x.astype(np.float16), 1.0, m.mul, (2, 2)),    # init dtype
    lambda m, x: m.cumsum(x, -1),
    lambda m, x: m.cumsum(x, 2),
    lambda m, x: m.cumsum(x > 0, 0),
]


@pytest.mark.parametrize("k", range(len(ERRORS)))
def test_errors_have_jax_types(k):
    x = _data((3, 4), np.float32)
    with pytest.raises(Exception) as jax_err:
        ERRORS[k](jlax, x)
    with pytest.raises(jax_err.type) as ours:
        ERRORS[k](lax, x)
    text = str(ours.value)
    assert "reduce_window" in text or "cumsum" in text or "axis" in text or \
        "padding" in text.lower(), text
