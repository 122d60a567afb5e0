"""Control flow outside jit runs compiled, as in JAX: the loop is compiled once (the
compile cache knows it by content) and every trip runs in the compiled program.

Also: scans run several steps per loop trip (``dialect/control_flow/unroll.py``), checked
here at every remainder, and a while loop that passes a carry on into another slot
compiles (IREE 3.13 rejected it: ``lowering/while_carries.py``).
"""

import numpy as np
import pytest

import irax
import irax.numpy as jnp
from irax import lax
from irax.config import config


def _loops(x, n):
    """fori_loop (static: a scan), while_loop with a data-dependent trip count, scan with
    stacked outputs, cond."""
    a = lax.fori_loop(0, 37, lambda i, c: c * 1.0001 + 0.1 * i, x)
    i, b = lax.while_loop(lambda s: s[0] < n, lambda s: (s[0] + 1, jnp.sin(s[1]) + 1.0),
                          (0, x))
    c, ys = lax.scan(lambda c, v: (c * 0.5 + v, c), x, jnp.arange(11.0))
    d = lax.cond(n > 3, lambda v: v * 2.0, lambda v: v - 1.0, x)
    return a, i, b, c, ys, d


def test_eager_control_flow_is_compiled_once_and_matches_jit():
    x = np.float32(0.25)
    want = irax.jit(_loops)(x, 9)
    before = irax.compile_stats()
    first = _loops(x, 9)
    after_first = irax.compile_stats()
    second = _loops(x, 9)
    after_second = irax.compile_stats()
    assert after_first["compiles"] + after_first["memory_hits"] + after_first["disk_hits"] > \
        before["compiles"] + before["memory_hits"] + before["disk_hits"]   # it compiled
    assert after_second["compiles"] == after_first["compiles"]             # once
    for got in (first, second):
        for g, w in zip(got, want):
            assert g.dtype == w.dtype and g.aval.weak_type == w.aval.weak_type
            np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-6)
    assert int(first[1]) == 9


def test_interpreted_eager_control_flow_gives_the_same_numbers():
    x = np.float32(0.25)
    compiled = _loops(x, 5)
    config.update("irax_eager_control_flow_compiled", False)
    try:
        before = irax.compile_stats()
        interpreted = _loops(x, 5)
        assert irax.compile_stats() == before      # no compilation at all
    finally:
        config.update("irax_eager_control_flow_compiled", True)
    for g, w in zip(interpreted, compiled):
        assert g.dtype == w.dtype
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-6)


def test_eager_loop_over_a_dtype_iree_cannot_carry_is_interpreted():
    x = jnp.asarray(np.array([1, 2, 3], "int4"))
    out = lax.fori_loop(0, 3, lambda i, c: c + c, x)
    assert out.dtype == np.dtype("int4")
    np.testing.assert_array_equal(np.asarray(out).astype(np.int8), [-8, 0, -8])  # 8x wraps


def _scans(xs):
    """Scans of every length 0..17 forward and reverse (every remainder of the 8 steps a
    trip runs), with a const, two carries and two stacked outputs."""
    outs = []
    for n in range(18):
        for reverse in (False, True):
            def body(c, x, n=n):
                s, p = c
                return (s + x * 0.5, p * 0.9 + s), (s * x, p - x)
            outs.append(lax.scan(body, (jnp.float32(n), jnp.float32(1.0)), xs[:n],
                                 reverse=reverse))
    return outs


def _numpy_scan(n, xs, reverse):
    s, p = np.float32(n), np.float32(1.0)
    ys1, ys2 = np.zeros(n, np.float32), np.zeros(n, np.float32)
    for i in (range(n - 1, -1, -1) if reverse else range(n)):
        ys1[i], ys2[i] = s * xs[i], p - xs[i]
        s, p = s + xs[i] * np.float32(0.5), p * np.float32(0.9) + s
    return (s, p), (ys1, ys2)


def test_unrolled_scans_match_a_python_loop_at_every_length():
    xs = np.linspace(-1.0, 2.0, 17, dtype=np.float32)
    got = irax.jit(_scans)(xs)
    k = 0
    for n in range(18):
        for reverse in (False, True):
            want = _numpy_scan(n, xs, reverse)
            for g, w in zip(irax.tree.leaves(got[k]), irax.tree.leaves(want)):
                np.testing.assert_allclose(np.asarray(g), w, rtol=1e-5, atol=1e-6,
                                           err_msg=f"length {n}, reverse {reverse}")
            k += 1


def test_grad_of_an_unrolled_scan_matches_jax():
    jax = pytest.importorskip("jax")

    def loss(lax_mod, np_mod):
        def f(w, xs):
            def step(h, x):
                h = np_mod.tanh(h * w + x)
                return h, h * h
            h, ys = lax_mod.scan(step, np_mod.zeros(3), xs)
            return np_mod.sum(h) + np_mod.sum(ys)
        return f

    xs = np.linspace(-1, 1, 13 * 3, dtype=np.float32).reshape(13, 3)
    w = np.float32(0.7)
    got = irax.jit(irax.grad(loss(lax, jnp)))(w, xs)
    want = jax.jit(jax.grad(loss(jax.lax, jax.numpy)))(w, xs)
    np.testing.assert_allclose(float(got), float(want), rtol=1e-5)


