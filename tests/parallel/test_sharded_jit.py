"""jit(in_shardings=, out_shardings=) and lax.with_sharding_constraint on a 2x2 mesh of 4
CPU devices: the values are those of the unsharded function, the results are laid out
as asked, and bad shardings get JAX's errors. (How the program is partitioned:
test_partition.py.)"""

import inspect

import numpy as np
import pytest

import irax
import irax.numpy as jnp
from irax import lax
from irax.sharding import NamedSharding
from irax.sharding import PartitionSpec as P


def _x(*shape, seed=0):
    return np.random.default_rng(seed).normal(size=shape).astype(np.float32)


def test_in_and_out_shardings_lay_values_out(mesh):
    rows, cols = NamedSharding(mesh, P("x")), NamedSharding(mesh, P(None, "y"))

    def f(a, b):
        h = lax.with_sharding_constraint(a @ b, NamedSharding(mesh, P("x", "y")))
        return {"h": h, "s": jnp.sum(h)}

    g = irax.jit(f, in_shardings=(rows, cols),
                 out_shardings={"h": NamedSharding(mesh, P("x", "y")), "s": None})
    a, b = _x(4, 3), _x(3, 8, seed=1)
    out = g(a, b)
    np.testing.assert_allclose(np.asarray(out["h"]), a @ b, rtol=1e-5)
    np.testing.assert_allclose(np.asarray(out["s"]), (a @ b).sum(), rtol=1e-4)
    assert out["h"].sharding == NamedSharding(mesh, P("x", "y"))
    assert {s.device.id: s.index for s in out["h"].addressable_shards}[3] == \
        (slice(2, 4), slice(4, 8))
    # one sharding for every argument; the lowered program is jit's
    h = irax.jit(lambda u, v: u * v, in_shardings=rows, out_shardings=rows)
    assert h(a, a).sharding == rows
    assert "stablehlo.multiply" in h.lower(a, a).as_text("stablehlo")
    # device_put of a pytree to a pytree of shardings
    pa, pb = irax.device_put((a, b), (rows, cols))
    assert (pa.sharding, pb.sharding) == (rows, cols)
    np.testing.assert_array_equal(np.asarray(pb), b)
    # outside a trace, with_sharding_constraint puts the value on the mesh
    assert lax.with_sharding_constraint(b, cols).sharding == cols
    # under set_mesh a bare PartitionSpec names the mesh's axes
    with irax.set_mesh(mesh):
        k = irax.jit(lambda u: u + 1, in_shardings=P("x"), out_shardings=P(("x", "y")))
        assert k(b.T).sharding == NamedSharding(mesh, P(("x", "y")))


