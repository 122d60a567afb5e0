"""Array programs of the linear-algebra ops, written once and run three ways.

The factorizations (``linalg_kernels.py``) and the derivative rules of the decomposition
ops (``linalg_decompositions.py``) are written against ``Arrays``: NumPy-flavoured helpers
(broadcasting binary ops, ``matmul``, masks, loops) built on one primitive, ``apply(op_cls,
*operands, **attrs)``, which applies an irax op class. Three backends say what applying
means:

- ``HloArrays``: the op's own ``lower`` rule, so a kernel becomes portable StableHLO inside
  the ``lower`` rule of a decomposition op (loops are ``stablehlo.while``);
- ``IrArrays``: the op is emitted through a rule's builder (``ADBuilder`` in a derivative
  rule, where ops on tangents go on the tape; ``BatchBuilder`` in a batching rule);
- ``NumpyArrays``: the op's ``evaluate`` rule on NumPy arrays (loops are Python loops), so
  a kernel can be run and tested without compiling.

    def normalize(h, x):                   # any backend
        return h.div(x, h.sqrt(h.sum(h.mul(x, h.conj(x)), (-1,), keepdims=True)))
"""

from __future__ import annotations

import numpy as np

from irax.core import dtypes
from irax.core.abstract import ShapedArray
from irax.dialect import constant as C
from irax.dialect import elementwise as E
from irax.dialect import indexing as X
from irax.dialect import linalg as L
from irax.dialect import mlir
from irax.dialect import reduction as R
from irax.dialect import shape as S
from irax.dialect import sorting as T

I32 = np.dtype(np.int32)
#: Python and NumPy scalars: constants that take the other operand's dtype
_SCALARS = (bool, int, float, complex, np.generic)
BOOL = np.dtype(np.bool_)


