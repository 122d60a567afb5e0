"""irax.pure_callback and irax.experimental.io_callback: host code inside compiled
programs, as JAX's. A NumPy/SciPy function called back from jit (and vmapped by each
vmap_method) equals calling it directly; io_callback effects happen once per call, in
order; wrong results name the callback and say expected vs got; a callback's exception
comes out of the call as itself."""

import jax
import jax.numpy as jjnp
import ml_dtypes
import numpy as np
import pytest
import scipy.special

import irax
import irax.numpy as jnp
from irax.core import callbacks
from irax.core.abstract import ShapedArray
from irax.experimental import io_callback


def _like(x):
    return irax.ShapeDtypeStruct(x.shape, x.dtype)


def test_scipy_function_inside_jit_and_vmap_equals_calling_it():
    x = np.linspace(0.1, 3.0, 12, dtype=np.float32).reshape(3, 4)

    def f(v):
        return irax.pure_callback(scipy.special.gammaln, _like(v), v,
                                  vmap_method="sequential") * 2

    want = scipy.special.gammaln(x) * 2
    np.testing.assert_allclose(irax.jit(f)(x), want, rtol=1e-6)
    np.testing.assert_allclose(irax.jit(irax.vmap(f))(x), want, rtol=1e-6)
    np.testing.assert_allclose(irax.vmap(f)(x), want, rtol=1e-6)
    np.testing.assert_allclose(f(x), want, rtol=1e-6)   # eagerly


@pytest.mark.parametrize("method", ["expand_dims", "broadcast_all", "sequential",
                                    "sequential_unrolled"])
def test_vmap_methods_pass_the_shapes_jax_passes(method):
    def make(lib, seen):
        def cb(x, y):
            seen.append((np.shape(x), np.shape(y)))
            return np.asarray(x + y, np.float32)

        def fun(x, y):
            shape = lib.numpy.broadcast_shapes(np.shape(x), np.shape(y))
            return lib.pure_callback(cb, lib.ShapeDtypeStruct(shape, np.float32), x, y,
                                     vmap_method=method)
        return lib.jit(lib.vmap(fun, in_axes=(0, None)))

    ours, theirs = [], []
    x = np.arange(4, dtype=np.float32)
    np.testing.assert_array_equal(make(irax, ours)(x, np.float32(1.0)), x + 1)
    np.testing.assert_array_equal(make(jax, theirs)(jjnp.asarray(x), np.float32(1.0)), x + 1)
    assert ours == theirs


def test_pure_callback_pytrees_kwargs_and_static_arguments():
    def cb(pair, *, scale, mode):
        a, b = pair
        assert mode == "sum"
        return {"s": np.asarray((a + b) * scale), "n": np.int32(a.size)}

    out_type = {"s": irax.ShapeDtypeStruct((3,), np.float32),
                "n": irax.ShapeDtypeStruct((), np.int32)}

    @irax.jit
    def f(a, b):
        return irax.pure_callback(cb, out_type, (a, b), scale=np.float32(2.0), mode="sum")

    out = f(jnp.ones(3), jnp.arange(3.0))
    np.testing.assert_array_equal(out["s"], [2.0, 4.0, 6.0])
    assert int(out["n"]) == 3


def test_dtypes_through_host_calls():
    values = [np.array([1.5, -2.0], ml_dtypes.bfloat16), np.array([True, False]),
              np.array([-3, 4], np.int8), np.array([7, 9], np.uint16),
              np.array([1 + 2j, 3 - 1j], np.complex64), np.array([0.5, 2.0], np.float16)]

    @irax.jit
    def f(*xs):
        return irax.pure_callback(lambda *vs: [v[::-1] for v in vs], [_like(x) for x in xs],
                                  *xs)

    for got, x in zip(f(*values), values):
        assert got.dtype == x.dtype
        np.testing.assert_array_equal(np.asarray(got), x[::-1])


def test_callback_without_arguments_and_unused_pure_callback():
    calls = []

    @irax.jit
    def f(x):
        irax.pure_callback(lambda: calls.append("unused") or np.float32(0),
                           irax.ShapeDtypeStruct((), np.float32))
        seven = irax.pure_callback(lambda: np.int32(7), irax.ShapeDtypeStruct((), np.int32))
        return x + seven

    assert float(f(1.0)) == 8.0
    assert calls == []   # pure: deleted when unused (JAX may skip it too)


