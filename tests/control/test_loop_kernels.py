"""irax-loop-kernels: loops of elementwise work on small carries run as one native loop.
The same jitted function with the kernels and without (irax_loop_kernel_max_elements = 0,
every loop host-driven) must give the same bits, and JAX's numbers."""

import jax
import jax.numpy as jjnp
import numpy as np
import pytest

import irax
import irax.lax as ilax
import irax.numpy as inp


def _program(np_mod, lax_mod):
    def f(x, y8, n, k):
        # scalar fori_loop (a counter and one float)
        a = lax_mod.fori_loop(0, 300, lambda i, c: c * 1.0001 + 0.1, x)

        # data-dependent while over an [8] carry; cond on a scalar counter
        def body(c):
            i, v = c
            w = np_mod.maximum(v * 0.9 - 0.3, -np_mod.abs(v)) / 1.5 + np_mod.sqrt(np_mod.abs(v))
            w = np_mod.where(w > 0.25, w, -w * 2.0 + np_mod.floor(w))
            return i + 1, w + x   # x: captured from outside the loop
        cnt, b = lax_mod.while_loop(lambda c: c[0] < n, body, (0, y8))

        # integer hashing with a bool carry and a float of the counter
        def hbody(c):
            i, h, flag, s = c
            h = ((h ^ i) * 16777619) & 0x7FFFFFFF
            return i + 1, h, np_mod.logical_not(flag), s + i.astype(np_mod.float32) * 0.5
        _, h, flag, s = lax_mod.while_loop(lambda c: c[0] < k, hbody,
                                           (0, np_mod.int32(2166136261 & 0x7FFFFFFF),
                                            True, np_mod.float32(0)))

        # nested loops
        def outer(j, c):
            return lax_mod.fori_loop(0, j, lambda i, d: d * 0.5 + i.astype(np_mod.float32), c)
        d = lax_mod.fori_loop(0, 20, outer, x)

        # not elementwise (a sum over the carry): stays host-driven
        e = lax_mod.fori_loop(0, 5, lambda i, v: v + np_mod.sum(v) * 0.01, y8)

        # sines and cosines (irax's exact reduction: table lookups, bit casts, shifts),
        # integer shifts and clipping, isfinite
        def tbody(c):
            i, v, m = c
            v = np_mod.sin(v * 3.0) * 0.15 + np_mod.cos(v * 40.0 + 3e9) * 0.25
            m = np_mod.clip((m << 1) ^ (m >> 3), -1000, 1 << 20) + \
                np_mod.isfinite(v).astype(np_mod.int32)
            return i + 1, v, m
        _, t, m = lax_mod.while_loop(lambda c: c[0] < n, tbody,
                                     (0, y8, np_mod.arange(8, dtype=np_mod.int32) - 3))
        return a, cnt, b, h, flag, s, d, e, t, m
    return f


ARGS = (np.float32(0.3), np.linspace(-2, 2, 8, dtype=np.float32), np.int32(57), np.int32(41))


def _run(limit):
    with _Limit(limit):
        f = irax.jit(_program(inp, ilax))
        text = f.lower(*ARGS).as_text("iree")
        return [np.asarray(v) for v in f(*ARGS)], text


class _Limit:
    def __init__(self, limit):
        self.limit = limit

    def __enter__(self):
        self.saved = (irax.config.irax_loop_kernel_max_elements,
                      irax.config.irax_vector_loop_kernels)
        irax.config.update("irax_loop_kernel_max_elements", self.limit)
        irax.config.update("irax_vector_loop_kernels", bool(self.limit))

    def __exit__(self, *exc):
        irax.config.update("irax_loop_kernel_max_elements", self.saved[0])
        irax.config.update("irax_vector_loop_kernels", self.saved[1])


@pytest.fixture(scope="module")
def both():
    return _run(256), _run(0)


def test_kernels_are_made_for_elementwise_loops_only(both):
    (_, on), (_, off) = both
    assert on.count("linalg.generic") == 5   # the fori, the while, the hash, the nest, trig
    # the loop with a sum is not elementwise: a vector kernel (vector_kernel.py)
    assert on.count("stablehlo.while") == 0 and on.count("flow.dispatch.region") == 1
    assert "linalg.generic" not in off and off.count("stablehlo.while") == 7


def test_kernels_give_the_bits_of_the_host_driven_loops(both):
    (on, _), (off, _) = both
    for i, (a, b) in enumerate(zip(on, off)):
        assert a.dtype == b.dtype and a.shape == b.shape, i
        np.testing.assert_array_equal(a, b, err_msg=f"result {i}")


def test_kernels_match_jax(both):
    (on, _), _ = both
    want = jax.jit(_program(jjnp, jax.lax))(*ARGS)
    for i, (a, b) in enumerate(zip(on, want)):
        np.testing.assert_allclose(a, np.asarray(b), rtol=2e-6, atol=1e-6,
                                   err_msg=f"result {i}")


