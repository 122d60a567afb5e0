"""Shape-polymorphic jit: compiles, compile time, step time and loop time of two workloads
whose shapes change, for irax's static jit, irax's ``jit(abstracted_axes=...)`` and JAX's
jit, in one process.

    python benchmarks/shape_poly.py [--quick] [--json PATH]

Workloads (the same Python model for both libraries, one SGD step = ``value_and_grad``
of the loss plus the update, all under one jit):

* ``mlp``: an MLP 784-256-10 (relu, softmax cross-entropy) trained for 2 epochs over
  1000 examples in batches of 128, so each epoch ends with a batch of 104 rows (quick:
  1 epoch over 500 examples, last batch 116). ``abstracted_axes=(None, {0: "batch"},
  {0: "batch"})``.
* ``attention``: one example of ``seq`` tokens ``[seq, 64]`` through a single-head
  self-attention block (q/k/v projections, ``softmax(q k^T / sqrt(64)) v``, mean over
  the sequence, a linear classifier to 10 classes), called twice over 10 lengths in
  [16, 256] (quick: once over 4 lengths). ``abstracted_axes=(None, {0: "seq"}, None)``.

Columns: ``compiles`` is the jitted function's ``_cache_size()`` after the loop (irax and
JAX alike); ``compile s`` sums, over the calls that grew it, the call's time less the
steady step (trace + lowering + compile); ``step ms`` is the median of warm calls at
batch 128 (mlp) or length 128 (attention); ``loop s`` is the wall time of the whole loop,
compiles included.

Compiles are cold: irax's persistent compile cache is an empty temporary directory
(``IRAX_COMPILATION_CACHE_DIR``, set before irax is imported), ``irax.clear_caches()`` and
``jax.clear_caches()`` run before each variant, and irax's tiered jit is off
(``irax_tiered_jit=False``: otherwise first calls would be interpreted while the program
compiles in the background, hiding the compile time). A throwaway ``value_and_grad`` jit
of each library runs first so that no variant pays the one-time start-up. Before the
timings, one step of each workload (at the odd size: batch 104, length 40) by static and
polymorphic irax is checked against JAX's (rtol 1e-4), after the timings (the
check's compiles would be in the persistent cache otherwise).
"""

from __future__ import annotations

import os
import tempfile

# Before irax is imported: an empty persistent compile cache, so that compiles are cold.
os.environ["IRAX_COMPILATION_CACHE_DIR"] = tempfile.mkdtemp(prefix="irax-shape-poly-")

import argparse  # noqa: E402
import json  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import traceback  # noqa: E402

import numpy as np  # noqa: E402

import irax  # noqa: E402
import irax.numpy as inp  # noqa: E402
from irax import nn as inn  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import _jax  # noqa: E402

irax.config.update("irax_tiered_jit", False)

CLASSES = 10
D_MODEL = 64


# --- the models, written once against (lib, numpy module, nn module) ------------------

def mlp_step(mod, np_, nn_):
    def predict(params, x):
        for w, b in params[:-1]:
            x = np_.maximum(x @ w + b, 0.0)
        w, b = params[-1]
        return x @ w + b

    def loss(params, x, y):
        logp = nn_.log_softmax(predict(params, x))
        return -np_.mean(np_.sum(logp * nn_.one_hot(y, CLASSES), axis=-1))

    def step(params, x, y):
        l, g = mod.value_and_grad(loss)(params, x, y)
        return l, mod.tree_util.tree_map(lambda a, b: a - 0.1 * b, params, g)

    return step


def attention_step(mod, np_, nn_):
    def loss(params, x, y):
        q, k, v = x @ params["wq"], x @ params["wk"], x @ params["wv"]
        att = nn_.softmax((q @ k.T) / np.float32(np.sqrt(D_MODEL)), axis=-1)
        pooled = np_.mean(att @ v, axis=0)
        logits = pooled @ params["wo"] + params["bo"]
        return -np_.sum(nn_.log_softmax(logits) * nn_.one_hot(y, CLASSES))

    def step(params, x, y):
        l, g = mod.value_and_grad(loss)(params, x, y)
        return l, mod.tree_util.tree_map(lambda a, b: a - 0.05 * b, params, g)

    return step


