"""Regression tests of the defects a reliability review found (each reproducer as it was
reported, checked against real JAX where JAX defines the answer)."""

import resource
import subprocess
import sys
import textwrap
from functools import partial

import jax
import jax.numpy as jjnp
import numpy as np
import pytest

import irax
import irax.numpy as jnp
from irax import lax, random
from irax.config import config

# ---- splat constants stay splats ------------------------------------------------------------
_T = "tensor<100000x100000xf32>"
_HUGE_SPLAT = f"""
func.func @main(%x: tensor<f32>) -> {_T} {{
  %c = "irax.constant"() {{value = dense<1.0> : {_T}}} : () -> {_T}
  return %c : {_T}
}}
"""


def _limited(gib: int):
    """A subprocess's address space capped at ``gib`` GiB: an allocation of the whole
    splat (37 GiB) fails instead of swapping."""
    def cap():
        resource.setrlimit(resource.RLIMIT_AS, (gib << 30, gib << 30))
    return cap


def test_irax_opt_keeps_a_huge_splat_a_splat(tmp_path):
    src = tmp_path / "splat.mlir"
    src.write_text(_HUGE_SPLAT)
    proc = subprocess.run([sys.executable, "-m", "irax.cli.opt", str(src), "-p",
                           "builtin.module(irax-simplify, irax-lower-to-stablehlo)"],
                          capture_output=True, text=True, timeout=300, preexec_fn=_limited(8))
    assert proc.returncode == 0, proc.stderr
    assert "stablehlo.constant dense<1.000000e+00> : tensor<100000x100000xf32>" in proc.stdout


_HUGE_JIT = textwrap.dedent("""
    import irax, irax.numpy as jnp
    try:
        irax.jit(lambda x: x + jnp.ones((10**6, 10**6)))(1.)
    except irax.errors.OutOfMemoryError as e:
        print(e)
""")


def test_jit_of_a_huge_splat_traces_and_fails_with_irax_error():
    """The splat is traced as a splat (it failed at trace time with NumPy's
    _ArrayMemoryError); running the program cannot allocate 4 TB: irax's error says so."""
    proc = subprocess.run([sys.executable, "-c", _HUGE_JIT], capture_output=True, text=True,
                          timeout=300, preexec_fn=_limited(8))
    assert proc.returncode == 0, proc.stderr
    assert "irax.jit(<lambda>)" in proc.stdout and "float32[1000000,1000000]" in proc.stdout
    assert "4.00 TB" in proc.stdout


def test_eager_huge_splat_is_lazy_and_a_result_too_big_names_the_op():
    z = jnp.zeros((10**6, 10**6))
    assert z.shape == (10**6, 10**6) and "0., 0." in repr(z)  # no 4 TB allocation
    with pytest.raises(irax.errors.OutOfMemoryError,
                       match=r"'irax.add' op cannot allocate its result on the host: "
                             r"float32\[1000000,1000000\] \(4.00 TB\)"):
        z + 1


# ---- fori_loop bounds ------------------------------------------------------------------------
@pytest.mark.parametrize("lower,upper", [(0, 3.5), (0.5, 3), (np.int8(0), np.int16(3))])
def test_fori_loop_bounds_of_different_types_raise_as_in_jax(lower, upper):
    with pytest.raises(TypeError) as want:
        jax.lax.fori_loop(lower, upper, lambda i, x: x + 1, 0)
    with pytest.raises(TypeError, match="lower and upper arguments to fori_loop must have "
                                        "equal types") as got:
        lax.fori_loop(lower, upper, lambda i, x: x + 1, 0)
    assert str(got.value) == str(want.value)


@pytest.mark.parametrize("lower,upper", [(0.0, 3.5), (np.int32(0), 3), (0, np.int16(3))])
def test_fori_loop_bounds_jax_accepts(lower, upper):
    assert int(lax.fori_loop(lower, upper, lambda i, x: x + 1, 0)) == \
        int(jax.lax.fori_loop(lower, upper, lambda i, x: x + 1, 0))


# ---- transformations ------------------------------------------------------------------------
def test_jacfwd_through_a_while_loop_with_a_fixed_trip_count():
    def f(mod):
        return lambda v: mod.lax.while_loop(lambda c: c[1] < 3,
                                            lambda c: (c[0] * c[0], c[1] + 1), (v, 0))[0]

    v = np.array([1.1, 0.9], np.float32)
    want = np.asarray(jax.jacfwd(f(jax))(v))
    np.testing.assert_allclose(np.asarray(irax.jacfwd(f(irax))(v)), want, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(irax.jit(irax.jacfwd(f(irax)))(v)), want, rtol=1e-6)
    fori = irax.jacfwd(lambda v: lax.fori_loop(0, 3, lambda i, x: x * x, v))(v)
    np.testing.assert_allclose(np.asarray(fori), want, rtol=1e-6)


