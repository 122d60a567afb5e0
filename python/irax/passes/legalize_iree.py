"""irax-legalize-iree: rewrite portable StableHLO into the form IREE 3.13 compiles and runs
correctly. ``irax-lower-to-stablehlo`` emits plain StableHLO; every IREE-specific detail
lives here, one pattern per quirk, each naming the IREE behaviour it avoids, so that a
pattern can be deleted when IREE is fixed (``tests/lit/legalize/`` has one file per
pattern):

- ``stablehlo.sort`` (one lowered from ``irax.sort``, which records ``irax.num_keys``):
  IREE's sort takes time quadratic in the sorted length (0.7 s at 10k elements, 70 s at
  100k), so a long one by one 32-bit key becomes a heapsort of packed (key, position)
  pairs in one dispatch on CPUs (``lowering/sort_kernel.py``; option ``sort-kernels``),
  another long one a bitonic network (``lowering/sort_network.py``); a short
  one gets an iota as its last key when stable (IREE's sort is not), copies of its operands
  (IREE sorts its operand buffers in place, iree-org/iree#24665: it overwrote arguments
  and constants), bfloat16 moved as its int16 bits (IREE drops the sign of a bfloat16 NaN
  it moves) and a barrier that reads every result (IREE keeps an unread result on the
  dispatch's stack: "exceeded stack allocation limit" from 8192 elements).
- ``stablehlo.gather``: explicit clamps of the start indices (IREE's gather does not
  clamp, StableHLO's does), the index vector moved last when it precedes a batching
  dim of the indices (IREE crashes compiling that form), and an index vector of one
  entry made implicit when the indices have dynamic sizes (IREE lowers that form through
  a static-only reshape).
- ``stablehlo.scatter``: rewritten into the one form IREE lowers in every case (index
  vectors last and never empty, no batching dims, every indexed dim inserted, windows
  full-sized). The starts must be in bounds, as irax's lowering makes them. Any region
  that applies one binary op, or returns the update (a set).
- a ``stablehlo.reduce`` summing several dimensions of a product, keeping some: two sums
  (IREE 3.13 fails to vectorize the fused "matvec_like" form for small kept sizes when an
  operand is broadcast along a summed dimension: "'vector.contract' op invalid
  accumulator/result vector shape").
- a ``stablehlo.reduce`` with several results: a barrier reads them (IREE 3.13 fails to
  compile argmax's two-result reduce when a transpose consumes it: "'linalg.yield' op
  expected number of yield values"), unless they have dynamic sizes (IREE 3.13 cannot
  compile a barrier on those: "'tensor.dim' op unexpected during shape cleanup").
- ``stablehlo.dynamic_reshape``: ``tensor.collapse_shape`` to one dimension then
  ``tensor.expand_shape`` to the result's sizes, and a ``dynamic_update_slice`` into an
  operand of dynamic sizes: ``tensor.insert_slice`` at the clamped starts
  (``lowering/dynamic_shapes.py``; IREE 3.13 marks both illegal and never converts them:
  "failed to legalize operation 'stablehlo.dynamic_reshape'").
- ``stablehlo.reverse`` and ``flow.tensor.transfer`` of unsigned integers: done on signless
  integers (IREE 3.13 fails to legalize them on unsigned tensors).
- ``stablehlo.pad`` of complex values: pads of the real and imaginary parts (IREE 3.13
  crashes compiling a complex pad: a segfault building its complex ``linalg.fill``).
- ``stablehlo.constant`` of complex128 values: ``complex`` of two float64 constants (IREE
  3.13 dies of a floating-point exception packing one of more than 16 elements).
- ``stablehlo.fft`` in float64: the same transform from matmuls, transposes and
  elementwise ops (``dialect/fft.py``'s ``lower_fft`` without ``stablehlo.fft``; IREE 3.13
  builds float32 twiddles for it: "'arith.mulf' op requires the same type for all operands
  and results").
- ``stablehlo.dot_general`` contracting a dimension of size 0: zeros (IREE 3.13's
  compiler dies of a floating-point exception on it, taking the process along), and a
  ``stablehlo.sort`` along a dimension of size 1: its operands (IREE 3.13 fails: "write
  affecting operations on global resources are restricted to workgroup distributed
  contexts"); ``lowering/degenerate.py``.
- ``stablehlo.dot_general`` of an operand converted from bool or uint8/uint16: a barrier
  between (IREE 3.13 fuses the widening into the contraction and sign-extends it: silently
  wrong results, or a failure on bool).
- ``stablehlo.power`` of floats: ``|x| ** y`` with C's sign and NaN rules put back (IREE
  3.13 computes ``exp(y * log(x))``: NaN for a negative base and an integer exponent).
- ``stablehlo.sine`` / ``cosine`` / ``tan`` of float32, float16 and bfloat16: an exact
  argument reduction and polynomials in float64 (``lowering/trig.py``; IREE 3.13's float32
  expansion reduces with one float32 ``floor``: ``sin(-1e-10)`` was ``6e-08``, ``sin(1e5)``
  8 % off, ``sin(1e30)`` ``-inf``).
- ``stablehlo.concatenate`` of booleans: done on int8 (IREE 3.13 miscompiles two i1
  concatenations of one shape in a module: both gave the first one's values, so
  ``jnp.unique(x, size=n)`` twice in one jit returned the first result twice).
- ``stablehlo.convert`` of booleans to numbers: ``select(x, 1, 0)``, and a boolean
  ``or`` / ``and`` with a splat constant folded to what it is (IREE 3.13 reduced a converted
  mask it had folded to all true to 1 per row: ``jnp.sum(m == m, -1)`` and
  ``jnp.sum(m | True, -1)`` were ``[1 1 1]``, not 4).
- a ``stablehlo.case`` branch that returns two or more values from outside the case beside
  one it computes: zeros there, and selects after the case (``lowering/case_passthrough.py``;
  IREE 3.13 fails at run time when another branch runs: "ref is null ...
  hal.buffer_view.create").
- donation: ``jax.buffer_donor`` is dropped: the caller still deletes donated arrays, but
  IREE gets no aliasing. Its ``iree.abi.output = j`` makes an argument's buffer the storage
  of result ``j`` without knowing the argument is read too: IREE 3.13 wrote results into
  it while the program still read it (a donated MLP training step returned parameters
  off by 1e-2).

Before:
    %0 = stablehlo.reverse %x, dims = [0] : tensor<4xui8>
After:
    %0 = stablehlo.bitcast_convert %x : (tensor<4xui8>) -> tensor<4xi8>
    %1 = stablehlo.reverse %0, dims = [0] : tensor<4xi8>
    %2 = stablehlo.bitcast_convert %1 : (tensor<4xi8>) -> tensor<4xui8>
"""

