"""Transformations of transformations, with Optax's names and states: ``masked``,
``partition``/``multi_transform``, ``inject_hyperparams``, ``MultiSteps`` (gradient
accumulation) and ``apply_if_finite``.

    >>> import irax.numpy as jnp
    >>> from irax import optim
    >>> opt = optim.multi_transform({"fast": optim.sgd(1.0), "frozen": optim.set_to_zero()},
    ...                             {"w": "fast", "b": "frozen"})
    >>> params = {"w": jnp.ones(2), "b": jnp.ones(2)}
    >>> state = opt.init(params)
    >>> updates, state = opt.update({"w": jnp.ones(2), "b": jnp.ones(2)}, state, params)
    >>> updates["w"], updates["b"]
    (Array([-1., -1.], dtype=float32), Array([0., 0.], dtype=float32))
"""

from __future__ import annotations

import inspect
from typing import Any, Callable, NamedTuple

import numpy as np

from irax import lax, random
from irax import numpy as jnp
from irax.core import dtypes
from irax.core import tree_util as tu
from irax.optim._base import (
    GradientTransformation,
    GradientTransformationExtraArgs,
    _caller,
    _cast_like,
    _check_float_params,
    _check_state,
    _check_structure,
    _public,
    _scope,
    _zeros_like,
    safe_increment,
    with_extra_args_support,
)

__all__ = [
    "ApplyIfFiniteState", "InjectHyperparamsState", "InjectStatefulHyperparamsState",
    "MaskedNode", "MaskedState", "MultiSteps", "MultiStepsState", "MultiTransformState",
    "PartitionState", "WrappedSchedule", "WrappedScheduleState", "apply_if_finite",
    "inject_hyperparams", "masked", "multi_transform", "partition", "skip_large_updates",
    "skip_not_finite",
]


def _where_tree(pred, on_true, on_false):
    """``jnp.where(pred, a, b)`` leaf by leaf, in ``b``'s dtypes (key arrays through their
    key data)."""
    def select(a, b):
        if hasattr(b, "dtype") and dtypes.issubdtype(b.dtype, dtypes.prng_key):
            bits = jnp.where(pred, random.key_data(a), random.key_data(b))
            return random.wrap_key_data(bits, impl=random.key_impl(b))
        return jnp.where(pred, a, b).astype(b.dtype)

    return tu.tree_map(select, on_true, on_false)


# ---------------------------------------------------------------------------------------
# masked and partition

class MaskedState(NamedTuple):
    """The inner transformation's state (over the masked parameters)."""
    inner_state: Any


class MaskedNode(NamedTuple):
    """Stands in for a masked-out leaf: an empty pytree node, so that the inner
    transformation neither sees it nor keeps state for it."""


def _mask_is_callable(mask) -> bool:
    flags = tu.tree_leaves(tu.tree_map(callable, mask))
    return bool(flags) and all(flags)


def _apply_mask(tree, mask_tree):
    return tu.tree_map(lambda m, p: p if m else MaskedNode(), mask_tree, tree)


@_public
def masked(inner: GradientTransformation, mask, *,
           mask_compatible_extra_args: bool = False) -> GradientTransformationExtraArgs:
    """Applies ``inner`` to the leaves where ``mask`` (a pytree of booleans, a prefix of
    the params', or a function of the params returning one) is True; the other updates
    pass unchanged (``optax.masked``).

    >>> from irax.optim import scale
    >>> tx = masked(scale(0.0), {"a": True, "b": False})
    >>> tx.update({"a": jnp.ones(1), "b": jnp.ones(1)}, tx.init({"a": 0.0, "b": 0.0}))[0]
    {'a': Array([0.], dtype=float32), 'b': Array([1.], dtype=float32)}
    """
    if not isinstance(inner, GradientTransformation):
        raise TypeError(f"masked: expected a GradientTransformation, got "
                        f"{type(inner).__name__}")
    inner = with_extra_args_support(inner)

    def mask_of(tree):
        return mask(tree) if _mask_is_callable(mask) else mask

    def mask_extra(extra_args, base, mask_tree):
        if not mask_compatible_extra_args:
            return extra_args
        structure = tu.tree_structure(base)
        return {k: _apply_mask(v, mask_tree) if tu.tree_structure(v) == structure else v
                for k, v in extra_args.items()}

    def init_fn(params):
        return MaskedState(inner_state=inner.init(_apply_mask(params, mask_of(params))))

    def update_fn(updates, state, params=None, **extra_args):
        _check_state(state, MaskedState)
        mask_tree = mask_of(updates)
        masked_updates = _apply_mask(updates, mask_tree)
        masked_params = None if params is None else _apply_mask(params, mask_tree)
        new_updates, inner_state = inner.update(
            masked_updates, state.inner_state, masked_params,
            **mask_extra(extra_args, updates, mask_tree))
        merged = tu.tree_map(lambda m, new, old: new if m else old,
                             mask_tree, new_updates, updates)
        return merged, MaskedState(inner_state=inner_state)

    return GradientTransformationExtraArgs(init_fn, update_fn)


