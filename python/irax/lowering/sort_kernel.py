"""A long sort by one 32-bit key as one dispatch: a heapsort of packed ``(key, position)``
pairs, in place, per row. What ``irax-legalize-iree`` makes of such a ``stablehlo.sort``
on CPUs (``lowering/sort_network.py`` otherwise).

The bitonic network runs log2(N) (log2(N) + 1) / 2 stages as trips of a host-driven loop,
each a gather of every element (153 stages for 100k elements: about 26 ms on 2 cores,
JAX 32 ms). Here the key becomes a signed integer whose order is the key's (a float's
bits with the negative ones flipped, -0.0 as 0.0, every NaN the largest), packed with the
element's position into one ``i64``, ``key << 32 | position``: distinct values whose
order is the stable sort's. One dispatch sorts each row of them in place (a heapsort on
scalars: no scratch buffer, O(N log N)); the positions are the low halves, and every
operand is gathered by them (an operand that is the positions itself is not).

    %packed = ...                         // tensor<1x100000xi64>
    %sorted = flow.dispatch.region -> (tensor<1x100000xi64>) {
      %copy = scf.for ... tensor.insert ...            // a buffer of the dispatch's own
      %done = scf.for %row ... {
        scf.for %s ... { scf.while (%root, %t) { child < end } do { sift down } }
        scf.for %s ... { swap t[0], t[end]; scf.while ... sift down }
      }
      flow.return %done
    }
    %positions = stablehlo.convert (stablehlo.and %sorted, 0xffffffff) ...
"""

from __future__ import annotations

import math

import numpy as np

from irax.core.abstract import ShapedArray
from irax.dialect import funcs, mlir

#: the key dtypes a kernel sorts (their order maps onto int32)
KEY_DTYPES = frozenset(np.dtype(d) for d in ("float32", "int32", "uint32", "int16",
                                              "uint16", "int8", "uint8"))
#: from this many elements a row the kernel beats the network; and the most rows it sorts
#: (one after the other, on one thread: the network sorts every row at once)
MIN_LENGTH = 4096
MAX_ROWS = 16


def use_kernel(shape, dimension: int, key_dtype, num_keys: int) -> bool:
    """Whether a sort of ``shape`` along its last ``dimension`` by one key of
    ``key_dtype`` runs as the kernel."""
    if num_keys != 1 or np.dtype(key_dtype) not in KEY_DTYPES or \
            any(type(d) is not int for d in shape) or dimension != len(shape) - 1:
        return False
    n = shape[dimension]
    return MIN_LENGTH <= n < 2 ** 31 and math.prod(shape[:-1]) <= MAX_ROWS


def _ordered_i32(lb, x, dtype):
    """``x`` as int32 values in the order the sort compares it (a total order: NaNs last,
    -0.0 equal to 0.0)."""
    shape = mlir.aval_of(x).shape
    aval = ShapedArray(shape, np.int32)

    def full(value, dt=np.int32):
        return lb.full(shape, value, np.dtype(dt))

    if dtype.kind == "f":
        bits = lb.op("stablehlo.bitcast_convert", [x], aval)
        flipped = lb.op("stablehlo.xor", [bits, full(0x7FFFFFFF)], aval)
        negative = lb.compare(bits, full(0), "LT")
        k = lb.op("stablehlo.select", [negative, flipped, bits], aval)
        zero = lb.compare(x, full(0.0, dtype), "EQ")
        k = lb.op("stablehlo.select", [zero, full(0), k], aval)
        nan = lb.compare(x, x, "NE")
        return lb.op("stablehlo.select", [nan, full(np.iinfo(np.int32).max), k], aval)
    if dtype == np.uint32:             # unsigned: the sign bit flipped
        bits = lb.op("stablehlo.bitcast_convert", [x], aval)
        return lb.op("stablehlo.xor", [bits, full(-(1 << 31))], aval)
    return x if dtype == np.int32 else lb.op("stablehlo.convert", [x], aval)


