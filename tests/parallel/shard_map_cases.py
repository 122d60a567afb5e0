"""shard_map programs on a 2x2 mesh ("x", "y") of 4 CPU devices, written once for both
libraries: tests/parallel/test_shard_map.py runs them with irax, and runs this file as a
script under real JAX (4 host devices) for the values to match.

    python tests/parallel/shard_map_cases.py OUT.npz
"""

import numpy as np
from jax_facts import spec_dims


def inputs():
    rng = np.random.default_rng(0)
    return {
        "a": rng.normal(size=(4, 8)).astype(np.float32),
        "b": rng.normal(size=(8, 4)).astype(np.float32),
        "v": rng.normal(size=(8,)).astype(np.float32),
        "b4": rng.normal(size=(4, 4)).astype(np.float32),
    }


def cases(jnp, lax, P, shard_map, mesh):
    """``{name: (mapped function, argument names)}``; each returns a dict of arrays."""

    def reductions(a, v):
        ix, iy = lax.axis_index("x"), lax.axis_index("y")
        return {
            "psum_y": lax.psum(a, "y"),
            "psum_xy": lax.psum(a, ("x", "y")),
            "pmax_x": lax.pmax(a, "x"),
            "pmin_y": lax.pmin(a, "y"),
            "pmean_y": lax.pmean(a, "y"),
            "index": jnp.reshape(ix * 10 + iy, (1,)).astype(jnp.float32),
            "mixed": jnp.sin(a) * lax.psum(v, "x").sum() + v[:1],
        }

    reductions = shard_map(
        reductions, mesh=mesh, in_specs=(P("x", "y"), P(("x", "y"))),
        out_specs={"psum_y": P("x", None), "psum_xy": P(), "pmax_x": P(None, "y"),
                   "pmin_y": P("x", None), "pmean_y": P("x"), "index": P(("x", "y")),
                   "mixed": P("x", "y")})

    def movement(a):
        n = 2
        return {
            "gather_x": lax.all_gather(a, "x"),
            "gather_x_tiled": lax.all_gather(a, "x", tiled=True),
            "gather_y_axis1": lax.all_gather(a, "y", axis=1, tiled=True),
            "shift_x": lax.ppermute(a, "x", perm=[(k, (k + 1) % n) for k in range(n)]),
            "shift_y_partial": lax.ppermute(a, "y", perm=[(0, 1)]),
            "shift_xy": lax.ppermute(a, ("x", "y"), perm=[(0, 3), (3, 1), (1, 2), (2, 0)]),
            # JAX numbers the devices in the mesh's order whatever the tuple's order
            "shift_yx_partial": lax.ppermute(a, ("y", "x"), perm=[(0, 3), (3, 1)]),
            "a2a_x": lax.all_to_all(a, "x", 0, 1, tiled=True),
            "a2a_y_untiled": lax.all_to_all(a[:, :2], "y", 1, 0),
            "a2a_xy": lax.all_to_all(a, ("x", "y"), 1, 1, tiled=True),
            "a2a_yx_0": lax.all_to_all(a, ("y", "x"), 1, 0, tiled=True),
            "a2a_xy_untiled": lax.all_to_all(a, ("x", "y"), 1, 0),
        }

    # (JAX's replication check does not see that an all_gather over "x" is equal along
    # "x", and refuses a collective over an axis its operand does not vary along: it is
    # off here and in scatter, as its messages suggest)
    movement = shard_map(
        movement, mesh=mesh, in_specs=P("x", "y"), check_vma=False,
        out_specs={"gather_x": P(None, None, "y"), "gather_x_tiled": P(None, "y"),
                   "gather_y_axis1": P("x", None), "shift_x": P("x", "y"),
                   "shift_y_partial": P("x", "y"), "shift_xy": P("x", "y"),
                   "shift_yx_partial": P("x", "y"),
                   "a2a_x": P("x", "y"), "a2a_y_untiled": P("x", "y"), "a2a_xy": P("x", "y"),
                   "a2a_yx_0": P("x", "y"), "a2a_xy_untiled": P("x", "y")})

    def scatter(b, a):
        return {
            "scatter_y_dim1": lax.psum_scatter(a, "y", scatter_dimension=1, tiled=True),
            "scatter_x": lax.psum_scatter(b[:2], "x"),
            "scatter_xy_tiled": lax.psum_scatter(b, ("x", "y"), tiled=True),
        }

    scatter = shard_map(
        scatter, mesh=mesh, in_specs=(P(None, "y"), P("x")), check_vma=False,
        out_specs={"scatter_y_dim1": P("x", "y"), "scatter_x": P(("y", "x")),
                   "scatter_xy_tiled": P(("x", "y"))})

    def replicated_args(pair, v):
        u, w = pair
        return {"out": (u @ w) * lax.psum(v.sum(), "y") + lax.axis_index("y")}

    replicated_args = shard_map(replicated_args, mesh=mesh,
                                in_specs=((P("x"), P()), P("y")), out_specs=P("x", "y"))

    return {
        "reductions": (reductions, ("a", "v")),
        "movement": (movement, ("a",)),
        "scatter": (scatter, ("b", "a")),
        "replicated_args": (lambda a, b, v: replicated_args((a, b), v), ("a", "b", "v")),
    }


