"""The rest of irax.lax against jax.lax: bit operations, reduce_precision, generic reductions,
single-axis slicing, structural helpers, batched/ragged/scaled dots, approximate top-k,
collectives, XLA identities and types, custom_linear_solve and custom_root; values, dtypes
and weak types eagerly and under one jit, derivatives, vmap and JAX's errors."""

import warnings

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.numpy.numpy_helpers import check

import irax
import irax.lax as lax
import irax.numpy as jnp

jax = pytest.importorskip("jax")
jlax = jax.lax
jjnp = jax.numpy

rng = np.random.default_rng(11)
BF16 = np.dtype(ml_dtypes.bfloat16)
F = rng.normal(size=(3, 4)).astype(np.float32)
G = rng.normal(size=(3, 4)).astype(np.float32)
I32 = rng.integers(-2**31, 2**31 - 1, (3, 4), dtype=np.int64).astype(np.int32)
U8 = rng.integers(0, 256, (3, 4)).astype(np.uint8)
I16 = rng.integers(-2**15, 2**15, (3, 4)).astype(np.int16)
U32 = rng.integers(0, 2**32, (3, 4), dtype=np.uint64).astype(np.uint32)
SPECIAL = np.array([0.0, -0.0, 1.0, -1.0, 1.5, np.inf, -np.inf, np.nan, 3.4e38, 65504.0,
                    -2.5, 1e-3, 7.0e4, 1.0e-6], np.float32)
TOWARDS = np.array([1.0, -1.0, 2.0, 0.0, -np.inf, 0.0, 0.0, 1.0, np.inf, np.inf, -2.5, 0.0,
                    -1.0, 1.0], np.float32)


INTS = (U8, I16, I32, U32)


def elementwise_cases(mod, ints=INTS):
    """Every bit-level case, as a dict of results (JAX under one jax.jit, the integers as
    arguments: XLA's constant folding gives clz(negative) = -32)."""
    out = {}
    for name, x in zip(("u8", "i16", "i32", "u32"), ints):
        out["popcount " + name] = mod.population_count(x)
        out["clz " + name] = mod.clz(x)
        out["mulhi " + name] = mod.mulhi(x, x[::-1])
    for dt in (np.float32, np.float16, BF16):
        with np.errstate(over="ignore"):  # 3.4e38 is inf in float16
            x, y = SPECIAL.astype(dt), TOWARDS.astype(dt)
        out[f"nextafter {dt}"] = mod.nextafter(x, y)
        # (mantissa_bits=0 left out: XLA turns NaN into NaN or inf depending on the dtype)
        for eb, mb in ((5, 10), (8, 7), (4, 3), (5, 2), (3, 1), (11, 52)):
            out[f"reduce_precision {dt} {eb} {mb}"] = mod.reduce_precision(
                np.concatenate([x, (F.ravel() * 50).astype(dt)]), eb, mb)
    out["bitcast f32->i32"] = mod.bitcast_convert_type(F, np.int32)
    out["bitcast f32->u8"] = mod.bitcast_convert_type(F, np.uint8)
    out["bitcast u16x2->f32"] = mod.bitcast_convert_type(U32.view(np.uint16).reshape(3, 4, 2),
                                                         np.float32)
    out["bitcast bf16->i16"] = mod.bitcast_convert_type(F.astype(BF16), np.int16)
    out["reciprocal"] = mod.reciprocal(F)
    out["reciprocal c64"] = mod.reciprocal((F + 1j * G).astype(np.complex64))
    return out


def test_bit_operations_match_jax():
    want = jax.jit(lambda ints: elementwise_cases(jlax, ints))(INTS)
    got = elementwise_cases(lax)
    for k in want:
        check(got[k], want[k], msg=k)


@settings(max_examples=10, deadline=None)
@given(st.sampled_from([np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32]),
       st.integers(0, 2**31))
def test_integer_bit_ops_random(dt, seed):
    r = np.random.default_rng(seed)
    info = np.iinfo(dt)
    x = r.integers(info.min, int(info.max) + 1, 16, dtype=np.int64).astype(dt)
    y = r.integers(info.min, int(info.max) + 1, 16, dtype=np.int64).astype(dt)
    for name, args in (("population_count", (x,)), ("clz", (x,)), ("mulhi", (x, y))):
        check(getattr(lax, name)(*args), np.asarray(getattr(jlax, name)(*args)), msg=name)


