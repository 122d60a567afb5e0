"""Gathers in sharded programs, shared by irax's test and JAX (run as a script: JAX's
facts into a JSON file): each case jits a function of sharded arguments on a 2x2 mesh of
four CPU devices; the results' shardings and values are compared.

    python indexing_cases.py out.json      # JAX's facts
"""

import json
import sys

import numpy as np
from jax_facts import run_jitted


def cases(lib, jnp, P):
    """name -> (function, arguments, their PartitionSpecs)."""
    table = np.arange(40.0, dtype=np.float32).reshape(10, 4)
    ids = np.array([1, 3, 5, 7, 9, 0, 2, 4], np.int32)
    x = np.arange(32.0, dtype=np.float32).reshape(8, 4)

    def embed(t, i):
        return t[i]

    return {
        "embed": (embed, (table, ids), (P(), P("x"))),
        "embed_columns": (embed, (table, ids), (P(None, "y"), P("x"))),
        "embed_2d_ids": (embed, (table, ids.reshape(4, 2)), (P(), P("x", "y"))),
        "embed_same_axis": (embed, (table, ids), (P(None, "x"), P("x"))),
        "index_split_rows": (embed, (x, ids[:3]), (P("x"), P())),
        "take": (lambda t, i: jnp.take(t, i, axis=0), (table, ids), (P(None, "y"), P("x"))),
        "take_along_axis": (lambda a, i: jnp.take_along_axis(a, i, axis=1),
                            (x, np.zeros((8, 2), np.int32)), (P("x"), P("x"))),
        "columns": (lambda a: a[:, 1], (x,), (P("x"),)),
        "embed_grad": (lib.grad(lambda t, i: jnp.sum(jnp.tanh(t[i]))), (table, ids),
                       (P(), P("x"))),
    }


def main(path):
    import jax
    import jax.numpy as jnp

    jax.config.update("jax_num_cpu_devices", 4)
    mesh = jax.make_mesh((2, 2), ("x", "y"), axis_types=(jax.sharding.AxisType.Auto,) * 2)
    with open(path, "w") as f:
        json.dump(run_jitted(jax, mesh, cases(jax, jnp, jax.sharding.PartitionSpec)), f)


if __name__ == "__main__":
    main(sys.argv[1])
