"""Shared harness of the irax.optim-vs-Optax tests.

One problem: params a pytree of a matrix and a nested tuple (a vector and a rank-3
array); the gradient at step t is that of a fixed quadratic at the current params plus
noise_t (plus ``bad_t``, an inf or 0, for the transformations that are to see non-finite
gradients). Every transformation of a group runs STEPS steps:
- Optax under one ``jax.jit``-ed step function per group (the oracle),
- irax eagerly (a Python loop; eager irax runs on NumPy, no compile),
- irax under ONE ``irax.jit``-ed ``lax.scan`` per group (one IREE compile per group and
  dtype: IREE's compile time grows with the number of leaves and transformations, so the
  jitted groups are chosen to cover every transformation without repeating variants).
"""

from __future__ import annotations

import contextlib

import jax
import numpy as np
import optax

import irax
from irax import lax, optim
from irax import tree_util as tu

STEPS = 20
#: rtol/atol per dtype: 20 steps of float32 rounding differences between XLA, IREE and
#: NumPy (pow, rsqrt, reductions differ in the last ulps)
TOL = {np.float32: (3e-5, 2e-6), np.float64: (1e-11, 1e-13)}


@contextlib.contextmanager
def x64_both(enabled: bool):
    """64-bit types on in irax and in JAX (the oracle) for the duration."""
    if not enabled:
        yield
        return
    irax.config.update("jax_enable_x64", True)
    jax.config.update("jax_enable_x64", True)
    try:
        yield
    finally:
        irax.config.update("jax_enable_x64", False)
        jax.config.update("jax_enable_x64", False)


def make_problem(dtype, seed: int = 0, scale: float = 1.0, bad_steps=()):
    """``(params0, target, noise, bad)`` as numpy: ``noise`` has a leading STEPS axis,
    ``bad[t]`` is inf at ``bad_steps`` and 0 elsewhere."""
    rng = np.random.default_rng(seed)

    def tree(lead=()):
        return {"w": rng.normal(size=lead + (4, 3)),
                "nested": (rng.normal(size=lead + (3,)), rng.normal(size=lead + (2, 3, 4)))}

    cast = lambda t: jax.tree.map(lambda x: (scale * x).astype(dtype), t)
    bad = np.zeros(STEPS, dtype)
    bad[list(bad_steps)] = np.inf
    return cast(tree()), cast(tree()), cast(tree((STEPS,))), bad


def _step_fn(opts, tm, apply, target, bad_for):
    def step(carry, n, b):
        new = {}
        for k, (p, s) in carry.items():
            extra = b if k in bad_for else 0.0
            g = tm(lambda p, t, n, e=extra: 0.5 * (p - t) + n + e, p, target, n)
            u, s = opts[k].update(g, s, p)
            new[k] = (apply(p, u), s)
        return new
    return step


def _loop(step, opts, problem, tm):
    """Python loop: ``(final carry, {name: [params after each step]})``."""
    p0, _, noise, bad = problem
    carry = {k: (p0, o.init(p0)) for k, o in opts.items()}
    traj = {k: [] for k in opts}
    for t in range(STEPS):
        carry = step(carry, tm(lambda x, t=t: x[t], noise), bad[t])
        for k in opts:
            traj[k].append(carry[k][0])
    return carry, traj


#: XLA options that cut the oracle's compile time about 4x (the step function of a group
#: is large); its results stay Optax's within the last float32 ulp
FAST_XLA = {"xla_backend_optimization_level": 0, "xla_llvm_disable_expensive_passes": True,
            "xla_cpu_use_fusion_emitters": False}


def run_optax(opts: dict, problem, bad_for=()):
    """The oracle: Optax for STEPS steps, one jitted step function for the group."""
    step = _step_fn(opts, jax.tree.map, optax.apply_updates, problem[1], bad_for)
    p0, _, noise, bad = problem
    carry = {k: (p0, o.init(p0)) for k, o in opts.items()}
    compiled = jax.jit(step).lower(carry, jax.tree.map(lambda x: x[0], noise),
                                   bad[0]).compile(FAST_XLA)
    return _loop(compiled, opts, problem, jax.tree.map)


def run_irax_eager(opts: dict, problem, bad_for=()):
    step = _step_fn(opts, tu.tree_map, optim.apply_updates, problem[1], bad_for)
    return _loop(step, opts, problem, tu.tree_map)


def run_irax_jit(opts: dict, problem, bad_for=()):
    """irax under one ``irax.jit`` of a ``lax.scan`` over the steps: ``(final carry,
    {name: params with a leading STEPS axis})``."""
    def run(p0, target, noise, bad):
        step = _step_fn(opts, tu.tree_map, optim.apply_updates, target, bad_for)

        def body(carry, xs):
            new = step(carry, *xs)
            return new, {k: v[0] for k, v in new.items()}

        init = {k: (p0, o.init(p0)) for k, o in opts.items()}
        return lax.scan(body, init, (noise, bad))

    return irax.jit(run)(*problem)


