"""irax.lax: the primitive operations (``jax.lax`` compatible).

Unlike ``irax.numpy``, lax does no implicit type promotion: operands share one dtype (a Python
scalar adopts the array operand's dtype when weak promotion keeps it) and one rank, with size-1
and rank-0 operands broadcasting.
"""

from irax.lax import linalg  # noqa: F401 - jax.lax.linalg
from irax.lax._bits import (  # noqa: F401
    bitcast_convert_type,
    clz,
    mulhi,
    nextafter,
    population_count,
    reciprocal,
    reduce,
    reduce_precision,
    reduce_xor,
)
from irax.lax._conv import (  # noqa: F401
    ConvDimensionNumbers,
    ConvGeneralDilatedDimensionNumbers,
    conv,
    conv_dimension_numbers,
    conv_general_dilated,
    conv_general_dilated_local,
    conv_general_dilated_patches,
    conv_general_permutations,
    conv_general_shape_tuple,
    conv_shape_tuple,
    conv_transpose,
    conv_transpose_shape_tuple,
    conv_with_general_padding,
)
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
from irax.lax._gather_scatter import (  # noqa: F401
    GatherDimensionNumbers,
    GatherScatterMode,
    ScatterDimensionNumbers,
    gather,
    index_take,
    scatter,
    scatter_add,
    scatter_apply,
    scatter_max,
    scatter_min,
    scatter_mul,
    scatter_sub,
)
from irax.lax._lax_types import (  # noqa: F401
    AccuracyMode,
    DotAlgorithm,
    DotAlgorithmPreset,
    DotDimensionNumbers,
    Precision,
    PrecisionLike,
    RaggedDotDimensionNumbers,
    RandomAlgorithm,
    Tolerance,
)
from irax.lax._math_complex import (  # noqa: F401
    acos,
    acosh,
    asin,
    asinh,
    atan,
    atanh,
    cosh,
    sinh,
)
from irax.lax._misc import (  # noqa: F401
    after_all,
    approx_max_k,
    approx_min_k,
    batch_matmul,
    composite,
    create_token,
    dce_sink,
    dtype,
    optimization_barrier,
    platform_dependent,
    ragged_dot,
    ragged_dot_general,
    rng_bit_generator,
    rng_uniform,
    scaled_dot,
    stage,
    with_sharding_constraint,
)
from irax.lax._parallel import (  # noqa: F401
    all_gather,
    all_to_all,
    axis_index,
    axis_size,
    pbroadcast,
    pcast,
    pmax,
    pmean,
    pmin,
    ppermute,
    precv,
    psend,
    pshuffle,
    psum,
    psum_scatter,
    pswapaxes,
    ragged_all_to_all,
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
from irax.lax._shape_more import (  # noqa: F401
    broadcast_like,
    broadcast_shapes,
    broadcast_to_rank,
    collapse,
    dynamic_index_in_dim,
    dynamic_slice_in_dim,
    dynamic_update_index_in_dim,
    dynamic_update_slice_in_dim,
    empty,
    index_in_dim,
    shape_as_value,
    split,
    stack,
    tile,
    unstack,
)
from irax.lax._solve import custom_linear_solve, custom_root  # noqa: F401
from irax.lax._sorting import sort, sort_key_val, top_k  # noqa: F401
from irax.lax._special import (  # noqa: F401
    bessel_i0e,
    bessel_i1e,
    digamma,
    erf,
    erf_inv,
    erfc,
    lgamma,
    polygamma,
    zeta,
)
from irax.lax._special_igamma import (  # noqa: F401
    betainc,
    igamma,
    igamma_grad_a,
    igammac,
    random_gamma_grad,
)
from irax.lax._windowed import (  # noqa: F401
    cumlogsumexp,
    cummax,
    cummin,
    cumprod,
    cumsum,
    padtype_to_pads,
    reduce_window,
    reduce_window_shape_tuple,
)

#: names irax implements only in part, with the reason (the compat table shows them)
__irax_partial__ = {
    "conv_general_dilated": "no out_sharding (irax shards no single op)",
    "rng_bit_generator": "Threefry-2x32 bits for every algorithm: values differ from XLA's",
    "rng_uniform": "a host counter seeds each call (each trace under jit), not XLA's state",
    "approx_max_k": "exact top_k (recall 1); aggregate_to_topk=False not distinguished",
    "approx_min_k": "exact (recall 1); aggregate_to_topk=False not distinguished",
    "ragged_dot_general": "only a ragged non-contracting lhs dimension; no group_offset",
    "ragged_dot": "no group_offset",
    "optimization_barrier": "the identity: irax's pipeline has no barrier op",
    "create_token": "tokens are Python objects: not jit arguments or results",
    "after_all": "tokens are Python objects: not jit arguments or results",
    "pcast": "the identity: irax has no varying/invariant types",
    "composite": "always runs the decomposition",
    "custom_linear_solve": "reverse mode transposes solve; transpose_solve is not used",
    "custom_root": "tangent_solve gets a dense Jacobian (one JVP per unknown)",
    "psend": "the token carries the value to the matching precv (one trace)",
    "precv": "needs the token of its matching psend",
}

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
from irax.transforms.placement import takes_out_sharding as _takes_out_sharding  # noqa: E402

# JAX 0.10's out_sharding= keyword (sharding= of full and full_like)
for _name in ("broadcast", "broadcast_in_dim", "broadcasted_iota", "dot", "dot_general",
              "ragged_dot", "ragged_dot_general", "reduce", "reduce_sum", "reshape"):
    globals()[_name] = _takes_out_sharding(globals()[_name], f"lax.{_name}")
for _name in ("full", "full_like"):
    globals()[_name] = _takes_out_sharding(globals()[_name], f"lax.{_name}",
                                           keyword="sharding")
del _name
