"""Optax's optimizers (``optax.sgd``, ``optax.adam``, ...): each is a :func:`chain` of
transformations ending in the learning rate, with Optax's signature, defaults and state.

    >>> import irax
    >>> import irax.numpy as jnp
    >>> from irax import optim
    >>> opt = optim.adam(learning_rate=0.1)
    >>> params = {"w": jnp.array([1.0, -2.0])}
    >>> state = opt.init(params)
    >>> grads = irax.grad(lambda p: jnp.sum(p["w"] ** 2))(params)
    >>> updates, state = opt.update(grads, state, params)
    >>> optim.apply_updates(params, updates)["w"].round(4)
    Array([ 0.9, -1.9], dtype=float32)

``learning_rate`` (and ``weight_decay`` where there is one) may be a number or a schedule,
a function of the int32 step count (see ``irax.optim.schedules``).
"""

from __future__ import annotations

from irax import numpy as jnp
from irax.optim import _transforms as T
from irax.optim._base import (
    GradientTransformationExtraArgs,
    _public,
    chain,
    identity,
    scale,
    scale_by_learning_rate,
)

__all__ = [
    "adabelief", "adafactor", "adagrad", "adam", "adamax", "adamaxw", "adamw", "amsgrad",
    "lamb", "lion", "nadam", "nadamw", "noisy_sgd", "rmsprop", "sgd", "sign_sgd",
]


@_public
def sgd(learning_rate, momentum=None, nesterov: bool = False,
        accumulator_dtype=None) -> GradientTransformationExtraArgs:
    """Stochastic gradient descent, with (Nesterov) momentum when ``momentum`` is given
    (``optax.sgd``).

    >>> opt = sgd(0.1, momentum=0.9)
    >>> opt.update(jnp.ones(2), opt.init(jnp.zeros(2)))[0]
    Array([-0.1, -0.1], dtype=float32)
    """
    first = (T.trace(decay=momentum, nesterov=nesterov, accumulator_dtype=accumulator_dtype)
             if momentum is not None else identity())
    return chain(first, scale_by_learning_rate(learning_rate))


@_public
def sign_sgd(learning_rate) -> GradientTransformationExtraArgs:
    """SGD on the signs of the gradients (``optax.sign_sgd``)."""
    return chain(T.scale_by_sign(), scale_by_learning_rate(learning_rate))


@_public
def adam(learning_rate, b1=0.9, b2=0.999, eps=1e-8, eps_root=0.0, mu_dtype=None, *,
         nesterov: bool = False) -> GradientTransformationExtraArgs:
    """Adam (``optax.adam``): ``-lr * m_hat / (sqrt(v_hat + eps_root) + eps)``.

    >>> opt = adam(0.1)
    >>> opt.update(jnp.array([3.0]), opt.init(jnp.zeros(1)))[0].round(4)
    Array([-0.1], dtype=float32)
    """
    return chain(T.scale_by_adam(b1=b1, b2=b2, eps=eps, eps_root=eps_root, mu_dtype=mu_dtype,
                                 nesterov=nesterov),
                 scale_by_learning_rate(learning_rate))


@_public
def nadam(learning_rate, b1=0.9, b2=0.999, eps=1e-8, eps_root=0.0, mu_dtype=None, *,
          nesterov: bool = True) -> GradientTransformationExtraArgs:
    """NAdam: :func:`adam` with Nesterov's look-ahead moment (``optax.nadam``)."""
    return chain(T.scale_by_adam(b1=b1, b2=b2, eps=eps, eps_root=eps_root, mu_dtype=mu_dtype,
                                 nesterov=nesterov),
                 scale_by_learning_rate(learning_rate))


@_public
def adamw(learning_rate, b1=0.9, b2=0.999, eps=1e-8, eps_root=0.0, mu_dtype=None,
          weight_decay=1e-4, mask=None, *, nesterov: bool = False
          ) -> GradientTransformationExtraArgs:
    """Adam with decoupled weight decay ``lr * weight_decay * params`` (``optax.adamw``;
    ``mask`` selects the decayed leaves)."""
    return chain(T.scale_by_adam(b1=b1, b2=b2, eps=eps, eps_root=eps_root, mu_dtype=mu_dtype,
                                 nesterov=nesterov),
                 T.add_decayed_weights(weight_decay, mask),
                 scale_by_learning_rate(learning_rate))


@_public
def nadamw(learning_rate, b1=0.9, b2=0.999, eps=1e-8, eps_root=0.0, mu_dtype=None,
           weight_decay=1e-4, mask=None, *, nesterov: bool = True
           ) -> GradientTransformationExtraArgs:
    """NAdamW: :func:`adamw` with Nesterov's look-ahead moment (``optax.nadamw``)."""
    return adamw(learning_rate, b1, b2, eps, eps_root, mu_dtype, weight_decay, mask,
                 nesterov=nesterov)


@_public
def amsgrad(learning_rate, b1=0.9, b2=0.999, eps=1e-8, eps_root=0.0, mu_dtype=None,
            bias_correction_mu: bool = True, bias_correction_nu: bool = True
            ) -> GradientTransformationExtraArgs:
    """AMSGrad: Adam with the running maximum of the second moment (``optax.amsgrad``)."""
    return chain(T.scale_by_amsgrad(b1=b1, b2=b2, eps=eps, eps_root=eps_root,
                                    mu_dtype=mu_dtype, bias_correction_mu=bias_correction_mu,
                                    bias_correction_nu=bias_correction_nu),
                 scale_by_learning_rate(learning_rate))


