"""Structured control flow: cond, switch, while_loop, fori_loop, scan, map,
associative_scan, select_n — forward, jit, grad (incl. while loops with data-dependent
trip counts), vmap; against NumPy, finite differences and real JAX."""

import re
from pathlib import Path

import numpy as np
import pytest

import irax
import irax.numpy as jnp
from irax import lax
from irax.config import config
from irax.passes import hoist_scan_inputs


def _jax():
    try:
        import jax

        return jax
    except ImportError:
        return None


# ---- forward ---------------------------------------------------------------------------------
def test_cond_and_switch_eager_and_jit():
    f = lambda p, x: lax.cond(p, lambda x: x + 1.0, lambda x: x * 10.0, x)  # noqa: E731
    assert float(f(True, 2.0)) == 3.0 and float(f(False, 2.0)) == 20.0
    fj = irax.jit(f)
    assert float(fj(True, 2.0)) == 3.0 and float(fj(False, 2.0)) == 20.0
    branches = [lambda x: x, lambda x: x * 2.0, lambda x: x * 3.0]
    s = irax.jit(lambda i, x: lax.switch(i, branches, x))
    assert [float(s(i, 5.0)) for i in (-4, 0, 1, 2, 9)] == [5.0, 5.0, 10.0, 15.0, 15.0]


def test_cond_with_pytree_operands_and_closures():
    y = np.float32(7.0)

    def f(p, tree):
        return lax.cond(p, lambda t: {"a": t[0] * y, "b": t[1]},
                        lambda t: {"a": t[0], "b": t[1] + y}, tree)

    out = irax.jit(f)(False, (np.float32(2.0), np.arange(3, dtype=np.float32)))
    assert float(out["a"]) == 2.0
    np.testing.assert_allclose(out["b"], [7.0, 8.0, 9.0])


def test_fori_loop_sum_and_while_newton_match_numpy():
    total = irax.jit(lambda n: lax.fori_loop(0, n, lambda i, s: s + i * i, 0))(10)
    assert int(total) == sum(i * i for i in range(10))
    static = lax.fori_loop(0, 10, lambda i, s: s + i * i, 0)
    assert int(static) == 285

    def newton_sqrt(a):
        def body(c):
            x, _ = c
            return 0.5 * (x + a / x), x

        x, _ = lax.while_loop(lambda c: jnp.abs(c[0] - c[1]) > 1e-6, body, (a, 0.0))
        return x

    a = np.array([2.0, 9.0, 0.25], np.float32)
    np.testing.assert_allclose(irax.vmap(newton_sqrt)(a), np.sqrt(a), rtol=1e-6)
    np.testing.assert_allclose(irax.jit(irax.vmap(newton_sqrt))(a), np.sqrt(a), rtol=1e-6)
    assert float(irax.jit(newton_sqrt)(np.float32(2.0))) == pytest.approx(np.sqrt(2), 1e-6)


def test_scan_reverse_length_and_map():
    xs = np.arange(5, dtype=np.float32)
    c, ys = lax.scan(lambda c, x: (c + x, c), 0.0, xs, reverse=True)
    assert float(c) == 10.0
    np.testing.assert_allclose(ys, [10.0, 9.0, 7.0, 4.0, 0.0])
    c, ys = irax.jit(lambda: lax.scan(lambda c, _: (c * 2.0, c), 1.0, None, length=4))()
    np.testing.assert_allclose(ys, [1.0, 2.0, 4.0, 8.0])
    np.testing.assert_allclose(lax.map(lambda x: x * x, xs), xs * xs)
    np.testing.assert_allclose(lax.map(lambda x: x + 1, xs, batch_size=2), xs + 1)


def test_associative_scan_and_select_n():
    x = np.arange(1, 8, dtype=np.float32)
    np.testing.assert_allclose(lax.associative_scan(jnp.add, x), np.cumsum(x))
    np.testing.assert_allclose(lax.associative_scan(jnp.multiply, x, reverse=True),
                               np.cumprod(x[::-1])[::-1], rtol=1e-6)
    w = np.array([0, 2, 1], np.int32)
    out = lax.select_n(w, np.zeros(3, np.float32), np.ones(3, np.float32),
                       np.full(3, 2.0, np.float32))
    np.testing.assert_allclose(out, [0.0, 2.0, 1.0])


