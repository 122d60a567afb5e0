"""irax.nn: ``jax.nn``'s activations, softmax family, attention and initializers.

    irax.nn.relu(x); irax.nn.softmax(x, axis=-1, where=mask)
    irax.nn.gelu(x, approximate=False)
    irax.nn.dot_product_attention(q, k, v, is_causal=True)
    w = irax.nn.initializers.he_normal()(irax.random.key(0), (3, 4))

Everything is built from ``irax.numpy``/``irax.lax`` (dtypes and weak types as
``jax.nn``'s), with JAX's custom derivatives where JAX has them (relu, relu6, softmax,
log1mexp), so it runs eagerly, under ``irax.jit``, ``irax.grad`` and ``irax.vmap``.
"""

from irax.nn import initializers  # noqa: F401
from irax.nn._activations import (  # noqa: F401
    celu,
    elu,
    gelu,
    glu,
    hard_sigmoid,
    hard_silu,
    hard_swish,
    hard_tanh,
    identity,
    leaky_relu,
    log1mexp,
    log_sigmoid,
    mish,
    relu,
    relu6,
    selu,
    sigmoid,
    silu,
    soft_sign,
    softplus,
    sparse_plus,
    sparse_sigmoid,
    squareplus,
    swish,
)
from irax.nn._attention import dot_product_attention  # noqa: F401
from irax.nn._scaled import (  # noqa: F401
    get_scaled_dot_general_config,
    scaled_dot_general,
    scaled_matmul,
)
from irax.nn._softmax import (  # noqa: F401
    log_softmax,
    logmeanexp,
    logsumexp,
    one_hot,
    softmax,
    standardize,
)
from irax.numpy import tanh  # noqa: F401

__all__ = [n for n in dir() if not n.startswith("_")]
