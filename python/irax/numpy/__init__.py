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


install_array_methods(_sys.modules[__name__])
