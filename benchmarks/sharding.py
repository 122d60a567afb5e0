"""Multi-device timings: a data-parallel MLP step on 1 and 2 devices, and each collective
on 2 and 4 devices, for irax and JAX (host CPU devices for both), as best times.

    python benchmarks/sharding.py [--quick] [--cpu-driver local-sync]

``speed-up`` is the 1-device step's time over the sharded step's (issue 16 asks >= 1.3x
on 2 devices of a 2-core machine). irax runs ``jit(shard_map(f))`` as a program per
device on threads of their own ("threads", the default with more cores than devices;
measured here whatever the cores), as one multi-device program with each device's
blocks at its boundary ("one program", the default otherwise), or as the stacked
multi-device program, which takes its operands whole on the first device and gathers
its results there ("stacked", ``irax_device_program=False``). ``--cpu-driver local-sync`` keeps
every irax program on one core (the 1-device step too), which shows what the threads
gain per core. A collective's row is ``jit(shard_map(psum))`` and friends over a 1-D
mesh: the whole call, arguments already on their devices. "sharded jit" is the
single-device step under ``jit(in_shardings=, out_shardings=)``: irax partitions it
(``irax-partition``) into one multi-device program. "5-step fori_loop" is five such steps
in a ``lax.fori_loop`` under the same shardings: the loop is partitioned too (its body on
the devices' blocks, on threads as the loop over the replayed body), against the
unsharded loop on one device. "jit around shard_map" is a jit whose
gradients come from a shard_map and whose update is outside it: irax partitions the whole
program over the map's mesh (the map inlined). "one jit on 2 threads" calls one jitted
function from two threads on arrays committed to two devices (``device_put(x, device)``):
each call runs on its array's device, so they overlap.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys

import numpy as np

import irax
import irax.numpy as inp
from irax import lax as ilax

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import _best, _jax, wait_for_background_compiles  # noqa: E402


def _libs():
    irax.config.update("jax_num_cpu_devices", 4)
    libs = {"irax": (irax, inp, ilax, irax.sharding.PartitionSpec, irax.shard_map)}
    jax, jnp = _jax()   # with 4 host devices
    if jax is not None:
        from jax import lax
        from jax.sharding import AxisType, PartitionSpec

        libs["jax"] = (jax, jnp, lax, PartitionSpec, jax.shard_map, AxisType)
    return libs


def _mesh(lib, name, n):
    mod = lib[0]
    if name == "jax":
        return mod.make_mesh((n,), ("d",), axis_types=(lib[5].Auto,),
                             devices=mod.devices()[:n])
    return mod.make_mesh((n,), ("d",), devices=mod.devices()[:n])


def _put(lib, mesh, x, spec):
    mod = lib[0]
    return mod.device_put(x, mod.sharding.NamedSharding(mesh, spec))


def _step_fns(lib):
    """The MLP step on one device, its per-device form for shard_map, the per-device
    gradients alone and the update."""
    mod, np_, lax = lib[:3]

    def loss(p, x, y):
        return np_.mean((np_.tanh(x @ p["w1"]) @ p["w2"] - y) ** 2)

    def update(p, g):
        return mod.tree_util.tree_map(lambda a, b: a - 0.1 * b, p, g)

    def single(p, x, y):
        return update(p, mod.grad(loss)(p, x, y))

    def local(p, x, y):
        return update(p, lax.pmean(mod.grad(loss)(p, x, y), "d"))

    def grads(p, x, y):
        return lax.pmean(mod.grad(loss)(p, x, y), "d")

    return single, local, grads, update


def _timed(mod, f, *args, number: int = 3, warm: int = 1):
    """The best of 5 repetitions of ``number`` calls, per call, after a first call, the
    compilation it started and ``warm`` calls more (IREE's thread pool reaches its
    steady state after some calls)."""
    def call():
        return mod.block_until_ready(f(*args))

    call()
    wait_for_background_compiles()   # (a first call interpreted: tiered jit)
    for _ in range(warm):
        call()
    return _best(call, repeat=5, number=number)


def step_rows(libs, quick: bool):
    rng = np.random.default_rng(0)
    d_in, d_h, batch = 256, 512, 2048 if not quick else 512
    params = {"w1": rng.normal(size=(d_in, d_h)).astype(np.float32) * 0.05,
              "w2": rng.normal(size=(d_h, 10)).astype(np.float32) * 0.05}
    x = rng.normal(size=(batch, d_in)).astype(np.float32)
    y = rng.normal(size=(batch, 10)).astype(np.float32)
    rows = []
    for name, lib in libs.items():
        mod, P, shard_map = lib[0], lib[3], lib[4]
        single, local, grads, update = _step_fns(lib)
        t1 = _timed(mod, mod.jit(single), params, x, y)
        mesh = _mesh(lib, name, 2)
        mapped = shard_map(local, mesh=mesh, in_specs=(P(), P("d"), P("d")), out_specs=P())
        xs, ys = _put(lib, mesh, x, P("d")), _put(lib, mesh, y, P("d"))
        ps = {k: _put(lib, mesh, v, P()) for k, v in params.items()}
        for kind in KINDS if name == "irax" else ("jit",):
            with _kind(mod, kind):
                t2 = _timed(mod, mod.jit(mapped), ps, xs, ys)
            rows.append((f"mlp step {name} ({kind})", t1, t2, t1 / t2))
        # the gradients from a shard_map, the update around it, in one jit
        mapped_grads = shard_map(grads, mesh=mesh, in_specs=(P(), P("d"), P("d")),
                                 out_specs=P())
        around = mod.jit(lambda p, x, y, u=update, g=mapped_grads: u(p, g(p, x, y)))
        for kind in KINDS if name == "irax" else ("jit",):
            with _kind(mod, kind):
                t4 = _timed(mod, around, ps, xs, ys)
            label = "jit around shard_map" + (f", {kind}" if name == "irax" else "")
            rows.append((f"mlp step {name} ({label})", t1, t4, t1 / t4))
        # the single-device step, partitioned from its shardings (irax-partition)
        rep, split = (mod.sharding.NamedSharding(mesh, s) for s in (P(), P("d")))
        for kind in KINDS[:2] if name == "irax" else ("jit",):
            sharded = mod.jit(single, in_shardings=(rep, split, split), out_shardings=rep)
            with _kind(mod, kind):
                t3 = _timed(mod, sharded, ps, xs, ys)
            label = "sharded jit" if name != "irax" else f"sharded jit, {kind}"
            rows.append((f"mlp step {name} ({label})", t1, t3, t1 / t3))
        # five steps in a fori_loop, partitioned (the loop runs on the devices' blocks)
        def steps(p, x, y, s=single, lax=lib[2]):
            return lax.fori_loop(0, 5, lambda i, q: s(q, x, y), p)
        t5 = _timed(mod, mod.jit(steps), params, x, y, number=1)
        for kind in KINDS[:2] if name == "irax" else ("jit",):
            looped = mod.jit(steps, in_shardings=(rep, split, split), out_shardings=rep)
            with _kind(mod, kind):
                t6 = _timed(mod, looped, ps, xs, ys, number=1)
            label = "sharded jit" if name != "irax" else f"sharded jit, {kind}"
            rows.append((f"5-step fori_loop {name} ({label})", t5, t6, t5 / t6))
    return rows


#: how irax runs a top-level shard_map or partitioned jit: a program per device on
#: threads; one multi-device program with the devices' blocks at its boundary; the
#: stacked multi-device program (operands whole on the first device, results gathered)
KINDS = ("threads", "one program", "stacked")


@contextlib.contextmanager
def _kind(mod, kind: str):
    """irax's way ``kind`` (threads even without a spare core: ``spmd.cores`` taken as
    one more than the devices, to measure them)."""
    if not hasattr(mod, "config") or not hasattr(mod.config, "irax_shard_map_threads"):
        yield
        return
    from irax.transforms import spmd

    cores = spmd.cores
    if kind == "threads":
        spmd.cores = lambda: 1 << 10
    try:
        with mod.config.override("irax_shard_map_threads", kind == "threads"), \
                mod.config.override("irax_device_program", kind != "stacked"):
            yield
    finally:
        spmd.cores = cores


def overlap_rows(libs):
    """Whether the devices of one program overlap: a chain of 30 small dependent products
    (8x256 by 256x256, then tanh) per device, one device against two in one program
    (each a chain of its own). 2.0x is no overlap, 1.0x full overlap; with the default
    driver such small programs run on the calling thread (no overlap possible), with
    ``--cpu-driver local-task`` on IREE's thread pool."""
    mod, np_, P = libs["irax"][0], libs["irax"][1], libs["irax"][3]
    rng = np.random.default_rng(0)
    w = (rng.standard_normal((256, 256)) / 16).astype(np.float32)

    def chain(x):
        for _ in range(30):
            x = np_.tanh(x @ w)
        return x

    x = rng.standard_normal((16, 256)).astype(np.float32)
    mesh = _mesh(libs["irax"], "irax", 2)
    xs = _put(libs["irax"], mesh, x, P("d"))
    t1 = _timed(mod, mod.jit(chain), x[:8], number=20, warm=20)
    rows = []
    for kind in KINDS[1:]:
        f = mod.jit(mod.shard_map(chain, mesh=mesh, in_specs=P("d"), out_specs=P("d")))
        with _kind(mod, kind):
            t2 = _timed(mod, f, xs, number=20, warm=20)
        rows.append((f"30 products per device, 2 devices ({kind})", t1, t2, t2 / t1))
    return rows


