"""Loss functions with Optax's names, signatures, numerics and dtypes (``optax.losses``).

With ``import irax.optim as optim``::

    loss = optim.softmax_cross_entropy_with_integer_labels(logits, labels).mean()
    grads = irax.grad(lambda p: optim.l2_loss(model(p, x), y).mean())(params)

Each loss is an elementwise or per-example function built from ``irax.numpy`` and
``irax.nn``, so it runs eagerly and under ``jit``, ``grad`` and ``vmap``; the caller
reduces over the batch (``.mean()``), as with Optax. Bad inputs raise an error naming the
function, with what was expected and what was given.
"""

from __future__ import annotations

import operator

import numpy as np

from irax import nn
from irax import numpy as jnp
from irax.transforms.custom_derivatives import custom_jvp

__all__ = [
    "cosine_distance",
    "cosine_similarity",
    "hinge_loss",
    "huber_loss",
    "kl_divergence",
    "kl_divergence_with_log_targets",
    "l2_loss",
    "log_cosh",
    "poly_loss_cross_entropy",
    "safe_softmax_cross_entropy",
    "sigmoid_binary_cross_entropy",
    "smooth_labels",
    "softmax_cross_entropy",
    "softmax_cross_entropy_with_integer_labels",
    "squared_error",
]


def _check_dtype(fun: str, arg: str, x, kind: type) -> None:
    """Optax's ``check_subdtype``: ``x``'s dtype must be a floating (or integer) type."""
    dtype = jnp.result_type(x)
    if not jnp.issubdtype(dtype, kind):
        what = "a floating" if kind is jnp.floating else "an integer"
        raise TypeError(f"irax.optim.{fun}: expected {arg} of {what} dtype, got {dtype}")


def _check_same_shape(fun: str, a, b) -> None:
    if np.shape(a) != np.shape(b):
        raise ValueError(f"irax.optim.{fun}: expected predictions and targets of the same "
                         f"shape, got {np.shape(a)} and {np.shape(b)}")


def _errors(fun: str, predictions, targets):
    _check_dtype(fun, "predictions", predictions, jnp.floating)
    predictions = jnp.asarray(predictions)
    return predictions if targets is None else predictions - targets


# -- regression -------------------------------------------------------------------------


def squared_error(predictions, targets=None):
    """Elementwise ``(predictions - targets) ** 2`` (``optax.squared_error``).

    ``targets`` (same shape as ``predictions``) defaults to zeros; the mean squared error
    is ``squared_error(p, t).mean()``.

        >>> squared_error(jnp.array([1.0, 2.0]), jnp.array([0.0, 4.0]))
        Array([1., 4.], dtype=float32)
    """
    _check_dtype("squared_error", "predictions", predictions, jnp.floating)
    if targets is not None:
        _check_same_shape("squared_error", predictions, targets)
    return _errors("squared_error", predictions, targets) ** 2


def l2_loss(predictions, targets=None):
    """Elementwise ``0.5 * (predictions - targets) ** 2`` (``optax.l2_loss``).

        >>> l2_loss(jnp.array([2.0]))
        Array([2.], dtype=float32)
    """
    _check_dtype("l2_loss", "predictions", predictions, jnp.floating)
    return 0.5 * squared_error(jnp.asarray(predictions), targets)


def huber_loss(predictions, targets=None, *, delta=1.0):
    """Elementwise Huber loss: quadratic for ``|e| <= delta``, linear beyond
    (``optax.huber_loss``).

        >>> huber_loss(jnp.array([0.5, 3.0]))
        Array([0.125, 2.5  ], dtype=float32)
    """
    abs_errors = jnp.abs(_errors("huber_loss", predictions, targets))
    quadratic = jnp.minimum(abs_errors, delta)
    return 0.5 * quadratic ** 2 + delta * (abs_errors - quadratic)


def log_cosh(predictions, targets=None):
    """Elementwise ``log(cosh(predictions - targets))``, computed stably as
    ``logaddexp(e, -e) - log 2`` (``optax.log_cosh``).

        >>> log_cosh(jnp.array([0.0]))
        Array([0.], dtype=float32)
    """
    errors = _errors("log_cosh", predictions, targets)
    return jnp.logaddexp(errors, -errors) - jnp.log(2.0).astype(errors.dtype)