class PartitionState(NamedTuple):
    """The state of each group's (masked) transformation, by label."""
    inner_states: Any


MultiTransformState = PartitionState


def _partition(transforms, param_labels, mask_compatible_extra_args):
    if not isinstance(transforms, dict) or not all(
            isinstance(t, GradientTransformation) for t in transforms.values()):
        raise TypeError(f"{_caller()}: expected a dict of GradientTransformations, got "
                        f"{type(transforms).__name__}")
    transforms = {k: with_extra_args_support(v) for k, v in transforms.items()}

    def labels_of(tree):
        return param_labels(tree) if callable(param_labels) else param_labels

    def group_tx(labels, group):
        mask_tree = tu.tree_map(lambda label: label == group, labels)
        return masked(transforms[group], mask_tree,
                      mask_compatible_extra_args=mask_compatible_extra_args)

    def init_fn(params):
        labels = labels_of(params)
        missing = set(tu.tree_leaves(labels)) - set(transforms)
        if missing:
            raise ValueError(f"{_caller()}.init: the labels {sorted(map(str, missing))} have "
                             f"no transformation (transforms: {sorted(map(str, transforms))})")
        return PartitionState({g: group_tx(labels, g).init(params) for g in transforms})

    def update_fn(updates, state, params=None, **extra_args):
        _check_state(state, PartitionState)
        labels = labels_of(updates)
        new_states = {}
        for g in transforms:
            updates, new_states[g] = group_tx(labels, g).update(
                updates, state.inner_states[g], params, **extra_args)
        return updates, PartitionState(new_states)

    return GradientTransformationExtraArgs(init_fn, update_fn)


@_public
def partition(transforms, param_labels, *, mask_compatible_extra_args: bool = False
              ) -> GradientTransformationExtraArgs:
    """Applies ``transforms[label]`` to the leaves labelled ``label``; ``param_labels`` is
    a pytree of labels (a prefix of the params') or a function of the params returning one
    (``optax.partition``)."""
    return _partition(transforms, param_labels, mask_compatible_extra_args)


@_public
def multi_transform(transforms, param_labels, *, mask_compatible_extra_args: bool = False
                    ) -> GradientTransformationExtraArgs:
    """:func:`partition` by its older name (``optax.multi_transform``)."""
    return _partition(transforms, param_labels, mask_compatible_extra_args)


# ---------------------------------------------------------------------------------------
# inject_hyperparams

class InjectHyperparamsState(NamedTuple):
    """``count``, the current ``hyperparams`` (a dict) and the inner state."""
    count: Any
    hyperparams: Any
    inner_state: Any


class InjectStatefulHyperparamsState(NamedTuple):
    """What :func:`inject_hyperparams` keeps (Optax 0.2.8's state): ``count``, the
    current ``hyperparams``, the schedules' states ``hyperparams_states`` and the inner
    state."""
    count: Any
    hyperparams: Any
    hyperparams_states: Any
    inner_state: Any


class WrappedScheduleState(NamedTuple):
    """The step count a plain schedule is evaluated at."""
    count: Any


class WrappedSchedule:
    """A function of the step count as a stateful schedule (``init``/``update``/call)."""

    def __init__(self, schedule_fn: Callable):
        self.schedule_fn = schedule_fn

    def init(self) -> WrappedScheduleState:
        return WrappedScheduleState(count=jnp.zeros([], jnp.int32))

    def update(self, state, **extra_args) -> WrappedScheduleState:
        return WrappedScheduleState(count=safe_increment(state.count))

    def __call__(self, state, **extra_args):
        return self.schedule_fn(state.count)


