"""Workloads 11-13 of benchmarks/run.py (eager op chain, eager fori_loop, grad through a
while loop) and the extra rows kept from the first suite (random sampling, sorting, pmap)."""

from __future__ import annotations

import numpy as np
from _common import Context, _jax, measure


def _irax():
    import irax
    import irax.lax as ilax
    import irax.numpy as inp

    return irax, inp, ilax


def _jx():
    jax, jjnp = _jax()
    if jax is None:
        raise RuntimeError("JAX is not installed")
    return jax, jjnp, jax.lax


def _mod(lib):
    return _irax() if lib == "irax" else _jx()


# 11. eager op chain


def eager_chain(ctx: Context):
    x = np.ones((4,), np.float32)
    n = ctx.r(2000, 300)

    def make(lib):
        def setup():
            if lib == "numpy":
                xs, ready = x, (lambda y: y)
            else:
                mod = _mod(lib)[0]
                xs, ready = mod.device_put(x), mod.block_until_ready

            def run():
                y = xs
                for _ in range(n):
                    y = y * 1.0001 + 0.1
                return ready(y)
            return run
        return setup

    def make_fns(lib):
        def setup():
            if lib == "numpy":
                np_mod, xs, ready = np, x, (lambda y: y)
            else:
                mod, np_mod = _mod(lib)[:2]
                xs, ready = mod.device_put(x), mod.block_until_ready

            def run():
                y = xs
                for _ in range(n):
                    y = np_mod.multiply(np_mod.sin(y), 1.0001)
                return ready(y)
            return run
        return setup

    return [measure(ctx, "eager", "eager x * 1.0001 + 0.1 [4 f32], per op",
                    {lib: make(lib) for lib in ("irax", "jax", "numpy")}, per=2 * n,
                    reps=ctx.r(7, 3), notes=[f"chain of {n} x 2 ops, no jit"]),
            measure(ctx, "eager", "eager jnp.multiply(jnp.sin(x), 1.0001) [4 f32], per op",
                    {lib: make_fns(lib) for lib in ("irax", "jax", "numpy")}, per=2 * n,
                    reps=ctx.r(7, 3), notes=[f"chain of {n} x 2 calls of jnp functions"])]


# 12. eager fori_loop


def _body(i, c):
    return c * 1.0001 + 0.1


def _np_loop(n):
    c, a, b = np.float32(0.0), np.float32(1.0001), np.float32(0.1)
    for _ in range(n):
        c = c * a + b
    return c


def _fori_makers(n):
    def make(lib):
        def setup():
            if lib == "numpy":
                return lambda: _np_loop(n)
            mod, _, lax_mod = _mod(lib)
            return lambda: mod.block_until_ready(lax_mod.fori_loop(0, n, _body, 0.0))
        return setup
    return {lib: make(lib) for lib in ("irax", "jax", "numpy")}


def eager_fori(ctx: Context):
    row = measure(ctx, "fori", "eager lax.fori_loop 10,000 trips, scalar carry",
                  _fori_makers(10_000), reps=ctx.r(5, 2), notes=["NumPy: a Python loop"])
    rows = [row]
    if ctx.quick:
        return rows
    makers = _fori_makers(100_000)
    notes = ["NumPy: a Python loop"]
    t10 = row.times.get("irax")
    if t10 is not None and t10 > 2.0:
        makers.pop("irax")
        notes.append(f"irax skipped: {t10:.1f} s at 10k")
    rows.append(measure(ctx, "fori", "eager lax.fori_loop 100,000 trips, scalar carry",
                        makers, reps=3, notes=notes))
    return rows


# 13. grad through a data-dependent while loop


def _while_loss(np_mod, lax_mod):
    def loss(x, n):
        def cond(c):
            return c[0] < n

        def body(c):
            i, y = c
            return i + 1, np_mod.sin(y) * 1.01 + 0.1
        _, y = lax_mod.while_loop(cond, body, (0, x))
        return np_mod.sum(y)
    return loss


def _scan_loss(np_mod, lax_mod, n):
    def loss(x):
        def step(y, _):
            return np_mod.sin(y) * 1.01 + 0.1, None
        y, _ = lax_mod.scan(step, x, None, length=n)
        return np_mod.sum(y)
    return loss


def grad_while(ctx: Context):
    x = np.linspace(-2.0, 2.0, 64, dtype=np.float32)
    n = 1000

    def irax_make():
        irax, inp, ilax = _irax()
        g = irax.jit(irax.grad(_while_loss(inp, ilax)))
        dx, dn = irax.device_put(x), irax.device_put(np.int32(n))
        return lambda: irax.block_until_ready(g(dx, dn))

    def jax_make():
        jax, jjnp, jlax = _jx()
        g = jax.jit(jax.grad(_scan_loss(jjnp, jlax, n)))
        dx = jax.device_put(x)
        return lambda: jax.block_until_ready(g(dx))

    return [measure(ctx, "gradwhile", "jit grad through 1000-trip while [64 f32]",
                    {"irax": irax_make, "jax": jax_make}, reps=ctx.r(5, 2),
                    notes=["JAX: the same as a 1000-step scan"])]