class Arrays:
    """Helpers over ``apply``; subclasses define ``apply``, ``aval``, ``constant`` and
    ``while_loop``."""

    # ---- what a backend defines --------------------------------------------------------------
    def apply(self, op_cls, *operands, **attrs) -> list:
        raise NotImplementedError

    def aval(self, x) -> ShapedArray:
        raise NotImplementedError

    def constant(self, value: np.ndarray):
        raise NotImplementedError

    def while_loop(self, cond, body, init: list) -> list:
        """``while cond(h, state): state = body(h, state)``; ``h`` is the namespace the
        region's ops are built with (the callbacks must use it, not ``self``)."""
        raise NotImplementedError

    # ---- basics ------------------------------------------------------------------------------
    def one(self, op_cls, *operands, **attrs):
        return self.apply(op_cls, *operands, **attrs)[0]

    def shape(self, x) -> tuple:
        return self.aval(x).shape

    def dtype(self, x) -> np.dtype:
        return self.aval(x).dtype

    def ndim(self, x) -> int:
        return self.aval(x).ndim

    def is_complex(self, x) -> bool:
        return dtypes.is_complex(self.dtype(x))

    def full(self, shape, value, dtype):
        scalar = self.constant(np.asarray(value).astype(dtype))
        return self.broadcast_in_dim(scalar, tuple(shape), ())

    def full_like(self, x, value, dtype=None):
        return self.full(self.shape(x), value, self.dtype(x) if dtype is None else dtype)

    def zeros_like(self, x):
        return self.full_like(x, 0)

    def scalar(self, value, dtype):
        return self.constant(np.asarray(value).astype(dtype))

    def index(self, i):
        """An int32 scalar start index (Python ints become constants)."""
        if isinstance(i, (int, np.integer)):
            return self.scalar(int(i), I32)
        return i

    def _lift(self, x, like):
        if isinstance(x, _SCALARS):
            return self.constant(np.asarray(x).astype(self.dtype(like)))
        return x

    # ---- shapes ------------------------------------------------------------------------------
    def broadcast_in_dim(self, x, shape, dims):
        shape, dims = tuple(int(d) for d in shape), tuple(int(d) for d in dims)
        if self.shape(x) == shape and dims == tuple(range(len(shape))):
            return x
        return self.one(S.BroadcastInDim, x, shape=shape, broadcast_dimensions=dims)

    def broadcast_to(self, x, shape):
        """NumPy's trailing alignment (size-1 dims expand)."""
        shape = tuple(shape)
        nd = len(shape)
        xs = self.shape(x)
        if xs == shape:
            return x
        dims = tuple(range(nd - len(xs), nd))
        if any(s != 1 and s != shape[d] for s, d in zip(xs, dims)):
            raise ValueError(f"cannot broadcast {xs} to {shape}")
        return self.broadcast_in_dim(x, shape, dims)

    def reshape(self, x, shape):
        shape = tuple(int(d) for d in shape)
        if self.shape(x) == shape:
            return x
        return self.one(S.Reshape, x, new_sizes=shape)

    def transpose(self, x, perm):
        perm = tuple(int(p) for p in perm)
        if perm == tuple(range(len(perm))):
            return x
        return self.one(S.Transpose, x, permutation=perm)

    def mT(self, x):
        """The matrix transpose (last two axes swapped)."""
        n = self.ndim(x)
        return self.transpose(x, (*range(n - 2), n - 1, n - 2))

    def H(self, x):
        """The conjugate transpose."""
        return self.conj(self.mT(x))

    def expand(self, x, axis: int):
        """``x`` with a new size-1 axis at ``axis`` (negative counts from the end of the
        result)."""
        s = list(self.shape(x))
        axis = axis if axis >= 0 else len(s) + 1 + axis
        s.insert(axis, 1)
        return self.reshape(x, s)

    def concatenate(self, xs, axis: int):
        xs = [x for x in xs if self.shape(x)[axis] != 0] or xs[:1]
        if len(xs) == 1:
            return xs[0]
        axis = axis % self.ndim(xs[0])
        return self.one(S.Concatenate, *xs, dimension=axis)

    def slice(self, x, axis: int, start: int, stop: int, step: int = 1):
        """A static slice along one axis."""
        s = self.shape(x)
        axis = axis % len(s)
        if (start, stop, step) == (0, s[axis], 1):
            return x
        starts = [0] * len(s)
        limits = list(s)
        strides = [1] * len(s)
        starts[axis], limits[axis], strides[axis] = start, stop, step
        return self.one(S.Slice, x, start_indices=tuple(starts), limit_indices=tuple(limits),
                        strides=tuple(strides))

    def rev(self, x, axes):
        n = self.ndim(x)
        return self.one(S.Reverse, x, dimensions=tuple(sorted(a % n for a in axes)))

    def pad(self, x, widths, value=0):
        """Zero (or ``value``) padding: ``widths`` a (low, high) pair per axis."""
        pv = self.scalar(value, self.dtype(x))
        return self.one(S.Pad, x, pv, edge_padding_low=tuple(w[0] for w in widths),
                        edge_padding_high=tuple(w[1] for w in widths),
                        interior_padding=(0,) * len(widths))

    def dynamic_slice(self, x, starts, sizes):
        return self.one(X.DynamicSlice, x, *[self.index(i) for i in starts],
                        slice_sizes=tuple(int(n) for n in sizes))

    def dynamic_update_slice(self, x, update, starts):
        return self.one(X.DynamicUpdateSlice, x, update, *[self.index(i) for i in starts])

    def column(self, x, j):
        """Column ``j`` (a traced or static index) of matrices ``x``: shape ``(..., m, 1)``."""
        s = self.shape(x)
        nb = len(s) - 2
        return self.dynamic_slice(x, [0] * (nb + 1) + [j], s[:-1] + (1,))

    def row(self, x, i):
        """Row ``i`` of matrices ``x``: shape ``(..., 1, n)``."""
        s = self.shape(x)
        nb = len(s) - 2
        return self.dynamic_slice(x, [0] * nb + [i, 0], s[:-2] + (1, s[-1]))

    def set_column(self, x, col, j):
        nb = self.ndim(x) - 2
        return self.dynamic_update_slice(x, col, [0] * (nb + 1) + [j])

    def set_row(self, x, row, i):
        nb = self.ndim(x) - 2
        return self.dynamic_update_slice(x, row, [0] * nb + [i, 0])

    def element(self, v, i):
        """``v[..., i]`` kept as a trailing axis of size 1."""
        s = self.shape(v)
        return self.dynamic_slice(v, [0] * (len(s) - 1) + [i], s[:-1] + (1,))

    # ---- elementwise -------------------------------------------------------------------------
    def _binary(self, op_cls, x, y):
        if not isinstance(x, _SCALARS):
            y = self._lift(y, x)
        x = self._lift(x, y)
        shape = tuple(np.broadcast_shapes(self.shape(x), self.shape(y)))
        return self.one(op_cls, self.broadcast_to(x, shape), self.broadcast_to(y, shape))

    def add(self, x, y):
        return self._binary(E.Add, x, y)

    def sub(self, x, y):
        return self._binary(E.Sub, x, y)

    def mul(self, x, y):
        return self._binary(E.Mul, x, y)

    def div(self, x, y):
        return self._binary(E.Div, x, y)

    def maximum(self, x, y):
        return self._binary(E.Max, x, y)

    def minimum(self, x, y):
        return self._binary(E.Min, x, y)

    def and_(self, x, y):
        return self._binary(E.And, x, y)

    def or_(self, x, y):
        return self._binary(E.Or, x, y)

    def not_(self, x):
        return self.one(E.Not, x)

    def compare(self, x, y, direction):
        if not isinstance(x, _SCALARS):
            y = self._lift(y, x)
        x = self._lift(x, y)
        shape = tuple(np.broadcast_shapes(self.shape(x), self.shape(y)))
        return self.one(E.Compare, self.broadcast_to(x, shape), self.broadcast_to(y, shape),
                        direction=direction)

    def lt(self, x, y):
        return self.compare(x, y, "LT")

    def le(self, x, y):
        return self.compare(x, y, "LE")

    def gt(self, x, y):
        return self.compare(x, y, "GT")

    def ge(self, x, y):
        return self.compare(x, y, "GE")

    def eq(self, x, y):
        return self.compare(x, y, "EQ")

    def ne(self, x, y):
        return self.compare(x, y, "NE")

    def neg(self, x):
        return self.one(E.Neg, x)

    def abs(self, x):
        return self.one(E.Abs, x)

    def sqrt(self, x):
        return self.one(E.Sqrt, x)

    def rsqrt(self, x):
        return self.one(E.Rsqrt, x)

    def log(self, x):
        return self.one(E.Log, x)

    def is_finite(self, x):
        return self.one(E.IsFinite, x)

    def real(self, x):
        return self.one(E.Real, x) if self.is_complex(x) else x

    def imag(self, x):
        return self.one(E.Imag, x) if self.is_complex(x) else self.zeros_like(x)

    def complex(self, re, im):
        return self._binary(E.Complex, re, im)

    def conj(self, x):
        if not self.is_complex(x):
            return x
        return self.complex(self.real(x), self.neg(self.imag(x)))

    def convert(self, x, dtype):
        dtype = np.dtype(dtype)
        if self.dtype(x) == dtype:
            return x
        return self.one(E.Convert, x, new_dtype=dtype, weak_type=False)

    def to(self, x, like):
        """``x`` (real) converted to the dtype of ``like`` (complex values get a zero
        imaginary part)."""
        return self.convert(x, self.dtype(like))

    def abs2(self, x):
        """``|x|^2`` as a real array."""
        if self.is_complex(x):
            re, im = self.real(x), self.imag(x)
            return self.add(self.mul(re, re), self.mul(im, im))
        return self.mul(x, x)

    def select(self, p, x, y):
        if not isinstance(x, _SCALARS):
            y = self._lift(y, x)
        x = self._lift(x, y)
        shape = tuple(np.broadcast_shapes(self.shape(p), self.shape(x), self.shape(y)))
        return self.one(E.Select, self.broadcast_to(p, shape), self.broadcast_to(x, shape),
                        self.broadcast_to(y, shape))

    # ---- reductions and products -------------------------------------------------------------
    def _axes(self, x, axes):
        n = self.ndim(x)
        return tuple(sorted(a % n for a in axes))

    def _reduce(self, op_cls, x, axes, keepdims):
        axes = self._axes(x, axes)
        out = self.one(op_cls, x, axes=axes)
        if keepdims:
            s = list(self.shape(x))
            for a in axes:
                s[a] = 1
            out = self.reshape(out, s)
        return out

    def sum(self, x, axes, keepdims=False):
        return self._reduce(R.ReduceSum, x, axes, keepdims)

    def max(self, x, axes, keepdims=False):
        return self._reduce(R.ReduceMax, x, axes, keepdims)

    def any(self, x, axes=None, keepdims=False):
        axes = tuple(range(self.ndim(x))) if axes is None else axes
        return self._reduce(R.ReduceOr, x, axes, keepdims)

    def argmax(self, x, axis: int):
        return self.one(R.Argmax, x, axis=axis % self.ndim(x), index_dtype=I32)

    def dot_general(self, x, y, contract, batch=((), ())):
        return self.one(L.DotGeneral, x, y, lhs_contracting_dimensions=tuple(contract[0]),
                        rhs_contracting_dimensions=tuple(contract[1]),
                        lhs_batch_dimensions=tuple(batch[0]),
                        rhs_batch_dimensions=tuple(batch[1]))

    def matmul(self, x, y):
        """Batched matrix product of ``(..., m, k)`` and ``(..., k, n)``; a missing leading
        batch on one side broadcasts."""
        xs, ys = self.shape(x), self.shape(y)
        batch = tuple(np.broadcast_shapes(xs[:-2], ys[:-2]))
        x = self.broadcast_to(x, batch + xs[-2:])
        y = self.broadcast_to(y, batch + ys[-2:])
        nb = len(batch)
        b = tuple(range(nb))
        return self.dot_general(x, y, ((nb + 1,), (nb,)), (b, b))

    # ---- masks and matrices ------------------------------------------------------------------
    def iota(self, shape, dimension, dtype=I32):
        return self.one(C.Iota, shape=tuple(shape), dtype=np.dtype(dtype),
                        dimension=dimension % len(shape))

    def tri_mask(self, n, m, k=0):
        """``j <= i + k`` for ``(i, j)`` in an ``n x m`` matrix (NumPy's ``tri``)."""
        i = self.iota((n, m), 0)
        j = self.iota((n, m), 1)
        return self.le(j, self.add(i, k)) if k else self.le(j, i)

    def tril(self, x, k=0):
        n, m = self.shape(x)[-2:]
        return self.select(self.tri_mask(n, m, k), x, 0)

    def triu(self, x, k=0):
        n, m = self.shape(x)[-2:]
        return self.select(self.tri_mask(n, m, k - 1), 0, x)

    def eye(self, n, m=None, dtype=np.float32):
        m = n if m is None else m
        return self.convert(self.eq(self.iota((n, m), 0), self.iota((n, m), 1)), dtype)

    def diagonal(self, x):
        """The main diagonal of ``(..., n, m)`` matrices: ``(..., min(n, m))``, a strided
        slice of the flattened matrices."""
        s = self.shape(x)
        n, m = s[-2:]
        k = min(n, m)
        if k == 0:
            return self.full(s[:-2] + (0,), 0, self.dtype(x))
        flat = self.reshape(x, s[:-2] + (n * m,))
        return self.slice(flat, -1, 0, (k - 1) * (m + 1) + 1, m + 1)

    def diag_embed(self, v):
        """Diagonal matrices with diagonal ``v`` (``(..., n)`` -> ``(..., n, n)``)."""
        n = self.shape(v)[-1]
        return self.select(self.eq(self.iota((n, n), 0), self.iota((n, n), 1)),
                           self.expand(v, -1), 0)

    # ---- loops ---------------------------------------------------------------------------------
    def fori_loop(self, lo: int, hi: int, body, init: list) -> list:
        """``for i in range(lo, hi): state = body(h, i, state)`` (``i`` an int32 scalar)."""
        if hi <= lo:
            return list(init)
        hi_c = hi

        def cond(h, s):
            return h.lt(s[0], h.scalar(hi_c, I32))

        def step(h, s):
            return [h.add(s[0], h.scalar(1, I32)), *body(h, s[0], list(s[1:]))]

        out = self.while_loop(cond, step, [self.scalar(lo, I32), *init])
        return out[1:]

    # ---- sorting -------------------------------------------------------------------------------
    def sort(self, operands, dimension=-1, num_keys=1):
        n = self.ndim(operands[0])
        return self.apply(T.Sort, *operands, dimension=dimension % n, is_stable=True,
                          num_keys=num_keys)

    def take_last(self, x, idx):
        """``np.take_along_axis(x, idx, -1)`` for ``idx`` of ``x``'s shape (one gather)."""
        rank = self.ndim(x)
        others = tuple(range(rank - 1))
        return self.one(X.Gather, x, self.expand(idx, -1), offset_dims=(),
                        collapsed_slice_dims=(rank - 1,), start_index_map=(rank - 1,),
                        slice_sizes=(1,) * rank, index_vector_dim=rank,
                        operand_batching_dims=others, start_indices_batching_dims=others)

    def permute_columns(self, x, perm):
        """Columns of matrices ``x`` reordered: ``x[..., :, perm]`` for ``perm`` of shape
        ``(..., n)`` (batched like ``x``)."""
        idx = self.broadcast_in_dim(perm, self.shape(x),
                                    tuple(range(self.ndim(perm) - 1)) + (self.ndim(x) - 1,))
        return self.take_last(x, idx)


