"""Sorting: ``jnp.sort``/``argsort``, ``lax.sort``/``sort_key_val``/``top_k`` and the
``irax.sort`` op, against NumPy and real JAX (bit for bit: NaN signs, -0.0 vs +0.0 order),
eagerly and under jit, with vmap and derivatives.

Every jitted check of a kind is batched into one compiled function (IREE compiles cost
~0.3-1 s each)."""

import ml_dtypes
import numpy as np
import pytest

import irax
import irax.numpy as jnp
from irax import lax
from irax.dialect.sorting import Sort
from irax.frontend.trace import bind
from irax.lowering.sort_kernel import use_kernel
from irax.lowering.sort_network import NETWORK_MIN_WORK, use_network

jax = pytest.importorskip("jax")
jjnp = pytest.importorskip("jax.numpy")

BF16 = np.dtype(ml_dtypes.bfloat16)
NAN = np.float32(np.nan)
SPECIAL = np.array([3, NAN, -np.inf, 1, -NAN, np.inf, -0.0, 0.0, 0.0, -0.0, 2, 1, NAN, -1],
                   np.float32)
rng = np.random.default_rng(0)


def _rows(n_rows, dtype):
    return np.stack([rng.permutation(SPECIAL) for _ in range(n_rows)]).astype(dtype)


def _complex():
    re = np.array([1, 1, NAN, 0, -1, 1, NAN, 0, 1, -0.0], np.float32)
    im = np.array([2, 1, 0, NAN, 5, NAN, NAN, -0.0, 1, 0], np.float32)
    return (re + 1j * im).astype(np.complex64)


CASES = {
    "f32": _rows(3, np.float32),                                       # (3, 14)
    "f32_3d": np.round(rng.standard_normal((2, 3, 5)), 0).astype(np.float32),
    "f16": _rows(2, np.float16),
    "bf16": _rows(2, BF16),
    "i32": rng.integers(-3, 4, (3, 7)).astype(np.int32),
    "u8": np.array([255, 0, 7, 255, 1, 0, 128], np.uint8),
    "i8": rng.integers(-128, 128, (2, 9)).astype(np.int8),
    "bool": rng.integers(0, 2, (3, 8)).astype(bool),
    "c64": _complex(),
}
CASES["f32_3d"][0, 1, 2] = NAN
CASES["f32_3d"][1, 0, 0] = -0.0
AXES = {name: ([-1, None] if x.ndim == 1 else [-1, 0, None]) for name, x in CASES.items()}
AXES["f32_3d"] = [-1, 0, 1, None]


def bits(x):
    """The raw bits (NaN signs and payloads, -0.0) of a float/complex array."""
    x = np.ascontiguousarray(x)
    if x.dtype.kind in "fc" or x.dtype == BF16:
        return x.view(f"u{x.dtype.itemsize // (2 if x.dtype.kind == 'c' else 1)}")
    return x


def same(got, want, msg=""):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, f"{msg}: dtype {got.dtype} != {want.dtype}"
    assert got.shape == want.shape, f"{msg}: shape {got.shape} != {want.shape}"
    np.testing.assert_array_equal(bits(got), bits(want), err_msg=msg)


def _variants():
    """(name, axis, descending) triples of the numpy-level checks."""
    for name in CASES:
        for axis in AXES[name]:
            for descending in (False, True):
                yield name, axis, descending


def _numpy_level(mod, arrays):
    """sort and argsort of every case, every axis, both directions."""
    out = []
    for name, axis, descending in _variants():
        x = arrays[name]
        out.append(mod.sort(x, axis=axis, descending=descending))
        out.append(mod.argsort(x, axis=axis, descending=descending))
    return out


