"""irax.lax against jax.lax: values, dtypes, broadcasting, and JAX's error messages."""

import numpy as np
import pytest

import irax
import irax.lax as lax
import irax.numpy as jnp

jax = pytest.importorskip("jax")
jlax = pytest.importorskip("jax.lax")

rng = np.random.default_rng(3)
F = rng.uniform(-3, 3, (2, 3)).astype(np.float32)
G = rng.uniform(0.5, 3, (2, 3)).astype(np.float32)
I = rng.integers(-9, 10, (2, 3)).astype(np.int32)
J = rng.integers(1, 5, (2, 3)).astype(np.int32)
B = rng.integers(0, 2, (2, 3)).astype(bool)
C = (F + 1j * G).astype(np.complex64)


def check(got, want, rtol=2e-6, atol=2e-6, msg=""):
    assert got.dtype == want.dtype, (msg, got.dtype, want.dtype)
    assert got.shape == want.shape, (msg, got.shape, want.shape)
    if want.dtype != np.bool_:
        assert got.weak_type == want.weak_type, (msg, got.weak_type, want.weak_type)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=rtol, atol=atol,
                               equal_nan=True, err_msg=msg)


UNARY = [("neg", F), ("neg", I), ("sign", F), ("floor", F), ("ceil", F), ("round", F),
         ("exp", F), ("exp2", F), ("expm1", F), ("log", G), ("log1p", G), ("sin", F), ("cos", F),
         ("tan", F / 3), ("tanh", F), ("sqrt", G), ("rsqrt", G), ("cbrt", F), ("logistic", F),
         ("bitwise_not", I), ("bitwise_not", B), ("is_finite", F), ("abs", F), ("abs", I),
         ("abs", C), ("real", C), ("imag", C), ("conj", C), ("conj", F), ("square", I),
         ("asin", F / 4), ("acos", F / 4), ("atan", F), ("sinh", F), ("cosh", F), ("asinh", F),
         ("acosh", G + 1), ("atanh", F / 4), ("neg", 2), ("sin", 1.0), ("exp", C)]
BINARY = [("add", F, G), ("add", I, J), ("sub", F, G), ("mul", I, J), ("div", F, G),
          ("div", I, J), ("rem", I, J), ("rem", F, G), ("pow", G, F), ("max", F, G),
          ("min", I, J), ("max", B, B), ("atan2", F, G), ("bitwise_and", I, J),
          ("bitwise_or", B, B), ("bitwise_xor", I, J), ("shift_left", I, J),
          ("shift_right_arithmetic", I, J), ("shift_right_logical", I, J), ("eq", F, G),
          ("ne", I, J), ("lt", F, G), ("le", I, J), ("gt", B, B), ("ge", F, F),
          ("complex", F, G), ("add", F, 1.0), ("mul", 2.0, F), ("add", F, F[:1]),
          ("sub", F[:, :1], G), ("add", np.float32(1), G), ("add", 1.0, 2.0), ("mul", C, C)]


@pytest.mark.parametrize("k", range(len(UNARY)))
def test_unary_matches_jax(k):
    name, x = UNARY[k]
    check(getattr(lax, name)(x), getattr(jlax, name)(x), rtol=2e-5, atol=2e-6, msg=name)


@pytest.mark.parametrize("k", range(len(BINARY)))
def test_binary_matches_jax(k):
    name, x, y = BINARY[k]
    check(getattr(lax, name)(x, y), getattr(jlax, name)(x, y), rtol=2e-6, msg=name)


def test_other_elementwise():
    x = np.float32([0.5, 1.5, 2.5, -0.5, -1.5])
    check(lax.round(x), jlax.round(x))
    check(lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN),
          jlax.round(x, jlax.RoundingMethod.TO_NEAREST_EVEN))
    check(lax.round(x, 1), jlax.round(x, 1))
    check(lax.integer_pow(I, 3), jlax.integer_pow(I, 3))
    check(lax.integer_pow(F, -2), jlax.integer_pow(F, -2), rtol=1e-5)
    check(lax.integer_pow(F, 0), jlax.integer_pow(F, 0))
    check(lax.select(B, F, G), jlax.select(B, F, G))
    check(lax.select(True, F, G), jlax.select(True, F, G))
    check(lax.clamp(0.0, F, 1.0), jlax.clamp(0.0, F, 1.0))
    check(lax.clamp(np.zeros_like(F), F, G), jlax.clamp(np.zeros_like(F), F, G))
    check(lax.convert_element_type(F, np.int8), jlax.convert_element_type(F, np.int8))
    check(lax.convert_element_type(1, np.float32), jlax.convert_element_type(1, np.float32))
    check(lax.convert_element_type(np.float32([np.nan, 3e9, -3e9]), np.int32),
          jlax.convert_element_type(np.float32([np.nan, 3e9, -3e9]), np.int32))
    check(lax.rem(I, np.zeros_like(I)), jlax.rem(I, np.zeros_like(I)))
    check(lax.div(I, np.zeros_like(I)), jlax.div(I, np.zeros_like(I)))