from __future__ import annotations

import functools

import numpy as np

from irax.core import dtypes
from irax.core.abstract import ShapedArray
from irax.core.errors import IRError
from irax.dialect import funcs, mlir
from irax.dialect import raising as R
from irax.dialect import upstream as U
from irax.dialect.fft import StableHLOFft, lower_fft
from irax.dialect.indexing import clamp_start_indices
from irax.dialect.scatter import ScatterAdd, region_combiner, scatter
from irax.dialect.sorting import NUM_KEYS, comparator, index_dtype
from irax.dialect.upstream import op_class
from irax.lowering.builder import builder_at, replace_op
from irax.lowering.case_passthrough import lift_passthrough
from irax.lowering.degenerate import empty_contraction, unit_sort
from irax.lowering.dynamic_shapes import (
    StableHLODynamicReshape,
    StableHLODynamicUpdateSlice,
    implicit_index_vector,
    legalize_dynamic_reshape,
    legalize_dynamic_update_slice,
)
from irax.lowering.product_sums import split_product_sum
from irax.lowering.sort_kernel import kernel_sort, use_kernel
from irax.lowering.sort_network import is_iota, network_sort, use_network
from irax.lowering.trig import atan2, complex_trig, sin_cos_tan
from irax.lowering.while_carries import pack_forwarded_carries
from irax.passes.registry import ModulePass, Option, register_pass

#: the argument attribute of a donated buffer (JAX's, in exported StableHLO too)
DONOR = "jax.buffer_donor"


@register_pass
class LegalizeIREE(ModulePass):
    """irax-legalize-iree: rewrite portable StableHLO for IREE 3.13 (sorts, gathers,
    scatters, multi-result reduces, unsigned reverse and transfer, donation)"""

    name = "irax-legalize-iree"
    options = {"sort-kernels": Option(bool, True, "sort long rows by one 32-bit key in one "
                                                   "dispatch (a heapsort: CPU targets)")}

    def run(self, module) -> None:
        todo = []
        patterns = PATTERNS if self.option("sort-kernels") else {
            **PATTERNS, U.StableHLOSort: functools.partial(legalize_sort, kernels=False)}

        def visit(op):
            pattern = patterns.get(op_class(op))
            if pattern is not None:
                todo.append((pattern, op))
            return mlir.ir().WalkResult.ADVANCE

        module.operation.walk(visit)
        for pattern, op in todo:
            pattern(op)


def _attr_dict(op) -> dict:
    attrs = op.attributes
    return {attrs[i].name: attrs[i].attr for i in range(len(attrs))}


# ---- sort ------------------------------------------------------------------------------------
def legalize_sort(op, kernels: bool = True) -> None:
    """A sort lowered from ``irax.sort``: a heapsort kernel when long with one 32-bit key
    (and ``kernels``), the network when long, else the stable, copied, bfloat16-safe,
    barrier-read form."""
    dimension = R.i64(op, "dimension")
    if unit_sort(op, dimension) or NUM_KEYS not in op.attributes:
        return  # (not irax's: its comparator is not known to be the total order)
    num_keys = R.i64(op, NUM_KEYS)
    is_stable = mlir.ir().BoolAttr(op.attributes["is_stable"]).value
    lb = builder_at(op)
    avals = [mlir.aval_of(v) for v in op.operands]
    moved = [_moved_as(a) for a in avals]
    operands = [_bitcast(lb, x, a, m) for x, a, m in zip(op.operands, avals, moved)]
    if kernels and use_kernel(avals[0].shape, dimension, avals[0].dtype, num_keys):
        out = kernel_sort(lb, operands, avals, moved, dimension,
                          lambda i: i > 0 and is_iota(operands[i], avals[i], dimension),
                          lambda i: bool(list(op.results[i].uses)))
    elif use_network(avals[0].shape, dimension):
        out = network_sort(lb, operands, avals, moved, num_keys, dimension)
    else:
        out = _short_sort(lb, operands, avals, moved, num_keys, dimension, is_stable)
    replace_op(op, [_bitcast(lb, r, m, a) for r, a, m in zip(out, avals, moved)])


