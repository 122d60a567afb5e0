"""FFT timings of irax against JAX and NumPy, reported as ratios (benchmarks/run.py's table).

    python benchmarks/fft.py [--quick]

Rows: jit(jnp.fft.fft / rfft / fft2) at power-of-two sizes (IREE's native stablehlo.fft)
and other sizes (DFT matmuls, four-step, Bluestein: see python/irax/dialect/fft.py), in
float32. ``irax/jax`` < 1 means irax is faster; ``irax/np`` compares with NumPy's pocketfft.
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run import _best, _jax, _ready  # noqa: E402

CASES = [  # (name, shape, what the length takes in irax)
    ("fft", (4096,), "native"), ("fft", (1000,), "four-step 8*125"),
    ("fft", (1009,), "Bluestein (prime)"), ("fft", (64, 48), "DFT matmul, batched"),
    ("fft", (1 << 16,), "native"), ("fft", (100_000,), "four-step 32*3125"),
    ("rfft", (4096,), "native"), ("rfft", (1000,), "four-step 8*125"), ("rfft", (256, 100), "DFT"),
    ("fft2", (256, 256), "native, 2 passes"), ("fft2", (100, 100), "DFT, 2 passes"),
    ("fft2", (480, 640), "four-step, 2 passes"),
]
QUICK = {0, 1, 2, 6, 9, 10}


def fft_rows(quick: bool = False):
    import irax
    import irax.numpy as jnp

    jax, jjnp = _jax()
    rng = np.random.default_rng(0)
    rows = []
    for i, (name, shape, how) in enumerate(CASES):
        if quick and i not in QUICK:
            continue
        x = rng.standard_normal(shape).astype(np.float32)
        if name != "rfft":
            x = (x + 1j * rng.standard_normal(shape)).astype(np.complex64)
        fi, xi = irax.jit(getattr(jnp.fft, name)), irax.device_put(x)
        _ready(fi(xi))
        t_irax = _best(lambda f=fi, a=xi: _ready(f(a)), number=5)
        t_np = _best(lambda f=getattr(np.fft, name), a=x: f(a), number=5)
        t_jax = None
        if jax is not None:
            fj, xj = jax.jit(getattr(jjnp.fft, name)), jjnp.asarray(x)
            _ready(fj(xj))
            t_jax = _best(lambda f=fj, a=xj: _ready(f(a)), number=5)
        label = "x".join(map(str, shape))
        rows.append((f"jit(fft.{name}) [{label}] {how}", t_irax, t_jax, t_np))
    return rows


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true", help="fewer sizes")
    args = p.parse_args()
    rows = fft_rows(args.quick)
    print(f"{'benchmark':52s} {'irax':>11s} {'jax':>11s} {'numpy':>11s} {'irax/jax':>9s} "
          f"{'irax/np':>8s}")
    for name, ti, tj, tn in rows:
        def fmt(t):
            return f"{t * 1e3:9.3f}ms" if t is not None else "        n/a"
        rj = f"{ti / tj:9.2f}" if tj else "      n/a"
        rn = f"{ti / tn:8.2f}" if tn else "     n/a"
        print(f"{name:52s} {fmt(ti)} {fmt(tj)} {fmt(tn)} {rj} {rn}")


if __name__ == "__main__":
    main()