def _lax_level(lax_mod, arrays):
    """Multi-operand sorts (num_keys 1 and 2) and top_k."""
    f, i = arrays["f32"], arrays["i32"]
    k1 = i[:, :4] % 2
    k2, v = f[:, :4], f[:, 4:8]
    out = list(lax_mod.sort((k1, k2, v), dimension=1, num_keys=2))
    out += list(lax_mod.sort((k2, k1, v), dimension=0, num_keys=1))
    out += list(lax_mod.sort_key_val(f[0], f[1]))
    out += list(lax_mod.sort_key_val(i[0], f[0, :7], dimension=0))
    out += list(lax_mod.top_k(arrays["f32_3d"], 3))  # -0.0 and NaN, no negative NaN
    out += list(lax_mod.top_k(arrays["i32"], 7))
    out += list(lax_mod.top_k(arrays["bool"], 2))
    out += list(lax_mod.top_k(arrays["f32_3d"], 2, axis=1))
    return out


# ---- eager, against JAX and NumPy -------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(CASES))
def test_eager_matches_jax(name):
    x = CASES[name]
    for axis in AXES[name]:
        for descending in (False, True):
            msg = f"{name} axis={axis} descending={descending}"
            same(jnp.sort(x, axis=axis, descending=descending),
                 jjnp.sort(x, axis=axis, descending=descending), "sort " + msg)
            same(jnp.argsort(x, axis=axis, descending=descending),
                 jjnp.argsort(x, axis=axis, descending=descending), "argsort " + msg)


@pytest.mark.parametrize("name", [n for n in CASES if n != "c64"])
def test_eager_matches_numpy(name):
    """NumPy's stable sort has the same order for real numbers: NaNs last, -0.0 == 0.0."""
    x = CASES[name]
    for axis in AXES[name]:
        data = x.astype(np.float32) if x.dtype == BF16 else x
        want = np.argsort(data, axis=axis, kind="stable")
        same(jnp.argsort(x, axis=axis), want.astype(np.int32), f"{name} axis={axis}")
        flat = x.reshape(-1) if axis is None else x
        same(jnp.sort(x, axis=axis),
             np.take_along_axis(flat, want, -1 if axis is None else axis), f"{name} {axis}")


def test_documented_example():
    x = np.array([3, NAN, -np.inf, 1, -NAN, np.inf, -0.0, 0.0], np.float32)
    np.testing.assert_array_equal(np.asarray(jnp.argsort(x)), [2, 6, 7, 3, 0, 5, 1, 4])
    same(jnp.sort(x)[:3], np.array([-np.inf, -0.0, 0.0], np.float32))


def test_lax_eager_matches_jax():
    got, want = _lax_level(lax, CASES), _lax_level(jax.lax, CASES)
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want)):
        same(g, w, f"lax output {i}")


def test_top_k_ties_and_zeros():
    x = np.array([0.0, -0.0, 1.0, -0.0, 0.0, NAN, np.inf, 1.0], np.float32)
    values, idx = lax.top_k(x, 8)
    wv, wi = jax.lax.top_k(x, 8)
    same(values, wv)
    same(idx, wi)


def test_stable_false_sorts():
    x = CASES["i32"]
    same(lax.sort(x, is_stable=False), np.sort(x, axis=-1))
    idx = np.asarray(jnp.argsort(x, stable=False))
    np.testing.assert_array_equal(np.take_along_axis(x, idx, -1), np.sort(x, axis=-1))


def test_weak_types_and_array_methods():
    w = lax.sort(jnp.asarray(3.0) + jnp.arange(4.0)[::-1])
    assert not w.weak_type
    x = jnp.asarray(CASES["f32"])
    same(x.sort(axis=0), jjnp.sort(CASES["f32"], axis=0))
    same(x.argsort(descending=True), jjnp.argsort(CASES["f32"], descending=True))
    same(jnp.argsort(CASES["i32"], dtype=np.int8), jjnp.argsort(CASES["i32"], dtype=np.int8))


