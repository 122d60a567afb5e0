"""Train a small tanh MLP on a toy regression problem with irax.jit(irax.value_and_grad).

    python examples/training.py
"""

import time

import numpy as np

import irax
import irax.numpy as jnp


def init(rng, sizes):
    return [(rng.standard_normal((m, n)).astype(np.float32) / np.sqrt(m),
             np.zeros(n, np.float32)) for m, n in zip(sizes[:-1], sizes[1:])]


def predict(params, x):
    for w, b in params[:-1]:
        x = jnp.tanh(x @ w + b)
    w, b = params[-1]
    return x @ w + b


def loss(params, x, y):
    return jnp.mean((predict(params, x) - y) ** 2)


@irax.jit
def step(params, x, y):
    value, grads = irax.value_and_grad(loss)(params, x, y)
    new = irax.tree.map(lambda p, g: p - 0.1 * g, params, grads)
    return new, value


def main(steps: int = 200) -> float:
    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, (256, 2)).astype(np.float32)
    y = (np.sin(3 * x[:, :1]) * np.cos(2 * x[:, 1:])).astype(np.float32)
    params = init(rng, [2, 32, 32, 1])
    start = time.perf_counter()
    first = None
    for i in range(steps):
        params, value = step(params, x, y)
        first = float(value) if first is None else first
        if i % 50 == 0:
            print(f"step {i:4d}  loss {float(value):.5f}")
    final = float(loss(params, x, y))
    print(f"loss {first:.5f} -> {final:.5f} in {time.perf_counter() - start:.2f} s "
          f"({step._cache_size()} compilation)")
    assert final < first
    return final


if __name__ == "__main__":
    main()
