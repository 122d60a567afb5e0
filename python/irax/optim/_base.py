"""The gradient-transformation interface of ``irax.optim`` (Optax's ``base``, ``combine``,
``update`` and ``numerics``), the learning-rate plumbing, and the pytree helpers the
transformations share.

A transformation is a pair of pure functions ``init(params) -> state`` and
``update(updates, state, params=None) -> (updates, state)``; ``chain`` composes them and
``apply_updates`` adds the result to the parameters::

    >>> import irax.numpy as jnp
    >>> from irax import optim
    >>> tx = optim.chain(optim.clip_by_global_norm(1.0), optim.scale(-0.1))
    >>> params = {"w": jnp.ones(3)}
    >>> state = tx.init(params)
    >>> updates, state = tx.update({"w": jnp.full(3, 2.0)}, state, params)
    >>> optim.apply_updates(params, updates)["w"]
    Array([0.942265, 0.942265, 0.942265], dtype=float32)

Errors raised inside ``init``/``update`` name the outermost public function the user
called (``adam.update: ...``, not the inner ``scale_by_adam``): every public factory is
decorated with :func:`_public`, which records its name for the duration of the call.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
from typing import Any, Callable, NamedTuple

import numpy as np

from irax import numpy as jnp
from irax.core import dtypes
from irax.core import tree_util as tu

__all__ = [
    "EmptyState", "GradientTransformation", "GradientTransformationExtraArgs", "OptState",
    "Params", "ScalarOrSchedule", "Schedule", "ScaleByScheduleState", "ScaleState",
    "Updates", "apply_updates", "chain", "global_norm", "identity", "incremental_update",
    "init_empty_state", "named_chain", "safe_increment", "safe_int32_increment",
    "safe_norm", "safe_root_mean_squares", "scale", "scale_by_learning_rate",
    "scale_by_schedule", "set_to_zero", "stateless", "stateless_with_tree_map",
    "with_extra_args_support",
]

Params = Any
Updates = Any
OptState = Any
Schedule = Callable[[Any], Any]
ScalarOrSchedule = Any  # a float, a scalar array, or a Schedule


class GradientTransformation(NamedTuple):
    """A pair of pure functions: ``init(params) -> state`` and
    ``update(updates, state, params=None) -> (updates, state)`` (``optax.GradientTransformation``).

    >>> tx = GradientTransformation(lambda p: EmptyState(), lambda u, s, p=None: (u, s))
    >>> tx.update(1.0, tx.init(0.0))
    (1.0, EmptyState())
    """

    init: Callable
    update: Callable


class GradientTransformationExtraArgs(GradientTransformation):
    """A :class:`GradientTransformation` whose ``update`` accepts (and passes on, or
    ignores) extra keyword arguments: ``update(updates, state, params=None, **extra)``."""


class EmptyState(NamedTuple):
    """The state of a stateless transformation."""


ScaleState = EmptyState


class ScaleByScheduleState(NamedTuple):
    """The step count of :func:`scale_by_schedule` (int32)."""

    count: Any


# ---------------------------------------------------------------------------------------
# error naming: the outermost public function of the current init/update call

_CALLER: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "irax_optim_caller", default=None)


@contextlib.contextmanager
def _scope(name: str):
    token = _CALLER.set(name) if _CALLER.get() is None else None
    try:
        yield
    finally:
        if token is not None:
            _CALLER.reset(token)


def _caller(default: str = "irax.optim") -> str:
    return _CALLER.get() or default


def _wrap_tx(name: str, tx: GradientTransformation) -> GradientTransformation:
    def init(params):
        with _scope(name):
            return tx.init(params)

    if isinstance(tx, GradientTransformationExtraArgs):
        def update(updates, state, params=None, **extra_args):
            with _scope(name):
                return tx.update(updates, state, params, **extra_args)
    else:
        def update(updates, state, params=None):
            with _scope(name):
                return tx.update(updates, state, params)
    return type(tx)(init, update)


def _public(factory: Callable) -> Callable:
    """Decorate a factory of transformations so that errors raised in their ``init`` and
    ``update`` name it (unless an outer public transformation is already running)."""

    @functools.wraps(factory)
    def make(*args, **kwargs):
        with _scope(factory.__name__):
            tx = factory(*args, **kwargs)
        return _wrap_tx(factory.__name__, tx)

    return make


# ---------------------------------------------------------------------------------------
# checks shared by the transformations

def _check_float_params(params) -> None:
    """``init``'s check: every leaf is a floating-point (or complex) array."""
    for path, leaf in tu.tree_flatten_with_path(params)[0]:
        dt = dtypes.dtype_of(leaf)
        if not (dtypes.is_float(dt) or dtypes.is_complex(dt)):
            where = f" at {tu.keystr(path)}" if path else ""
            raise TypeError(f"{_caller()}.init: expected floating-point parameters, "
                            f"got {dt}{where}")