@_public
def adamax(learning_rate, b1=0.9, b2=0.999, eps=1e-8) -> GradientTransformationExtraArgs:
    """AdaMax, Adam with the infinity norm (``optax.adamax``)."""
    return chain(T.scale_by_adamax(b1=b1, b2=b2, eps=eps),
                 scale_by_learning_rate(learning_rate))


@_public
def adamaxw(learning_rate, b1=0.9, b2=0.999, eps=1e-8, weight_decay=1e-4,
            mask=None) -> GradientTransformationExtraArgs:
    """AdaMax with decoupled weight decay (``optax.adamaxw``)."""
    return chain(T.scale_by_adamax(b1=b1, b2=b2, eps=eps),
                 T.add_decayed_weights(weight_decay, mask),
                 scale_by_learning_rate(learning_rate))


@_public
def adabelief(learning_rate, b1=0.9, b2=0.999, eps=1e-16, eps_root=1e-16, *,
              nesterov: bool = False) -> GradientTransformationExtraArgs:
    """AdaBelief (``optax.adabelief``): Adam whose second moment is that of ``g - m``."""
    return chain(T.scale_by_belief(b1=b1, b2=b2, eps=eps, eps_root=eps_root,
                                   nesterov=nesterov),
                 scale_by_learning_rate(learning_rate))


@_public
def rmsprop(learning_rate, decay=0.9, eps=1e-8, initial_scale=0.0, eps_in_sqrt: bool = True,
            centered: bool = False, momentum=None, nesterov: bool = False,
            bias_correction: bool = False) -> GradientTransformationExtraArgs:
    """RMSProp (``optax.rmsprop``); ``centered=True`` divides by the standard deviation,
    ``momentum`` adds a trace after the learning rate."""
    pre = T.scale_by_stddev if centered else T.scale_by_rms
    return chain(pre(decay=decay, eps=eps, initial_scale=initial_scale,
                     eps_in_sqrt=eps_in_sqrt, bias_correction=bias_correction),
                 scale_by_learning_rate(learning_rate),
                 T.trace(decay=momentum, nesterov=nesterov) if momentum is not None
                 else identity())


@_public
def adagrad(learning_rate, initial_accumulator_value=0.1,
            eps=1e-7) -> GradientTransformationExtraArgs:
    """Adagrad (``optax.adagrad``): divides by the root of the summed squared gradients."""
    return chain(T.scale_by_rss(initial_accumulator_value=initial_accumulator_value, eps=eps),
                 scale_by_learning_rate(learning_rate))


@_public
def adafactor(learning_rate=None, min_dim_size_to_factor: int = 128, decay_rate=0.8,
              decay_offset=0, multiply_by_parameter_scale: bool = True,
              clipping_threshold=1.0, momentum=None, dtype_momentum=jnp.float32,
              weight_decay_rate=None, eps=1e-30, factored: bool = True,
              weight_decay_mask=None) -> GradientTransformationExtraArgs:
    """Adafactor (``optax.adafactor``): factored second moments, update clipping by block
    RMS, relative step sizes, optional momentum and weight decay."""
    tx = [T.scale_by_factored_rms(factored, decay_rate, decay_offset, min_dim_size_to_factor,
                                eps)]
    if clipping_threshold is not None:
        tx.append(T.clip_by_block_rms(clipping_threshold))
    if learning_rate is not None:
        tx.append(scale_by_learning_rate(learning_rate, flip_sign=False))
    if multiply_by_parameter_scale:
        tx.append(T.scale_by_param_block_rms())
    if momentum is not None:
        tx.append(T.ema(momentum, debias=False, accumulator_dtype=dtype_momentum))
    if weight_decay_rate is not None:
        tx.append(T.add_decayed_weights(weight_decay_rate, mask=weight_decay_mask))
    tx.append(scale(-1))
    return chain(*tx)


@_public
def lamb(learning_rate, b1=0.9, b2=0.999, eps=1e-6, eps_root=0.0, weight_decay=0.0,
         mask=None) -> GradientTransformationExtraArgs:
    """LAMB (``optax.lamb``): Adam with weight decay, rescaled by the layer trust ratio."""
    return chain(T.scale_by_adam(b1=b1, b2=b2, eps=eps, eps_root=eps_root),
                 T.add_decayed_weights(weight_decay=weight_decay, mask=mask),
                 T.scale_by_trust_ratio(),
                 scale_by_learning_rate(learning_rate))


@_public
def lion(learning_rate, b1=0.9, b2=0.99, mu_dtype=None, weight_decay=1e-3,
         mask=None) -> GradientTransformationExtraArgs:
    """Lion (``optax.lion``): the sign of an interpolated momentum, with weight decay."""
    return chain(T.scale_by_lion(b1=b1, b2=b2, mu_dtype=mu_dtype),
                 T.add_decayed_weights(weight_decay, mask),
                 scale_by_learning_rate(learning_rate))


@_public
def noisy_sgd(learning_rate, eta=0.01, gamma=0.55, key=None
              ) -> GradientTransformationExtraArgs:
    """SGD with annealed Gaussian gradient noise (``optax.noisy_sgd``)."""
    return chain(T.add_noise(eta, gamma, key), scale_by_learning_rate(learning_rate))
