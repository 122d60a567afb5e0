"""Per-example gradients with vmap(grad), clipped and noised: a DP-SGD step.

    python examples/per_example_grads.py

`irax.vmap(irax.grad(loss), in_axes=(None, 0, 0))` maps the gradient of a one-example
loss over a batch: one gradient per example, the parameters shared. DP-SGD (Abadi et al.,
2016) clips each example's gradient to an L2 norm of at most `CLIP` (over all parameters
together), sums them, adds Gaussian noise of standard deviation `NOISE * CLIP` and divides
by the batch size. The whole step is one `irax.jit`. The example checks itself: the
per-example gradients (eager and jitted) equal a Python loop of `irax.grad`, the clipped
norms are at most `CLIP`, the noiseless step equals the same formula in NumPy, and private
training lowers the loss of a toy logistic regression.
"""

import time

import numpy as np

import irax
import irax.numpy as jnp

CLIP = 1.0    # the L2 norm each example's gradient is clipped to
NOISE = 0.5   # noise multiplier: the noise's standard deviation is NOISE * CLIP
LR = 0.5
BATCH = 32


def loss(params, x, y):
    """Logistic loss of one example: x of shape (d,), label y in {0, 1}."""
    logit = x @ params["w"] + params["b"]
    return jnp.logaddexp(0.0, logit) - y * logit


per_example_grads = irax.vmap(irax.grad(loss), in_axes=(None, 0, 0))


def clip(grads, max_norm):
    """Scales each example's gradient (leading axis) to an L2 norm of at most max_norm."""
    leaves = irax.tree.leaves(grads)
    sq = sum(jnp.sum(g.reshape(g.shape[0], -1) ** 2, axis=1) for g in leaves)
    scale = jnp.minimum(1.0, max_norm / (jnp.sqrt(sq) + 1e-12))
    return irax.tree.map(lambda g: g * scale.reshape((-1,) + (1,) * (g.ndim - 1)), grads)


@irax.jit
def dp_step(params, x, y, key, noise):
    """One DP-SGD step; ``noise`` scales the Gaussian noise (0.0 for a noiseless step)."""
    clipped = clip(per_example_grads(params, x, y), CLIP)
    leaves, treedef = irax.tree.flatten(clipped)
    keys = irax.random.split(key, len(leaves))
    noisy = [g.sum(axis=0) + noise * CLIP * irax.random.normal(k, g.shape[1:])
             for g, k in zip(leaves, keys)]
    update = irax.tree.unflatten(treedef, noisy)
    new = irax.tree.map(lambda p, u: p - LR * u / x.shape[0], params, update)
    return new, jnp.mean(irax.vmap(loss, in_axes=(None, 0, 0))(params, x, y))


def data(rng, n, d):
    w_true = rng.standard_normal(d)
    x = rng.standard_normal((n, d)).astype(np.float32)
    y = (x @ w_true + 0.3 * rng.standard_normal(n) > 0).astype(np.float32)
    return x, y


def numpy_step(params, x, y):
    """The noiseless DP-SGD step, written out in NumPy (the self-check's reference)."""
    w, b = np.asarray(params["w"], np.float64), float(params["b"])
    p = 1.0 / (1.0 + np.exp(-(x @ w + b)))
    gw, gb = (p - y)[:, None] * x, p - y        # d loss / d logit = sigmoid(logit) - y
    norm = np.sqrt((gw ** 2).sum(axis=1) + gb ** 2)
    scale = np.minimum(1.0, CLIP / (norm + 1e-12))
    return {"w": w - LR * (gw * scale[:, None]).sum(axis=0) / len(x),
            "b": b - LR * (gb * scale).sum() / len(x)}


def check(params, x, y) -> None:
    loop = [irax.grad(loss)(params, xi, yi) for xi, yi in zip(x, y)]
    stacked = irax.tree.map(lambda *g: np.stack(g), *loop)
    for name, fn in (("eager", per_example_grads), ("jit", irax.jit(per_example_grads))):
        got = fn(params, x, y)
        for k in ("w", "b"):
            np.testing.assert_allclose(np.asarray(got[k]), stacked[k], rtol=1e-5, atol=1e-6,
                                       err_msg=f"per-example grads ({name}) vs a loop: {k}")
    norms = np.sqrt(sum((np.asarray(g).reshape(len(x), -1) ** 2).sum(axis=1)
                        for g in irax.tree.leaves(clip(stacked, CLIP))))
    assert norms.max() <= CLIP * (1 + 1e-5), norms.max()
    new, _ = dp_step(params, x, y, irax.random.key(0), 0.0)
    want = numpy_step(params, x, y)
    for k in ("w", "b"):
        np.testing.assert_allclose(np.asarray(new[k]), want[k], rtol=1e-5, atol=1e-6,
                                   err_msg=f"noiseless DP-SGD step vs NumPy: {k}")
    print(f"checks: per-example grads (eager, jit) == a loop of irax.grad; clipped norms "
          f"<= {CLIP} (largest {norms.max():.3f}); noiseless step == NumPy")


def main(steps: int = 60) -> float:
    rng = np.random.default_rng(0)
    x, y = data(rng, 512, 8)
    params = {"w": np.zeros(8, np.float32), "b": np.float32(0.0)}
    check(params, x[:BATCH], y[:BATCH])

    key = irax.random.key(42)
    start, first = time.perf_counter(), None
    for i in range(steps):
        key, sub, pick = irax.random.split(key, 3)
        idx = np.asarray(irax.random.choice(pick, len(x), (BATCH,), replace=False))
        params, value = dp_step(params, x[idx], y[idx], sub, NOISE)
        first = float(value) if first is None else first
        if i % 20 == 0:
            print(f"step {i:3d}  batch loss {float(value):.4f}")
    full = float(jnp.mean(irax.vmap(loss, in_axes=(None, 0, 0))(params, x, y)))
    acc = float(np.mean((x @ np.asarray(params["w"]) + float(params["b"]) > 0) == y))
    print(f"DP-SGD (clip {CLIP}, noise x{NOISE}): loss {first:.4f} -> {full:.4f}, "
          f"accuracy {acc:.1%}, {steps} steps in {time.perf_counter() - start:.2f} s")
    assert full < first, (first, full)
    return full


if __name__ == "__main__":
    main()
