"""The irax dialect: op classes (one file per family), registry, verifier, interpreter.

Importing this package registers every op family.
"""

from irax.dialect import (  # noqa: F401 - each import registers a family
    autodiff,
    bitcast,
    callback,
    collective,
    constant,
    control,
    control_flow,
    convolution,
    elementwise,
    fft,
    indexing,
    lax_misc,  # noqa: F401,E402 - reduce_precision
    linalg,
    linalg_decompositions,
    linalg_spectral,
    random,
    reduction,
    remat,
    scatter,
    shape,
    shard,
    sharding,
    sorting,
    transform,
    vectorize,
    windowed,
)
from irax.dialect.base import REGISTRY, Op, OpError, lookup  # noqa: F401
