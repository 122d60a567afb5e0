"""Building sharded arrays from their blocks and the process / default-device API,
shared by irax's test and JAX (run as a script: JAX's facts into a JSON file).

    python make_array_cases.py out.json      # JAX's facts (four CPU devices)
"""

import json
import sys

import numpy as np
from jax_facts import error_messages, spec_dims


def cases(lib, mesh):
    """name -> thunk returning (array, number of callback calls or None)."""
    NamedSharding, P = lib.sharding.NamedSharding, lib.sharding.PartitionSpec
    data = np.arange(24, dtype=np.float32).reshape(4, 6)
    devs = list(mesh.devices.flat)

    def callback(spec, dtype=None, shape=(4, 6)):
        calls = []
        a = lib.make_array_from_callback(
            shape, NamedSharding(mesh, spec),
            lambda index: (calls.append(index), data[index])[1], dtype=dtype)
        return a, len(calls)

    def singles(spec, order=1):
        s = NamedSharding(mesh, spec)
        blocks = [lib.device_put(np.full(s.shard_shape((4, 6)), k, np.float32), d)
                  for k, d in enumerate(devs)]
        return lib.make_array_from_single_device_arrays((4, 6), s, blocks[::order]), None

    return {
        "callback_rows": lambda: callback(P("x")),
        "callback_grid": lambda: callback(P("x", "y")),
        "callback_replicated": lambda: callback(P()),
        "callback_dtype": lambda: callback(P(("x", "y")), dtype=np.float32),
        "callback_single_device": lambda: (lib.make_array_from_callback(
            (4, 6), lib.sharding.SingleDeviceSharding(devs[2]), lambda index: data[index]),
            None),
        "singles_rows": lambda: singles(P("x")),
        "singles_reversed": lambda: singles(P("x", "y"), order=-1),
        "process_local": lambda: (lib.make_array_from_process_local_data(
            NamedSharding(mesh, P("y")), data), None),
    }


def errors(lib, mesh):
    NamedSharding, P = lib.sharding.NamedSharding, lib.sharding.PartitionSpec
    s = NamedSharding(mesh, P("x"))
    devs = list(mesh.devices.flat)
    return {
        "callback_block_shape": lambda: lib.make_array_from_callback(
            (4, 6), s, lambda index: np.zeros((3, 6), np.float32)),
        "callback_indivisible": lambda: lib.make_array_from_callback(
            (5, 6), s, lambda index: np.zeros((2, 6), np.float32)),
        "callback_dtype": lambda: lib.make_array_from_callback(
            (4, 6), s, lambda index: np.zeros((2, 6), np.float32), dtype=np.int32),
        "singles_count": lambda: lib.make_array_from_single_device_arrays(
            (4, 6), s, [lib.device_put(np.zeros((2, 6), np.float32), d) for d in devs[:2]]),
        "singles_shape": lambda: lib.make_array_from_single_device_arrays(
            (4, 6), s, [lib.device_put(np.zeros((3, 6), np.float32), d) for d in devs]),
    }


def describe(result) -> list:
    a, calls = result
    shards = sorted([s.device.id, [[i.start, i.stop] for i in s.index],
                     np.asarray(s.data).tolist()] for s in a.addressable_shards)
    return [spec_dims(a), sorted(d.id for d in a.devices()), str(a.dtype), bool(a.committed),
            np.asarray(a).tolist(), shards, calls]


def main(path):
    import jax

    jax.config.update("jax_num_cpu_devices", 4)
    mesh = jax.make_mesh((2, 2), ("x", "y"), axis_types=(jax.sharding.AxisType.Auto,) * 2)
    got = {name: describe(thunk()) for name, thunk in cases(jax, mesh).items()}
    got.update(error_messages(errors(jax, mesh)))
    d1 = jax.devices()[1]
    with jax.default_device(d1):
        x = jax.numpy.arange(3.0)
        y = jax.jit(lambda a: a * 2)(x)
    got["default_device"] = [[sorted(d.id for d in v.devices()), bool(v.committed)]
                             for v in (x, y)]
    got["process"] = [jax.process_count(), jax.process_index(), jax.process_indices()]
    with open(path, "w") as f:
        json.dump(got, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1])
