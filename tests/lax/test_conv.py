"""irax.lax convolutions against jax.lax: every layout, padding, stride, dilation and
group count; dtypes and weak types; derivatives, vmap, conv_transpose, patches, errors."""

import re

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import irax
import irax.lax as lax
import irax.numpy as jnp

jax = pytest.importorskip("jax")
jlax = pytest.importorskip("jax.lax")
jjnp = pytest.importorskip("jax.numpy")

BF16 = np.dtype(ml_dtypes.bfloat16)
rng = np.random.default_rng(11)


def _tol(dtype):
    dtype = np.dtype(dtype)
    return {np.dtype(np.float16): 2e-2, BF16: 5e-2}.get(dtype, 2e-5 if dtype.kind in "fc" else 0)


def check(got, want, tol=None, msg=""):
    """Value (dtype tolerance), dtype, shape and weak type."""
    assert got.dtype == want.dtype, (msg, got.dtype, want.dtype)
    assert got.shape == want.shape, (msg, got.shape, want.shape)
    assert got.weak_type == getattr(want, "weak_type", False), msg
    t = _tol(want.dtype) if tol is None else tol
    g, w = np.asarray(got), np.asarray(want)
    if g.dtype in (np.float16, BF16):
        g, w = g.astype(np.float32), w.astype(np.float32)
    scale = max(1.0, float(np.max(np.abs(w)))) if w.size else 1.0
    np.testing.assert_allclose(g, w, rtol=t, atol=t * scale, err_msg=msg)


def arr(shape, dtype=np.float32):
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.integers(0, 2, shape).astype(bool)
    if dtype.kind in "iu":
        return rng.integers(-4 if dtype.kind == "i" else 0, 5, shape).astype(dtype)
    if dtype.kind == "c":
        return (rng.normal(size=shape) + 1j * rng.normal(size=shape)).astype(dtype)
    return rng.normal(size=shape).astype(dtype)


# (lhs shape, rhs shape, keyword arguments): every layout, padding kind, stride, dilation and
# group count, 1-D to 3-D
CASES = [
    ((2, 3, 7, 6), (4, 3, 3, 2), dict(window_strides=(1, 1), padding="SAME")),
    ((2, 3, 7, 6), (4, 3, 3, 2), dict(window_strides=(2, 1), padding="VALID")),
    ((2, 3, 6, 5), (4, 3, 2, 2), dict(window_strides=(2, 2), padding="SAME_LOWER")),
    ((2, 3, 7, 6), (4, 3, 3, 2), dict(window_strides=(2, 1), padding=[(1, 2), (-1, 1)],
                                      lhs_dilation=(1, 2), rhs_dilation=(2, 1))),
    ((1, 2, 5, 5), (3, 2, 3, 3), dict(window_strides=(1, 1), padding=[(2, 2), (0, 0)],
                                      lhs_dilation=(2, 2))),
    ((1, 2, 9, 5), (3, 2, 2, 2), dict(window_strides=(3, 1), padding=[(-2, -1), (1, 0)])),
    ((2, 7, 6, 4), (3, 2, 4, 6), dict(window_strides=(1, 2), padding="VALID",
                                      dimension_numbers=("NHWC", "HWIO", "NHWC"))),
    ((2, 7, 6, 4), (3, 2, 2, 6), dict(window_strides=(1, 2), padding="SAME",
                                      dimension_numbers=("NHWC", "HWIO", "NCHW"),
                                      feature_group_count=2)),
    ((2, 6, 5, 4), (4, 1, 3, 3), dict(window_strides=(1, 1), padding="SAME",
                                      dimension_numbers=("NHWC", "OIHW", "NHWC"),
                                      feature_group_count=4)),   # depthwise
    ((4, 3, 8), (6, 3, 3), dict(window_strides=(2,), padding="SAME", batch_group_count=2)),
    ((2, 9, 3), (3, 3, 4), dict(window_strides=(2,), padding=[(1, 0)], rhs_dilation=(2,),
                                dimension_numbers=("NWC", "WIO", "NWC"))),
    ((2, 3, 5, 4, 4), (2, 3, 2, 2, 3), dict(window_strides=(1, 2, 1), padding="VALID")),
    ((1, 4, 5, 3, 2), (3, 2, 2, 1, 4), dict(window_strides=(1, 1, 1), padding="SAME",
                                            dimension_numbers=("NDHWC", "DHWIO", "NCDHW"),
                                            feature_group_count=2)),
    ((4, 2, 6, 5), (2, 6, 3, 2), dict(window_strides=(1, 1), padding="VALID",
                                      dimension_numbers=("CNHW", "IOWH", "HNCW"),
                                      batch_group_count=1, feature_group_count=2)),
    ((4, 2, 6, 5), (6, 2, 3, 2), dict(window_strides=(2, 1), padding=[(0, 1), (1, 1)],
                                      dimension_numbers=("NCHW", "OIHW", "NHWC"),
                                      batch_group_count=2)),
    ((2, 3), (4, 3), dict(window_strides=(), padding=[])),
]
IDS = [f"case{i}" for i in range(len(CASES))]
OPERANDS = [(arr(ls), arr(rs)) for ls, rs, _ in CASES]


