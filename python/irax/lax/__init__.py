"""irax.lax: the primitive operations (``jax.lax`` compatible).

Unlike ``irax.numpy``, lax does no implicit type promotion: operands share one dtype (a Python
scalar adopts the array operand's dtype when weak promotion keeps it) and one rank, with size-1
and rank-0 operands broadcasting.
"""

from irax.lax import linalg  # noqa: F401 - jax.lax.linalg
from irax.lax._elementwise import (  # noqa: F401
    RoundingMethod,
    abs,
    add,
    atan2,
    bitwise_and,
    bitwise_not,
    bitwise_or,
    bitwise_xor,
    cbrt,
    ceil,
    clamp,
    complex,
    conj,
    convert_element_type,
    cos,
    div,
    eq,
    exp,
    exp2,
    expm1,
    floor,
    ge,
    gt,
    imag,
    integer_pow,
    is_finite,
    le,
    log,
    log1p,
    logistic,
    lt,
    max,
    min,
    mul,
    ne,
    neg,
    pow,
    real,
    rem,
    round,
    rsqrt,
    select,
    shift_left,
    shift_right_arithmetic,
    shift_right_logical,
    sign,
    sin,
    sqrt,
    square,
    sub,
    tan,
    tanh,
)
from irax.lax._fft import FftType, fft  # noqa: F401
from irax.lax._math import acos, acosh, asin, asinh, atan, atanh, cosh, sinh  # noqa: F401
from irax.lax._parallel import (  # noqa: F401
    all_gather,
    axis_index,
    pmax,
    pmean,
    pmin,
    ppermute,
    psum,
    psum_scatter,
)
from irax.lax._reduce import (  # noqa: F401
    argmax,
    argmin,
    dot,
    dot_general,
    reduce_and,
    reduce_max,
    reduce_min,
    reduce_or,
    reduce_prod,
    reduce_sum,
)
from irax.lax._shape import (  # noqa: F401
    broadcast,
    broadcast_in_dim,
    broadcasted_iota,
    concatenate,
    dynamic_slice,
    dynamic_update_slice,
    expand_dims,
    full,
    full_like,
    iota,
    pad,
    reshape,
    rev,
    slice,
    slice_in_dim,
    squeeze,
    transpose,
)
from irax.lax._sorting import sort, sort_key_val, top_k  # noqa: F401

__all__ = [n for n in dir() if not n.startswith("_")]
from irax.lax._control import (  # noqa: F401,E402
    associative_scan,
    cond,
    fori_loop,
    map,
    scan,
    select_n,
    switch,
    while_loop,
)
from irax.transforms.custom_derivatives import stop_gradient  # noqa: F401,E402
