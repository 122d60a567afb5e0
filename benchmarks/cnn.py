"""A small CNN training step: irax against JAX, reported as ratios.

    python benchmarks/cnn.py [--batch 32 128] [--size 28]

The model (written once, with the ``lax`` and ``numpy`` modules of either library): two
3x3 SAME convolutions (NHWC x HWIO) with relu, each followed by 2x2 average pooling, then
flatten, a dense layer and softmax cross-entropy. Each row times one jitted SGD step
(``jit`` of the loss's ``grad`` plus the update) and the forward pass alone;
``irax/jax`` < 1 means irax is faster. Compile time is not included; ``max.diff`` is the
largest difference of the updated parameters between the two libraries.
"""

from __future__ import annotations

import argparse

import numpy as np
from run import _best, _jax, _tree_ready  # benchmarks/ is on the path of a script run from it

_DN = ("NHWC", "HWIO", "NHWC")


def _params(size, channels=(1, 8, 16), classes=10, seed=0):
    rng = np.random.default_rng(seed)
    convs = [(rng.standard_normal((3, 3, a, b)).astype(np.float32) / np.sqrt(9 * a),
              np.zeros(b, np.float32)) for a, b in zip(channels[:-1], channels[1:])]
    flat = (size // 4) ** 2 * channels[-1]
    dense = (rng.standard_normal((flat, classes)).astype(np.float32) / np.sqrt(flat),
             np.zeros(classes, np.float32))
    return convs, dense


def _avg_pool(np_mod, h):
    n, hh, ww, c = h.shape
    return np_mod.mean(np_mod.reshape(h, (n, hh // 2, 2, ww // 2, 2, c)), axis=(2, 4))


def _logits(lax_mod, np_mod):
    def logits(params, x):
        convs, (w, b) = params
        h = x
        for k, bias in convs:
            h = lax_mod.conv_general_dilated(h, k, (1, 1), "SAME", dimension_numbers=_DN)
            h = _avg_pool(np_mod, np_mod.maximum(h + bias, 0.0))
        return np_mod.reshape(h, (h.shape[0], -1)) @ w + b

    return logits


def _loss(lax_mod, np_mod):
    logits = _logits(lax_mod, np_mod)

    def loss(params, x, labels):
        z = logits(params, x)
        z = z - np_mod.max(z, axis=1, keepdims=True)
        logp = z - np_mod.log(np_mod.sum(np_mod.exp(z), axis=1, keepdims=True))
        return -np_mod.mean(np_mod.sum(logp * labels, axis=1))

    return loss


def _step(tree, grad_fn, lr=0.1):
    def step(params, x, labels):
        grads = grad_fn(params, x, labels)
        return tree.map(lambda p, g: p - lr * g, params, grads)

    return step


def _data(batch, size, seed=1):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((batch, size, size, 1)).astype(np.float32)
    labels = np.eye(10, dtype=np.float32)[rng.integers(0, 10, batch)]
    return x, labels


def run(batches, size):
    import irax
    import irax.lax as ilax
    import irax.numpy as inp

    jax, jjnp = _jax()
    params = _params(size)
    rows = []
    for batch in batches:
        x, labels = _data(batch, size)
        step_i = irax.jit(_step(irax.tree, irax.grad(_loss(ilax, inp))))
        fwd_i = irax.jit(_logits(ilax, inp))
        pi, xi, li = irax.device_put(params), irax.device_put(x), irax.device_put(labels)
        new_i = _tree_ready(step_i(pi, xi, li))
        _tree_ready(fwd_i(pi, xi))
        t_step = _best(lambda f=step_i, a=(pi, xi, li): _tree_ready(f(*a)), number=3)
        t_fwd = _best(lambda f=fwd_i, a=(pi, xi): _tree_ready(f(*a)), number=3)
        j_step = j_fwd = diff = None
        if jax is not None:
            from jax import lax as jlax

            step_j = jax.jit(_step(jax.tree, jax.grad(_loss(jlax, jjnp))))
            fwd_j = jax.jit(_logits(jlax, jjnp))
            pj = jax.device_put(params)
            new_j = _tree_ready(step_j(pj, x, labels))
            _tree_ready(fwd_j(pj, x))
            j_step = _best(lambda f=step_j, a=(pj, x, labels): _tree_ready(f(*a)), number=3)
            j_fwd = _best(lambda f=fwd_j, a=(pj, x): _tree_ready(f(*a)), number=3)
            diff = max(float(np.max(np.abs(np.asarray(a) - np.asarray(b))))
                       for a, b in zip(irax.tree.leaves(new_i), jax.tree.leaves(new_j)))
        shape = f"{batch}x{size}x{size}x1"
        rows.append((f"jit(sgd step of grad) [{shape}]", t_step, j_step, diff))
        rows.append((f"jit(forward) [{shape}]", t_fwd, j_fwd, None))
    return rows


def report(rows) -> None:
    print(f"{'benchmark':40s} {'irax':>11s} {'jax':>11s} {'irax/jax':>9s} {'max.diff':>9s}")
    for name, ti, tj, diff in rows:
        def fmt(t):
            return f"{t * 1e3:9.3f}ms" if t is not None else "        n/a"
        ratio = f"{ti / tj:9.2f}" if tj else "      n/a"
        d = f"{diff:9.1e}" if diff is not None else "      n/a"
        print(f"{name:40s} {fmt(ti)} {fmt(tj)} {ratio} {d}")


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--batch", type=int, nargs="+", default=[32, 128])
    p.add_argument("--size", type=int, default=28, help="image height and width (mult. of 4)")
    args = p.parse_args()
    report(run(args.batch, args.size))


if __name__ == "__main__":
    main()