def test_python_scalars_take_the_array_dtype():
    # A documented superset of JAX 0.10 (which rejects int8 + 1): the scalar adopts int8.
    r = lax.add(np.int8([1, 2]), 1)
    assert r.dtype == np.int8 and not r.weak_type
    assert lax.add(np.float16([1]), 1.0).dtype == np.float16
    r = lax.neg(2)
    assert r.dtype == np.int32 and r.weak_type
    with pytest.raises(TypeError, match=r"lax\.add requires arguments to have the same dtypes, "
                                        r"got int32, float32\."):
        lax.add(np.int32([1]), 1.5)


def test_lax_errors():
    with pytest.raises(TypeError, match=r"^lax\.add requires arguments to have the same dtypes, "
                                        r"got float32, int32\. \(Tip: jnp\.add is a similar "
                                        r"function that does automatic type promotion on "
                                        r"inputs\)\.$"):
        lax.add(np.ones(3, np.float32), np.ones(3, np.int32))
    with pytest.raises(TypeError, match=r"jnp\.subtract is a similar function"):
        lax.sub(np.ones(3, np.float32), np.ones(3, np.int32))
    with pytest.raises(TypeError, match=r"^add got incompatible shapes for broadcasting: "
                                        r"\(3,\), \(4,\)\.$"):
        lax.add(jnp.ones(3), jnp.ones(4))
    with pytest.raises(TypeError, match=r"add: arrays must have the same number of dimensions, "
                                        r"got \{1, 2\}"):
        lax.add(jnp.ones((2, 3)), jnp.ones(3))
    with pytest.raises(TypeError, match="sin does not accept dtype int32. Accepted dtypes are "
                                        "subtypes of floating, complexfloating."):
        lax.sin(np.int32(1))
    with pytest.raises(TypeError, match="add does not accept dtype bool at position 0"):
        lax.add(B, B)
    with pytest.raises(TypeError, match=r"select cases must have the same shapes, got "
                                        r"\[\(\), \(3,\)\]\."):
        lax.select(np.ones(3, bool), 1.0, jnp.ones(3))
    with pytest.raises(TypeError, match="Integers cannot be raised to negative powers"):
        lax.integer_pow(I, -1)


def test_shape_ops_match_jax():
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    cases = [
        lambda m: m.broadcast_in_dim(x[0, 0], (3, 4), (1,)),
        lambda m: m.broadcast_in_dim(x[:1], (5, 3, 4), (0, 1, 2)),
        lambda m: m.broadcast(x[0], (2,)), lambda m: m.reshape(x, (6, 4)),
        lambda m: m.reshape(x, (4, 6), (2, 1, 0)), lambda m: m.transpose(x, (2, 0, 1)),
        lambda m: m.slice(x, (0, 1, 0), (2, 3, 4), (1, 1, 2)),
        lambda m: m.dynamic_slice(x, (1, -1, 2), (1, 2, 2)),
        lambda m: m.dynamic_slice(x[0, 0], (np.int32(3),), (2,)),
        lambda m: m.dynamic_update_slice(x, np.zeros((1, 2, 2), np.float32), (0, 2, -1)),
        lambda m: m.concatenate([x, x], 1), lambda m: m.pad(x[0], 0.0, [(1, 2, 0), (0, -1, 1)]),
        lambda m: m.rev(x, (0, 2)), lambda m: m.iota(np.int32, 5),
        lambda m: m.broadcasted_iota(np.float32, (2, 3), 1), lambda m: m.full((2,), 1.0),
        lambda m: m.full((2,), 1, np.int8), lambda m: m.full((2, 2), np.float32(3)),
        lambda m: m.squeeze(x[:1], (0,)), lambda m: m.expand_dims(x, (0, 4)),
        lambda m: m.reduce_sum(x, (0, 2)), lambda m: m.reduce_max(x, (1,)),
        lambda m: m.reduce_min(x, ()), lambda m: m.reduce_prod(x[:, :, :2], (2,)),
        lambda m: m.reduce_and(x > 3, (0,)), lambda m: m.reduce_or(x > 20, (0, 1, 2)),
        lambda m: m.reduce_sum(np.int8([100, 100]), (0,)),
        lambda m: m.argmax(np.float32([[1, np.nan, 3], [2, 2, 1]]), 1, np.int32),
        lambda m: m.argmin(x, 0, np.int8),
        lambda m: m.dot_general(x, x, (((2,), (2,)), ((0,), (0,)))),
        lambda m: m.dot_general(x, x.astype(np.int32), (((1,), (1,)), ((), ()))),
        lambda m: m.dot_general(x.astype(np.int8), x.astype(np.int8), (((2,), (2,)), ((), ())),
                                preferred_element_type=np.int32),
        lambda m: m.dot(x[0], x[0].T), lambda m: m.dot(x[0, 0], x[0, 0]),
        lambda m: m.dot(x[0], x[0, 0]),
    ]
    for k, case in enumerate(cases):
        check(case(lax), case(jlax), rtol=1e-6, msg=str(k))
    check(lax.full_like(x, 2), jlax.full_like(x, 2))