def test_vmap_batches_only_the_carry_that_depends_on_the_mapped_axis():
    """JAX's fixpoint: the counter stays unbatched, so out_axes=None is allowed for it."""
    def f(x):
        return lax.while_loop(lambda c: c[1] < 4, lambda c: (c[0] * 2.0, c[1] + 1), (x, 0))

    xs = np.arange(3.0, dtype=np.float32)
    y, n = irax.vmap(f, out_axes=(0, None))(xs)
    np.testing.assert_array_equal(np.asarray(y), xs * 16)
    assert int(n) == 4


def test_jvp_of_custom_jvp_with_nondiff_argnums_at_python_floats():
    def app2_of(mod):
        @partial(mod.custom_jvp, nondiff_argnums=(0,))
        def app2(f, x):
            return f(x)

        @app2.defjvp
        def app2_jvp(f, primals, tangents):
            (x,), (x_dot,) = primals, tangents
            return app2(f, x), 2.0 * x_dot

        return app2

    app2 = app2_of(irax)
    p, t = irax.jvp(lambda x: app2(jnp.cos, x), (1.0,), (3.0,))
    jp, jt = jax.jvp(lambda x: app2_of(jax)(jjnp.cos, x), (1.0,), (3.0,))
    np.testing.assert_allclose(np.asarray(p), np.asarray(jp), rtol=1e-6)
    # JAX hands back the rule's own Python float untouched; irax returns an array of the
    # same value, weakly typed like JAX's arrays of a Python float
    assert float(t) == float(jt) == 6.0 and t.weak_type


def test_vmap_and_pmap_of_random_normal_are_bit_identical():
    """Eager vmap runs compiled, like jit(vmap) and pmap (it ran NumPy's math before)."""
    old = config.jax_num_cpu_devices
    config.update("jax_num_cpu_devices", 2)
    try:
        keys = random.split(random.key(0), 2)
        vm = np.asarray(irax.vmap(lambda k: random.normal(k, (50, 60)))(keys))
        pm = np.asarray(irax.pmap(lambda k: random.normal(k, (50, 60)))(keys))
        np.testing.assert_array_equal(vm, pm)
        jk = jax.random.split(jax.random.key(0), 2)
        np.testing.assert_allclose(vm, np.asarray(jax.vmap(
            lambda k: jax.random.normal(k, (50, 60)))(jk)), rtol=2e-5, atol=2e-5)
    finally:
        config.update("jax_num_cpu_devices", old)


# ---- examples from JAX's documentation --------------------------------------------------------
def test_jit_written_anew_reuses_the_trace_of_the_function():
    """JAX's "pure functions" gotcha: the second jit(f) reuses the first trace."""
    state = {"g": 0.0}

    def impure_uses_globals(x):
        return x + state["g"]

    assert float(irax.jit(impure_uses_globals)(4.0)) == 4.0
    state["g"] = 10.0
    assert float(irax.jit(impure_uses_globals)(5.0)) == 5.0   # JAX prints 5.0
    np.testing.assert_array_equal(irax.jit(impure_uses_globals)(jnp.array([4.0])), [14.0])
    traces = []

    def f(x):
        traces.append(1)
        return x * 2

    for i in range(5):
        irax.jit(f)(float(i))
    assert len(traces) == 1


def test_jvp_of_custom_vjp_raises_jaxs_type_error():
    @irax.custom_vjp
    def f(x):
        return jnp.sin(x)

    f.defvjp(lambda x: (jnp.sin(x), x), lambda x, g: (g * jnp.cos(x),))
    for call in (lambda: irax.jvp(f, (1.0,), (1.0,)),
                 lambda: irax.jit(lambda x: irax.jvp(f, (x,), (x,)))(1.0)):
        try:
            call()
        except TypeError as e:  # the docs' example catches exactly this
            assert str(e) == "can't apply forward-mode autodiff (jvp) to a custom_vjp function."
        else:
            raise AssertionError("no TypeError")


