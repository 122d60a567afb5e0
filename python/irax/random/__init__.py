"""irax.random: explicit-key pseudo-random numbers, bit-for-bit with ``jax.random``.

    import irax
    key = irax.random.PRNGKey(0)                 # raw uint32[2] key (or irax.random.key(0))
    k1, k2 = irax.random.split(key)
    x = irax.random.normal(k1, (3,))             # same values as jax.random.normal

The generator is Threefry-2x32 (the ``irax.threefry2x32`` op); seeding, ``split``,
``fold_in`` and random bits follow ``irax.config.jax_threefry_partitionable`` (JAX's
partitionable derivation by default, the legacy one when False). Every sampler is built
from irax ops, so it runs eagerly, under ``irax.jit`` and under ``irax.vmap`` (map over a
batch of keys). Keys, splits and bits are bit-identical to JAX's; floats are equal or
within a few ulp (transcendental functions differ between XLA, IREE and NumPy).

Samplers with data-dependent loops (gamma and its family, poisson, binomial and
multinomial) run JAX's rejection loops as ``lax.while_loop``s under jit/vmap (a Python
loop over the same body eagerly), with JAX's key sequence and no limit on the rounds;
gamma's derivative with respect to its shape parameter is JAX's implicit one (see
``_gamma``, ``_discrete``, ``_binomial``). Sorting samplers (permutation, choice and
categorical without replacement) see ``_sort``; ``multivariate_normal`` with a traced
covariance and ``method='eigh'``/``'svd'`` see ``_matrix``. ``gumbel``, ``categorical``
and ``choice`` take JAX's ``mode`` (default from
``irax.config.jax_high_dynamic_range_gumbel``).
"""

from irax.random._binomial import binomial, multinomial  # noqa: F401
from irax.random._continuous import (  # noqa: F401
    bernoulli,
    bits,
    cauchy,
    double_sided_maxwell,
    exponential,
    gumbel,
    laplace,
    logistic,
    lognormal,
    maxwell,
    normal,
    pareto,
    rademacher,
    rayleigh,
    triangular,
    truncated_normal,
    uniform,
    wald,
    weibull_min,
)
from irax.random._discrete import (  # noqa: F401
    categorical,
    choice,
    geometric,
    permutation,
    poisson,
    randint,
)
from irax.random._gamma import (  # noqa: F401
    ball,
    beta,
    chisquare,
    dirichlet,
    f,
    gamma,
    generalized_normal,
    loggamma,
    t,
)
from irax.random._keys import (  # noqa: F401
    KeyArray,
    PRNGKey,
    clone,
    fold_in,
    key,
    key_data,
    key_impl,
    split,
    wrap_key_data,
)
from irax.random._matrix import multivariate_normal, orthogonal  # noqa: F401
from irax.transforms.placement import add_out_sharding as _add_out_sharding  # noqa: E402

# JAX 0.10's out_sharding= keyword on the samplers (the values unchanged)
_add_out_sharding(globals(), "random", (
    "ball", "bernoulli", "beta", "bits", "categorical", "cauchy", "chisquare", "dirichlet",
    "exponential", "f", "gamma", "generalized_normal", "geometric", "gumbel", "laplace",
    "loggamma", "logistic", "lognormal", "maxwell", "multivariate_normal", "normal",
    "orthogonal", "pareto", "permutation", "poisson", "rademacher", "randint", "rayleigh",
    "t", "triangular", "truncated_normal", "uniform", "wald"))

__all__ = [n for n in dir() if not n.startswith("_")]