def _short_sort(lb, operands, avals, moved, num_keys, dimension, is_stable):
    avals, moved, keys = list(avals), list(moved), list(range(num_keys))
    n = len(operands)
    if is_stable:  # IREE 3.13's sort is not stable: the position breaks ties
        size = avals[0].shape[dimension]
        index = ShapedArray(avals[0].shape,
                            index_dtype(size) if type(size) is int else np.dtype(np.int32))
        operands = [*operands, lb.iota(index, dimension)]
        keys.append(n)
        avals.append(index)
        moved.append(index)
    types = [lb.type(m) for m in moved]
    new = lb.create("stablehlo.sort", _copies(lb, operands, moved), types,
                    {"dimension": lb.i64(dimension),
                     "is_stable": lb.attr("true" if is_stable else "false")}, regions=1)
    comparator(lb, new, avals, moved, keys)
    if not avals[0].is_static:   # IREE 3.13 cannot compile a barrier of dynamic sizes
        return list(new.results)[:n]
    results = lb.create("stablehlo.optimization_barrier", list(new.results), types).results
    return list(results)[:n]


def _moved_as(aval: ShapedArray) -> ShapedArray:
    """The type a sort operand moves as: IREE 3.13 turns negative bfloat16 NaNs positive
    when it sorts or selects bfloat16 data, so bfloat16 moves as its int16 bits."""
    return aval.update(dtype=np.dtype(np.int16)) if aval.dtype.name == "bfloat16" else aval


def _bitcast(lb, x, src: ShapedArray, dst: ShapedArray):
    return x if src.dtype == dst.dtype else lb.op("stablehlo.bitcast_convert", [x], dst)


def _copies(lb, operands, avals) -> list:
    """Fresh, distinct copies of ``operands``. IREE 3.13 sorts the buffers of its operands
    in place (iree-org/iree#24665): a function argument would be overwritten, a constant
    changed for the next call (or rejected: "write affecting operations on global
    resources"), and one value passed twice fails to compile. ``select(p_i, x, 0)`` with
    predicates ``p_i`` hidden behind one barrier cannot fold or merge, and copies every
    dtype exactly."""
    pred = ShapedArray((), np.bool_)
    true = lb.constant(np.array(True))
    hidden = lb.create("stablehlo.optimization_barrier", [true] * len(operands),
                       [lb.type(pred)] * len(operands)).results

    return [lb.op("stablehlo.select", [lb.splat(p, a.update(dtype=np.dtype(np.bool_))), x,
                                       lb.splat(lb.constant(np.zeros((), a.dtype)), a)], a)
            for p, x, a in zip(hidden, operands, avals)]


# ---- gather ----------------------------------------------------------------------------------
def legalize_gather(op) -> None:
    """Explicit clamps, and the index vector last when it precedes a batching dim."""
    dn = R.fields(op, "dimension_numbers")
    sizes = R.i64s(op, "slice_sizes")
    lb = builder_at(op)
    operand, indices = op.operands
    ivd = dn.get("index_vector_dim", 0)
    batching = dn.get("start_indices_batching_dims", ())
    indices, ivd, batching = _index_vector_last(lb, indices, ivd, batching)
    start_map = dn.get("start_index_map", ())
    indices = clamp_start_indices(lb, operand, indices, start_map, sizes, ivd)
    indices = implicit_index_vector(lb, indices, ivd)
    text = (f"#stablehlo.gather<offset_dims = {list(dn.get('offset_dims', ()))}, "
            f"collapsed_slice_dims = {list(dn.get('collapsed_slice_dims', ()))}, "
            f"operand_batching_dims = {list(dn.get('operand_batching_dims', ()))}, "
            f"start_indices_batching_dims = {list(batching)}, "
            f"start_index_map = {list(start_map)}, index_vector_dim = {ivd}>")
    attrs = _attr_dict(op)
    attrs["dimension_numbers"] = lb.attr(text)
    new = lb.create("stablehlo.gather", [operand, indices], [r.type for r in op.results], attrs)
    replace_op(op, list(new.results))