def jit_cases(jnp, lax, P, shard_map, jit, grad, vmap, put, mesh):
    """``{name: (function, argument names)}``: jits of code around shard_maps, which irax
    partitions whole over the maps' mesh; ``put(x, spec)`` lays an argument out on the
    mesh (a committed sharded array that the jit follows)."""
    def row_sums(a):
        return lax.psum(a, "y")

    row_sums = shard_map(row_sums, mesh=mesh, in_specs=P("x", "y"), out_specs=P("x"))

    def around(a, v):
        s = row_sums(jnp.sin(a) * 2.0)
        moved = shard_map(lambda u: lax.ppermute(u, "x", perm=[(0, 1), (1, 0)]) +
                          lax.axis_index("y").astype(jnp.float32), mesh=mesh,
                          in_specs=P("x", "y"), out_specs=P("x", "y"))(a + v[:1])
        return {"sums": jnp.tanh(s) + 1.0, "moved": moved * 3.0, "total": jnp.sum(s)}

    def local_loss(w, x, y):
        return lax.pmean(jnp.mean((jnp.tanh(x @ w) - y) ** 2), ("x", "y"))

    loss = shard_map(local_loss, mesh=mesh, in_specs=(P(), P(("x", "y")), P(("x", "y"))),
                     out_specs=P())

    def dp_step(w, x, y):
        value, g = loss(w, x, y), grad(loss)(w, x, y)
        return {"loss": value, "w": w - 0.1 * g}

    def looped(a):
        def body(i, c):
            return c + row_sums(c * 0.5)[:, :1] * i
        return {"out": lax.fori_loop(0, 3, body, a[:, :4])}

    return {
        "around": (jit(around), ("a", "v")),
        "dp_step": (jit(dp_step), ("b", "a", "b4")),
        "dp_grad_outside": (lambda w, x, y: {"g": grad(jit(loss))(w, x, y)}, ("b", "a", "b4")),
        "follow": (lambda a, b: jit(lambda u, w: around(u, w[:, 0]))(put(a, P("x", "y")), b),
                   ("a", "b")),
        "looped": (jit(looped), ("a",)),
        "vmapped": (jit(lambda a: {"out": vmap(row_sums)(jnp.stack([a, 2.0 * a])) + 1.0}),
                    ("a",)),
    }


