"""Data-parallel training with pmap on 4 CPU devices (JAX's classic pmap recipe).

Each device gets a shard of the batch, computes its gradient, and `lax.pmean` averages the
gradients across devices, so every device applies the same update. The data comes from
irax.random with explicit keys, bit-for-bit the numbers jax.random would draw.

    python examples/data_parallel.py
"""

import functools

import numpy as np

import irax
import irax.numpy as jnp
from irax import lax, random

irax.config.update("jax_num_cpu_devices", 4)    # before the first use of a device
n_dev = irax.local_device_count()


def loss(params, x, y):
    w, b = params
    return jnp.mean((x @ w + b - y) ** 2)


@functools.partial(irax.pmap, axis_name="batch", in_axes=(None, 0, 0))
def update(params, x, y):
    value, grads = irax.value_and_grad(loss)(params, x, y)
    grads = lax.pmean(grads, "batch")          # the same averaged gradient on every device
    new = irax.tree.map(lambda p, g: p - 0.1 * g, params, grads)
    return new, lax.pmean(value, "batch")


def main():
    k_w, k_x, k_noise = random.split(random.PRNGKey(0), 3)
    true_w = random.normal(k_w, (8, 1))
    x = random.normal(k_x, (n_dev, 64, 8))          # one shard of 64 examples per device
    y = x @ true_w + 0.01 * random.normal(k_noise, (n_dev, 64, 1))
    params = (jnp.zeros((8, 1)), jnp.zeros((1,)))
    for step in range(60):
        params, values = update(params, x, y)
        params = irax.tree.map(lambda p: p[0], params)   # identical on every device
        if step % 20 == 0:
            print(f"step {step:3d}  loss {float(values[0]):.5f}")
    err = float(jnp.max(jnp.abs(params[0] - true_w)))
    print(f"{n_dev} devices, max |w - true_w| = {err:.4f}")
    assert err < 0.05, err
    np.testing.assert_allclose(np.asarray(values), float(values[0]))


if __name__ == "__main__":
    main()