def _index_vector_last(lb, start_indices, ivd, batching):
    """IREE 3.13 crashes compiling a gather whose index vector dim precedes a batching dim
    of the indices: then the index vector is moved last (batch dims keep their order, so
    the result is unchanged)."""
    si = mlir.aval_of(start_indices)
    if not any(d > ivd for d in batching):
        return start_indices, ivd, batching
    perm = [d for d in range(si.ndim) if d != ivd] + [ivd]
    moved = lb.op("stablehlo.transpose", [start_indices],
                  ShapedArray([si.shape[p] for p in perm], si.dtype), permutation=lb.i64s(perm))
    return moved, si.ndim - 1, tuple(d - (d > ivd) for d in batching)


# ---- scatter ---------------------------------------------------------------------------------
def legalize_scatter(op) -> None:
    """The scatter in the form IREE lowers in every case (``_iree_form``)."""
    combiner = region_combiner(op)
    if len(op.operands) != 3 or combiner is None:
        return
    dn = R.fields(op, "scatter_dimension_numbers")
    operand, indices, updates = op.operands
    x, u = mlir.aval_of(operand), mlir.aval_of(updates)
    if u.size == 0:
        return
    uwd = dn.get("update_window_dims", ())
    iwd = dn.get("inserted_window_dims", ())
    ibd = dn.get("input_batching_dims", ())
    size = ScatterAdd.window(x.shape, u.shape, uwd, iwd, ibd)
    lb = builder_at(op)
    operand, perm, indices, updates, text = _iree_form(
        lb, operand, indices, updates, size, dn.get("index_vector_dim", 0), uwd, iwd,
        dn.get("scatter_dims_to_operand_dims", ()), ibd,
        dn.get("scatter_indices_batching_dims", ()), combiner == ScatterAdd.combiner)
    out = scatter(lb, operand, indices, updates, text, combiner)
    replace_op(op, [_transposed(lb, out, mlir.aval_of(operand),
                              [int(i) for i in np.argsort(perm)])])


def _iree_form(lb, operand, indices, updates, size, ivd, update_window_dims,
               inserted_window_dims, scatter_dims_to_operand_dims, input_batching_dims,
               scatter_indices_batching_dims, zero_pads=True):
    """An equivalent scatter (for in-bounds starts) in the one form IREE lowers in every case:
    i32/i64 index vectors last and never empty; no batching dims (they become indexed by
    iotas); every indexed operand dim inserted, so that a window of ``n`` elements along an
    indexed dim becomes ``n`` one-element windows at consecutive starts; several indexed dims
    leading the operand; every other window full-sized (zero-padded where ``zero_pads``, as
    for an addition; otherwise a partial window's dim is indexed at 0 and spread like an
    indexed one); updates laid out as [scatter dims, window dims]. Returns the operand, its
    permutation, the indices, the updates and the dimension numbers."""
    x, si, u = (mlir.aval_of(v) for v in (operand, indices, updates))
    batch = [d for d in range(si.ndim) if d != ivd]
    indices = _index_matrix(lb, indices, si, batch, ivd, x.shape)
    # operand batching dims become inserted dims indexed by an iota of their batch dim
    indices = _append_iotas(lb, indices, [d - (d > ivd) for d in scatter_indices_batching_dims])
    sdtod = [*scatter_dims_to_operand_dims, *input_batching_dims]
    inserted = [*inserted_window_dims, *input_batching_dims]
    if not zero_pads:
        partial = [d for d in range(x.ndim) if d not in inserted and d not in sdtod
                   and size[d] < x.shape[d]]
        indices, sdtod = _append_zeros(lb, indices, len(partial)), [*sdtod, *partial]
    if not sdtod:
        indices, sdtod = _index_any_dim(lb, indices, x, inserted)
    perm = list(range(x.ndim))
    if len(sdtod) > 1:
        perm = [*sorted(sdtod), *[d for d in perm if d not in sdtod]]
    new = {d: perm.index(d) for d in perm}
    kept = [d for d in range(x.ndim) if d not in inserted]
    window_of = dict(zip(kept, update_window_dims))  # operand dim -> updates dim
    spread = [d for d in sdtod if d in window_of]
    rest = sorted((d for d in kept if d not in spread), key=new.get)
    scatter = [d for d in range(u.ndim) if d not in update_window_dims]
    order = [*scatter, *[window_of[d] for d in spread], *[window_of[d] for d in rest]]
    updates = _pad_high(lb, _transposed(lb, updates, u, order),
                        [0] * (len(scatter) + len(spread))
                        + [x.shape[d] - size[d] for d in rest])
    if spread:
        indices = _spread(lb, indices, [size[d] for d in spread],
                          [sdtod.index(d) for d in spread])
    nb = len(batch) + len(spread)
    dn = (f"#stablehlo.scatter<update_window_dims = {list(range(nb, nb + len(rest)))}, "
          f"inserted_window_dims = {sorted(new[d] for d in (*inserted, *spread))}, "
          f"scatter_dims_to_operand_dims = {[new[d] for d in sdtod]}, "
          f"index_vector_dim = {nb}>")
    return _transposed(lb, operand, x, perm), perm, indices, updates, dn