def _numpy_of(value, dtype):
    return np.asarray(value).astype(dtype)


class NumpyArrays(Arrays):
    """Each op is its ``evaluate`` rule; loops run in Python."""

    def apply(self, op_cls, *operands, **attrs):
        attrs = op_cls.normalize_attrs(attrs)
        operands = [np.asarray(x) for x in operands]
        avals = [ShapedArray(x.shape, x.dtype) for x in operands]
        out = op_cls.infer_list(avals, attrs)
        return op_cls.evaluate_list(operands, attrs, out)

    def aval(self, x):
        x = np.asarray(x)
        return ShapedArray(x.shape, x.dtype)

    def constant(self, value):
        return np.asarray(value)

    def while_loop(self, cond, body, init):
        state = [np.asarray(s) for s in init]
        while bool(cond(self, state)):
            state = [np.asarray(s) for s in body(self, state)]
        return state


class IrArrays(Arrays):
    """Each op is emitted through a rule's builder ``b`` (derivative or batching rules)."""

    def __init__(self, b):
        self.b = b

    def apply(self, op_cls, *operands, **attrs):
        return list(self.b.emit(op_cls, list(operands), **attrs))

    def aval(self, x):
        return self.b.aval(x)

    def constant(self, value):
        return self.one(C.Constant, value=np.asarray(value))

    def while_loop(self, cond, body, init):
        raise NotImplementedError("derivative and batching rules emit no loops")