def test_x64_argsort_dtype_and_float64(x64):
    jax.config.update("jax_enable_x64", True)
    try:
        x = np.concatenate([SPECIAL, SPECIAL[::-1]]).astype(np.float64)
        for descending in (False, True):
            same(jnp.argsort(x, descending=descending), jjnp.argsort(x, descending=descending))
            same(jnp.sort(x, descending=descending), jjnp.sort(x, descending=descending))
        assert jnp.argsort(x).dtype == np.int64
        same(irax.jit(jnp.argsort)(x), jjnp.argsort(x))
    finally:
        jax.config.update("jax_enable_x64", False)


# ---- jit ----------------------------------------------------------------------------------------
def test_jit_matches_eager_and_jax():
    names = sorted(CASES)

    def everything(*arrays):
        arrays = dict(zip(names, arrays))
        return _numpy_level(jnp, arrays) + _lax_level(lax, arrays)

    args = [CASES[n] for n in names]
    got = irax.jit(everything)(*args)
    eager = everything(*args)
    want = _numpy_level(jjnp, CASES) + _lax_level(jax.lax, CASES)
    assert len(got) == len(eager) == len(want)
    for i, (g, e, w) in enumerate(zip(got, eager, want)):
        same(g, e, f"jit vs eager, output {i}")
        same(g, w, f"jit vs jax, output {i}")


def test_jit_leaves_arguments_and_constants_alone():
    """IREE sorts its operand buffers in place: the lowering copies them first."""
    x = jnp.asarray(np.array([3.0, 1.0, 2.0], np.float32))
    f = irax.jit(lambda x: (jnp.sort(x), jnp.argsort(x), lax.sort_key_val(x, jnp.arange(3.0))))
    for _ in range(3):
        s, i, (k, v) = f(x)
        same(s, np.array([1.0, 2.0, 3.0], np.float32))
        same(i, np.array([1, 2, 0], np.int32))
        same(v, np.array([1.0, 2.0, 0.0], np.float32))
    same(x, np.array([3.0, 1.0, 2.0], np.float32))


def test_random_permutation_uses_the_sort_op():
    import irax.random as R

    text = irax.jit(lambda k: R.permutation(k, 50)).lower(R.PRNGKey(0)).as_text("irax")
    assert text.count('"irax.sort"') == 1


# ---- long sorts: the bitonic network ------------------------------------------------------------
def _long(n, dtype=np.float32, shape=None):
    """``n`` values (or ``shape``) with NaNs of both signs, infinities, -0.0/+0.0 and many
    duplicates among random numbers."""
    r = np.random.default_rng(n)
    x = np.round(r.standard_normal(shape or n) * 20, 0).astype(np.float32)
    special = r.random(x.shape) < 0.2
    x[special] = r.choice(SPECIAL, int(special.sum()))
    return x.astype(dtype)


LONG = {
    "f32": _long(70000),                                  # padded to 2^17
    "rows": _long(0, shape=(3, 5000)),                    # sorted along the last axis
    "cols": _long(1, shape=(1500, 2, 3)),                 # sorted along axis 0: cols > 1
    "bf16": _long(5000, BF16),
    "i8": np.random.default_rng(5).integers(-128, 128, 6000).astype(np.int8),
    "u32": np.random.default_rng(6).integers(0, 2 ** 32, 5000, dtype=np.uint32),
    "bool": np.random.default_rng(7).integers(0, 2, 5000).astype(bool),
    "c64": np.zeros(4000, np.complex64),
}
LONG["c64"].real, LONG["c64"].imag = _long(4000), _long(4001)[:4000]