def test_while_loop_passing_a_carry_on_compiles():
    """x' = a cos(x), x_prev' = x, both returned: IREE 3.13 failed to compile it ("region
    branch point has 4 operands, but region successor needs 2 inputs")."""
    def f(a):
        return lax.while_loop(lambda c: jnp.abs(c[0] - c[1]) > 1e-6,
                              lambda c: (a * jnp.cos(c[0]), c[0]), (1.0, 0.0))

    x, prev = irax.jit(f)(np.float32(0.8))
    want_x, want_prev = 1.0, 0.0
    while abs(want_x - want_prev) > 1e-6:
        want_x, want_prev = np.float32(0.8) * np.cos(np.float32(want_x)), want_x
    np.testing.assert_allclose([float(x), float(prev)], [want_x, want_prev], rtol=1e-5)
    eager_x, eager_prev = f(np.float32(0.8))
    assert float(eager_x) == float(x) and float(eager_prev) == float(prev)


def test_eager_loops_reuse_their_program_without_tracing_again_as_jax():
    """An eager while_loop, fori_loop, scan or map of a function it has run before, on
    operands of the same types, runs the compiled program without tracing the function
    again (JAX caches these traces by function identity too: a global read by the body
    keeps its first value in both, checked against JAX); new operand values flow in; other
    operand types, another function, or ``clear_caches`` trace again."""
    jax = pytest.importorskip("jax")
    traced = []
    scale = 1.5

    def body(i, c):
        traced.append(i)
        return c * scale + 1.0

    def step(c, x):
        traced.append(x)
        return c * scale + x, c

    def run(lib, v):
        m = jax if lib == "jax" else irax
        return [np.asarray(r) for r in (
            m.lax.fori_loop(0, 5, body, v),
            m.lax.fori_loop(0, np.int32(4), body, v),          # traced bounds: a while
            m.lax.scan(step, v, m.numpy.arange(3.0))[1],
            m.lax.map(lambda x: x * scale, m.numpy.arange(3.0) + v))]

    first = run("irax", np.float32(0.5))
    n = len(traced)
    again = run("irax", np.float32(2.0))
    assert len(traced) == n               # (map's lambda is a new function: traced again)
    want = run("jax", np.float32(2.0))
    for a, b in zip(again, want):
        np.testing.assert_allclose(a, b, rtol=1e-6)
    scale = 3.0                           # noqa: F841 - read by the bodies
    stale, jstale = run("irax", np.float32(2.0)), run("jax", np.float32(2.0))
    for a, b in zip(stale, jstale):       # both keep 1.5 where cached
        np.testing.assert_allclose(a, b, rtol=1e-6)
    n = len(traced)
    run("irax", np.full((1,), 2.0, np.float32))          # another shape: traced again
    assert len(traced) > n
    irax.clear_caches()
    n = len(traced)
    fresh = run("irax", np.float32(2.0))
    assert len(traced) > n
    assert not np.allclose(fresh[0], stale[0])           # 3.0 now read
    assert not np.allclose(first[0], again[0])           # new operand values flowed in


def test_arrays_closed_over_are_arguments_so_fresh_closures_compile_once():
    """An eager cond/scan/while whose functions are closures made afresh on each call (as
    an optimizer's update makes them) over new Arrays: the Arrays are arguments of the
    program (JAX's hoisted consts), so it is traced each time but compiled once, and each
    call sees its own values; also through a nested trace (a scan inside a cond branch),
    for an Array closed over twice, and on the reference interpreter."""
    jax = pytest.importorskip("jax")

    def step(lib, k, x):
        m = jax if lib == "jax" else irax
        c = m.numpy.asarray(np.float32(0.5 + k))         # a new Array each call
        w = m.numpy.arange(3.0, dtype=np.float32) * k
        inner = lambda v: m.lax.scan(lambda a, b: (a * c + b + w[0], a), v, w)[0]  # noqa: E731
        a = m.lax.cond(k % 2 == 0, inner, lambda v: v - c, x)
        b = m.lax.fori_loop(0, 3, lambda i, v: v + c * w[i] + c, x)
        return np.asarray(a), np.asarray(b)

    x = np.float32(1.25)
    step("irax", 0, x)
    before = irax.compile_stats()["compiles"]
    for k in range(1, 6):
        got, want = step("irax", k, x), step("jax", k, x)
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-6)
    assert irax.compile_stats()["compiles"] == before    # one program each, compiled once
    config.update("irax_eager_control_flow_compiled", False)
    try:
        for g, w in zip(step("irax", 7, x), step("jax", 7, x)):
            np.testing.assert_allclose(g, w, rtol=1e-6)
    finally:
        config.update("irax_eager_control_flow_compiled", True)
