"""irax.ir: load StableHLO or irax IR, transform its entry function, run it."""

import numpy as np
import pytest
import stablehlo_programs as programs

import irax
from irax.errors import IRError


@pytest.fixture(scope="module")
def mlp():
    return irax.ir.load(programs.DATA)


def test_load_raises_and_runs(mlp):
    args = programs.mlp_args()
    assert mlp.entry == "main" and mlp.functions == ["main"]
    assert [a.shape for a in mlp.signature()[0]] == programs.SHAPES
    assert "stablehlo." not in mlp.text and '"irax.tanh"' in mlp.text
    assert mlp.as_text("input") == programs.committed_mlp_text()
    lowered = mlp.as_text("stablehlo")
    assert "irax." not in lowered and "stablehlo.tanh" in lowered
    loss, _ = programs.mlp_reference(args)
    np.testing.assert_allclose(float(mlp(*args)), loss, rtol=1e-5)
    np.testing.assert_allclose(float(mlp.call("main", *args)), loss, rtol=1e-5)


def test_transform_grad(mlp):
    g = irax.ir.transform(mlp, "grad", argnums=(0, 1, 2, 3))
    ins, outs = g.signature()
    assert [a.shape for a in outs] == programs.SHAPES[:4]
    assert "irax.grad" in g.as_text("input") and "irax.grad" not in g.text
    args = programs.mlp_args()
    _, want = programs.mlp_reference(args)
    for got, w in zip(g(*args), want, strict=True):
        np.testing.assert_allclose(np.asarray(got), w, rtol=1e-5, atol=1e-7)


def test_transform_signatures(mlp):
    """Each transformation's entry signature follows its op's rule (no compilation)."""
    shapes = programs.SHAPES
    vg = irax.ir.transform(mlp, "value_and_grad", argnums=2)
    assert [a.shape for a in vg.signature()[1]] == [(), shapes[2]]
    jvp = irax.ir.transform(mlp, "jvp")
    assert [a.shape for a in jvp.signature()[0]] == shapes + shapes
    assert [a.shape for a in jvp.signature()[1]] == [(), ()]
    vjp = irax.ir.transform(mlp, "vjp")
    assert [a.shape for a in vjp.signature()[0]] == [*shapes, ()]
    assert [a.shape for a in vjp.signature()[1]] == [(), *shapes]
    # composition: the gradient of a transformed module
    gg = irax.ir.transform(irax.ir.transform(mlp, "value_and_grad"), "jvp")
    assert len(gg.signature()[0]) == 12


def test_transform_jvp_runs(mlp):
    jvp = irax.ir.transform(programs.committed_mlp_text(), "jvp")
    args = programs.mlp_args()
    tangents = [np.ones_like(a) for a in args]
    value, tangent = jvp(*args, *tangents)
    loss, grads = programs.mlp_reference(args)
    # <grad, t> over the parameters plus the (numerical) directional derivative in x, y
    eps = 1e-3
    plus = programs.mlp_reference([a + eps * t for a, t in zip(args, tangents)])[0]
    minus = programs.mlp_reference([a - eps * t for a, t in zip(args, tangents)])[0]
    np.testing.assert_allclose(float(value), loss, rtol=1e-5)
    np.testing.assert_allclose(float(tangent), (plus - minus) / (2 * eps), rtol=1e-4)


_ELEMENTWISE = """
func.func @main(%x: tensor<3xf32>, %s: tensor<3xf32>) -> tensor<3xf32> {
  %0 = "irax.tanh"(%x) : (tensor<3xf32>) -> tensor<3xf32>
  %1 = "irax.mul"(%0, %s) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %1 : tensor<3xf32>
}
"""


def _vmap_or_skip():
    from irax.dialect.base import by_method

    if by_method("vmap") is None:
        pytest.skip("irax.vmap does not exist yet (python/irax/dialect/transform.py)")


def test_transform_vmap_irax_ir():
    _vmap_or_skip()
    vm = irax.ir.transform(_ELEMENTWISE, "vmap", in_axes=(0, None), axis_size=4)
    ins, outs = vm.signature()
    assert [a.shape for a in ins] == [(4, 3), (3,)] and outs[0].shape == (4, 3)
    xs = np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3)
    s = np.array([1, 2, 3], np.float32)
    np.testing.assert_allclose(np.asarray(vm(xs, s)), np.tanh(xs) * s, rtol=1e-6)


def test_transform_vmap_of_jax_mlp(mlp):
    _vmap_or_skip()
    try:
        vm = irax.ir.transform(mlp, "vmap", in_axes=(None, None, None, None, 0, 0),
                                axis_size=5)
    except IRError as e:
        if "has no batching rule" in str(e):
            pytest.skip(f"a batching rule is missing: {e}")
        raise
    args = programs.mlp_args()
    rng = np.random.default_rng(2)
    xs = rng.standard_normal((5, 8, 3)).astype(np.float32)
    ys = rng.standard_normal((5, 8, 2)).astype(np.float32)
    want = [programs.mlp_reference([*args[:4], x, y])[0] for x, y in zip(xs, ys)]
    np.testing.assert_allclose(np.asarray(vm(*args[:4], xs, ys)), want, rtol=1e-5)


# ---- errors ---------------------------------------------------------------------------------
def test_errors(mlp, tmp_path):
    with pytest.raises(IRError, match=r"<string>:2:.*: error: "):
        irax.ir.load("func.func @f() {\n  %0 = nonsense\n}")
    bad = tmp_path / "loop.mlir"
    bad.write_text("func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {\n"
                   "  %0 = \"stablehlo.sort\"(%x) <{dimension = 0 : i64}> ({\n"
                   "  ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n"
                   "    %p = stablehlo.compare LT, %a, %b : (tensor<f32>, tensor<f32>) -> "
                   "tensor<i1>\n    stablehlo.return %p : tensor<i1>\n"
                   "  }) : (tensor<3xf32>) -> tensor<3xf32>\n  return %0 : tensor<3xf32>\n}\n")
    with pytest.raises(IRError, match=rf"{bad}:2:8: error: irax-raise-stablehlo: "
                                      r"'stablehlo.sort' is not supported yet"):
        irax.ir.load(bad)
    with pytest.raises(FileNotFoundError, match="could not open"):
        irax.ir.load(str(tmp_path / "missing.mlir"))
    with pytest.raises(ValueError, match="unknown transformation 'hessian'"):
        irax.ir.transform(mlp, "hessian")
    with pytest.raises(IRError, match=r"'irax.grad' op argnum 7 is out of range"):
        irax.ir.transform(mlp, "grad", argnums=7)
    with pytest.raises(ValueError, match="no public function @nope"):
        mlp.call("nope")
    with pytest.raises(TypeError, match=r"takes 6 arguments, but got 1"):
        mlp(np.zeros(3))
    with pytest.raises(TypeError, match=r"argument 0 of @main must be float32\[3,16\]"):
        mlp(*[np.zeros((2, 2))] * 6)
    with pytest.raises(ValueError, match="vmap needs axis_size"):
        irax.ir.transform(mlp, "vmap")
    with pytest.raises(ValueError, match="unknown stage"):
        mlp.as_text("llvm")
