"""The rest of ``irax.lax``: batched and ragged contractions, approximate top-k, identities
that only matter to XLA (barriers, sharding constraints, tokens, composites), platform
dispatch and the XLA random bit generator.

    lax.batch_matmul(a, b)                     # [..., m, k] @ [..., k, n]
    lax.ragged_dot(x, w, group_sizes)          # rows of x in groups, one w per group
    lax.approx_max_k(x, 3)                     # exact here: lax.top_k
    key, bits = lax.rng_bit_generator(key, (2, 3))
"""

from __future__ import annotations

import itertools

import numpy as np

from irax.core import dtypes, tree_util
from irax.dialect import bitcast as BC
from irax.dialect import elementwise as E
from irax.dialect import random as RND
from irax.frontend.trace import bind
from irax.lax import _util as U
from irax.lax._lax_types import RaggedDotDimensionNumbers, RandomAlgorithm, canonicalize_precision
from irax.lax._reduce import dot_general, reduce_sum
from irax.lax._shape import broadcasted_iota, concatenate, slice_in_dim
from irax.lax._sorting import top_k
from irax.runtime.devices import default_backend
from irax.transforms.placement import lay_out


# ---- contractions ------------------------------------------------------------------------------
def batch_matmul(lhs, rhs, precision=None):
    """Batched matrix product over all leading dims (``jax.lax.batch_matmul``)."""
    canonicalize_precision(precision)
    la, ra = U.aval_of(lhs), U.aval_of(rhs)
    if min(la.ndim, ra.ndim) < 2:
        raise ValueError(f"Arguments to batch_matmul must be at least 2D, got {la.ndim}, "
                         f"{ra.ndim}")
    if la.ndim != ra.ndim:
        raise ValueError(f"Arguments to batch_matmul must have same ndim, got {la.ndim}, "
                         f"{ra.ndim}")
    batch = tuple(range(la.ndim - 2))
    return dot_general(lhs, rhs, (((la.ndim - 1,), (ra.ndim - 2,)), (batch, batch)))


def _group_bounds(group_sizes, g: int):
    """int32 ``(starts, ends)`` of ``g`` consecutive groups of ``group_sizes`` rows."""
    sizes = U.convert(U.as_operand(group_sizes), np.int32)
    tri = U.host_array(np.tril(np.ones((g, g), np.int32)))
    ends = dot_general(tri, sizes, (((1,), (0,)), ((), ())))
    return bind(E.Sub, ends, sizes), ends


def ragged_dot_general(lhs, rhs, group_sizes, ragged_dot_dimension_numbers, precision=None,
                       preferred_element_type=None, group_offset=None):
    """``dot_general`` where the lhs ragged dim is cut into consecutive groups of
    ``group_sizes`` rows, group ``j`` multiplying rhs group ``j``
    (``jax.lax.ragged_dot_general``; only a ragged non-contracting lhs dim)."""
    canonicalize_precision(precision)
    if group_offset is not None:
        raise NotImplementedError("irax.lax.ragged_dot_general: group_offset is not supported")
    dn = ragged_dot_dimension_numbers
    (lc, rc), (lb, rb) = dn.dot_dimension_numbers
    (lr,), (rg,) = dn.lhs_ragged_dimensions, dn.rhs_group_dimensions
    la, ra, ga = U.aval_of(lhs), U.aval_of(rhs), U.aval_of(group_sizes)
    if lr in lc or lr in lb or rg in rc or rg in rb:
        raise NotImplementedError("irax.lax.ragged_dot_general: only a ragged non-contracting "
                                  "lhs dimension (with an rhs group dimension) is supported")
    g = ra.shape[rg]
    if ga.shape != (g,):
        raise TypeError(f"ragged_dot_general: group_sizes must have shape ({g},) (the rhs group "
                        f"dimension), got {ga.shape}")
    full = dot_general(lhs, rhs, dn.dot_dimension_numbers, None, preferred_element_type)
    lfree = [d for d in range(la.ndim) if d not in lc and d not in lb]
    rfree = [d for d in range(ra.ndim) if d not in rc and d not in rb]
    row_pos = len(lb) + lfree.index(lr)
    grp_pos = len(lb) + len(lfree) + rfree.index(rg)
    fa = U.aval_of(full)
    starts, ends = _group_bounds(group_sizes, g)
    rows = broadcasted_iota(np.int32, (la.shape[lr], g), 0)
    s = U.broadcast_in_dim(starts, (la.shape[lr], g), (1,))
    e = U.broadcast_in_dim(ends, (la.shape[lr], g), (1,))
    inside = bind(E.And, bind(E.Compare, rows, s, direction="GE"),
                  bind(E.Compare, rows, e, direction="LT"))
    mask = U.broadcast_in_dim(inside, fa.shape, (row_pos, grp_pos))
    kept = bind(E.Select, mask, full, U.full(fa.shape, 0, fa.dtype))
    return reduce_sum(kept, (grp_pos,))


