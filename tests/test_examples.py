"""The examples run (they are what users copy first)."""

import importlib.util
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"

# command-line arguments per script ("{out}": a fresh directory for what it writes)
ARGS = {"digits.py": ["--quick", "--no-progress", "--out", "{out}"]}
# the files a script writes into "{out}"
WRITES = {"digits.py": ["digits_training.png", "digits_predict.vmfb"]}


@pytest.mark.parametrize("script", sorted(p.name for p in EXAMPLES.glob("*.py")))
def test_example_runs(script, tmp_path):
    args = [a.format(out=tmp_path) for a in ARGS.get(script, [])]
    proc = subprocess.run([sys.executable, str(EXAMPLES / script), *args],
                          capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-4000:]
    for name in WRITES.get(script, []):
        assert (tmp_path / name).stat().st_size > 0, f"{script} did not write {name}"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_digits_batches():
    digits = _load("digits")
    rng = np.random.default_rng(0)
    x, y = np.arange(20.0).reshape(10, 2), np.arange(10)
    got = list(digits.batches(x, y, 4, rng))
    assert [b[0].shape for b in got] == [(4, 2), (4, 2)]     # the remainder is dropped
    seen = np.concatenate([b[1] for b in got])
    assert len(set(seen)) == 8 and set(seen) <= set(range(10))
    np.testing.assert_array_equal(np.concatenate([b[0] for b in got])[:, 0] / 2, seen)
    assert [b[0].shape for b in digits.batches(x, y, 64, rng)] == [(10, 2)]
    with pytest.raises(ValueError, match=r"^digits\.batches: expected a non-empty dataset, "
                                         r"got 0 examples$"):
        next(digits.batches(x[:0], y[:0], 4, rng))
    with pytest.raises(ValueError, match="expected as many labels as examples, got 3 labels "
                                         "for 10 examples"):
        next(digits.batches(x, y[:3], 4, rng))
