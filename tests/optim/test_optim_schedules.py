"""irax.optim's schedules against optax's: values, dtypes and weak types over steps
0..N (the boundaries included) for Python-int and int32-array steps, eagerly and under one
irax.jit (all schedules vmapped over a traced step array), and the errors for bad
arguments."""

import numpy as np
import pytest

import irax
import irax.numpy as jnp
import irax.optim as optim

jax = pytest.importorskip("jax")
optax = pytest.importorskip("optax")

N = 32  # steps 0..N-1: every case's boundaries lie inside

# name -> (schedule name, args, kwargs)
CASES = {
    "constant": ("constant_schedule", (0.3,), {}),
    "linear": ("linear_schedule", (1.0, 0.1, 10), {}),
    "linear_begin": ("linear_schedule", (0.1, 2.0, 10, 5), {}),
    "linear_no_steps": ("linear_schedule", (0.5, 0.1, 0), {}),
    "polynomial": ("polynomial_schedule", (1.0, 0.1, 2.0, 10, 3), {}),
    "polynomial_frac_power": ("polynomial_schedule", (2.0, 0.0, 0.5, 17), {}),
    "polynomial_negative_begin": ("polynomial_schedule", (1.0, 0.1, 3, 8, -4), {}),
    "exponential": ("exponential_decay", (1.0, 5, 0.5), {}),
    "exponential_full": ("exponential_decay", (1.0, 5, 0.5),
                         {"transition_begin": 3, "staircase": True, "end_value": 0.2}),
    "exponential_growth": ("exponential_decay", (0.1, 4, 1.5), {"end_value": 0.6}),
    "exponential_zero_rate": ("exponential_decay", (0.7, 4, 0.0), {}),
    "cosine": ("cosine_decay_schedule", (1.0, 12), {}),
    "cosine_alpha_exponent": ("cosine_decay_schedule", (2.0, 20),
                              {"alpha": 0.1, "exponent": 2.0}),
    "warmup_cosine": ("warmup_cosine_decay_schedule", (0.0, 1.0, 4, 20), {"end_value": 0.05}),
    "warmup_cosine_exponent": ("warmup_cosine_decay_schedule", (0.1, 2.0, 6, 25),
                               {"exponent": 1.5}),
    "warmup_exponential": ("warmup_exponential_decay_schedule", (0.0, 1.0, 4, 5, 0.5), {}),
    "warmup_exponential_full": ("warmup_exponential_decay_schedule", (0.1, 1.0, 6, 3, 0.7),
                                {"transition_begin": 2, "staircase": True,
                                 "end_value": 0.3}),
    "warmup_constant": ("warmup_constant_schedule", (0.0, 1.0, 7), {}),
    "piecewise_constant": ("piecewise_constant_schedule", (1.0, {5: 0.5, 10: 0.1, 20: 2.0}),
                           {}),
    "piecewise_constant_none": ("piecewise_constant_schedule", (0.4,), {}),
    "piecewise_linear": ("piecewise_interpolate_schedule",
                         ("linear", 1.0, {5: 0.5, 10: 0.1, 12: 3.0}), {}),
    "piecewise_cosine": ("piecewise_interpolate_schedule",
                         ("cosine", 2.0, {20: 0.5, 4: 0.5, 9: 4.0}), {}),
    "piecewise_linear_empty": ("piecewise_interpolate_schedule", ("linear", 0.3, {}), {}),
    "linear_onecycle": ("linear_onecycle_schedule", (20, 1.0), {}),
    "cosine_onecycle": ("cosine_onecycle_schedule", (24, 0.5),
                        {"pct_start": 0.25, "div_factor": 10.0}),
    "sgdr": ("sgdr_schedule", ([{"init_value": 0.0, "peak_value": 1.0, "warmup_steps": 2,
                                 "decay_steps": 10},
                                {"init_value": 0.1, "peak_value": 0.5, "warmup_steps": 3,
                                 "decay_steps": 12}],), {}),
}


def _make(module, case):
    name, args, kwargs = CASES[case]
    return getattr(module, name)(*args, **kwargs)


def _joined(module):
    """join_schedules of three schedules (two boundaries)."""
    return module.join_schedules(
        [module.constant_schedule(0.5), module.linear_schedule(0.5, 1.0, 6),
         module.cosine_decay_schedule(1.0, 10)], [4, 12])


def _schedule(module, case):
    return _joined(module) if case == "join" else _make(module, case)


ALL = sorted(CASES) + ["join"]


def _check(got, want, msg, rtol=1e-6, atol=0.0):
    got_a, want_a = np.asarray(got), np.asarray(want)
    assert got_a.dtype == want_a.dtype, f"{msg}: dtype {got_a.dtype} != {want_a.dtype}"
    assert got_a.shape == want_a.shape, f"{msg}: shape {got_a.shape} != {want_a.shape}"
    np.testing.assert_allclose(got_a, want_a, rtol=rtol, atol=atol, err_msg=msg)