def _check_structure(updates, reference, what: str = "the state") -> None:
    """``update``'s check: ``updates`` has the pytree structure of ``reference``."""
    expected, got = tu.tree_structure(reference), tu.tree_structure(updates)
    if expected != got:
        raise ValueError(f"{_caller()}.update: the updates have a different pytree "
                         f"structure than {what} (expected {expected}, got {got})")


def _require_params(params, updates) -> None:
    if params is None:
        raise ValueError(f"{_caller()}.update: this transformation needs the current "
                         "parameters; got params=None (call update(updates, state, params))")
    _check_structure(updates, params, "the params")


def _check_state(state, cls: type) -> None:
    if not isinstance(state, cls):
        raise TypeError(f"{_caller()}.update: expected a {cls.__name__} state (the result "
                        f"of init), got {type(state).__name__}")


# ---------------------------------------------------------------------------------------
# pytree helpers (Optax's optax.tree functions, private here)

def _is_none(x) -> bool:
    return x is None


def _zeros_like(tree, dtype=None):
    return tu.tree_map(lambda x: jnp.zeros_like(x, dtype=dtype), tree)


def _full_like(tree, value, dtype=None):
    return tu.tree_map(lambda x: jnp.full_like(x, value, dtype=dtype), tree)


def _cast(tree, dtype):
    return tree if dtype is None else tu.tree_map(lambda t: t.astype(dtype), tree)


def _cast_like(tree, other):
    return tu.tree_map(lambda t, o: t.astype(o.dtype) if hasattr(o, "dtype") else t,
                       tree, other)


def _abs_sq(x):
    x = jnp.asarray(x)
    return (x.conj() * x).real


def _update_moment(updates, moments, decay, order):
    """``(1 - decay) * g**order + decay * m`` leaf by leaf (None leaves stay None)."""
    return tu.tree_map(
        lambda g, t: None if g is None else (1 - decay) * (g ** order) + decay * t,
        updates, moments, is_leaf=_is_none)


def _update_moment_per_elem_norm(updates, moments, decay, order):
    """Like :func:`_update_moment` with ``|g|**order`` for complex ``g``."""
    def norm(g):
        if not dtypes.is_complex(g.dtype):
            return g ** order
        half = order / 2
        return _abs_sq(g) ** (int(half) if float(half).is_integer() else half)

    return tu.tree_map(
        lambda g, t: None if g is None else (1 - decay) * norm(g) + decay * t,
        updates, moments, is_leaf=_is_none)


def _bias_correction(moment, decay, count):
    """``m / (1 - decay**count)``; the power takes the count as a float, as Optax's jitted
    helper does (a concrete integer exponent would square-and-multiply instead)."""
    dt = jnp.result_type(decay, 1.0)
    correction = 1 - jnp.asarray(decay, dt) ** jnp.asarray(count).astype(dt)
    return tu.tree_map(lambda t: t / correction.astype(t.dtype), moment)


def _tree_sum(tree):
    total = 0
    for leaf in tu.tree_leaves(tree):
        total = total + jnp.sum(leaf)
    return total


def _tree_norm(tree, squared: bool = False):
    sq = _tree_sum(tu.tree_map(lambda x: jnp.square(x.real) + jnp.square(x.imag), tree))
    return jnp.asarray(sq if squared else jnp.sqrt(sq))


# ---------------------------------------------------------------------------------------
# numerics

def safe_increment(count):
    """``count + 1``, saturating at the dtype's maximum instead of overflowing
    (``optax.safe_increment``).

    >>> safe_increment(jnp.asarray(2147483647, jnp.int32))
    Array(2147483647, dtype=int32)
    """
    count = jnp.asarray(count)
    dt = count.dtype
    if dtypes.is_int(dt) or dtypes.is_unsigned(dt):
        top = np.iinfo(dt).max
    elif dtypes.is_float(dt):
        top = np.finfo(dt).max
    else:
        raise ValueError(f"safe_increment: expected an integer or floating count, got {dt}")
    top = jnp.asarray(top, dt)
    return jnp.where(count < top, count + jnp.asarray(1, dt), top)


safe_int32_increment = safe_increment


def global_norm(updates):
    """The L2 norm of all leaves together (``optax.global_norm``).

    >>> global_norm({"a": jnp.array([3.0]), "b": jnp.array([4.0])})
    Array(5., dtype=float32)
    """
    return _tree_norm(updates)


