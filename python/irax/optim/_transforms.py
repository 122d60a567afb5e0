"""Gradient transformations with Optax's names, defaults, states and numerics: the
preconditioners (``scale_by_adam`` and its relatives, ``scale_by_rms``, ``scale_by_rss``,
``scale_by_factored_rms``, ...), accumulation (``trace``, ``ema``), additions
(``add_decayed_weights``, ``add_noise``), clipping and constraints.

Each returns a :class:`~irax.optim.GradientTransformation`; chain them and finish with a
learning rate to make an optimizer::

    >>> import irax.numpy as jnp
    >>> from irax import optim
    >>> tx = optim.chain(optim.scale_by_adam(), optim.scale_by_learning_rate(0.1))
    >>> state = tx.init(jnp.zeros(2))
    >>> tx.update(jnp.array([1.0, -2.0]), state)[0].round(4)
    Array([-0.1,  0.1], dtype=float32)

Moments keep the parameters' dtypes (``mu_dtype``/``accumulator_dtype`` override the
first moment's); step counts are int32 and saturate (:func:`~irax.optim.safe_increment`).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from irax import lax, random
from irax import numpy as jnp
from irax.core import dtypes
from irax.core import tree_util as tu
from irax.optim._base import (
    EmptyState,
    GradientTransformation,
    _abs_sq,
    _bias_correction,
    _caller,
    _cast,
    _cast_like,
    _check_float_params,
    _check_state,
    _check_structure,
    _full_like,
    _is_none,
    _public,
    _require_params,
    _tree_norm,
    _update_moment,
    _update_moment_per_elem_norm,
    _zeros_like,
    init_empty_state,
    safe_increment,
    safe_norm,
    safe_root_mean_squares,
)
from irax.optim._wrappers import masked

__all__ = [
    "AddDecayedWeightsState", "AddNoiseState", "ClipByGlobalNormState", "ClipState",
    "EmaState", "FactoredState", "NonNegativeParamsState", "ScaleByAdamState",
    "ScaleByAmsgradState", "ScaleByBeliefState", "ScaleByLionState", "ScaleByRStdDevState",
    "ScaleByRStdDevWithCountState", "ScaleByRmsState", "ScaleByRmsWithCountState",
    "ScaleByRssState", "ScaleByTrustRatioState", "TraceState", "WeightDecaySchedule",
    "add_decayed_weights", "add_noise", "centralize", "clip", "clip_by_block_rms",
    "clip_by_global_norm", "ema", "keep_params_nonnegative", "scale_by_adam",
    "scale_by_adamax", "scale_by_amsgrad", "scale_by_belief", "scale_by_factored_rms",
    "scale_by_lion", "scale_by_param_block_norm", "scale_by_param_block_rms",
    "scale_by_rms", "scale_by_rss", "scale_by_sign", "scale_by_stddev",
    "scale_by_trust_ratio", "trace",
]

AddDecayedWeightsState = ClipState = ClipByGlobalNormState = EmptyState
ScaleByTrustRatioState = NonNegativeParamsState = EmptyState


class ScaleByAdamState(NamedTuple):
    """``count`` (int32) and the first and second moments ``mu`` and ``nu``."""
    count: Any
    mu: Any
    nu: Any


class ScaleByAmsgradState(NamedTuple):
    """Adam's state plus ``nu_max``, the running maximum of the second moment."""
    count: Any
    mu: Any
    nu: Any
    nu_max: Any


class ScaleByBeliefState(NamedTuple):
    """``count``, the first moment ``mu`` and the variance of the prediction ``nu``."""
    count: Any
    mu: Any
    nu: Any


class ScaleByRmsState(NamedTuple):
    """The running mean of squared updates ``nu``."""
    nu: Any


class ScaleByRmsWithCountState(NamedTuple):
    """:class:`ScaleByRmsState` with a ``count`` for bias correction."""
    count: Any
    nu: Any


class ScaleByRStdDevState(NamedTuple):
    """The running means of the updates ``mu`` and of their squares ``nu``."""
    mu: Any
    nu: Any


class ScaleByRStdDevWithCountState(NamedTuple):
    """:class:`ScaleByRStdDevState` with a ``count`` for bias correction."""
    count: Any
    mu: Any
    nu: Any


class ScaleByRssState(NamedTuple):
    """The running sum of squared updates."""
    sum_of_squares: Any