def kernel_sort(lb, operands, avals, moved, dimension, is_positions, used):
    """The operands (values of the ``moved`` types; the key ``operands[0]`` compared as
    ``avals[0]``) sorted along ``dimension`` (the last) by the key, then by position;
    ``is_positions(i)``: whether operand ``i`` is its own positions (an iota);
    ``used(i)``: whether anything reads result ``i`` (an unread one is not gathered: its
    value is left the operand)."""
    shape = tuple(avals[0].shape)
    n = shape[dimension]
    rows = math.prod(shape[:-1])
    key = _ordered_i32(lb, operands[0], avals[0].dtype)
    i64 = ShapedArray(shape, np.int64)
    high = lb.op("stablehlo.shift_left", [lb.op("stablehlo.convert", [key], i64),
                                         lb.full(shape, 32, np.dtype(np.int64))], i64)
    position = lb.iota(ShapedArray(shape, np.int64), dimension)
    packed = lb.op("stablehlo.or", [high, position], i64)
    flat = ShapedArray((rows * n,), np.int64)
    packed = lb.op("stablehlo.reshape", [packed], flat)
    # a barrier: IREE would fuse the packing into the kernel's dispatch, and then refuse
    # its scalar stores outside a distributed loop
    packed = lb.op("stablehlo.optimization_barrier", [packed], flat)
    sorted_ = _heapsort(lb, packed, rows, n)
    mask = lb.full(flat.shape, 0xFFFFFFFF, np.dtype(np.int64))
    low = lb.op("stablehlo.and", [sorted_, mask], flat)
    idx = lb.op("stablehlo.convert", [low], ShapedArray((rows * n,), np.int32))
    idx = lb.op("stablehlo.reshape", [idx], ShapedArray(shape, np.int32))
    out = []
    for i, (x, m) in enumerate(zip(operands, moved)):
        if not used(i):
            out.append(x)
        elif is_positions(i):
            out.append(lb.op("stablehlo.convert", [idx], m))
        else:
            out.append(_take_along_last(lb, x, idx, m))
    return out


def _take_along_last(lb, x, idx, aval):
    """``np.take_along_axis(x, idx, -1)``: one gather whose other dims batch."""
    rank = len(aval.shape)
    others = tuple(range(rank - 1))
    dn = (f"#stablehlo.gather<offset_dims = [], collapsed_slice_dims = [{rank - 1}], "
          f"operand_batching_dims = {list(others)}, "
          f"start_indices_batching_dims = {list(others)}, "
          f"start_index_map = [{rank - 1}], index_vector_dim = {rank}>")
    return lb.op("stablehlo.gather", [x, idx], aval, dimension_numbers=lb.attr(dn),
                 slice_sizes=lb.i64s([1] * rank),
                 indices_are_sorted=lb.attr("false"))


_SIFT = """
        %sift{tag}:2 = scf.while (%root = {start}, %u = {tensor}) : (index, {T}) -> (index, {T}) {{
          %c2r = arith.muli %root, %c2 : index
          %child = arith.addi %c2r, %c1 : index
          %go = arith.cmpi ult, %child, {end} : index
          scf.condition(%go) %root, %u : index, {T}
        }} do {{
        ^bb0(%root: index, %u: {T}):
          %c2r = arith.muli %root, %c2 : index
          %child = arith.addi %c2r, %c1 : index
          %next = arith.addi %child, %c1 : index
          %two = arith.cmpi ult, %next, {end} : index
          %other = arith.select %two, %next, %child : index
          %ia = arith.addi %base, %child : index
          %ib = arith.addi %base, %other : index
          %ir = arith.addi %base, %root : index
          %a = tensor.extract %u[%ia] : {T}
          %b = tensor.extract %u[%ib] : {T}
          %right = arith.cmpi slt, %a, %b : i64
          %big = arith.select %right, %other, %child : index
          %ibig = arith.select %right, %ib, %ia : index
          %bv = arith.select %right, %b, %a : i64
          %rv = tensor.extract %u[%ir] : {T}
          %swap = arith.cmpi slt, %rv, %bv : i64
          %hi = arith.select %swap, %bv, %rv : i64
          %lo = arith.select %swap, %rv, %bv : i64
          %u1 = tensor.insert %hi into %u[%ir] : {T}
          %u2 = tensor.insert %lo into %u1[%ibig] : {T}
          %stop = arith.select %swap, %big, {end} : index
          scf.yield %stop, %u2 : index, {T}
        }}"""