def test_a_plain_jit_follows_its_arguments_shardings(mesh):
    """As JAX's jit with committed arrays: sharded arguments partition a plain jit over
    their mesh (an unsharded one is replicated), the sharded argument is not read back
    to the host, and the results come back with the propagated shardings; the same
    function on unsharded arguments runs on one device."""
    rows = NamedSharding(mesh, P("x"))
    a, w = _x(8, 6), _x(6, 4, seed=1)
    xs = irax.device_put(a, rows)
    f = irax.jit(lambda x, w: (jnp.tanh(x @ w) * 2, jnp.sum(x)))
    h, s = f(xs, w)
    assert xs._host is None and h._host is None
    assert h.sharding == rows and s.sharding == NamedSharding(mesh, P())   # (JAX: P("x",
    # None) for h: the same blocks, its spec padded)
    np.testing.assert_allclose(np.asarray(h), np.tanh(a @ w) * 2, rtol=1e-5)
    np.testing.assert_allclose(np.asarray(s), a.sum(), rtol=1e-5)
    # lowering follows them too: the program it shows is the partitioned one
    lowered = f.lower(xs, w)
    assert "main_spmd" in lowered.as_text("expanded")
    assert "main_spmd" not in f.lower(a, w).as_text("expanded")
    h2, _ = lowered.compile()(xs, w)
    np.testing.assert_allclose(np.asarray(h2), np.tanh(a @ w) * 2, rtol=1e-5)
    h1, _ = f(a, w)
    assert h1.devices() == {irax.devices()[0]}
    np.testing.assert_allclose(np.asarray(h1), np.asarray(h), rtol=1e-6)
    # static arguments stay static; a sharded keyword argument runs as before (gathered)
    g = irax.jit(lambda x, k: x * k, static_argnums=1)
    assert g(xs, 3).sharding == rows
    np.testing.assert_allclose(np.asarray(g(xs, 3)), 3 * a, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(irax.jit(lambda x: x + 1)(x=xs)), a + 1, rtol=1e-6)
    # a spec padded with None lays out the same blocks: taken as they are, not re-cut
    padded = irax.device_put(a, NamedSharding(mesh, P("x", None)))
    assert padded.sharding.is_equivalent_to(rows, 2) and rows.is_equivalent_to(
        NamedSharding(mesh, P(("x",))), 2)
    assert not rows.is_equivalent_to(NamedSharding(mesh, P("y")), 2)
    assert not NamedSharding(mesh, P("x", None, None)).is_equivalent_to(rows, 2)
    out = irax.jit(lambda v: v * 2, in_shardings=rows, out_shardings=rows)(padded)
    assert padded._host is None and out._host is None and out.sharding == rows
    assert irax.device_put(padded, rows)._shards == padded._shards


def test_sharding_errors(mesh):
    a = _x(3, 4)
    g = irax.jit(lambda u: u, in_shardings=NamedSharding(mesh, P("x")))
    with pytest.raises(ValueError, match=r"array axis 0 is partitioned 2 times, but the "
                       r"dimension size is 3 \(args\[0\]\)"):
        g(a)
    g = irax.jit(lambda u, v: u, in_shardings=(NamedSharding(mesh, P()),))
    with pytest.raises(ValueError, match="the function takes 2 positional arguments, but "
                       "in_shardings has 1"):
        g(a, a)
    g = irax.jit(lambda u: u, out_shardings=NamedSharding(mesh, P("x", "y", None)))
    with pytest.raises(ValueError, match=r"One of jit out_shardings args \(outputs\) is "
                       r"incompatible .* only valid for values of rank at least 3, but was "
                       r"applied to a value of rank 2"):
        g(a)

    def constrained(u):
        return lax.with_sharding_constraint(u, NamedSharding(mesh, P(None, ("x", "y"), None)))

    with pytest.raises(ValueError, match="One of with_sharding_constraint args"):
        irax.jit(constrained)(a)