def threads_rows(libs):
    """One jitted function called from two threads, each on an array committed to its own
    device (``device_put(x, device)``): the jit runs on that device, so the two calls
    overlap (2.0x: they take turns, 1.0x: full overlap). Against one thread's calls on
    one device. irax's programs stay on their calling thread here (``local-sync``, one
    core per device, as JAX's devices): under "auto" a program this size may time faster
    on IREE's pool alone, and then each call takes both cores."""
    from concurrent.futures import ThreadPoolExecutor

    rng = np.random.default_rng(0)
    w = (rng.standard_normal((256, 256)) / 16).astype(np.float32)
    x = rng.standard_normal((16, 256)).astype(np.float32)
    rows = []
    pool = ThreadPoolExecutor(2)
    for name, lib in libs.items():
        mod, np_ = lib[0], lib[1]

        def chain(v, np_=np_):
            for _ in range(30):
                v = np_.tanh(v @ w)
            return v

        f = mod.jit(chain)
        on = [mod.device_put(x, d) for d in mod.devices()[:2]]

        def calls(a, f=f, mod=mod, n=20):
            for _ in range(n):
                mod.block_until_ready(f(a))

        one_core = mod.config.override("irax_cpu_driver", "local-sync") \
            if hasattr(mod.config, "irax_cpu_driver") else contextlib.nullcontext()
        with one_core:
            for a in on:
                calls(a)
            wait_for_background_compiles()
            t1 = _best(lambda on=on: calls(on[0]), repeat=5, number=1) / 20
            t2 = _best(lambda on=on: list(pool.map(calls, on)), repeat=5, number=1) / 20
        rows.append((f"one jit on 2 threads, 2 committed devices ({name})", t1, t2, t2 / t1))
    return rows


