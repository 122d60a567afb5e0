"""Optimizers as ``(init_fun, update_fun, get_params)`` triples
(``jax.example_libraries.optimizers``' names, state layout and numerics).

With ``from irax.example_libraries import optimizers``::

    opt_init, opt_update, get_params = optimizers.adam(1e-3)
    opt_state = opt_init(params)

    @irax.jit
    def step(i, opt_state, batch):
        grads = irax.grad(loss)(get_params(opt_state), batch)
        return opt_update(i, grads, opt_state)

``init_fun(params)`` gives an ``OptimizerState`` pytree (the per-leaf states flattened,
with the parameter tree's and each leaf state's structure as static data), so a state
goes through ``irax.jit``; ``update_fun(step, grads, state)`` returns the next state;
``get_params(state)`` gives the parameters back. The ``optimizer`` decorator lifts an
optimizer written for one array to pytrees. A step size is a scalar or a schedule
``step -> scalar``. For a full-featured library see ``irax.optim`` (Optax's design).
"""

from __future__ import annotations

import functools
from collections import namedtuple
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from irax import numpy as jnp
from irax.core import tree_util

__all__ = [
    "JoinPoint", "Optimizer", "OptimizerState", "adagrad", "adam", "adamax", "clip_grads",
    "constant", "exponential_decay", "inverse_time_decay", "l2_norm", "make_schedule",
    "momentum", "nesterov", "optimizer", "pack_optimizer_state", "piecewise_constant",
    "polynomial_decay", "rmsprop", "rmsprop_momentum", "sgd", "sm3",
    "unpack_optimizer_state",
]

OptimizerState = namedtuple("OptimizerState", ["packed_state", "tree_def", "subtree_defs"])
# only the flattened leaf states are children; the two structures are static
tree_util.register_pytree_node(
    OptimizerState,
    lambda s: ((s.packed_state,), (s.tree_def, s.subtree_defs)),
    lambda aux, children: OptimizerState(children[0], aux[0], aux[1]))

Params = Any
Schedule = Callable[[int], Any]


class Optimizer(NamedTuple):
    """An ``(init_fn, update_fn, params_fn)`` triple."""
    init_fn: Callable
    update_fn: Callable
    params_fn: Callable


def _flatten_states(states):
    pairs = [tree_util.tree_flatten(s) for s in states]
    return tuple(leaves for leaves, _ in pairs), tuple(tree for _, tree in pairs)


def optimizer(opt_maker: Callable) -> Callable[..., Optimizer]:
    """Lifts an optimizer written for one array (``init(x0) -> state``,
    ``update(i, g, state) -> state``, ``get_params(state) -> x``) to pytrees of arrays.

        @optimizer
        def sign_sgd(step_size):
            return (lambda x: x, lambda i, g, x: x - step_size * jnp.sign(g),
                    lambda x: x)
    """
    @functools.wraps(opt_maker)
    def tree_opt_maker(*args, **kwargs):
        init, update, get_params = opt_maker(*args, **kwargs)

        @functools.wraps(init)
        def tree_init(x0_tree):
            x0_flat, tree = tree_util.tree_flatten(x0_tree)
            states_flat, subtrees = _flatten_states([init(x0) for x0 in x0_flat])
            return OptimizerState(states_flat, tree, subtrees)

        @functools.wraps(update)
        def tree_update(i, grad_tree, opt_state):
            states_flat, tree, subtrees = opt_state
            grad_flat, grad_def = tree_util.tree_flatten(grad_tree)
            if grad_def != tree:
                raise TypeError(f"irax.example_libraries.optimizers: expected a gradient "
                                f"tree of the parameters' structure {tree} (update_fun), "
                                f"got {grad_def}")
            states = map(tree_util.tree_unflatten, subtrees, states_flat)
            new_states = [update(i, g, s) for g, s in zip(grad_flat, states)]
            new_flat, new_subtrees = _flatten_states(new_states)
            for before, after in zip(subtrees, new_subtrees):
                if before != after:
                    raise TypeError(f"irax.example_libraries.optimizers: expected update "
                                    f"to keep the state's structure {before}, got {after}")
            return OptimizerState(new_flat, tree, subtrees)

        @functools.wraps(get_params)
        def tree_get_params(opt_state):
            states_flat, tree, subtrees = opt_state
            states = map(tree_util.tree_unflatten, subtrees, states_flat)
            return tree_util.tree_unflatten(tree, [get_params(s) for s in states])

        return Optimizer(tree_init, tree_update, tree_get_params)

    return tree_opt_maker


