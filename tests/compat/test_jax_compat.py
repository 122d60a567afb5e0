"""docs/jax-compat.md is generated from the code and current; the JAX names it is built
on match the installed JAX; and irax.numpy covers what the jax.numpy issue promises."""

import subprocess
import sys
from pathlib import Path

from irax.cli.gen_compat_docs import coverage, render

ROOT = Path(__file__).resolve().parents[2]
SNAPSHOT = ROOT / "python" / "irax" / "cli" / "jax_names.py"


def test_the_jax_names_match_the_installed_jax():
    fresh = subprocess.run([sys.executable, str(Path(__file__).with_name(
        "snapshot_jax_names.py"))], capture_output=True, text=True, check=True).stdout
    assert fresh == SNAPSHOT.read_text(), (
        "python/irax/cli/jax_names.py is stale: run `.venv/bin/python "
        "tests/compat/snapshot_jax_names.py > python/irax/cli/jax_names.py`, then "
        "regenerate docs/jax-compat.md")


def test_the_compat_table_is_current():
    assert (ROOT / "docs" / "jax-compat.md").read_text() == render(), (
        "docs/jax-compat.md is stale: run "
        "`.venv/bin/python -m irax.cli.gen_compat_docs > docs/jax-compat.md`")


def test_jax_numpy_coverage():
    numpy = coverage("jax.numpy")
    assert numpy.present >= 395, numpy.missing
    for module in ("jax.numpy.linalg", "jax.numpy.fft"):
        cov = coverage(module)
        assert not cov.missing, (module, cov.missing)


def test_a_partial_note_is_reported(monkeypatch):
    import irax.numpy as jnp

    monkeypatch.setattr(jnp, "__irax_partial__", {"pi": "rounded"}, raising=False)
    assert coverage("jax.numpy").partial["pi"] == "rounded"
    assert "- `pi`: rounded" in render()