def reduce_cases(mod, np_):
    x3 = F.reshape(3, 2, 2)
    ints = np.arange(24, dtype=np.int32).reshape(2, 3, 4) * 7919 % 97
    return {
        "sum": mod.reduce(F, np.float32(0), mod.add, (1,)),
        "prod all": mod.reduce(x3, np.float32(1), mod.mul, (0, 1, 2)),
        "max": mod.reduce(x3, np.float32(-np.inf), mod.max, (0, 2)),
        "pair": mod.reduce((F, G), (np.float32(0), np.float32(-np.inf)),
                           lambda a, b: (mod.add(a[0], b[0]), mod.max(a[1], b[1])), (0,))[1],
        "argmax": mod.reduce(
            (F, mod.broadcasted_iota(np.int32, F.shape, 1)), (np.float32(-np.inf), np.int32(0)),
            lambda a, b: (mod.max(a[0], b[0]), mod.select(mod.ge(a[0], b[0]), a[1], b[1])),
            (1,))[1],
        "empty": mod.reduce(np.zeros((3, 0), np.float32), np.float32(0), mod.add, (1,)),
        "xor": mod.reduce_xor(ints, (1,)),
        "xor all": mod.reduce_xor(ints, (0, 1, 2)),
        "xor bool": mod.reduce_xor(ints % 2 == 0, (2,)),
    }


def test_reduce_and_reduce_xor_match_jax():
    want = jax.jit(lambda: reduce_cases(jlax, jjnp))()
    got = reduce_cases(lax, jnp)
    for k in want:
        check(got[k], want[k], rtol=1e-5, atol=1e-6, msg=k)


def shape_cases(mod):
    x = F
    i = np.int32(-1)
    return {
        "index_in_dim": mod.index_in_dim(x, -1, 1),
        "index_in_dim nokeep": mod.index_in_dim(x, 2, 0, keepdims=False),
        "dynamic_slice_in_dim": mod.dynamic_slice_in_dim(x, i, 2, 1),
        "dynamic_slice_in_dim clamp": mod.dynamic_slice_in_dim(x, np.int32(3), 2, 0),
        "dynamic_index_in_dim": mod.dynamic_index_in_dim(x, np.int32(1), 1, False),
        "dynamic_update_slice_in_dim": mod.dynamic_update_slice_in_dim(x, G[:, :2], i, 1),
        "dynamic_update_index_in_dim": mod.dynamic_update_index_in_dim(x, G[0], np.int32(2), 0),
        "dynamic_update_index_in_dim keep": mod.dynamic_update_index_in_dim(x, G[:1], 1, 0),
        "collapse": mod.collapse(F.reshape(3, 2, 2), 1),
        "collapse mid": mod.collapse(F.reshape(3, 2, 2), 0, 2),
        "broadcast_to_rank": mod.broadcast_to_rank(F, 4),
        "broadcast_to_rank scalar": mod.broadcast_to_rank(1.0, 2),
        "broadcast_like": mod.broadcast_like(F[0], np.zeros((2, 3, 4), np.int32)),
        "broadcast_like scalar": mod.broadcast_like(2.0, F),
        "split0": mod.split(F, (1, 2), 0)[0], "split1": mod.split(F, (1, 2), 0)[1],
        "split axis": mod.split(F, (0, 3, 1), -1)[1],
        "stack": mod.stack([F, G], 1), "stack scalars": mod.stack([1.0, 2.0]),
        "unstack": mod.unstack(F, 1)[3],
        "tile": mod.tile(F, (2, 3)), "tile 1d": mod.tile(np.arange(3), (2,)),
        "empty": mod.empty((2, 3), np.int32) * 0,
        "batch_matmul": mod.batch_matmul(F.reshape(1, 3, 4), G.reshape(1, 4, 3)),
    }


