"""Prints python/irax/cli/jax_names.py: the public names of the JAX modules the
compatibility table covers, read from the installed JAX (a test-only dependency).

    .venv/bin/python tests/compat/snapshot_jax_names.py > python/irax/cli/jax_names.py
"""

import importlib
import sys

MODULES = ("jax", "jax.numpy", "jax.numpy.linalg", "jax.numpy.fft", "jax.lax", "jax.nn",
           "jax.nn.initializers", "jax.scipy.special", "jax.scipy.linalg", "jax.scipy.stats",
           "jax.random")


def public_names() -> dict[str, list[str]]:
    """Each module's public names, after importing exactly ``MODULES`` (what ``dir(jax)``
    lists depends on which submodules are imported)."""
    mods = [importlib.import_module(m) for m in MODULES]
    return {name: sorted(n for n in dir(m) if not n.startswith("_"))
            for name, m in zip(MODULES, mods)}


def render() -> str:
    import jax

    lines = ['"""The public names of the JAX modules docs/jax-compat.md covers, as of JAX '
             f'{jax.__version__}.', "",
             "Written by tests/compat/snapshot_jax_names.py; a test checks it against the "
             'installed JAX."""', "", f'JAX_VERSION = "{jax.__version__}"', "",
             "NAMES: dict[str, tuple[str, ...]] = {"]
    for module, names in public_names().items():
        lines.append(f'    "{module}": (')
        row = "       "
        for n in names:
            item = f' "{n}",'
            if len(row) + len(item) > 96:
                lines.append(row)
                row = "       "
            row += item
        lines.append(row)
        lines.append("    ),")
    lines.append("}")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.stdout.write(render())