def leaves(tree):
    """Numpy leaves (key arrays as their key data), in pytree order."""
    def conv(x):
        if hasattr(x, "dtype") and "key" in str(x.dtype):
            mod = jax.random if isinstance(x, jax.Array) else irax.random
            x = mod.key_data(x)
        return np.asarray(x)
    return [conv(x) for x in tu.tree_leaves(tree)]


def stacked(traj: list):
    """A list of per-step trees as one tree of arrays with a leading step axis."""
    return [np.stack(xs) for xs in zip(*[leaves(t) for t in traj])]


def assert_trees_close(got: list, want: list, dtype, scale_tol: float = 1.0):
    """Two lists of numpy leaves are equal within the dtype's tolerance (``atol`` grows
    with the leaf's magnitude: the rounding errors of an element near 0 are those of the
    larger values it was computed from)."""
    rtol, atol = TOL[np.dtype(dtype).type]
    assert len(got) == len(want)
    for a, b in zip(got, want):
        assert a.shape == b.shape and a.dtype == b.dtype, (a.shape, a.dtype, b.shape, b.dtype)
        scale = float(np.max(np.abs(b))) if b.size and b.dtype.kind in "fc" else 0.0
        np.testing.assert_allclose(a, b, rtol=rtol * scale_tol,
                                   atol=(atol + rtol * scale) * scale_tol)


def assert_same_structure(got, want, path="state"):
    """Class names, NamedTuple fields, dict keys, sequence lengths and leaf dtypes/shapes
    are Optax's."""
    if hasattr(want, "_fields"):
        assert type(got).__name__ == type(want).__name__, (path, type(got), type(want))
        assert got._fields == want._fields, (path, got._fields, want._fields)
        for f in want._fields:
            assert_same_structure(getattr(got, f), getattr(want, f), f"{path}.{f}")
    elif isinstance(want, dict):
        assert isinstance(got, dict) and sorted(got) == sorted(want), (path, got, want)
        for k in want:
            assert_same_structure(got[k], want[k], f"{path}[{k!r}]")
    elif isinstance(want, (list, tuple)):
        assert type(got) is type(want) and len(got) == len(want), (path, got, want)
        for i, (a, b) in enumerate(zip(got, want)):
            assert_same_structure(a, b, f"{path}[{i}]")
    elif want is None:
        assert got is None, path
    else:
        assert not isinstance(got, (dict, list, tuple)), (path, got)
        assert np.shape(got) == np.shape(want), (path, np.shape(got), np.shape(want))
        assert str(got.dtype) == str(want.dtype), (path, got.dtype, want.dtype)


def compare_group(cases: dict, jitted: set, dtype, make, problem_kw=None, bad_for=()):
    """Run ``cases`` (``{name: factory(lib) -> transformation}``) with Optax, irax eagerly
    and (the ``jitted`` names) irax under jit, all in ``dtype``: returns
    ``{name: {"optax": (traj, state), "eager": (...), "jit": (...)}}`` as numpy leaves and
    the live final states (for the structure checks)."""
    with x64_both(dtype == np.float64):
        problem = make_problem(dtype, **(problem_kw or {}))
        ox_final, ox_traj = run_optax({k: make(k, optax) for k in cases}, problem, bad_for)
        ea_final, ea_traj = run_irax_eager({k: make(k, optim) for k in cases}, problem,
                                           bad_for)
        out = {k: {"optax": (stacked(ox_traj[k]), ox_final[k][1]),
                   "eager": (stacked(ea_traj[k]), ea_final[k][1])} for k in cases}
        if jitted:
            jit_final, jit_traj = run_irax_jit({k: make(k, optim) for k in jitted}, problem,
                                               bad_for)
            for k in jitted:
                out[k]["jit"] = (leaves(jit_traj[k]), jit_final[k][1])
    return out


def check_case(result: dict, dtype, mode: str, scale_tol: float = 1.0):
    """One case of :func:`compare_group`: every step's params and the final state leaves
    of ``mode`` ("eager" or "jit") equal Optax's; the state's structure is Optax's."""
    want_traj, want_state = result["optax"]
    got_traj, got_state = result[mode]
    assert len(got_traj) == len(want_traj) and got_traj[0].shape[0] == STEPS
    assert_trees_close(got_traj, want_traj, dtype, scale_tol)
    assert_trees_close(leaves(got_state), leaves(want_state), dtype, scale_tol)
    assert_same_structure(got_state, want_state)