@pytest.mark.parametrize("case", ALL)
def test_schedule_eager(case):
    """Every step 0..N-1, as a Python int and as an int32 array: values, dtypes and weak
    types equal optax's (eager jax)."""
    mine, theirs = _schedule(optim, case), _schedule(optax, case)
    for step in range(N):
        got, want = mine(step), theirs(step)
        _check(got, want, f"{case} at int step {step}")
        assert getattr(got, "weak_type", None) == getattr(want, "weak_type", None), step
        got = mine(jnp.asarray(step, jnp.int32))
        want = theirs(jax.numpy.asarray(step, jax.numpy.int32))
        _check(got, want, f"{case} at array step {step}")
        assert getattr(got, "weak_type", None) == getattr(want, "weak_type", None), step


@pytest.fixture(scope="module")
def jitted():
    """All the schedules at steps 0..N-1 from one irax.jit (vmap over a traced step
    array), and optax's values step by step (eager: XLA's jit turns ``count / steps``
    into a multiplication by the reciprocal, so jitted optax gives nan for
    ``(1 - 17 * (1/17)) ** 0.5``)."""
    def run(steps):
        return {c: irax.vmap(_schedule(optim, c))(steps) + 0 * steps for c in ALL}

    got = irax.jit(run)(jnp.arange(N, dtype=jnp.int32))
    want = {}
    for c in ALL:
        theirs = _schedule(optax, c)
        want[c] = np.stack([np.asarray(theirs(jax.numpy.asarray(i, jax.numpy.int32)))
                            for i in range(N)]).astype(np.asarray(got[c]).dtype)
    return got, want


@pytest.mark.parametrize("case", ALL)
def test_schedule_jit(case, jitted):
    got, want = jitted
    # the last float32 ulps of cos and pow differ between IREE and XLA
    _check(got[case], want[case], f"{case} under jit", rtol=1e-5, atol=1e-7)


def test_schedule_x64(x64):
    """With x64 the schedules' values follow the float64 promotion, as optax's."""
    jax.config.update("jax_enable_x64", True)
    try:
        for case in ALL:
            mine, theirs = _schedule(optim, case), _schedule(optax, case)
            for step in (0, 5, 11, 31):
                _check(mine(jnp.asarray(step)), theirs(jax.numpy.asarray(step)),
                       f"{case} x64 step {step}", rtol=1e-12)
    finally:
        jax.config.update("jax_enable_x64", False)


def test_schedule_inside_jit_with_python_loop():
    """A schedule applied to the traced step of a jitted training-step-like function."""
    lr = optim.warmup_cosine_decay_schedule(0.0, 1.0, 5, 30)
    step_fn = irax.jit(lambda count, x: x * lr(count))
    ref = optax.warmup_cosine_decay_schedule(0.0, 1.0, 5, 30)
    for count in (0, 3, 5, 17, 30, 40):
        _check(step_fn(jnp.asarray(count, jnp.int32), jnp.float32(2.0)),
               2.0 * np.asarray(ref(count)), f"step {count}", rtol=1e-5)


# -- errors -----------------------------------------------------------------------------


def test_error_join_schedules_boundaries():
    s = [optim.constant_schedule(1.0), optim.constant_schedule(2.0)]
    with pytest.raises(ValueError, match=r"join_schedules: expected len\(boundaries\) == "
                       r"len\(schedules\) - 1 = 1, got 2 boundaries for 2 schedules"):
        optim.join_schedules(s, [3, 5])
    with pytest.raises(ValueError, match="join_schedules: expected len.*got 0 boundaries"):
        optim.join_schedules(s, [])
    with pytest.raises(ValueError, match="join_schedules: expected at least one schedule"):
        optim.join_schedules([], [])


def test_error_piecewise_boundaries_and_scales():
    with pytest.raises(ValueError, match="piecewise_constant_schedule: expected non-negative "
                       "scale factors, got -0.5 at step 10"):
        optim.piecewise_constant_schedule(1.0, {5: 0.5, 10: -0.5})
    with pytest.raises(TypeError, match=r"piecewise_constant_schedule: expected "
                       r"boundaries_and_scales as a dict \{step: scale\}, got list"):
        optim.piecewise_constant_schedule(1.0, [5, 10])
    with pytest.raises(TypeError, match="piecewise_constant_schedule: expected integer step "
                       "boundaries, got 2.5"):
        optim.piecewise_constant_schedule(1.0, {2.5: 0.1})
    with pytest.raises(ValueError, match="piecewise_interpolate_schedule: expected "
                       "non-negative scale factors"):
        optim.piecewise_interpolate_schedule("linear", 1.0, {5: -1.0})
    with pytest.raises(ValueError, match="piecewise_interpolate_schedule: expected "
                       "interpolate_type 'linear' or 'cosine', got 'cubic'"):
        optim.piecewise_interpolate_schedule("cubic", 1.0, {5: 0.5})


def test_error_step_counts():
    with pytest.raises(ValueError, match="cosine_decay_schedule: expected positive "
                       "decay_steps, got 0"):
        optim.cosine_decay_schedule(1.0, 0)
    with pytest.raises(ValueError, match="linear_onecycle_schedule: expected positive "
                       "transition_steps, got -1"):
        optim.linear_onecycle_schedule(-1, 1.0)
    with pytest.raises(ValueError, match="cosine_onecycle_schedule: expected positive "):
        optim.cosine_onecycle_schedule(0, 1.0)


def test_schedules_namespace():
    assert optim.schedules.linear_schedule is optim.linear_schedule
    for name in optim.schedules.__all__:
        assert hasattr(optax.schedules, name), name
