"""What the ``*_cases.py`` scripts share: JAX's facts gathered in a subprocess (its own
device count) and read back as JSON, and the errors of a set of thunks as messages."""

import json
import subprocess
import sys


def run_script(script: str, tmp_path_factory, name: str) -> dict:
    """The facts ``python script out.json`` writes (JAX's side of a comparison)."""
    path = tmp_path_factory.mktemp(name) / "jax.json"
    subprocess.run([sys.executable, script, str(path)], check=True, capture_output=True)
    return json.loads(path.read_text())


def spec_dims(a):
    """An array's sharding spec as lists of mesh axes per dimension, trailing whole
    dimensions dropped (JAX's ``P('x',)`` and irax's ``P('x')`` alike); None for a
    single-device array."""
    spec = getattr(getattr(a, "sharding", None), "spec", None)
    if spec is None:
        return None
    dims = [[] if p is None else [p] if isinstance(p, str) else list(p) for p in spec]
    while dims and not dims[-1]:
        dims.pop()
    return dims


def error_messages(thunks: dict) -> dict:
    """``error/<name>`` -> "Type: message" of what each thunk raises ("no error")."""
    out = {}
    for name, thunk in thunks.items():
        try:
            thunk()
            out[f"error/{name}"] = "no error"
        except Exception as e:  # noqa: BLE001 (the message is the reference)
            out[f"error/{name}"] = f"{type(e).__name__}: {e}"
    return out


def run_jitted(lib, mesh, cases: dict) -> dict:
    """name -> [[spec, values] per result leaf] of ``lib.jit(fn)`` on each case's
    arguments placed by their PartitionSpecs (``cases``: name -> (fn, args, specs))."""
    import numpy as np

    from_spec = lib.sharding.NamedSharding
    out = {}
    for name, (fn, args, specs) in cases.items():
        placed = [lib.device_put(a, from_spec(mesh, s)) for a, s in zip(args, specs)]
        result = lib.jit(fn)(*placed)
        out[name] = [[spec_dims(a), np.asarray(a).tolist()]
                     for a in lib.tree_util.tree_leaves(result)]
    return out