def _long_sorts(mod, lax_mod, a):
    f, rows, cols = a["f32"], a["rows"], a["cols"]
    out = [mod.sort(f), mod.argsort(f), mod.argsort(f, descending=True),
           mod.sort(rows, axis=-1, descending=True), mod.argsort(rows, axis=-1),
           mod.sort(cols, axis=0), mod.argsort(cols, axis=0), mod.argsort(rows, axis=None),
           mod.sort(a["bf16"]), mod.argsort(a["i8"]), mod.argsort(a["i8"], descending=True),
           mod.argsort(a["bool"]), mod.argsort(a["bool"], descending=True), mod.sort(a["c64"]),
           mod.argsort(a["c64"], descending=True)]
    ties = (a["i8"] % 3).astype(np.int32)
    out += list(lax_mod.sort((ties, a["i8"].astype(np.float32) / 4, f[:6000]), num_keys=2))
    out += list(lax_mod.sort_key_val(a["u32"], rows[0]))
    out += list(lax_mod.top_k(mod.where(mod.isnan(rows), NAN, rows), 5))  # no negative NaN
    return out


def test_long_sorts_match_jax_and_numpy():
    """One compiled function: every long sort through the network, against JAX bit for bit,
    and the real-valued ones against NumPy's stable sort."""
    names = sorted(LONG)
    args = [LONG[n] for n in names]
    got, (keys, perm) = irax.jit(lambda *a: (
        _long_sorts(jnp, lax, dict(zip(names, a))),
        lax.sort_key_val(a[names.index("rows")][1], jnp.arange(5000), is_stable=False)))(*args)
    want = _long_sorts(jjnp, jax.lax, LONG)
    assert len(got) == len(want)
    # unstable: any order of equal keys (-0.0 and +0.0 are equal), a permutation along
    np.testing.assert_array_equal(keys, np.sort(LONG["rows"][1]))
    same(np.sort(perm), np.arange(5000, dtype=np.int32))
    same(keys, LONG["rows"][1][perm])
    for i, (g, w) in enumerate(zip(got, want)):
        same(g, w, f"long output {i}")
    f = LONG["f32"]
    same(got[1], np.argsort(f, kind="stable").astype(np.int32), "argsort vs numpy")
    same(got[0], f[np.argsort(f, kind="stable")], "sort vs numpy")
    same(got[4], np.argsort(LONG["rows"], axis=-1, kind="stable").astype(np.int32))
    same(got[6], np.argsort(LONG["cols"], axis=0, kind="stable").astype(np.int32))
    same(got[8], LONG["bf16"][np.argsort(LONG["bf16"].astype(np.float32), kind="stable")])
    for name in names:  # the network runs on its own buffers
        same(args[names.index(name)], LONG[name], name)


def test_long_sort_lowers_to_a_network():
    """A long sort is a while loop of gathers and selects (here as a GPU target compiles
    it; a CPU's takes the heapsort kernel below); ``argsort``'s positions operand is not
    carried (the network's own position key is the result); a short one stays a
    ``stablehlo.sort``. The portable StableHLO keeps one sort (the network is
    irax-legalize-iree's)."""
    lowered = irax.jit(jnp.argsort).lower(LONG["f32"])
    text = lowered.as_text("iree-gpu")
    assert "stablehlo.sort" not in text
    assert text.count("stablehlo.while") == 1
    assert text.count('"stablehlo.gather"') == 2  # the keys and the positions
    assert lowered.as_text("stablehlo").count('"stablehlo.sort"') == 1
    short = irax.jit(jnp.argsort).lower(CASES["f32"]).as_text("iree")
    assert "stablehlo.sort" in short and "stablehlo.while" not in short


def test_long_sort_by_one_32_bit_key_is_a_heapsort_kernel():
    """On a CPU a long sort by one 32-bit key is one dispatch sorting packed (key,
    position) pairs in place (``lowering/sort_kernel.py``): argsort reads the positions
    off the sorted pairs (no gather), sort gathers its operand by them; a sort by a key
    the kernel does not take (bfloat16) or along another axis stays a network."""
    text = irax.jit(jnp.argsort).lower(LONG["f32"]).as_text("iree")
    assert "stablehlo.while" not in text and "stablehlo.sort" not in text
    assert text.count("flow.dispatch.region") == 1 and "@irax_heapsort_1x70000" in text
    assert '"stablehlo.gather"' not in text
    text = irax.jit(jnp.sort).lower(LONG["f32"]).as_text("iree")
    assert text.count('"stablehlo.gather"') == 1 and "flow.dispatch.region" in text
    for x, axis in ((LONG["bf16"], -1), (LONG["cols"], 0)):
        text = irax.jit(lambda v, a=axis: jnp.sort(v, axis=a)).lower(x).as_text("iree")
        assert "flow.dispatch.region" not in text and "stablehlo.while" in text