def test_out_sharding_keywords_lay_the_results_out(mesh):
    """JAX 0.10's ``out_sharding=`` of the array-making functions (``sharding=`` of
    lax.full): the values are those made without it, laid out as asked, eagerly and under
    jit; the spec names only Explicit axes, and a bare PartitionSpec needs set_mesh."""
    from irax import random
    from irax.sharding import AxisType

    rows, cols = NamedSharding(mesh, P("x")), NamedSharding(mesh, P(None, "y"))
    a = _x(4, 8)
    made = {
        "zeros": (lambda s: jnp.zeros((4, 8), out_sharding=s), np.zeros((4, 8))),
        "arange": (lambda s: jnp.arange(8.0, out_sharding=s), np.arange(8.0)),
        "reshape": (lambda s: jnp.reshape(jnp.asarray(a), (8, 4), out_sharding=s),
                    a.reshape(8, 4)),
        "einsum": (lambda s: jnp.einsum("ij,kj->ik", a, a, out_sharding=s), a @ a.T),
        "dot_general": (lambda s: lax.dot_general(a, a.T, (((1,), (0,)), ((), ())),
                                                  out_sharding=s), a @ a.T),
        "normal": (lambda s: random.normal(random.key(3), (4, 8), out_sharding=s),
                   np.asarray(random.normal(random.key(3), (4, 8)))),
    }
    for name, (make, want) in made.items():
        for how in ("eager", "jit"):
            got = make(rows) if how == "eager" else irax.jit(lambda m=make: m(rows))()
            np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, err_msg=name)
            assert got.sharding == rows, (name, how, got.sharding)
    with irax.set_mesh(mesh):
        assert jnp.ones((4, 8), out_sharding=P(None, "y")).sharding == cols
        k = irax.jit(lambda u: jnp.tanh(u @ u.T) + jnp.zeros((4, 4), out_sharding=P("x")))
        np.testing.assert_allclose(np.asarray(k(a)), np.tanh(a @ a.T), rtol=1e-5)
    assert lax.full((4, 8), 2.0, sharding=cols).sharding == cols
    auto = irax.make_mesh((2, 2), ("x", "y"), axis_types=(AxisType.Auto,) * 2)
    with pytest.raises(ValueError, match=r"PartitionSpec passed to jnp.zeros cannot contain "
                                         r"axis names that are of type Auto or Manual"):
        jnp.zeros((4, 8), out_sharding=NamedSharding(auto, P("x")))
    with pytest.raises(ValueError, match="jnp.zeros: using a PartitionSpec .* not under a "
                                         "mesh context"):
        jnp.zeros((4, 8), out_sharding=P("x"))
    with pytest.raises(ValueError, match="PartitionSpec passed to reshard cannot contain"):
        irax.reshard(np.ones((4, 8), np.float32), NamedSharding(auto, P("x")))
    # the keyword is in the signatures, as JAX's
    for fn in (jnp.zeros, lax.dot_general, random.normal):
        assert "out_sharding" in inspect.signature(fn).parameters
    assert "sharding" in inspect.signature(lax.full).parameters
    with pytest.raises(ValueError, match="only valid for values of rank at least 2"):
        jnp.zeros((4,), out_sharding=NamedSharding(mesh, P("x", "y")))
    with pytest.raises(NotImplementedError, match="axis_index_groups"):
        irax.shard_map(lambda u: lax.psum(u, "x", axis_index_groups=[[0, 1]]), mesh=mesh,
                       in_specs=P("x"), out_specs=P())(a)


def test_reshard_and_constraints_place_the_jit(mesh):
    """``reshard`` lays a pytree out (eagerly, or as constraints under jit); a jit whose
    arguments are not sharded runs over the mesh of a sharding constraint inside it, its
    results laid out as propagated from the constraint (JAX's placement), with the
    values and gradients of the unconstrained function."""
    rows = NamedSharding(mesh, P("x"))
    a, w = _x(4, 8), _x(8, 8, seed=1)
    out = irax.reshard({"a": a, "w": w}, {"a": rows, "w": NamedSharding(mesh, P(None, "y"))})
    assert out["a"].sharding == rows and out["w"].sharding.spec == P(None, "y")
    with irax.set_mesh(mesh):
        assert irax.jit(lambda u: irax.reshard(u * 2, P("y")))(a).sharding == \
            NamedSharding(mesh, P("y"))

    def f(u, v):
        return jnp.tanh(lax.with_sharding_constraint(u @ v, rows)) * 2

    got = irax.jit(f)(a, w)
    assert got.sharding == rows
    np.testing.assert_allclose(np.asarray(got), np.tanh(a @ w) * 2, rtol=1e-5)
    g = irax.jit(irax.grad(lambda u, v: jnp.sum(f(u, v) ** 2), argnums=(0, 1)))(a, w)
    t = 1 - np.tanh(a @ w) ** 2
    ct = 8 * np.tanh(a @ w) * t
    np.testing.assert_allclose(np.asarray(g[0]), ct @ w.T, rtol=1e-4)
    np.testing.assert_allclose(np.asarray(g[1]), a.T @ ct, rtol=1e-4)