def mlp_params(rng):
    sizes = (784, 256, CLASSES)
    return [(rng.normal(size=(a, b)).astype(np.float32) / np.sqrt(a),
             np.zeros(b, np.float32)) for a, b in zip(sizes[:-1], sizes[1:])]


def attention_params(rng):
    w = lambda a, b: rng.normal(size=(a, b)).astype(np.float32) / np.sqrt(a)  # noqa: E731
    return {"wq": w(D_MODEL, D_MODEL), "wk": w(D_MODEL, D_MODEL), "wv": w(D_MODEL, D_MODEL),
            "wo": w(D_MODEL, CLASSES), "bo": np.zeros(CLASSES, np.float32)}


# --- the workloads: a list of calls (x, y), where the steady step is timed ------------

def mlp_workload(quick: bool, rng):
    n, batch, epochs = (500, 128, 1) if quick else (1000, 128, 2)
    x = rng.normal(size=(n, 784)).astype(np.float32)
    y = rng.integers(0, CLASSES, n).astype(np.int32)
    calls = [(x[i:i + batch], y[i:i + batch]) for _ in range(epochs)
             for i in range(0, n, batch)]
    odd = n % batch or batch
    return {"name": "mlp", "params": mlp_params(rng), "make": mlp_step,
            "axes": (None, {0: "batch"}, {0: "batch"}), "calls": calls,
            "steady": (x[:batch], y[:batch]), "check": (x[n - odd:], y[n - odd:]),
            "what": f"{n} examples, batch {batch} (last {odd}), {epochs} epoch(s), "
                    f"{len(calls)} steps"}


def attention_workload(quick: bool, rng):
    lengths = [16, 128, 40, 256] if quick else [16, 40, 64, 96, 128, 144, 176, 200, 232, 256]
    passes = 1 if quick else 2
    order = [n for p in range(passes) for n in (lengths if p % 2 == 0 else lengths[::-1])]
    calls = [(rng.normal(size=(n, D_MODEL)).astype(np.float32),
              np.int32(rng.integers(0, CLASSES))) for n in order]
    seq = lambda n: (rng.normal(size=(n, D_MODEL)).astype(np.float32), np.int32(3))  # noqa: E731
    return {"name": "attention", "params": attention_params(rng), "make": attention_step,
            "axes": (None, {0: "seq"}, None), "calls": calls, "steady": seq(128),
            "check": seq(40),
            "what": f"{len(lengths)} lengths in [{min(lengths)}, {max(lengths)}], "
                    f"{len(calls)} steps"}


# --- the variants ---------------------------------------------------------------------

def _variants(jax, jjnp):
    out = {"irax static": (irax, inp, inn, False), "irax abstracted_axes": (irax, inp, inn, True)}
    if jax is not None:
        out["jax jit"] = (jax, jjnp, jax.nn, False)
    return out


def _clear(mod):
    mod.clear_caches()


def _warm_up(variants):
    """A throwaway value_and_grad jit per library: the one-time start-up is nobody's."""
    for mod, np_, _, _ in variants.values():
        f = mod.jit(mod.value_and_grad(lambda w, x, np_=np_: np_.sum(np_.tanh(x @ w))))
        mod.block_until_ready(f(np.ones((3, 3), np.float32), np.ones((2, 3), np.float32)))


def _jitted(wl, variant):
    mod, np_, nn_, poly = variant
    step = wl["make"](mod, np_, nn_)
    return mod.jit(step, abstracted_axes=wl["axes"]) if poly else mod.jit(step)