# ---- derivatives -------------------------------------------------------------------------------
def _fd(f, x, eps=1e-6):
    return (f(x + eps) - f(x - eps)) / (2 * eps)


def fixed_point(a):
    """x = a cos(x), iterated until it stops changing: a data-dependent trip count."""
    def body(c):
        x, _ = c
        return a * jnp.cos(x), x

    x, _ = lax.while_loop(lambda c: jnp.abs(c[0] - c[1]) > 1e-12, body, (1.0, 0.0))
    return x


def test_grad_through_data_dependent_while_matches_finite_differences(x64):
    for a in (0.3, 0.8, 1.1):
        g = float(irax.grad(fixed_point)(a))
        fd = float(_fd(lambda v: float(fixed_point(v)), a))
        assert g == pytest.approx(fd, rel=1e-4)


@pytest.mark.parametrize("forward", [True, False])
def test_jit_grad_through_while_compiles_and_runs(x64, forward):
    """The loop is elementwise (0-d carries): reverse mode computes its derivative in the
    forward loop (one loop), or with the forward rule off sweeps a tape backwards."""
    old = config.irax_while_grad_forward
    config.update("irax_while_grad_forward", forward)
    try:
        g = irax.jit(irax.grad(fixed_point))
        text = g.lower(0.8).as_text("stablehlo")
        if forward:
            assert text.count("stablehlo.while") == 1
        else:
            assert text.count("stablehlo.while") >= 3  # forward, backward, recomputation
        assert float(g(0.8)) == pytest.approx(float(irax.grad(fixed_point)(0.8)), rel=1e-10)
    finally:
        config.update("irax_while_grad_forward", old)


def test_jvp_of_while_and_adaptive_loop(x64):
    def integrate(k):
        # an adaptive-step loop: the step count depends on k
        def body(c):
            t, y, h = c
            h = jnp.minimum(h, 1.0 - t)
            return t + h, y + h * (-k * y), h * 1.5

        _, y, _ = lax.while_loop(lambda c: c[0] < 1.0, body, (0.0, 1.0, 0.01))
        return y

    _, t = irax.jvp(integrate, (0.7,), (1.0,))
    assert float(t) == pytest.approx(float(_fd(lambda v: float(integrate(v)), 0.7)), rel=1e-4)
    assert float(irax.grad(integrate)(0.7)) == pytest.approx(float(t), rel=1e-10)


def rnn_loss(w, u, xs, np_mod, lax_mod):
    def step(h, x):
        h = np_mod.tanh(h @ w + x * u)
        return h, np_mod.sum(h * h)

    h, ys = lax_mod.scan(step, np_mod.zeros(3, np.float32), xs)
    return np_mod.sum(h) + np_mod.sum(ys)


def _rnn_args():
    rng = np.random.default_rng(0)
    w = (rng.standard_normal((3, 3)) * 0.5).astype(np.float32)
    u = rng.standard_normal(3).astype(np.float32)
    xs = rng.standard_normal((6, 1)).astype(np.float32)
    return w, u, xs


