"""The workloads of benchmarks/run.py (issue 15's table), each a function of a Context
returning table rows. Each library's setup imports that library only, so that a child
process (``run.py --child NAME --lib LIB``) measures one library's peak RSS alone."""

from __future__ import annotations

import compileall
import importlib.util
import json
import math
import os
import subprocess
import sys
import tempfile

import numpy as np
from _common import Context, Row, _jax, measure, reason, wait_for_background_compiles

HERE = os.path.dirname(os.path.abspath(__file__))


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


def _rng(seed=0):
    return np.random.default_rng(seed)


def _f32(*shape, seed=0, scale=1.0):
    return (_rng(seed).standard_normal(shape) * scale).astype(np.float32)


def _jitted(lib, fn, *args, transform=None):
    """Setup of a jitted call of ``fn(np_mod, lax_mod, *args)`` in irax or JAX, args on the
    device; ``transform(mod, f)`` wraps the function before jit (grad, vmap, ...)."""
    def make():
        mod, np_mod, lax_mod = _irax() if lib == "irax" else _jx()
        f = (lambda *a: fn(np_mod, lax_mod, *a))
        if transform is not None:
            f = transform(mod, f)
        f = mod.jit(f)
        dev = [mod.device_put(a) for a in args]
        return lambda: mod.block_until_ready(f(*dev))
    return make


def _both(fn, *args, transform=None) -> dict:
    return {lib: _jitted(lib, fn, *args, transform=transform) for lib in ("irax", "jax")}


# 1. elementwise and the bandwidth floor


def elementwise(ctx: Context):
    n = 5000
    x = _f32(n, n)

    def power(np_mod, lax_mod, x):
        return x + x * x + x * x * x

    makers = _both(power, x)
    makers["numpy"] = lambda: (lambda: power(np, None, x))
    row = measure(ctx, "elementwise", f"jit x + x*x + x*x*x [{n}x{n} f32]", makers,
                  reps=ctx.r(9, 3))
    out = np.empty_like(x)
    floor = measure(ctx, "elementwise", "bandwidth floor: np.copyto 100 MB",
                    {"numpy": lambda: (lambda: np.copyto(out, x))}, reps=ctx.r(9, 3),
                    notes=["reads 100 MB, writes 100 MB"])
    t_floor = floor.times.get("numpy")
    if t_floor and row.times.get("irax"):
        r = row.times["irax"] / t_floor
        row.extra["irax/floor"] = r
        row.notes.append(f"irax/floor {r:.2f}")
    return [row, floor]


# 2. dispatch


def dispatch(ctx: Context):
    x = np.ones((4,), np.float32)
    makers = _both(lambda np_mod, lax_mod, x: x + 1.0, x)
    makers["numpy"] = lambda: (lambda: x + 1.0)
    return [measure(ctx, "dispatch", "dispatch: cached jit x + 1 [4 f32], per call", makers,
                    reps=ctx.r(9, 3), notes=["args on the device"])]


# 3-4. cold compile and warm start of a 200-op function


def chain200(np_mod, consts):
    """A 200-op elementwise/reduction chain on a small array (sin, mul, add, tanh, exp,
    a mean every 25 ops); ``consts`` (200 floats) baked in as literals."""
    def f(x):
        y = x
        for i, c in enumerate(consts):
            k = i % 5
            if i % 25 == 24:
                y = y - np_mod.mean(y) * c
            elif k == 0:
                y = np_mod.sin(y)
            elif k == 1:
                y = y * c
            elif k == 2:
                y = y + c
            elif k == 3:
                y = np_mod.tanh(y)
            else:
                y = np_mod.exp(y * 0.5)
        return y
    return f


def _consts(seed: int) -> list:
    return [float(v) for v in 0.5 + 0.5 * _rng(seed).random(200)]