def test_grad_of_custom_vjp_with_a_function_as_nondiff_argument():
    def app_of(mod):
        @partial(mod.custom_vjp, nondiff_argnums=(0,))
        def app(f, x):
            return f(x)

        app.defvjp(lambda f, x: (app(f, x), x), lambda f, x, g: (5 * g,))
        return app

    got = irax.grad(app_of(irax), 1)(lambda x: x ** 3, 3.0)
    assert float(got) == float(jax.grad(app_of(jax), 1)(lambda x: x ** 3, 3.0)) == 5.0


def test_method_jitted_with_static_self_of_a_hashable_class():
    class CustomClass:
        def __init__(self, x, mul):
            self.x = x
            self.mul = mul

        @partial(irax.jit, static_argnums=(0,))
        def calc(self, y):
            if self.mul:
                return self.x * y
            return y

        def __hash__(self):
            return hash((self.x, self.mul))

        def __eq__(self, other):
            return isinstance(other, CustomClass) and \
                (self.x, self.mul) == (other.x, other.mul)

    c = CustomClass(2, True)
    assert int(c.calc(3)) == 6
    c.mul = False
    assert int(c.calc(3)) == 3  # a new hash: a new specialization, as in JAX


# ---- boolean concatenations stay distinct ----------------------------------------------------
def test_two_uniques_of_one_input_in_one_jit_keep_their_own_results():
    """IREE 3.13 gave two boolean concatenations of one shape the first one's values: the
    second ``unique`` (``equal_nan=False``) returned the first's (one NaN, not two)."""
    x = np.array([1, np.nan, 2, 1, np.nan, -0.0, 0.0, 3], np.float32)

    def f(m, x):
        return (m.unique(x, size=12), m.unique(x, size=12, equal_nan=False),
                m.concatenate([m.array([True]), x[1:] != x[:-1]]),
                m.concatenate([m.array([True]), (x[1:] != x[:-1]) & ~m.isnan(x[1:])]))

    for got, want in zip(irax.jit(partial(f, jnp))(x), jax.jit(partial(f, jjnp))(x)):
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


# ---- solve of one right-hand column compiles ------------------------------------------------
def test_solve_of_a_vector_and_of_one_column_compile_under_jit():
    """IREE 3.13 failed to compile lu + lu_solve of a single right-hand column ("'arith.
    select' op failed to verify ..."): ``jnp.linalg.solve(a, vector)`` under jit."""
    a = (np.eye(3) * 3 + np.ones((3, 3))).astype(np.float32)
    b = np.arange(1.0, 4.0, dtype=np.float32)

    def f(m, a, b):
        return m.linalg.solve(a, b), m.linalg.solve(a, b[:, None]), m.linalg.solve(a[None], b)

    for got, want in zip(irax.jit(partial(f, jnp))(a, b), jax.jit(partial(f, jjnp))(a, b)):
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5, atol=1e-6)
        assert got.shape == want.shape


# ---- sums over masks IREE folds to all true -------------------------------------------------
def test_sums_over_masks_known_to_be_all_true_count_every_element():
    """IREE 3.13 counted one element per row of a mask it had folded to all true:
    ``jnp.sum(m | True, -1)`` and ``jnp.sum(m == m, -1)`` were ``[1 1 1]``."""
    m = np.ones((3, 4), bool)
    m[0, 0] = False

    def f(mod, m):
        return (mod.sum(m | True, -1), mod.sum(m == m, -1), mod.sum(m & False, -1),
                mod.sum(m | False, -1), mod.sum(mod.ones((3, 4)), -1, where=m | True),
                mod.sum((m | True).astype(np.float32)))

    for got, want in zip(irax.jit(partial(f, jnp))(m), jax.jit(partial(f, jjnp))(m)):
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