@pytest.mark.parametrize("i", range(len(CASES)), ids=IDS)
def test_eager_matches_jax(i):
    (_, _, kw), (x, w) = CASES[i], OPERANDS[i]
    check(lax.conv_general_dilated(x, w, **kw), jlax.conv_general_dilated(x, w, **kw))


def test_many_convs_in_one_jit_match_jax():
    """Every case in one compiled module (one IREE compile)."""
    def fn(*ops):
        return [lax.conv_general_dilated(ops[2 * i], ops[2 * i + 1], **kw)
                for i, (_, _, kw) in enumerate(CASES)]

    flat = [a for pair in OPERANDS for a in pair]
    for i, got in enumerate(irax.jit(fn)(*flat)):
        x, w = OPERANDS[i]
        check(got, jlax.conv_general_dilated(x, w, **CASES[i][2]), msg=IDS[i])


DTYPE_CASES = [
    (np.float16, None), (BF16, None), (np.int32, None), (np.int8, None), (np.uint8, None),
    (np.bool_, None), (np.complex64, None), (np.float16, np.float32), (BF16, np.float32),
    (np.int8, np.int32), (np.int8, np.float32), (np.float32, np.float32),
]
_DT_KW = dict(window_strides=(2, 1), padding=[(1, 1), (0, 1)], rhs_dilation=(1, 2),
              dimension_numbers=("NHWC", "HWIO", "NHWC"), feature_group_count=2)
DT_OPERANDS = [(arr((2, 5, 6, 4), dt), arr((2, 2, 2, 6), dt)) for dt, _ in DTYPE_CASES]


def _dt_fn(pref):
    return lambda x, w: lax.conv_general_dilated(x, w, preferred_element_type=pref, **_DT_KW)


def test_dtypes_eager_and_jit_match_jax():
    def fn(*ops):
        return [_dt_fn(p)(ops[2 * i], ops[2 * i + 1]) for i, (_, p) in enumerate(DTYPE_CASES)]

    flat = [a for pair in DT_OPERANDS for a in pair]
    compiled, eager = irax.jit(fn)(*flat), fn(*flat)
    for i, (dt, pref) in enumerate(DTYPE_CASES):
        want = jlax.conv_general_dilated(*DT_OPERANDS[i], preferred_element_type=pref,
                                         **_DT_KW)
        check(eager[i], want, msg=f"eager {dt} {pref}")
        check(compiled[i], want, msg=f"jit {dt} {pref}")


def test_weak_types_follow_jax():
    kw = dict(window_strides=(1,), padding="VALID")
    x, w = lax.broadcast(1.5, (2, 3, 5)), lax.broadcast(2.0, (4, 3, 2))
    jx, jw = jlax.broadcast(1.5, (2, 3, 5)), jlax.broadcast(2.0, (4, 3, 2))
    check(lax.conv_general_dilated(x, w, **kw), jlax.conv_general_dilated(jx, jw, **kw))
    s = arr((4, 3, 2))
    check(lax.conv_general_dilated(x, s, **kw), jlax.conv_general_dilated(jx, s, **kw))
    check(lax.conv_general_dilated(x, w, preferred_element_type=np.float32, **kw),
          jlax.conv_general_dilated(jx, jw, preferred_element_type=np.float32, **kw))