def cold_compile(ctx: Context):
    x = _f32(64, seed=3)
    counters = {"irax": 1000, "jax": 1000}

    def fresh(lib):
        """New constants at each call; repetition r of either library uses the same."""
        counters[lib] += 1
        return _consts(counters[lib])

    def irax_make(tiered: bool):
        def make():
            irax, inp, _ = _irax()
            old = irax.config.irax_compilation_cache_dir

            def call():
                consts = fresh("irax")
                irax.config.update("irax_compilation_cache_dir",
                                   tempfile.mkdtemp(prefix="irax-cold-"))
                irax.config.update("irax_tiered_jit", tiered)
                try:
                    return irax.block_until_ready(irax.jit(chain200(inp, consts))(x))
                finally:
                    irax.config.update("irax_compilation_cache_dir", old)
                    irax.config.update("irax_tiered_jit", True)
            return call
        return make

    def jax_make():
        jax, jjnp, _ = _jx()
        return lambda: jax.block_until_ready(jax.jit(chain200(jjnp, fresh("jax")))(x))

    rows = [measure(ctx, "cold", "cold: trace+compile+run fresh 200-op fn", {
        "irax": irax_make(True), "jax": jax_make}, reps=ctx.r(5, 1), warm=False,
        after=wait_for_background_compiles,
        notes=["unique constants per rep; irax: empty cache dir, tiered jit (the first "
               "call interpreted while IREE compiles in the background)"])]
    counters.update(irax=2000, jax=2000)   # constants the first row did not compile
    rows.append(measure(ctx, "cold", "cold, compiled before the first call", {
        "irax": irax_make(False), "jax": jax_make}, reps=ctx.r(3, 1), warm=False,
        notes=["irax_tiered_jit=False: IREE's full compile of the 200 ops (40 sines)"]))
    return rows


_CHILD_IRAX = """
import json, sys, time
t0 = time.perf_counter()
import irax
import irax.numpy as inp
t1 = time.perf_counter()
sys.path.insert(0, {here!r})
import numpy as np
from _common import peak_rss_mb
from workloads import _consts, chain200
x = np.asarray(np.random.default_rng(3).standard_normal(64), np.float32)
f = irax.jit(chain200(inp, _consts(5)))
t2 = time.perf_counter()
out = irax.block_until_ready(f(x))
t3 = time.perf_counter()
print(json.dumps({{"import": t1 - t0, "first": t3 - t2, "sum": float(np.sum(np.asarray(out))),
                  "rss_mb": peak_rss_mb()}}))
"""

_CHILD_JAX = """
import json, sys, time
t0 = time.perf_counter()
import jax
import jax.numpy as jjnp
t1 = time.perf_counter()
sys.path.insert(0, {here!r})
from _common import jax_platform_note, peak_rss_mb
if jax_platform_note():
    jax.config.update("jax_platforms", "cpu")
import numpy as np
from workloads import _consts, chain200
x = np.asarray(np.random.default_rng(3).standard_normal(64), np.float32)
f = jax.jit(chain200(jjnp, _consts(5)))
t2 = time.perf_counter()
out = jax.block_until_ready(f(x))
t3 = time.perf_counter()
print(json.dumps({{"import": t1 - t0, "first": t3 - t2, "sum": float(np.sum(np.asarray(out))),
                  "rss_mb": peak_rss_mb()}}))
"""

_CHILD_NUMPY = """
import json, time
t0 = time.perf_counter()
import numpy
t1 = time.perf_counter()
print(json.dumps({"import": t1 - t0, "first": 0.0, "sum": 0.0, "rss_mb": 0.0}))
"""