def test_scan_rnn_forward_grad_vmap_match_jax():
    jax = pytest.importorskip("jax")
    w, u, xs = _rnn_args()
    ours = lambda w, u, xs: rnn_loss(w, u, xs, jnp, lax)  # noqa: E731
    theirs = lambda w, u, xs: rnn_loss(w, u, xs, jax.numpy, jax.lax)  # noqa: E731
    np.testing.assert_allclose(float(ours(w, u, xs)), float(theirs(w, u, xs)), rtol=1e-5)
    g = irax.jit(irax.grad(ours, argnums=(0, 1, 2)))(w, u, xs)
    gj = jax.grad(theirs, argnums=(0, 1, 2))(w, u, xs)
    for a, b in zip(g, gj):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-4, atol=1e-5)
    batch = np.stack([xs, xs * 0.5, -xs])
    v = irax.vmap(ours, in_axes=(None, None, 0))(w, u, batch)
    vj = jax.vmap(theirs, in_axes=(None, None, 0))(w, u, batch)
    np.testing.assert_allclose(np.asarray(v), np.asarray(vj), rtol=1e-5)
    per_ex = irax.jit(irax.vmap(irax.grad(ours), in_axes=(None, None, 0)))(w, u, batch)
    per_ex_j = jax.vmap(jax.grad(theirs), in_axes=(None, None, 0))(w, u, batch)
    np.testing.assert_allclose(np.asarray(per_ex), np.asarray(per_ex_j), rtol=1e-4, atol=1e-5)


def test_cond_switch_under_jit_vmap_grad_match_jax():
    jax = pytest.importorskip("jax")

    def f(lax_mod, np_mod, x):
        branches = [lambda v: np_mod.sin(v) * v, lambda v: v ** 3, lambda v: np_mod.exp(-v)]
        i = (x > 0).astype(np.int32) + (x > 1).astype(np.int32)
        return lax_mod.switch(i, branches, x) + lax_mod.cond(x < 0.5, lambda v: v, np_mod.cos,
                                                              x)

    ours = lambda x: f(lax, jnp, x)  # noqa: E731
    theirs = lambda x: f(jax.lax, jax.numpy, x)  # noqa: E731
    xs = np.array([-1.5, 0.3, 0.7, 1.8], np.float32)
    np.testing.assert_allclose(irax.vmap(ours)(xs), jax.vmap(theirs)(xs), rtol=1e-6)
    np.testing.assert_allclose(irax.jit(irax.vmap(irax.grad(ours)))(xs),
                               jax.vmap(jax.grad(theirs))(xs), rtol=1e-5)
    for x in xs:
        assert float(irax.grad(ours)(x)) == pytest.approx(float(jax.grad(theirs)(x)), rel=1e-5)


def test_fori_loop_static_bounds_is_reverse_differentiable():
    def f(x):
        return lax.fori_loop(0, 4, lambda i, v: v * x + i, 1.0)

    # f(x) = ((x + 0) x + 1) x + 2) x + 3 = x^4 + x^2 + 2x + 3
    for x in (0.5, -1.2):
        assert float(irax.grad(f)(x)) == pytest.approx(4 * x ** 3 + 2 * x + 2, rel=1e-5)


def test_fori_loop_and_scan_take_unroll_as_jax_does():
    """``unroll`` (jax.lax.fori_loop's keyword) is taken with static bounds and leaves the
    values alone; traced bounds refuse it, as do a negative or a traced scan unroll."""
    def f(x, n):
        return lax.fori_loop(0, 5, lambda i, v: v * x + i, 1.0, unroll=n)

    want = float(f(1.5, 1))
    for n in (2, True, False, None, 1):
        assert float(irax.jit(f, static_argnums=1)(1.5, n)) == pytest.approx(want, rel=1e-6)
    with pytest.raises(ValueError, match="Can only use `unroll` in `fori_loop` if the loop "
                                         "bounds are statically known"):
        irax.jit(lambda k: lax.fori_loop(0, k, lambda i, v: v + 1, 0, unroll=2))(3)
    assert int(irax.jit(lambda k: lax.fori_loop(0, k, lambda i, v: v + 1, 0,
                                                unroll=1))(3)) == 3
    with pytest.raises(ValueError, match="non-negative"):
        lax.scan(lambda c, x: (c, x), 0.0, np.ones(3, np.float32), unroll=-1)
    with pytest.raises(TypeError, match="concrete `int` or `bool`"):
        irax.jit(lambda u: lax.scan(lambda c, x: (c, x), 0.0, np.ones(3, np.float32),
                                    unroll=u))(2)


