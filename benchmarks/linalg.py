"""Linear algebra timings: irax against JAX and NumPy, reported as ratios.

    python benchmarks/linalg.py [--sizes 64 256 512] [--dtype float32]

Each row times one jitted function on one random well-conditioned matrix (symmetric
positive definite for cholesky) in irax (IREE llvm-cpu), JAX (XLA CPU, LAPACK) and
NumPy (LAPACK); ``irax/jax`` < 1 means irax is faster. Compile time is not included.
``rel.err`` is irax's accuracy: the largest relative (Frobenius) error of its results
against NumPy's in float64 on the same input, compared by what does not depend on the
choice of signs or phases (solutions, factors, eigen/singular values, reconstructions).
``--batch B`` also runs each case on a stack of B matrices.

To add a function, add an entry to ``CASES``: name -> (make_input, fn), ``fn`` taking the
module (``irax.numpy`` / ``jax.numpy`` / ``numpy``) and the inputs.
"""

from __future__ import annotations

import argparse

import numpy as np
from run import _best  # benchmarks/ is on the path of a script run from it


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


def _recon(u, s, vh):
    return (u * s[..., None, :]) @ vh


# name -> function of (module, inputs, outputs): the arrays compared with NumPy's
INVARIANTS = {
    "qr": lambda m, a, out: (np.abs(out[1]), out[0] @ out[1]),
    "eigh": lambda m, a, out: (out[0], _recon(out[1], out[0], np.swapaxes(out[1], -1, -2))),
    "svd": lambda m, a, out: (out[1], _recon(*out)),
}


def _rel_err(name, args, got) -> float:
    """The largest relative error of irax's results ``got`` against NumPy's in float64."""
    key = name.split()[0]
    fn = CASES[name][1]
    args64 = [np.asarray(a, np.float64) for a in args]
    want = fn(np, *args64)
    got = tuple(np.asarray(g, np.float64) for g in got) if isinstance(got, (tuple, list)) \
        else np.asarray(got, np.float64)
    pick = INVARIANTS.get(key, lambda m, a, out: out if isinstance(out, tuple) else (out,))
    errs = [np.linalg.norm(g - w) / np.linalg.norm(w)
            for g, w in zip(pick(np, args64, got), pick(np, args64, want))]
    return max(errs)


def _stacked(make, n, dtype, rng, batch):
    if not batch:
        return make(n, dtype, rng)
    parts = [make(n, dtype, rng) for _ in range(batch)]
    return tuple(np.stack(p) for p in zip(*parts))


def run(sizes, dtype, names=None, batch=0):
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
        for n, b in [(n, 0) for n in sizes] + [(n, batch) for n in sizes if batch]:
            args = _stacked(make, n, dtype, rng, b)
            fi = irax.jit(lambda *a, fn=fn: fn(inp, *a))
            ai = [irax.device_put(a) for a in args]
            err = _rel_err(name, args, _ready(fi(*ai)))
            t_irax = _best(lambda f=fi, a=ai: _ready(f(*a)))
            t_jax = None
            if jax is not None:
                fj = jax.jit(lambda *a, fn=fn: fn(jnp, *a))
                aj = [jnp.asarray(a) for a in args]
                _ready(fj(*aj))
                t_jax = _best(lambda f=fj, a=aj: _ready(f(*a)))
            t_np = _best(lambda a=args, fn=fn: fn(np, *a)) if not b else None
            shape = f"{b}x{n}x{n}" if b else f"{n}x{n}"
            rows.append((f"{name} [{shape} {np.dtype(dtype).name}]", t_irax, t_jax, t_np, err))
    return rows


def report(rows) -> None:
    print(f"{'benchmark':40s} {'irax':>11s} {'jax':>11s} {'numpy':>11s} {'irax/jax':>9s} "
          f"{'irax/np':>8s} {'rel.err':>8s}")
    for name, ti, tj, tn, err in rows:
        def fmt(t):
            return f"{t * 1e3:9.3f}ms" if t is not None else "        n/a"
        rj = f"{ti / tj:9.2f}" if tj else "      n/a"
        rn = f"{ti / tn:8.2f}" if tn else "     n/a"
        print(f"{name:40s} {fmt(ti)} {fmt(tj)} {fmt(tn)} {rj} {rn} {err:8.1e}")


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--sizes", type=int, nargs="+", default=[64, 256, 512])
    p.add_argument("--dtype", default="float32")
    p.add_argument("--only", nargs="*", help="first words of the case names to run")
    p.add_argument("--batch", type=int, default=0, help="also run stacks of this many")
    args = p.parse_args()
    if np.dtype(args.dtype) == np.float64:
        import irax

        irax.config.update("jax_enable_x64", True)
    report(run(args.sizes, np.dtype(args.dtype), args.only, args.batch))


if __name__ == "__main__":
    main()
