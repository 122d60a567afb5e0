"""irax.numpy: NumPy's API on irax arrays (``jax.numpy`` compatible).

    import irax.numpy as jnp
    jnp.sum(jnp.arange(10) ** 2)

Functions promote dtypes with JAX's lattice (weak Python scalars included), broadcast like
NumPy, and name themselves in errors: ``irax.numpy.add: incompatible shapes for
broadcasting: (3,) and (4,)``.
"""

import sys as _sys

import numpy as _np

from irax.core import dtypes as _core_dtypes
from irax.lax import _util as _lu
from irax.numpy import (
    fft,  # noqa: F401
    linalg,  # noqa: F401 - jax.numpy.linalg
)
from irax.numpy._array_methods import install_array_methods
from irax.numpy._creation import (  # noqa: F401
    arange,
    array,
    asarray,
    empty,
    empty_like,
    eye,
    full,
    full_like,
    identity,
    linspace,
    ones,
    ones_like,
    tri,
    zeros,
    zeros_like,
)
from irax.numpy._dtypes import *  # noqa: F401,F403
from irax.numpy._dtypes import bool, bool_  # noqa: F401
from irax.numpy._einsum import einsum  # noqa: F401
from irax.numpy._indexing import (  # noqa: F401
    _index,
    argwhere,
    flatnonzero,
    nonzero,
    repeat,
    take,
    where,
)
from irax.numpy._linalg import (  # noqa: F401
    diagonal,
    dot,
    inner,
    matmul,
    outer,
    tensordot,
    trace,
    vdot,
)
from irax.numpy._logic import (  # noqa: F401
    bitwise_and,
    bitwise_invert,
    bitwise_left_shift,
    bitwise_not,
    bitwise_or,
    bitwise_right_shift,
    bitwise_xor,
    clip,
    equal,
    fmax,
    fmin,
    greater,
    greater_equal,
    invert,
    isclose,
    left_shift,
    less,
    less_equal,
    logical_and,
    logical_not,
    logical_or,
    logical_xor,
    maximum,
    minimum,
    not_equal,
    right_shift,
)
from irax.numpy._logic import select_ as select  # noqa: F401
from irax.numpy._math import (  # noqa: F401
    acos,
    acosh,
    angle,
    arccos,
    arccosh,
    arcsin,
    arcsinh,
    arctan,
    arctan2,
    arctanh,
    asin,
    asinh,
    atan,
    atan2,
    atanh,
    cbrt,
    conj,
    conjugate,
    copysign,
    cos,
    cosh,
    deg2rad,
    degrees,
    exp,
    exp2,
    expm1,
    hypot,
    imag,
    isfinite,
    isinf,
    isnan,
    isneginf,
    isposinf,
    log,
    log1p,
    log2,
    log10,
    logaddexp,
    logaddexp2,
    nan_to_num,
    rad2deg,
    radians,
    real,
    rsqrt,
    signbit,
    sin,
    sinh,
    sqrt,
    tan,
    tanh,
)
from irax.numpy._reductions import (  # noqa: F401
    all,
    allclose,
    amax,
    amin,
    any,
    argmax,
    argmin,
    array_equal,
    count_nonzero,
    cummax,
    cummin,
    cumprod,
    cumsum,
    cumulative_prod,
    cumulative_sum,
    max,
    mean,
    min,
    nanmax,
    nanmean,
    nanmin,
    nanprod,
    nansum,
    prod,
    ptp,
    std,
    sum,
    var,
)
from irax.numpy._shape import (  # noqa: F401
    array_split,
    atleast_1d,
    atleast_2d,
    atleast_3d,
    broadcast_arrays,
    broadcast_shapes,
    broadcast_to,
    column_stack,
    concat,
    concatenate,
    dstack,
    expand_dims,
    flip,
    fliplr,
    flipud,
    hsplit,
    hstack,
    matrix_transpose,
    moveaxis,
    ndim,
    permute_dims,
    ravel,
    reshape,
    roll,
    shape,
    size,
    split,
    squeeze,
    stack,
    swapaxes,
    tile,
    transpose,
    vsplit,
    vstack,
)
from irax.numpy._sorting import argsort, sort  # noqa: F401
from irax.numpy._ufuncs import (  # noqa: F401
    abs,
    absolute,
    add,
    around,
    ceil,
    divide,
    divmod,
    fix,
    floor,
    floor_divide,
    fmod,
    mod,
    multiply,
    negative,
    positive,
    power,
    reciprocal,
    remainder,
    rint,
    round,
    sign,
    square,
    subtract,
    true_divide,
    trunc,
)
from irax.numpy._ufuncs import power as pow  # noqa: F401
from irax.numpy._util import check_arraylike as _check_arraylike
from irax.runtime.array import Array as ndarray  # noqa: F401

