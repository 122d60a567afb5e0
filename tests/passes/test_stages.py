"""``jit(f).lower(x).as_text(stage)`` equals what irax-opt prints for the same pipeline."""

import subprocess
import sys

import numpy as np
import pytest

import irax
import irax.numpy as jnp
from irax.passes.pipelines import STAGES


def _f(w, x):
    return irax.grad(lambda w: jnp.sum(jnp.tanh(x @ w) ** 2))(w) * 1.0


@pytest.mark.parametrize("stage", [s for s in STAGES if s != "irax"])
def test_stage_matches_irax_opt(stage, tmp_path):
    w = np.ones((3, 2), np.float32)
    x = np.ones((4, 3), np.float32)
    lowered = irax.jit(_f).lower(w, x)
    src = tmp_path / "traced.mlir"
    src.write_text(lowered.as_text("irax"))
    out = subprocess.run([sys.executable, "-m", "irax.cli.opt", str(src), "-p",
                          f"builtin.module({STAGES[stage]})"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == lowered.as_text(stage).strip()


def test_simplified_stage_is_smaller_and_still_correct():
    w = np.ones((3, 2), np.float32)
    x = np.linspace(-1, 1, 12).reshape(4, 3).astype(np.float32)
    lowered = irax.jit(_f).lower(w, x)
    assert lowered.as_text("simplified").count("irax.") < lowered.as_text("expanded").count(
        "irax.")
    np.testing.assert_allclose(irax.jit(_f)(w, x), irax.grad(
        lambda w: jnp.sum(jnp.tanh(x @ w) ** 2))(w), rtol=1e-5)


def test_irax_opt_irax_jit_reproduces_jit_with_donation(tmp_path):
    """Donation is marked in the traced module (jax.buffer_donor) and handled by a pass
    (irax-legalize-iree drops it: IREE gets no aliasing), so ``irax-opt -p irax-jit`` on
    the traced IR prints what jit compiles."""
    jitted = irax.jit(lambda x, y: (x * 2.0, y + 1.0), donate_argnums=0)
    lowered = jitted.lower(np.ones(3, np.float32), np.ones(3, np.float32))
    traced = lowered.as_text("irax")
    assert "jax.buffer_donor = true" in traced
    src = tmp_path / "traced.mlir"
    src.write_text(traced)
    out = subprocess.run([sys.executable, "-m", "irax.cli.opt", str(src), "-p", "irax-jit"],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == lowered.as_text("iree").strip()
    assert "iree.abi.output" not in out.stdout and "jax.buffer_donor" not in out.stdout
    assert "iree.abi" not in lowered.as_text("stablehlo")
