"""Export a trained model's predict function, then run the file where only the IREE
runtime is installed (docs/deploy.md).

    python examples/deploy.py

Step 1 (here, with the compiler): train a little, export predict for the portable "cpu"
target and save it as one .vmfb. Step 2 (a fresh process in which `iree.compiler` cannot
be imported): load the file with irax.aot and predict. The example checks that both
processes agree.
"""

import os
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
    here = np.asarray(irax.jit(predict)(params, x[:8]))
    np.testing.assert_allclose(on_device, here, rtol=1e-5, atol=1e-6)
    print(f"the deployed predictions match: max difference {np.abs(on_device - here).max():.2e}")


if __name__ == "__main__":
    main()
