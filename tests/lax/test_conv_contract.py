"""Convolutions lowered as slices and one matrix product (``dialect/conv_contract.py``):
im2col for few window positions, stacked input windows for few output positions (a
kernel's gradient). Against jax.lax in every layout, stride, kernel dilation and padding
(negative too), in 1, 2 and 3 spatial dimensions, forward and both gradients, under jit
and vmap; the convolutions it does not take keep ``stablehlo.convolution``."""

import numpy as np
import pytest

import irax
import irax.lax as lax
import irax.numpy as jnp
from irax.config import config

jax = pytest.importorskip("jax")

rng = np.random.default_rng(5)

# (lhs shape, rhs shape, dimension numbers, strides, padding, rhs dilation)
CASES = [
    ((8, 12, 12, 6), (3, 3, 6, 5), ("NHWC", "HWIO", "NHWC"), (1, 1), "SAME", (1, 1)),
    ((16, 6, 17, 16), (5, 6, 3, 2), ("NCHW", "OIHW", "NCHW"), (2, 1), "VALID", (1, 2)),
    ((96, 41, 4), (3, 4, 7), ("NWC", "WIO", "NWC"), (2,), [(2, -1)], (2,)),
    ((8, 5, 6, 7, 4), (2, 3, 2, 4, 4), ("NDHWC", "DHWIO", "NDHWC"), (1, 2, 1), "SAME",
     (1, 1, 2)),
    ((16, 7, 7, 5), (3, 3, 5, 6), ("NHWC", "HWIO", "NCHW"), (1, 1), [(1, 0), (0, 2)], (1, 1)),
]


def _args(lhs, rhs):
    return (rng.standard_normal(lhs).astype(np.float32),
            rng.standard_normal(rhs).astype(np.float32))


def _conv(mod, dn, strides, padding, dil):
    return lambda x, k: mod.lax.conv_general_dilated(x, k, strides, padding,
                                                     rhs_dilation=dil, dimension_numbers=dn)


@pytest.mark.parametrize("case", range(len(CASES)))
def test_forward_and_gradients_match_jax(case):
    lhs, rhs, dn, strides, padding, dil = CASES[case]
    x, k = _args(lhs, rhs)
    f, jf = _conv(irax, dn, strides, padding, dil), _conv(jax, dn, strides, padding, dil)
    text = irax.jit(f).lower(x, k).as_text("iree")
    assert "stablehlo.convolution" not in text and "stablehlo.dot_general" in text

    def loss(m, conv):
        return lambda x, k: m.numpy.sum(conv(x, k) ** 2)

    g = irax.jit(irax.grad(loss(irax, f), argnums=(0, 1)))
    jg = jax.grad(loss(jax, jf), argnums=(0, 1))
    got, want = [irax.jit(f)(x, k), *g(x, k)], [jf(x, k), *jg(x, k)]
    for name, a, b in zip(("conv", "d lhs", "d rhs"), got, want):
        b = np.asarray(b)
        np.testing.assert_allclose(np.asarray(a), b, rtol=1e-4,
                                   atol=1e-4 * max(1.0, float(np.abs(b).max())), err_msg=name)


def test_the_kernel_gradient_takes_stacked_windows():
    """A kernel's gradient: its output (the kernel's 3x3 window) is smaller than its
    window (the output gradient's 14x14): a product over stacked input windows."""
    x, k = _args((4, 14, 14, 8), (3, 3, 8, 16))
    dn = ("NHWC", "HWIO", "NHWC")
    gk = irax.grad(lambda x, k: jnp.sum(_conv(irax, dn, (1, 1), "SAME", (1, 1))(x, k) ** 2),
                   argnums=1)
    text = irax.jit(gk).lower(x, k).as_text("iree")
    assert "stablehlo.convolution" not in text
    want = jax.grad(lambda x, k: jax.numpy.sum(
        _conv(jax, dn, (1, 1), "SAME", (1, 1))(x, k) ** 2), argnums=1)(x, k)
    np.testing.assert_allclose(np.asarray(irax.jit(gk)(x, k)), np.asarray(want), rtol=1e-4,
                               atol=1e-3)


def test_vmap_matches_a_python_loop():
    lhs, rhs, dn, strides, padding, dil = CASES[0]
    xs = rng.standard_normal((3, *lhs)).astype(np.float32)
    k = rng.standard_normal(rhs).astype(np.float32)
    f = _conv(irax, dn, strides, padding, dil)
    got = irax.jit(irax.vmap(f, in_axes=(0, None)))(xs, k)
    for i in range(3):
        np.testing.assert_allclose(np.asarray(got[i]), np.asarray(irax.jit(f)(xs[i], k)),
                                   rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("what", ["one input channel", "groups", "lhs dilation", "int32",
                                  "switched off", "small"])
def test_other_convolutions_stay_convolutions(what):
    x, k = _args((8, 8, 8, 6), (3, 3, 6, 6))
    dn = ("NHWC", "HWIO", "NHWC")
    kw = {}
    if what == "one input channel":
        x, k = _args((64, 8, 8, 1), (3, 3, 1, 6))
    elif what == "small":
        x, k = _args((1, 8, 8, 6), (3, 3, 6, 6))
    elif what == "groups":
        k = k[:, :, :3]
        kw["feature_group_count"] = 2
    elif what == "lhs dilation":
        kw["lhs_dilation"] = (2, 2)
    elif what == "int32":
        x, k = x.astype(np.int32), k.astype(np.int32)
    pad = [(1, 1), (1, 1)]
    f = lambda x, k: lax.conv_general_dilated(x, k, (1, 1), pad, dimension_numbers=dn,  # noqa: E731
                                              **kw)
    old = config.irax_conv_as_matmul
    config.update("irax_conv_as_matmul", what != "switched off")
    try:
        assert "stablehlo.convolution" in irax.jit(f).lower(x, k).as_text("iree")
        want = jax.lax.conv_general_dilated(x, k, (1, 1), pad, dimension_numbers=dn, **kw)
        np.testing.assert_allclose(np.asarray(irax.jit(f)(x, k)), np.asarray(want),
                                   rtol=1e-5, atol=1e-4)
    finally:
        config.update("irax_conv_as_matmul", old)