def test_shape_op_errors():
    with pytest.raises(TypeError, match=r"dot_general requires contracting dimensions to have "
                                        r"the same shape, got \(3,\) and \(4,\)\."):
        lax.dot_general(jnp.ones((2, 3)), jnp.ones((4, 4)), (((1,), (0,)), ((), ())))
    with pytest.raises(TypeError, match=r"dot_general requires lhs batch dimensions and rhs "
                                        r"batch dimensions to have the same shape, got \(2,\) "
                                        r"and \(5,\)\."):
        lax.dot_general(jnp.ones((2, 3, 4)), jnp.ones((5, 4, 3)), (((2,), (1,)), ((0,), (0,))))
    with pytest.raises(ValueError, match="dimension_numbers must be specified"):
        lax.dot(jnp.ones((2, 3)), jnp.ones((2, 3)))
    with pytest.raises(TypeError, match="broadcast_in_dim operand dimension sizes must either "
                                        "be 1"):
        lax.broadcast_in_dim(jnp.ones(3), (4,), (0,))
    with pytest.raises(TypeError, match="reshape total size must be unchanged"):
        lax.reshape(jnp.ones(6), (4, 2))
    with pytest.raises(TypeError, match="Cannot concatenate arrays with shapes that differ"):
        lax.concatenate([jnp.ones((2, 3)), jnp.ones((2, 4))], 0)
    with pytest.raises(TypeError, match=r"lax\.concatenate requires arguments to have the same "
                                        r"dtypes"):
        lax.concatenate([jnp.ones((2, 3)), jnp.ones((2, 4), jnp.int32)], 1)
    with pytest.raises(TypeError, match="slice slice_sizes must be less than or equal to operand "
                                        "shape"):
        lax.dynamic_slice(jnp.arange(5), (4,), (6,))
    with pytest.raises(TypeError, match="isn't a permutation"):
        lax.transpose(jnp.ones((2, 3)), (0, 0))
    with pytest.raises(ValueError, match="cannot select an axis to squeeze out"):
        lax.squeeze(jnp.ones((2, 3)), (0,))


def test_many_lax_ops_in_one_jit():
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 7

    def f(x, f, g, i, j, b, k):
        outs = [getattr(lax, n)(v) for n, v in
                [("neg", f), ("exp", f), ("log", g), ("sin", f), ("tanh", f), ("sqrt", g),
                 ("floor", f), ("round", f), ("abs", i), ("sign", f), ("logistic", f),
                 ("bitwise_not", i), ("is_finite", f), ("asinh", f), ("cosh", f)]]
        outs += [getattr(lax, n)(u, v) for n, u, v in
                 [("add", f, g), ("sub", i, j), ("mul", f, g), ("div", i, j), ("rem", f, g),
                  ("pow", g, f), ("max", f, g), ("min", i, j), ("atan2", f, g),
                  ("shift_left", i, j), ("shift_right_logical", i, j), ("lt", f, g),
                  ("eq", i, j), ("bitwise_and", b, b)]]
        outs += [lax.select(b, f, g), lax.clamp(0.0, f, 1.0), lax.integer_pow(f, 5),
                 lax.convert_element_type(f, np.int32), lax.reduce_sum(x, (0, 2)),
                 lax.reduce_max(x, (1,)), lax.argmax(x, 2, np.int32),
                 lax.dot_general(x, x, (((2,), (2,)), ((0,), (0,)))), lax.rev(x, (1,)),
                 lax.dynamic_slice(x, (k, k, k), (1, 2, 2)),
                 lax.pad(f, 0.0, [(1, 1, 1), (0, 0, 0)]),
                 lax.dynamic_update_slice(x, x[:, :1, :2], (k, k, k)),
                 lax.concatenate([f, g], 0), lax.transpose(x, (2, 1, 0)),
                 lax.broadcasted_iota(np.int32, (2, 3), 0), lax.slice(x, (0, 0, 1), (2, 3, 4),
                                                                     (1, 2, 2))]
        return outs

    args = (x, F, G, I, J, B, np.int32(1))
    got = irax.jit(f)(*args)
    want = f(*args)
    for n, (g, w) in enumerate(zip(got, want)):
        check(g, w, rtol=2e-6, atol=2e-6, msg=str(n))
