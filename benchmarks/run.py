"""Side-by-side timings of irax against JAX and NumPy, reported as ratios.

    python benchmarks/run.py [--size 2000] [--quick]

Each row times the same computation in irax (IREE llvm-cpu), JAX (XLA CPU) and NumPy
where NumPy can express it; ``irax/jax`` < 1 means irax is faster.
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def _best(fn, repeat=5, number=1):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - start) / number)
    return min(times)


def _jax():
    try:
        import jax
        import jax.numpy as jjnp
    except ImportError:
        return None, None
    try:   # 4 CPU devices for the pmap row (only possible before JAX's first use)
        jax.config.update("jax_num_cpu_devices", 4)
    except Exception:  # noqa: BLE001 - already initialized
        pass
    return jax, jjnp


def _ready(x):
    return x.block_until_ready() if hasattr(x, "block_until_ready") else x


def _tree_ready(tree):
    import irax

    for leaf in irax.tree.leaves(tree):
        _ready(leaf)
    return tree


def elementwise(n):
    import irax

    jax, jjnp = _jax()
    x = np.random.default_rng(0).standard_normal((n, n)).astype(np.float32)
    rows = []
    for name, f in {"x*x + x*2": lambda x: x * x + x * 2.0,
                    "x + x*x + x*x*x": lambda x: x + x * x + x * x * x}.items():
        fi = irax.jit(f)
        xi = irax.device_put(x)
        _ready(fi(xi))
        t_irax = _best(lambda f=fi, a=xi: _ready(f(a)))
        t_np = _best(lambda f=f: f(x))
        t_jax = None
        if jax is not None:
            fj = jax.jit(f)
            xj = jjnp.asarray(x)
            _ready(fj(xj))
            t_jax = _best(lambda f=fj, a=xj: _ready(f(a)))
        rows.append((f"{name} [{n}x{n} f32]", t_irax, t_jax, t_np))
    return rows


def dispatch():
    import irax

    jax, jjnp = _jax()
    x = np.ones((4,), np.float32)
    f = irax.jit(lambda x: x + 1.0)
    xi = irax.device_put(x)
    f(xi)
    t_irax = _best(lambda: f(xi), number=500)
    t_jax = None
    if jax is not None:
        fj = jax.jit(lambda x: x + 1.0)
        xj = jjnp.asarray(x)
        fj(xj)
        t_jax = _best(lambda: fj(xj), number=500)
    t_np = _best(lambda: x + 1.0, number=500)
    return [("dispatch of a cached jit call (4xf32)", t_irax, t_jax, t_np)]


def _mlp(m, sizes, rng):
    return [(rng.standard_normal((a, b)).astype(np.float32) / np.sqrt(a),
             np.zeros(b, np.float32)) for a, b in zip(sizes[:-1], sizes[1:])]


def _loss(np_mod):
    def loss(params, x, y):
        h = x
        for w, b in params[:-1]:
            h = np_mod.tanh(h @ w + b)
        w, b = params[-1]
        return np_mod.mean((h @ w + b - y) ** 2)

    return loss


def training(batch=256):
    import irax
    import irax.numpy as jnp

    jax, jjnp = _jax()
    rng = np.random.default_rng(0)
    params = _mlp(np, [64, 256, 256, 10], rng)
    x = rng.standard_normal((batch, 64)).astype(np.float32)
    y = rng.standard_normal((batch, 10)).astype(np.float32)
    rows = []
    g = irax.jit(irax.grad(_loss(jnp)))
    xi, yi = irax.device_put(x), irax.device_put(y)
    pi = irax.device_put(params)
    _tree_ready(g(pi, xi, yi))
    t_irax = _best(lambda: _tree_ready(g(pi, xi, yi)), number=5)
    t_jax = None
    if jax is not None:
        gj = jax.jit(jax.grad(_loss(jjnp)))
        pj = jax.device_put(params)
        _tree_ready(gj(pj, x, y))
        t_jax = _best(lambda: _tree_ready(gj(pj, x, y)), number=5)
    rows.append((f"jit(grad(mlp loss)) [batch {batch}]", t_irax, t_jax, None))

    pe = irax.jit(irax.vmap(irax.grad(_loss(jnp)), in_axes=(None, 0, 0)))
    xs, ys = x[:64, None, :], y[:64, None, :]
    _tree_ready(pe(pi, xs, ys))
    t_irax = _best(lambda: _tree_ready(pe(pi, xs, ys)), number=3)
    t_jax = None
    if jax is not None:
        pej = jax.jit(jax.vmap(jax.grad(_loss(jjnp)), in_axes=(None, 0, 0)))
        _tree_ready(pej(pj, xs, ys))
        t_jax = _best(lambda: _tree_ready(pej(pj, xs, ys)), number=3)
    rows.append(("jit(vmap(grad)) per-example grads [64]", t_irax, t_jax, None))
    return rows


def compile_latency():
    import irax
    import irax.numpy as jnp
    from irax.config import config

    jax, jjnp = _jax()
    rng = np.random.default_rng(1)
    params = _mlp(np, [8, 16, 4], rng)
    x = rng.standard_normal((5, 8)).astype(np.float32)
    y = rng.standard_normal((5, 4)).astype(np.float32)
    config.update("irax_enable_compilation_cache", False)
    try:
        start = time.perf_counter()
        irax.jit(irax.grad(_loss(jnp)))(params, x, y)
        t_irax = time.perf_counter() - start
    finally:
        config.update("irax_enable_compilation_cache", True)
    t_jax = None
    if jax is not None:
        start = time.perf_counter()
        _tree_ready(jax.jit(jax.grad(_loss(jjnp)))(params, x, y))
        t_jax = time.perf_counter() - start
    return [("trace+compile jit(grad(mlp)) (cold)", t_irax, t_jax, None)]


def random_sampling(n=1_000_000):
    import irax
    from irax import random

    jax, _ = _jax()
    rows = []
    cases = {"normal": lambda r, k: r.normal(k, (n,)),
             "uniform": lambda r, k: r.uniform(k, (n,)),
             "gamma(a=2.5)": lambda r, k: r.gamma(k, 2.5, (n // 10,))}
    nps = {"normal": lambda g: g.standard_normal(n, np.float32),
           "uniform": lambda g: g.random(n, np.float32),
           "gamma(a=2.5)": lambda g: g.standard_gamma(2.5, n // 10)}
    for name, f in cases.items():
        fi = irax.jit(lambda k, f=f: f(random, k))
        ki = random.PRNGKey(0)
        _ready(fi(ki))
        t_irax = _best(lambda f=fi, k=ki: _ready(f(k)))
        t_jax = None
        if jax is not None:
            fj = jax.jit(lambda k, f=f: f(jax.random, k))
            kj = jax.random.PRNGKey(0)
            _ready(fj(kj))
            t_jax = _best(lambda f=fj, k=kj: _ready(f(k)))
        g = np.random.default_rng(0)
        t_np = _best(lambda f=nps[name], g=g: f(g))
        size = n // 10 if name.startswith("gamma") else n
        rows.append((f"jit(random.{name}) [{size}]", t_irax, t_jax, t_np))
    return rows


def sorting(n=100_000):
    """Long sorts: IREE's own sort is quadratic; irax lowers them to a bitonic network."""
    import irax
    import irax.numpy as jnp
    from irax import random

    jax, jjnp = _jax()
    x = np.random.default_rng(0).standard_normal(n).astype(np.float32)
    fi, xi = irax.jit(jnp.argsort), irax.device_put(x)
    _ready(fi(xi))
    t_irax = _best(lambda: _ready(fi(xi)))
    t_np = _best(lambda: np.argsort(x, kind="stable"))
    t_jax = None
    if jax is not None:
        fj, xj = jax.jit(jjnp.argsort), jjnp.asarray(x)
        _ready(fj(xj))
        t_jax = _best(lambda: _ready(fj(xj)))
    rows = [(f"jit(jnp.argsort) [{n} f32]", t_irax, t_jax, t_np)]
    pi, ki = irax.jit(lambda k: random.permutation(k, n)), random.PRNGKey(0)
    _ready(pi(ki))
    t_irax = _best(lambda: _ready(pi(ki)))
    g = np.random.default_rng(0)
    t_np = _best(lambda: g.permutation(n))
    t_jax = None
    if jax is not None:
        pj, kj = jax.jit(lambda k: jax.random.permutation(k, n)), jax.random.PRNGKey(0)
        _ready(pj(kj))
        t_jax = _best(lambda: _ready(pj(kj)))
    rows.append((f"jit(random.permutation) [{n}]", t_irax, t_jax, t_np))
    return rows


