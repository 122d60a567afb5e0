"""irax's benchmark suite: irax against JAX and NumPy side by side, in one process.

    python benchmarks/run.py [--quick] [--only NAME[,NAME]] [--json PATH] [--rss]
                             [--write-docs] [--list]

Each workload (issue 15's table: ``--list`` names them) is timed for irax, JAX and NumPy
(where NumPy can express it) in this process, repetitions alternating irax/JAX (then
NumPy's: OpenBLAS's spinning threads slowed whichever library ran after it),
after one warm-up call (not for the cold-compile and warm-start rows); the table reports
the median of each and the ratios irax/JAX and irax/NumPy (below 1: irax is faster).
Each irax result is checked once against JAX's ("mismatch" in the notes otherwise); a
library that fails puts "fail: <reason>" in its row. ``--json`` (default
benchmarks/results/cpu.json; results/partial.json for --quick or --only) keeps machine,
versions and every median; ``--rss`` also runs each workload once per library in a fresh
process (``--child NAME --lib LIB``) for its peak RSS; ``--write-docs`` rewrites the table
of docs/performance.md between its markers.
``JAX_PLATFORMS=cuda`` runs irax on its CUDA backend (benchmarks/gpu.sh).
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import platform
import shlex
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

# cnn.py, fft.py and linalg.py import _best, _jax, _ready, _tree_ready from here
from _common import (  # noqa: E402,F401
    LIBS,
    Context,
    Row,
    _best,
    _jax,
    _ready,
    _tree_ready,
    jax_platform_note,
    peak_rss_mb,
    reason,
)

ROOT = os.path.dirname(HERE)
DOCS = os.path.join(ROOT, "docs", "performance.md")
BEGIN = "<!-- benchmark table: written by `benchmarks/run.py --write-docs` -->"
END = "<!-- end of benchmark table -->"


def _workloads() -> dict:
    from workloads import WORKLOADS  # after the path is set; cnn.py imports this module

    return WORKLOADS


def fmt_time(t) -> str:
    if t is None:
        return "—"
    if t >= 1.0:
        return f"{t:.2f} s"
    if t >= 1e-3:
        return f"{t * 1e3:.3g} ms"
    return f"{t * 1e6:.3g} us"


def fmt_ratio(r) -> str:
    return "—" if r is None else f"{r:.2f}"


def _cols(row: Row) -> list:
    notes = "; ".join(row.notes)
    if row.rss_mb:
        notes = "; ".join(filter(None, [notes, "RSS MB " + " / ".join(
            f"{k} {v:.0f}" for k, v in row.rss_mb.items())]))
    return [row.name, fmt_time(row.times.get("irax")), fmt_time(row.times.get("jax")),
            fmt_time(row.times.get("numpy")), fmt_ratio(row.ratio("jax")),
            fmt_ratio(row.ratio("numpy")), notes]


HEAD = ["workload", "irax", "JAX", "NumPy", "irax/JAX", "irax/NumPy", "notes"]


def table_text(rows) -> str:
    body = [HEAD] + [_cols(r) for r in rows]
    widths = [max(len(c[i]) for c in body) for i in range(len(HEAD) - 1)]
    lines = []
    for c in body:
        lines.append("  ".join(c[i].rjust(w) if i else c[i].ljust(w)
                               for i, w in enumerate(widths)) + "  " + c[-1])
    return "\n".join(lines)


def table_markdown(rows) -> str:
    esc = [[c.replace("|", "\\|") for c in _cols(r)] for r in rows]
    out = ["| " + " | ".join(HEAD) + " |", "|" + "---|" * len(HEAD)]
    out += ["| " + " | ".join(c) + " |" for c in esc]
    return "\n".join(out)


def geomean(rows):
    rs = [r.ratio("jax") for r in rows if r.ratio("jax")]
    return (math.exp(sum(math.log(r) for r in rs) / len(rs)), len(rs)) if rs else (None, 0)


def _version(dist: str):
    try:
        from importlib.metadata import version

        return version(dist)
    except Exception:  # noqa: BLE001
        return None


def _vector_isa(flags: set) -> str | None:
    """The widest x86 vector extension of a CPU's flags (what the compiled code uses)."""
    return next((name for flag, name in (("avx512f", "AVX-512"), ("avx2", "AVX2"),
                                         ("avx", "AVX")) if flag in flags), None)


def machine(ctx_cmd: str) -> dict:
    cpu = platform.processor() or None
    flags: set = set()
    try:
        with open("/proc/cpuinfo") as f:
            lines = f.readlines()
        cpu = next((ln.split(":", 1)[1].strip() for ln in lines if ln.startswith("model name")),
                   cpu)
        flags = next((set(ln.split(":", 1)[1].split()) for ln in lines
                      if ln.startswith("flags")), set())
    except OSError:
        pass
    isa = _vector_isa(flags)
    if cpu and isa:
        cpu = f"{cpu} ({isa})"
    return {"cpu": cpu, "cores": os.cpu_count(), "python": platform.python_version(),
            "irax": _version("irax"), "jax": _version("jax"), "jaxlib": _version("jaxlib"),
            "numpy": _version("numpy"), "iree_runtime": _version("iree-base-runtime"),
            "iree_compiler": _version("iree-base-compiler"),
            "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "command": ctx_cmd, "load_average_start": os.getloadavg(),
            "JAX_PLATFORMS": os.environ.get("JAX_PLATFORMS"), "jax_note": jax_platform_note()}


