"""Loops and branches in sharded programs, shared by irax's test and JAX (run as a script:
JAX's facts into a JSON file): each case jits a function of sharded arguments on a 2x2
mesh of four CPU devices; the results' shardings and values are compared.

    python control_flow_cases.py out.json      # JAX's facts
"""

import json
import sys

import numpy as np
from jax_facts import run_jitted


def _data():
    rng = np.random.default_rng(0)
    return {
        "x": rng.standard_normal((8, 4)).astype(np.float32),
        "sq": rng.standard_normal((4, 4)).astype(np.float32),
        "xs": rng.standard_normal((5, 8, 4)).astype(np.float32) * 0.5,
        "w": rng.standard_normal((4, 4)).astype(np.float32) * 0.5,
    }


def cases(lib, jnp, lax, mesh):
    """name -> (function, arguments, their PartitionSpecs)."""
    P = lib.sharding.PartitionSpec
    d = _data()
    x, sq, xs, w = d["x"], d["sq"], d["xs"], d["w"]

    def data_dependent(c):   # the condition reads every device's rows
        return lax.while_loop(lambda c: jnp.sum(jnp.abs(c)) < 500.0, lambda c: c * 1.5 + 0.1, c)

    def rnn(h, xs, w):
        def step(h, x):
            h = jnp.tanh(h @ w + x)
            return h, h.sum(1)
        return lax.scan(step, h, xs)

    def contract(h, w):      # h's columns and w's rows split: partial sums every trip
        return lax.fori_loop(0, 3, lambda i, h: jnp.tanh(h @ w), h)

    def nested(c):
        inner = lambda j, c: c * 0.5 + j   # noqa: E731
        return lax.fori_loop(0, 2, lambda i, c: lax.fori_loop(0, 3, inner, c) + i, c)

    def loss(w, x):
        h = lax.fori_loop(0, 3, lambda i, h: jnp.tanh(h @ w), x)
        return jnp.sum(h * h)

    return {
        "fori": (lambda c: lax.fori_loop(0, 4, lambda i, c: c * 2.0 + i, c), (x,), (P("x"),)),
        "fori_2d": (lambda c: lax.fori_loop(0, 3, lambda i, c: jnp.sin(c) + 1.0, c), (x,),
                    (P("x", "y"),)),
        "while_counter": (lambda c: lax.while_loop(lambda s: s[0] < 5,
                                                   lambda s: (s[0] + 1, s[1] * 1.1), (0, c)),
                          (x,), (P("y"),)),
        "while_data_dependent": (data_dependent, (x,), (P("x"),)),
        "scan_rnn": (rnn, (x, xs, w), (P("x"), P(None, "x"), P())),
        "scan_split_steps": (lambda xs: lax.scan(lambda c, v: (c + v, c * v), jnp.zeros((8, 4)),
                                                 xs), (xs[:4],), (P("x"),)),
        "scan_reverse": (lambda xs: lax.scan(lambda c, v: (c * 0.9 + v, c), jnp.zeros((8, 4)),
                                             xs, reverse=True), (xs,), (P(None, "y"),)),
        "cond": (lambda p, c: lax.cond(p > 0, lambda c: c * 2.0, lambda c: c - 1.0, c),
                 (np.float32(1.0), x), (P(), P("x"))),
        "cond_differs": (lambda p, c: lax.cond(p > 0, lambda c: c + 1.0, lambda c: c.T @ c, c),
                         (np.float32(-1.0), sq), (P(), P("x"))),
        "switch": (lambda i, c: lax.switch(i, [lambda c: c + 1.0, lambda c: c * c,
                                               lambda c: -c], c),
                   (np.int32(1), x), (P(), P(None, "y"))),
        "carry_transposed": (lambda c: lax.fori_loop(0, 3, lambda i, c: c.T + 1.0, c), (sq,),
                             (P("x"),)),
        "contract": (contract, (x, w), (P(None, "x"), P("x"))),
        "nested": (nested, (x,), (P("x", "y"),)),
        "grad_through_loop": (lib.grad(loss), (w, x), (P(), P("x"))),
    }


def run(lib, jnp, lax, mesh) -> dict:
    """name -> [[spec, values] per result leaf]."""
    return run_jitted(lib, mesh, cases(lib, jnp, lax, mesh))


def main(path):
    import jax
    import jax.numpy as jnp
    from jax import lax

    jax.config.update("jax_num_cpu_devices", 4)
    mesh = jax.make_mesh((2, 2), ("x", "y"), axis_types=(jax.sharding.AxisType.Auto,) * 2)
    with open(path, "w") as f:
        json.dump(run(jax, jnp, lax, mesh), f)


if __name__ == "__main__":
    main(sys.argv[1])