def _first(state):
    return state[0]


# -- optimizers -------------------------------------------------------------------------


@optimizer
def sgd(step_size):
    """Stochastic gradient descent: ``x - step_size(i) * g``.

        opt_init, opt_update, get_params = sgd(0.1)
    """
    step_size = make_schedule(step_size)
    return Optimizer(lambda x0: x0, lambda i, g, x: x - step_size(i) * g, lambda x: x)


@optimizer
def momentum(step_size, mass: float):
    """SGD with momentum: ``v = mass * v + g``, ``x - step_size(i) * v``.

        opt_init, opt_update, get_params = momentum(0.1, mass=0.9)
    """
    step_size = make_schedule(step_size)

    def update(i, g, state):
        x, velocity = state
        velocity = mass * velocity + g
        return x - step_size(i) * velocity, velocity

    return lambda x0: (x0, jnp.zeros_like(x0)), update, _first


@optimizer
def nesterov(step_size, mass: float):
    """SGD with Nesterov momentum: ``v = mass * v + g``, ``x - step_size(i) * (mass * v +
    g)``.

        opt_init, opt_update, get_params = nesterov(0.1, mass=0.9)
    """
    step_size = make_schedule(step_size)

    def update(i, g, state):
        x, velocity = state
        velocity = mass * velocity + g
        return x - step_size(i) * (mass * velocity + g), velocity

    return lambda x0: (x0, jnp.zeros_like(x0)), update, _first


@optimizer
def adagrad(step_size, momentum=0.9):
    """Adagrad (Duchi et al. 2011) with momentum on the normalized gradient.

        opt_init, opt_update, get_params = adagrad(0.1)
    """
    step_size = make_schedule(step_size)

    def init(x0):
        return x0, jnp.zeros_like(x0), jnp.zeros_like(x0)

    def update(i, g, state):
        x, g_sq, m = state
        g_sq = g_sq + jnp.square(g)
        g_sq_inv_sqrt = jnp.where(g_sq > 0, 1.0 / jnp.sqrt(g_sq), 0.0)
        m = (1.0 - momentum) * (g * g_sq_inv_sqrt) + momentum * m
        return x - step_size(i) * m, g_sq, m

    return init, update, _first


@optimizer
def rmsprop(step_size, gamma=0.9, eps=1e-8):
    """RMSProp: ``a = gamma * a + (1 - gamma) * g**2``, ``x - step_size(i) * g /
    sqrt(a + eps)``.

        opt_init, opt_update, get_params = rmsprop(1e-3)
    """
    step_size = make_schedule(step_size)

    def update(i, g, state):
        x, avg_sq_grad = state
        avg_sq_grad = avg_sq_grad * gamma + jnp.square(g) * (1.0 - gamma)
        return x - step_size(i) * g / jnp.sqrt(avg_sq_grad + eps), avg_sq_grad

    return lambda x0: (x0, jnp.zeros_like(x0)), update, _first


@optimizer
def rmsprop_momentum(step_size, gamma=0.9, eps=1e-8, momentum=0.9):
    """RMSProp with momentum on the scaled step.

        opt_init, opt_update, get_params = rmsprop_momentum(1e-3, momentum=0.8)
    """
    step_size = make_schedule(step_size)

    def init(x0):
        return x0, jnp.zeros_like(x0), jnp.zeros_like(x0)

    def update(i, g, state):
        x, avg_sq_grad, mom = state
        avg_sq_grad = avg_sq_grad * gamma + jnp.square(g) * (1.0 - gamma)
        mom = momentum * mom + step_size(i) * g / jnp.sqrt(avg_sq_grad + eps)
        return x - mom, avg_sq_grad, mom

    return init, update, _first


