"""One or more sample applications of every registered irax op: operands and attributes.

The registry meta-test fails for an op without a sample here, so adding an op means
adding its sample beside its tests.
"""

import ml_dtypes
import numpy as np

_r = np.random.default_rng(42)
f32 = np.float32


def _f(*shape, lo=-2.0, hi=2.0, dtype=f32):
    return _r.uniform(lo, hi, shape).astype(dtype)


def _i(*shape, lo=-9, hi=10, dtype=np.int32):
    return _r.integers(lo, hi, shape).astype(dtype)


def _b(*shape):
    return _r.integers(0, 2, shape).astype(bool)


_POS = dict(lo=0.1, hi=3.0)
_UNIT = dict(lo=-0.9, hi=0.9)

SAMPLES = {
    # constant.py
    "irax.constant": [((), dict(value=np.arange(6, dtype=f32).reshape(2, 3))),
                      ((), dict(value=np.array(True)))],
    "irax.dimension_size": [((_f(2, 3),), dict(dimension=1, dtype=np.int32))],
    # sharding.py (a one-device mesh: the registry's programs run on one device;
    # tests/parallel/test_partition.py partitions with real meshes)
    "irax.sharding_constraint": [((_f(4, 3),), dict(sharding=(("m",),), mesh_axes=("m",),
                                                   mesh_shape=(1,), devices=(0,)))],
    "irax.iota": [((), dict(shape=(2, 3), dtype=np.int32, dimension=1)),
                  ((), dict(shape=(4,), dtype=f32, dimension=0))],
    # elementwise.py, unary
    "irax.neg": [((_f(3),), {}), ((_i(4),), {})],
    "irax.abs": [((_f(3),), {}), ((_i(4),), {})],
    "irax.sign": [((np.array([-2.0, 0.0, 3.0], f32),), {}), ((_i(5),), {})],
    "irax.floor": [((_f(4),), {})],
    "irax.ceil": [((_f(4),), {})],
    "irax.round_nearest_even": [((np.array([0.5, 1.5, 2.5, -0.5, -1.7], f32),), {})],
    "irax.round_nearest_afz": [((np.array([0.5, 1.5, 2.5, -0.5, -1.7], f32),), {})],
    "irax.exp": [((_f(3, 2),), {}), ((_f(3, dtype=ml_dtypes.bfloat16),), {})],
    "irax.expm1": [((_f(3),), {})],
    "irax.log": [((_f(3, **_POS),), {})],
    "irax.log1p": [((_f(3, **_POS),), {})],
    "irax.sin": [((_f(3),), {})],
    "irax.cos": [((_f(3),), {})],
    "irax.tan": [((_f(3, **_UNIT),), {})],
    "irax.tanh": [((_f(3),), {})],
    "irax.sqrt": [((_f(3, **_POS),), {})],
    "irax.rsqrt": [((_f(3, **_POS),), {})],
    "irax.cbrt": [((_f(3),), {})],
    "irax.logistic": [((_f(3),), {})],
    "irax.not": [((_b(4),), {}), ((_i(3),), {})],
    "irax.is_finite": [((np.array([1.0, np.inf, -np.inf, np.nan], f32),), {})],
    # elementwise.py, binary
    "irax.add": [((_f(2, 3), _f(2, 3)), {}), ((_i(3), _i(3)), {})],
    "irax.sub": [((_f(3), _f(3)), {})],
    "irax.mul": [((_f(3), _f(3)), {}), ((_i(3), _i(3)), {})],
    "irax.div": [((_f(3), _f(3, **_POS)), {}),
                 ((np.array([7, -7, 7, -7, 5, 0], np.int32),
                   np.array([2, 2, -2, -2, 0, 0], np.int32)), {})],
    "irax.rem": [((_f(3), _f(3, **_POS)), {}),
                 ((np.array([7, -7, 7, -7, 5], np.int32),
                   np.array([2, 2, -2, -2, 0], np.int32)), {})],
    "irax.pow": [((_f(3, **_POS), _f(3)), {})],
    "irax.max": [((np.array([1.0, np.nan, 3.0], f32), np.array([2.0, 0.0, np.nan], f32)), {}),
                 ((_i(3), _i(3)), {})],
    "irax.min": [((np.array([1.0, np.nan, 3.0], f32), np.array([2.0, 0.0, 1.0], f32)), {})],
    "irax.atan2": [((_f(4), _f(4)), {})],
    "irax.and": [((_b(4), _b(4)), {}), ((_i(3), _i(3)), {})],
    "irax.or": [((_b(4), _b(4)), {})],
    "irax.xor": [((_i(3), _i(3)), {})],
    "irax.shift_left": [((_i(4), np.array([0, 1, 31, 40], np.int32)), {})],
    "irax.shift_right_arithmetic": [((np.array([-8, 8, -1, 5], np.int32),
                                      np.array([1, 2, 40, 0], np.int32)), {})],
    "irax.shift_right_logical": [((np.array([-8, 8, -1, 5], np.int32),
                                   np.array([1, 2, 40, 0], np.int32)), {})],
    "irax.compare": [((_f(4), _f(4)), dict(direction="LT")),
                     ((np.array([1, 2, 3], np.uint32), np.array([3, 2, 1], np.uint32)),
                      dict(direction="GE")),
                     ((np.array([1.0, np.nan], f32), np.array([1.0, np.nan], f32)),
                      dict(direction="NE"))],
    "irax.select": [((_b(3), _f(3), _f(3)), {})],
    "irax.stop_gradient": [((_f(3),), {})],
    "irax.checkpoint_name": [((_f(3),), dict(name="h"))],
    "irax.transfer": [((_f(3),), dict(device=0)),
                      ((np.arange(3, dtype=np.uint32),), dict(device=0))],
    "irax.real": [((np.array([1 + 2j, -3j], np.complex64),), {})],
    "irax.imag": [((np.array([1 + 2j, -3j], np.complex64),), {})],
    "irax.complex": [((_f(3), _f(3)), {})],
    "irax.convert": [((np.array([1.7, -1.7, 3e9, -3e9, np.nan, np.inf], f32),),
                      dict(new_dtype=np.int32)),
                     ((_i(3),), dict(new_dtype=f32)),
                     ((np.array([0.0, 2.0], f32),), dict(new_dtype=np.bool_)),
                     ((np.array([300, -1], np.int32),), dict(new_dtype=np.int8))],
}