class ScaleByLionState(NamedTuple):
    """``count`` and the momentum ``mu``."""
    count: Any
    mu: Any


class FactoredState(NamedTuple):
    """Adafactor's ``count``, row and column statistics ``v_row``/``v_col`` of factored
    leaves and the full statistics ``v`` of the others (a ``(1,)`` placeholder where a
    leaf does not use a field)."""
    count: Any
    v_row: Any
    v_col: Any
    v: Any


class TraceState(NamedTuple):
    """The momentum ``trace``."""
    trace: Any


class EmaState(NamedTuple):
    """``count`` and the moving average ``ema``."""
    count: Any
    ema: Any


class AddNoiseState(NamedTuple):
    """``count`` and the PRNG key of the next step."""
    count: Any
    rng_key: Any


class WeightDecaySchedule(NamedTuple):
    """The step count of a scheduled weight decay."""
    count: Any


def _canon(dtype):
    return None if dtype is None else dtypes.canonicalize_dtype(dtype)


def _zero_count():
    return jnp.zeros([], jnp.int32)


def _moments_update(updates, state, cls, field: str):
    _check_state(state, cls)
    _check_structure(updates, getattr(state, field))


# ---------------------------------------------------------------------------------------
# Adam and its relatives

def _nesterov_mu_hat(mu, updates, b1, count_inc):
    return tu.tree_map(lambda m, g: b1 * m + (1 - b1) * g,
                       _bias_correction(mu, b1, safe_increment(count_inc)),
                       _bias_correction(updates, b1, count_inc))


def _adam_direction(mu_hat, nu_hat, eps, eps_root):
    return tu.tree_map(
        lambda m, v: None if m is None else m / (jnp.sqrt(v + eps_root) + eps),
        mu_hat, nu_hat, is_leaf=_is_none)


@_public
def scale_by_adam(b1=0.9, b2=0.999, eps=1e-8, eps_root=0.0, mu_dtype=None, *,
                  nesterov: bool = False) -> GradientTransformation:
    """Adam's rescaling ``m_hat / (sqrt(v_hat + eps_root) + eps)`` with bias-corrected
    moments; ``nesterov=True`` is NAdam's look-ahead moment (``optax.scale_by_adam``).

    >>> tx = scale_by_adam()
    >>> tx.update(jnp.array([2.0]), tx.init(jnp.zeros(1)))[0].round(4)
    Array([1.], dtype=float32)
    """
    mu_dtype = _canon(mu_dtype)

    def init_fn(params):
        _check_float_params(params)
        return ScaleByAdamState(count=_zero_count(), mu=_zeros_like(params, mu_dtype),
                                nu=_zeros_like(params))

    def update_fn(updates, state, params=None):
        _moments_update(updates, state, ScaleByAdamState, "nu")
        mu = _update_moment(updates, state.mu, b1, 1)
        nu = _update_moment_per_elem_norm(updates, state.nu, b2, 2)
        count_inc = safe_increment(state.count)
        if nesterov:
            mu_hat = _nesterov_mu_hat(mu, updates, b1, count_inc)
        else:
            mu_hat = _bias_correction(mu, b1, count_inc)
        nu_hat = _bias_correction(nu, b2, count_inc)
        updates = _adam_direction(mu_hat, nu_hat, eps, eps_root)
        mu, nu = _cast(mu, mu_dtype), _cast_like(nu, state.nu)
        return updates, ScaleByAdamState(count=count_inc, mu=mu, nu=nu)

    return GradientTransformation(init_fn, update_fn)


@_public
def scale_by_amsgrad(b1=0.9, b2=0.999, eps=1e-8, eps_root=0.0, mu_dtype=None,
                     bias_correction_mu: bool = True,
                     bias_correction_nu: bool = True) -> GradientTransformation:
    """AMSGrad: Adam with the running maximum of the (bias-corrected) second moment
    (``optax.scale_by_amsgrad``)."""
    mu_dtype = _canon(mu_dtype)

    def init_fn(params):
        _check_float_params(params)
        return ScaleByAmsgradState(count=_zero_count(), mu=_zeros_like(params, mu_dtype),
                                   nu=_zeros_like(params), nu_max=_zeros_like(params))

    def update_fn(updates, state, params=None):
        _moments_update(updates, state, ScaleByAmsgradState, "nu")
        mu = _update_moment(updates, state.mu, b1, 1)
        nu = _update_moment_per_elem_norm(updates, state.nu, b2, 2)
        count_inc = safe_increment(state.count)
        mu_hat = _bias_correction(mu, b1, count_inc) if bias_correction_mu else mu
        nu_eff = _bias_correction(nu, b2, count_inc) if bias_correction_nu else nu
        nu_max = tu.tree_map(jnp.maximum, state.nu_max, nu_eff)
        updates = _adam_direction(mu_hat, nu_max, eps, eps_root)
        return updates, ScaleByAmsgradState(count=count_inc, mu=_cast(mu, mu_dtype), nu=nu,
                                            nu_max=nu_max)

    return GradientTransformation(init_fn, update_fn)


