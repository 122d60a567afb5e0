"""irax.export with symbolic shapes: one artifact runs every batch size, from the AOT
loader (in a process without the compiler) and under iree-run-module."""

import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import irax
import irax.numpy as jnp
from irax import nn

BIN = Path(sys.executable).parent


def _predict(params, x):
    h = jnp.maximum(x @ params["w1"] + params["b1"], 0.0)
    return {"logp": nn.log_softmax(h @ params["w2"]), "mean": jnp.mean(h, axis=0)}


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    r = np.random.default_rng(5)
    params = {"w1": r.normal(size=(784, 32)).astype(np.float32) * 0.05,
              "b1": r.normal(size=(32,)).astype(np.float32) * 0.1,
              "w2": r.normal(size=(32, 10)).astype(np.float32) * 0.1}
    spec = irax.ShapeDtypeStruct(irax.export.symbolic_shape("batch, 784"), np.float32)
    exp = irax.export.export(irax.jit(_predict))(params, spec)
    path = tmp_path_factory.mktemp("poly") / "predict.vmfb"
    exp.save(path)
    return exp, params, path


def test_one_symbolic_artifact_runs_every_batch_size_without_the_compiler(exported, tmp_path):
    exp, params, path = exported
    assert [a.str_short() for a in exp.in_avals][-1] == "float32[batch,784]"
    assert "tensor<?x784xf32>" in exp.mlir_module()
    r = np.random.default_rng(6)
    xs = {n: r.normal(size=(n, 784)).astype(np.float32) for n in (1, 7, 1000)}
    np.savez(tmp_path / "in.npz", **params, **{f"x{n}": x for n, x in xs.items()})
    script = textwrap.dedent(f"""
        import sys
        class _Block:
            def find_spec(self, name, path=None, target=None):
                if name == "iree.compiler" or name.startswith("iree.compiler."):
                    raise ImportError("blocked: " + name)
        sys.meta_path.insert(0, _Block())
        import numpy as np
        import irax
        d = np.load({str(tmp_path / 'in.npz')!r})
        params = {{k: d[k] for k in ("w1", "b1", "w2")}}
        f = irax.aot.load({str(path)!r})
        out = {{}}
        for n in (1, 7, 1000):
            r = f(params, d[f"x{{n}}"])
            out[f"logp{{n}}"], out[f"mean{{n}}"] = r["logp"], r["mean"]
        np.savez({str(tmp_path / 'out.npz')!r}, **out)
        assert "iree.compiler" not in sys.modules
    """)
    subprocess.run([sys.executable, "-c", script], check=True, timeout=300)
    got = np.load(tmp_path / "out.npz")
    for n, x in xs.items():
        want = irax.jit(_predict)(params, x)
        assert got[f"logp{n}"].shape == (n, 10)
        np.testing.assert_allclose(got[f"logp{n}"], want["logp"], rtol=2e-5, atol=2e-5)
        np.testing.assert_allclose(got[f"mean{n}"], want["mean"], rtol=2e-5, atol=2e-6)


def test_the_loader_checks_sizes_against_the_symbolic_signature(exported):
    exp, params, path = exported
    f = irax.aot.load(path)
    with pytest.raises(TypeError, match=r"argument args\[1\] expected float32\[batch,784\], "
                                        r"got float32\[3,785\]"):
        f(params, np.ones((3, 785), np.float32))


def test_two_arguments_sharing_a_name_must_agree():
    spec = irax.ShapeDtypeStruct(("n", 3), np.float32)
    exp = irax.export.export(lambda a, b: a * b)(spec, spec)
    assert np.asarray(exp.call(np.ones((4, 3), np.float32), np.full((4, 3), 2.0,
                                                                   np.float32))).shape == (4, 3)
    f = irax.export.deserialize(exp.serialize())
    with pytest.raises(TypeError, match=r"the dimension 'n' is 4 at argument args\[0\] axis 0 "
                                        r"but 5 at argument args\[1\] axis 0"):
        f(np.ones((4, 3), np.float32), np.ones((5, 3), np.float32))


@pytest.mark.skipif(shutil.which("iree-run-module", path=str(BIN)) is None,
                    reason="iree-run-module is not installed")
def test_the_symbolic_artifact_runs_under_iree_run_module_at_two_sizes(exported, tmp_path):
    exp, params, path = exported
    r = np.random.default_rng(7)
    flat = irax.tree.leaves(params)
    for n in (3, 50):
        x = r.normal(size=(n, 784)).astype(np.float32)
        inputs = []
        for i, a in enumerate([*flat, x]):
            np.save(tmp_path / f"in{i}.npy", a)
            inputs.append(f"--input=@{tmp_path / f'in{i}.npy'}")
        subprocess.run([str(BIN / "iree-run-module"), "--device=local-task", f"--module={path}",
                        "--function=main", *inputs, f"--output=@{tmp_path / 'o0.npy'}",
                        f"--output=@{tmp_path / 'o1.npy'}"], check=True, timeout=120,
                       capture_output=True)
        want = irax.tree.leaves(irax.jit(_predict)(params, x))
        for i, w in enumerate(want):
            got = np.load(tmp_path / f"o{i}.npy")
            assert got.shape == np.shape(w)
            np.testing.assert_allclose(got, w, rtol=2e-5, atol=2e-5)