#: ops tested elsewhere because they reference other functions (calls, transformations,
#: custom rules: tests/autodiff, tests/lit) or terminate regions
NO_SAMPLE = {"irax.call", "irax.return", "irax.jvp", "irax.vjp", "irax.grad",
             "irax.value_and_grad", "irax.custom_jvp_call", "irax.custom_vjp_call",
             "irax.checkpoint", "irax.vmap", "irax.pmap", "irax.shard_map",
             # region ops: tests/control and tests/lit/control
             "irax.while", "irax.cond", "irax.scan"}
# collectives need an enclosing vmap over their axis: tests/vectorize/test_vmap_api.py
NO_SAMPLE |= {f"irax.{n}" for n in ("psum", "pmax", "pmin", "all_gather", "psum_scatter",
                                    "all_to_all", "ppermute", "axis_index")}

SAMPLES.update({
    # shape.py
    "irax.broadcast_in_dim": [((_f(3),), dict(shape=(2, 3), broadcast_dimensions=(1,))),
                              ((_f(3, 1),), dict(shape=(3, 4, 2), broadcast_dimensions=(0, 2)))],
    "irax.reshape": [((_f(2, 3),), dict(new_sizes=(3, 2))), ((_f(4),), dict(new_sizes=(2, 1, 2)))],
    "irax.transpose": [((_f(2, 3, 4),), dict(permutation=(2, 0, 1)))],
    "irax.slice": [((_f(5, 6),), dict(start_indices=(1, 0), limit_indices=(4, 6),
                                      strides=(2, 3)))],
    "irax.concatenate": [((_f(2, 3), _f(1, 3)), dict(dimension=0)),
                         ((_i(2, 1), _i(2, 2), _i(2, 3)), dict(dimension=1))],
    "irax.pad": [((_f(2, 3), np.array(9.0, f32)),
                  dict(edge_padding_low=(1, -1), edge_padding_high=(0, 2),
                       interior_padding=(1, 0)))],
    "irax.reverse": [((_f(2, 3),), dict(dimensions=(1,))),
                     # unsigned: IREE 3.13 compiles it only as signless integers
                     ((np.arange(6, dtype=np.uint16).reshape(2, 3),), dict(dimensions=(0, 1)))],
    "irax.dynamic_slice": [((_f(5, 4), np.array(3, np.int32), np.array(-1, np.int32)),
                            dict(slice_sizes=(3, 2)))],
    "irax.dynamic_update_slice": [((_f(5, 4), _f(2, 2), np.array(4, np.int32),
                                    np.array(1, np.int32)), {})],
    "irax.gather": [((_f(5, 3), np.array([[0], [4], [7], [-2]], np.int32)),
                     dict(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,),
                          slice_sizes=(1, 3), index_vector_dim=1))],
    "irax.scatter_add": [
        # duplicate and out-of-bounds starts (dropped windows)
        ((_f(5, 3), np.array([[0], [4], [7], [-2], [4]], np.int32), _f(5, 3)),
         dict(update_window_dims=(1,), inserted_window_dims=(0,),
              scatter_dims_to_operand_dims=(0,), index_vector_dim=1)),
        # an implicit index vector, a 2-d window, a partly out-of-bounds window
        ((_f(4, 6), np.array([2, 5, -1], np.int32), _f(3, 4, 2)),
         dict(update_window_dims=(1, 2), inserted_window_dims=(),
              scatter_dims_to_operand_dims=(1,), index_vector_dim=1)),
        # batching dims
        ((_f(2, 5, 3), _i(2, 4, 1, lo=0, hi=5), _f(2, 4, 3)),
         dict(update_window_dims=(2,), inserted_window_dims=(1,),
              scatter_dims_to_operand_dims=(1,), index_vector_dim=2,
              input_batching_dims=(0,), scatter_indices_batching_dims=(0,))),
        ((_i(4), np.array([[1], [1], [3]], np.int32), _i(3)),
         dict(update_window_dims=(), inserted_window_dims=(0,),
              scatter_dims_to_operand_dims=(0,), index_vector_dim=1))],
    # reduction.py
    "irax.reduce_sum": [((_f(3, 4),), dict(axes=(1,))), ((_i(2, 3),), dict(axes=(0, 1)))],
    "irax.reduce_max": [((np.array([[1.0, np.nan], [2.0, 3.0]], f32),), dict(axes=(1,)))],
    "irax.reduce_min": [((_i(3, 4),), dict(axes=(0,)))],
    "irax.reduce_prod": [((_f(3, 4, lo=0.5, hi=1.5),), dict(axes=(0, 1)))],
    "irax.reduce_and": [((_b(3, 4),), dict(axes=(1,)))],
    "irax.reduce_or": [((_b(3, 4),), dict(axes=(0,)))],
    "irax.argmax": [((np.array([[1.0, 3.0, 3.0], [np.nan, 1.0, np.nan]], f32),),
                     dict(axis=1, index_dtype=np.int32))],
    "irax.argmin": [((_i(4, 3, lo=0, hi=3),), dict(axis=0, index_dtype=np.int32))],
    # linalg.py
    "irax.dot_general": [((_f(2, 3), _f(3, 4)),
                          dict(lhs_contracting_dimensions=(1,), rhs_contracting_dimensions=(0,))),
                         ((_f(5, 2, 3), _f(5, 3, 4)),
                          dict(lhs_contracting_dimensions=(2,), rhs_contracting_dimensions=(1,),
                               lhs_batch_dimensions=(0,), rhs_batch_dimensions=(0,))),
                         ((_i(2, 3), _i(4, 3)),
                          dict(lhs_contracting_dimensions=(1,), rhs_contracting_dimensions=(1,)))],
})

