"""irax.scipy.special: ``jax.scipy.special``.

``logsumexp``, ``softmax`` and ``log_softmax`` here are jax.scipy.special's (softmax over
all axes by default); ``irax.nn`` has jax.nn's.
"""

from irax.scipy.special._error import (  # noqa: F401
    dawsn,
    erf,
    erfc,
    erfcx,
    erfinv,
    fresnel,
    log_ndtr,
    ndtr,
    ndtri,
    owens_t,
    wofz,
)
from irax.scipy.special._expint import exp1, expi, expn, sici, spence  # noqa: F401
from irax.scipy.special._gamma import (  # noqa: F401
    bernoulli,
    beta,
    betainc,
    betaln,
    comb,
    digamma,
    factorial,
    gamma,
    gammainc,
    gammaincc,
    gammaln,
    gammasgn,
    loggamma,
    multigammaln,
    poch,
    polygamma,
    zeta,
)
from irax.scipy.special._hyp import hyp1f1  # noqa: F401
from irax.scipy.special._misc import (  # noqa: F401
    bessel_jn,
    boxcox,
    boxcox1p,
    entr,
    expit,
    i0,
    i0e,
    i1,
    i1e,
    kl_div,
    log_softmax,
    logit,
    logsumexp,
    rel_entr,
    softmax,
    xlog1py,
    xlogy,
)