_KERNEL = """
func.func private @{name}(%in: {T}) -> {T} {{
  %r = flow.dispatch.region -> ({T}) {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %rows = arith.constant {rows} : index
    %n = arith.constant {n} : index
    %size = arith.constant {size} : index
    %half = arith.constant {half} : index
    %last = arith.constant {last} : index
    %e = tensor.empty() : {T}
    %copy = scf.for %i = %c0 to %size step %c1 iter_args(%t = %e) -> ({T}) {{
      %v = tensor.extract %in[%i] : {T}
      %t1 = tensor.insert %v into %t[%i] : {T}
      scf.yield %t1 : {T}
    }}
    %done = scf.for %row = %c0 to %rows step %c1 iter_args(%t = %copy) -> ({T}) {{
      %base = arith.muli %row, %n : index
      %heap = scf.for %s = %c0 to %half step %c1 iter_args(%h = %t) -> ({T}) {{
        %top = arith.subi %half, %s : index
        %start = arith.subi %top, %c1 : index{sift_build}
        scf.yield %siftb#1 : {T}
      }}
      %out = scf.for %s = %c0 to %last step %c1 iter_args(%h = %heap) -> ({T}) {{
        %end = arith.subi %last, %s : index
        %iend = arith.addi %base, %end : index
        %first = tensor.extract %h[%base] : {T}
        %least = tensor.extract %h[%iend] : {T}
        %h1 = tensor.insert %least into %h[%base] : {T}
        %h2 = tensor.insert %first into %h1[%iend] : {T}{sift_sort}
        scf.yield %sifts#1 : {T}
      }}
      scf.yield %out : {T}
    }}
    flow.return %done : {T}
  }}
  return %r : {T}
}}
"""


def kernel_text(name: str, rows: int, n: int) -> str:
    """The private function ``@name`` that sorts each of ``rows`` runs of ``n`` in a
    ``rows * n`` i64 tensor (one dimension: IREE 3.13 folds unit dimensions of values
    carried by an ``scf.while`` wrongly)."""
    t = f"tensor<{rows * n}xi64>"
    build = _SIFT.format(tag="b", start="%start", tensor="%h", end="%n", T=t)
    sort = _SIFT.format(tag="s", start="%c0", tensor="%h2", end="%end", T=t)
    return _KERNEL.format(name=name, T=t, rows=rows, n=n, size=rows * n, half=n // 2,
                          last=n - 1, sift_build=build, sift_sort=sort)


def _heapsort(lb, packed, rows: int, n: int):
    """A call of the kernel function (added to the module once per shape)."""
    ir = mlir.ir()
    body = funcs.enclosing_module(packed.owner).regions[0].blocks[0]
    name = f"irax_heapsort_{rows}x{n}"
    if not any(funcs.symbol_name(op) == name for op in body.operations
               if "sym_name" in op.operation.attributes):
        parsed = ir.Module.parse(kernel_text(name, rows, n), mlir.context())
        body.append(parsed.body.operations[0].operation)
    t = ir.RankedTensorType.get([rows * n], ir.IntegerType.get_signless(64))
    return lb.create("func.call", [packed], [t],
                     {"callee": ir.FlatSymbolRefAttr.get(name)}).results[0]
