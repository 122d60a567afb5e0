"""``import irax`` stays light: no IREE compiler or runtime until they are needed."""

import subprocess
import sys


def _modules_after(code: str) -> set[str]:
    out = subprocess.run([sys.executable, "-c", code + "\nimport sys\n"
                          "print(' '.join(m for m in sys.modules if m.startswith('iree')))"],
                         capture_output=True, text=True, check=True)
    return set(out.stdout.split())


def test_import_irax_loads_no_iree():
    assert _modules_after("import irax, irax.numpy, irax.lax") == set()


def test_eager_code_needs_no_compiler():
    mods = _modules_after("import irax.numpy as jnp\nx = jnp.ones(3) * 2 + 1\nfloat(x.sum())")
    assert not any(m.startswith("iree.compiler") for m in mods)