def safe_norm(x, min_norm, ord=None, axis=None, keepdims: bool = False):  # noqa: A002
    """``max(norm(x), min_norm)`` whose gradient is finite at ``x == 0``
    (``optax.safe_norm``)."""
    norm = jnp.linalg.norm(x, ord=ord, axis=axis, keepdims=True)
    x = jnp.where(norm <= min_norm, jnp.ones_like(x), x)
    norm = norm if keepdims else jnp.squeeze(norm, axis=axis)
    masked = jnp.linalg.norm(x, ord=ord, axis=axis, keepdims=keepdims)
    return jnp.where(norm <= min_norm, min_norm, masked)


def safe_root_mean_squares(x, min_rms):
    """``max(rms(x), min_rms)`` with a finite gradient at 0
    (``optax.safe_root_mean_squares``)."""
    rms = jnp.sqrt(jnp.mean(_abs_sq(x)))
    x = jnp.where(rms <= min_rms, jnp.ones_like(x), x)
    return jnp.where(rms <= min_rms, min_rms, jnp.sqrt(jnp.mean(_abs_sq(x))))


# ---------------------------------------------------------------------------------------
# the simplest transformations and the combinators

def init_empty_state(params) -> EmptyState:
    """The ``init`` of a stateless transformation."""
    del params
    return EmptyState()


@_public
def identity() -> GradientTransformation:
    """Leaves the updates unchanged (``optax.identity``).

    >>> identity().update(1.0, EmptyState())
    (1.0, EmptyState())
    """
    return GradientTransformation(init_empty_state, lambda u, s, params=None: (u, s))


@_public
def set_to_zero() -> GradientTransformation:
    """Maps the updates to zeros, which freezes the parameters (``optax.set_to_zero``)."""
    def update_fn(updates, state, params=None):
        return tu.tree_map(jnp.zeros_like, updates), state

    return GradientTransformation(init_empty_state, update_fn)


def stateless(f: Callable) -> GradientTransformation:
    """A transformation from ``f(updates, params) -> updates`` (``optax.stateless``).

    >>> tx = stateless(lambda u, p: tu.tree_map(lambda g: 2 * g, u))
    >>> tx.update({"w": jnp.ones(2)}, tx.init(None))[0]["w"]
    Array([2., 2.], dtype=float32)
    """
    def update_fn(updates, state, params=None):
        return f(updates, params), EmptyState()

    return GradientTransformation(init_empty_state, update_fn)


def stateless_with_tree_map(f: Callable) -> GradientTransformation:
    """A transformation from a per-leaf ``f(update, param) -> update``
    (``optax.stateless_with_tree_map``; ``param`` is None without params)."""
    def update_fn(updates, state, params=None):
        if params is None:
            return tu.tree_map(lambda u: f(u, None), updates), EmptyState()
        return tu.tree_map(f, updates, params), EmptyState()

    return GradientTransformation(init_empty_state, update_fn)


def with_extra_args_support(tx: GradientTransformation) -> GradientTransformationExtraArgs:
    """``tx`` whose ``update`` accepts (and ignores) extra keyword arguments."""
    if isinstance(tx, GradientTransformationExtraArgs):
        return tx

    def update(updates, state, params=None, **extra_args):
        return tx.update(updates, state, params)

    return GradientTransformationExtraArgs(tx.init, update)


def _check_transformations(name: str, txs) -> None:
    for i, t in enumerate(txs):
        if not isinstance(t, GradientTransformation):
            raise TypeError(f"{name}: expected GradientTransformations, got "
                            f"{type(t).__name__} at position {i}")


@_public
def chain(*args: GradientTransformation) -> GradientTransformationExtraArgs:
    """Applies the transformations one after another; the state is the tuple of their
    states (``optax.chain``).

    >>> tx = chain(scale(2.0), scale(-0.5))
    >>> tx.update(jnp.ones(2), tx.init(jnp.ones(2)))[0]
    Array([-1., -1.], dtype=float32)
    """
    _check_transformations("chain", args)
    txs = [with_extra_args_support(t) for t in args]

    def init_fn(params):
        return tuple(t.init(params) for t in txs)

    def update_fn(updates, state, params=None, **extra_args):
        if not isinstance(state, (tuple, list)) or len(state) != len(txs):
            got = len(state) if isinstance(state, (tuple, list)) else type(state).__name__
            raise ValueError(f"{_caller()}.update: expected the state of {len(txs)} chained "
                             f"transformations (the result of init), got {got}")
        new_state = []
        for s, t in zip(state, txs):
            updates, s = t.update(updates, s, params, **extra_args)
            new_state.append(s)
        return updates, tuple(new_state)

    return GradientTransformationExtraArgs(init_fn, update_fn)