def _index_matrix(lb, indices, si, batch, ivd, shape):
    """The indices as [batch dims..., index vector] of i32 (i64 for huge operands)."""
    wide = np.dtype(np.int64 if max(shape, default=0) > np.iinfo(np.int32).max else np.int32)
    indices = _transposed(lb, indices, si, [*batch, ivd])
    if si.dtype == wide:
        return indices
    out = ShapedArray([si.shape[d] for d in (*batch, ivd)], wide)
    return lb.op("stablehlo.convert", [indices], out)


def _append_iotas(lb, indices, positions):
    """``indices`` ([B..., K]) with one more index vector entry per batch position ``p`` in
    ``positions``: the position along ``B[p]``."""
    if not positions:
        return indices
    si = mlir.aval_of(indices)
    column = ShapedArray((*si.shape[:-1], 1), si.dtype)
    iotas = [lb.op("stablehlo.iota", [], column, iota_dimension=lb.i64(p)) for p in positions]
    out = ShapedArray((*si.shape[:-1], si.shape[-1] + len(positions)), si.dtype)
    return lb.op("stablehlo.concatenate", [indices, *iotas], out,
                 dimension=lb.i64(si.ndim - 1))


def _append_zeros(lb, indices, n):
    """``indices`` ([B..., K]) with ``n`` more index vector entries, all 0."""
    if not n:
        return indices
    si = mlir.aval_of(indices)
    zeros = lb.op("stablehlo.broadcast_in_dim", [lb.constant(np.zeros((), si.dtype))],
                  ShapedArray((*si.shape[:-1], n), si.dtype), broadcast_dimensions=lb.i64s([]))
    out = ShapedArray((*si.shape[:-1], si.shape[-1] + n), si.dtype)
    return lb.op("stablehlo.concatenate", [indices, zeros], out,
                 dimension=lb.i64(si.ndim - 1))


def _index_any_dim(lb, indices, x, inserted):
    """IREE needs an index vector: a scatter without one indexes some dim at 0."""
    if x.ndim == 0:
        raise IRError("irax-legalize-iree: cannot legalize a scatter into a rank-0 operand")
    si = mlir.aval_of(indices)
    out = ShapedArray((*si.shape[:-1], 1), si.dtype)
    zero = lb.constant(np.zeros((), si.dtype))
    return (lb.op("stablehlo.broadcast_in_dim", [zero], out, broadcast_dimensions=lb.i64s([])),
            [inserted[0] if inserted else 0])


def _spread(lb, indices, counts, entries):
    """``indices`` of shape [B..., K] broadcast to [B..., *counts, K], with entry
    ``entries[j]`` of each index vector increased by the position along count ``j``."""
    si = mlir.aval_of(indices)
    nb, k = si.ndim - 1, si.shape[-1]
    offsets = np.zeros((*counts, k), si.dtype)
    for j, (n, e) in enumerate(zip(counts, entries)):
        offsets[..., e] = np.arange(n).reshape([n if i == j else 1 for i in range(len(counts))])
    out = ShapedArray((*si.shape[:-1], *counts, k), si.dtype)
    spread = lb.op("stablehlo.broadcast_in_dim", [indices], out,
                   broadcast_dimensions=lb.i64s([*range(nb), out.ndim - 1]))
    steps = lb.op("stablehlo.broadcast_in_dim", [lb.constant(offsets)], out,
                  broadcast_dimensions=lb.i64s(range(nb, out.ndim)))
    return lb.op("stablehlo.add", [spread, steps], out)


def _pad_high(lb, x, high):
    if not any(high):
        return x
    a = mlir.aval_of(x)
    out = ShapedArray([n + h for n, h in zip(a.shape, high)], a.dtype)
    zeros = [0] * a.ndim
    return lb.op("stablehlo.pad", [x, lb.constant(np.zeros((), a.dtype))], out,
                 edge_padding_low=lb.i64s(zeros), edge_padding_high=lb.i64s(high),
                 interior_padding=lb.i64s(zeros))


def _transposed(lb, x, aval, perm):
    if list(perm) == list(range(aval.ndim)):
        return x
    out = ShapedArray([aval.shape[p] for p in perm], aval.dtype)
    return lb.op("stablehlo.transpose", [x], out, permutation=lb.i64s(perm))


# ---- multi-result reduce, unsigned reverse and transfer ----------------------------------------
def legalize_reduce(op) -> None:
    """A barrier reads the used results of a reduce with several results (not of dynamic
    sizes: IREE 3.13 cannot compile a barrier on those, "'tensor.dim' op unexpected during
    shape cleanup"; its transpose failure is a compile error, never a wrong value). A sum
    over several dimensions of a product is split (``lowering/product_sums.py``)."""
    if split_product_sum(op):
        return
    used = [r for r in op.results if any(True for _ in r.uses)]
    if len(op.results) < 2 or not used or not all(mlir.aval_of(r).is_static for r in used):
        return
    lb = builder_at(op)
    barrier = lb.create("stablehlo.optimization_barrier", used, [r.type for r in used])
    barrier.move_after(op)
    for old, new in zip(used, barrier.results):
        for use in list(old.uses):
            if use.owner.operation != barrier.operation:
                use.owner.operands[use.operand_number] = new