@_public
def scale_by_adamax(b1=0.9, b2=0.999, eps=1e-8) -> GradientTransformation:
    """AdaMax: ``m_hat / max(|g| + eps, b2 * u)``, the infinity-norm Adam
    (``optax.scale_by_adamax``; its state is a :class:`ScaleByAdamState`)."""
    def init_fn(params):
        _check_float_params(params)
        return ScaleByAdamState(count=_zero_count(), mu=_zeros_like(params),
                                nu=_zeros_like(params))

    def update_fn(updates, state, params=None):
        _moments_update(updates, state, ScaleByAdamState, "nu")
        count_inc = safe_increment(state.count)
        mu = _update_moment(updates, state.mu, b1, 1)
        nu = tu.tree_map(lambda g, t: jnp.maximum(jnp.abs(g) + eps, b2 * t),
                         updates, state.nu)
        mu_hat = _bias_correction(mu, b1, count_inc)
        updates = tu.tree_map(lambda m, v: m / v, mu_hat, nu)
        return updates, ScaleByAdamState(count=count_inc, mu=mu, nu=nu)

    return GradientTransformation(init_fn, update_fn)


@_public
def scale_by_belief(b1=0.9, b2=0.999, eps=1e-16, eps_root=1e-16, *,
                    nesterov: bool = False) -> GradientTransformation:
    """AdaBelief: Adam whose second moment tracks ``(g - m)**2``
    (``optax.scale_by_belief``)."""
    def init_fn(params):
        _check_float_params(params)
        return ScaleByBeliefState(count=_zero_count(), mu=_zeros_like(params),
                                  nu=_zeros_like(params))

    def update_fn(updates, state, params=None):
        _moments_update(updates, state, ScaleByBeliefState, "nu")
        mu = _update_moment(updates, state.mu, b1, 1)
        error = tu.tree_map(lambda g, m: g - m, updates, mu)
        nu = _update_moment_per_elem_norm(error, state.nu, b2, 2)
        nu = tu.tree_map(lambda v: v + eps_root, nu)
        count_inc = safe_increment(state.count)
        if nesterov:
            mu_hat = _nesterov_mu_hat(mu, updates, b1, count_inc)
        else:
            mu_hat = _bias_correction(mu, b1, count_inc)
        nu_hat = _bias_correction(nu, b2, count_inc)
        updates = _adam_direction(mu_hat, nu_hat, eps, 0.0)
        return updates, ScaleByBeliefState(count=count_inc, mu=mu, nu=nu)

    return GradientTransformation(init_fn, update_fn)


@_public
def scale_by_lion(b1=0.9, b2=0.99, mu_dtype=None) -> GradientTransformation:
    """Lion: ``sign((1 - b1) g + b1 m)``, then ``m <- b2 m + (1 - b2) g``
    (``optax.scale_by_lion``)."""
    mu_dtype = _canon(mu_dtype)

    def init_fn(params):
        _check_float_params(params)
        return ScaleByLionState(count=_zero_count(), mu=_zeros_like(params, mu_dtype))

    def update_fn(updates, state, params=None):
        _moments_update(updates, state, ScaleByLionState, "mu")
        new = tu.tree_map(lambda g, m: jnp.sign((1.0 - b1) * g + b1 * m), updates, state.mu)
        mu = _cast(_update_moment(updates, state.mu, b2, 1), mu_dtype)
        return new, ScaleByLionState(count=safe_increment(state.count), mu=mu)

    return GradientTransformation(init_fn, update_fn)


# ---------------------------------------------------------------------------------------
# RMS-style preconditioners

def _inv_root(eps, eps_in_sqrt):
    if eps_in_sqrt:
        return lambda n: lax.rsqrt(n + eps)
    return lambda n: 1 / (jnp.sqrt(n) + eps)