SAMPLES.update({
    # random.py: Random123's known-answer vectors (one per lane: k0, k1, x0, x1)
    "irax.threefry2x32": [(tuple(np.array(v, np.uint32) for v in (
        [0, 0xFFFFFFFF, 0x13198A2E], [0, 0xFFFFFFFF, 0x03707344],
        [0, 0xFFFFFFFF, 0x243F6A88], [0, 0xFFFFFFFF, 0x85A308D3])), {}),
        ((np.full((2, 3), 42, np.uint32), np.arange(6, dtype=np.uint32).reshape(2, 3),
          np.zeros((2, 3), np.uint32), np.arange(6, dtype=np.uint32).reshape(2, 3)), {})],
})

_SORT_KEYS = np.array([[3.0, np.nan, -0.0, 1.0, 0.0], [-np.inf, 2.0, 2.0, -np.nan, 0.0]], f32)
SAMPLES.update({
    # sorting.py: NaNs last, -0.0 == 0.0 (stable), lexicographic keys, complex, unstable
    "irax.sort": [((_SORT_KEYS,), dict(dimension=1, is_stable=True)),
                  ((_i(6, lo=0, hi=2), _f(6), _i(6)), dict(dimension=0, is_stable=True,
                                                           num_keys=2)),
                  ((_i(3, 4, lo=0, hi=3), _f(3, 4)), dict(dimension=0, is_stable=True)),
                  ((np.array([1 + 2j, 1 + 1j, np.nan, -1j], np.complex64),
                    np.array([2.0, -0.0, 0.5, 2.0], ml_dtypes.bfloat16)),
                   dict(dimension=0, is_stable=True)),
                  # unstable: keys far enough apart that the batching tests' perturbations
                  # (+-2) keep them distinct, so the order is unique
                  ((np.array([50, 0, 30, 90], np.uint8), _b(4)), dict(dimension=0,
                                                                      is_stable=False))],
})