def cosine_similarity(predictions, targets, *, epsilon=0.0, axis=-1, where=None):
    """Cosine of the angle between ``predictions`` and ``targets`` along ``axis``; each
    squared norm is clipped below at ``epsilon`` (``optax.cosine_similarity``).

        >>> cosine_similarity(jnp.array([1.0, 0.0]), jnp.array([1.0, 1.0]))
        Array(0.70710677, dtype=float32)
    """
    _check_dtype("cosine_similarity", "predictions", predictions, jnp.floating)
    _check_dtype("cosine_similarity", "targets", targets, jnp.floating)
    a, b = jnp.asarray(predictions), jnp.asarray(targets)
    a_norm = jnp.sqrt(jnp.square(a).sum(axis=axis, where=where, keepdims=True).clip(epsilon))
    b_norm = jnp.sqrt(jnp.square(b).sum(axis=axis, where=where, keepdims=True).clip(epsilon))
    return ((a / a_norm) * (b / b_norm)).sum(axis=axis, where=where)


def cosine_distance(predictions, targets, *, epsilon=0.0, axis=-1, where=None):
    """``1 - cosine_similarity(predictions, targets)`` (``optax.cosine_distance``).

        >>> cosine_distance(jnp.array([1.0, 0.0]), jnp.array([0.0, 1.0]))
        Array(1., dtype=float32)
    """
    _check_dtype("cosine_distance", "predictions", predictions, jnp.floating)
    _check_dtype("cosine_distance", "targets", targets, jnp.floating)
    return 1.0 - cosine_similarity(predictions, targets, epsilon=epsilon, axis=axis,
                                   where=where)


# -- classification ---------------------------------------------------------------------


def sigmoid_binary_cross_entropy(logits, labels):
    """Elementwise ``-y log sigmoid(x) - (1 - y) log sigmoid(-x)``: independent binary
    predictions (``optax.sigmoid_binary_cross_entropy``). ``labels`` are cast to the
    logits' dtype.

        >>> sigmoid_binary_cross_entropy(jnp.array([0.0]), jnp.array([1]))
        Array([0.6931472], dtype=float32)
    """
    _check_dtype("sigmoid_binary_cross_entropy", "logits", logits, jnp.floating)
    logits = jnp.asarray(logits)
    labels = jnp.astype(labels, logits.dtype)
    return -labels * nn.log_sigmoid(logits) - (1.0 - labels) * nn.log_sigmoid(-logits)


def hinge_loss(predictor_outputs, targets):
    """Elementwise ``max(0, 1 - outputs * targets)`` for targets in {-1, 1}
    (``optax.hinge_loss``).

        >>> hinge_loss(jnp.array([0.5, 2.0]), jnp.array([1.0, -1.0]))
        Array([0.5, 3. ], dtype=float32)
    """
    return jnp.maximum(0, 1 - jnp.asarray(predictor_outputs) * targets)


def _masked_axis(where, logits, axis):
    """A ``where`` of the batch shape gets the class axes back (as Optax does)."""
    if where is not None and jnp.ndim(where) != jnp.ndim(logits):
        where = jnp.expand_dims(where, axis)
    return where


def softmax_cross_entropy(logits, labels, axis=-1, where=None):
    """``-sum(labels * log_softmax(logits))`` over ``axis``, for label distributions
    (one-hot or soft) (``optax.softmax_cross_entropy``).

    ``where`` masks classes out (shape ``logits.shape``, or the batch shape to mask whole
    examples).

        >>> softmax_cross_entropy(jnp.array([[1.2, -0.8, -0.5]]), jnp.array([[1.0, 0, 0]]))
        Array([0.27612972], dtype=float32)
    """
    _check_dtype("softmax_cross_entropy", "logits", logits, jnp.floating)
    logits = jnp.asarray(logits)
    where = _masked_axis(where, logits, axis)
    log_probs = nn.log_softmax(logits, axis, where)
    return -(labels * log_probs).sum(axis, where=where)