@_public
def scale_by_rms(decay=0.9, eps=1e-8, initial_scale=0.0, eps_in_sqrt: bool = True,
                 bias_correction: bool = False) -> GradientTransformation:
    """RMSProp's rescaling ``g / sqrt(nu + eps)`` (``g / (sqrt(nu) + eps)`` with
    ``eps_in_sqrt=False``), ``nu`` the moving mean of ``g**2`` (``optax.scale_by_rms``)."""
    inv = _inv_root(eps, eps_in_sqrt)

    def init_fn(params):
        _check_float_params(params)
        nu = _full_like(params, initial_scale)
        if bias_correction:
            return ScaleByRmsWithCountState(count=_zero_count(), nu=nu)
        return ScaleByRmsState(nu=nu)

    def update_fn(updates, state, params=None):
        cls = ScaleByRmsWithCountState if bias_correction else ScaleByRmsState
        _moments_update(updates, state, cls, "nu")
        nu = _update_moment_per_elem_norm(updates, state.nu, decay, 2)
        nu_hat = nu
        if bias_correction:
            count_inc = safe_increment(state.count)
            nu_hat = _bias_correction(nu, decay, count_inc)
        updates = tu.tree_map(lambda n, g: inv(n) * g, nu_hat, updates)
        if bias_correction:
            return updates, ScaleByRmsWithCountState(count=count_inc, nu=nu)
        return updates, ScaleByRmsState(nu=nu)

    return GradientTransformation(init_fn, update_fn)


@_public
def scale_by_stddev(decay=0.9, eps=1e-8, initial_scale=0.0, eps_in_sqrt: bool = True,
                    bias_correction: bool = False) -> GradientTransformation:
    """Centred RMSProp: ``g / sqrt(nu - mu**2 + eps)`` (``optax.scale_by_stddev``)."""
    inv = _inv_root(eps, eps_in_sqrt)

    def init_fn(params):
        _check_float_params(params)
        mu, nu = _zeros_like(params), _full_like(params, initial_scale)
        if bias_correction:
            return ScaleByRStdDevWithCountState(count=_zero_count(), mu=mu, nu=nu)
        return ScaleByRStdDevState(mu=mu, nu=nu)

    def update_fn(updates, state, params=None):
        cls = ScaleByRStdDevWithCountState if bias_correction else ScaleByRStdDevState
        _moments_update(updates, state, cls, "nu")
        mu = _update_moment(updates, state.mu, decay, 1)
        nu = _update_moment_per_elem_norm(updates, state.nu, decay, 2)
        mu_hat, nu_hat = mu, nu
        if bias_correction:
            count_inc = safe_increment(state.count)
            mu_hat = _bias_correction(mu, decay, count_inc)
            nu_hat = _bias_correction(nu, decay, count_inc)
        scaling = tu.tree_map(lambda m, n: inv(n - _abs_sq(m)), mu_hat, nu_hat)
        updates = tu.tree_map(lambda s, g: s * g, scaling, updates)
        if bias_correction:
            return updates, ScaleByRStdDevWithCountState(count=count_inc, mu=mu, nu=nu)
        return updates, ScaleByRStdDevState(mu=mu, nu=nu)

    return GradientTransformation(init_fn, update_fn)


@_public
def scale_by_rss(initial_accumulator_value=0.1, eps=1e-7) -> GradientTransformation:
    """Adagrad's rescaling ``g / sqrt(sum of g**2 + eps)`` (``optax.scale_by_rss``)."""
    def init_fn(params):
        _check_float_params(params)
        return ScaleByRssState(sum_of_squares=_full_like(params, initial_accumulator_value))

    def update_fn(updates, state, params=None):
        _moments_update(updates, state, ScaleByRssState, "sum_of_squares")
        sos = tu.tree_map(lambda g, t: _abs_sq(g) + t, updates, state.sum_of_squares)
        inv = tu.tree_map(lambda t: jnp.where(t > 0, lax.rsqrt(t + eps), 0.0), sos)
        updates = tu.tree_map(lambda s, g: s * g, inv, updates)
        return updates, ScaleByRssState(sum_of_squares=sos)

    return GradientTransformation(init_fn, update_fn)


def _factored_dims(shape, factored, min_dim_size_to_factor):
    """The two largest axes (second largest first) when a leaf is factored, else None."""
    if not factored or len(shape) < 2:
        return None
    order = np.argsort(shape)
    if shape[order[-2]] < min_dim_size_to_factor:
        return None
    return int(order[-2]), int(order[-1])