@optimizer
def adam(step_size, b1=0.9, b2=0.999, eps=1e-8):
    """Adam (Kingma & Ba 2015) with bias-corrected moments.

        opt_init, opt_update, get_params = adam(1e-3)
    """
    step_size = make_schedule(step_size)

    def init(x0):
        return x0, jnp.zeros_like(x0), jnp.zeros_like(x0)

    def update(i, g, state):
        x, m, v = state
        m = (1 - b1) * g + b1 * m
        v = (1 - b2) * jnp.square(g) + b2 * v
        mhat = m / (1 - jnp.asarray(b1, m.dtype) ** (i + 1))
        vhat = v / (1 - jnp.asarray(b2, m.dtype) ** (i + 1))
        return x - step_size(i) * mhat / (jnp.sqrt(vhat) + eps), m, v

    return init, update, _first


@optimizer
def adamax(step_size, b1=0.9, b2=0.999, eps=1e-8):
    """AdaMax, Adam with the infinity norm: ``u = max(b2 * u, |g|)``.

        opt_init, opt_update, get_params = adamax(2e-3)
    """
    step_size = make_schedule(step_size)

    def init(x0):
        return x0, jnp.zeros_like(x0), jnp.zeros_like(x0)

    def update(i, g, state):
        x, m, u = state
        m = (1 - b1) * g + b1 * m
        u = jnp.maximum(b2 * u, jnp.abs(g))
        lr = step_size(i) / (1 - jnp.asarray(b1, m.dtype) ** (i + 1))
        return x - lr * m / (u + eps), m, u

    return init, update, _first


@tree_util.register_static
class _StaticShape(tuple):
    """sm3's record of the parameter's shape: static pytree data, so that ``get_params``
    also works on a state carried through ``lax.fori_loop`` or ``scan`` (JAX's state keeps
    the shape's ints as leaves, which a loop turns into traced values)."""


def _broadcast_along(ndim, v, axis):
    """``v`` (1-D) as an array of rank ``ndim`` varying along ``axis``."""
    return v[tuple(slice(None) if d == axis else None for d in range(ndim))]


@optimizer
def sm3(step_size, momentum=0.9):
    """SM3 (Anil et al. 2019): one accumulator vector per axis instead of one per entry.

        opt_init, opt_update, get_params = sm3(0.1)
    """
    step_size = make_schedule(step_size)

    def init(x0):
        x_shape = _StaticShape(np.shape(x0))
        x0 = jnp.atleast_1d(x0)
        vs = [jnp.zeros(n, dtype=x0.dtype) for n in x0.shape]
        return x0, jnp.zeros_like(x0), vs, x_shape

    def update(i, g, state):
        x, m, vs, x_shape = state
        vs = [_broadcast_along(g.ndim, v, axis) for axis, v in enumerate(vs)]
        accum = functools.reduce(jnp.minimum, vs) + jnp.square(g)
        accum_inv_sqrt = jnp.where(accum > 0, 1.0 / jnp.sqrt(accum), 0)
        m = (1.0 - momentum) * (g * accum_inv_sqrt) + momentum * m
        x = x - step_size(i) * m
        vs = [accum.max(tuple(d for d in range(x.ndim) if d != axis))
              for axis in range(x.ndim)]
        return x, m, vs, x_shape

    def get_params(state):
        x, _, _, x_shape = state
        return x.reshape(tuple(x_shape))

    return init, update, get_params


# -- schedules --------------------------------------------------------------------------


def constant(step_size) -> Schedule:
    """The schedule ``i -> step_size``.

        constant(0.1)(100)    # 0.1
    """
    return lambda i: step_size


def exponential_decay(step_size, decay_steps, decay_rate) -> Schedule:
    """``step_size * decay_rate ** (i / decay_steps)``.

        exponential_decay(1.0, 10, 0.5)(20)    # 0.25
    """
    return lambda i: step_size * decay_rate ** (i / decay_steps)


def inverse_time_decay(step_size, decay_steps, decay_rate, staircase=False) -> Schedule:
    """``step_size / (1 + decay_rate * i / decay_steps)`` (the quotient floored with
    ``staircase``).

        inverse_time_decay(1.0, 10, 1.0)(10)    # 0.5
    """
    if staircase:
        return lambda i: step_size / (1 + decay_rate * jnp.floor(i / decay_steps))
    return lambda i: step_size / (1 + decay_rate * i / decay_steps)


