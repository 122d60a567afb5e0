#!/usr/bin/env bash
# irax on an NVIDIA GPU: runs tests/runtime/test_cuda.py, then the benchmark suite with
# irax on its CUDA backend, and writes everything into one directory.
#
#   benchmarks/gpu.sh [OUT_DIR] [run.py options, e.g. --quick]
#
# OUT_DIR (default benchmarks/results/gpu-<UTC date>) receives: machine.txt (nvidia-smi,
# versions), pytest.log, bench.json, bench.txt (the table) and bench.log (stderr).
# JAX_PLATFORMS=cuda selects irax's platform; JAX itself stays on the CPU unless jax[cuda]
# is installed (run.py says which in its output and JSON).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
out="${1:-$root/benchmarks/results/gpu-$(date -u +%Y%m%dT%H%M%SZ)}"
if [[ $# -gt 0 ]]; then
  shift
fi
py="${PYTHON:-$root/.venv/bin/python}"

die() {
  echo "gpu.sh: $*" >&2
  exit 1
}

command -v nvidia-smi >/dev/null 2>&1 \
  || die "nvidia-smi not found: this script needs an NVIDIA GPU with its driver installed"
nvidia-smi -L >/dev/null 2>&1 || die "nvidia-smi finds no GPU (is the driver loaded?)"
[[ -x "$py" ]] || die "no Python at $py (run 'make venv' or set PYTHON)"

mkdir -p "$out"
out="$(cd "$out" && pwd)"
cd "$root"
echo "gpu.sh: results in $out"

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv
  "$py" - <<'EOF'
import importlib.metadata as m
import importlib.util
for d in ("irax", "jax", "jaxlib", "numpy", "iree-base-runtime", "iree-base-compiler"):
    try:
        print(f"{d}: {m.version(d)}")
    except Exception:  # noqa: BLE001
        print(f"{d}: not installed")
cuda = any(importlib.util.find_spec(p) for p in ("jax_cuda12_plugin", "jax_cuda13_plugin"))
print("JAX runs on:", "cuda (jax[cuda] installed)" if cuda else "cpu (jax[cuda] not installed)")
EOF
} | tee "$out/machine.txt"

export JAX_PLATFORMS=cuda
export IRAX_COMPILATION_CACHE_DIR="$out/irax-cache"

status=0
echo "gpu.sh: pytest tests/runtime/test_cuda.py and the CUDA export test"
"$py" -m pytest -v -rs -p no:randomly tests/runtime/test_cuda.py \
  "tests/export/test_export.py::test_the_cuda_artifact_runs_on_the_gpu_and_matches_the_cpu" 2>&1 | tee "$out/pytest.log" \
  || status=$?
if grep -q "SKIPPED" "$out/pytest.log"; then
  echo "gpu.sh: the CUDA tests skipped (see $out/pytest.log): IREE found no CUDA device" >&2
  status=1
fi

echo "gpu.sh: benchmark suite, irax on cuda"
"$py" benchmarks/run.py --json "$out/bench.json" "$@" 2>"$out/bench.log" \
  | tee "$out/bench.txt" || status=$?

echo "gpu.sh: done (exit $status): $out"
exit "$status"