def test_sums_of_broadcast_products_over_several_axes_compile():
    """IREE 3.13 failed to compile ``jnp.sum(a * b, axis=(0, 1))`` for f32[8,2,8] and
    f32[2,8] ("'vector.contract' op invalid accumulator/result vector shape"; a sharded
    jit of a broadcast product met it per device); values and gradients as JAX's, in one
    program (tiered jit off: the compiled program runs)."""
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(8, 2, 8)).astype(np.float32), \
        rng.normal(size=(2, 8)).astype(np.float32)
    c, d = rng.normal(size=(32, 2, 4)).astype(np.float32), \
        rng.normal(size=(32, 4)).astype(np.float32)

    def f(mod, a, b, c, d):
        return (mod.sum(a * b, axis=(0, 1)), mod.sum(a * b[None], axis=(1, 0)),
                mod.sum(c * d[:, None, :], axis=(0, 1)), mod.sum((a * b)[:, :1], axis=(0, 1)))

    def loss(mod, *xs):
        return sum(mod.sum(r ** 2) for r in f(mod, *xs))

    old = config.irax_tiered_jit
    config.update("irax_tiered_jit", False)
    try:
        got = irax.jit(partial(f, jnp))(a, b, c, d)
        grads = irax.jit(irax.grad(partial(loss, jnp), argnums=(0, 1, 2, 3)))(a, b, c, d)
    finally:
        config.update("irax_tiered_jit", old)
    for x, y in zip(got, jax.jit(partial(f, jjnp))(a, b, c, d)):
        np.testing.assert_allclose(np.asarray(x), np.asarray(y), rtol=1e-5, atol=1e-5)
    want = jax.jit(jax.grad(partial(loss, jjnp), argnums=(0, 1, 2, 3)))(a, b, c, d)
    for x, y in zip(grads, want):
        np.testing.assert_allclose(np.asarray(x), np.asarray(y), rtol=1e-4, atol=1e-4)


def test_products_over_empty_dimensions_and_sorts_of_one_row_compile():
    """IREE 3.13's compiler died of a floating-point exception (the whole process) on
    ``a.T @ a`` of an f32[0,4] array, and failed to compile ``jnp.argsort`` along an axis
    of length 1; found by a fuzz of edge shapes against JAX. Values as JAX's."""
    e, row = np.zeros((0, 4), np.float32), np.arange(7, dtype=np.float32)[None] % 3

    def f(mod, e, row):
        return (e.T @ e, mod.einsum("ij,kj->ik", e.T, e.T), mod.ones((3, 0)) @ e,
                mod.argsort(row, axis=0), mod.sort(row, axis=0), mod.argsort(row[:, :1]),
                mod.argsort(row, axis=1, stable=True))

    got = irax.jit(partial(f, jnp))(e, row)
    for x, y in zip(got, jax.jit(partial(f, jjnp))(e, row)):
        np.testing.assert_array_equal(np.asarray(x), np.asarray(y))
        assert np.asarray(x).dtype == np.asarray(y).dtype


# ---- an IREE compiler crash is an error, not the end of the process -------------------------
def test_a_crash_of_iree_s_compiler_on_nested_loops_is_an_error():
    """IREE 3.13's compiler crashed (SIGSEGV in its stream RefineUsage pass) on this
    gradient through a while loop by the tape (docs/repro/stream_refine_usage_crash.mlir),
    which took the whole Python process with it. Programs with nested loops compile in a
    separate process: the crash is a CompilationError naming the saved program (or, with
    an IREE that compiles it, the tape's gradient, which the forward rule's must equal)."""
    def loss(x, k, s0):
        def body(c):
            i, v, s = c
            return i + k, jnp.exp(-v * v) + v * 0.5, s * 2.0
        _, v, s = lax.while_loop(lambda c: c[0] < 20, body, (0, x, s0))
        return jnp.sum(v * jnp.arange(1.0, 4.0))

    args = (np.array([0.3, -0.2, 1.1], np.float32), 3, np.float32(0.5))
    g = irax.jit(irax.grad(loss, argnums=(0, 2)))
    forward = g(*args)
    old = config.irax_while_grad_forward
    config.update("irax_while_grad_forward", False)
    try:
        tape = g(*args)
    except irax.errors.CompilationError as e:
        assert "IREE's compiler crashed compiling " in str(e) and ".mlirbc" in str(e)
    else:
        for a, b in zip(forward, tape):
            np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-5, atol=1e-7)
    finally:
        config.update("irax_while_grad_forward", old)
    assert float(forward[1]) == 0.0


def test_a_failing_compile_in_the_separate_process_reads_as_in_this_one():
    """The separate compiler process reports an ordinary failure (here a module IREE
    rejects) as this process's compiler does, not as a crash."""
    from irax.core.errors import CompilationError
    from irax.runtime import compiler

    code = b'func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> { return %y : tensor<2xf32> }'
    key, info = compiler.key_of(code, compiler.target_for_platform("cpu"))
    for isolate in (False, True):
        with pytest.raises(CompilationError, match="IREE failed to compile bad") as e:
            compiler.compile_keyed(code, key, info, "bad", isolate=isolate)
        assert "crashed" not in str(e.value) and "undeclared SSA value" in str(e.value)