def test_shape_helpers_match_jax():
    want = jax.jit(lambda: shape_cases(jlax))()
    got = shape_cases(lax)
    for k in want:
        check(got[k], want[k], rtol=1e-5, msg=k)
    assert lax.broadcast_shapes((2, 1), (3,)) == jlax.broadcast_shapes((2, 1), (3,))
    assert lax.broadcast_shapes((1,), (4, 1, 5)) == (4, 1, 5)
    np.testing.assert_array_equal(lax.shape_as_value((2, 3)), jlax.shape_as_value((2, 3)))
    assert lax.dtype(1.0) == jlax.dtype(1.0) and lax.dtype(np.int64(1)) == jlax.dtype(np.int64(1))
    with warnings.catch_warnings():  # JAX warns that float64 is truncated
        warnings.simplefilter("ignore")
        assert lax.dtype(np.float64) == jlax.dtype(np.float64)


def dot_cases(mod):
    lhs = rng_fixed.normal(size=(7, 4)).astype(np.float32)
    rhs = rng_fixed.normal(size=(3, 4, 5)).astype(np.float32)
    sizes = np.array([2, 0, 4], np.int32)
    dn = mod.RaggedDotDimensionNumbers(
        dot_dimension_numbers=(((2,), (1,)), ((0,), (0,))), lhs_ragged_dimensions=(1,),
        rhs_group_dimensions=(2,))
    blhs = rng_fixed.normal(size=(2, 6, 4)).astype(np.float32)
    brhs = rng_fixed.normal(size=(2, 4, 3, 5)).astype(np.float32)
    sl = rng_fixed.normal(size=(4, 8)).astype(np.float32)
    sr = rng_fixed.normal(size=(8, 3)).astype(np.float32)
    return {
        "ragged_dot": mod.ragged_dot(lhs, rhs, sizes),
        "ragged_dot partial": mod.ragged_dot(lhs, rhs, np.array([1, 2, 1], np.int32)),
        "ragged_dot int": mod.ragged_dot(lhs.astype(np.int32), rhs.astype(np.int32), sizes),
        "ragged_dot bf16->f32": mod.ragged_dot(lhs.astype(BF16), rhs.astype(BF16), sizes,
                                               preferred_element_type=np.float32),
        "ragged_dot_general": mod.ragged_dot_general(blhs, brhs, np.array([1, 3, 2], np.int32),
                                                     dn),
        "scaled_dot": mod.scaled_dot(sl[None], sr[None]),
        "scaled_dot scales": mod.scaled_dot(
            sl[None], sr[None], lhs_scale=np.full((1, 4, 2), 2.0, np.float32).astype(BF16),
            rhs_scale=np.full((1, 2, 3), 0.5, np.float32).astype(BF16),
            preferred_element_type=np.float32),
        "batch_matmul prec": mod.batch_matmul(blhs, blhs.transpose(0, 2, 1),
                                              precision=mod.Precision.HIGHEST),
    }


rng_fixed = np.random.default_rng(5)


def test_batched_ragged_and_scaled_dots_match_jax():
    global rng_fixed
    rng_fixed = np.random.default_rng(5)
    want = jax.jit(lambda: dot_cases(jlax))()
    rng_fixed = np.random.default_rng(5)
    got = dot_cases(lax)
    for k in want:
        tol = 3e-2 if "scaled" in k or "bf16" in k else 1e-5
        check(got[k], want[k], rtol=tol, atol=tol, msg=k)


def test_approx_top_k_is_exact():
    x = rng.normal(size=(4, 9)).astype(np.float32)

    def cases(mod):
        return {f"{name} {dim} {v.dtype}": getattr(mod, name)(v, 3, reduction_dimension=dim)
                for v in (x, x.astype(BF16)) for dim in (-1, 0)
                for name in ("approx_max_k", "approx_min_k")}

    want = jax.jit(lambda: cases(jlax))()  # exact on CPU for JAX too
    got = cases(lax)
    for k in want:
        for g_, w_ in zip(got[k], want[k]):
            check(g_, w_, msg=k)


