"""irax quick start: NumPy-style code, compiled by IREE through irax's own MLIR dialect."""

import time

import numpy as np

import irax
import irax.numpy as jnp


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


if __name__ == "__main__":
    main()
