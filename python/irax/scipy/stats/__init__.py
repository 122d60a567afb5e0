"""irax.scipy.stats: ``jax.scipy.stats``.

One module per distribution (as JAX's), each with JAX's logpdf/pdf/cdf/... functions and
semantics (dtype promotion, NaN/-inf outside the support); ``mode``, ``rankdata`` and
``sem`` (``_core.py``); ``gaussian_kde`` (``_kde.py``). The special functions come from
``irax.scipy.special`` (through ``_special.py``).
"""

# isort: off
from irax.scipy.stats import (  # noqa: F401
    bernoulli, beta, betabinom, binom, cauchy, chi2, dirichlet, expon, gamma, gennorm, geom,
    gumbel_l, gumbel_r, laplace, logistic, multinomial, multivariate_normal, nbinom, norm,
    pareto, poisson, t, truncnorm, uniform, vonmises, wrapcauchy,
)
from irax.scipy.stats._core import ModeResult, mode, rankdata, sem  # noqa: F401
from irax.scipy.stats._kde import gaussian_kde  # noqa: F401
# isort: on
