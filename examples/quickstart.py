"""irax quick start: NumPy-style code, compiled by IREE through irax's own MLIR dialect,
and the transformations a JAX user composes: jit, grad, vmap, pmap.

    python examples/quickstart.py
"""

import time

import numpy as np

import irax
import irax.numpy as jnp
from irax import lax

irax.config.update("jax_num_cpu_devices", 2)     # for pmap: before the first use of a device


def predict(w, b, x):
    return jnp.tanh(x @ w + b)


def main() -> None:
    rng = np.random.default_rng(0)
    w = rng.standard_normal((4, 3)).astype(np.float32)
    b = rng.standard_normal(3).astype(np.float32)
    x = rng.standard_normal((5, 4)).astype(np.float32)

    print("eager (reference interpreter on NumPy):")
    print(predict(w, b, x))

    fast = irax.jit(predict)
    lowered = fast.lower(w, b, x)
    print("\nthe traced program in the irax dialect:")
    print(lowered.as_text("irax"))
    print("lowered to StableHLO:")
    print(lowered.as_text("stablehlo"))

    start = time.perf_counter()
    out = fast(w, b, x).block_until_ready()
    print(f"jit, first call: {time.perf_counter() - start:.3f} s (from the compile cache, or "
          "interpreted while IREE compiles in the background)")
    start = time.perf_counter()
    lowered.compile()        # waits for that compilation (IREE llvm-cpu)
    print(f"compiled program ready after another {time.perf_counter() - start:.3f} s")
    start = time.perf_counter()
    fast(w, b, x).block_until_ready()
    print(f"next call (the compiled program): {1e6 * (time.perf_counter() - start):.0f} us")
    np.testing.assert_allclose(np.asarray(out), np.tanh(x @ w + b), rtol=1e-5, atol=1e-6)
    print("\njit result matches NumPy:", out)
    print("devices:", irax.devices())
    tour(w, b, x)


def loss(w, b, x):
    return jnp.sum(predict(w, b, x) ** 2)


def tour(w, b, x) -> None:
    # grad: reverse mode, here checked against a central finite difference
    g = irax.jit(irax.grad(loss))(w, b, x)
    e = np.zeros_like(w)
    e[1, 2] = 1e-3
    fd = (float(loss(w + e, b, x)) - float(loss(w - e, b, x))) / 2e-3
    print(f"\ngrad: d loss / d w[1, 2] = {float(g[1, 2]):.5f} (finite difference {fd:.5f})")
    assert abs(float(g[1, 2]) - fd) < 1e-2 * max(1.0, abs(fd))

    # vmap: per-example gradients, without a Python loop
    per_example = irax.vmap(irax.grad(loss), in_axes=(None, None, 0))(w, b, x[:, None, :])
    loop = np.stack([np.asarray(irax.grad(loss)(w, b, x[i:i + 1])) for i in range(len(x))])
    np.testing.assert_allclose(np.asarray(per_example), loop, rtol=1e-5, atol=1e-6)
    print(f"vmap(grad): per-example gradients {per_example.shape}, equal to a Python loop")

    # pmap: one shard of the batch per device, gradients averaged with lax.pmean
    n = irax.local_device_count()
    shards = x[:4].reshape(n, 4 // n, 4)
    step = irax.pmap(lambda xs: lax.pmean(irax.grad(loss)(w, b, xs), "i"), axis_name="i")
    averaged = step(shards)
    whole = irax.grad(loss)(w, b, x[:4]) / n
    np.testing.assert_allclose(np.asarray(averaged[0]), np.asarray(whole), rtol=1e-5,
                               atol=1e-6)
    print(f"pmap over {n} devices: the averaged gradient equals the whole batch's / {n}")


if __name__ == "__main__":
    main()