def test_io_callback_effects_happen_once_per_call_in_order():
    log = []

    def record(tag):
        def cb(v):
            log.append((tag, np.asarray(v).tolist()))
            return np.int32(len(log))
        return cb

    @irax.jit
    def f(x):
        a = io_callback(record("a"), irax.ShapeDtypeStruct((), np.int32), x, ordered=True)
        io_callback(record("unused"), irax.ShapeDtypeStruct((), np.int32), x * 2,
                    ordered=True)
        b = io_callback(record("b"), irax.ShapeDtypeStruct((), np.int32), x + a,
                        ordered=True)
        return a + b

    assert int(f(np.float32(1.0))) == 1 + 3
    assert int(f(np.float32(5.0))) == 4 + 6
    assert log == [("a", 1.0), ("unused", 2.0), ("b", 2.0),
                   ("a", 5.0), ("unused", 10.0), ("b", 9.0)]


def test_io_callback_in_a_loop_runs_each_trip_and_unordered_vmaps():
    log = []

    def body(i, c):
        return c + io_callback(lambda v: (log.append(int(v)), np.float32(v))[1],
                               irax.ShapeDtypeStruct((), np.float32), i)

    assert float(irax.jit(lambda n: irax.lax.fori_loop(0, n, body, 0.0))(4)) == 6.0
    assert log == [0, 1, 2, 3]
    log.clear()
    out = irax.jit(irax.vmap(lambda v: io_callback(
        lambda u: (log.append(float(u)), u * 10)[1], _like(v), v)))(np.float32([1, 2, 3]))
    np.testing.assert_array_equal(out, [10, 20, 30])
    assert log == [1.0, 2.0, 3.0]


def test_pure_callback_differentiates_through_custom_jvp():
    @irax.custom_jvp
    def sin(x):
        return irax.pure_callback(np.sin, _like(x), x, vmap_method="expand_dims")

    @sin.defjvp
    def _(primals, tangents):
        (x,), (dx,) = primals, tangents
        return sin(x), irax.pure_callback(np.cos, _like(x), x,
                                          vmap_method="expand_dims") * dx

    x = np.float32(0.7)
    np.testing.assert_allclose(irax.grad(sin)(x), np.cos(x), rtol=1e-6)
    np.testing.assert_allclose(irax.jit(irax.grad(sin))(x), np.cos(x), rtol=1e-6)
    xs = np.float32([0.1, 0.2])
    np.testing.assert_allclose(irax.jit(irax.vmap(irax.grad(sin)))(xs), np.cos(xs), rtol=1e-6)


def test_transformation_errors_say_what_to_do():
    with pytest.raises(ValueError, match="'irax.pure_callback' op pure callbacks do not "
                                         "support JVP: use irax.custom_jvp"):
        irax.grad(lambda x: irax.pure_callback(np.sin, _like(x), x))(np.float32(1.0))
    with pytest.raises(ValueError, match="'irax.io_callback' op io callbacks do not "
                                         "support JVP"):
        irax.jit(irax.grad(lambda x: io_callback(np.sin, _like(x), x)))(np.float32(1.0))
    with pytest.raises(ValueError, match="vmap of a pure callback needs vmap_method"):
        irax.vmap(lambda x: irax.pure_callback(np.sin, _like(x), x))(np.ones(2, np.float32))
    with pytest.raises(ValueError, match="cannot vmap an ordered io callback"):
        irax.vmap(lambda x: io_callback(np.sin, _like(x), x, ordered=True))(
            np.ones(2, np.float32))
    with pytest.raises(ValueError, match="vmap_method must be on of the allowed methods"):
        irax.pure_callback(np.sin, _like(np.ones(2)), np.ones(2), vmap_method="loop")
    with pytest.raises(ValueError, match="cannot specify 64-bit types"):
        irax.pure_callback(np.sin, irax.ShapeDtypeStruct((), np.float64), 1.0)
    with pytest.raises(TypeError, match="irax.pure_callback: result_shape_dtypes must be a "
                                        "pytree of values with shape and dtype"):
        irax.pure_callback(np.sin, "float32", 1.0)


def _wrong_shape(x):
    return np.zeros(3, np.float32)


