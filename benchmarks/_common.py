"""Timing helpers of the benchmark suite (benchmarks/run.py): alternating A/B medians.

A workload gives, per library (``irax``, ``jax``, ``numpy``), a function that sets the
computation up and returns a zero-argument callable computing it once, results ready.
``measure`` warms each callable up once, checks irax's result against JAX's, then times
repetitions alternating irax and JAX (irax, JAX, irax, JAX, ...), then NumPy's, and keeps
the median of each.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
import traceback
from dataclasses import dataclass, field

import numpy as np

LIBS = ("irax", "jax", "numpy")


@dataclass
class Context:
    """What a run asks for: quick mode, the libraries to time, the repetitions."""

    quick: bool = False
    libs: tuple = LIBS
    reps: int = 7
    child: bool = False  # one library in a fresh process, for its peak RSS: no checks
    verbose: bool = False

    def r(self, full: int, quick: int) -> int:
        """A count: ``full`` normally, ``quick`` under --quick."""
        return quick if self.quick else full


@dataclass
class Row:
    """One line of the table: medians in seconds per library (None: not run / n/a)."""

    name: str
    workload: str
    times: dict = field(default_factory=dict)
    reps: int = 0
    number: dict = field(default_factory=dict)  # calls per repetition, per library
    notes: list = field(default_factory=list)
    rss_mb: dict = field(default_factory=dict)
    extra: dict = field(default_factory=dict)

    def ratio(self, lib: str):
        a, b = self.times.get("irax"), self.times.get(lib)
        return a / b if a and b else None

    def as_json(self) -> dict:
        return {"name": self.name, "workload": self.workload,
                "median_s": {k: self.times.get(k) for k in LIBS},
                "irax/jax": self.ratio("jax"), "irax/numpy": self.ratio("numpy"),
                "repetitions": self.reps, "calls_per_repetition": self.number,
                "notes": list(self.notes), "peak_rss_mb": dict(self.rss_mb), **self.extra}


def _best(fn, repeat=5, number=1):
    """The best time of ``repeat`` runs of ``number`` calls, per call (benchmarks/*.py)."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - start) / number)
    return min(times)


def _jax():
    """(jax, jax.numpy), or (None, None) without JAX. JAX gets 4 CPU devices (the pmap
    row) and stays on the CPU when JAX_PLATFORMS asks for a GPU it has no plugin for."""
    try:
        import jax
        import jax.numpy as jjnp
    except ImportError:
        return None, None
    for name, value in (("jax_platforms", "cpu" if jax_platform_note() else None),
                        ("jax_num_cpu_devices", 4)):
        try:   # only possible before JAX's first use
            if value is not None:
                jax.config.update(name, value)
        except Exception:  # noqa: BLE001 - already initialized
            pass
    return jax, jjnp


def jax_platform_note() -> str | None:
    """Says JAX runs on the CPU although JAX_PLATFORMS names cuda (no jax[cuda])."""
    wanted = os.environ.get("JAX_PLATFORMS", "")
    if "cuda" not in wanted:
        return None
    import importlib.util

    if any(importlib.util.find_spec(m) for m in ("jax_cuda12_plugin", "jax_cuda13_plugin")):
        return None
    return "JAX runs on the CPU: JAX_PLATFORMS=cuda selects irax's platform, jax[cuda] absent"


def _ready(x):
    if isinstance(x, (tuple, list)):
        for v in x:
            _ready(v)
        return x
    if isinstance(x, dict):
        for v in x.values():
            _ready(v)
        return x
    return x.block_until_ready() if hasattr(x, "block_until_ready") else x


def _tree_ready(tree):
    return _ready(tree)


def leaves(x) -> list:
    """The arrays of a nested tuple/list/dict result, as NumPy arrays."""
    if isinstance(x, dict):
        return [a for k in sorted(x) for a in leaves(x[k])]
    if isinstance(x, (tuple, list)):
        return [a for v in x for a in leaves(v)]
    return [np.asarray(x)]


def same(a, b, rtol=2e-2, atol=2e-3) -> str | None:
    """None when two results agree loosely; otherwise what differs."""
    la, lb = leaves(a), leaves(b)
    if len(la) != len(lb):
        return f"{len(la)} vs {len(lb)} arrays"
    for x, y in zip(la, lb):
        if x.shape != y.shape:
            return f"shapes {x.shape} vs {y.shape}"
        x = x.astype(np.promote_types(x.dtype, np.float32), copy=False)
        y = y.astype(x.dtype, copy=False)
        if np.issubdtype(x.dtype, np.inexact) and not np.array_equal(np.isnan(x), np.isnan(y)):
            return "NaNs differ"
        bad = ~(np.abs(x - y) <= atol + rtol * np.abs(y)) & ~np.isnan(y)
        if bad.any():
            return f"max abs diff {float(np.nanmax(np.abs(x - y))):.3g}"
    return None


def peak_rss_mb() -> float:
    """This process's peak resident memory in MB: VmHWM (ru_maxrss would include the
    memory of the parent a subprocess was forked from)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def reason(e: BaseException) -> str:
    """A one-line reason of a failure, for a row's notes."""
    msg = str(e).strip().splitlines()
    first = msg[0] if msg else ""
    return f"{type(e).__name__}: {first}"[:160]


#: a repetition of a fast call repeats it for at least this long (seconds)
MIN_REP_S = 0.05


def _calls(number, fn, quick: bool) -> int:
    """Calls per repetition: ``number`` if given, else enough for MIN_REP_S, from the
    time of 1, 10, 100, ... calls after the warm-up (until they last 2 ms)."""
    if number is not None:
        return number
    k = 1
    while True:
        start = time.perf_counter()
        for _ in range(k):
            fn()
        t = time.perf_counter() - start
        if t >= 2e-3 or k >= 10_000:
            break
        k *= 10
    target = MIN_REP_S / (5 if quick else 1)
    return int(min(max(1, target * k / max(t, 1e-9)), 100_000))


def wait_for_background_compiles() -> None:
    """Lets the compilations irax's tiered jit started in the background end (nothing
    when irax is not loaded)."""
    tiered = sys.modules.get("irax.frontend.tiered")
    if tiered is not None:
        tiered.wait()


def settle(fn):
    """After irax's warm-up call (which may have been interpreted): waits for the
    background compilations, then calls ``fn`` once more so that the compiled programs
    are in place before anything is timed."""
    wait_for_background_compiles()
    return fn()


def measure(ctx: Context, workload: str, name: str, makers: dict, *, number=None,
            reps: int | None = None, per: float = 1.0, warm: bool = True,
            notes=(), after=None) -> Row:
    """Times ``makers`` (lib -> setup returning a callable) alternating irax and JAX, then NumPy;
    ``number``: calls per repetition (default: from the warm-up call, so that a
    repetition lasts MIN_REP_S); ``per`` divides each call's time (e.g. ops per call);
    ``warm``: one untimed call first (otherwise one call per repetition, the first one's
    result checked); ``after``: called untimed after each repetition of each library."""
    row = Row(name, workload, notes=list(notes))
    fns, results = {}, {}
    for lib in LIBS:
        if lib not in makers or lib not in ctx.libs:
            continue
        try:
            t0 = time.perf_counter()
            fn = makers[lib]()
            if warm:
                results[lib] = fn()
                if lib == "irax":
                    results[lib] = settle(fn)
            fns[lib] = fn
            row.number[lib] = _calls(number, fn, ctx.quick) if warm else 1
            if ctx.verbose:
                print(f"  {name}: {lib} setup + warm-up {time.perf_counter() - t0:.2f} s",
                      file=sys.stderr, flush=True)
        except Exception as e:  # noqa: BLE001 - a failing library is a row's note
            row.notes.append(f"fail: {lib}: {reason(e)}")
            if ctx.verbose:
                traceback.print_exc()
    times = {lib: [] for lib in fns}
    reps = reps if reps is not None else ctx.reps
    # irax and JAX alternate; NumPy's repetitions come after theirs: OpenBLAS's threads
    # spin for a while after each product, and whichever library ran next shared the
    # cores with them (irax's attention block: 3.6 ms after JAX, 5.9 ms after NumPy).
    # JAX's pool spins too: the first call of a repetition after the other library's is
    # not timed (irax's attention block: 3.5 ms first after JAX's, 2.55 ms the others)
    groups = [[lib for lib in fns if lib != "numpy"], [lib for lib in fns if lib == "numpy"]]
    for group, rep in [(g, r) for g in groups if g for r in range(reps)]:
        for lib in [lib for lib in group if lib in fns]:
            try:
                if warm and len(group) > 1:
                    fns[lib]()
                start = time.perf_counter()
                for _ in range(row.number[lib]):
                    out = fns[lib]()
                times[lib].append((time.perf_counter() - start) / row.number[lib] / per)
                if after is not None:
                    after()
                if rep == 0 and not warm:
                    results[lib] = out
            except Exception as e:  # noqa: BLE001
                row.notes.append(f"fail: {lib}: {reason(e)}")
                del fns[lib]
                times.pop(lib, None)
    row.reps = reps
    row.times = {lib: statistics.median(t) for lib, t in times.items() if t}
    check(ctx, row, results)
    return row


def check(ctx: Context, row: Row, results: dict) -> None:
    """Puts "mismatch" in the notes when irax's result differs from JAX's."""
    if ctx.child or "irax" not in results or "jax" not in results:
        return
    try:
        diff = same(results["irax"], results["jax"])
    except Exception as e:  # noqa: BLE001
        diff = reason(e)
    if diff:
        row.notes.append(f"mismatch: {diff}")