def _is_stateful_schedule(v) -> bool:
    return callable(v) and callable(getattr(v, "init", None)) and callable(
        getattr(v, "update", None))


def _highest_dtype(tree):
    """The widest dtype of the leaves (Optax's ``tree.dtype(tree, 'highest')``)."""
    leaves = tu.tree_leaves(tree)
    if not leaves:
        return dtypes.default_float_dtype()
    best = dtypes.dtype_of(leaves[0])
    for leaf in leaves[1:]:
        dt = dtypes.dtype_of(leaf)
        joined = dtypes.promote_types(best, dt)
        if joined == dt:
            best = dt
        elif joined != best:
            raise ValueError(f"{_caller()}: cannot order the dtypes {best} and {dt}")
    return best


def _convert_floats(x, dtype):
    if getattr(x, "weak_type", None) is False:  # a strongly typed irax array or tracer
        return x
    if dtypes.is_float(dtypes.dtype_of(x)):
        return jnp.asarray(x, dtype=dtype)
    return x


def inject_hyperparams(inner_factory: Callable, static_args=(), hyperparam_dtype=None
                       ) -> Callable[..., GradientTransformationExtraArgs]:
    """Wraps an optimizer factory so that its numeric hyperparameters live in the state
    (``state.hyperparams[name]``, which may be changed between steps) and callable ones
    are schedules of the step count (``optax.inject_hyperparams``).

    >>> from irax.optim import sgd
    >>> opt = inject_hyperparams(sgd)(learning_rate=lambda count: 0.1 / (count + 1))
    >>> state = opt.init(jnp.zeros(1))
    >>> float(state.hyperparams["learning_rate"])
    0.10000000149011612
    """
    static_args = {static_args} if isinstance(static_args, str) else set(static_args)
    signature = inspect.signature(inner_factory)
    name = getattr(inner_factory, "__name__", "inject_hyperparams")
    if not static_args.issubset(signature.parameters):
        raise ValueError(f"inject_hyperparams: static_args {sorted(static_args)} are not all "
                         f"parameters of {name} ({sorted(signature.parameters)})")

    def wrapped(*args, **kwargs) -> GradientTransformationExtraArgs:
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        sched, numeric, other = {}, {}, {}
        for k, v in bound.arguments.items():
            if k in static_args or isinstance(v, bool):
                other[k] = v
            elif _is_stateful_schedule(v):
                sched[k] = v
            elif callable(v):
                sched[k] = WrappedSchedule(v)
            elif isinstance(v, (int, float, np.ndarray)) or hasattr(v, "weak_type"):
                numeric[k] = v
            else:
                other[k] = v

        def dtype_of(params):
            return hyperparam_dtype if hyperparam_dtype is not None else _highest_dtype(params)

        def init_fn(params):
            dt = dtype_of(params)
            hparams = {k: jnp.asarray(_convert_floats(v, dt)) for k, v in numeric.items()}
            h_states = {k: f.init() for k, f in sched.items()}
            hparams.update({k: _convert_floats(f(h_states[k]), dt) for k, f in sched.items()})
            return InjectStatefulHyperparamsState(
                count=jnp.zeros([], jnp.int32), hyperparams=hparams,
                hyperparams_states=h_states,
                inner_state=inner_factory(**other, **hparams).init(params))

        def update_fn(updates, state, params=None, **extra_args):
            _check_state(state, InjectStatefulHyperparamsState)
            dt = dtype_of(params)
            hparams = {k: _convert_floats(v, dt) for k, v in state.hyperparams.items()}
            hparams.update({k: _convert_floats(f(state.hyperparams_states[k], **extra_args), dt)
                            for k, f in sched.items()})
            h_states = {k: f.update(state.hyperparams_states[k], **extra_args)
                        for k, f in sched.items()}
            inner = with_extra_args_support(inner_factory(**other, **hparams))
            updates, inner_state = inner.update(updates, state.inner_state, params,
                                                **extra_args)
            return updates, InjectStatefulHyperparamsState(
                count=safe_increment(state.count), hyperparams=hparams,
                hyperparams_states=h_states, inner_state=inner_state)

        return GradientTransformationExtraArgs(init_fn, update_fn)

    wrapped.__name__ = name
    wrapped.__doc__ = inner_factory.__doc__
    wrapped.__signature__ = signature
    return wrapped


# ---------------------------------------------------------------------------------------
# MultiSteps (gradient accumulation)