def ragged_dot(lhs, rhs, group_sizes, precision=None, preferred_element_type=None,
               group_offset=None):
    """``[m, k] x [g, k, n] -> [m, n]``: consecutive groups of ``group_sizes`` rows of
    ``lhs``, group ``j`` multiplied by ``rhs[j]``; rows past the groups give zeros
    (``jax.lax.ragged_dot``)."""
    dn = RaggedDotDimensionNumbers(dot_dimension_numbers=(((1,), (1,)), ((), ())),
                                   lhs_ragged_dimensions=(0,), rhs_group_dimensions=(0,))
    return ragged_dot_general(lhs, rhs, group_sizes, dn, precision, preferred_element_type,
                              group_offset)


def _scale_to(scale, shape, contracting):
    """A block scale repeated along the contracting dims up to ``shape``."""
    sa = U.aval_of(scale)
    for i in contracting:
        if sa.shape[i] != shape[i]:
            m = shape[i] // sa.shape[i]
            wide = list(sa.shape)
            wide.insert(i + 1, m)
            dims = tuple(d for d in range(len(wide)) if d != i + 1)
            scale = U.broadcast_in_dim(scale, wide, dims)
            merged = list(sa.shape)
            merged[i] *= m
            scale = U.reshape(scale, merged)
            sa = U.aval_of(scale)
    return scale


def scaled_dot(lhs, rhs, *, lhs_scale=None, rhs_scale=None, dimension_numbers=None,
               preferred_element_type=None):
    """A dot of block-scaled operands, computed in bfloat16 (``jax.lax.scaled_dot``)."""
    la = U.aval_of(lhs)
    if dimension_numbers is None:
        if la.ndim < 2:
            raise TypeError("scaled_dot does not support 0-rank and 1-rank operands.")
        n = la.ndim
        dimension_numbers = (((n - 1,), (n - 2,)), (tuple(range(n - 2)), tuple(range(n - 2))))
    (lc, rc), _ = dimension_numbers
    bf16 = dtypes.bfloat16
    out = bf16 if preferred_element_type is None else dtypes.canonicalize_dtype(
        preferred_element_type)

    def scaled(x, scale, contracting):
        x = U.convert(U.as_operand(x), bf16)
        if scale is None:
            return x
        s = _scale_to(U.as_operand(scale), U.aval_of(x).shape, contracting)
        return bind(E.Mul, x, U.convert(s, bf16))

    return dot_general(scaled(lhs, lhs_scale, lc), scaled(rhs, rhs_scale, rc),
                       dimension_numbers, None, out)


# ---- approximate top-k (exact here) ----------------------------------------------------------
def _approx_k(name, operand, k, reduction_dimension, largest):
    x = U.as_operand(operand)
    a = U.aval_of(x)
    if not dtypes.is_float(a.dtype):
        raise ValueError(f"{name}: operand must be a floating type")
    axis = U.canonicalize_axis(reduction_dimension, a.ndim)
    if k > a.shape[axis]:
        raise ValueError(f"{name}: k must be no larger than the reduction dimension size "
                         f"{a.shape[axis]}, got {k}")
    if largest:
        return top_k(x, k, axis=axis)
    vals, idx = top_k(bind(E.Neg, x), k, axis=axis)
    return bind(E.Neg, vals), idx