def test_all_jitted_cases_match_eager():
    """The cases above in one compiled module, against their eager (NumPy-rule) values."""

    def fn(f, g):
        out = {**elementwise_cases(lax), **reduce_cases(lax, jnp), **shape_cases(lax)}
        out["traced nextafter"] = lax.nextafter(f, g)
        out["traced reduce_precision"] = lax.reduce_precision(f * 100, 5, 3)
        out["traced dynamic_slice_in_dim"] = lax.dynamic_slice_in_dim(f, lax.convert_element_type(
            g[0, 0] > 0, np.int32) + 1, 2, 0)
        out["traced reduce"] = lax.reduce((f, g), (0.0, 0.0),
                                          lambda a, b: (a[0] + b[0], a[1] + b[1]), (0,))[0]
        out["traced top"] = lax.approx_min_k(f, 2)[0]
        return out

    global rng_fixed
    rng_fixed = np.random.default_rng(5)
    compiled = irax.jit(lambda f, g: {**fn(f, g), **dot_cases(lax)})(F, G)
    rng_fixed = np.random.default_rng(5)
    eager = {**fn(F, G), **dot_cases(lax)}
    for k in eager:
        tol = 1e-2 if "scaled" in k or "bf16" in k else 1e-6
        check(compiled[k], eager[k], rtol=tol, atol=tol, msg=k)


def test_derivatives_of_slicing_and_precision():
    def ours(x, u):
        y = lax.dynamic_update_slice_in_dim(x, u, np.int32(1), 1)
        z = lax.dynamic_slice_in_dim(y, np.int32(-2), 2, 0)
        return jnp.sum(jnp.sin(z) * lax.reduce_precision(x[1:], 8, 7)) + \
            jnp.sum(lax.dynamic_index_in_dim(x, 2, 1) ** 2)

    def theirs(x, u):
        y = jlax.dynamic_update_slice_in_dim(x, u, np.int32(1), 1)
        z = jlax.dynamic_slice_in_dim(y, np.int32(-2), 2, 0)
        return jjnp.sum(jjnp.sin(z) * jlax.reduce_precision(x[1:], 8, 7)) + \
            jjnp.sum(jlax.dynamic_index_in_dim(x, 2, 1) ** 2)

    u = G[:, :2]
    for g_, w_ in zip(irax.grad(ours, argnums=(0, 1))(F, u),
                      jax.jit(jax.grad(theirs, argnums=(0, 1)))(F, u)):
        check(g_, w_, rtol=1e-5, atol=1e-6)
    t = (np.ones_like(F), np.ones_like(u))
    check(irax.jvp(ours, (F, u), t)[1], jax.jvp(theirs, (F, u), t)[1], rtol=1e-5)
    d = rng.normal(size=F.shape).astype(np.float32)
    eps = 1e-2
    fd = (ours(F + eps * d, u) - ours(F - eps * d, u)) / (2 * eps)
    # reduce_precision to bfloat16 makes the function piecewise: compare loosely
    np.testing.assert_allclose(float(irax.jvp(lambda x: ours(x, u), (F,), (d,))[1]), float(fd),
                               rtol=5e-2)


def test_vmap_matches_a_loop():
    xs = rng.normal(size=(3, 4, 5)).astype(np.float32)
    idx = np.array([0, 3, -1], np.int32)
    fns = {
        "dynamic_slice_in_dim": lambda x, i: lax.dynamic_slice_in_dim(x, i, 2, 1),
        "dynamic_update_index_in_dim": lambda x, i: lax.dynamic_update_index_in_dim(
            x, x[0] * 0, i, 0),
        "nextafter": lambda x, i: lax.nextafter(x, x * 0),
        "population_count": lambda x, i: lax.population_count(i + x.shape[0]),
        "reduce_xor": lambda x, i: lax.reduce_xor(lax.bitcast_convert_type(x, np.int32), (0,)),
        "reduce": lambda x, i: lax.reduce(x, 0.0, lax.add, (1,)),
        "tile": lambda x, i: lax.tile(x, (1, 2)),
        "reduce_precision": lambda x, i: lax.reduce_precision(x * 100, 5, 2),
    }
    # every vmap in one compiled module; the loop runs eagerly
    got = irax.jit(lambda xs, idx: {n: irax.vmap(f)(xs, idx) for n, f in fns.items()})(xs, idx)
    for name, fn in fns.items():
        want = np.stack([np.asarray(fn(xs[k], idx[k])) for k in range(3)])
        np.testing.assert_allclose(np.asarray(got[name]), want, rtol=1e-6, err_msg=name)