class MultiStepsState(NamedTuple):
    """``mini_step`` (within the current accumulation), ``gradient_step`` (inner updates
    so far), the inner state, the accumulated gradients and the skip function's state."""
    mini_step: Any
    gradient_step: Any
    inner_opt_state: Any
    acc_grads: Any
    skip_state: Any = ()


def skip_not_finite(updates, gradient_step, params):
    """A ``should_skip_update_fn`` for :class:`MultiSteps`: skip updates with a NaN or an
    infinity (``optax.skip_not_finite``)."""
    counts = [jnp.sum(jnp.logical_not(jnp.isfinite(p))) for p in tu.tree_leaves(updates)]
    num_not_finite = jnp.sum(jnp.stack(counts)) if counts else jnp.zeros([], jnp.int32)
    should_skip = num_not_finite > 0
    return should_skip, {"should_skip": should_skip, "num_not_finite": num_not_finite}


def skip_large_updates(updates, gradient_step, params, max_squared_norm):
    """A ``should_skip_update_fn`` for :class:`MultiSteps` (bind ``max_squared_norm`` with
    functools.partial): skip updates of squared norm >= it (``optax.skip_large_updates``)."""
    sq = [jnp.sum(p ** 2) for p in tu.tree_leaves(updates)]
    norm_sq = jnp.sum(jnp.stack(sq)) if sq else jnp.zeros([])
    should_skip = jnp.logical_not(norm_sq < max_squared_norm)
    return should_skip, {"should_skip": should_skip, "norm_squared": norm_sq}


class MultiSteps:
    """Accumulates ``every_k_schedule`` gradients (their mean, or sum with
    ``use_grad_mean=False``) and applies ``opt`` to them once per ``k`` calls; the other
    calls return zero updates (``optax.MultiSteps``).

    >>> from irax.optim import sgd
    >>> ms = MultiSteps(sgd(1.0), every_k_schedule=2)
    >>> s = ms.init(jnp.zeros(1))
    >>> u, s = ms.update(jnp.array([1.0]), s); float(abs(u[0]))
    0.0
    >>> u, s = ms.update(jnp.array([3.0]), s); u
    Array([-2.], dtype=float32)
    """

    def __init__(self, opt: GradientTransformation, every_k_schedule,
                 use_grad_mean: bool = True, should_skip_update_fn=None,
                 accumulator_dtype=jnp.float32):
        if not isinstance(opt, GradientTransformation):
            raise TypeError(f"MultiSteps: expected a GradientTransformation, got "
                            f"{type(opt).__name__}")
        if isinstance(every_k_schedule, bool) or not (
                isinstance(every_k_schedule, int) or callable(every_k_schedule)):
            raise TypeError("MultiSteps: expected an int or a schedule for every_k_schedule, "
                            f"got {every_k_schedule!r}")
        if isinstance(every_k_schedule, int) and every_k_schedule < 1:
            raise ValueError(f"MultiSteps: expected every_k_schedule >= 1, got "
                             f"{every_k_schedule}")
        self._opt = with_extra_args_support(opt)
        k = every_k_schedule
        self._every_k_schedule = (lambda step: k) if isinstance(k, int) else k
        self._use_grad_mean = use_grad_mean
        self._accumulator_dtype = dtypes.canonicalize_dtype(accumulator_dtype)
        self._should_skip_update_fn = should_skip_update_fn

    @property
    def inner_opt(self):
        return self._opt

    def _acc_update(self, grad, acc, n_acc):
        return acc + (grad - acc) / (n_acc + 1) if self._use_grad_mean else grad + acc

    def _skip(self, updates, gradient_step, params):
        if self._should_skip_update_fn is None:
            return None, ()
        return self._should_skip_update_fn(updates, gradient_step, params)

    def init(self, params) -> MultiStepsState:
        with _scope("MultiSteps"):
            _check_float_params(params)
            step = jnp.zeros([], jnp.int32)
            _, skip_state = self._skip(_zeros_like(params), step, params)
            return MultiStepsState(
                mini_step=jnp.zeros([], jnp.int32), gradient_step=step,
                inner_opt_state=self._opt.init(params),
                acc_grads=_zeros_like(params, self._accumulator_dtype),
                skip_state=skip_state)

    def update(self, updates, state, params=None, **extra_args):
        with _scope("MultiSteps"):
            _check_state(state, MultiStepsState)
            _check_structure(updates, state.acc_grads)
            return self._update(updates, state, params, **extra_args)

    def _update(self, updates, state, params, **extra_args):
        k_steps = self._every_k_schedule(state.gradient_step)
        should_skip, skip_state = self._skip(updates, state.gradient_step, params)
        if should_skip is not None and (jnp.shape(should_skip) != () or not dtypes.is_bool(
                dtypes.dtype_of(should_skip))):
            raise ValueError(
                f"{_caller()}.update: expected should_skip_update_fn to return a boolean "
                f"scalar, got {dtypes.dtype_of(should_skip)}{list(jnp.shape(should_skip))}")

        def do_update(updates, state, params):
            acc = tu.tree_map(lambda u, a: self._acc_update(u, a, state.mini_step),
                              updates, state.acc_grads)
            final, new_inner = self._opt.update(_cast_like(acc, updates),
                                                state.inner_opt_state, params, **extra_args)
            emit = state.mini_step == (k_steps - 1)
            new_state = MultiStepsState(
                mini_step=safe_increment(state.mini_step) % k_steps,
                gradient_step=emit * safe_increment(state.gradient_step)
                + (1 - emit) * state.gradient_step,
                inner_opt_state=_where_tree(emit, new_inner, state.inner_opt_state),
                acc_grads=tu.tree_map(
                    lambda a: ((1 - emit) * a).astype(self._accumulator_dtype), acc),
                skip_state=skip_state)
            return tu.tree_map(lambda u: emit * u, final), new_state

        if should_skip is None:
            return do_update(updates, state, params)
        # a skipped step: zero updates and the state unchanged but for skip_state
        return lax.cond(should_skip,
                        lambda: (_zeros_like(updates), state._replace(skip_state=skip_state)),
                        lambda: do_update(updates, state, params))

    def has_updated(self, state):
        """True after the step that applied the inner optimizer."""
        return jnp.logical_and(state.mini_step == 0, state.gradient_step > 0)

    def gradient_transformation(self) -> GradientTransformation:
        """This accumulation as a :class:`GradientTransformation`."""
        return GradientTransformation(init=self.init, update=self.update)


