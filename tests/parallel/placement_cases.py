"""Where results live, shared by irax's test and JAX (run as a script: JAX's facts into a
JSON file): committed arrays (``device_put(x, device)``) decide the device of every
computation they enter, eager or jitted, and make its results committed; uncommitted
ones follow them; arrays committed to different devices cannot meet. Eager computations
on sharded arrays give sharded results.

    python placement_cases.py out.json      # JAX's facts (four CPU devices)
"""

import json
import sys

import numpy as np
from jax_facts import error_messages, spec_dims


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


def sharded_cases(lib, jnp, lax, mesh):
    """name -> thunk: eager computations on arrays sharded over a 2x2 mesh, whose results
    are sharded as the jitted primitive's partitioning lays them out."""
    from_spec = lib.sharding.NamedSharding
    P = lib.sharding.PartitionSpec
    x = np.arange(16.0, dtype=np.float32).reshape(4, 4)
    xs = lib.device_put(x, from_spec(mesh, P("x")))
    ys = lib.device_put(x + 1, from_spec(mesh, P(None, "y")))
    w = jnp.ones((4, 4))
    return {
        "elementwise": lambda: (xs + 1, xs * w, jnp.sin(xs), 2.0 * xs, xs + ys),
        "reductions": lambda: (jnp.sum(xs), jnp.sum(xs, 0), jnp.sum(xs, 1), jnp.max(xs, 1)),
        "matmul": lambda: (xs @ w, w @ ys),
        "shape": lambda: (xs.reshape(16), xs.T, xs[0], xs[1:3]),
        "grad": lambda: lib.grad(lambda a: (a * a).sum())(xs),
        "vmap": lambda: lib.vmap(lambda r: r * 2)(xs),
        "loops": lambda: (lax.fori_loop(0, 3, lambda i, c: c * 2.0, xs),
                          lax.scan(lambda c, r: (c + r, c * r), jnp.zeros(4), ys),
                          lax.while_loop(lambda c: c.sum() < 1000.0, lambda c: c * 3.0, xs + 1)),
        "cond": lambda: lax.cond(True, lambda a: a.T, lambda a: a + 1.0, xs),
    }


def sharded_errors(lib, jnp, mesh):
    from_spec = lib.sharding.NamedSharding
    xs = lib.device_put(np.zeros((4, 4), np.float32),
                        from_spec(mesh, lib.sharding.PartitionSpec("x")))
    one = lib.device_put(jnp.ones((4, 4)), lib.devices()[1])
    return {"sharded_and_committed": lambda: xs + one}


def spec_and_values(result) -> list:
    """Per array of ``result``: its spec (lists of mesh axes per dimension, trailing whole
    dimensions dropped; None for a single-device array) and its values."""
    return [[spec_dims(a), np.asarray(a).tolist()] for a in leaves_of(result)]


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

    jax.config.update("jax_num_cpu_devices", 4)
    got = {name: describe(thunk()) for name, thunk in cases(jax, jnp, lax).items()}
    mesh = jax.make_mesh((2, 2), ("x", "y"), axis_types=(jax.sharding.AxisType.Auto,) * 2)
    for name, thunk in sharded_cases(jax, jnp, lax, mesh).items():
        got[f"sharded/{name}"] = spec_and_values(thunk())
    got.update(error_messages({**errors(jax, jnp, lax), **sharded_errors(jax, jnp, mesh)}))
    with open(path, "w") as f:
        json.dump(got, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1])
