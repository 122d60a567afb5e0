"""irax-loop-kernels' vector kernels (lowering/vector_kernel.py): a loop on a small state
(scalars, vectors, products with a fixed matrix, rows of larger tensors) runs as one
dispatch of vector code. The same jitted function with the kernels and without
(irax_vector_loop_kernels=False: the host-driven loop) must agree, bit for bit where the
kernel keeps IREE's order of operations, and with JAX."""

import jax
import jax.numpy as jjnp
import numpy as np
import pytest

import irax
import irax.lax as ilax
import irax.numpy as inp


class _Kernels:
    def __init__(self, on: bool):
        self.on = on

    def __enter__(self):
        self.saved = irax.config.irax_vector_loop_kernels
        irax.config.update("irax_vector_loop_kernels", self.on)

    def __exit__(self, *exc):
        irax.config.update("irax_vector_loop_kernels", self.saved)


def _both(fun, *args, stage="iree"):
    """(results, the program's text) with the kernels and without."""
    out = []
    for on in (True, False):
        with _Kernels(on):
            f = irax.jit(fun)
            out.append(([np.asarray(v) for v in jax.tree_util.tree_leaves(f(*args))],
                        f.lower(*args).as_text(stage)))
    return out


def _rnn(np_mod, lax_mod):
    def f(w, u, b, xs, h0):
        def step(h, x):
            h2 = np_mod.tanh(h @ w + x @ u + b)
            return h2, np_mod.exp(-h2) * 2.0      # a stacked output, a row a step
        return lax_mod.scan(step, h0, xs)
    return f


def _rnn_args(d=16, steps=60):
    rng = np.random.default_rng(0)
    return ((rng.standard_normal((d, d)) * 0.3).astype(np.float32),
            (rng.standard_normal((d, d)) * 0.3).astype(np.float32),
            (rng.standard_normal(d) * 0.1).astype(np.float32),
            rng.standard_normal((steps, d)).astype(np.float32),
            (rng.standard_normal(d) * 0.1).astype(np.float32))


@pytest.fixture(scope="module")
def rnn():
    return _both(_rnn(inp, ilax), *_rnn_args())


def test_an_rnn_scan_is_one_dispatch(rnn):
    (_, on), (_, off) = rnn
    assert "stablehlo.while" not in on and on.count("flow.dispatch.region") == 1
    assert "vector.fma" in on and "math.tanh" in on
    assert "flow.dispatch.region" not in off and "stablehlo.while" in off


def test_a_vector_kernel_is_no_host_driven_loop():
    """``lowering/work.py`` counts the kernel's loop as a loop but not as one driven from
    the host (which keeps programs off IREE's thread pool, and is compiled apart when
    nested)."""
    from irax.lowering.work import measure

    module = irax.jit(_rnn(inp, ilax)).lower(*_rnn_args()).compiler_ir("iree")
    work = measure(module)
    assert work.loops and not work.host_loops and not work.nested_loops


def test_an_rnn_scan_gives_the_bits_of_the_host_driven_loop(rnn):
    """Bit for bit on an AVX2 host. With AVX-512 (measured on a Zen 4) IREE compiles the
    host-driven loop's step differently (its products still accumulate over the rows in
    order, but the results differ in the last bit or two: 1.9e-7 on the state, 9.5e-7 on
    the stacked outputs), so there the two must agree to a few ulps."""
    from irax.runtime.compiler import host_cpu_features

    (on, _), (off, _) = rnn
    for a, b in zip(on, off):
        if "avx512f" in host_cpu_features():
            np.testing.assert_allclose(a, b, rtol=4e-6, atol=1e-6)
        else:
            np.testing.assert_array_equal(a, b)


def test_an_rnn_scan_matches_jax(rnn):
    (on, _), _ = rnn
    want = jax.tree_util.tree_leaves(jax.jit(_rnn(jjnp, jax.lax))(*_rnn_args()))
    for a, b in zip(on, want):
        np.testing.assert_allclose(a, np.asarray(b), rtol=2e-6, atol=2e-6)


def _loss(np_mod, lax_mod):
    def f(w, u, b, xs, h0):
        h, ys = _rnn(np_mod, lax_mod)(w, u, b, xs, h0)
        return np_mod.sum(h) + np_mod.sum(ys) * 0.1
    return f