# ---------------------------------------------------------------------------------------
# apply_if_finite

class ApplyIfFiniteState(NamedTuple):
    """Consecutive and total counts of non-finite updates, whether the last one was
    finite, and the inner state."""
    notfinite_count: Any
    last_finite: Any
    total_notfinite: Any
    inner_state: Any


@_public
def apply_if_finite(inner: GradientTransformation, max_consecutive_errors: int
                    ) -> GradientTransformationExtraArgs:
    """Applies ``inner`` only to finite updates (zeros and an unchanged inner state
    otherwise), unless more than ``max_consecutive_errors`` non-finite updates came in a
    row (``optax.apply_if_finite``)."""
    if not isinstance(inner, GradientTransformation):
        raise TypeError(f"apply_if_finite: expected a GradientTransformation, got "
                        f"{type(inner).__name__}")
    inner = with_extra_args_support(inner)

    def init_fn(params):
        return ApplyIfFiniteState(
            notfinite_count=jnp.zeros([], jnp.int32), last_finite=jnp.array(True, jnp.bool_),
            total_notfinite=jnp.zeros([], jnp.int32), inner_state=inner.init(params))

    def update_fn(updates, state, params=None, **extra_args):
        _check_state(state, ApplyIfFiniteState)
        flags = [jnp.all(jnp.isfinite(p)) for p in tu.tree_leaves(updates)]
        isfinite = jnp.all(jnp.stack(flags)) if flags else jnp.array(True)
        notfinite_count = jnp.where(isfinite, jnp.zeros([], jnp.int32),
                                    safe_increment(state.notfinite_count))

        apply = jnp.logical_or(isfinite, notfinite_count > max_consecutive_errors)
        new_updates, inner_state = lax.cond(
            apply, lambda: inner.update(updates, state.inner_state, params, **extra_args),
            lambda: (_zeros_like(updates), state.inner_state))
        total = jnp.where(isfinite, state.total_notfinite,
                          safe_increment(state.total_notfinite))
        return new_updates, ApplyIfFiniteState(
            notfinite_count=notfinite_count, last_finite=isfinite, total_notfinite=total,
            inner_state=inner_state)

    return GradientTransformationExtraArgs(init_fn, update_fn)
