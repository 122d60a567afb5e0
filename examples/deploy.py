"""Export a trained model's predict function, then run the file where only the IREE
runtime is installed (docs/deploy.md).

    python examples/deploy.py

Step 1 (here, with the compiler): train a little, export predict for the portable "cpu"
target and save it as one .vmfb. Step 2 (a fresh process in which `iree.compiler` cannot
be imported): load the file with irax.aot and predict. Step 3: run the same file with
IREE's `iree-run-module` tool (no Python), inputs and output as .npy files. The example
checks that all three agree.
"""

import os
import shutil
import subprocess
import sys
import tempfile
import textwrap

import numpy as np

import irax
import irax.numpy as jnp


def predict(params, x):
    h = jnp.tanh(x @ params["w1"] + params["b1"])
    return h @ params["w2"]


def loss(params, x, y):
    return jnp.mean((predict(params, x) - y) ** 2)


@irax.jit
def step(params, x, y):
    g = irax.grad(loss)(params, x, y)
    return irax.tree.map(lambda p, d: p - 0.1 * d, params, g)


def main() -> None:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 4)).astype(np.float32)
    y = np.sin(x.sum(axis=1, keepdims=True)).astype(np.float32)
    params = {"w1": rng.standard_normal((4, 16)).astype(np.float32) * 0.5,
              "b1": np.zeros(16, np.float32),
              "w2": rng.standard_normal((16, 1)).astype(np.float32) * 0.5}
    for _ in range(50):
        params = step(params, x, y)
    print(f"trained: loss {float(loss(params, x, y)):.4f}")

    exported = irax.export.export(irax.jit(predict))(
        params, irax.ShapeDtypeStruct((8, 4), np.float32))
    print(exported)
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "predict.vmfb")
        exported.save(path)
        np.savez(os.path.join(d, "inputs.npz"), x=x[:8], **params)
        deploy = textwrap.dedent(f"""
            import sys
            class NoCompiler:
                def find_spec(self, name, path=None, target=None):
                    if name.startswith("iree.compiler"):
                        raise ImportError("the device has no compiler: " + name)
            sys.meta_path.insert(0, NoCompiler())
            import numpy as np
            import irax
            d = np.load({os.path.join(d, 'inputs.npz')!r})
            f = irax.aot.load({path!r})
            out = f({{k: d[k] for k in ("w1", "b1", "w2")}}, d["x"])
            np.save({os.path.join(d, 'out.npy')!r}, np.asarray(out))
            print("device:", f)
        """)
        subprocess.run([sys.executable, "-c", deploy], check=True)
        on_device = np.load(os.path.join(d, "out.npy"))

        # Step 3: no Python at all: IREE's own command-line runner, the arguments flattened
        # in pytree order (dict keys sorted: b1, w1, w2, then x)
        tool = shutil.which("iree-run-module") or os.path.join(
            os.path.dirname(sys.executable), "iree-run-module")
        inputs = []
        for i, leaf in enumerate(irax.tree.leaves((params, x[:8]))):
            inputs.append(os.path.join(d, f"arg{i}.npy"))
            np.save(inputs[-1], np.asarray(leaf))
        cmd = [tool, "--device=local-sync", f"--module={path}", "--function=main",
               *[f"--input=@{p}" for p in inputs], f"--output=@{os.path.join(d, 'cli.npy')}"]
        print("$", " ".join(os.path.basename(c) if c == tool else c for c in cmd))
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        from_cli = np.load(os.path.join(d, "cli.npy"))
    here = np.asarray(irax.jit(predict)(params, x[:8]))
    np.testing.assert_allclose(on_device, here, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(from_cli, here, rtol=1e-5, atol=1e-6)
    print(f"the deployed predictions match: max difference {np.abs(on_device - here).max():.2e}"
          f" (irax.aot.load), {np.abs(from_cli - here).max():.2e} (iree-run-module)")


if __name__ == "__main__":
    main()