def _canonical_axes(fun: str, axes, ndim: int) -> tuple[int, ...]:
    out = []
    for a in axes:
        a = operator.index(a)
        if not -ndim <= a < ndim:
            raise ValueError(f"irax.optim.{fun}: expected axis in [{-ndim}, {ndim}) for logits "
                             f"of rank {ndim}, got {a}")
        out.append(a % ndim)
    return tuple(out)


def softmax_cross_entropy_with_integer_labels(logits, labels, axis=-1, where=None):
    """Softmax cross entropy for integer class ``labels``:
    ``logsumexp(logits) - logits[label]`` over ``axis``
    (``optax.softmax_cross_entropy_with_integer_labels``).

    ``labels`` has the batch shape (``logits.shape`` without ``axis``). With a tuple
    ``axis`` a label is a flat index into the ``logits[axis]`` slice. Masked-out
    examples (``where`` all false) give 0.

        >>> softmax_cross_entropy_with_integer_labels(jnp.array([[1.2, -0.8, -0.5]]),
        ...                                           jnp.array([0]))
        Array([0.27612972], dtype=float32)
    """
    fun = "softmax_cross_entropy_with_integer_labels"
    _check_dtype(fun, "logits", logits, jnp.floating)
    _check_dtype(fun, "labels", labels, jnp.integer)
    logits = jnp.asarray(logits)
    where = _masked_axis(where, logits, axis)
    if isinstance(axis, int):
        axis = _canonical_axes(fun, (axis,), logits.ndim)[0]
    elif isinstance(axis, tuple):
        # class axes moved to the end (in their order) and flattened into one
        class_axes = _canonical_axes(fun, axis, logits.ndim)
        batch_axes = tuple(d for d in range(logits.ndim) if d not in class_axes)
        axis = len(batch_axes)
        logits = logits.transpose(batch_axes + class_axes)
        logits = logits.reshape(logits.shape[:axis] + (-1,))
        if where is not None:
            where = jnp.asarray(where).transpose(batch_axes + class_axes)
            where = where.reshape(where.shape[:axis] + (-1,))
    else:
        raise TypeError(f"irax.optim.{fun}: expected axis of type int or tuple[int, ...], "
                        f"got {type(axis).__name__}")
    batch_shape = logits.shape[:axis] + logits.shape[axis + 1:]
    _check_label_shape(fun, np.shape(labels), batch_shape)
    labels = jnp.broadcast_to(labels, batch_shape)
    # only the labels' logits lose the normalizer (Optax's numerics)
    label_logits = jnp.take_along_axis(logits, jnp.expand_dims(labels, axis), axis=axis)
    out = nn.logsumexp(logits, axis=axis, where=where) - label_logits.take(0, axis=axis)
    if where is not None:
        out = jnp.where(jnp.any(where, axis), out, 0.0)
    return out


def _check_label_shape(fun: str, got: tuple, batch_shape: tuple) -> None:
    try:
        ok = len(got) == len(batch_shape) and np.broadcast_shapes(got, batch_shape) == \
            batch_shape
    except ValueError:
        ok = False
    if not ok:
        raise ValueError(f"irax.optim.{fun}: expected labels of shape {batch_shape} (the "
                         f"logits' shape without the class axes), got {got}")


def _weighted_log_softmax_impl(x, weights):
    log_p = nn.log_softmax(x, axis=-1)
    return jnp.where(weights != 0.0, weights * log_p, jnp.zeros_like(log_p))


_weighted_log_softmax = custom_jvp(_weighted_log_softmax_impl)


def _weighted_log_softmax_jvp(primals, tangents):
    (x, weights), (dx, dweights) = primals, tangents
    log_p = nn.log_softmax(x, axis=-1)
    out = jnp.where(weights != 0.0, weights * log_p, jnp.zeros_like(log_p))
    dx_mean = jnp.sum(dx * nn.softmax(x, axis=-1), axis=-1, keepdims=True)
    return out, weights * dx - weights * dx_mean + dweights * log_p


