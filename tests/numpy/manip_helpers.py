"""Helpers of the manipulation / index-trick / pad / functional tests: weak inputs, one jit
over many cases, derivatives against JAX and finite differences, vmap against a loop, and
errors compared with JAX's."""

import re

import jax
import jax.numpy as jjnp
import numpy as np
import pytest
from jax._src.lax import lax as jax_lax
from numpy_helpers import check

import irax
import irax.numpy as jnp
from irax.lax import _util as LU


def weak(m, data):
    """``data`` as a weakly typed array of module ``m`` (irax.numpy or jax.numpy)."""
    data = np.asarray(data)
    dt = np.dtype(np.float32) if data.dtype.kind == "f" else np.dtype(np.int32)
    if m is jnp:
        return LU.convert(data, dt, weak=True)
    return jax_lax._convert_element_type(jjnp.asarray(data, dt), dt, weak_type=True)


def convert_args(m, args):
    """Host arrays as arrays of ``m`` (weak markers ``("weak", data)`` made weak)."""
    out = []
    for a in args:
        if isinstance(a, tuple) and len(a) == 2 and a[0] == "weak":
            out.append(weak(m, a[1]))
        else:
            out.append(a)
    return out


def leaves(x):
    return jax.tree_util.tree_leaves(x) if not isinstance(x, irax.Array) else [x]


def check_tree(got, want, msg="", **kw):
    g = irax.tree_util.tree_leaves(got)
    w = jax.tree_util.tree_leaves(want)
    assert len(g) == len(w), f"{msg}: {len(g)} leaves != {len(w)}"
    for i, (a, b) in enumerate(zip(g, w)):
        check(a if isinstance(a, irax.Array) else jnp.asarray(a), b, msg=f"{msg}[{i}]", **kw)


def check_cases_eager(cases, i):
    """Case ``i`` of ``(name, fn, args)``: ``fn(irax.numpy, *args)`` matches
    ``fn(jax.numpy, *args)`` in values, dtypes and weak types."""
    name, fn, args = cases[i]
    want = fn(jjnp, *convert_args(jjnp, args))
    got = fn(jnp, *convert_args(jnp, args))
    check_tree(got, want, msg=name)


def check_cases_jit(cases, **kw):
    """Every case in one ``irax.jit`` (its array arguments traced), against JAX eagerly and
    irax eagerly: one IREE compile for the lot."""
    arg_lists = [convert_args(jnp, args) for _, _, args in cases]

    def all_cases(arg_lists):
        return [fn(jnp, *args) for (_, fn, _), args in zip(cases, arg_lists)]

    compiled = irax.jit(all_cases)(arg_lists)
    for (name, fn, args), got in zip(cases, compiled):
        want = fn(jjnp, *convert_args(jjnp, args))
        check_tree(got, want, msg="jit " + name, **kw)


def check_derivatives(name, fn, args, rng, *, eps=1e-2, rtol=2e-2, atol=2e-2):
    """``jvp`` and ``vjp`` of ``fn(m, *args)`` (float args) match JAX's, and the jvp matches
    central finite differences."""
    args = [np.asarray(a, np.float32) for a in args]
    tangents = [rng.standard_normal(a.shape).astype(np.float32) for a in args]
    fi = lambda *a: fn(jnp, *a)  # noqa: E731
    fj = lambda *a: fn(jjnp, *a)  # noqa: E731
    out_i, dout_i = irax.jvp(fi, tuple(args), tuple(tangents))
    out_j, dout_j = jax.jvp(fj, tuple(args), tuple(tangents))
    check(out_i, out_j, msg=f"{name} primal", rtol=1e-5, atol=1e-5)
    check(dout_i, dout_j, msg=f"{name} jvp", rtol=1e-4, atol=1e-4, weak=False)
    ct = rng.standard_normal(np.shape(out_j)).astype(np.float32)
    _, vjp_i = irax.vjp(fi, *args)
    _, vjp_j = jax.vjp(fj, *args)
    for k, (gi, gj) in enumerate(zip(vjp_i(ct), vjp_j(jjnp.asarray(ct)))):
        check(gi, gj, msg=f"{name} vjp {k}", rtol=1e-4, atol=1e-4, weak=False)
    plus = fi(*[a + eps * t for a, t in zip(args, tangents)])
    minus = fi(*[a - eps * t for a, t in zip(args, tangents)])
    fd = (np.asarray(plus, np.float64) - np.asarray(minus, np.float64)) / (2 * eps)
    np.testing.assert_allclose(np.asarray(dout_i), fd, rtol=rtol, atol=atol,
                               err_msg=f"{name} finite differences")


def check_vmap_loop(fn, batched_args, *, msg=""):
    """``irax.vmap(fn)`` over the leading axis of every argument equals a Python loop of
    ``fn`` (eager) over the examples; one compile for ``fn`` returning many outputs."""
    got = irax.vmap(fn)(*batched_args)
    n = np.shape(batched_args[0])[0]
    per = [fn(*[a[i] for a in batched_args]) for i in range(n)]
    g_leaves = irax.tree_util.tree_leaves(got)
    for k, g in enumerate(g_leaves):
        rows = [irax.tree_util.tree_leaves(p)[k] for p in per]
        want = np.stack([np.asarray(r) for r in rows])
        assert g.dtype == rows[0].dtype, f"{msg} output {k}: {g.dtype} != {rows[0].dtype}"
        np.testing.assert_allclose(np.asarray(g), want, rtol=1e-5, atol=1e-5,
                                   err_msg=f"{msg} output {k}")


def _same_kind(ei, ej) -> bool:
    if type(ei).__name__ == type(ej).__name__:
        return True
    return isinstance(ei, type(ej)) and type(ej).__module__ == "builtins"


def check_error(fn, pattern: str):
    """``fn(jax.numpy)`` and ``fn(irax.numpy)`` both raise an exception of the same kind
    (same class name, or the irax one a subclass of JAX's builtin type) whose message
    matches ``pattern``."""
    with pytest.raises(Exception) as ej:
        fn(jjnp)
    with pytest.raises(Exception) as ei:
        fn(jnp)
    assert _same_kind(ei.value, ej.value), (type(ei.value), type(ej.value), str(ei.value))
    assert re.search(pattern, str(ej.value)), ("jax", pattern, str(ej.value))
    assert re.search(pattern, str(ei.value)), ("irax", pattern, str(ei.value))


def jit_of(m):
    """``jax.jit`` for jax.numpy, ``irax.jit`` for irax.numpy."""
    return jax.jit if m is jjnp else irax.jit
