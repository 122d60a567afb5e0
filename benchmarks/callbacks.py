"""Host-callback timings of irax against JAX (and the host function called directly with
NumPy), reported as ratios.

    python benchmarks/callbacks.py [--quick]

Rows: a jitted function around one ``pure_callback`` of ``np.sin`` (small and large
arrays: the per-call cost of a host call, then the copies), a no-op ``debug.callback``,
an ``io_callback`` in a 100-trip ``fori_loop`` (a host call per trip), and a vmapped
``pure_callback`` (sequential: one host call per example). ``irax/jax`` < 1 means irax is
faster; the NumPy column is the host function alone.
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run import _best, _jax, _ready  # noqa: E402


def _cases(lib, jnp):
    like = lambda x: lib.ShapeDtypeStruct(x.shape, x.dtype)  # noqa: E731
    io = lib.experimental.io_callback

    def pure(x):
        return lib.pure_callback(np.sin, like(x), x) + 1.0

    def debug(x):
        lib.debug.callback(lambda v: None, x)
        return x * 2.0

    def loop(x):
        def body(i, c):
            return c + io(lambda v: np.float32(v), lib.ShapeDtypeStruct((), np.float32), c)
        return lib.lax.fori_loop(0, 100, body, x)

    def batched(x):
        return lib.vmap(lambda v: lib.pure_callback(np.sin, like(v), v,
                                                    vmap_method="sequential"))(x)

    return [("pure_callback(np.sin) [16]", pure, np.ones(16, np.float32), np.sin),
            ("pure_callback(np.sin) [1M]", pure, np.ones(1 << 20, np.float32), np.sin),
            ("debug.callback no-op [16]", debug, np.ones(16, np.float32), None),
            ("fori_loop(100) of io_callback []", loop, np.float32(0.5), None),
            ("vmap(pure_callback, sequential) [8x16]", batched,
             np.ones((8, 16), np.float32), np.sin)]


def callback_rows(quick: bool = False):
    import irax
    import irax.experimental  # noqa: F401
    import irax.numpy as jnp

    jax, jjnp = _jax()
    if jax is not None:
        import jax.experimental  # noqa: F401
    rows = []
    ours = _cases(irax, jnp)
    theirs = _cases(jax, jjnp) if jax is not None else [None] * len(ours)
    for i, ((name, f, x, host), other) in enumerate(zip(ours, theirs)):
        if quick and i not in (0, 3):
            continue
        fi = irax.jit(f)
        xi = irax.device_put(x)
        _ready(fi(xi))
        t_irax = _best(lambda f=fi, a=xi: _ready(f(a)), number=5)
        t_np = _best(lambda h=host, a=x: h(a), number=5) if host is not None else None
        t_jax = None
        if other is not None:
            fj, xj = jax.jit(other[1]), jjnp.asarray(x)
            _ready(fj(xj))
            t_jax = _best(lambda f=fj, a=xj: _ready(f(a)), number=5)
        rows.append((f"jit {name}", t_irax, t_jax, t_np))
    return rows


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true")
    args = p.parse_args()
    print(f"{'workload':44s} {'irax us':>10s} {'jax us':>10s} {'numpy us':>10s} "
          f"{'irax/jax':>9s}")
    for name, ti, tj, tn in callback_rows(args.quick):
        ratio = f"{ti / tj:9.2f}" if tj else "        -"
        print(f"{name:44s} {ti * 1e6:10.1f} {tj * 1e6 if tj else float('nan'):10.1f} "
              f"{tn * 1e6 if tn else float('nan'):10.1f} {ratio}")


if __name__ == "__main__":
    main()
