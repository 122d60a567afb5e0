"""Learning-rate schedules with Optax's names, signatures and numerics
(``optax.schedules``).

With ``import irax.optim as optim``::

    lr = optim.warmup_cosine_decay_schedule(0.0, 1e-3, warmup_steps=100, decay_steps=1000)
    lr(0), lr(100), lr(jnp.asarray(550))      # scalars; the step may be traced under jit
    opt = optim.adam(learning_rate=lr)

A schedule maps a step count (a Python int or an int32 array, possibly traced under
``irax.jit``/``irax.vmap``) to a scalar. Everything that decides the schedule's shape
(boundaries, step counts, ``staircase``) is static Python, checked when the schedule is
built; a bad argument raises an error naming the function, with what was expected and
what was given.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from irax import numpy as jnp

__all__ = [
    "constant_schedule",
    "cosine_decay_schedule",
    "cosine_onecycle_schedule",
    "exponential_decay",
    "join_schedules",
    "linear_onecycle_schedule",
    "linear_schedule",
    "piecewise_constant_schedule",
    "piecewise_interpolate_schedule",
    "polynomial_schedule",
    "sgdr_schedule",
    "warmup_constant_schedule",
    "warmup_cosine_decay_schedule",
    "warmup_exponential_decay_schedule",
]

Schedule = Callable[..., object]


def _check_scales(fun: str, boundaries_and_scales) -> list[tuple[int, float]]:
    """The ``{boundary: scale}`` dict as sorted pairs; int boundaries, scales >= 0."""
    if boundaries_and_scales is None:
        return []
    if not isinstance(boundaries_and_scales, dict):
        raise TypeError(f"irax.optim.{fun}: expected boundaries_and_scales as a dict "
                        f"{{step: scale}}, got {type(boundaries_and_scales).__name__}")
    for boundary, scale in boundaries_and_scales.items():
        if not isinstance(boundary, (int, np.integer)):
            raise TypeError(f"irax.optim.{fun}: expected integer step boundaries, got "
                            f"{boundary!r}")
        if not scale >= 0.0:
            raise ValueError(f"irax.optim.{fun}: expected non-negative scale factors, got "
                             f"{scale} at step {boundary}")
    return sorted(boundaries_and_scales.items())


def constant_schedule(value) -> Schedule:
    """A schedule that always returns ``value`` (``optax.constant_schedule``).

        >>> constant_schedule(0.1)(1000)
        0.1
    """
    return lambda count: value


def polynomial_schedule(init_value, end_value, power, transition_steps: int,
                        transition_begin: int = 0) -> Schedule:
    """``(init - end) * (1 - t / transition_steps) ** power + end``, with
    ``t = clip(count - transition_begin, 0, transition_steps)``
    (``optax.polynomial_schedule``). ``transition_steps <= 0`` gives a constant
    ``init_value``; a negative ``transition_begin`` counts as 0.

        >>> polynomial_schedule(1.0, 0.0, power=2, transition_steps=10)(5)
        Array(0.25, dtype=float32, weak_type=True)
    """
    if transition_steps <= 0:
        return lambda count: init_value
    transition_begin = max(transition_begin, 0)

    def schedule(count):
        count = jnp.clip(count - transition_begin, 0, transition_steps)
        frac = 1 - count / transition_steps
        return (init_value - end_value) * (frac ** power) + end_value

    return schedule


def linear_schedule(init_value, end_value, transition_steps: int,
                    transition_begin: int = 0) -> Schedule:
    """Linear interpolation from ``init_value`` to ``end_value`` over
    ``transition_steps`` steps after ``transition_begin`` (``optax.linear_schedule``).

        >>> linear_schedule(1.0, 0.0, transition_steps=4)(1)
        Array(0.75, dtype=float32, weak_type=True)
    """
    return polynomial_schedule(init_value, end_value, 1, transition_steps, transition_begin)


def piecewise_constant_schedule(init_value, boundaries_and_scales=None) -> Schedule:
    """``init_value`` multiplied by every ``scale`` whose boundary the count has reached
    (``optax.piecewise_constant_schedule``; ``{step: scale}``, scales >= 0).

        >>> s = piecewise_constant_schedule(1.0, {10: 0.1, 20: 0.5})
        >>> s(9), s(10), s(25)      # 1.0, 0.1, 0.05
    """
    pairs = _check_scales("piecewise_constant_schedule", boundaries_and_scales)

    def schedule(count):
        v = init_value
        for threshold, scale in pairs:
            before = jnp.maximum(0.0, jnp.sign(threshold - count))
            v = v * before + (1 - before) * scale * v
        return v

    return schedule


def exponential_decay(init_value, transition_steps: int, decay_rate: float,
                      transition_begin: int = 0, staircase: bool = False,
                      end_value=None) -> Schedule:
    """``init_value * decay_rate ** ((count - transition_begin) / transition_steps)``
    after ``transition_begin`` (``optax.exponential_decay``).

    ``staircase`` floors the exponent; ``end_value`` bounds the value (below for a decay,
    above for a growth). ``transition_steps <= 0`` or ``decay_rate == 0`` give a constant
    ``init_value``.

        >>> exponential_decay(1.0, transition_steps=10, decay_rate=0.5)(20)
        Array(0.25, dtype=float32, weak_type=True)
    """
    if transition_steps <= 0 or decay_rate == 0:
        return lambda count: init_value
    transition_begin = max(transition_begin, 0)
    clip = jnp.maximum if decay_rate < 1.0 else jnp.minimum

    def schedule(count):
        decreased_count = count - transition_begin
        p = decreased_count / transition_steps
        if staircase:
            p = jnp.floor(p)
        value = jnp.where(decreased_count <= 0, init_value,
                          init_value * jnp.power(decay_rate, p))
        return value if end_value is None else clip(value, end_value)

    return schedule


def cosine_decay_schedule(init_value, decay_steps: int, alpha=0.0,
                          exponent=1.0) -> Schedule:
    """``init_value * ((1 - alpha) * c ** exponent + alpha)`` with
    ``c = (1 + cos(pi * min(count, decay_steps) / decay_steps)) / 2``
    (``optax.cosine_decay_schedule``).

        >>> cosine_decay_schedule(1.0, decay_steps=10)(5)
        Array(0.49999997, dtype=float32, weak_type=True)
    """
    if not decay_steps > 0:
        raise ValueError(f"irax.optim.cosine_decay_schedule: expected positive decay_steps, "
                         f"got {decay_steps}")
    steps = float(decay_steps) if isinstance(decay_steps, int) else decay_steps

    def schedule(count):
        count = float(count) if isinstance(count, int) else count
        count = jnp.minimum(count, steps)
        cosine_decay = 0.5 * (1 + jnp.cos(jnp.pi * count / steps))
        return init_value * ((1 - alpha) * cosine_decay ** exponent + alpha)

    return schedule


def _linear_interpolate(start, end, pct):
    return (end - start) * pct + start


def _cosine_interpolate(start, end, pct):
    return end + (start - end) / 2.0 * (jnp.cos(jnp.pi * pct) + 1)


def piecewise_interpolate_schedule(interpolate_type: str, init_value,
                                   boundaries_and_scales=None) -> Schedule:
    """Values ``init_value * prod(scales so far)`` at the boundaries, interpolated
    (``'linear'`` or ``'cosine'``) between them (``optax.piecewise_interpolate_schedule``).

        >>> s = piecewise_interpolate_schedule('linear', 1.0, {10: 0.5})
        >>> s(0), s(5), s(10)      # 1.0, 0.75, 0.5
    """
    fun = "piecewise_interpolate_schedule"
    interpolators = {"linear": _linear_interpolate, "cosine": _cosine_interpolate}
    if interpolate_type not in interpolators:
        raise ValueError(f"irax.optim.{fun}: expected interpolate_type 'linear' or "
                         f"'cosine', got {interpolate_type!r}")
    interpolate = interpolators[interpolate_type]
    pairs = _check_scales(fun, boundaries_and_scales)
    boundaries = tuple(b for b, _ in pairs)
    scales = tuple(s for _, s in pairs)

    def schedule(count):
        bounds = jnp.stack((0,) + boundaries)
        values = jnp.cumprod(jnp.stack((init_value,) + scales))
        interval_sizes = jnp.maximum(bounds[1:] - bounds[:-1], 1)
        inside = jnp.logical_and(bounds[:-1] <= count, count < bounds[1:])
        pct = (count - bounds[:-1]) / interval_sizes
        interpolated = interpolate(values[:-1], values[1:], pct)
        return inside.dot(interpolated) + (bounds[-1] <= count) * values[-1]

    return schedule


def _check_onecycle(fun: str, transition_steps: int) -> None:
    if transition_steps <= 0:
        raise ValueError(f"irax.optim.{fun}: expected positive transition_steps, got "
                         f"{transition_steps}")


def linear_onecycle_schedule(transition_steps: int, peak_value, pct_start: float = 0.3,
                             pct_final: float = 0.85, div_factor: float = 25.0,
                             final_div_factor: float = 1e4) -> Schedule:
    """One-cycle: linear up from ``peak / div_factor`` to ``peak`` by ``pct_start``, down
    again by ``pct_final``, then to ``peak / (div_factor * final_div_factor)``
    (``optax.linear_onecycle_schedule``; Smith & Topin 2017).

        >>> linear_onecycle_schedule(100, 1.0)(30)
        Array(1., dtype=float32)
    """
    _check_onecycle("linear_onecycle_schedule", transition_steps)
    return piecewise_interpolate_schedule("linear", peak_value / div_factor, {
        int(pct_start * transition_steps): div_factor,
        int(pct_final * transition_steps): 1.0 / div_factor,
        transition_steps: 1.0 / final_div_factor,
    })


def cosine_onecycle_schedule(transition_steps: int, peak_value, pct_start: float = 0.3,
                             div_factor: float = 25.0,
                             final_div_factor: float = 1e4) -> Schedule:
    """One-cycle with cosine pieces: up to ``peak_value`` by ``pct_start``, then down to
    ``peak / (div_factor * final_div_factor)`` (``optax.cosine_onecycle_schedule``).

        >>> cosine_onecycle_schedule(100, 1.0)(30)
        Array(1., dtype=float32)
    """
    _check_onecycle("cosine_onecycle_schedule", transition_steps)
    return piecewise_interpolate_schedule("cosine", peak_value / div_factor, {
        int(pct_start * transition_steps): div_factor,
        int(transition_steps): 1.0 / (div_factor * final_div_factor),
    })


def join_schedules(schedules: Sequence[Schedule], boundaries: Sequence[int]) -> Schedule:
    """``schedules[i]`` from ``boundaries[i - 1]`` on, each given the steps since its own
    start (``optax.join_schedules``; ``len(boundaries) == len(schedules) - 1``).

        >>> s = join_schedules([constant_schedule(1.0), linear_schedule(1.0, 0.0, 10)], [5])
        >>> s(4), s(10)      # 1.0, 0.5
    """
    schedules, boundaries = list(schedules), list(boundaries)
    if not schedules:
        raise ValueError("irax.optim.join_schedules: expected at least one schedule, got 0")
    if len(boundaries) != len(schedules) - 1:
        raise ValueError(f"irax.optim.join_schedules: expected len(boundaries) == "
                         f"len(schedules) - 1 = {len(schedules) - 1}, got {len(boundaries)} "
                         f"boundaries for {len(schedules)} schedules")

    def schedule(step):
        output = schedules[0](step)
        for boundary, following in zip(boundaries, schedules[1:]):
            output = jnp.where(step < boundary, output, following(step - boundary))
        return output

    return schedule


def warmup_constant_schedule(init_value, peak_value, warmup_steps: int) -> Schedule:
    """Linear warmup from ``init_value`` to ``peak_value``, then constant
    (``optax.warmup_constant_schedule``).

        >>> warmup_constant_schedule(0.0, 1.0, 10)(5)
        Array(0.5, dtype=float32, weak_type=True)
    """
    return linear_schedule(init_value, peak_value, warmup_steps)


def warmup_cosine_decay_schedule(init_value, peak_value, warmup_steps: int,
                                 decay_steps: int, end_value=0.0,
                                 exponent=1.0) -> Schedule:
    """Linear warmup to ``peak_value`` over ``warmup_steps``, then cosine decay to
    ``end_value`` at step ``decay_steps`` (counted from 0, the warmup included)
    (``optax.warmup_cosine_decay_schedule``).

        >>> s = warmup_cosine_decay_schedule(0.0, 1.0, warmup_steps=10, decay_steps=110)
        >>> s(5), s(10), s(60), s(110)      # 0.5, 1.0, 0.49999997, 0.0
    """
    alpha = 0.0 if peak_value == 0.0 else end_value / peak_value
    return join_schedules([
        linear_schedule(init_value, peak_value, warmup_steps),
        cosine_decay_schedule(peak_value, decay_steps - warmup_steps, alpha, exponent),
    ], [warmup_steps])


def warmup_exponential_decay_schedule(init_value, peak_value, warmup_steps: int,
                                      transition_steps: int, decay_rate,
                                      transition_begin: int = 0, staircase: bool = False,
                                      end_value=None) -> Schedule:
    """Linear warmup to ``peak_value`` over ``warmup_steps``, then ``exponential_decay``
    from ``peak_value`` (``optax.warmup_exponential_decay_schedule``).

        >>> s = warmup_exponential_decay_schedule(0.0, 1.0, 10, 10, 0.5)
        >>> s(5), s(20)      # 0.5, 0.5
    """
    return join_schedules([
        linear_schedule(init_value, peak_value, warmup_steps),
        exponential_decay(peak_value, transition_steps, decay_rate, transition_begin,
                          staircase, end_value),
    ], [warmup_steps])


def sgdr_schedule(cosine_kwargs) -> Schedule:
    """Warm restarts: ``warmup_cosine_decay_schedule``s one after another, each lasting
    its ``decay_steps`` (``optax.sgdr_schedule``; Loshchilov & Hutter 2017).

        >>> kw = dict(init_value=0.0, peak_value=1.0, warmup_steps=2, decay_steps=10)
        >>> s = sgdr_schedule([kw, kw])      # restarts at step 10
    """
    boundaries, schedules, step = [], [], 0
    for kwargs in cosine_kwargs:
        schedules.append(warmup_cosine_decay_schedule(**kwargs))
        step += kwargs["decay_steps"]
        boundaries.append(step)
    return join_schedules(schedules, boundaries[:-1])