# ---- vmap ------------------------------------------------------------------------------------
def test_vmap_while_keeps_finished_examples_fixed():
    def count_up(x):
        return lax.while_loop(lambda c: c < 10.0, lambda c: c + 3.0, x)

    xs = np.array([0.0, 9.5, 11.0], np.float32)
    np.testing.assert_allclose(irax.vmap(count_up)(xs), [12.0, 12.5, 11.0])


def test_vmap_cond_with_batched_predicate_selects():
    f = irax.vmap(lambda p, x: lax.cond(p, lambda v: v * 2.0, lambda v: -v, x))
    np.testing.assert_allclose(f(np.array([True, False]), np.array([3.0, 3.0], np.float32)),
                               [6.0, -3.0])


def test_batched_scan_keeps_the_time_loop():
    f = irax.vmap(lambda xs: lax.scan(lambda c, x: (c + x, c), 0.0, xs)[1])
    xs = np.arange(12, dtype=np.float32).reshape(3, 4)
    np.testing.assert_allclose(f(xs), np.cumsum(xs, 1) - xs)
    from irax.frontend.compile import clone_module
    from irax.passes import run_pipeline

    module = clone_module(irax.jit(f).lower(xs).compiler_ir("irax"))
    run_pipeline(module, "builtin.module(irax-vectorize, irax-symbol-dce)")
    text = module.operation.get_asm()
    assert text.count('"irax.scan"') == 1 and "length = 4" in text


# ---- errors ----------------------------------------------------------------------------------
def test_branch_type_mismatch_names_branch_and_types():
    with pytest.raises(TypeError, match=r"cond branches must have equal output types but "
                                        r"they differ: false_fun returns int32\[\], but "
                                        r"true_fun returns float32\[\]"):
        lax.cond(True, lambda x: x, lambda x: x.astype(np.int32), 1.0)
    with pytest.raises(TypeError, match=r"branch 0 returns float32\[\], but branch 2 returns "
                                        r"\(float32\[\], float32\[\]\)"):
        lax.switch(1, [lambda x: x, lambda x: x, lambda x: (x, x)], 1.0)


def test_while_body_changing_carry_names_component():
    with pytest.raises(TypeError, match=r"(?s)while_loop body function carry input and carry "
                                        r"output must have equal types.*carry\[1\] has type "
                                        r"float32\[\] but the corresponding output"):
        lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, jnp.zeros(2)), (0, 1.0))


def test_python_control_flow_on_loop_carry_raises():
    from irax import errors

    with pytest.raises(errors.ConcretizationTypeError):
        lax.while_loop(lambda c: c < 3, lambda c: c + 1 if c > 1 else c + 2, 0)


def test_simplify_hoists_and_folds_without_changing_results():
    from irax.dialect.interpreter import evaluate_function
    from irax.frontend.compile import clone_module
    from irax.passes import run_pipeline

    def f(w, x):
        y = lax.while_loop(lambda c: c < 50.0, lambda c: c * jnp.exp(w) + 1.0, x)
        return y + lax.cond(True, lambda v: v * 2.0, lambda v: -v, y)

    args = (np.float32(0.3), np.float32(1.0))
    module = irax.jit(f).lower(*args).compiler_ir("irax")
    simplified = clone_module(module)
    run_pipeline(simplified, "builtin.module(irax-simplify)")
    text = simplified.operation.get_asm()
    assert '"irax.cond"' not in text and text.index('"irax.exp"') < text.index('"irax.while"')
    before = evaluate_function(module, "main", args)
    after = evaluate_function(simplified, "main", args)
    np.testing.assert_allclose(after[0], before[0], rtol=1e-6)
    assert float(irax.jit(f)(*args)) == pytest.approx(float(before[0]), rel=1e-6)


def test_compiled_loops_are_deterministic():
    """Under IREE's local-task driver a program with nested loops returned a wrong value
    about once in 30 runs; the default CPU driver (local-sync) must never do so."""
    text = (Path(__file__).resolve().parent.parent / "passes" / "data" /
            "control_flow.mlir").read_text()
    g = irax.ir.transform(text, "grad", argnums=(0, 1))
    x, a = np.array([0.3, -0.2], np.float32), np.float32(0.7)
    first = [np.asarray(v) for v in g(x, a)]
    for _ in range(40):
        for got, want in zip(g(x, a), first):
            np.testing.assert_array_equal(np.asarray(got), want)


