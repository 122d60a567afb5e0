"""irax-compile: a Python function or an MLIR file to a .vmfb that irax.aot.load runs; the
iree-run-module command line it prints; one-line errors (exit code 1) for bad input."""

import textwrap

import numpy as np
import pytest

import irax
from irax.cli.compile import main


@pytest.fixture
def model(tmp_path):
    path = tmp_path / "model.py"
    path.write_text(textwrap.dedent("""
        import irax.numpy as jnp

        def predict(w, x):
            return jnp.tanh(x @ w)
    """))
    return path


def test_a_python_function_compiles_and_loads(model, tmp_path, capsys):
    out = tmp_path / "predict.vmfb"
    assert main([f"{model}:predict", "--arg", "f32[4,2]", "--arg", "f32[3,4]",
                 "-o", str(out)]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert printed[0] == (f"irax-compile: wrote {out} for cpu: "
                          "main(float32[4,2], float32[3,4]) -> (float32[3,2])")
    assert printed[1] == (f"run it with: iree-run-module --device=local-task --module={out} "
                          "--function=main --input=@arg0.npy --input=@arg1.npy "
                          "--output=@out0.npy")
    w = np.ones((4, 2), np.float32) * 0.1
    x = np.arange(12, dtype=np.float32).reshape(3, 4) / 10
    np.testing.assert_allclose(irax.aot.load(out)(w, x), np.tanh(x @ w), rtol=1e-5)


def test_a_named_size_makes_one_artifact_for_every_size(model, tmp_path, capsys):
    out = tmp_path / "predict.vmfb"
    assert main([f"{model}:predict", "--arg", "f32[4,2]", "--arg", "f32[batch,4]",
                 "-o", str(out)]) == 0
    assert capsys.readouterr().out.splitlines()[0].endswith(
        "main(float32[4,2], float32[batch,4]) -> (float32[batch,2])")
    f = irax.aot.load(out)
    w = np.ones((4, 2), np.float32) * 0.1
    for n in (1, 5):
        x = np.arange(4 * n, dtype=np.float32).reshape(n, 4) / 10
        np.testing.assert_allclose(f(w, x), np.tanh(x @ w), rtol=1e-5)


def test_an_mlir_file_compiles_and_loads(tmp_path, capsys):
    src = tmp_path / "add.mlir"
    src.write_text("func.func @main(%a: tensor<3xf32>, %b: tensor<3xi32>) -> tensor<3xf32> {\n"
                   "  %0 = stablehlo.convert %b : (tensor<3xi32>) -> tensor<3xf32>\n"
                   "  %1 = stablehlo.add %a, %0 : tensor<3xf32>\n"
                   "  return %1 : tensor<3xf32>\n}\n")
    out = tmp_path / "add.vmfb"
    assert main([str(src), "-o", str(out)]) == 0
    f = irax.aot.load(out)
    np.testing.assert_array_equal(f(np.ones(3, np.float32), np.arange(3, dtype=np.int32)),
                                  [1, 2, 3])
    assert main(["--list-targets"]) == 0
    assert "aarch64" in capsys.readouterr().out


@pytest.mark.parametrize("argv,message", [
    (["{model}:predict", "--arg", "f32[4,-1]"], "bad --arg 'f32[4,-1]': expected dtype[dims]"),
    (["{model}:predict", "--arg", "f32[4,2x]"],
     "bad --arg 'f32[4,2x]': a size is a number or a name"),
    (["{model}:predict", "--arg", "q8[4]"], "bad --arg 'q8[4]': unknown dtype 'q8'"),
    (["{model}:nope"], "has no function 'nope'"),
    (["missing.py:f"], "no such file: missing.py"),
    (["{model}"], "expected FILE.py:FUNCTION or FILE.mlir"),
    (["{model}:predict", "--target", "arm"], "unknown target 'arm'"),
    (["{model}:predict", "--arg", "f32[4,2]", "--arg", "f32[3,5]"],
     "dot_general requires contracting dimensions to have the same shape"),
])
def test_bad_input_is_one_line_and_exit_code_1(argv, message, model, tmp_path, capsys):
    argv = [a.replace("{model}", str(model)) for a in argv] + ["-o", str(tmp_path / "o.vmfb")]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("irax-compile: error: ") and message in err
    assert "Traceback" not in err


def test_the_installed_console_script(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    script = Path(sys.executable).parent / "irax-compile"
    if not script.exists():
        pytest.skip("irax-compile is not installed in this environment")
    ok = subprocess.run([str(script), "--list-targets"], capture_output=True, text=True,
                        timeout=300)
    assert ok.returncode == 0 and "cuda:sm_90" in ok.stdout
    bad = subprocess.run([str(script), "nowhere.py:f", "-o", str(tmp_path / "x.vmfb")],
                         capture_output=True, text=True, timeout=300)
    assert bad.returncode == 1
    assert bad.stderr == "irax-compile: error: no such file: nowhere.py\n"