def test_kernel_threshold():
    assert use_kernel((4096,), 0, np.float32, 1) and not use_kernel((4095,), 0, np.float32, 1)
    assert use_kernel((16, 5000), 1, np.uint32, 1) and not use_kernel((17, 5000), 1,
                                                                       np.uint32, 1)
    assert not use_kernel((5000, 2), 0, np.float32, 1)        # not the last axis
    assert not use_kernel((5000,), 0, np.float64, 1)          # not a 32-bit key
    assert not use_kernel((5000,), 0, np.float32, 2)          # two keys


def test_network_threshold():
    assert NETWORK_MIN_WORK == 1 << 15
    assert use_network((256,), 0) and not use_network((128,), 0)
    assert use_network((100, 32), 1) and not use_network((32, 10), 0)
    assert not use_network((1 << 20, 1), 1)


def test_long_sort_vmap_grad_and_permutation_match_jax():
    """vmap over rows, a derivative through a long sort (the tangent follows the sort's
    permutation) and ``random.permutation`` of 60000 (JAX's shuffle: two rounds of 32-bit
    keys), all under one jit."""
    import irax.random as R

    rows = LONG["rows"][:, :3000]
    w = np.random.default_rng(8).standard_normal(rows.shape[1]).astype(np.float32)
    x = np.nan_to_num(rows[0], nan=1.5)

    def f(rmod, vmap, grad, np_mod, rows, w, x, key):
        return (vmap(lambda r: np_mod.argsort(r, descending=True))(rows),
                grad(lambda x: np_mod.sum(np_mod.sort(x) * w))(x),
                rmod.permutation(key, 60000))

    got = irax.jit(lambda *a: f(R, irax.vmap, irax.grad, jnp, *a))(rows, w, x, R.PRNGKey(3))
    want = f(jax.random, jax.vmap, jax.grad, jjnp, rows, w, x, jax.random.PRNGKey(3))
    for g, v in zip(got, want):
        same(g, v)


def test_long_x64_sorts_match_jax(x64):
    jax.config.update("jax_enable_x64", True)
    try:
        x = _long(5000, np.float64)
        i = np.random.default_rng(9).integers(-2 ** 40, 2 ** 40, 5000)
        got = irax.jit(lambda x, i: (jnp.argsort(x), jnp.sort(x, descending=True),
                                     lax.sort_key_val(i, x)))(x, i)
        want = (jjnp.argsort(x), jjnp.sort(x, descending=True), jax.lax.sort_key_val(i, x))
        for g, w in zip(jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)):
            same(g, w)
        assert got[0].dtype == np.int64
    finally:
        jax.config.update("jax_enable_x64", False)


# ---- vmap ---------------------------------------------------------------------------------------
def _batched(vmap, x3, k2, v1):
    return [
        vmap(lambda a: jnp.sort(a, axis=0))(x3),
        vmap(lambda a: jnp.argsort(a, axis=-1), in_axes=1)(x3),
        vmap(lambda k, v: lax.sort((k, v), num_keys=1), in_axes=(0, None))(k2, v1),
        vmap(lambda a: lax.top_k(a, 2), in_axes=2)(x3),
    ]


