"""Heavy top-level loops of a one-device CPU program run from the host, their bodies
programs of their own on IREE's thread pool (``transforms/split_loops.py``).

Every program here is cut (the count of cut programs says so), and its results must
equal those of the same function compiled as one program (``irax_cpu_split_loops`` off)
up to rounding (a piece is compiled on its own: a loop-free one may sum in two stages,
``irax-split-reductions``, and its products be tiled otherwise), and JAX's. The bound
on the body's multiply-adds is lowered so that small programs take the same paths as
training steps do.
"""

import numpy as np
import pytest

import irax
import irax.numpy as jnp
from irax import lax
from irax.config import config
from irax.transforms import split_loops
from irax.transforms.split_loops import SplitProgram

jax = pytest.importorskip("jax")
jjnp = jax.numpy

BOUND = 1 << 12


@pytest.fixture(autouse=True)
def small_bound():
    # products of a few thousand multiply-adds count as heavy: small programs, same paths
    with config.override("irax_cpu_threads_min_flops", BOUND), \
            config.override("irax_cpu_driver", "auto"):
        yield


def _compiled(f, *args):
    """A fresh specialization of ``f`` compiled (jit shares them between jits of one
    function, and a compiled one keeps its program whatever the options say later)."""
    return irax.jit(lambda *a: f(*a)).lower(*args).compile()


def _cut(f, *args, cuts: int = 1):
    """``f``'s results cut into pieces (which must happen: ``cuts`` programs, pieces cut
    again included) and as one program."""
    before = split_loops.stats["programs"]
    compiled = _compiled(f, *args)
    assert isinstance(compiled._entry.executable, SplitProgram)
    assert split_loops.stats["programs"] == before + cuts
    got = compiled(*args)
    with config.override("irax_cpu_split_loops", False):
        whole = _compiled(f, *args)
        assert not isinstance(whole._entry.executable, SplitProgram)
        want = whole(*args)
    for g, w in zip(irax.tree_util.tree_leaves(got), irax.tree_util.tree_leaves(want)):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=2e-5, atol=1e-6)
    return got


def _close(got, want, rtol=2e-5, atol=1e-5):
    for g, w in zip(irax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=rtol, atol=atol)


def _mlp(np_):
    def loss(p, x, y):
        return np_.mean((np_.tanh(x @ p["w1"]) @ p["w2"] - y) ** 2)
    return loss


@pytest.fixture
def data(rng):
    p = {"w1": rng.normal(size=(16, 32)).astype(np.float32) * 0.3,
         "w2": rng.normal(size=(32, 4)).astype(np.float32) * 0.3}
    x = rng.normal(size=(24, 16)).astype(np.float32)
    y = rng.normal(size=(24, 4)).astype(np.float32)
    return p, x, y


def test_a_training_loop_in_fori_loop_runs_its_step_as_a_program_on_the_pool(data):
    p, x, y = data

    def train(lib, lax_, loss):
        def steps(p, x, y):
            def step(i, p):
                g = lib.grad(loss)(p, x, y)
                return lib.tree_util.tree_map(lambda a, b: a - 0.1 * b, p, g)
            p = lax_.fori_loop(0, 7, step, p)
            return p, loss(p, x, y)   # ops after the loop: a program of their own
        return steps

    steps = train(irax, lax, _mlp(jnp))
    got = _cut(steps, p, x, y)
    _close(got, jax.jit(train(jax, jax.lax, _mlp(jjnp)))(p, x, y))
    program = _compiled(steps, p, x, y)._entry.executable
    loops = [s for s in program.steps if hasattr(s, "length")]
    assert [s.length for s in loops] == [7]
    assert loops[0].exe.threads   # the step's program on IREE's thread pool


def test_scans_with_stacked_inputs_and_outputs_forward_and_reversed(rng):
    w = rng.normal(size=(32, 32)).astype(np.float32) * 0.2
    xs = rng.normal(size=(9, 8, 32)).astype(np.float32)
    h0 = rng.normal(size=(8, 32)).astype(np.float32)

    def run(lax_, np_):
        def f(w, xs, h0):
            def cell(h, x):
                h = np_.tanh(h @ w + x)
                return h, (np_.sum(h, axis=1), h[0])
            a, ys = lax_.scan(cell, h0 * 2.0, xs)   # an op before the loop
            b, zs = lax_.scan(cell, a, xs, reverse=True)
            return a, ys, b, zs, np_.sum(b)
        return f

    got = _cut(run(lax, jnp), w, xs, h0)
    _close(got, jax.jit(run(jax.lax, jjnp))(w, xs, h0))
    program = _compiled(run(lax, jnp), w, xs, h0)._entry.executable
    assert sum(hasattr(s, "length") for s in program.steps) == 2