def legalize_signless(op) -> None:
    """An op on unsigned integers done on the signless integers of the same width."""
    aval = mlir.aval_of(op.results[0])
    if aval.dtype.kind != "u":
        return
    lb = builder_at(op)
    signed = aval.update(dtype=np.dtype(f"i{aval.dtype.itemsize}"))
    x = lb.op("stablehlo.bitcast_convert", [op.operands[0]], signed)
    new = lb.create(op.name, [x], [lb.type(signed)], _attr_dict(op))
    replace_op(op, [lb.op("stablehlo.bitcast_convert", [new.results[0]], aval)])


# ---- dots of widened unsigned integers ----------------------------------------------------
class StableHLOConvert(U.UpstreamOp):
    name = "stablehlo.convert"


class StableHLOBroadcastInDim(U.UpstreamOp):
    name = "stablehlo.broadcast_in_dim"


#: ops that carry a value to a dot unchanged but for layout or width (IREE fuses through them)
class StableHLOSelect(U.UpstreamOp):
    """``stablehlo.select`` (a bool widened by ``legalize_bool_convert`` is one)."""

    name = "stablehlo.select"


_CARRIERS = (StableHLOConvert, StableHLOBroadcastInDim, U.StableHLOTranspose,
             U.StableHLOReshape)


def _widened_unsigned(value) -> bool:
    """Whether ``value`` is widened from bool or an unsigned integer narrower than 32 bits
    by a chain of converts and layout ops."""
    for _ in range(8):
        owner = value.owner
        if hasattr(owner, "operation") and op_class(owner) is StableHLOSelect and all(
                R.constant_value(v) is not None for v in owner.operands[1:]):
            return True           # a bool widened by ``legalize_bool_convert``
        if not hasattr(owner, "operation") or op_class(owner) not in _CARRIERS:
            return False
        value = owner.operands[0]
        if op_class(owner) is StableHLOConvert:
            src = mlir.aval_of(value).dtype
            if src == np.bool_ or (src.kind == "u" and src.itemsize < 4):
                return True
    return False


def legalize_unsigned_dot(op) -> None:
    """A barrier between a dot and an operand widened from bool or a narrow unsigned integer:
    IREE 3.13 fuses the widening into the contraction and then sign-extends (a uint8 200
    reads as -56: silent wrong results) or fails on bool ("'linalg.vecmat' op expected type
    of bb argument"). A dot contracting a dimension of size 0 is zeros
    (``lowering/degenerate.py``)."""
    if empty_contraction(op):
        return
    for i, x in enumerate(list(op.operands)):
        if _widened_unsigned(x):
            lb = builder_at(op)
            op.operands[i] = lb.create("stablehlo.optimization_barrier", [x],
                                       [x.type]).results[0]


# ---- complex pad, float64 fft ---------------------------------------------------------------
class StableHLOPad(U.UpstreamOp):
    """``stablehlo.pad`` (the op ``legalize_complex_pad`` rewrites)."""

    name = "stablehlo.pad"


def legalize_complex_pad(op) -> None:
    """A complex pad as a pad of the real parts and one of the imaginary parts: IREE 3.13
    crashes compiling a complex ``stablehlo.pad`` (in ``tensor.pad`` to ``linalg.fill``)."""
    out = mlir.aval_of(op.results[0])
    if not dtypes.is_complex(out.dtype):
        return
    lb = builder_at(op)
    real = dtypes.real_dtype(out.dtype)
    parts = []
    for part in ("real", "imag"):
        x, value = (lb.op(f"stablehlo.{part}", [v], mlir.aval_of(v).update(dtype=real))
                    for v in op.operands)
        parts.append(lb.create("stablehlo.pad", [x, value], [lb.type(out.update(dtype=real))],
                               _attr_dict(op)).results[0])
    replace_op(op, [lb.op("stablehlo.complex", parts, out)])


def legalize_complex128_constant(op) -> None:
    """A complex128 constant as ``complex`` of float64 constants: IREE 3.13 dies of a
    floating-point exception (in ``SizedStorageDenseElementsAttrModel::getStorageSize``)
    packing a complex128 constant of more than 16 elements."""
    out = mlir.aval_of(op.results[0])
    if out.dtype != np.complex128:
        return
    value = R.dense_value(op)
    lb = builder_at(op)
    parts = [lb.constant(p) for p in (value.real, value.imag)]
    replace_op(op, [lb.op("stablehlo.complex", parts, out)])


def legalize_fft(op) -> None:
    """A float64 FFT built without ``stablehlo.fft``, which IREE 3.13 miscompiles in float64
    (it builds float32 twiddles: "'arith.mulf' op requires the same type for all operands
    and results")."""
    x = op.operands[0]
    if dtypes.real_dtype(mlir.aval_of(x).dtype) != np.float64:
        return
    lb = builder_at(op)
    replace_op(op, [lower_fft(lb, x, R.enum(op, "fft_type"), R.i64s(op, "fft_length"),
                            native=False)])