def test_collectives_under_vmap_match_jax():
    x = np.arange(3 * 3 * 2 * 4, dtype=np.float32).reshape(3, 3, 2, 4)
    xt = np.arange(3 * 6 * 2, dtype=np.float32).reshape(3, 6, 2)

    def cases(m, vmap, x, xt):
        fns = {
            "a2a 0 0": (lambda v: m.all_to_all(v, "i", 0, 0), x),
            "a2a 0 1": (lambda v: m.all_to_all(v, "i", 0, 1), x),
            "a2a 0 2": (lambda v: m.all_to_all(v, "i", 0, 2), x),
            "a2a tiled 0 1": (lambda v: m.all_to_all(v, "i", 0, 1, tiled=True), xt),
            "a2a tiled 0 0": (lambda v: m.all_to_all(v, "i", 0, 0, tiled=True), xt),
            "pswapaxes": (lambda v: m.pswapaxes(v, "i", 0), x),
            "pshuffle": (lambda v: m.pshuffle(v, "i", np.array([2, 0, 1])), x),
            "axis_size": (lambda v: v * m.axis_size("i"), xt),
        }
        out = {n: vmap(f, axis_name="i")(a) for n, (f, a) in fns.items()}
        if m is lax:  # (JAX's pbroadcast fails under jit: compared with its meaning)
            out["pbroadcast"] = vmap(lambda v: m.pbroadcast(v, "i", 1), axis_name="i")(x)
        return out

    want = jax.jit(lambda x, xt: cases(jlax, jax.vmap, x, xt))(x, xt)
    want["pbroadcast"] = jjnp.broadcast_to(x[1], x.shape)
    got = irax.jit(lambda x, xt: cases(lax, irax.vmap, x, xt))(x, xt)
    for name in want:
        check(got[name], want[name], msg=name)
    np.testing.assert_array_equal(lax.pcast(xt, "i", to="varying"), xt)
    with pytest.raises(ValueError, match="all_to_all requires the size"):
        irax.vmap(lambda v: lax.all_to_all(v, "i", 1, 0), axis_name="i")(x)


def test_psend_precv_pair_is_a_ppermute():
    perm = [(0, 1), (1, 2)]
    spec = jax.ShapeDtypeStruct((2,), np.float32)

    def f(v):
        return lax.precv(lax.psend(v, "i", perm), spec, "i", perm)

    x = np.arange(6.0, dtype=np.float32).reshape(3, 2)
    np.testing.assert_array_equal(irax.vmap(f, axis_name="i")(x), [[0, 0], [0, 1], [2, 3]])
    with pytest.raises(NotImplementedError, match="matching psend"):
        irax.vmap(lambda v: lax.precv(lax.create_token(), spec, "i", perm), axis_name="i")(x)


def test_ragged_all_to_all_matches_its_definition():
    """JAX runs it only under shard_map on several devices: checked against the loop of
    its documentation (sender s writes rows to receiver d at the sender's offset)."""
    d_ = 3
    r = np.random.default_rng(2)
    operand = r.normal(size=(d_, 6, 2)).astype(np.float32)
    output = np.full((d_, 7, 2), -1.0, np.float32)
    send = r.integers(0, 3, (d_, d_)).astype(np.int32)  # send[s, d]: rows from s to d
    in_off = np.concatenate([np.zeros((d_, 1), np.int32), np.cumsum(send, 1)[:, :-1]], 1)
    recv = send.T.copy()
    out_off = np.concatenate([np.zeros((d_, 1), np.int32), np.cumsum(recv, 1)[:, :-1]], 1).T
    want, sent = output.copy(), np.zeros(operand.shape, bool)
    for s in range(d_):
        for d in range(d_):
            n, o, i = send[s, d], out_off[s, d], in_off[s, d]
            want[d, o:o + n] = operand[s, i:i + n]
            sent[s, i:i + n] = True

    def f(*args):
        return lax.ragged_all_to_all(*args, axis_name="i")

    args = (operand, output, in_off, send, np.ascontiguousarray(out_off), recv)
    np.testing.assert_array_equal(irax.jit(irax.vmap(f, axis_name="i"))(*args), want)
    g = irax.grad(lambda x: jnp.sum(irax.vmap(f, axis_name="i")(x, *args[1:]) ** 2))(operand)
    np.testing.assert_allclose(g, np.where(sent, 2 * operand, 0), rtol=1e-6)