def test_wrong_results_name_the_callback_and_say_expected_vs_got():
    x = np.ones(2, np.float32)
    with pytest.raises(RuntimeError, match=r"irax.pure_callback: the callback _wrong_shape at "
                                           r".*test_host_callbacks.py:\d+ returned a value "
                                           r"of shape \(3,\) for result #0, expected shape "
                                           r"\(2,\)"):
        irax.jit(lambda v: irax.pure_callback(_wrong_shape, _like(v), v))(x)
    with pytest.raises(RuntimeError, match=r"returned a value of dtype int32 for result #0, "
                                           r"expected dtype float32"):
        irax.jit(lambda v: irax.pure_callback(lambda u: np.asarray(u).astype(np.int32),
                                              _like(v), v))(x)
    with pytest.raises(RuntimeError, match=r"irax.experimental.io_callback: the callback "
                                           r".*returned 2 values, expected 1"):
        irax.jit(lambda v: io_callback(lambda u: (u, u), _like(v), v))(x)
    with pytest.raises(RuntimeError, match=r"returned a value of shape \(3,\)"):
        irax.pure_callback(_wrong_shape, _like(x), x)   # eagerly too
    # float64 results are float32 without x64, as JAX canonicalizes them
    np.testing.assert_array_equal(
        irax.jit(lambda v: irax.pure_callback(lambda u: np.asarray(u, np.float64) * 2,
                                              _like(v), v))(x), [2.0, 2.0])


class _Boom(Exception):
    pass


def test_a_callback_exception_comes_out_of_the_call_as_itself():
    def explode(v):
        raise _Boom(f"bad value {float(v)}")

    f = irax.jit(lambda v: irax.pure_callback(explode, _like(v), v) + 1)
    with pytest.raises(_Boom, match="bad value 2.0"):
        f(np.float32(2.0))
    assert callbacks.raised.error is None
    # the program still works afterwards
    g = irax.jit(lambda v: irax.pure_callback(np.negative, _like(v), v))
    assert float(g(np.float32(2.0))) == -2.0


def test_import_names_spell_the_signature():
    from irax.core import dtypes

    for dt in dtypes.all_dtypes:
        ins = [ShapedArray((2, 3), dt), ShapedArray((), dt)]
        outs = [ShapedArray((0,), dt), ShapedArray((4, 1, 5), dt)]
        name = callbacks.import_name(12, ins, outs)
        assert callbacks.parse_import(name) == (12, ins, outs), name
    assert callbacks.parse_import("cb3") == (3, [], [])
    assert callbacks.parse_import("main") is None
    assert callbacks.signature(2, 0) == "0rr_v" and callbacks.signature(0, 1) == "0v_r"
    with pytest.raises(LookupError, match="host callback 123456 is not registered"):
        callbacks.lookup(123456)


@pytest.mark.parametrize("in_axes", [(0, 1), (1, None), (None, 0)])
def test_debug_callback_under_vmap_calls_like_a_loop(in_axes):
    calls = []

    def f(a, b):
        irax.debug.callback(lambda u, v: calls.append((np.asarray(u).tolist(),
                                                       np.asarray(v).tolist())), a, b)
        return a

    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.arange(6, dtype=np.float32).reshape(3, 2) * 10
    n = next(x.shape[d] for x, d in zip((a, b), in_axes) if d is not None)
    for i in range(n):
        f(*[x if d is None else np.take(x, i, axis=d) for x, d in zip((a, b), in_axes)])
    loop, calls[:] = list(calls), []
    with irax.config.override("irax_eager_vmap_compiled", False):
        irax.vmap(f, in_axes=in_axes)(a, b)
    assert calls == loop
    calls.clear()
    irax.jit(irax.vmap(f, in_axes=in_axes))(a, b)
    assert calls == loop


def test_large_batches_loop_over_the_examples_in_order():
    """Past 16 examples a vmapped print (and always a sequential pure_callback) is a scan
    over the examples: same calls, same order, one op in the program."""
    seen = []

    def f(x, c):
        irax.debug.callback(lambda v: seen.append(float(v)), x)
        return irax.pure_callback(lambda a, b: np.float32(a * b), _like(x), x, c,
                                  vmap_method="sequential")

    xs = np.arange(40, dtype=np.float32)
    g = irax.jit(irax.vmap(f, in_axes=(0, None)))
    np.testing.assert_array_equal(g(xs, np.float32(3)), xs * 3)
    assert seen == list(range(40))
    text = g.lower(xs, np.float32(3)).as_text("expanded")
    assert text.count('"irax.debug_callback"') == 1 and text.count('"irax.scan"') == 2