def sharding_facts(P, NamedSharding, device_put, mesh):
    """What the sharding API says about arrays put on the mesh, by device id."""
    facts = {"mesh_repr": repr(mesh), "mesh_str": str(mesh),
             "mesh_shape": dict(mesh.shape), "mesh_size": mesh.size}
    x = np.arange(32.0, dtype=np.float32).reshape(8, 4)
    for spec in (P("x", "y"), P("x"), P(None, "y"), P(("x", "y")), P(("y", "x"), None),
                 P("y", "x"), P(), P(None, None)):
        s = NamedSharding(mesh, spec)
        a = device_put(x, s)
        facts[repr(spec)] = {
            "repr": repr(s), "spec": repr(s.spec), "shard_shape": list(s.shard_shape(x.shape)),
            "replicated": s.is_fully_replicated, "num_devices": s.num_devices,
            "device_ids": sorted(d.id for d in s.device_set),
            "indices": {str(d.id): repr(i) for d, i in s.devices_indices_map(x.shape).items()},
            "shards": sorted([d.id, repr(sh.index), sh.replica_id, np.asarray(sh.data).tolist()]
                             for d, sh in ((sh.device, sh) for sh in a.addressable_shards)),
            "array_sharding": repr(a.sharding), "value": np.asarray(a).tolist(),
            "same": a.sharding == s, "hash_same": hash(a.sharding) == hash(s),
            "devices": sorted(d.id for d in a.devices()),
            "array_replicated": a.is_fully_replicated,
            "device_is_sharding": a.device == a.sharding,
        }
    return facts


def errors(P, shard_map, NamedSharding, device_put, mesh):
    """``{name: thunk}``: calls that each library must refuse with the same message."""
    def f(a, b):
        return a

    x, y = np.zeros((4, 6), np.float32), np.zeros((3, 6), np.float32)

    def call(in_specs, out_specs=P()):
        return lambda: shard_map(f, mesh=mesh, in_specs=in_specs, out_specs=out_specs)(x, y)

    return {
        "spec_too_long": call((P("x", "y", None), P())),
        "unknown_axis": call((P(), P("z"))),
        "indivisible": call((P(None, ("x", "y")), P())),
        "indivisible_one_axis": call((P(), P("x"))),
        "out_spec_too_long": call((P(), P()), P(None, None, "x")),
        # check_vma: out specs claiming a replication f does not make
        "vma_one_axis": call((P("x", "y"), P()), P("x")),
        "vma_two_axes": call((P("x", "y"), P()), P()),
        "duplicate_axis": lambda: NamedSharding(mesh, P("x", "x")),
        "sharding_unknown_axis": lambda: NamedSharding(mesh, P("z")),
        "put_indivisible": lambda: device_put(np.zeros((3, 4)), NamedSharding(mesh, P("x"))),
        "put_rank": lambda: device_put(np.zeros((4,)), NamedSharding(mesh, P("x", "y"))),
    }


spec_of = spec_dims   # (the name the cases use)


def main(path):
    import jax
    import jax.numpy as jnp
    from jax import lax
    from jax.sharding import AxisType, PartitionSpec

    # Auto axes: shard_map reshards its arguments to the in_specs as irax does (an
    # Explicit mesh refuses arguments whose sharding differs)
    mesh = jax.make_mesh((2, 2), ("x", "y"), axis_types=(AxisType.Auto,) * 2)
    data = inputs()
    out = {}
    for name, (fn, arg_names) in cases(jnp, lax, PartitionSpec, jax.shard_map,
                                       mesh).items():
        for key, value in fn(*(data[a] for a in arg_names)).items():
            out[f"{name}/{key}"] = np.asarray(value)
    import json

    from jax.sharding import NamedSharding

    def put(x, spec):
        return jax.device_put(x, NamedSharding(mesh, spec))

    for name, (fn, arg_names) in jit_cases(jnp, lax, PartitionSpec, jax.shard_map, jax.jit,
                                           jax.grad, jax.vmap, put, mesh).items():
        for key, value in fn(*(data[a] for a in arg_names)).items():
            out[f"jit:{name}/{key}"] = np.asarray(value)
            out[f"jit:{name}/{key}/spec"] = np.asarray(json.dumps(spec_of(value)))

    out["facts"] = np.asarray(json.dumps(sharding_facts(PartitionSpec, NamedSharding,
                                                        jax.device_put, mesh)))
    for name, thunk in errors(PartitionSpec, jax.shard_map, NamedSharding, jax.device_put,
                              mesh).items():
        try:
            thunk()
            out[f"error/{name}"] = np.asarray("no error")
        except Exception as e:  # noqa: BLE001 (the message is the reference)
            out[f"error/{name}"] = np.asarray(f"{type(e).__name__}: {e}")
    np.savez(path, **out)


if __name__ == "__main__":
    import os
    import sys

    os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"
    os.environ["JAX_PLATFORMS"] = "cpu"
    main(sys.argv[1])