# isort: off
# Manipulation, creation, index tricks, matrices, padding, functional helpers, printing/files.
from irax.numpy._creation_more import (  # noqa: F401
    from_dlpack, frombuffer, fromfile, fromfunction, fromiter, fromstring, geomspace, logspace,
)
from irax.numpy._einsum_path import einsum_path  # noqa: F401
from irax.numpy._functional import (  # noqa: F401
    apply_along_axis, apply_over_axes, piecewise, vectorize,
)
from irax.numpy._frompyfunc import frompyfunc, ufunc  # noqa: F401
from irax.numpy._index_tricks import (  # noqa: F401
    c_, diag_indices, diag_indices_from, index_exp, indices, ix_, mask_indices, meshgrid, mgrid,
    ogrid, r_, ravel_multi_index, s_, tril_indices, tril_indices_from, triu_indices,
    triu_indices_from, unravel_index,
)
from irax.numpy._indexing_more import (  # noqa: F401
    choose, compress, extract, place, put, put_along_axis, take_along_axis,
)
from irax.numpy._io import (  # noqa: F401
    array_repr, array_str, get_printoptions, iterable, load, printoptions, save, savez,
    set_printoptions,
)
from irax.numpy._manipulation import (  # noqa: F401
    append, array_equiv, block, delete, diff, dsplit, ediff1d, insert, resize, rollaxis, rot90,
    trim_zeros, unstack,
)
from irax.numpy._manipulation import copy as copy  # `as`: not shadowed by astype's copy=
from irax.numpy._matrix import (  # noqa: F401
    diag, diagflat, fill_diagonal, kron, tril, triu, vander,
)
from irax.numpy._pad import pad  # noqa: F401
# Statistics, set operations, searching, more math, histograms.
from irax.numpy._histogram import (  # noqa: F401
    bincount, histogram, histogram2d, histogram_bin_edges, histogramdd,
)
from irax.numpy._math_array import (  # noqa: F401
    cross, gradient, interp, matvec, packbits, trapezoid, unpackbits, unwrap, vecdot, vecmat,
)
from irax.numpy._math_more import (  # noqa: F401
    bitwise_count, fabs, float_power, frexp, gcd, heaviside, i0, iscomplex, iscomplexobj, isreal,
    isrealobj, lcm, ldexp, modf, nextafter, sinc, spacing,
)
from irax.numpy._searching import (  # noqa: F401
    argpartition, digitize, lexsort, nanargmax, nanargmin, partition, searchsorted, sort_complex,
)
from irax.numpy._setops import (  # noqa: F401
    intersect1d, isin, setdiff1d, setxor1d, union1d, unique, unique_all, unique_counts,
    unique_inverse, unique_values,
)
from irax.numpy._statistics import (  # noqa: F401
    average, corrcoef, cov, median, nancumprod, nancumsum, nanmedian, nanpercentile, nanquantile,
    nanstd, nanvar, percentile, quantile,
)
from irax.numpy._signal import (  # noqa: F401
    bartlett, blackman, convolve, correlate, hamming, hanning, kaiser,
)
# The array API standard: its version, inspection namespace and cumulative functions.
from irax.numpy._array_api import (  # noqa: F401, F811 - the standard's cumulative_*
    __array_api_version__, __array_namespace_info__, cumulative_prod, cumulative_sum,
)
# Polynomials (roots, and poly of a square matrix, need eigvals: eager only).
from irax.numpy._polynomial import (  # noqa: F401
    poly, polyadd, polyder, polydiv, polyfit, polyint, polymul, polysub, polyval, roots,
)
# isort: on


def astype(x, dtype, /, *, copy: bool = False, device=None):
    """``x`` converted to ``dtype`` (a strongly typed result)."""
    _check_arraylike("astype", x)
    dt = _core_dtypes.check_user_dtype(dtype, "astype")
    if dt is None:
        dt = _lu.aval_of(x).dtype
    return _lu.convert(x, dt, weak=False)


def isscalar(element) -> bool:
    if _lu.is_python_scalar(element) or isinstance(element, _np.generic):
        return True
    return hasattr(element, "aval") and element.aval.ndim == 0


#: names whose irax version is deliberately incomplete, and why
__irax_partial__: dict[str, str] = {}
__irax_partial__.update({
    "int1": "a dtype-like only: no array holds 1-bit integers",
    "uint1": "a dtype-like only: no array holds 1-bit integers",
    "object_": "a dtype-like only: arrays of Python objects are refused, as in JAX",
})
__irax_partial__.update({
    "roots": "eager only (linalg.eigvals of the companion matrix): not under jit/vmap/grad",
    "poly": "of a square matrix eager only (its eigvals); of roots everywhere",
})


from irax.transforms.placement import add_out_sharding as _add_out_sharding  # noqa: E402

install_array_methods(_sys.modules[__name__])


# JAX 0.10's out_sharding= keyword on the functions that have it
_add_out_sharding(globals(), "jnp", (
    "arange", "array", "asarray", "broadcast_to", "dot", "einsum", "empty", "full",
    "full_like", "matmul", "ones", "ones_like", "ravel", "repeat", "reshape", "tensordot",
    "zeros", "zeros_like"))