def _decay_rate_pow(i, exponent=0.8):
    """Adafactor's ``1 - (i + 1)**-exponent`` (float32, as Optax computes it)."""
    t = jnp.array(i + 1, jnp.float32)
    return 1.0 - t ** (-exponent)


@_public
def scale_by_factored_rms(factored: bool = True, decay_rate=0.8, step_offset=0,
                          min_dim_size_to_factor: int = 128, epsilon=1e-30,
                          decay_rate_fn=_decay_rate_pow) -> GradientTransformation:
    """Adafactor's rescaling: leaves with two axes of at least ``min_dim_size_to_factor``
    keep row and column means of ``g**2 + epsilon`` instead of the full second moment
    (``optax.scale_by_factored_rms``)."""
    dims = lambda p: _factored_dims(p.shape, factored, min_dim_size_to_factor)  # noqa: E731

    def init_leaf(p):
        one = jnp.zeros((1,), p.dtype)
        d = dims(p)
        if d is None:
            return one, one, jnp.zeros_like(p)
        row_shape = tuple(s for i, s in enumerate(p.shape) if i != d[1])
        col_shape = tuple(s for i, s in enumerate(p.shape) if i != d[0])
        return jnp.zeros(row_shape, p.dtype), jnp.zeros(col_shape, p.dtype), one

    def init_fn(params):
        _check_float_params(params)
        leaves, treedef = tu.tree_flatten(params)
        rows, cols, vs = zip(*map(init_leaf, leaves)) if leaves else ((), (), ())
        un = lambda xs: tu.tree_unflatten(treedef, list(xs))  # noqa: E731
        return FactoredState(count=_zero_count(), v_row=un(rows), v_col=un(cols), v=un(vs))

    def update_leaf(g, v_row, v_col, v, p, step):
        dt = p.dtype
        rate = decay_rate_fn(step - step_offset, decay_rate)
        one = jnp.zeros((1,), dt)
        grad_sqr = _abs_sq(g) + epsilon
        d = dims(p)
        if d is None:
            new_v = (rate * v + (1.0 - rate) * grad_sqr).astype(dt)
            return g * new_v ** -0.5, one, one, new_v
        d1, d0 = d
        new_row = (rate * v_row + (1.0 - rate) * jnp.mean(grad_sqr, axis=d0)).astype(dt)
        new_col = (rate * v_col + (1.0 - rate) * jnp.mean(grad_sqr, axis=d1)).astype(dt)
        reduced_d1 = d1 - 1 if d1 > d0 else d1
        row_col_mean = jnp.mean(new_row, axis=reduced_d1, keepdims=True)
        row_factor = (new_row / row_col_mean) ** -0.5
        col_factor = new_col ** -0.5
        update = g * jnp.expand_dims(row_factor, axis=d0) * jnp.expand_dims(col_factor, d1)
        return update, new_row, new_col, one

    def update_fn(updates, state, params=None):
        _check_state(state, FactoredState)
        _require_params(params, updates)
        _check_structure(updates, state.v)
        treedef = tu.tree_structure(updates)
        flat = [tu.tree_leaves(t) for t in (updates, state.v_row, state.v_col, state.v,
                                            params)]
        out = [update_leaf(*leaf, state.count) for leaf in zip(*flat)]
        un = lambda i: tu.tree_unflatten(treedef, [o[i] for o in out])  # noqa: E731
        return un(0), FactoredState(count=safe_increment(state.count), v_row=un(1),
                                    v_col=un(2), v=un(3))

    return GradientTransformation(init_fn, update_fn)


@_public
def scale_by_trust_ratio(min_norm=0.0, trust_coefficient=1.0,
                         eps=0.0) -> GradientTransformation:
    """LAMB's layer-wise trust ratio ``||p|| / ||u||`` (1 where either is 0)
    (``optax.scale_by_trust_ratio``)."""
    def scale_leaf(u, p):
        p_norm, u_norm = safe_norm(p, min_norm), safe_norm(u, min_norm)
        ratio = trust_coefficient * p_norm / (u_norm + eps)
        zero = jnp.logical_or(p_norm == 0.0, u_norm == 0.0)
        return u * jnp.where(zero, jnp.array(1.0, dtype=p.dtype), ratio)

    def update_fn(updates, state, params=None):
        _require_params(params, updates)
        return tu.tree_map(scale_leaf, updates, params), state

    return GradientTransformation(init_empty_state, update_fn)