# ---- float power of a negative base ---------------------------------------------------------
def legalize_float_power(op) -> None:
    """A float power as ``|x| ** y`` with the sign and NaN rules of C's ``pow`` put back:
    IREE 3.13 computes ``exp(y * log(x))``, so a negative base gave NaN even for an integer
    exponent (``jnp.power(-2., 3.)``, ``(-0.) ** -3.``), and ``0 ** 0`` was NaN, not 1."""
    out = mlir.aval_of(op.results[0])
    if not dtypes.is_float(out.dtype):
        return
    x, y = op.operands
    lb = builder_at(op)

    def full(value):
        return lb.full(out.shape, value, out.dtype)

    def logical(name, *xs):
        return lb.op(f"stablehlo.{name}", list(xs), out.update(dtype=np.dtype(np.bool_)))

    r = lb.op("stablehlo.power", [lb.op("stablehlo.abs", [x], out), y], out)
    y_int = lb.compare(lb.op("stablehlo.floor", [y], out), y, "EQ")
    half = lb.op("stablehlo.multiply", [y, full(0.5)], out)
    y_odd = logical("and", logical("and", y_int, logical("is_finite", y)),
                    lb.compare(lb.op("stablehlo.floor", [half], out), half, "NE"))
    bits = out.update(dtype=np.dtype(f"i{out.dtype.itemsize}"))
    sign = lb.compare(lb.op("stablehlo.bitcast_convert", [x], bits),
                      lb.full(out.shape, 0, bits.dtype), "LT")
    r = lb.op("stablehlo.select", [logical("and", sign, y_odd),
                                   lb.op("stablehlo.negate", [r], out), r], out)
    nan = logical("and", lb.compare(x, full(0), "LT"),
                  logical("and", logical("is_finite", x), logical("not", y_int)))
    r = lb.op("stablehlo.select", [nan, full(np.nan), r], out)
    one = logical("or", lb.compare(y, full(0), "EQ"), lb.compare(x, full(1), "EQ"))
    replace_op(op, [lb.op("stablehlo.select", [one, full(1), r], out)])


# ---- float32 sin, cos, tan --------------------------------------------------------------------
_TRIG = {U.StableHLOSine: "sin", U.StableHLOCosine: "cos", U.StableHLOTan: "tan",
         U.StableHLOExp: "exp"}


def legalize_trig(op) -> None:
    """A float32 (float16, bfloat16) sine, cosine or tangent as ``lowering/trig.py``'s
    float64 reduction and polynomials, and a complex64 one (or exponential) from its parts
    with those: IREE 3.13's own float32 expansion loses the argument's low bits
    (``sin(-1e-10) = 6e-08``) and large arguments entirely."""
    out = mlir.aval_of(op.results[0])
    which = _TRIG[op_class(op)]
    if out.dtype == np.complex64:
        replace_op(op, [complex_trig(builder_at(op), op.operands[0], which)])
    elif which != "exp" and dtypes.is_float(out.dtype) and out.dtype.itemsize <= 4:
        replace_op(op, [sin_cos_tan(builder_at(op), op.operands[0], which)])


def legalize_atan2(op) -> None:
    """A float32 (float16, bfloat16) ``atan2`` as ``lowering/trig.py``'s float64 one: IREE
    3.13's float32 expansion is 30 ulp off (``arctan``, ``arcsin``, ``arccos`` are built
    on it) and loses the sign of a tiny negative ``y`` (``atan2(-1e-34, -1.) = +pi``)."""
    out = mlir.aval_of(op.results[0])
    if dtypes.is_float(out.dtype) and out.dtype.itemsize <= 4:
        replace_op(op, [atan2(builder_at(op), *op.operands)])


def legalize_cbrt(op) -> None:
    """A float32 (float16, bfloat16) ``cbrt`` refined by a Newton step in float64, infinities
    and zeros passed through: IREE 3.13's float32 one is 10 ulp off and ``cbrt(inf)`` NaN."""
    out = mlir.aval_of(op.results[0])
    if not dtypes.is_float(out.dtype) or out.dtype.itemsize > 4:
        return
    (x,) = op.operands
    lb = builder_at(op)
    f64 = out.update(dtype=np.dtype(np.float64))
    y0 = lb.op("stablehlo.cbrt", [x], out)

    def op64(name, *xs):
        return lb.op(f"stablehlo.{name}", list(xs), f64)

    y, xd = lb.op("stablehlo.convert", [y0], f64), lb.op("stablehlo.convert", [x], f64)
    y2 = op64("multiply", y, y)
    step = op64("divide", op64("subtract", op64("multiply", y2, y), xd),
                op64("multiply", lb.full(out.shape, 3.0, np.float64), y2))
    refined = lb.op("stablehlo.convert", [op64("subtract", y, step)], out)
    keep = lb.op("stablehlo.or", [
        lb.op("stablehlo.not", [lb.op("stablehlo.is_finite", [x], out.update(
            dtype=np.dtype(np.bool_)))], out.update(dtype=np.dtype(np.bool_))),
        lb.compare(y0, lb.full(out.shape, 0, out.dtype), "EQ")],
        out.update(dtype=np.dtype(np.bool_)))
    replace_op(op, [lb.op("stablehlo.select", [keep, x, refined], out)])