# ---- custom_linear_solve and custom_root -------------------------------------------------------
A = np.array([[3.0, 1.0], [0.5, 2.0]], np.float32)
B = np.array([1.0, -2.0], np.float32)


def _solve2(np_, a, y):
    """A 2x2 solve by Cramer's rule: linear in ``y``, compiles everywhere."""
    det = a[0, 0] * a[1, 1] - a[0, 1] * a[1, 0]
    return np_.stack([a[1, 1] * y[0] - a[0, 1] * y[1], a[0, 0] * y[1] - a[1, 0] * y[0]]) / det


def _linear_loss(mod, np_):
    def f(a, b):
        x = mod.custom_linear_solve(lambda v: a @ v, b, lambda mv, y: _solve2(np_, a, y),
                                    lambda mv, y: _solve2(np_, a.T, y))
        return np_.sum(x * np_.arange(1.0, 3.0))

    return f


def _root(mod, np_):
    def f(c):
        def g(x):
            return x ** 3 - c

        def solve(g, x0):
            return mod.fori_loop(0, 30, lambda i, x: x - g(x) / (3 * x ** 2), x0)

        return mod.custom_root(g, np_.ones_like(c), solve, lambda h, y: y / h(np_.ones_like(y)))

    return f


def test_custom_linear_solve_and_root_match_jax():
    ours, theirs = _linear_loss(lax, jnp), _linear_loss(jlax, jjnp)
    r_ours, r_theirs = _root(lax, jnp), _root(jlax, jjnp)
    t = (np.ones_like(A), np.ones_like(B))
    c = np.float32(2.0)
    want = jax.jit(lambda a, b, c: (theirs(a, b), jax.grad(theirs, argnums=(0, 1))(a, b),
                                    jax.jvp(theirs, (a, b), t)[1], r_theirs(c),
                                    jax.grad(r_theirs)(c)))(A, B, c)
    check(ours(A, B), want[0], rtol=1e-5)
    for g_, w_ in zip(irax.grad(ours, argnums=(0, 1))(A, B), want[1]):
        check(g_, w_, rtol=1e-4, atol=1e-5)
    check(irax.jvp(ours, (A, B), t)[1], want[2], rtol=1e-4)
    check(r_ours(c), want[3], rtol=1e-6)
    d = irax.grad(r_ours)(c)
    check(d, want[4], rtol=1e-5)
    eps = 1e-2
    fd = (r_ours(c + eps) - r_ours(c - eps)) / (2 * eps)
    np.testing.assert_allclose(float(d), float(fd), rtol=1e-3)
    # has_aux: the aux output has no derivative
    aux = lax.custom_linear_solve(lambda v: A @ v, B,
                                  lambda mv, y: (_solve2(jnp, A, y), jnp.sum(y)), has_aux=True)
    check(aux[1], jjnp.sum(B))


def test_custom_solves_under_jit_and_vmap():
    ours, theirs = _linear_loss(lax, jnp), _linear_loss(jlax, jjnp)
    cs = np.array([1.0, 2.0, 8.0], np.float32)
    got = irax.jit(lambda a, b, cs: (irax.grad(ours, argnums=(0, 1))(a, b),
                                     irax.vmap(irax.grad(_root(lax, jnp)))(cs)))(A, B, cs)
    want = jax.jit(lambda a, b, cs: (jax.grad(theirs, argnums=(0, 1))(a, b),
                                     jax.vmap(jax.grad(_root(jlax, jjnp)))(cs)))(A, B, cs)
    for g_, w_ in zip(got[0], want[0]):
        check(g_, w_, rtol=1e-4, atol=1e-5)
    check(got[1], want[1], rtol=1e-5)


