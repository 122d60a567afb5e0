"""The irax dialect: op classes (one file per family), registry, verifier, interpreter.

Importing this package registers every op family.
"""

from irax.dialect import (  # noqa: F401 - each import registers a family
    autodiff,
    bitcast,
    collective,
    constant,
    control,
    control_flow,
    elementwise,
    fft,
    indexing,
    linalg,
    linalg_decompositions,
    linalg_spectral,
    random,
    reduction,
    remat,
    scatter,
    shape,
    shard,
    sorting,
    transform,
    vectorize,
)
from irax.dialect.base import REGISTRY, Op, OpError, lookup  # noqa: F401