def test_the_gradient_of_an_rnn_runs_both_loops_as_kernels():
    """Backward: the transposed products (``v @ W.T``, made once before the loop), the
    outer products added to the gradient's matrices a row at a time, the stacked
    per-step results, and carries whose results nothing reads (dropped)."""
    args = _rnn_args()
    grad = irax.grad(_loss(inp, ilax), argnums=(0, 1, 2, 4))
    (on, text), (off, _) = _both(grad, *args)
    assert "stablehlo.while" not in text and text.count("flow.dispatch.region") == 2
    want = jax.jit(jax.grad(_loss(jjnp, jax.lax), argnums=(0, 1, 2, 4)))(*args)
    for a, b, c in zip(on, off, want):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(a, np.asarray(c), rtol=1e-5, atol=1e-5)


def _mixed(np_mod, lax_mod):
    """A data-dependent while with many op forms: M @ v and v @ M.T, a dot product, a
    max reduction, gates sliced from one vector, logistic/exp/log1p/rsqrt, a select on a
    scalar predicate, integer arithmetic converted to float, a 0-d float carry, and ops
    emitted by the scalar kernel's translation on vectors (is_finite) and scalars
    (shifts)."""
    def f(m, v0, n):
        def cond(c):
            i, v, s, k = c
            return (i < n) & (s < 1e6)

        def body(c):
            i, v, s, k = c
            z = m @ v + v @ m.T * 0.5               # 8 rows: 2 gates of 4
            g1 = 1.0 / (1.0 + np_mod.exp(-z[:4]))
            g2 = np_mod.tanh(z[4:])
            h = np_mod.concatenate([g1 * g2, np_mod.log1p(np_mod.abs(g2))])
            top = np_mod.max(z)
            dot = v @ v
            w = lax_mod.rsqrt(dot + 1.0) * h
            w = np_mod.where(top > 0.5, w, -w)
            w = w + (k % 3).astype(np_mod.float32) * 0.01
            w = np_mod.where(np_mod.isfinite(w), w, 0.0)       # the scalar kernel's forms
            return i + 1, w, s + dot, ((k * 5 + 1) << 2) >> 2   # (is_finite, shifts)
        return lax_mod.while_loop(cond, body, (0, v0, np_mod.float32(0), np_mod.int32(1)))
    return f


def _mixed_args():
    rng = np.random.default_rng(1)
    return ((rng.standard_normal((8, 8)) * 0.4).astype(np.float32),
            rng.standard_normal(8).astype(np.float32), np.int32(40))


def test_a_while_loop_of_many_op_forms():
    args = _mixed_args()
    (on, text), (off, _) = _both(_mixed(inp, ilax), *args)
    assert "stablehlo.while" not in text and "vector.reduction" in text
    assert "math.absf" in text and "arith.shli" in text and "arith.shrsi" in text
    want = jax.tree_util.tree_leaves(jax.jit(_mixed(jjnp, jax.lax))(*args))
    for a, b, c in zip(on, off, want):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(a, np.asarray(c), rtol=1e-5, atol=1e-5)


def test_loops_without_a_vector_form_stay_host_driven():
    # a matrix the loop multiplies by changes every trip
    f = irax.jit(lambda a, v: ilax.fori_loop(0, 5, lambda i, c: (c[0] * 0.9, c[0] @ c[1]),
                                             (a, v)))
    text = f.lower(np.eye(4, dtype=np.float32), np.ones(4, np.float32)).as_text("iree")
    assert "stablehlo.while" in text and "flow.dispatch.region" not in text
    # a vector too large for registers
    g = irax.jit(lambda v: ilax.fori_loop(0, 3, lambda i, c: inp.tanh(c) + inp.sum(c), v))
    text = g.lower(np.zeros(2048, np.float32)).as_text("iree")
    assert "stablehlo.while" in text and "flow.dispatch.region" not in text


def test_gpu_programs_keep_loops_off_one_thread_kernels():
    f = irax.jit(_rnn(inp, ilax))
    text = f.lower(*_rnn_args()).as_text("iree-gpu")
    assert "flow.dispatch.region" not in text and "stablehlo.while" in text


def test_kernels_export_for_other_cpus():
    """A program holding a vector loop kernel and a heapsort kernel compiles for another
    CPU (irax-expand-libm, which such targets run, leaves the kernels' scalar and vector
    code alone; float64 transcendental functions keep their loop host-driven)."""
    from irax import export

    def f(w, u, b, xs, h0, keys):
        h, ys = _rnn(inp, ilax)(w, u, b, xs, h0)
        return h, inp.argsort(keys)

    args = _rnn_args() + (np.random.default_rng(2).standard_normal(5000).astype(np.float32),)
    text = irax.jit(f).lower(*args).as_text("iree")
    assert text.count("flow.dispatch.region") == 2
    exported = export.export(irax.jit(f), targets=["aarch64"])(*args)
    assert exported.targets == ("aarch64",) and len(exported.serialize()) > 0