def _child(code: str, env: dict) -> dict:
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env=env, timeout=600)
    if p.returncode != 0:
        raise RuntimeError((p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[-1])
    return json.loads(p.stdout.strip().splitlines()[-1])


def _byte_compile_irax() -> None:
    """Writes the bytecode of irax's modules where it is missing or stale, as ``pip
    install`` wrote JAX's and NumPy's: an editable install of irax run under
    PYTHONDONTWRITEBYTECODE=1 has none, and each fresh process would compile its sources
    again (565 ms of import instead of about 200 on a 2-core machine)."""
    spec = importlib.util.find_spec("irax")
    if spec is not None and spec.submodule_search_locations:
        compileall.compile_dir(spec.submodule_search_locations[0], quiet=1)


def warm_start(ctx: Context):
    cache = tempfile.mkdtemp(prefix="irax-warm-")
    env = dict(os.environ, IRAX_COMPILATION_CACHE_DIR=cache, IRAX_ENABLE_COMPILATION_CACHE="1")
    codes = {"irax": _CHILD_IRAX.format(here=HERE), "jax": _CHILD_JAX.format(here=HERE),
             "numpy": _CHILD_NUMPY}
    libs = [lib for lib in ("irax", "jax", "numpy") if lib in ctx.libs]
    first = Row("warm start: fresh process, first call of 200-op fn", "warm",
                notes=["the first call alone (the jitted function and its argument made "
                       "before the clock starts, after the imports); irax: persistent cache "
                       "filled (a function record: not traced); JAX: no persistent cache"])
    traced = Row("warm start, traced (irax_function_records off)", "warm",
                 notes=["irax: the function traced, its program found by the traced module"])
    imp = Row("import time (fresh process)", "warm")
    if "irax" in libs:
        _byte_compile_irax()
        if sys.flags.dont_write_bytecode:
            imp.notes.append("irax's modules byte-compiled first, as pip install does "
                             "(PYTHONDONTWRITEBYTECODE=1 is set)")
    samples = {lib: [] for lib in libs}
    samples["traced"] = []
    env_traced = dict(env, IRAX_FUNCTION_RECORDS="0")
    notes = []
    if "irax" in libs:
        try:
            _child(codes["irax"], env)  # fills the cache
        except Exception as e:  # noqa: BLE001
            notes.append(f"fail: irax: {reason(e)}")
            libs.remove("irax")
    reps = ctx.r(5, 2)
    for _ in range(reps):
        for lib in list(libs):
            try:
                samples[lib].append(_child(codes[lib], env))
                if lib == "irax":
                    samples["traced"].append(_child(codes[lib], env_traced))
            except Exception as e:  # noqa: BLE001
                notes.append(f"fail: {lib}: {reason(e)}")
                libs.remove(lib)
    for row in (first, traced, imp):
        row.notes += notes
        row.reps = reps
    key = {"irax": "first", "jax": "first"}
    if samples["traced"]:
        traced.times["irax"] = float(np.median([d["first"] for d in samples.pop("traced")]))
    for lib, s in samples.items():
        if not s:
            continue
        imp.times[lib] = float(np.median([d["import"] for d in s]))
        if lib in key:
            first.times[lib] = float(np.median([d[key[lib]] for d in s]))
            first.rss_mb[lib] = max(d["rss_mb"] for d in s)
    if samples.get("irax") and samples.get("jax"):
        a, b = samples["irax"][0]["sum"], samples["jax"][0]["sum"]
        if not math.isclose(a, b, rel_tol=1e-3, abs_tol=1e-3):
            first.notes.append(f"mismatch: sum {a:.6g} vs {b:.6g}")
    if "jax" in first.times:
        traced.times["jax"] = first.times["jax"]
    return [first, traced, imp]


# 5. scan RNN


def _rnn(np_mod, lax_mod, w, u, b, xs, h0):
    def step(h, x):
        return np_mod.tanh(h @ w + x @ u + b), None
    h, _ = lax_mod.scan(step, h0, xs)
    return h


def _rnn_np(w, u, b, xs, h0):
    h = h0
    for x in xs:
        h = np.tanh(h @ w + x @ u + b)
    return h


def scan_rnn(ctx: Context):
    d = 64
    args = (_f32(d, d, seed=1, scale=0.125), _f32(d, d, seed=2, scale=0.125),
            _f32(d, seed=3, scale=0.1), _f32(1000, d, seed=4), np.zeros(d, np.float32))
    makers = _both(_rnn, *args)
    makers["numpy"] = lambda: (lambda: _rnn_np(*args))
    rows = [measure(ctx, "scan", "jit lax.scan RNN 1000 steps, hidden 64", makers,
                    reps=ctx.r(7, 3), notes=["NumPy: a Python loop"])]
    loss = (lambda np_mod, lax_mod, *a: np_mod.sum(_rnn(np_mod, lax_mod, *a)))
    grads = _both(loss, *args, transform=lambda mod, f: mod.grad(f, argnums=(0, 1)))
    rows.append(measure(ctx, "scan", "jit grad of the scan RNN (w, u)", grads,
                        reps=ctx.r(7, 3), notes=["backward: a reverse scan over the VJP"]))
    return rows


# 6. Hessian


def hessian(ctx: Context):
    a, x = _f32(50, 50, seed=5, scale=0.15), _f32(50, seed=6)

    def f_of(np_mod):
        return lambda a, x: np_mod.sum(np_mod.tanh(a @ x) ** 2)

    def make(lib):
        def setup():
            mod, np_mod, _ = _irax() if lib == "irax" else _jx()
            h = mod.jit(mod.jacfwd(mod.jacrev(f_of(np_mod), argnums=1), argnums=1))
            da, dx = mod.device_put(a), mod.device_put(x)
            return lambda: mod.block_until_ready(h(da, dx))
        return setup

    return [measure(ctx, "hessian", "jit(jacfwd(jacrev)) Hessian, 50-dim",
                    {"irax": make("irax"), "jax": make("jax")},
                    reps=ctx.r(7, 3))]


# 7-8. MLP train step and per-example grads


def _mlp_params(sizes=(784, 512, 512, 10), seed=0):
    rng = _rng(seed)
    return [((rng.standard_normal((a, b)) / np.sqrt(a)).astype(np.float32),
             np.zeros(b, np.float32)) for a, b in zip(sizes[:-1], sizes[1:])]


def _mlp_data(batch=128, seed=1):
    rng = _rng(seed)
    x = rng.standard_normal((batch, 784)).astype(np.float32)
    y = np.eye(10, dtype=np.float32)[rng.integers(0, 10, batch)]
    return x, y


def _mlp_loss(mod, np_mod):
    def loss(params, x, y):
        h = x
        for w, b in params[:-1]:
            h = np_mod.maximum(h @ w + b, 0.0)
        w, b = params[-1]
        z = h @ w + b
        logp = z - mod.nn.logsumexp(z, axis=-1, keepdims=True)
        return -np_mod.mean(np_mod.sum(logp * y, axis=-1))
    return loss


def _sgd_step(mod, np_mod, lr=0.01):
    vg = mod.value_and_grad(_mlp_loss(mod, np_mod))

    def step(params, x, y):
        loss, grads = vg(params, x, y)
        new = [(w - lr * gw, b - lr * gb) for (w, b), (gw, gb) in zip(params, grads)]
        return new, loss
    return step


def _np_sgd_step(params, x, y, lr=0.01):
    """The same step with hand-written backpropagation in NumPy."""
    hs, h = [x], x
    for w, b in params[:-1]:
        h = np.maximum(h @ w + b, 0.0)
        hs.append(h)
    w, b = params[-1]
    z = h @ w + b
    z = z - z.max(axis=-1, keepdims=True)
    e = np.exp(z)
    p = e / e.sum(axis=-1, keepdims=True)
    loss = -np.mean(np.sum((z - np.log(e.sum(axis=-1, keepdims=True))) * y, axis=-1))
    dz = (p - y) / x.shape[0]
    new = []
    for i in range(len(params) - 1, -1, -1):
        w, b = params[i]
        gw, gb = hs[i].T @ dz, dz.sum(0)
        if i:
            dz = (dz @ w.T) * (hs[i] > 0)
        new.append((w - lr * gw, b - lr * gb))
    return new[::-1], loss


def mlp_step(ctx: Context):
    params, (x, y) = _mlp_params(), _mlp_data()

    def make(lib):
        def setup():
            mod, np_mod, _ = _irax() if lib == "irax" else _jx()
            step = mod.jit(_sgd_step(mod, np_mod))
            p, dx, dy = mod.device_put(params), mod.device_put(x), mod.device_put(y)
            return lambda: mod.block_until_ready(step(p, dx, dy))
        return setup

    makers = {"irax": make("irax"), "jax": make("jax"),
              "numpy": lambda: (lambda: _np_sgd_step(params, x, y))}
    return [measure(ctx, "mlp", "jit MLP train step 784-512-512-10, batch 128", makers,
                    reps=ctx.r(7, 3),
                    notes=["NumPy: hand-written backprop"])]


def mlp_loop(ctx: Context):
    """Ten SGD steps in one jit (a ``fori_loop`` over the step): irax runs the loop from
    the host, each step a program on the thread pool (``transforms/split_loops.py``); the
    second row keeps the loop inside one program, which runs on one thread."""
    params, (x, y) = _mlp_params(), _mlp_data()
    trips = 10

    def make(lib, split=True):
        def setup():
            mod, np_mod, lax_mod = _irax() if lib == "irax" else _jx()
            step = _sgd_step(mod, np_mod)

            def train(p, x, y):
                return lax_mod.fori_loop(0, trips, lambda i, c: step(c[0], x, y),
                                         (p, np_mod.zeros((), np_mod.float32)))
            f = mod.jit(train)
            p, dx, dy = mod.device_put(params), mod.device_put(x), mod.device_put(y)
            if lib == "irax":   # compiled now, under the option (it keeps its program)
                with mod.config.override("irax_cpu_split_loops", split):
                    f.lower(p, dx, dy).compile()
            return lambda: mod.block_until_ready(f(p, dx, dy))
        return setup

    def numpy_loop():
        p = params
        for _ in range(trips):
            p, loss = _np_sgd_step(p, x, y)
        return p, loss

    rows = [measure(ctx, "mlploop", f"jit MLP training loop, {trips} steps in a fori_loop",
                    {"irax": make("irax"), "jax": make("jax"), "numpy": lambda: numpy_loop},
                    reps=ctx.r(5, 2), notes=["784-512-512-10, batch 128; NumPy: a Python "
                                             "loop of the hand-written step"])]
    rows.append(measure(ctx, "mlploop", "same, the loop inside one program",
                        {"irax": make("irax", split=False), "jax": make("jax")},
                        reps=ctx.r(5, 2), notes=["irax_cpu_split_loops=False: IREE drives "
                                                 "the loop, on one thread"]))
    return rows


def per_example_grads(ctx: Context):
    params, (x, y) = _mlp_params(), _mlp_data()

    def make(lib):
        def setup():
            mod, np_mod, _ = _irax() if lib == "irax" else _jx()
            loss = _mlp_loss(mod, np_mod)

            def one(p, xe, ye):
                return loss(p, xe[None], ye[None])
            g = mod.jit(mod.vmap(mod.grad(one), in_axes=(None, 0, 0)))
            p, dx, dy = mod.device_put(params), mod.device_put(x), mod.device_put(y)
            return lambda: mod.block_until_ready(g(p, dx, dy))
        return setup

    return [measure(ctx, "pergrad", "jit(vmap(grad)) per-example MLP grads, batch 128",
                    {"irax": make("irax"), "jax": make("jax")},
                    reps=ctx.r(7, 3))]


# 9. tiny CNN


def cnn_step(ctx: Context):
    import cnn

    size, batch = 28, 32
    params = cnn._params(size)
    x, labels = cnn._data(batch, size)

    def make(lib):
        def setup():
            mod, np_mod, lax_mod = _irax() if lib == "irax" else _jx()
            step = mod.jit(cnn._step(mod.tree, mod.grad(cnn._loss(lax_mod, np_mod))))
            p, dx, dl = mod.device_put(params), mod.device_put(x), mod.device_put(labels)
            return lambda: mod.block_until_ready(step(p, dx, dl))
        return setup

    return [measure(ctx, "cnn", f"jit tiny CNN SGD step [{batch}x{size}x{size}x1]",
                    {"irax": make("irax"), "jax": make("jax")},
                    reps=ctx.r(7, 3), notes=["model of benchmarks/cnn.py"])]


# 10. attention


def _attention(np_mod, lax_mod, x, wq, wk, wv, wo, heads=8):
    t, dm = x.shape
    dh = dm // heads

    def split(a):
        return np_mod.transpose(np_mod.reshape(a, (t, heads, dh)), (1, 0, 2))
    q, k, v = split(x @ wq), split(x @ wk), split(x @ wv)
    s = q @ np_mod.transpose(k, (0, 2, 1)) / np.float32(math.sqrt(dh))
    s = s - np_mod.max(s, axis=-1, keepdims=True)
    e = np_mod.exp(s)
    p = e / np_mod.sum(e, axis=-1, keepdims=True)
    o = np_mod.reshape(np_mod.transpose(p @ v, (1, 0, 2)), (t, dm))
    return o @ wo


def attention(ctx: Context):
    args = (_f32(128, 512, seed=7),) + tuple(
        _f32(512, 512, seed=8 + i, scale=1 / math.sqrt(512)) for i in range(4))
    makers = _both(_attention, *args)
    makers["numpy"] = lambda: (lambda: _attention(np, None, *args))
    return [measure(ctx, "attention", "jit attention fwd, 8 heads x 128 tok x 64", makers,
                    reps=ctx.r(7, 3), notes=["d_model 512"])]


from workloads_eager import EAGER  # noqa: E402 - the second half of the table

WORKLOADS = {
    "elementwise": elementwise, "dispatch": dispatch, "cold": cold_compile,
    "warm": warm_start, "scan": scan_rnn, "hessian": hessian, "mlp": mlp_step,
    "mlploop": mlp_loop,
    "pergrad": per_example_grads, "cnn": cnn_step, "attention": attention, **EAGER,
}
