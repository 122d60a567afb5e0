"""``irax.dtypes``: dtype queries and categories, named like ``jax.dtypes``.

    dtypes = irax.dtypes
    dtypes.canonicalize_dtype("float64")      # float32 unless jax_enable_x64
    dtypes.result_type(1, 2.0, return_weak_type_flag=True)   # (float32, True)
    dtypes.issubdtype(irax.random.key(0).dtype, dtypes.prng_key)   # True
"""

from irax.core.dtypes import (  # noqa: F401
    TypePromotionError,
    bfloat16,
    canonicalize_dtype,
    extended,
    finfo,
    float0,
    iinfo,
    issubdtype,
    itemsize_bits,
    prng_key,
    result_type,
    scalar_type_of,
)