def run_variant(wl, variant, steady_reps: int) -> dict:
    """The loop over the workload's calls, then the steady step; compiles counted by the
    jitted function's _cache_size()."""
    mod = variant[0]
    _clear(mod)
    f = _jitted(wl, variant)
    # the library's own arrays from the start: JAX's _cache_size() counts a signature of
    # NumPy parameters apart from one of jax.Arrays (the step's results)
    params = mod.tree_util.tree_map(variant[1].asarray, wl["params"])
    compile_calls = []
    t_loop = time.perf_counter()
    for x, y in wl["calls"]:
        before = f._cache_size()
        t0 = time.perf_counter()
        _, params = mod.block_until_ready(f(params, x, y))
        dt = time.perf_counter() - t0
        if f._cache_size() > before:
            compile_calls.append(dt)
    loop = time.perf_counter() - t_loop
    x, y = wl["steady"]
    before = f._cache_size()
    mod.block_until_ready(f(params, x, y))   # the steady shape may be new (attention)
    grew = f._cache_size() > before
    times = []
    for _ in range(steady_reps):
        t0 = time.perf_counter()
        mod.block_until_ready(f(params, x, y))
        times.append(time.perf_counter() - t0)
    step = statistics.median(times)
    return {"compiles": f._cache_size() - int(grew), "compile_s":
            sum(max(t - step, 0.0) for t in compile_calls), "step_s": step, "loop_s": loop,
            "compile_calls_s": compile_calls}


def check(wl, variants) -> list:
    """One step of each irax variant at the workload's odd size against JAX's."""
    x, y = wl["check"]
    results, problems = {}, []
    for name, variant in variants.items():
        try:
            out = _jitted(wl, variant)(wl["params"], x, y)
            results[name] = [np.asarray(a) for a in
                             variant[0].tree_util.tree_leaves(out)]
        except Exception as e:  # noqa: BLE001 - reported, the other variants go on
            problems.append(f"{wl['name']}: {name} failed: {_reason(e)}")
            traceback.print_exc()
    ref = results.get("jax jit")
    if ref is None:
        return problems
    for name in ("irax static", "irax abstracted_axes"):
        if name not in results:
            continue
        try:
            for a, b in zip(results[name], ref, strict=True):
                np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)
        except AssertionError as e:
            problems.append(f"{wl['name']}: {name} differs from JAX: "
                            + " ".join(str(e).split())[:300])
    return problems


def _reason(e: BaseException) -> str:
    lines = str(e).strip().splitlines()
    return f"{type(e).__name__}: {' | '.join(lines[:3])}"[:400]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--json", metavar="PATH", help="write the numbers to PATH")
    args = ap.parse_args(argv)
    jax, jjnp = _jax()
    variants = _variants(jax, jjnp)
    _warm_up(variants)
    rng = np.random.default_rng(0)
    workloads = [mlp_workload(args.quick, rng), attention_workload(args.quick, rng)]
    steady_reps = 11 if args.quick else 31
    report = {"quick": args.quick, "workloads": {}, "problems": []}
    for wl in workloads:
        print(f"\n{wl['name']}: {wl['what']}")
        print(f"  {'variant':22s} {'compiles':>8s} {'compile s':>10s} {'step ms':>9s} "
              f"{'loop s':>8s}")
        rows = {}
        for name, variant in variants.items():
            try:
                r = run_variant(wl, variant, steady_reps)
            except Exception as e:  # noqa: BLE001 - a failing variant is a row's note
                msg = f"{wl['name']}: {name} failed: {_reason(e)}"
                report["problems"].append(msg)
                print(f"  {name:22s} failed: {_reason(e)[:70]}")
                traceback.print_exc()
                continue
            rows[name] = r
            print(f"  {name:22s} {r['compiles']:8d} {r['compile_s']:10.2f} "
                  f"{r['step_s'] * 1e3:9.3f} {r['loop_s']:8.2f}")
        # after the timings: the check's compiles would otherwise be on disk for them
        problems = check(wl, variants)
        report["problems"] += problems
        for p in problems:
            print(f"  !! {p}")
        if not problems:
            print("  numerics: irax static and abstracted_axes agree with JAX (rtol 1e-4)")
        report["workloads"][wl["name"]] = {"what": wl["what"], "variants": rows,
                                          "check": problems or "ok"}
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(report, fh, indent=1)
    return 1 if report["problems"] else 0


if __name__ == "__main__":
    sys.exit(main())