# ---- the rest: identities, types, random bits ------------------------------------------------
def test_identities_and_types():
    tree = {"a": F, "b": (G, 1.0)}
    for fn in (lax.optimization_barrier, lambda t: lax.with_sharding_constraint(t, None)):
        out = fn(tree)
        check(out["a"], jnp.asarray(F))
        check(out["b"][1], jlax.optimization_barrier(1.0))
    check(lax.stage(1.0), jlax.stage(1.0))
    assert lax.dce_sink(F) is None
    tok = lax.after_all(lax.create_token(), lax.create_token())
    assert repr(tok) == "Token"
    assert lax.platform_dependent(F, cpu=lambda x: 1, default=lambda x: 2) in (1, 2)
    assert lax.platform_dependent(F, default=lambda x: 3) == 3
    sq = lax.composite(lambda x: x * x, name="my.square")
    check(irax.jit(sq)(F), jax.jit(jlax.composite(lambda x: x * x, name="my.square"))(F))
    assert lax.Precision("highest") is lax.Precision.HIGHEST
    assert [m.name for m in lax.Precision] == [m.name for m in jlax.Precision]
    assert [m.name for m in lax.DotAlgorithmPreset] == [m.name for m in jlax.DotAlgorithmPreset]
    assert [(m.name, m.value) for m in lax.RandomAlgorithm] == \
        [(m.name, m.value) for m in jlax.RandomAlgorithm]
    assert [(m.name, m.value) for m in lax.AccuracyMode] == \
        [(m.name, m.value) for m in jlax.AccuracyMode]
    assert lax.DotAlgorithm._fields == jlax.DotAlgorithm._fields
    assert lax.Tolerance(atol=1e-3).atol == 1e-3
    with pytest.raises(ValueError):
        lax.Tolerance()
    check(lax.dot(F, G.T, precision=lax.Precision.HIGH), jlax.dot(F, G.T))


def test_rng_bit_generator_and_rng_uniform():
    key = np.array([1, 2, 3, 4], np.uint32)
    for dt in (np.uint8, np.uint16, np.uint32):
        k2, bits = lax.rng_bit_generator(key, (3, 5), dt)
        jk2, jbits = jax.eval_shape(lambda k, dt=dt: jlax.rng_bit_generator(k, (3, 5), dt), key)
        assert (k2.dtype, k2.shape, bits.dtype, bits.shape) == \
            (jk2.dtype, jk2.shape, jbits.dtype, jbits.shape)
    k2, bits = lax.rng_bit_generator(key, (1000,))
    jitted = irax.jit(lambda k: lax.rng_bit_generator(k, (1000,)))(key)
    np.testing.assert_array_equal(np.asarray(jitted[1]), np.asarray(bits))
    assert not np.array_equal(np.asarray(k2), key)
    b = np.asarray(bits)
    assert 0.45 < np.mean(b & 1) < 0.55 and len(np.unique(b)) > 990
    u = np.asarray(lax.rng_uniform(np.float32(-2), np.float32(3), (2000,)))
    assert u.dtype == np.float32 and u.min() >= -2 and u.max() < 3 and abs(u.mean() - 0.5) < 0.2


# ---- errors ------------------------------------------------------------------------------------
@pytest.mark.parametrize("call, exc, match", [
    (lambda m: m.population_count(F), TypeError, "population_count does not accept"),
    (lambda m: m.nextafter(F, F.astype(np.float16)), TypeError, "same dtypes"),
    (lambda m: m.bitcast_convert_type(F.astype(np.float16), np.float32), ValueError,
     "Attempting to convert"),
    (lambda m: m.index_in_dim(F, 5, 1), IndexError, "out of bounds"),
    (lambda m: m.collapse(F.reshape(3, 2, 2), 2, 1), ValueError, "Invalid dimension range"),
    (lambda m: m.split(F, (1, 1), 0), ValueError, "Sum of sizes"),
    (lambda m: m.tile(F, (2,)), TypeError, "reps length"),
    (lambda m: m.stack([F, G[:2]]), ValueError, "same shape"),
    (lambda m: m.broadcast_shapes((2, 3), (4, 3)), ValueError, "Incompatible shapes"),
    (lambda m: m.batch_matmul(F, G[0]), ValueError, "at least 2D"),
    (lambda m: m.reduce_xor(F, (0,)), TypeError, "reduce_xor|logical reduction"),
    (lambda m: m.approx_max_k(np.arange(4), 2), ValueError, "floating"),
])
def test_errors_follow_jax(call, exc, match):
    with pytest.raises(exc, match=match):
        call(jlax)
    with pytest.raises(exc, match=match):
        call(lax)