def test_a_while_loop_with_a_data_dependent_condition(rng):
    a = rng.normal(size=(32, 32)).astype(np.float32) * 0.1
    v = np.abs(rng.normal(size=(16, 32))).astype(np.float32)

    def run(lax_, np_):
        def f(a, v, limit):
            def cond(c):
                return (np_.sum(np_.abs(c[0])) < limit) & (c[1] < 50)
            def body(c):
                x, n = c
                return x @ a + x * 1.5, n + 1
            return lax_.while_loop(cond, body, (v, 0))
        return f

    for limit in (1e4, 0.0):   # many trips; none (the condition's program alone decides)
        got = _cut(run(lax, jnp), a, v, np.float32(limit))
        _close(got, jax.jit(run(jax.lax, jjnp))(a, v, np.float32(limit)))
    assert int(_cut(run(lax, jnp), a, v, np.float32(0.0))[1]) == 0


def test_a_heavy_loop_inside_a_heavy_loop_is_cut_again(rng):
    w = rng.normal(size=(24, 24)).astype(np.float32) * 0.2
    x = rng.normal(size=(16, 24)).astype(np.float32)

    def run(lax_, np_):
        def f(w, x):
            def epoch(e, x):
                x = lax_.fori_loop(0, 3, lambda i, x: np_.tanh(x @ w), x)   # heavy too
                return x + 0.01 * e
            return lax_.fori_loop(0, 4, epoch, x)
        return f

    got = _cut(run(lax, jnp), w, x, cuts=2)   # the epoch's body was cut too
    _close(got, jax.jit(run(jax.lax, jjnp))(w, x))


def test_grad_through_a_scan_cuts_the_forward_and_the_backward_loops(rng):
    w = rng.normal(size=(24, 24)).astype(np.float32) * 0.2
    xs = rng.normal(size=(6, 8, 24)).astype(np.float32)

    def run(lib, lax_, np_):
        def loss(w, xs):
            h, _ = lax_.scan(lambda h, x: (np_.tanh(h @ w + x), None), xs[0], xs)
            return np_.sum(h ** 2)
        return lib.grad(loss)

    got = _cut(run(irax, lax, jnp), w, xs)
    _close(got, jax.jit(run(jax, jax.lax, jjnp))(w, xs), rtol=1e-4, atol=1e-5)
    program = _compiled(run(irax, lax, jnp), w, xs)._entry.executable
    assert sum(hasattr(s, "length") for s in program.steps) == 2


def test_a_carry_passed_through_and_a_step_reading_a_constant(rng):
    w = rng.normal(size=(24, 24)).astype(np.float32) * 0.2
    xs = rng.normal(size=(3, 8, 24)).astype(np.float32)

    def run(lax_, np_):
        def f(w, xs, h):
            def step(c, x):
                return (np_.tanh(c[0] @ w + x) * np_.arange(24.0), c[1]), c[0][0]
            return lax_.scan(step, (h, w), xs)
        return f

    h = np.ones((8, 24), np.float32)
    (_, kept), _ = got = _cut(run(lax, jnp), w, xs, h)
    np.testing.assert_array_equal(np.asarray(kept), w)
    _close(got, jax.jit(run(jax.lax, jjnp))(w, xs, h))


def test_what_stays_one_program(rng):
    w = rng.normal(size=(24, 24)).astype(np.float32)
    x = rng.normal(size=(16, 24)).astype(np.float32)

    def heavy(w, x):
        return lax.fori_loop(0, 3, lambda i, x: x @ w, x)

    def light(w, x):   # the loop's body has no product: it stays inside the program
        return lax.fori_loop(0, 3, lambda i, x: x * 2.0, x) @ w

    before = split_loops.stats["programs"]
    assert not isinstance(_compiled(light, w, x)._entry.executable, SplitProgram)
    with config.override("irax_cpu_driver", "local-sync"):
        assert not isinstance(_compiled(heavy, w, x)._entry.executable, SplitProgram)
    with config.override("irax_cpu_threads_min_flops", 24 * 24 * 16 + 1):
        assert not isinstance(_compiled(heavy, w, x)._entry.executable, SplitProgram)
    assert split_loops.stats["programs"] == before
    # a stacked output rewritten at every trip is too large to pass between programs
    stacked = np.zeros((65, 128, 128), np.float32)   # ys: one row more than 4 MiB

    def stacking(w, xs):
        return lax.scan(lambda c, x: (c @ w, x), w, xs)

    w128 = np.eye(128, dtype=np.float32)
    assert not isinstance(_compiled(stacking, w128, stacked)._entry.executable, SplitProgram)