class HloArrays(Arrays):
    """Each op is its ``lower`` rule: StableHLO at the lowering builder ``lb``'s insertion
    point."""

    def __init__(self, lb):
        self.lb = lb

    def apply(self, op_cls, *operands, **attrs):
        attrs = op_cls.normalize_attrs(attrs)
        avals = [mlir.aval_of(x) for x in operands]
        out = op_cls.infer_list(avals, attrs)
        sub = type(self.lb)(self.lb.ip, self.lb.loc, out)
        res = op_cls.lower(sub, *operands, **attrs)
        return list(res) if isinstance(res, (list, tuple)) else [res]

    def aval(self, x):
        return mlir.aval_of(x)

    def constant(self, value):
        return self.lb.constant(np.asarray(value))

    def while_loop(self, cond, body, init):
        init = list(init)
        types = [x.type for x in init]
        # The initial state passes a barrier (plain StableHLO, a no-op): without it IREE
        # 3.13 fails on chains of loops whose inputs' producer feeds a later product
        # ("failed to schedule execution partitions without cyclic dependencies", e.g. the
        # JVP of lu). Kept on the kernels' loops: no user-level loop chain has hit it yet.
        init = list(self.lb.create("stablehlo.optimization_barrier", init, types).results)
        op = self.lb.create("stablehlo.while", init, types, regions=2)
        for region, fn in ((0, cond), (1, body)):
            block = op.regions[region].blocks.append(*types)
            inner = HloArrays(self.lb.at_end(block))
            out = fn(inner, list(block.arguments))
            out = [out] if region == 0 else list(out)
            inner.lb.create("stablehlo.return", out, [])
        return list(op.results)