def pmap_step(devices=4):
    """A data-parallel step on 4 CPU devices: per-device tanh layer, psum'd mean."""
    import irax
    import irax.numpy as jnp
    from irax import lax
    from irax.config import config

    jax, jjnp = _jax()
    config.update("jax_num_cpu_devices", devices)
    x = np.random.default_rng(2).standard_normal((devices, 256, 256)).astype(np.float32)
    w = np.random.default_rng(3).standard_normal((256, 256)).astype(np.float32) / 16

    def step(np_mod, lax_mod, w, x):
        h = np_mod.tanh(x @ w)
        return h / lax_mod.psum(np_mod.sum(h), "i")

    fi = irax.pmap(lambda w, x: step(jnp, lax, w, x), "i", in_axes=(None, 0))
    _ready(fi(w, x))
    t_irax = _best(lambda: _ready(fi(w, x)), number=3)
    t_jax = None
    if jax is not None and jax.local_device_count() >= devices:
        fj = jax.pmap(lambda w, x: step(jjnp, jax.lax, w, x), "i", in_axes=(None, 0))
        _ready(fj(w, x))
        t_jax = _best(lambda: _ready(fj(w, x)), number=3)
    return [(f"pmap tanh layer + psum [{devices} cpu devices]", t_irax, t_jax, None)]


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--size", type=int, default=2000)
    p.add_argument("--quick", action="store_true", help="skip the training benchmarks")
    args = p.parse_args()
    rows = (elementwise(args.size) + dispatch() + compile_latency() + random_sampling()
            + sorting())
    if not args.quick:
        rows += training() + pmap_step()
    print(f"{'benchmark':44s} {'irax':>11s} {'jax':>11s} {'numpy':>11s} {'irax/jax':>9s}")
    for name, ti, tj, tn in rows:
        def fmt(t):
            return f"{t * 1e3:9.3f}ms" if t is not None else "        n/a"
        ratio = f"{ti / tj:9.2f}" if tj else "      n/a"
        print(f"{name:44s} {fmt(ti)} {fmt(tj)} {fmt(tn)} {ratio}")


if __name__ == "__main__":
    main()