def _input_rnn(np_mod, lax_mod, w, u, xs, reverse):
    def step(h, x):
        h = np_mod.tanh(h @ w + np_mod.sin(x) @ u)
        return h, h * 2.0
    h, ys = lax_mod.scan(step, np_mod.zeros(w.shape[0], np.float32), xs, reverse=reverse)
    return np_mod.sum(h) + np_mod.sum(ys * ys)


@pytest.mark.parametrize("reverse", [False, True])
def test_scan_input_work_runs_batched_before_the_loop(reverse):
    """irax-hoist-scan-inputs: sin(x_i) @ u leaves the loop as one product over all steps
    (the forward scan and the transposed one); values and gradients equal JAX's."""
    jax = pytest.importorskip("jax")
    rng = np.random.default_rng(1)
    w = (rng.standard_normal((5, 5)) * 0.4).astype(np.float32)
    u = (rng.standard_normal((3, 5)) * 0.4).astype(np.float32)
    xs = rng.standard_normal((40, 3)).astype(np.float32)
    ours = irax.jit(irax.value_and_grad(
        lambda w, u, xs: _input_rnn(jnp, lax, w, u, xs, reverse), argnums=(0, 1, 2)))
    text = ours.lower(w, u, xs).as_text("stablehlo")
    assert len(re.findall(r"call @scan_inputs\w*_vmap", text)) == 2   # forward, transpose
    value, grads = ours(w, u, xs)
    jvalue, jgrads = jax.value_and_grad(
        lambda w, u, xs: _input_rnn(jax.numpy, jax.lax, w, u, xs, reverse),
        argnums=(0, 1, 2))(w, u, xs)
    np.testing.assert_allclose(float(value), float(jvalue), rtol=2e-5)
    for g, jg in zip(grads, jgrads):
        np.testing.assert_allclose(np.asarray(g), np.asarray(jg), rtol=1e-4, atol=1e-5)


def test_scan_inputs_stay_in_the_loop_when_batching_fails(monkeypatch):
    """Hoisting is an optimization: when the step's work cannot be batched, the scan is
    left as it was (same results), never an error."""
    def refuse(*args, **kwargs):
        raise irax.errors.IRError("no batching rule here")

    monkeypatch.setattr(hoist_scan_inputs, "expand_function", refuse)
    w = np.full((3, 3), 0.3, np.float32)
    xs = np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3)

    def f(w, xs):
        return lax.scan(lambda h, x: (jnp.tanh(h @ w + jnp.sin(x)), None),
                        jnp.zeros(3), xs)[0]

    jf = irax.jit(f)
    assert "scan_inputs" not in jf.lower(w, xs).as_text("stablehlo")
    np.testing.assert_allclose(np.asarray(jf(w, xs)), np.asarray(f(w, xs)), rtol=1e-6)


def test_cond_passing_arguments_through_under_jit_matches_jax():
    """Branches returning arguments unchanged beside computed results (IREE 3.13 failed at
    run time on them: lowering/case_passthrough.py), both branches taken, against JAX."""
    jax = pytest.importorskip("jax")

    def f(lax_mod, np_mod, a, b, c, n):
        three = lax_mod.cond(n >= 0, lambda: (a + 1, b * 2, c - 1), lambda: (a, b, c))
        two = lax_mod.cond(n >= 0, lambda: (a, b, np_mod.sin(c)), lambda: (a * c, b, c))
        return three, two

    a, b, c = (np.linspace(-1, 1, 4, dtype=np.float32) * k for k in (1, 2, 3))
    ours = irax.jit(lambda *x: f(lax, jnp, *x))
    for n in (1.0, -1.0):
        got = ours(a, b, c, n)
        want = f(jax.lax, jax.numpy, a, b, c, n)
        for g, w in zip(irax.tree.leaves(got), jax.tree.leaves(want)):
            np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-6)