def test_the_compiled_program_of_a_cut_function_is_the_one_program(data):
    p, x, y = data

    def steps(p, x, y):
        return lax.fori_loop(0, 2, lambda i, p: irax.tree_util.tree_map(
            lambda a, b: a - 0.1 * b, p, irax.grad(_mlp(jnp))(p, x, y)), p)

    compiled = _compiled(steps, p, x, y)
    assert isinstance(compiled._entry.executable, SplitProgram)
    vmfb = compiled.vmfb   # the program compiled as one module, as it would run whole
    with config.override("irax_cpu_split_loops", False):
        assert vmfb == _compiled(steps, p, x, y).vmfb


def test_an_eager_loop_of_training_steps_is_cut_too(data):
    p, x, y = data

    def step(i, p):
        g = irax.grad(_mlp(jnp))(p, x, y)
        return irax.tree_util.tree_map(lambda a, b: a - 0.1 * b, p, g)

    before = split_loops.stats["programs"]
    got = lax.fori_loop(0, 3, step, p)   # outside jit: compiled once, as JAX does
    assert split_loops.stats["programs"] == before + 1

    def jstep(i, p):
        g = jax.grad(_mlp(jjnp))(p, x, y)
        return jax.tree_util.tree_map(lambda a, b: a - 0.1 * b, p, g)
    _close(got, jax.lax.fori_loop(0, 3, jstep, p))


def test_a_training_loop_donating_its_parameters(data):
    p, x, y = data

    def steps(p, x, y):
        return lax.fori_loop(0, 3, lambda i, p: irax.tree_util.tree_map(
            lambda a, b: a - 0.1 * b, p, irax.grad(_mlp(jnp))(p, x, y)), p)

    f = irax.jit(steps, donate_argnums=0)
    assert isinstance(f.lower(p, x, y).compile()._entry.executable, SplitProgram)
    given = irax.device_put(p)
    got = f(given, x, y)
    assert all(a.is_deleted() for a in irax.tree_util.tree_leaves(given))

    def jsteps(p, x, y):
        return jax.lax.fori_loop(0, 3, lambda i, p: jax.tree_util.tree_map(
            lambda a, b: a - 0.1 * b, p, jax.grad(_mlp(jjnp))(p, x, y)), p)
    _close(got, jax.jit(jsteps)(p, x, y))


def test_a_piece_that_cannot_be_made_leaves_the_program_whole(rng, monkeypatch):
    w = rng.normal(size=(24, 24)).astype(np.float32) * 0.2
    x = rng.normal(size=(16, 24)).astype(np.float32)

    def failing(*args, **kwargs):
        raise RuntimeError("no piece")

    monkeypatch.setattr(split_loops._Planner, "piece", failing)
    f = irax.jit(lambda w, x: lax.fori_loop(0, 3, lambda i, x: jnp.tanh(x @ w), x))
    assert not isinstance(f.lower(w, x).compile()._entry.executable, SplitProgram)
    want = x
    for _ in range(3):
        want = np.tanh(want @ w)
    np.testing.assert_allclose(np.asarray(f(w, x)), want, rtol=1e-5, atol=1e-6)


def test_the_ops_count_of_multiply_adds_is_the_lowered_programs():
    """``multiply_adds`` (each contraction op's rule, on the expanded function) counts
    what ``lowering/work.py`` counts on the lowered program."""
    from irax.dialect import funcs
    from irax.lowering.work import contraction_flops

    a, b = np.ones((3, 8, 5), np.float32), np.ones((3, 5, 7), np.float32)
    x, w = np.ones((2, 3, 10, 10), np.float32), np.ones((4, 3, 3, 3), np.float32)
    cases = [(lambda a, b: jnp.tanh(a @ b) @ b.transpose(0, 2, 1), (a, b)),
             (lambda x, w: lax.conv(x, w, (1, 1), "VALID"), (x, w)),
             (lambda x, g: lax.conv_general_dilated(x, g, (2, 2), "SAME",   # 3 groups
                                                    feature_group_count=3),
              (x, np.ones((6, 1, 3, 3), np.float32)))]
    for f, args in cases:
        lowered = irax.jit(f).lower(*args)
        module = lowered.compiler_ir("simplified")
        block = funcs.symbol_table(module)["main"].regions[0].blocks[0]
        count = split_loops.multiply_adds(block, module)
        assert count > 0 and count == contraction_flops(lowered.compiler_ir("iree"))