COLLECTIVES = ("identity", "psum", "all_gather", "ppermute", "psum_scatter", "all_to_all")


def _collective(lib, coll: str, n: int, size: int):
    np_, lax = lib[1], lib[2]
    if coll == "identity":
        return lambda v: v * 1.0
    if coll == "psum":
        return lambda v: lax.psum(v, "d")
    if coll == "all_gather":
        return lambda v: lax.all_gather(v, "d", tiled=True)[:size]
    if coll == "ppermute":
        return lambda v: lax.ppermute(v, "d", perm=[(k, (k + 1) % n) for k in range(n)])
    if coll == "all_to_all":   # (size, ) as (n, size / n) blocks, one to each device
        return lambda v: lax.all_to_all(v.reshape(n, size // n), "d", 0, 0,
                                        tiled=True).reshape(size)
    return lambda v: np_.tile(lax.psum_scatter(v, "d", tiled=True), n)


def collective_rows(libs, quick: bool):
    size = 1 << (16 if quick else 20)
    rows = []
    for n in (2, 4):
        x = np.random.default_rng(1).normal(size=(n * size,)).astype(np.float32)
        for coll in COLLECTIVES:
            out = {}
            for name, lib in libs.items():
                mod, P, shard_map = lib[0], lib[3], lib[4]
                mesh = _mesh(lib, name, n)
                f = shard_map(_collective(lib, coll, n, size), mesh=mesh, in_specs=P("d"),
                              out_specs=P("d"))
                xs = _put(lib, mesh, x, P("d"))
                with _kind(mod, "one program"):
                    out[name] = _timed(mod, mod.jit(f), xs)
                if name == "irax":
                    with _kind(mod, "stacked"):
                        out["stacked"] = _timed(mod, mod.jit(f), xs)
                    with _kind(mod, "threads"):
                        out["threads"] = _timed(mod, mod.jit(f), xs)
            rows.append((f"{coll} {n} devices, {size} f32 each", out.get("stacked"),
                         out.get("irax"), out.get("threads"), out.get("jax")))
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--cpu-driver", default=None, help="irax_cpu_driver for irax")
    args = ap.parse_args(argv)
    if args.cpu_driver:   # before the first device is made
        irax.config.update("irax_cpu_driver", args.cpu_driver)
    libs = _libs()
    print(f"{'data-parallel step':42s} {'1 device':>10s} {'2 devices':>10s} {'speed-up':>9s}")
    for name, t1, t2, s in step_rows(libs, args.quick):
        print(f"{name:42s} {t1 * 1e3:9.2f}ms {t2 * 1e3:9.2f}ms {s:8.2f}x")
    print(f"\n{'overlap of the devices':42s} {'1 device':>10s} {'2 devices':>10s} "
          f"{'2 / 1':>9s}")
    for name, t1, t2, r in overlap_rows(libs) + threads_rows(libs):
        print(f"{name:42s} {t1 * 1e3:9.2f}ms {t2 * 1e3:9.2f}ms {r:8.2f}x")
    ms = lambda t: f"{t * 1e3:9.2f}ms" if t else "         -"  # noqa: E731
    print(f"\n{'collective':42s} {'stacked':>11s} {'one prog.':>11s} {'threads':>11s} "
          f"{'jax':>11s} {'best/jax':>9s}")
    for name, tsk, ti, tt, tj in collective_rows(libs, args.quick):
        best = min(t for t in (ti, tt) if t)
        ratio = f"{best / tj:8.2f}x" if tj else "       -"
        print(f"{name:42s} {ms(tsk)}  {ms(ti)}  {ms(tt)}  {ms(tj)} {ratio}")


if __name__ == "__main__":
    sys.exit(main())