def test_vmap_matches_a_loop_eager_and_jit():
    x3, k2, v1 = CASES["f32_3d"], CASES["i32"][:, :5], CASES["f32"][0, :5]

    def loop(fun, in_axes=0):
        def run(*args):
            axes = in_axes if isinstance(in_axes, tuple) else (in_axes,) * len(args)
            n = next(a.shape[d] for a, d in zip(args, axes) if d is not None)
            outs = [fun(*[a if d is None else np.take(a, j, d) for a, d in zip(args, axes)])
                    for j in range(n)]
            if isinstance(outs[0], (tuple, list)):
                return tuple(np.stack([np.asarray(o[i]) for o in outs])
                             for i in range(len(outs[0])))
            return np.stack([np.asarray(o) for o in outs])
        return run

    want = _batched(loop, x3, k2, v1)
    eager = _batched(irax.vmap, x3, k2, v1)
    jitted = irax.jit(lambda *a: _batched(irax.vmap, *a))(x3, k2, v1)
    for i, w in enumerate(want):
        for got in (eager[i], jitted[i]):
            g = got if isinstance(w, tuple) else (got,)
            for gi, wi in zip(g, w if isinstance(w, tuple) else (w,)):
                same(gi, wi, f"vmap case {i}")


# ---- derivatives --------------------------------------------------------------------------------
def _losses(x, y, w):
    """Scalar losses through every derivative path: sort, a multi-operand sort (keys and
    values get tangents, an int key none), argsort (none), top_k."""
    ik = (jnp.arange(x.shape[-1]) % 3).astype(np.int32)
    ik = jnp.broadcast_to(ik, x.shape)
    k, fk, v = lax.sort((ik, x, y), dimension=1, num_keys=2)
    return (jnp.sum(jnp.sort(x, axis=0) * w)
            + jnp.sum(jnp.sort(y, axis=1, descending=True) * w ** 2)
            + jnp.sum(fk * v) + jnp.sum(lax.top_k(x * y, 3)[0])
            + jnp.sum(jnp.argsort(x).astype(np.float32)))


def test_grad_matches_jax_and_finite_differences():
    r = np.random.default_rng(3)
    x = r.standard_normal((3, 6)).astype(np.float32)
    y = r.standard_normal((3, 6)).astype(np.float32)
    w = r.standard_normal((3, 6)).astype(np.float32)

    def jax_losses(x, y, w):
        ik = jjnp.broadcast_to((jjnp.arange(x.shape[-1]) % 3).astype(np.int32), x.shape)
        k, fk, v = jax.lax.sort((ik, x, y), dimension=1, num_keys=2)
        return (jjnp.sum(jjnp.sort(x, axis=0) * w)
                + jjnp.sum(jjnp.sort(y, axis=1, descending=True) * w ** 2)
                + jjnp.sum(fk * v) + jjnp.sum(jax.lax.top_k(x * y, 3)[0])
                + jjnp.sum(jjnp.argsort(x).astype(np.float32)))

    want = jax.grad(jax_losses, argnums=(0, 1))(x, y, w)
    eager = irax.grad(_losses, argnums=(0, 1))(x, y, w)
    jitted = irax.jit(irax.grad(_losses, argnums=(0, 1)))(x, y, w)
    for g_eager, g_jit, g_jax in zip(eager, jitted, want):
        np.testing.assert_allclose(np.asarray(g_eager), np.asarray(g_jax), rtol=1e-6, atol=1e-6)
        np.testing.assert_allclose(np.asarray(g_jit), np.asarray(g_jax), rtol=1e-6, atol=1e-6)
    # central differences in float64 (no ties: the sort is locally a fixed permutation)
    x64, y64, w64 = (a.astype(np.float64) for a in (x, y, w))
    eps = 1e-4
    for arg, g in ((0, eager[0]), (1, eager[1])):
        for idx in [(0, 0), (1, 3), (2, 5)]:
            a = [x64.copy(), y64.copy()]
            a[arg][idx] += eps
            up = _np_loss(*a, w64)
            a[arg][idx] -= 2 * eps
            down = _np_loss(*a, w64)
            np.testing.assert_allclose(np.asarray(g)[idx], (up - down) / (2 * eps),
                                       rtol=1e-3, atol=1e-3)