# ---- boolean concatenate ---------------------------------------------------------------------
class StableHLOConcatenate(U.UpstreamOp):
    """``stablehlo.concatenate`` (rewritten by ``legalize_bool_concatenate``)."""

    name = "stablehlo.concatenate"


def legalize_bool_concatenate(op) -> None:
    """A boolean concatenate as an int8 one compared with 0: IREE 3.13 gave two i1
    concatenations of one shape (``concat(true, a != b)`` and ``concat(true, mask)``) the
    same result."""
    out = mlir.aval_of(op.results[0])
    if not dtypes.is_bool(out.dtype):
        return
    lb = builder_at(op)
    i8 = np.dtype(np.int8)
    parts = [lb.op("stablehlo.convert", [x], mlir.aval_of(x).update(dtype=i8))
             for x in op.operands]
    cat = lb.op("stablehlo.concatenate", parts, out.update(dtype=i8),
                dimension=op.attributes["dimension"])
    replace_op(op, [lb.compare(cat, lb.full(out.shape, 0, i8), "NE")])


# ---- boolean convert ------------------------------------------------------------------------
def legalize_bool_convert(op) -> None:
    """A boolean-to-number convert as ``select(x, 1, 0)``: IREE 3.13 folds the convert of a
    mask it knows to be all true (``x == x``, ``m | True``) so that a sum over it counts
    one element per reduced row."""
    src, out = mlir.aval_of(op.operands[0]), mlir.aval_of(op.results[0])
    if not dtypes.is_bool(src.dtype) or dtypes.is_bool(out.dtype):
        return
    lb = builder_at(op)
    ones, zeros = (lb.full(out.shape, v, out.dtype) for v in (1, 0))
    replace_op(op, [lb.op("stablehlo.select", [op.operands[0], ones, zeros], out)])


class StableHLOOr(U.UpstreamOp):
    """``stablehlo.or`` (rewritten by ``legalize_bool_splat_logic``)."""

    name = "stablehlo.or"


class StableHLOAnd(U.UpstreamOp):
    """``stablehlo.and`` (rewritten by ``legalize_bool_splat_logic``)."""

    name = "stablehlo.and"


def legalize_bool_splat_logic(op) -> None:
    """``x | True -> True``, ``x | False -> x``, ``x & False -> False``, ``x & True -> x``
    on booleans: IREE's own folding of these left a reduction whose input it no longer
    reads, and its CPU code summed one element per row of it."""
    out = mlir.aval_of(op.results[0])
    if not dtypes.is_bool(out.dtype):
        return
    absorbing = op_class(op) is StableHLOOr
    x, y = op.operands
    for value, other in ((y, x), (x, y)):
        c = R.constant_value(value)
        if c is None or c.size == 0 or not (np.all(c) or not np.any(c)):
            continue
        keep = value if bool(c.flat[0]) == absorbing else other
        if mlir.aval_of(keep) == out:
            replace_op(op, [keep])
            return


# ---- donation --------------------------------------------------------------------------------
def alias_donated_arguments(fn) -> None:
    """Drops ``jax.buffer_donor`` from the arguments: IREE 3.13 has no safe way to reuse an
    argument's buffer for a result (``iree.abi.output`` on an argument that is also read
    races with the program's reads of it; the module docstring)."""
    if "arg_attrs" in fn.attributes:
        funcs.set_entry_attrs(fn, "arg_attrs", [
            {k: v for k, v in d.items() if k != DONOR}
            for d in funcs.entry_attrs(fn, "arg_attrs")])


#: root op class -> its pattern
PATTERNS = {
    U.StableHLOSort: legalize_sort,
    U.StableHLOWhile: pack_forwarded_carries,
    U.StableHLOCase: lift_passthrough,
    U.StableHLOGather: legalize_gather,
    U.StableHLOScatter: legalize_scatter,
    U.StableHLOReduce: legalize_reduce,
    U.StableHLOReverse: legalize_signless,
    U.FlowTransfer: legalize_signless,
    U.FuncFunc: alias_donated_arguments,
    StableHLOPad: legalize_complex_pad,
    U.StableHLOConstant: legalize_complex128_constant,
    StableHLOFft: legalize_fft,
    U.StableHLODotGeneral: legalize_unsigned_dot,
    U.StableHLOPower: legalize_float_power,
    U.StableHLOSine: legalize_trig,
    U.StableHLOCosine: legalize_trig,
    U.StableHLOTan: legalize_trig,
    U.StableHLOExp: legalize_trig,
    U.StableHLOAtan2: legalize_atan2,
    U.StableHLOCbrt: legalize_cbrt,
    StableHLOConcatenate: legalize_bool_concatenate,
    StableHLOConvert: legalize_bool_convert,
    StableHLOOr: legalize_bool_splat_logic,
    StableHLOAnd: legalize_bool_splat_logic,
    StableHLODynamicReshape: legalize_dynamic_reshape,
    StableHLODynamicUpdateSlice: legalize_dynamic_update_slice,
}
