"""Side-by-side timings of irax against JAX and NumPy, reported as ratios.

    python benchmarks/run.py [--size 5000]
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def _best(fn, repeat=5):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def elementwise(n: int) -> list[tuple[str, float, float | None, float]]:
    import irax

    x = np.random.default_rng(0).standard_normal((n, n)).astype(np.float32)
    rows = []
    cases = {
        "x*x + x*2": lambda m: (lambda x: x * x + x * 2.0),
        "x + x*x + x*x*x": lambda m: (lambda x: x + x * x + x * x * x),
    }
    try:
        import jax
        import jax.numpy as jjnp
    except ImportError:
        jax = None
    for name, make in cases.items():
        f_np = make(np)
        f_irax = irax.jit(make(None))
        xi = irax.device_put(x)
        f_irax(xi).block_until_ready()
        t_irax = _best(lambda f=f_irax, a=xi: f(a).block_until_ready())
        t_np = _best(lambda f=f_np: f(x))
        t_jax = None
        if jax is not None:
            f_jax = jax.jit(make(None))
            xj = jjnp.asarray(x)
            f_jax(xj).block_until_ready()
            t_jax = _best(lambda f=f_jax, a=xj: f(a).block_until_ready())
        rows.append((f"{name} [{n}x{n} f32]", t_irax, t_jax, t_np))
    return rows


def dispatch() -> list[tuple[str, float, float | None, float]]:
    import irax

    x = np.ones((4,), np.float32)
    f = irax.jit(lambda x: x + 1.0)
    xi = irax.device_put(x)
    f(xi)
    t_irax = _best(lambda: [f(xi) for _ in range(1000)]) / 1000
    t_jax = None
    try:
        import jax

        fj = jax.jit(lambda x: x + 1.0)
        xj = jax.numpy.asarray(x)
        fj(xj)
        t_jax = _best(lambda: [fj(xj) for _ in range(1000)]) / 1000
    except ImportError:
        pass
    t_np = _best(lambda: [x + 1.0 for _ in range(1000)]) / 1000
    return [("dispatch of a cached jit call (4xf32)", t_irax, t_jax, t_np)]


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--size", type=int, default=5000)
    args = p.parse_args()
    rows = elementwise(args.size) + dispatch()
    print(f"{'benchmark':44s} {'irax':>10s} {'jax':>10s} {'numpy':>10s} "
          f"{'irax/jax':>9s} {'irax/np':>8s}")
    for name, ti, tj, tn in rows:
        jt = f"{tj * 1e3:9.3f}ms" if tj else "       n/a"
        ratio = f"{ti / tj:9.2f}" if tj else "      n/a"
        print(f"{name:44s} {ti * 1e3:9.3f}ms {jt} {tn * 1e3:9.3f}ms {ratio} {ti / tn:8.2f}")


if __name__ == "__main__":
    main()