@_public
def scale_by_param_block_rms(min_scale=1e-3) -> GradientTransformation:
    """Multiplies each update by its parameter's RMS (at least ``min_scale``)
    (``optax.scale_by_param_block_rms``)."""
    def update_fn(updates, state, params=None):
        _require_params(params, updates)
        return tu.tree_map(lambda u, p: u * safe_root_mean_squares(p, min_scale),
                           updates, params), state

    return GradientTransformation(init_empty_state, update_fn)


@_public
def scale_by_param_block_norm(min_scale=1e-3) -> GradientTransformation:
    """Multiplies each update by its parameter's norm (at least ``min_scale``)
    (``optax.scale_by_param_block_norm``)."""
    def update_fn(updates, state, params=None):
        _require_params(params, updates)
        return tu.tree_map(lambda u, p: u * safe_norm(p, min_scale), updates, params), state

    return GradientTransformation(init_empty_state, update_fn)


@_public
def scale_by_sign() -> GradientTransformation:
    """Replaces each update by its sign (``optax.scale_by_sign``)."""
    return GradientTransformation(
        init_empty_state, lambda u, s, params=None: (tu.tree_map(jnp.sign, u), s))


# ---------------------------------------------------------------------------------------
# accumulation

@_public
def trace(decay, nesterov: bool = False, accumulator_dtype=None) -> GradientTransformation:
    """Momentum: ``t <- g + decay * t``, emitting ``t`` (``g + decay * t`` with
    ``nesterov=True``) (``optax.trace``).

    >>> tx = trace(0.5)
    >>> s = tx.init(jnp.zeros(1))
    >>> u, s = tx.update(jnp.ones(1), s); u, s = tx.update(jnp.ones(1), s); u
    Array([1.5], dtype=float32)
    """
    accumulator_dtype = _canon(accumulator_dtype)

    def init_fn(params):
        _check_float_params(params)
        return TraceState(trace=_zeros_like(params, accumulator_dtype))

    def update_fn(updates, state, params=None):
        _moments_update(updates, state, TraceState, "trace")
        f = lambda g, t: g + decay * t  # noqa: E731
        new_trace = tu.tree_map(lambda g, t: None if g is None else f(g, t),
                                updates, state.trace, is_leaf=_is_none)
        updates = tu.tree_map(f, updates, new_trace) if nesterov else new_trace
        return updates, TraceState(trace=_cast(new_trace, accumulator_dtype))

    return GradientTransformation(init_fn, update_fn)


@_public
def ema(decay, debias: bool = True, accumulator_dtype=None) -> GradientTransformation:
    """Exponential moving average of the updates, bias-corrected unless ``debias=False``
    (``optax.ema``)."""
    accumulator_dtype = _canon(accumulator_dtype)

    def init_fn(params):
        _check_float_params(params)
        return EmaState(count=_zero_count(), ema=_zeros_like(params, accumulator_dtype))

    def update_fn(updates, state, params=None):
        _moments_update(updates, state, EmaState, "ema")
        updates = new_ema = _update_moment(updates, state.ema, decay, 1)
        count_inc = safe_increment(state.count)
        if debias:
            updates = _bias_correction(new_ema, decay, count_inc)
        return updates, EmaState(count=count_inc, ema=_cast(new_ema, accumulator_dtype))

    return GradientTransformation(init_fn, update_fn)


# ---------------------------------------------------------------------------------------
# additions

@_public
def add_decayed_weights(weight_decay=0.0, mask=None) -> GradientTransformation:
    """Adds ``weight_decay * params`` to the updates; ``weight_decay`` may be a schedule,
    ``mask`` a pytree of booleans (or a function of the params returning one) selecting
    the leaves to decay (``optax.add_decayed_weights``)."""
    scheduled = callable(weight_decay)

    def init_fn(params):
        return WeightDecaySchedule(count=_zero_count()) if scheduled else EmptyState()

    def update_fn(updates, state, params=None):
        _require_params(params, updates)
        new_state = WeightDecaySchedule(safe_increment(state.count)) if scheduled else state
        if isinstance(weight_decay, (int, float)) and weight_decay == 0.0:
            return updates, new_state
        s = weight_decay(state.count) if scheduled else weight_decay
        updates = tu.tree_map(lambda g, p: None if g is None else g + s * p,
                              updates, params, is_leaf=_is_none)
        return updates, new_state

    tx = GradientTransformation(init_fn, update_fn)
    return tx if mask is None else masked(tx, mask)