def polynomial_decay(step_size, decay_steps, final_step_size, power=1.0) -> Schedule:
    """From ``step_size`` to ``final_step_size`` at ``decay_steps`` as
    ``(1 - i / decay_steps) ** power``, then constant.

        polynomial_decay(1.0, 10, 0.0)(5)    # 0.5
    """
    def schedule(step_num):
        step_num = jnp.minimum(step_num, decay_steps)
        step_mult = (1 - step_num / decay_steps) ** power
        return step_mult * (step_size - final_step_size) + final_step_size

    return schedule


def piecewise_constant(boundaries: Any, values: Any) -> Schedule:
    """``values[k]`` where ``k`` counts the boundaries that ``i`` exceeds
    (``len(values) == len(boundaries) + 1``).

        piecewise_constant([10, 20], [1.0, 0.5, 0.1])(15)    # 0.5
    """
    boundaries, values = jnp.array(boundaries), jnp.array(values)
    if not boundaries.ndim == values.ndim == 1:
        raise ValueError(f"irax.example_libraries.optimizers.piecewise_constant: expected "
                         f"boundaries and values as 1-D sequences, got shapes "
                         f"{boundaries.shape} and {values.shape}")
    if boundaries.shape[0] != values.shape[0] - 1:
        raise ValueError(f"irax.example_libraries.optimizers.piecewise_constant: expected "
                         f"len(boundaries) == len(values) - 1 = {values.shape[0] - 1}, got "
                         f"{boundaries.shape[0]}")
    return lambda i: values[jnp.sum(i > boundaries)]


def make_schedule(scalar_or_schedule) -> Schedule:
    """A schedule as it is; a scalar as ``constant(scalar)``.

        make_schedule(0.1)(5)    # 0.1
    """
    if callable(scalar_or_schedule):
        return scalar_or_schedule
    if (jnp.ndim if hasattr(scalar_or_schedule, "shape") else np.ndim)(scalar_or_schedule) == 0:
        return constant(scalar_or_schedule)
    raise TypeError(f"irax.example_libraries.optimizers.make_schedule: expected a scalar or "
                    f"a callable step size, got {type(scalar_or_schedule).__name__} of shape "
                    f"{np.shape(scalar_or_schedule)}")


# -- utilities --------------------------------------------------------------------------


def l2_norm(tree):
    """The l2 norm of all of a pytree's leaves together (for weight decay).

        l2_norm({'w': jnp.ones(4)})    # 2.0
    """
    leaves = tree_util.tree_leaves(tree)
    return jnp.sqrt(sum(jnp.vdot(x, x) for x in leaves))


def clip_grads(grad_tree, max_norm):
    """The gradients scaled down to ``l2_norm <= max_norm`` (unchanged when below).

        clip_grads(grads, 1.0)
    """
    norm = l2_norm(grad_tree)
    return tree_util.tree_map(
        lambda g: jnp.where(norm < max_norm, g, g * (max_norm / norm)), grad_tree)


class JoinPoint:
    """Marks the boundary between the parameter tree and one leaf's state tree."""

    def __init__(self, subtree):
        self.subtree = subtree

    def __iter__(self):
        yield self.subtree


def unpack_optimizer_state(opt_state):
    """An ``OptimizerState`` as the parameter tree with a ``JoinPoint`` holding each
    leaf's state (a plain pytree, for serialization).

        marked = unpack_optimizer_state(opt_state)
        opt_state = pack_optimizer_state(marked)
    """
    states_flat, tree_def, subtree_defs = opt_state
    subtrees = map(tree_util.tree_unflatten, subtree_defs, states_flat)
    return tree_util.tree_unflatten(tree_def, [JoinPoint(s) for s in subtrees])


def pack_optimizer_state(marked_pytree):
    """The inverse of ``unpack_optimizer_state``.

        opt_state = pack_optimizer_state(unpack_optimizer_state(opt_state))
    """
    sentinels, tree_def = tree_util.tree_flatten(marked_pytree)
    bad = [type(s).__name__ for s in sentinels if not isinstance(s, JoinPoint)]
    if bad:
        raise TypeError(f"irax.example_libraries.optimizers.pack_optimizer_state: expected "
                        f"a tree whose leaves are all JoinPoints, got leaves of type "
                        f"{bad[0]}")
    states_flat, subtree_defs = _flatten_states([s.subtree for s in sentinels])
    return OptimizerState(states_flat, tree_def, subtree_defs)
