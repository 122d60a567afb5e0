"""irax.example_libraries.optimizers against jax.example_libraries.optimizers: 20 steps of
every optimizer (with scalar and scheduled step sizes) on the same loss, eagerly, and
each optimizer's whole run in one irax.jit (a fori_loop each); the schedules over steps;
l2_norm and clip_grads; the OptimizerState pytree, pack/unpack; the errors."""

import numpy as np
import pytest

import irax
import irax.numpy as jnp
from irax.example_libraries import optimizers as opt

jax = pytest.importorskip("jax")
from jax.example_libraries import optimizers as jopt  # noqa: E402

STEPS = 20
_r = np.random.default_rng(0)
PARAMS = {"w": _r.normal(size=(3, 4)).astype(np.float32),
          "b": [_r.normal(size=(4,)).astype(np.float32), np.float32(0.5)],
          "k": _r.normal(size=(2, 3, 2)).astype(np.float32)}
TARGET = jax.tree.map(lambda v: _r.normal(size=np.shape(v)).astype(np.float32), PARAMS)


def _schedules(m):
    return {"exponential_decay": m.exponential_decay(0.1, 5, 0.5),
            "inverse_time_decay": m.inverse_time_decay(0.1, 4, 0.5),
            "inverse_time_staircase": m.inverse_time_decay(0.1, 4, 0.5, staircase=True),
            "polynomial_decay": m.polynomial_decay(0.1, 12, 0.01, power=2.0),
            "piecewise_constant": m.piecewise_constant([4, 9], [0.1, 0.05, 0.02]),
            "constant": m.constant(0.05)}


# name -> (optimizer, args: a str names a schedule of _schedules)
OPTIMIZERS = {
    "sgd": ("sgd", (0.1,)),
    "sgd_schedule": ("sgd", ("piecewise_constant",)),
    "momentum": ("momentum", (0.05, 0.9)),
    "momentum_schedule": ("momentum", ("exponential_decay", 0.8)),
    "nesterov": ("nesterov", (0.05, 0.9)),
    "adagrad": ("adagrad", (0.1,)),
    "adagrad_momentum": ("adagrad", ("inverse_time_staircase", 0.5)),
    "rmsprop": ("rmsprop", (0.01,)),
    "rmsprop_args": ("rmsprop", ("polynomial_decay", 0.8, 1e-6)),
    "rmsprop_momentum": ("rmsprop_momentum", (0.01,)),
    "rmsprop_momentum_args": ("rmsprop_momentum", ("inverse_time_decay", 0.85, 1e-7, 0.7)),
    "adam": ("adam", (0.05,)),
    "adam_args": ("adam", ("constant", 0.8, 0.99, 1e-6)),
    "adamax": ("adamax", (0.05,)),
    "adamax_args": ("adamax", ("exponential_decay", 0.85, 0.95, 1e-7)),
    "sm3": ("sm3", (0.1,)),
    "sm3_momentum": ("sm3", ("polynomial_decay", 0.5)),
}
#: one compiled program runs these (each optimizer once, the schedules' traced steps
#: included); every case runs eagerly
JIT_GROUP = ["sgd_schedule", "momentum_schedule", "nesterov", "adagrad_momentum",
             "rmsprop_args", "rmsprop_momentum_args", "adam", "adamax_args", "sm3_momentum"]
#: jax's sm3 keeps the parameter's shape as ints in its state, which a fori_loop traces
#: (so its get_params cannot reshape); the jax side reads those parameters from the
#: unpacked state with the shapes of PARAMS. irax's sm3 keeps the shape static.
SHAPE_IN_STATE = {"sm3", "sm3_momentum"}


def _make(m, name):
    fn, args = OPTIMIZERS[name]
    sched = _schedules(m)
    return getattr(m, fn)(*[sched[a] if isinstance(a, str) else a for a in args])


def _sm3_params(state):
    marked = jopt.unpack_optimizer_state(state)
    return jax.tree.map(lambda point, p0: point.subtree[0].reshape(np.shape(p0)), marked,
                        PARAMS)


def _run(m, T, grad, fori_loop, names, params):
    def loss(p):
        leaves = zip(jax.tree.leaves(p) if T is jax.numpy else irax.tree.leaves(p),
                     jax.tree.leaves(TARGET))
        return sum(T.sum((x - t) ** 2 * (1 + T.abs(x)) + T.sin(3 * x)) for x, t in leaves)

    out = {}
    for name in names:
        init, update, get_params = _make(m, name)
        if m is jopt and name in SHAPE_IN_STATE:
            get_params = _sm3_params
        out[name] = _train(update, get_params, grad(loss), fori_loop, init(params))
    return out


def _train(update, get_params, grad_fn, fori_loop, state):
    state = fori_loop(0, STEPS, lambda i, s: update(i, grad_fn(get_params(s)), s), state)
    return get_params(state)


def _python_loop(lo, hi, body, x):
    for i in range(lo, hi):
        x = body(i, x)
    return x


@pytest.fixture(scope="module")
def reference():
    """jax's final parameters for every case, from one jax.jit (a fori_loop each)."""
    out = jax.jit(lambda p: _run(jopt, jax.numpy, jax.grad, jax.lax.fori_loop,
                                 list(OPTIMIZERS), p))(PARAMS)
    return jax.tree.map(np.asarray, out)


@pytest.fixture(scope="module")
def irax_jit():
    return irax.jit(lambda p: _run(opt, jnp, irax.grad, irax.lax.fori_loop, JIT_GROUP, p))(
        PARAMS)