def machine_line(m: dict) -> str:
    return (f"{m['cpu']}, {m['cores']} cores; irax {m['irax']}, JAX {m['jax']}, "
            f"NumPy {m['numpy']}, IREE {m['iree_runtime']}; {m['date']}; load average "
            f"{m['load_average_start'][0]:.2f} at the start, {m['load_average_end'][0]:.2f} "
            f"at the end")


def write_docs(path: str, rows, m: dict) -> None:
    g, n = geomean(rows)
    block = "\n".join([
        BEGIN, "", f"Machine: {machine_line(m)}.", "",
        f"Command: `{m['command']}`", "", table_markdown(rows), "",
        f"Geometric mean of irax/JAX over {n} rows: {fmt_ratio(g)}."
        + (f" {m['jax_note']}." if m.get("jax_note") else ""), "", END])
    with open(path) as f:
        text = f.read()
    i, j = text.find(BEGIN), text.find(END)
    if i < 0 or j < i:
        raise SystemExit(f"run.py: {path} lacks the benchmark table markers")
    with open(path, "w") as f:
        f.write(text[:i] + block + text[j + len(END):])


def run_child(name: str, lib: str, quick: bool) -> None:
    """One workload, one library, one repetition: prints this process's peak RSS (MB)."""
    ctx = Context(quick=quick, libs=(lib,), reps=1, child=True)
    rows = []
    try:
        rows = _workloads()[name](ctx)
    except Exception as e:  # noqa: BLE001
        print(json.dumps({"error": reason(e)}))
        return
    print(json.dumps({"rss_mb": peak_rss_mb(), "notes": [n for r in rows for n in r.notes]}))


def measure_rss(name: str, rows, quick: bool) -> None:
    for lib in LIBS:
        if not any(lib in r.times or lib in r.rss_mb for r in rows):
            continue
        cmd = [sys.executable, os.path.abspath(__file__), "--child", name, "--lib", lib]
        cmd += ["--quick"] if quick else []
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
            out = json.loads(p.stdout.strip().splitlines()[-1])
        except Exception as e:  # noqa: BLE001
            out = {"error": reason(e)}
        for r in rows:
            if "rss_mb" in out and lib not in r.rss_mb:
                r.rss_mb[lib] = out["rss_mb"]
            elif "error" in out:
                r.notes.append(f"rss {lib}: {out['error']}")


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="a short smoke run of every workload")
    p.add_argument("--only", help="comma-separated workloads (see --list)")
    p.add_argument("--json", help="where the results go (default: results/cpu.json for a "
                   "full run, results/partial.json for --quick or --only, which must not "
                   "replace the full run's)")
    p.add_argument("--write-docs", action="store_true", help="rewrite docs/performance.md's table")
    p.add_argument("--docs", default=DOCS, help=argparse.SUPPRESS)
    p.add_argument("--rss", action="store_true", help="peak RSS per library (subprocesses)")
    p.add_argument("--reps", type=int, help="repetitions (default 7, 3 with --quick)")
    p.add_argument("--list", action="store_true")
    p.add_argument("--verbose", action="store_true", help="tracebacks of failures")
    p.add_argument("--child", help=argparse.SUPPRESS)
    p.add_argument("--lib", choices=LIBS, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    workloads = _workloads()
    if args.child:
        return run_child(args.child, args.lib, args.quick)
    if args.list:
        print("\n".join(workloads))
        return
    names = args.only.split(",") if args.only else list(workloads)
    unknown = [n for n in names if n not in workloads]
    if unknown:
        raise SystemExit(f"run.py: unknown workloads {unknown}; known: {list(workloads)}")
    cmd = shlex.join([os.path.relpath(sys.executable, ROOT) if sys.executable.startswith(ROOT)
                      else "python", "benchmarks/run.py"] + sys.argv[1:])
    m = machine(cmd)
    ctx = Context(quick=args.quick, reps=args.reps or (3 if args.quick else 7),
                  verbose=args.verbose)
    rows, started = [], time.perf_counter()
    for name in names:
        t0 = time.perf_counter()
        try:
            got = workloads[name](ctx)
        except Exception as e:  # noqa: BLE001 - a broken workload is a row, not the end
            got = [Row(name, name, notes=[f"fail: {reason(e)}"])]
        if args.rss:
            measure_rss(name, got, args.quick)
        rows += got
        print(f"[{name}: {time.perf_counter() - t0:.1f} s]", file=sys.stderr, flush=True)
    m["load_average_end"] = os.getloadavg()
    m["wall_s"] = time.perf_counter() - started
    print(table_text(rows))
    g, n = geomean(rows)
    print(f"\ngeometric mean irax/JAX over {n} rows: {fmt_ratio(g)}")
    print(f"machine: {machine_line(m)}")
    if m.get("jax_note"):
        print(m["jax_note"])
    path = args.json or os.path.join(
        HERE, "results", "partial.json" if args.quick or args.only else "cpu.json")
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as f:
        json.dump({"machine": m, "geomean_irax_over_jax": g, "quick": args.quick,
                   "rows": [r.as_json() for r in rows]}, f, indent=1)
    if args.write_docs:
        write_docs(args.docs, rows, m)


if __name__ == "__main__":
    main()