def _np_loss(x, y, w):
    ik = np.broadcast_to(np.arange(x.shape[-1]) % 3, x.shape)
    order = np.lexsort((x, ik), axis=1)
    fk, v = np.take_along_axis(x, order, 1), np.take_along_axis(y, order, 1)
    xy = x * y
    top = -np.sort(-xy, axis=-1)[:, :3]
    return (np.sum(np.sort(x, axis=0) * w) + np.sum(-np.sort(-y, axis=1) * w ** 2)
            + np.sum(fk * v) + np.sum(top) + np.sum(np.argsort(x, kind="stable")))


def test_jvp_matches_jax():
    x = CASES["f32_3d"]
    t = np.random.default_rng(4).standard_normal(x.shape).astype(np.float32)
    i = CASES["i32"][:2, :5].reshape(2, 1, 5).repeat(3, 1)

    def f(mod_lax, x):
        return mod_lax.sort((i, x, x * 2), dimension=2, num_keys=2)[1:]

    got = irax.jvp(lambda x: f(lax, x), (x,), (t,))
    want = jax.jvp(lambda x: f(jax.lax, x), (x,), (t,))
    for g, w in zip(jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)):
        same(g, w)


# ---- errors -------------------------------------------------------------------------------------
def test_errors_are_jax_worded():
    x = CASES["f32"]
    with pytest.raises(TypeError, match="'order' argument to sort is not supported"):
        jnp.sort(x, order="a")
    with pytest.raises(TypeError, match="'kind' argument to argsort is not supported"):
        jnp.argsort(x, kind="stable")
    with pytest.raises(TypeError, match="sort requires ndarray or scalar arguments"):
        jnp.sort([3, 1])
    with pytest.raises(ValueError, match="axis 2 is out of bounds for array of dimension 2"):
        jnp.sort(x, axis=2)
    with pytest.raises(TypeError, match="Sort requires at least one operand"):
        lax.sort(())
    with pytest.raises(ValueError, match=r"num_keys=3 must be between 1 and len\(operand\)=2"):
        lax.sort((x, x), num_keys=3)
    with pytest.raises(ValueError, match="num_keys=2 must equal 1 for a single operand"):
        lax.sort(x, num_keys=2)
    with pytest.raises(TypeError, match=r"Arguments to sort must have equal shapes, got: "
                                        r"\(3, 14\) \(14,\)"):
        lax.sort((x, x[0]))
    with pytest.raises(ValueError, match="k argument to top_k must be no larger than size"):
        lax.top_k(x, 15)
    with pytest.raises(ValueError, match="k argument to top_k must be nonnegative"):
        lax.top_k(x, -1)
    with pytest.raises(ValueError, match="top_k is not compatible with complex inputs"):
        lax.top_k(CASES["c64"], 1)


def test_op_diagnostics():
    x = np.zeros((2, 3), np.float32)
    with pytest.raises(TypeError, match=r"'irax.sort' op expected operands of one shape, but "
                                        r"got float32\[2,3\] and int32\[3\]"):
        bind(Sort, x, np.zeros(3, np.int32), dimension=0, is_stable=True)
    with pytest.raises(TypeError, match=r"'irax.sort' op expected dimension to be in \[0, 2\), "
                                        r"but got 2"):
        bind(Sort, x, dimension=2, is_stable=True)
    with pytest.raises(TypeError, match=r"'irax.sort' op expected num_keys to be in \[1, 1\], "
                                        r"but got 2"):
        bind(Sort, x, dimension=0, is_stable=True, num_keys=2)
    with pytest.raises(TypeError, match="'irax.sort' op expected at least one operand"):
        bind(Sort, dimension=0, is_stable=True)