@pytest.fixture(scope="module")
def irax_eager():
    return _run(opt, jnp, irax.grad, _python_loop, list(OPTIMIZERS), PARAMS)


def _check_tree(got, want, msg):
    g_leaves, g_tree = irax.tree.flatten(got)
    w_leaves, w_tree = jax.tree.flatten(want)
    assert str(g_tree).replace("PyTreeDef", "") == str(w_tree).replace("PyTreeDef", ""), msg
    for g, w in zip(g_leaves, w_leaves):
        g = np.asarray(g)
        assert (g.shape, g.dtype) == (w.shape, w.dtype), msg
        np.testing.assert_allclose(g, w, rtol=2e-5, atol=2e-6, err_msg=msg)


@pytest.mark.parametrize("name", JIT_GROUP)
def test_optimizer_jit(name, reference, irax_jit):
    _check_tree(irax_jit[name], reference[name], f"{name} (jit)")


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_optimizer_eager(name, reference, irax_eager):
    _check_tree(irax_eager[name], reference[name], f"{name} (eager)")


def test_schedules():
    """Each schedule over steps 0..N (int and int32-array steps) equals jax's."""
    mine, theirs = _schedules(opt), _schedules(jopt)
    steps = np.arange(16, dtype=np.int32)
    for name in mine:
        want = np.asarray(jax.vmap(theirs[name])(steps))
        got = np.asarray(irax.vmap(mine[name])(jnp.asarray(steps))) if name != "constant" \
            else np.full(16, mine[name](0), np.float32)
        np.testing.assert_allclose(got, np.broadcast_to(want, got.shape), rtol=1e-6,
                                   err_msg=name)
        for i in (0, 4, 5, 9, 12, 15):
            np.testing.assert_allclose(np.asarray(mine[name](i)), np.asarray(theirs[name](i)),
                                       rtol=1e-6, err_msg=f"{name} at {i}")
    assert opt.make_schedule(0.3)(7) == 0.3
    sched = opt.exponential_decay(1.0, 2, 0.5)
    assert opt.make_schedule(sched) is sched


def test_l2_norm_and_clip_grads():
    grads = {"a": np.arange(6, dtype=np.float32).reshape(2, 3), "b": np.float32(-2.0)}
    np.testing.assert_allclose(np.asarray(opt.l2_norm(grads)), np.asarray(jopt.l2_norm(grads)),
                               rtol=1e-6)
    for max_norm in (1.0, 100.0):
        got = opt.clip_grads(grads, max_norm)
        want = jopt.clip_grads(grads, max_norm)
        for k in grads:
            np.testing.assert_allclose(np.asarray(got[k]), np.asarray(want[k]), rtol=1e-6)


def test_optimizer_state_pytree_and_packing():
    init, update, get_params = opt.adam(0.1)
    jinit = jopt.adam(0.1)[0]
    state = init(PARAMS)
    assert isinstance(state, opt.OptimizerState)
    # the same leaves as jax's state: 3 per parameter (x, m, v)
    assert len(irax.tree.leaves(state)) == len(jax.tree.leaves(jinit(PARAMS))) == 12
    marked = opt.unpack_optimizer_state(state)
    assert isinstance(marked["w"], opt.JoinPoint)
    np.testing.assert_array_equal(np.asarray(marked["w"].subtree[0]), PARAMS["w"])
    repacked = opt.pack_optimizer_state(marked)
    assert irax.tree.structure(repacked) == irax.tree.structure(state)
    for a, b in zip(irax.tree.leaves(repacked), irax.tree.leaves(state)):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    # a state mapped over stays a state
    doubled = irax.tree.map(lambda v: 2 * v, state)
    np.testing.assert_allclose(np.asarray(get_params(doubled)["w"]), 2 * PARAMS["w"])
    # the decorator lifts a user optimizer for one array
    sign_sgd = opt.optimizer(lambda lr: (lambda x: x, lambda i, g, x: x - lr * jnp.sign(g),
                                         lambda x: x))
    i2, u2, g2 = sign_sgd(0.5)
    out = g2(u2(0, {"a": jnp.asarray([1.0, -2.0])}, i2({"a": jnp.asarray([0.0, 0.0])})))
    np.testing.assert_allclose(np.asarray(out["a"]), [-0.5, 0.5])


def test_errors():
    init, update, _ = opt.sgd(0.1)
    state = init({"a": np.zeros(2, np.float32)})
    with pytest.raises(TypeError, match="optimizers: expected a gradient tree of the "
                       "parameters' structure"):
        update(0, {"b": np.zeros(2, np.float32)}, state)
    with pytest.raises(ValueError, match=r"piecewise_constant: expected len\(boundaries\) == "
                       r"len\(values\) - 1 = 2, got 1"):
        opt.piecewise_constant([5], [1.0, 0.5, 0.1])
    with pytest.raises(ValueError, match="piecewise_constant: expected boundaries and values "
                       "as 1-D sequences"):
        opt.piecewise_constant(5, [1.0, 0.5])
    with pytest.raises(TypeError, match=r"make_schedule: expected a scalar or a callable step "
                       r"size, got list of shape \(2,\)"):
        opt.make_schedule([0.1, 0.2])
    with pytest.raises(TypeError, match="pack_optimizer_state: expected a tree whose leaves "
                       "are all JoinPoints, got leaves of type ndarray"):
        opt.pack_optimizer_state({"a": np.zeros(2)})