def approx_max_k(operand, k: int, reduction_dimension: int = -1, recall_target: float = 0.95,
                 reduction_input_size_override: int = -1, aggregate_to_topk: bool = True):
    """The ``k`` largest values along ``reduction_dimension`` and their indices
    (``jax.lax.approx_max_k``); irax returns the exact ``top_k`` (recall 1)."""
    del recall_target, reduction_input_size_override, aggregate_to_topk
    return _approx_k("approx_max_k", operand, k, reduction_dimension, True)


def approx_min_k(operand, k: int, reduction_dimension: int = -1, recall_target: float = 0.95,
                 reduction_input_size_override: int = -1, aggregate_to_topk: bool = True):
    """The ``k`` smallest values along ``reduction_dimension`` and their indices
    (``jax.lax.approx_min_k``); irax returns the exact result (recall 1)."""
    del recall_target, reduction_input_size_override, aggregate_to_topk
    return _approx_k("approx_min_k", operand, k, reduction_dimension, False)


# ---- identities for XLA ----------------------------------------------------------------------
def optimization_barrier(operand, /):
    """``operand`` (a pytree) unchanged (``jax.lax.optimization_barrier``); irax's compiler
    pipeline has no barrier to keep, so this is the identity."""
    return tree_util.tree_map(U.as_operand, operand)


def with_sharding_constraint(x, shardings):
    """``x`` laid out as ``shardings`` (a sharding, a ``PartitionSpec`` under
    ``set_mesh``, or a pytree prefix of ``x``) (``jax.lax.with_sharding_constraint``).

    Inside a traced function the shapes are checked against the shardings and each value
    gets an ``irax.sharding_constraint``, which a jit partitions by (``irax-partition``);
    outside one, the arrays are put on the devices as ``device_put`` does."""
    x = tree_util.tree_map(U.as_operand, x)
    return lay_out(x, shardings, "with_sharding_constraint", "x")


def stage(x, /):
    """``x`` as an array of the active trace, or an ``irax.Array`` (``jax.lax.stage``)."""
    return U.as_operand(x)


def dce_sink(val, *, prevent_mlir_dce: bool = False):
    """Marks ``val`` as used (``jax.lax.dce_sink``); returns None."""
    del val, prevent_mlir_dce


def dtype(x):
    """The dtype of ``x`` as irax would give it an array (``jax.lax.dtype``)."""
    if isinstance(x, (type, np.dtype, str)):
        return dtypes.canonicalize_dtype(x)
    return U.aval_of(x).dtype