_PTS = dict(update_window_dims=(), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,),
            index_vector_dim=1)
_ROWS = dict(update_window_dims=(1,), inserted_window_dims=(0,),
             scatter_dims_to_operand_dims=(0,), index_vector_dim=1)
SAMPLES.update({
    # scatter.py, the other combiners: duplicate and out-of-bounds starts, rows, bool
    "irax.scatter": [
        ((_f(6), np.array([[0], [4], [4], [9], [-3]], np.int32), _f(5)), _PTS),
        ((_b(4, 3), np.array([[3], [0], [6]], np.int32), _b(3, 3)), _ROWS)],
    "irax.scatter_mul": [
        ((_f(5, 3), np.array([[1], [4], [8]], np.int32), _f(3, 3)),
         dict(_ROWS, unique_indices=True)),
        ((_i(6), np.array([[2], [2], [-1], [5]], np.int32), _i(4)), _PTS)],
    "irax.scatter_min": [
        ((_f(6), np.array([[1], [1], [3], [12], [5]], np.int32), _f(5)), _PTS)],
    "irax.scatter_max": [
        ((_f(5, 3), np.array([[0], [3], [0], [-4]], np.int32), _f(4, 3)), _ROWS),
        ((_b(5), np.array([[1], [2], [2]], np.int32), _b(3)), _PTS)],
})


def _c(*shape):
    return (_f(*shape) + 1j * _f(*shape)).astype(np.complex64)


SAMPLES.update({
    # fft.py: every fft_type; power-of-two (stablehlo.fft) and other lengths, 1-d and 2-d
    "irax.fft": [((_c(2, 4, 3),), dict(fft_type="FFT", fft_lengths=(4, 3))),
                 ((_c(3, 5),), dict(fft_type="IFFT", fft_lengths=(5,))),
                 ((_f(2, 6),), dict(fft_type="RFFT", fft_lengths=(6,))),
                 ((_f(2, 3, 8),), dict(fft_type="RFFT", fft_lengths=(3, 8))),
                 ((_c(2, 4),), dict(fft_type="IRFFT", fft_lengths=(6,))),
                 ((_c(3, 3),), dict(fft_type="IRFFT", fft_lengths=(3, 4)))],
})


def _herm(*shape, cplx=False):
    x = _c(*shape) if cplx else _f(*shape)
    return (x + np.conj(np.swapaxes(x, -1, -2))) / 2


SAMPLES.update({
    # linalg_spectral.py: eigh (lower/upper, batched, complex), svd (tall/wide, full/reduced)
    "irax.eigh": [((_herm(2, 3, 3, cplx=True),), dict(lower=False)),
                  ((_herm(4, 4),), dict(lower=True))],
    "irax.svd": [((_f(3, 3),), dict(full_matrices=True, compute_uv=True)),
                 ((_f(2, 2, 3),), dict(full_matrices=False, compute_uv=False)),
                 ((_c(3, 2),), dict(full_matrices=False, compute_uv=True))],
})


def _spd(*shape):
    a = _f(*shape)
    return (a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])).astype(f32)


SAMPLES.update({
    # linalg_decompositions.py: batched, square and not, each triangular_solve variant kind
    "irax.cholesky": [((_spd(2, 3, 3),), {})],
    "irax.triangular_solve": [
        ((_spd(3, 3), _f(3, 2)), dict(left_side=True, lower=True)),
        ((_spd(2, 3, 3), _f(2, 4, 3)), dict(left_side=False, lower=False, transpose_a=True,
                                           unit_diagonal=True))],
    "irax.lu": [((_f(2, 3, 4),), {}), ((_f(4, 3),), {})],
    "irax.lu_pivots_to_permutation": [((np.array([[2, 2, 3], [0, 3, 3]], np.int32),),
                                       dict(permutation_size=4))],
    "irax.qr": [((_f(4, 3),), dict(full_matrices=True)),
                ((_c(2, 2, 3),), dict(full_matrices=False))],
})


SAMPLES.update({
    # bitcast.py: the same width, narrower (a trailing dim added), wider (one removed)
    "irax.bitcast_convert": [((_f(2, 3),), dict(new_dtype=np.dtype(np.int32))),
                             ((_f(3),), dict(new_dtype=np.dtype(np.uint8))),
                             ((np.arange(8, dtype=np.int8).reshape(2, 4),),
                              dict(new_dtype=np.dtype(np.float32)))],
})