def test_zero_sized_and_large_carries_keep_the_host_driven_loop():
    f = irax.jit(lambda v: ilax.fori_loop(0, 3, lambda i, c: c * 2.0, v))
    assert "linalg.generic" not in f.lower(np.zeros((0,), np.float32)).as_text("iree")
    large = f.lower(np.zeros((257,), np.float32)).as_text("iree")
    assert "linalg.generic" not in large and "flow.dispatch.region" in large   # vectors
    assert "linalg.generic" in f.lower(np.zeros((256,), np.float32)).as_text("iree")


def test_grad_through_a_while_loop_runs_as_one_kernel():
    """Reverse mode of an elementwise while loop is one forward loop carrying tangents
    (``while_diagonal.py``) whose body calls the body's JVP function: one kernel, the bits
    of the host-driven loop, and JAX's gradient of the same loop written as a scan."""
    def loss(x, n):
        def body(c):
            i, y = c
            return i + 1, inp.sin(y) * 1.01 + 0.1

        return inp.sum(ilax.while_loop(lambda c: c[0] < n, body, (0, x))[1] ** 2)

    def jloss(x):
        def step(y, _):
            return jjnp.sin(y) * 1.01 + 0.1, None
        return jjnp.sum(jax.lax.scan(step, x, None, length=30)[0] ** 2)

    x = np.linspace(-3.0, 3.0, 16, dtype=np.float32)
    got = {}
    for limit in (256, 0):
        with _Limit(limit):
            g = irax.jit(irax.grad(loss))
            text = g.lower(x, np.int32(30)).as_text("iree")
            assert ("linalg.generic" in text) == (limit > 0)
            got[limit] = np.asarray(g(x, np.int32(30)))
    np.testing.assert_array_equal(got[256], got[0])
    np.testing.assert_allclose(got[256], np.asarray(jax.grad(jloss)(x)), rtol=2e-5, atol=1e-6)


@pytest.mark.parametrize("size", [1, 3, 6, 12, 32, 48])
def test_every_lane_count_gives_the_bits_of_the_host_driven_loop(size):
    """A kernel runs rows of 16, 8, 4, 2 or 1 element loops side by side, as vectors
    (``lanes_for``; two results and six other bindings: at most 8 lanes): odd, even and
    multiple-of-4 sizes give the host-driven loop's bits."""
    from irax.lowering.loop_kernel import lanes_for

    def f(v, n):
        def body(c):
            i, x, y = c
            return i + 1, inp.cos(x) * 0.9 + y * 0.05, y * 0.5 + x
        return ilax.while_loop(lambda c: c[0] < n, body, (0, v, v * 2.0))

    v = np.linspace(-1.5, 2.5, size, dtype=np.float32)
    got = {}
    for limit in (256, 0):
        with _Limit(limit):
            got[limit] = [np.asarray(r) for r in irax.jit(f)(v, np.int32(25))]
    for a, b in zip(got[256], got[0]):
        np.testing.assert_array_equal(a, b)
    assert lanes_for(size, 2, 6, vector=True) == {1: 1, 3: 1, 6: 2, 12: 4, 32: 8, 48: 8}[size]
    assert lanes_for(size, 2, 6) == {1: 1, 3: 1, 6: 2, 12: 4, 32: 4, 48: 4}[size]   # scalars


def test_kernels_stay_within_the_bindings_of_a_dispatch():
    """Each lane of each shaped result is a binding of the kernel's dispatch, and IREE
    takes at most 32: many carries get fewer lanes (six: two lanes, with ten other
    bindings), too many make no scalar kernel (it was a runtime error when the kernel was
    made anyway; a vector kernel takes the loop instead), with the same values."""
    from irax.lowering.loop_kernel import MAX_BINDINGS, lanes_for

    def f(vs, n):
        def body(c):
            i, xs = c
            return i + 1, tuple(x * 0.5 + xs[(j + 1) % len(xs)] * 0.25
                                for j, x in enumerate(xs))
        return ilax.while_loop(lambda c: c[0] < n, body, (0, tuple(vs)))[1]

    for count in (6, 16):
        vs = [np.linspace(-1, 1, 64, dtype=np.float32) * (j + 1) for j in range(count)]
        text = irax.jit(f).lower(vs, np.int32(9)).as_text("iree")
        assert ("linalg.generic" in text) == (count == 6)
        got = irax.jit(f)(vs, np.int32(9))
        want = [v.copy() for v in vs]
        for _ in range(9):
            want = [x * np.float32(0.5) + want[(j + 1) % count] * np.float32(0.25)
                    for j, x in enumerate(want)]
        for a, b in zip(got, want):
            np.testing.assert_allclose(np.asarray(a), b, rtol=1e-6)
    assert lanes_for(64, 6, 10, vector=True) == 2 and 2 * 6 + 10 <= MAX_BINDINGS