_weighted_log_softmax.defjvp(_weighted_log_softmax_jvp)


def safe_softmax_cross_entropy(logits, labels):
    """Softmax cross entropy over the last axis that takes ``0 * log 0`` as 0, so a
    ``-inf`` logit with label 0 gives a finite loss and gradient
    (``optax.safe_softmax_cross_entropy``).

        >>> safe_softmax_cross_entropy(jnp.array([0.0, -jnp.inf]), jnp.array([1.0, 0.0]))
        Array(-0., dtype=float32)
    """
    _check_dtype("safe_softmax_cross_entropy", "logits", logits, jnp.floating)
    logits = jnp.asarray(logits)
    labels = jnp.broadcast_to(jnp.asarray(labels), logits.shape)
    return -jnp.sum(_weighted_log_softmax(logits, labels), axis=-1)


def poly_loss_cross_entropy(logits, labels, *, epsilon=2.0, axis=-1, where=None):
    """PolyLoss: ``cross_entropy + epsilon * (1 - p_t)`` over ``axis``
    (``optax.poly_loss_cross_entropy``; Leng et al. 2022).

        >>> poly_loss_cross_entropy(jnp.array([0.0, 0.0]), jnp.array([1.0, 0.0]))
        Array(1.6931472, dtype=float32)
    """
    _check_dtype("poly_loss_cross_entropy", "logits", logits, jnp.floating)
    _check_dtype("poly_loss_cross_entropy", "labels", labels, jnp.floating)
    p = nn.softmax(logits, axis=axis, where=where)
    one_minus_pt = jnp.sum(labels * (1 - p), axis=axis, where=where)
    cross_entropy = softmax_cross_entropy(logits, labels, axis=axis, where=where)
    return cross_entropy + epsilon * one_minus_pt


def kl_divergence(log_predictions, targets, axis=-1, where=None):
    """``sum(targets * (log targets - log_predictions))`` over ``axis``, with
    ``0 log 0 = 0`` (``optax.kl_divergence``).

        >>> kl_divergence(jnp.log(jnp.array([0.5, 0.5])), jnp.array([1.0, 0.0]))
        Array(0.6931472, dtype=float32)
    """
    _check_dtype("kl_divergence", "log_predictions", log_predictions, jnp.floating)
    _check_dtype("kl_divergence", "targets", targets, jnp.floating)
    targets = jnp.asarray(targets)
    loss = targets * (jnp.where(targets == 0, 0, jnp.log(targets)) - log_predictions)
    return jnp.sum(loss, axis=axis, where=where)


def kl_divergence_with_log_targets(log_predictions, log_targets, axis=-1, where=None):
    """``kl_divergence`` with the targets given as log-probabilities
    (``optax.kl_divergence_with_log_targets``).

        >>> kl_divergence_with_log_targets(jnp.zeros(2), jnp.zeros(2))
        Array(0., dtype=float32)
    """
    fun = "kl_divergence_with_log_targets"
    _check_dtype(fun, "log_predictions", log_predictions, jnp.floating)
    _check_dtype(fun, "log_targets", log_targets, jnp.floating)
    loss = jnp.exp(log_targets) * (log_targets - log_predictions)
    return jnp.sum(loss, axis=axis, where=where)


def smooth_labels(labels, alpha, *, axis=-1, where=None):
    """Label smoothing: ``(1 - alpha) * labels + alpha / num_classes``, the classes being
    those along ``axis`` (or the unmasked ones) (``optax.smooth_labels``).

        >>> smooth_labels(jnp.array([1.0, 0.0]), 0.2)
        Array([0.90000004, 0.1       ], dtype=float32)
    """
    _check_dtype("smooth_labels", "labels", labels, jnp.floating)
    labels = jnp.asarray(labels)
    if where is None:
        axes = tuple(range(labels.ndim)) if axis is None else \
            axis if isinstance(axis, tuple) else (axis,)
        num_categories = int(np.prod([labels.shape[a] for a in axes]))
    else:
        num_categories = jnp.sum(where, axis, keepdims=True)
    return (1.0 - alpha) * labels + alpha / num_categories