@_public
def add_noise(eta, gamma, key=None) -> GradientTransformation:
    """Adds Gaussian noise of variance ``eta / (count + 1)**gamma`` to the updates;
    ``key`` is a PRNG key or an int seed (``optax.add_noise``; the same noise as Optax's
    for the same key)."""
    if key is None:
        key = 0

    def init_fn(params):
        k = key if _is_typed_key(key) else random.key(key)
        return AddNoiseState(count=_zero_count(), rng_key=k)

    def update_fn(updates, state, params=None):
        _check_state(state, AddNoiseState)
        count_inc = safe_increment(state.count)
        std = jnp.sqrt(eta / count_inc ** gamma)
        rng_key, sample_key = random.split(state.rng_key)
        leaves, treedef = tu.tree_flatten(updates)
        keys = random.split(sample_key, len(leaves))
        noise = [random.normal(keys[i], leaf.shape, leaf.dtype)
                 for i, leaf in enumerate(leaves)]
        std = jnp.asarray(std)
        new = [u + std * n for u, n in zip(leaves, noise)]
        return tu.tree_unflatten(treedef, new), AddNoiseState(count=count_inc, rng_key=rng_key)

    return GradientTransformation(init_fn, update_fn)


def _is_typed_key(k) -> bool:
    return hasattr(k, "dtype") and dtypes.issubdtype(k.dtype, dtypes.prng_key)


# ---------------------------------------------------------------------------------------
# clipping and constraints

@_public
def clip(max_delta) -> GradientTransformation:
    """Clips every update element to ``[-max_delta, max_delta]`` (``optax.clip``)."""
    return GradientTransformation(init_empty_state, lambda u, s, params=None: (
        tu.tree_map(lambda g: jnp.clip(g, -max_delta, max_delta), u), s))


@_public
def clip_by_global_norm(max_norm) -> GradientTransformation:
    """Rescales the updates to global L2 norm ``max_norm`` when it is larger
    (``optax.clip_by_global_norm``).

    >>> clip_by_global_norm(1.0).update({"g": jnp.array([3.0, 4.0])}, EmptyState())[0]
    {'g': Array([0.6, 0.8], dtype=float32)}
    """
    def update_fn(updates, state, params=None):
        g_norm = _tree_norm(updates)
        trigger = jnp.squeeze(g_norm < max_norm)
        if jnp.ndim(trigger) != 0:
            raise ValueError(f"{_caller()}.update: expected a scalar max_norm, got shape "
                             f"{jnp.shape(max_norm)}")
        clipped = tu.tree_map(
            lambda t: lax.select(trigger, t, (t / g_norm.astype(t.dtype)) * max_norm), updates)
        return clipped, state

    return GradientTransformation(init_empty_state, update_fn)


@_public
def clip_by_block_rms(threshold) -> GradientTransformation:
    """Rescales each leaf to RMS ``threshold`` when it is larger
    (``optax.clip_by_block_rms``)."""
    def clip_leaf(u):
        return u / jnp.maximum(1.0, jnp.sqrt(jnp.mean(_abs_sq(u))) / threshold)

    return GradientTransformation(
        init_empty_state, lambda u, s, params=None: (tu.tree_map(clip_leaf, u), s))


def _subtract_mean(g):
    if g.ndim > 1:
        return g - g.mean(tuple(range(1, g.ndim)), keepdims=True)
    return g


@_public
def centralize() -> GradientTransformation:
    """Gradient centralisation: subtracts from each leaf of rank > 1 its mean over all
    axes but the first (``optax.centralize``)."""
    return GradientTransformation(
        init_empty_state, lambda u, s, params=None: (tu.tree_map(_subtract_mean, u), s))


@_public
def keep_params_nonnegative() -> GradientTransformation:
    """Changes the updates so that ``params + updates`` stays ``>= 0``
    (``optax.keep_params_nonnegative``)."""
    def update_fn(updates, state, params=None):
        _require_params(params, updates)
        return tu.tree_map(
            lambda p, u: None if p is None else jnp.where((p + u) < 0.0, -p, u),
            params, updates, is_leaf=_is_none), state

    return GradientTransformation(init_empty_state, update_fn)