@_public
def named_chain(*args: tuple[str, GradientTransformation]) -> GradientTransformationExtraArgs:
    """:func:`chain` whose state is a dict keyed by the given names (``optax.named_chain``)."""
    names = [n for n, _ in args]
    if len(names) != len(set(names)):
        raise ValueError(f"named_chain: expected unique names, got {names}")
    _check_transformations("named_chain", [t for _, t in args])
    txs = [(n, with_extra_args_support(t)) for n, t in args]

    def init_fn(params):
        return {n: t.init(params) for n, t in txs}

    def update_fn(updates, state, params=None, **extra_args):
        new_state = {}
        for n, t in txs:
            updates, new_state[n] = t.update(updates, state[n], params, **extra_args)
        return updates, new_state

    return GradientTransformationExtraArgs(init_fn, update_fn)


def apply_updates(params, updates):
    """``params + updates`` leaf by leaf, each result cast back to its parameter's dtype
    (``optax.apply_updates``; None leaves stay None).

    >>> apply_updates({"w": jnp.ones(2)}, {"w": jnp.full(2, 0.5)})["w"]
    Array([1.5, 1.5], dtype=float32)
    """
    p_def, u_def = tu.tree_structure(params, is_leaf=_is_none), tu.tree_structure(
        updates, is_leaf=_is_none)
    if p_def != u_def:
        raise ValueError("apply_updates: the updates have a different pytree structure than "
                         f"the params (expected {p_def}, got {u_def})")
    return tu.tree_map(
        lambda p, u: None if p is None else jnp.asarray(p + u).astype(jnp.asarray(p).dtype),
        params, updates, is_leaf=_is_none)


def incremental_update(new_tensors, old_tensors, step_size):
    """``step_size * new + (1 - step_size) * old`` (Polyak averaging;
    ``optax.incremental_update``)."""
    return tu.tree_map(
        lambda new, old: None if new is None else step_size * new + (1.0 - step_size) * old,
        new_tensors, old_tensors, is_leaf=_is_none)


# ---------------------------------------------------------------------------------------
# scaling and learning rates

@_public
def scale(step_size) -> GradientTransformation:
    """Multiplies the updates by a fixed ``step_size`` (``optax.scale``).

    >>> scale(-0.1).update(jnp.ones(2), EmptyState())[0]
    Array([-0.1, -0.1], dtype=float32)
    """
    def update_fn(updates, state, params=None):
        return tu.tree_map(lambda g: step_size * g, updates), state

    return GradientTransformation(init_empty_state, update_fn)


def _scale_by_schedule(step_size_fn: Callable, what: str) -> GradientTransformation:
    def init_fn(params):
        return ScaleByScheduleState(count=jnp.zeros([], jnp.int32))

    def update_fn(updates, state, params=None):
        _check_state(state, ScaleByScheduleState)
        step_size = step_size_fn(state.count)
        shape = jnp.shape(step_size)
        if shape != ():
            raise ValueError(f"{_caller()}: the {what} returned shape {shape}; "
                             "expected a scalar")
        updates = tu.tree_map(lambda g: jnp.array(step_size, dtype=g.dtype) * g, updates)
        return updates, ScaleByScheduleState(count=safe_increment(state.count))

    return GradientTransformation(init_fn, update_fn)


@_public
def scale_by_schedule(step_size_fn: Schedule) -> GradientTransformation:
    """Multiplies the updates by ``step_size_fn(count)``, ``count`` the number of updates so
    far (``optax.scale_by_schedule``).

    >>> tx = scale_by_schedule(lambda count: 0.5 ** count)
    >>> s = tx.init(None)
    >>> u, s = tx.update(jnp.ones(1), s); u, s = tx.update(jnp.ones(1), s); u
    Array([0.5], dtype=float32)
    """
    if not callable(step_size_fn):
        raise TypeError("scale_by_schedule: expected a callable schedule, got "
                        f"{type(step_size_fn).__name__}")
    return _scale_by_schedule(step_size_fn, "schedule")


@_public
def scale_by_learning_rate(learning_rate: ScalarOrSchedule = None, *,
                           flip_sign: bool = True) -> GradientTransformation:
    """Multiplies the updates by ``-learning_rate`` (``+`` with ``flip_sign=False``);
    ``learning_rate`` is a number or a schedule of the step count
    (``optax.scale_by_learning_rate``). None gives :func:`identity`."""
    if learning_rate is None:
        return identity()
    m = -1 if flip_sign else 1
    if callable(learning_rate):
        return _scale_by_schedule(lambda count: m * learning_rate(count),
                                  "learning-rate schedule")
    if isinstance(learning_rate, (str, bytes)):
        raise TypeError(f"{_caller()}: expected a learning rate that is a number or a "
                        f"schedule, got {learning_rate!r}")
    return scale(m * learning_rate)