SAMPLES.update({
    # convolution.py: NCHW with padding, strides and both dilations; NHWC/HWIO with feature
    # groups; 1-D with batch groups
    "irax.conv_general_dilated": [
        ((_f(2, 3, 5, 4), _f(2, 3, 2, 2)),
         dict(window_strides=(1, 2), padding=(1, 0, 0, 1), lhs_dilation=(1, 1),
              rhs_dilation=(2, 1), lhs_spec=(0, 1, 2, 3), rhs_spec=(0, 1, 2, 3),
              out_spec=(0, 1, 2, 3))),
        ((_f(1, 4, 4, 4), _f(2, 2, 2, 4)),
         dict(window_strides=(1, 1), padding=(0, 0, 0, 0), lhs_dilation=(2, 1),
              rhs_dilation=(1, 1), lhs_spec=(0, 3, 1, 2), rhs_spec=(3, 2, 0, 1),
              out_spec=(0, 3, 1, 2), feature_group_count=2)),
        ((_f(4, 2, 5), _f(4, 2, 2)),
         dict(window_strides=(1,), padding=(0, 0), lhs_dilation=(1,), rhs_dilation=(1,),
              lhs_spec=(0, 1, 2), rhs_spec=(0, 1, 2), out_spec=(0, 1, 2),
              batch_group_count=2))],
})


def _win(dims, strides=None, low=None, high=None, base=None, wdil=None):
    n = len(dims)
    return dict(window_dimensions=dims, window_strides=strides or (1,) * n,
                padding_low=low or (0,) * n, padding_high=high or (0,) * n,
                base_dilation=base or (1,) * n, window_dilation=wdil or (1,) * n)


SAMPLES.update({
    # windowed.py: strides, padding (negative too), base and window dilation
    "irax.reduce_window_sum": [((_f(5),), _win((3,), low=(1,), high=(1,))),
                               ((_f(4, 5),), _win((2, 2), (2, 1), (1, -1), (0, 1), (2, 1),
                                                  (1, 2))),
                               ((_i(3, 4),), _win((2, 2)))],
    "irax.reduce_window_max": [((_f(2, 4, 4, 3),), _win((1, 2, 2, 1), (1, 2, 2, 1))),
                               ((_f(6),), _win((3,), (1,), (1,), (2,), (2,), (1,))),
                               ((_b(5),), _win((2,)))],
    "irax.reduce_window_min": [((_f(4, 3),), _win((3, 2), (1, 1), (1, 0), (1, 1))),
                               ((_i(6),), _win((3,), (2,)))],
})

SAMPLES.update({
    # lax_misc.py: float16-like, bfloat16-like and a tiny float
    "irax.reduce_precision": [((_f(2, 3),), dict(exponent_bits=5, mantissa_bits=10)),
                              ((_f(4),), dict(exponent_bits=8, mantissa_bits=7)),
                              ((_f(3),), dict(exponent_bits=3, mantissa_bits=1))],
})


def _host(name, fn):
    """A flat host function in the process's callback table (core/callbacks.py)."""
    from irax.core import callbacks

    return callbacks.register(
        lambda arrays, avals: [np.asarray(r, a.dtype) for r, a in zip(fn(*arrays), avals)],
        ("op_samples", name))


def _aval(shape, dtype):
    from irax.core.abstract import ShapedArray

    return ShapedArray(shape, np.dtype(dtype))


SAMPLES.update({
    # callback.py: host functions run by the interpreter and, compiled, as IREE imports
    "irax.debug_callback": [((_f(3),), dict(callback=_host("noop", lambda x: [])))],
    "irax.pure_callback": [((_f(2, 3),), dict(callback=_host("sin", lambda x: [np.sin(x)]),
                                              result_types=(_aval((2, 3), f32),),
                                              vmap_method="sequential")),
                           ((_f(3),), dict(callback=_host("cos", lambda x: [np.cos(x)]),
                                           result_types=(_aval((3,), f32),),
                                           vmap_method="expand_dims")),
                           ((), dict(callback=_host("seven", lambda: [7]),
                                     result_types=(_aval((), np.int32),)))],
    "irax.io_callback": [((_f(3), _i(3)), dict(
        callback=_host("split", lambda x, i: [x * 2, i + 1]),
        result_types=(_aval((3,), f32), _aval((3,), np.int32))))],
})

#: ops whose derivative rule raises by design (JAX's): host functions have no derivative
#: unless wrapped in custom_jvp (tests/runtime/test_host_callbacks.py)
NO_DERIVATIVE = {"irax.pure_callback", "irax.io_callback"}
