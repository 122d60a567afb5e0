"""Where results live, shared by irax's test and JAX (run as a script: JAX's facts into a
JSON file): committed arrays (``device_put(x, device)``) decide the device of every
computation they enter, eager or jitted, and make its results committed; uncommitted
ones follow them; arrays committed to different devices cannot meet.

    python placement_cases.py out.json      # JAX's facts (two CPU devices)
"""

import json
import sys

import numpy as np


def cases(lib, jnp, lax):
    """name -> thunk returning a pytree of arrays (``lib``: jax or irax)."""
    d0, d1 = lib.devices()[:2]
    x = jnp.arange(3.0)
    y = lib.device_put(x, d1)   # committed to the second device
    w = lib.device_put(x, d0)   # committed to the first
    add = lib.jit(lambda a, b: a + b)
    key = lib.device_put(lib.random.key(0), d1)
    raw = lib.device_put(lib.random.PRNGKey(0), d1)
    return {
        "arange": lambda: x,
        "put_device": lambda: y,
        "put_sharding": lambda: lib.device_put(x, lib.sharding.SingleDeviceSharding(d1)),
        "put_nothing": lambda: lib.device_put(x),
        "put_nothing_committed": lambda: lib.device_put(y),
        "put_moves": lambda: lib.device_put(y, d0),
        "jit_committed_and_not": lambda: add(y, x),
        "jit_uncommitted": lambda: add(x, x),
        "jit_first_device": lambda: add(w, x),
        "jit_pytree": lambda: lib.jit(lambda p: p["a"] * p["b"])({"a": x, "b": y}),
        "eager_scalar": lambda: (y + 1, 2.0 * y, y * np.ones(3, np.float32)),
        "eager_mixed": lambda: (y + x, x - y, jnp.maximum(x, y)),
        "eager_unary": lambda: (jnp.sin(y), -y, jnp.exp(y)),
        "eager_reduce": lambda: (jnp.sum(y), jnp.mean(y), y.max(), jnp.linalg.norm(y)),
        "eager_select": lambda: jnp.where(y > 1, y, 0.0),
        "eager_matmul": lambda: (y @ y, jnp.outer(y, x)),
        "eager_shape": lambda: (y.reshape(3, 1), y.T, y[0], y[1:], jnp.stack([y, y])),
        "eager_misc": lambda: (y.astype(jnp.int32), jnp.sort(y), y.at[0].set(5.0),
                               jnp.zeros_like(y)),
        "eager_host_computed": lambda: (jnp.unique(y), jnp.nonzero(y)[0], y[y > 1.0],
                                        jnp.linalg.eigh(jnp.outer(y, y))[0]),
        "array_copy": lambda: (jnp.array(y), jnp.asarray(y), jnp.array([y, y])),
        "creation_device": lambda: (jnp.zeros(3, device=d1), jnp.ones((2,), device=d1),
                                    jnp.asarray([1.0, 2.0], device=d1),
                                    jnp.full((2,), 3.0, device=d1)),
        "grad": lambda: lib.grad(lambda a: (a * a).sum())(y),
        "value_and_grad": lambda: lib.value_and_grad(lambda a: jnp.sin(a).sum())(y),
        "vmap": lambda: lib.vmap(lambda a: a * 2)(y),
        "jacfwd": lambda: lib.jacfwd(lambda a: a * a)(y),
        "jvp": lambda: lib.jvp(lambda a: a * a, (y,), (x,)),
        "fori_loop": lambda: lax.fori_loop(0, 3, lambda i, c: c + 1.0, y),
        "scan": lambda: lax.scan(lambda c, v: (c + v, c * v), 0.0, y),
        "cond": lambda: lax.cond(True, lambda a: a, lambda a: -a, y),
        "while_loop": lambda: lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] * 2),
                                             (0, y)),
        "random_typed_key": lambda: (lib.random.normal(key, (2,)),
                                     lib.random.key_data(lib.random.split(key))),
        "random_raw_key": lambda: lib.random.uniform(raw, (2,)),
    }


def errors(lib, jnp, lax):
    """name -> thunk that must raise (arrays committed to different devices meet)."""
    d0, d1 = lib.devices()[:2]
    x = jnp.arange(3.0)
    y, w = lib.device_put(x, d1), lib.device_put(x, d0)

    def f(a, b):
        return a + b
    return {
        "jit": lambda: lib.jit(f)(y, w),
        "jit_pytree": lambda: lib.jit(lambda p, q: p["a"] + q)({"a": y}, w),
        "eager": lambda: y + w,
    }


def leaves_of(out) -> list:
    """The arrays of a (nested) tuple result."""
    if isinstance(out, (list, tuple)):
        return [a for o in out for a in leaves_of(o)]
    return [out]


def describe(out) -> list:
    return [[bool(a.committed), sorted(d.id for d in a.devices())] for a in leaves_of(out)]


def main(path):
    import jax
    import jax.numpy as jnp
    from jax import lax

    jax.config.update("jax_num_cpu_devices", 2)
    got = {name: describe(thunk()) for name, thunk in cases(jax, jnp, lax).items()}
    for name, thunk in errors(jax, jnp, lax).items():
        try:
            thunk()
            got[f"error/{name}"] = "no error"
        except Exception as e:  # noqa: BLE001 (the message is the reference)
            got[f"error/{name}"] = f"{type(e).__name__}: {e}"
    with open(path, "w") as f:
        json.dump(got, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1])
