"""Linear algebra timings: irax against JAX and NumPy, reported as ratios.

    python benchmarks/linalg.py [--sizes 64 256 512] [--dtype float32]

Each row times one jitted function on one random well-conditioned matrix (symmetric
positive definite for cholesky) in irax (IREE llvm-cpu), JAX (XLA CPU, LAPACK) and
NumPy (LAPACK); ``irax/jax`` < 1 means irax is faster. Compile time is not included.

To add a function, add an entry to ``CASES``: name -> (make_input, irax_fn, jax_fn,
numpy_fn), each fn taking the module (``irax.numpy`` / ``jax.numpy`` / ``numpy``).
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


def _ready(x):
    if isinstance(x, (tuple, list)):
        for v in x:
            _ready(v)
        return x
    return x.block_until_ready() if hasattr(x, "block_until_ready") else x


def _general(n, dtype, rng):
    return (rng.standard_normal((n, n)) + n ** 0.5 * np.eye(n)).astype(dtype)


def _spd(n, dtype, rng):
    a = rng.standard_normal((n, n))
    return (a @ a.T / n + np.eye(n)).astype(dtype)


def _rhs(n, dtype, rng):
    return _general(n, dtype, rng), rng.standard_normal((n, 4)).astype(dtype)


# name -> (input maker, function of (np-like module, *inputs))
CASES = {
    # ---- factorizations (part 1) ----
    "solve (n x 4 rhs)": (_rhs, lambda m, a, b: m.linalg.solve(a, b)),
    "inv": (lambda n, dt, r: (_general(n, dt, r),), lambda m, a: m.linalg.inv(a)),
    "cholesky": (lambda n, dt, r: (_spd(n, dt, r),), lambda m, a: m.linalg.cholesky(a)),
    "qr": (lambda n, dt, r: (_general(n, dt, r),), lambda m, a: m.linalg.qr(a)),
    # ---- spectral functions (part 2): add eigh / svd entries here ----
    "eigh": (lambda n, dt, r: (_spd(n, dt, r),), lambda m, a: tuple(m.linalg.eigh(a))),
    "svd": (lambda n, dt, r: (_general(n, dt, r),),
            lambda m, a: tuple(m.linalg.svd(a, full_matrices=False))),
    "svdvals": (lambda n, dt, r: (_general(n, dt, r),),
                lambda m, a: m.linalg.svd(a, compute_uv=False)),
}


def run(sizes, dtype, names=None):
    import irax
    import irax.numpy as inp

    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        jax = jnp = None
    rng = np.random.default_rng(0)
    rows = []
    for name, (make, fn) in CASES.items():
        if names and name.split()[0] not in names:
            continue
        for n in sizes:
            args = make(n, dtype, rng)
            fi = irax.jit(lambda *a, fn=fn: fn(inp, *a))
            ai = [irax.device_put(a) for a in args]
            _ready(fi(*ai))
            t_irax = _best(lambda f=fi, a=ai: _ready(f(*a)))
            t_jax = None
            if jax is not None:
                fj = jax.jit(lambda *a, fn=fn: fn(jnp, *a))
                aj = [jnp.asarray(a) for a in args]
                _ready(fj(*aj))
                t_jax = _best(lambda f=fj, a=aj: _ready(f(*a)))
            t_np = _best(lambda a=args, fn=fn: fn(np, *a))
            rows.append((f"{name} [{n}x{n} {np.dtype(dtype).name}]", t_irax, t_jax, t_np))
    return rows


def report(rows) -> None:
    print(f"{'benchmark':40s} {'irax':>11s} {'jax':>11s} {'numpy':>11s} {'irax/jax':>9s} "
          f"{'irax/np':>8s}")
    for name, ti, tj, tn in rows:
        def fmt(t):
            return f"{t * 1e3:9.3f}ms" if t is not None else "        n/a"
        rj = f"{ti / tj:9.2f}" if tj else "      n/a"
        rn = f"{ti / tn:8.2f}" if tn else "     n/a"
        print(f"{name:40s} {fmt(ti)} {fmt(tj)} {fmt(tn)} {rj} {rn}")


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--sizes", type=int, nargs="+", default=[64, 256, 512])
    p.add_argument("--dtype", default="float32")
    p.add_argument("--only", nargs="*", help="first words of the case names to run")
    args = p.parse_args()
    report(run(args.sizes, np.dtype(args.dtype), args.only))


if __name__ == "__main__":
    main()