@st.composite
def conv_problems(draw):
    n = draw(st.integers(1, 2))
    groups = draw(st.sampled_from([1, 2]))
    kind = draw(st.sampled_from(["feature", "batch"]))
    fg, bg = (groups, 1) if kind == "feature" else (1, groups)
    batch = draw(st.integers(1, 2)) * bg
    cin = draw(st.integers(1, 2)) * fg
    cout = draw(st.integers(1, 2)) * groups
    spatial = [draw(st.integers(1, 6)) for _ in range(n)]
    kernel = [draw(st.integers(1, 3)) for _ in range(n)]
    strides = tuple(draw(st.integers(1, 3)) for _ in range(n))
    lhs_dil = tuple(draw(st.integers(1, 2)) for _ in range(n))
    rhs_dil = tuple(draw(st.integers(1, 2)) for _ in range(n))
    pads = [(draw(st.integers(-1, 3)), draw(st.integers(-1, 3))) for _ in range(n)]
    layouts = {1: [("NCW", "OIW", "NCW"), ("NWC", "WIO", "NWC"), ("WCN", "IWO", "CNW")],
               2: [("NCHW", "OIHW", "NCHW"), ("NHWC", "HWIO", "NHWC"),
                   ("NHWC", "OIWH", "CHWN")]}[n]
    dn = draw(st.sampled_from(layouts))
    canon_l = {"N": batch, "C": cin}
    canon_r = {"O": cout, "I": cin // fg}
    sp_names = [c for c in dn[1] if c not in "OI"]
    for c, s, k in zip(sp_names, spatial, kernel):
        canon_l[c], canon_r[c] = s, k
    ls = tuple(canon_l[c] for c in dn[0])
    rs = tuple(canon_r[c] for c in dn[1])
    return ls, rs, dict(window_strides=strides, padding=pads, lhs_dilation=lhs_dil,
                        rhs_dilation=rhs_dil, dimension_numbers=dn, feature_group_count=fg,
                        batch_group_count=bg)


@settings(max_examples=20, deadline=None)
@given(conv_problems())
def test_hypothesis_eager_matches_jax(problem):
    ls, rs, kw = problem
    x, w = arr(ls), arr(rs)
    try:
        want = jlax.conv_general_dilated(x, w, **kw)
    except ValueError:   # negative padding larger than the input: irax must raise too
        with pytest.raises(ValueError):
            lax.conv_general_dilated(x, w, **kw)
        return
    check(lax.conv_general_dilated(x, w, **kw), want)


# ---- derivatives ------------------------------------------------------------------------

GRAD_CASES = [3, 4, 7, 8, 9, 14]


def _loss(lax_mod, np_mod, kw):
    return lambda x, w: np_mod.sum(np_mod.sin(lax_mod.conv_general_dilated(x, w, **kw)))


def test_grad_wrt_lhs_and_rhs_matches_jax_under_jit():
    """Both cotangents of every case, in one compiled module."""
    def fn(*ops):
        return [irax.grad(_loss(lax, jnp, CASES[c][2]), (0, 1))(ops[2 * k], ops[2 * k + 1])
                for k, c in enumerate(GRAD_CASES)]

    def jax_fn(*ops):   # jitted: JAX compiles every op of an eager grad on its own
        return [jax.grad(_loss(jlax, jjnp, CASES[c][2]), (0, 1))(ops[2 * k], ops[2 * k + 1])
                for k, c in enumerate(GRAD_CASES)]

    flat = [a for c in GRAD_CASES for a in OPERANDS[c]]
    wants = jax.jit(jax_fn)(*flat)
    for k, (gx, gw) in enumerate(irax.jit(fn)(*flat)):
        c = GRAD_CASES[k]
        wx, ww = wants[k]
        check(gx, wx, tol=1e-4, msg=f"lhs {IDS[c]}")
        check(gw, ww, tol=1e-4, msg=f"rhs {IDS[c]}")


@pytest.mark.parametrize("c", [3, 9, 14])
def test_grad_eager_matches_jax_and_finite_differences(c):
    x, w = (a.astype(np.float64) for a in OPERANDS[c])
    f32 = [a.astype(np.float32) for a in (x, w)]
    f = _loss(lax, jnp, CASES[c][2])
    gx, gw = irax.grad(f, (0, 1))(*f32)
    wx, ww = jax.jit(jax.grad(_loss(jlax, jjnp, CASES[c][2]), (0, 1)))(*f32)
    check(gx, wx, tol=1e-4)
    check(gw, ww, tol=1e-4)
    # central differences along one random direction per operand
    g = lambda a, b: float(np.asarray(f(a.astype(np.float32), b.astype(np.float32))))
    # directions of their own (the module's rng's state depends on which tests ran
    # before in this worker: one direction drawn that way missed by 2.8%)
    directions = np.random.default_rng(c)
    for which, grad in ((0, gx), (1, gw)):
        d = directions.normal(size=(x, w)[which].shape)
        eps = 1e-2
        plus = [x, w]
        minus = [x, w]
        plus[which] = plus[which] + eps * d
        minus[which] = minus[which] - eps * d
        fd = (g(*plus) - g(*minus)) / (2 * eps)
        np.testing.assert_allclose(np.sum(np.asarray(grad) * d), fd, rtol=2e-2, atol=2e-2)


def test_grad_complex_and_float16_eager_match_jax():
    """Complex operands (three real convolutions, as JAX's CPU lowering) and float16 with
    and without preferred_element_type."""
    kw = _DT_KW
    x, w = DT_OPERANDS[DTYPE_CASES.index((np.complex64, None))]

    def loss(m, nm, **k):
        return lambda a, b: nm.sum(nm.abs(m.conv_general_dilated(a, b, **kw, **k)) ** 2)

    want = jax.jit(jax.grad(loss(jlax, jjnp), (0, 1)))(x, w)
    for g, wt in zip(irax.grad(loss(lax, jnp), (0, 1))(x, w), want):
        check(g, wt, tol=1e-4)
    x16, w16 = DT_OPERANDS[DTYPE_CASES.index((np.float16, None))]
    for pref in (None, np.float32):
        want = jax.jit(jax.grad(loss(jlax, jjnp, preferred_element_type=pref), (0, 1)))(x16, w16)
        got = irax.grad(loss(lax, jnp, preferred_element_type=pref), (0, 1))(x16, w16)
        for g, wt in zip(got, want):
            check(g, wt, tol=3e-2)


def test_jvp_matches_jax():
    c = 7
    x, w = OPERANDS[c]
    dx, dw = arr(x.shape), arr(w.shape)
    f = lambda a, b: lax.conv_general_dilated(a, b, **CASES[c][2])
    jf = lambda a, b: jlax.conv_general_dilated(a, b, **CASES[c][2])
    out, tan = irax.jvp(f, (x, w), (dx, dw))
    wout, wtan = jax.jvp(jf, (x, w), (dx, dw))
    check(out, wout)
    check(tan, wtan, tol=1e-4)


# ---- vmap -------------------------------------------------------------------------------

VMAP_CASES = [3, 8, 9, 14]
AXES = [(0, None), (None, 0), (0, 0), (1, 2)]


def _stacked(c, axes):
    x, w = OPERANDS[c]
    xs = np.stack([x, arr(x.shape)], axis=axes[0]) if axes[0] is not None else x
    ws = np.stack([w, arr(w.shape)], axis=axes[1]) if axes[1] is not None else w
    return xs, ws


def _loop(c, axes, xs, ws):
    kw = CASES[c][2]
    outs = []
    for k in range(2):
        x = np.take(xs, k, axes[0]) if axes[0] is not None else xs
        w = np.take(ws, k, axes[1]) if axes[1] is not None else ws
        outs.append(np.asarray(jlax.conv_general_dilated(x, w, **kw)))
    return np.stack(outs)


@pytest.mark.parametrize("axes", AXES, ids=str)
def test_vmap_eager_matches_a_loop(axes):
    for c in VMAP_CASES:
        xs, ws = _stacked(c, axes)
        f = lambda x, w, c=c: lax.conv_general_dilated(x, w, **CASES[c][2])
        got = irax.vmap(f, in_axes=axes)(xs, ws)
        np.testing.assert_allclose(np.asarray(got), _loop(c, axes, xs, ws), rtol=2e-5,
                                   atol=2e-5, err_msg=f"{IDS[c]} {axes}")


def test_vmap_under_jit_matches_a_loop():
    probs = [(c, axes) for c in (8, 9) for axes in AXES] + [(3, (0, 0)), (14, (1, 2))]
    data = [_stacked(c, axes) for c, axes in probs]

    def fn(*ops):
        return [irax.vmap(lambda x, w, c=c: lax.conv_general_dilated(x, w, **CASES[c][2]),
                          in_axes=axes)(ops[2 * k], ops[2 * k + 1])
                for k, (c, axes) in enumerate(probs)]

    outs = irax.jit(fn)(*[a for pair in data for a in pair])
    for k, (c, axes) in enumerate(probs):
        np.testing.assert_allclose(np.asarray(outs[k]), _loop(c, axes, *data[k]), rtol=2e-5,
                                   atol=2e-5, err_msg=f"{IDS[c]} {axes}")


def test_grad_of_vmap_matches_jax():
    c, axes = 8, (0, 0)
    xs, ws = _stacked(c, axes)
    kw = CASES[c][2]

    def loss(mod, np_mod, vmap):
        return lambda x, w: np_mod.sum(np_mod.cos(vmap(
            lambda a, b: mod.conv_general_dilated(a, b, **kw))(x, w)))

    got = irax.grad(loss(lax, jnp, irax.vmap), (0, 1))(xs, ws)
    want = jax.jit(jax.grad(loss(jlax, jjnp, jax.vmap), (0, 1)))(xs, ws)
    for g, w in zip(got, want):
        check(g, w, tol=1e-4)


# ---- wrappers and helpers -----------------------------------------------------------------

TRANSPOSE_CASES = [
    ((2, 5, 4, 3), (3, 3, 3, 2), dict(strides=(2, 2), padding="SAME")),
    ((2, 5, 4, 3), (3, 2, 2, 3), dict(strides=(2, 1), padding="VALID", transpose_kernel=True)),
    ((2, 5, 4, 3), (2, 2, 3, 4), dict(strides=(3, 2), padding=[(1, 2), (0, 1)],
                                      rhs_dilation=(1, 2))),
    ((2, 5, 4, 3), (3, 3, 3, 2), dict(strides=(2, 2), padding=[(1, 1), (0, 1)],
                                      use_consistent_padding=True)),
    ((1, 3, 6), (3, 2, 3), dict(strides=(2,), padding="SAME",
                                dimension_numbers=("NCH", "OIH", "NCH"), transpose_kernel=True)),
    ((1, 3, 4, 3, 2), (2, 2, 2, 2, 4), dict(strides=(1, 2, 2), padding="VALID")),
]


def test_conv_transpose_matches_jax_eager_and_jit():
    data = [(arr(ls), arr(rs)) for ls, rs, _ in TRANSPOSE_CASES]

    def fn(*ops):
        return [lax.conv_transpose(ops[2 * i], ops[2 * i + 1], **kw)
                for i, (_, _, kw) in enumerate(TRANSPOSE_CASES)]

    flat = [a for pair in data for a in pair]
    compiled, eager = irax.jit(fn)(*flat), fn(*flat)
    for i, (_, _, kw) in enumerate(TRANSPOSE_CASES):
        want = jlax.conv_transpose(*data[i], **kw)
        check(eager[i], want, msg=f"eager {i}")
        check(compiled[i], want, msg=f"jit {i}")


def test_conv_and_conv_with_general_padding_match_jax():
    x, w = arr((2, 3, 6, 5)), arr((4, 3, 3, 2))
    check(lax.conv(x, w, (1, 2), "SAME"), jlax.conv(x, w, (1, 2), "SAME"))
    args = ((2, 1), [(1, 0), (2, 1)], (2, 1), (1, 2))
    check(lax.conv_with_general_padding(x, w, *args),
          jlax.conv_with_general_padding(x, w, *args))


PATCH_CASES = [
    ((2, 3, 6, 5), dict(filter_shape=(2, 3), window_strides=(1, 2), padding="SAME")),
    ((2, 6, 5, 3), dict(filter_shape=(3, 2), window_strides=(2, 1), padding=[(1, 0), (0, 1)],
                        rhs_dilation=(1, 2), dimension_numbers=("NHWC", "OIHW", "NCHW"))),
    ((2, 2, 7), dict(filter_shape=(3,), window_strides=(2,), padding="VALID")),
]


def test_conv_general_dilated_patches_matches_jax():
    for shape, kw in PATCH_CASES:
        x = arr(shape)
        want = jax.jit(lambda a, kw=kw: jlax.conv_general_dilated_patches(a, **kw))(x)
        check(lax.conv_general_dilated_patches(x, **kw), want, msg=str(kw))


def test_conv_general_dilated_local_matches_jax():
    x = arr((2, 3, 6, 5))
    kw = dict(window_strides=(1, 2), padding="SAME", filter_shape=(2, 3))
    out = jlax.conv_general_shape_tuple(x.shape, (1, 1, 2, 3), (1, 2), "SAME",
                                        ("NCHW", "OIHW", "NCHW"))
    w = arr((3 * 6, out[2], out[3], 4))                     # I*window, H, W, O
    w = np.moveaxis(w, (0, 3), (1, 0))                      # O I H W
    local = jax.jit(lambda a, b, **k: jlax.conv_general_dilated_local(a, b, **k, **kw),
                    static_argnames="dimension_numbers")
    check(lax.conv_general_dilated_local(x, w, **kw), local(x, w), tol=1e-4)
    dn = ("NHWC", "HWIO", "NHWC")
    xh = np.transpose(x, (0, 2, 3, 1))
    wh = np.transpose(w, (2, 3, 1, 0))
    check(lax.conv_general_dilated_local(xh, wh, dimension_numbers=dn, **kw),
          local(xh, wh, dimension_numbers=dn), tol=1e-4)


def test_shape_helpers_match_jax():
    dn = ("NHWC", "HWIO", "NCHW")
    assert lax.conv_general_permutations(dn) == jlax.conv_general_permutations(dn)
    specs = ((0, 1, 2, 3), (3, 2, 0, 1), (0, 3, 1, 2))
    for d, jd in ((None, None), (dn, dn), (("NCHW", "OIHW", "NCHW"),) * 2,
                  (lax.ConvDimensionNumbers(*specs), jlax.ConvDimensionNumbers(*specs))):
        got = lax.conv_dimension_numbers((2, 5, 6, 3), (3, 3, 3, 4), d)
        want = jlax.conv_dimension_numbers((2, 5, 6, 3), (3, 3, 3, 4), jd)
        assert tuple(map(tuple, got)) == tuple(map(tuple, want))
        assert isinstance(got, lax.ConvDimensionNumbers)
    for pads in ("SAME", "VALID", [(1, 2), (0, 1)]):
        assert lax.conv_shape_tuple((2, 3, 9, 8), (4, 3, 3, 2), (2, 3), pads) == \
            jlax.conv_shape_tuple((2, 3, 9, 8), (4, 3, 3, 2), (2, 3), pads)
        assert lax.conv_general_shape_tuple((2, 9, 8, 3), (3, 2, 3, 4), (2, 3), pads, dn) == \
            jlax.conv_general_shape_tuple((2, 9, 8, 3), (3, 2, 3, 4), (2, 3), pads, dn)
        assert lax.conv_transpose_shape_tuple((2, 9, 8, 3), (3, 2, 3, 4), (2, 3), pads, dn) \
            == jlax.conv_transpose_shape_tuple((2, 9, 8, 3), (3, 2, 3, 4), (2, 3), pads, dn)
    assert lax.conv_shape_tuple((4, 3, 9), (6, 3, 2), (1,), "SAME", 2) == \
        jlax.conv_shape_tuple((4, 3, 9), (6, 3, 2), (1,), "SAME", 2)


# ---- errors -----------------------------------------------------------------------------

X, W = arr((1, 2, 5, 5)), arr((3, 2, 2, 2))
ERROR_CASES = [
    (X, arr((3, 3, 2, 2)), dict(window_strides=(1, 1), padding="VALID")),
    (X, W, dict(window_strides=(1,), padding="VALID")),
    (X, W, dict(window_strides=(1, 1), padding="FOO")),
    (X, W, dict(window_strides=(1, 1), padding=[(1, 1)])),
    (X, W, dict(window_strides=(1, 1), padding=[(1, 1), (1, 1)], rhs_dilation=(0, 1))),
    (X, W, dict(window_strides=(1, 1), padding="SAME", lhs_dilation=(2, 2))),
    (X, W, dict(window_strides=(1, 1), padding="VALID", feature_group_count=2)),
    (X, W, dict(window_strides=(1, 1), padding="VALID", feature_group_count=0)),
    (arr((1, 4, 5, 5)), W, dict(window_strides=(1, 1), padding="VALID",
                                feature_group_count=2)),
    (X, W, dict(window_strides=(1, 1), padding="VALID", batch_group_count=2)),
    (arr((2, 2, 5, 5)), arr((4, 2, 2, 2)), dict(window_strides=(1, 1), padding="VALID",
                                                 batch_group_count=3)),
    (arr((2, 4, 5, 5)), arr((4, 2, 2, 2)), dict(window_strides=(1, 1), padding="VALID",
                                                 batch_group_count=2, feature_group_count=2)),
    (X, W, dict(window_strides=(1, 1), padding=[(-6, 0), (0, 0)])),
    (X, W, dict(window_strides=(1, 1), padding=[(1, 2, 3), (0, 0)])),
    (X, W[..., None], dict(window_strides=(1, 1), padding="VALID")),
    (X, W, dict(window_strides=(1, 1), padding="VALID", dimension_numbers=("NCHW", "OIHW"))),
    (X, W, dict(window_strides=(1, 1), padding="VALID",
                dimension_numbers=("NCHW", "OIHW", "NCH"))),
    (X, W, dict(window_strides=(1, 1), padding="VALID",
                dimension_numbers=("NCHW", "OIHW", "NCHH"))),
    (X, W, dict(window_strides=(1, 1), padding="VALID",
                dimension_numbers=("NCHW", "OIHX", "NCHW"))),
    (X, W, dict(window_strides=(1, 1), padding="VALID",
                dimension_numbers=("NCHW", "OOHW", "NCHW"))),
    (X, W.astype(np.float16), dict(window_strides=(1, 1), padding="VALID")),
    (X, W, dict(window_strides=(1, 1), padding="VALID", preferred_element_type=np.float16)),
    (X, W, dict(window_strides=(1, 1), padding="VALID", preferred_element_type=np.int32)),
    (X.astype(np.int8), W.astype(np.int8), dict(window_strides=(1, 1), padding="VALID",
                                                preferred_element_type=np.uint32)),
]


@pytest.mark.parametrize("i", range(len(ERROR_CASES)))
def test_errors_match_jax(i):
    x, w, kw = ERROR_CASES[i]
    with pytest.raises(Exception) as want:
        jlax.conv_general_dilated(x, w, **kw)
    with pytest.raises(type(want.value)) as got:
        lax.conv_general_dilated(x, w, **kw)
    # JAX prints some sizes as NumPy scalars: np.int64(5)
    assert str(got.value) == re.sub(r"np\.int64\((-?\d+)\)", r"\1", str(want.value))