class Token:
    """An XLA token ordering side effects (``jax.lax.create_token``); irax orders effects
    itself, so a token carries nothing."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "Token"


def create_token(_=None):
    """A new token (``jax.lax.create_token``)."""
    return Token()


def after_all(*operands):
    """A token after all ``operands`` (tokens) (``jax.lax.after_all``)."""
    for t in operands:
        if not isinstance(t, Token):
            raise TypeError(f"after_all: expected tokens, got {type(t).__name__}")
    return Token()


def platform_dependent(*args, default=None, **per_platform):
    """``per_platform[p](*args)`` for the platform ``p`` irax runs on, else
    ``default(*args)`` (``jax.lax.platform_dependent``)."""
    platform = default_backend()
    names = {"cpu": ("cpu",), "cuda": ("cuda", "gpu"), "rocm": ("rocm", "gpu"),
             "vulkan": ("vulkan",), "metal": ("metal",)}.get(platform, (platform,))
    for name in names:
        if name in per_platform:
            return per_platform[name](*args)
    if default is None:
        raise NotImplementedError(f"platform_dependent: no branch for platform {platform!r} "
                                  f"(got {sorted(per_platform)}) and no default")
    return default(*args)


def composite(decomposition, name: str, version: int = 0):
    """``decomposition`` as a named composite op (``jax.lax.composite``); irax always runs the
    decomposition."""
    del name, version

    def call(*args, **kwargs):
        return decomposition(*args, **kwargs)

    call.__name__ = getattr(decomposition, "__name__", "composite")
    call.__doc__ = getattr(decomposition, "__doc__", None)
    return call


# ---- random bits -----------------------------------------------------------------------------
_COUNTER = itertools.count(1)
_NEW_KEY_OFFSET = 0x80000000  # counters of the next key, past any bits drawn


def _word(k, i: int):
    return U.reshape(slice_in_dim(k, i, i + 1), ())


def _threefry_words(k0, k1, n: int, offset: int):
    """``n`` uint32 words of the Threefry-2x32 stream of key ``(k0, k1)`` from counter
    ``offset``."""
    half = max((n + 1) // 2, 1)
    hi = U.full((half,), 0, np.uint32)
    lo = bind(E.Add, broadcasted_iota(np.uint32, (half,), 0),
              U.full((half,), offset, np.uint32))
    y0, y1 = bind(RND.Threefry2x32, U.broadcast_to(k0, (half,)), U.broadcast_to(k1, (half,)),
                  hi, lo)
    return slice_in_dim(concatenate([y0, y1], 0), 0, n)


def rng_bit_generator(key, shape, dtype=np.uint32, algorithm=RandomAlgorithm.RNG_DEFAULT, *,
                      out_sharding=None):
    """``(new_key, bits)``: random unsigned bits of ``shape`` and ``dtype`` from ``key`` (a
    uint32 vector) and the next key (``jax.lax.rng_bit_generator``). irax uses Threefry-2x32
    whatever the algorithm, so the bits differ from XLA's."""
    del out_sharding
    RandomAlgorithm(algorithm)
    k = U.as_operand(key)
    ka = U.aval_of(k)
    if ka.dtype != np.uint32 or ka.ndim != 1 or ka.shape[0] < 2:
        raise TypeError(f"rng_bit_generator: key must be a uint32 vector of at least 2 "
                        f"words, got {ka.str_short()}")
    dt = dtypes.canonicalize_dtype(dtype)
    if dt not in (np.uint8, np.uint16, np.uint32):
        raise TypeError(f"rng_bit_generator: dtype must be uint8, uint16 or uint32, got "
                        f"{dtypes.short_name(dt)}")
    shape = tuple(int(d) for d in shape)
    k0, k1 = _word(k, 0), _word(k, 1)
    for i in range(2, ka.shape[0]):  # fold the remaining key words in
        k0, k1 = k1, bind(E.Xor, k0, _word(k, i))
    n = int(np.prod(shape, dtype=np.int64))
    bits = U.reshape(_threefry_words(k0, k1, n, 0), shape) if n else U.full(shape, 0, dt)
    new_key = _threefry_words(k0, k1, ka.shape[0], _NEW_KEY_OFFSET)
    return new_key, U.convert(bits, dt)


def rng_uniform(a, b, shape):
    """Uniform random numbers in ``[a, b)`` from a host counter (``jax.lax.rng_uniform``,
    XLA's stateful generator: each call, or each trace under jit, draws new numbers)."""
    a, b = U.as_operand(a), U.as_operand(b)
    aa, ba = U.aval_of(a), U.aval_of(b)
    if aa.dtype != ba.dtype or aa.ndim or ba.ndim:
        raise TypeError(f"rng_uniform: a and b must be scalars of one dtype, got "
                        f"{aa.str_short()} and {ba.str_short()}")
    key = U.host_array(np.array([next(_COUNTER), 0x9E3779B9], np.uint32))
    shape = tuple(int(d) for d in shape)
    bits = rng_bit_generator(key, shape)[1]
    one = bind(E.Or, bind(E.ShiftRightLogical, bits, U.full(shape, 9, np.uint32)),
               U.full(shape, 0x3F800000, np.uint32))
    u = bind(E.Sub, bind(BC.BitcastConvert, one, new_dtype=np.dtype(np.float32)),
             U.full(shape, 1.0, np.float32))
    lo, width = U.convert(a, np.float32), bind(E.Sub, U.convert(b, np.float32),
                                                U.convert(a, np.float32))
    r = bind(E.Add, U.broadcast_to(lo, shape), bind(E.Mul, U.broadcast_to(width, shape), u))
    if dtypes.is_int(aa.dtype):
        r = bind(E.Floor, r)
    return U.convert(r, aa.dtype)