# extra rows kept from the first suite


def random_sampling(ctx: Context):
    n = 1_000_000
    cases = {"normal": (lambda r, k: r.normal(k, (n,)), lambda g: g.standard_normal(n, np.float32)),
             "uniform": (lambda r, k: r.uniform(k, (n,)), lambda g: g.random(n, np.float32)),
             "gamma(a=2.5)": (lambda r, k: r.gamma(k, 2.5, (n // 10,)),
                              lambda g: g.standard_gamma(2.5, n // 10))}
    rows = []
    for name, (f, f_np) in cases.items():
        def make(lib, f=f, f_np=f_np):
            def setup():
                if lib == "numpy":
                    g = np.random.default_rng(0)
                    return lambda: f_np(g)
                mod = _mod(lib)[0]
                fn = mod.jit(lambda k: f(mod.random, k))
                key = mod.random.PRNGKey(0)
                return lambda: mod.block_until_ready(fn(key))
            return setup
        size = n // 10 if name.startswith("gamma") else n
        # different generators: values are not comparable, only shapes and dtypes
        row = measure(ctx, "random", f"jit random.{name} [{size}]",
                      {lib: make(lib) for lib in ("irax", "jax", "numpy")}, reps=ctx.r(7, 3),
                      notes=["values differ by design (other PRNG)"])
        row.notes = [s for s in row.notes if not s.startswith("mismatch: max abs")]
        rows.append(row)
    return rows


def sorting(ctx: Context):
    n = 100_000
    x = np.random.default_rng(0).standard_normal(n).astype(np.float32)

    def make_sort(lib):
        def setup():
            if lib == "numpy":
                return lambda: np.argsort(x, kind="stable")
            mod, np_mod, _ = _mod(lib)
            f, dx = mod.jit(np_mod.argsort), mod.device_put(x)
            return lambda: mod.block_until_ready(f(dx))
        return setup

    def make_perm(lib):
        def setup():
            if lib == "numpy":
                g = np.random.default_rng(0)
                return lambda: g.permutation(n)
            mod = _mod(lib)[0]
            f, key = mod.jit(lambda k: mod.random.permutation(k, n)), mod.random.PRNGKey(0)
            return lambda: mod.block_until_ready(f(key))
        return setup

    libs = ("irax", "jax", "numpy")
    rows = [measure(ctx, "sort", f"jit jnp.argsort [{n} f32]",
                    {lib: make_sort(lib) for lib in libs}, reps=ctx.r(7, 3))]
    perm = measure(ctx, "sort", f"jit random.permutation [{n}]",
                   {lib: make_perm(lib) for lib in libs}, reps=ctx.r(7, 3),
                   notes=["values differ by design (other PRNG)"])
    perm.notes = [s for s in perm.notes if not s.startswith("mismatch: max abs")]
    return rows + [perm]


def pmap_step(ctx: Context):
    devices = 4
    x = np.random.default_rng(2).standard_normal((devices, 256, 256)).astype(np.float32)
    w = (np.random.default_rng(3).standard_normal((256, 256)) / 16).astype(np.float32)

    def step(np_mod, lax_mod, w, x):
        h = np_mod.tanh(x @ w)
        return h / lax_mod.psum(np_mod.sum(h), "i")

    def make(lib):
        def setup():
            mod, np_mod, lax_mod = _mod(lib)
            if lib == "irax":
                mod.config.update("jax_num_cpu_devices", devices)
            elif mod.local_device_count() < devices:
                raise RuntimeError(f"JAX has {mod.local_device_count()} devices")
            f = mod.pmap(lambda w, x: step(np_mod, lax_mod, w, x), "i", in_axes=(None, 0))
            return lambda: mod.block_until_ready(f(w, x))
        return setup

    try:
        return [measure(ctx, "pmap", f"pmap tanh layer + psum [{devices} cpu devices]",
                        {"irax": make("irax"), "jax": make("jax")},
                        reps=ctx.r(7, 3))]
    finally:
        if "irax" in ctx.libs:
            _irax()[0].config.update("jax_num_cpu_devices", 1)


EAGER = {"eager": eager_chain, "fori": eager_fori, "gradwhile": grad_while,
         "random": random_sampling, "sort": sorting, "pmap": pmap_step}
