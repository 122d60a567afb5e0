"""Shared harness of the statistics, set, search, math and histogram tests: every case is a
function ``case(m, *arrays)`` run with ``m = irax.numpy`` and ``m = jax.numpy``.

    eager_vs_jax(CASES, ARGS)      # each case eagerly (NumPy rules) against JAX
    jit_vs_jax(CASES, ARGS)        # every case in ONE irax.jit (one IREE compile)
    grads_vs_jax(f, args)          # jvp and vjp against JAX, and finite differences
    vmap_vs_loop(f, xs)            # irax.vmap against a Python loop
"""

import contextlib
import os
import tempfile

import jax
import jax.numpy as jjnp
import numpy as np
from numpy_helpers import BF16, check, sample  # noqa: F401 - sample: for the family tests

import irax
import irax.numpy as inp
from irax.config import config
from irax.test_util import check_grads

# JAX (the oracle) compiles each case with XLA: keep those compiles between runs
# (next to irax's own compile cache when one is set, as CI does)
_IRAX_CACHE = os.environ.get("IRAX_COMPILATION_CACHE_DIR")
jax.config.update("jax_compilation_cache_dir", os.environ.get(
    "JAX_COMPILATION_CACHE_DIR",
    os.path.join(os.path.dirname(os.path.abspath(_IRAX_CACHE)), "jax-oracle") if _IRAX_CACHE
    else os.path.join(tempfile.gettempdir(), "irax-tests-jax-cache")))
jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)

# dtypes accepted by most numeric functions (x32 mode)
INTS = [np.dtype(d) for d in (np.int8, np.int16, np.int32, np.uint8, np.uint16, np.uint32)]
FLOATS = [np.dtype(d) for d in (np.float16, np.float32)] + [BF16]
ALL = [np.dtype(np.bool_)] + INTS + FLOATS + [np.dtype(np.complex64)]


def leaves(x):
    if isinstance(x, dict):
        for k in sorted(x):
            yield from leaves(x[k])
    elif isinstance(x, (tuple, list)):
        for y in x:
            yield from leaves(y)
    else:
        yield x


def check_tree(got, want, rtol=None, atol=None, msg=""):
    g, w = list(leaves(got)), list(leaves(want))
    assert len(g) == len(w), f"{msg}: {len(g)} results != {len(w)}"
    for i, (a, b) in enumerate(zip(g, w)):
        if isinstance(b, (bool, int, float, complex)):
            assert type(a) is type(b) and a == b, f"{msg}[{i}]: {a!r} != {b!r}"
            continue
        check(a, b, rtol=rtol, atol=atol, msg=f"{msg}[{i}]")


_ORACLE = {}


def jax_results(cases, args):
    """Every case under ONE jax.jit (one XLA compile instead of one per op), memoized: the
    oracle of both the eager and the jitted irax runs."""
    key = (id(cases), tuple(id(a) for a in args))
    if key not in _ORACLE:
        names = sorted(cases)
        outs = jax.jit(lambda *a: [cases[n](jjnp, *a) for n in names])(*args)
        _ORACLE[key] = (cases, args, dict(zip(names, outs)))  # refs keep the ids unique
    return _ORACLE[key][2]


def jax_call(call):
    """``call(jax.numpy)`` under one jax.jit (one XLA compile, not one per op); its arrays are
    constants."""
    return jax.jit(lambda: call(jjnp))()


def _compare_all(names, got, want, rtol, atol, prefix):
    errors = []
    for n in names:
        try:
            check_tree(got[n], want[n], rtol, atol, msg=f"{prefix}{n}")
        except AssertionError as e:
            errors.append(str(e)[:400])
    assert not errors, "\n".join(errors)


def eager_vs_jax(cases, args, rtol=None, atol=None):
    """Each case eagerly (NumPy rules) against JAX."""
    want = jax_results(cases, args)
    _compare_all(sorted(cases), {n: f(inp, *args) for n, f in cases.items()}, want, rtol, atol,
                 "")


def jit_vs_jax(cases, args, rtol=None, atol=None):
    """Every case in one jitted function of ``args`` (one compile), against JAX."""
    names = sorted(cases)
    got = irax.jit(lambda *a: [cases[n](inp, *a) for n in names])(*args)
    _compare_all(names, dict(zip(names, got)), jax_results(cases, args), rtol, atol, "jit ")


def random_like(x, seed=1):
    r = np.random.default_rng(seed)
    x = np.asarray(x)
    return r.uniform(-1, 1, x.shape).astype(x.dtype)


def grads_vs_jax(f, args, rtol=2e-4, atol=2e-4, fd=True, eps=1e-3):
    """jvp and vjp of ``f(m, *args)`` against JAX's (eagerly), and finite differences."""
    fi = lambda *a: f(inp, *a)  # noqa: E731
    fj = lambda *a: f(jjnp, *a)  # noqa: E731
    tangents = tuple(random_like(a, 7 + i) for i, a in enumerate(args))
    out_i, tan_i = irax.jvp(fi, args, tangents)
    out_j, tan_j = jax.jvp(fj, args, tangents)
    check_tree(out_i, out_j, rtol, atol, msg="jvp primal")
    check_tree(tan_i, tan_j, rtol, atol, msg="jvp tangent")
    out_i, pull_i = irax.vjp(fi, *args)
    out_j, pull_j = jax.vjp(fj, *args)
    ct = jax.tree_util.tree_map(lambda o: random_like(o, 3), out_j)
    check_tree(pull_i(ct), pull_j(ct), rtol, atol, msg="vjp")
    if fd:
        check_grads(fi, args, order=1, atol=5e-2, rtol=5e-2, eps=eps)


def vmap_vs_loop(f, xs, in_axes=0):
    """``irax.vmap(f)(xs)`` equals stacking ``f`` of each slice."""
    got = irax.vmap(f, in_axes=in_axes)(xs)
    xs = np.asarray(xs)
    n = xs.shape[in_axes]
    want = [f(np.take(xs, i, axis=in_axes)) for i in range(n)]
    g, w = list(leaves(got)), [list(leaves(o)) for o in want]
    for k, gk in enumerate(g):
        stacked = np.stack([np.asarray(wi[k]) for wi in w])
        assert gk.dtype == w[0][k].dtype, (gk.dtype, w[0][k].dtype)
        np.testing.assert_allclose(np.asarray(gk, np.float64) if gk.dtype.kind != "c"
                                   else np.asarray(gk), stacked if stacked.dtype.kind == "c"
                                   else stacked.astype(np.float64), rtol=1e-5, atol=1e-5)


@contextlib.contextmanager
def both_x64():
    """64-bit types in irax and JAX for the duration."""
    config.update("jax_enable_x64", True)
    jax.config.update("jax_enable_x64", True)
    try:
        yield
    finally:
        config.update("jax_enable_x64", False)
        jax.config.update("jax_enable_x64", False)


