"""Linear algebra: dot_general.

    %z = "irax.dot_general"(%x, %y) {lhs_contracting_dimensions = array<i64: 1>,
           rhs_contracting_dimensions = array<i64: 0>} : (tensor<2x3xf32>, tensor<3x4xf32>)
           -> tensor<2x4xf32>
"""

from __future__ import annotations

import math

import numpy as np

from irax.core import dtypes, fp_errors
from irax.core.abstract import ShapedArray
from irax.dialect import attrs as A
from irax.dialect import raising as R
from irax.dialect import sharding as S
from irax.dialect.base import Op, OpError, weak_of
from irax.dialect.collective import Psum
from irax.dialect.shape import check_dims, shift_dims
from irax.dialect.upstream import StableHLODot, op_class

_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _free(rank: int, *used) -> list[int]:
    taken = {d for dims in used for d in dims}
    return [d for d in range(rank) if d not in taken]


#: the dtypes whose products without batch dimensions are tensordots (BLAS)
_TENSORDOT = frozenset((np.dtype(np.float32), np.dtype(np.float64)))


class DotGeneral(Op):
    """General tensor contraction (StableHLO ``dot_general``).

    Sums products over the paired ``*_contracting_dimensions``, maps the paired
    ``*_batch_dimensions`` one to one, and keeps every other dimension. The result shape is
    the batch dims, then the free lhs dims, then the free rhs dims. Operands have one
    (non-boolean) dtype, which the result keeps; integers wrap.

        %z = "irax.dot_general"(%x, %y) {lhs_batch_dimensions = array<i64: 0>,
               rhs_batch_dimensions = array<i64: 0>, lhs_contracting_dimensions = array<i64: 2>,
               rhs_contracting_dimensions = array<i64: 1>}
               : (tensor<5x2x3xf32>, tensor<5x3x4xf32>) -> tensor<5x2x4xf32>
    """

    name = "irax.dot_general"
    num_operands = 2
    attributes = {"lhs_contracting_dimensions": A.I64Array,
                  "rhs_contracting_dimensions": A.I64Array,
                  "lhs_batch_dimensions": A.I64Array, "rhs_batch_dimensions": A.I64Array}
    defaults = {"lhs_batch_dimensions": (), "rhs_batch_dimensions": ()}
    raises_from = ("stablehlo.dot_general", "stablehlo.dot")

    @classmethod
    def multiply_adds(cls, avals, outs, *, lhs_contracting_dimensions, **attrs) -> int:
        """Each result element sums the products along the contracted dimensions."""
        return math.prod(outs[0].shape) * math.prod(
            avals[0].shape[d] for d in lhs_contracting_dimensions)

    @classmethod
    def raise_attrs(cls, op):
        if op_class(op) is StableHLODot:  # contracts lhs' last dim with rhs' first
            return {"lhs_contracting_dimensions": (R.operand_aval(op, 0).ndim - 1,),
                    "rhs_contracting_dimensions": (0,)}
        dims = R.fields(op, "dot_dimension_numbers")
        return {"lhs_contracting_dimensions": dims.get("lhs_contracting_dimensions", ()),
                "rhs_contracting_dimensions": dims.get("rhs_contracting_dimensions", ()),
                "lhs_batch_dimensions": dims.get("lhs_batching_dimensions", ()),
                "rhs_batch_dimensions": dims.get("rhs_batching_dimensions", ())}

    @classmethod
    def infer(cls, lhs, rhs, *, lhs_contracting_dimensions, rhs_contracting_dimensions,
              lhs_batch_dimensions, rhs_batch_dimensions):
        if lhs.dtype != rhs.dtype:
            raise OpError(f"expected operands of the same dtype, but got {lhs.str_short()} and "
                          f"{rhs.str_short()}")
        if dtypes.is_bool(lhs.dtype):
            raise OpError(f"expected numeric operands, but got {lhs.str_short()} and "
                          f"{rhs.str_short()}")
        lc, rc = lhs_contracting_dimensions, rhs_contracting_dimensions
        l_batch, r_batch = lhs_batch_dimensions, rhs_batch_dimensions
        check_dims((*l_batch, *lc), lhs.ndim, "lhs batch and contracting dimensions")
        check_dims((*r_batch, *rc), rhs.ndim, "rhs batch and contracting dimensions")
        cls._check_pairs(lhs, rhs, l_batch, r_batch, "batch")
        cls._check_pairs(lhs, rhs, lc, rc, "contracting")
        shape = ([lhs.shape[d] for d in l_batch]
                 + [lhs.shape[d] for d in _free(lhs.ndim, l_batch, lc)]
                 + [rhs.shape[d] for d in _free(rhs.ndim, r_batch, rc)])
        return ShapedArray(shape, lhs.dtype, weak_of(lhs, rhs))

    @classmethod
    def _check_pairs(cls, lhs, rhs, l_dims, r_dims, what) -> None:
        if len(l_dims) != len(r_dims):
            raise OpError(f"expected the same number of lhs and rhs {what} dimensions, but got "
                          f"{list(l_dims)} and {list(r_dims)}")
        l_sizes = tuple(lhs.shape[d] for d in l_dims)
        r_sizes = tuple(rhs.shape[d] for d in r_dims)
        if l_sizes != r_sizes:
            raise OpError(f"expected {what} dimensions to have the same size, but got "
                          f"{l_sizes} and {r_sizes}")

    @classmethod
    def evaluate(cls, lhs, rhs, *, lhs_contracting_dimensions, rhs_contracting_dimensions,
                 lhs_batch_dimensions, rhs_batch_dimensions):
        lc, rc = lhs_contracting_dimensions, rhs_contracting_dimensions
        l_batch, r_batch = lhs_batch_dimensions, rhs_batch_dimensions
        dtype = lhs.dtype
        if not l_batch and dtype in _TENSORDOT:
            # no batch: a tensordot (the free dims of lhs, then rhs'), which skips
            # einsum's path search (about 25 us of an eager small product)
            token = fp_errors.ignore()
            try:
                return np.asarray(np.tensordot(lhs, rhs, axes=(tuple(lc), tuple(rc))))
            finally:
                fp_errors.restore(token)
        letters = iter(_LETTERS)
        l_sub = [""] * lhs.ndim
        r_sub = [""] * rhs.ndim
        for l_d, r_d in zip((*l_batch, *lc), (*r_batch, *rc)):
            l_sub[l_d] = r_sub[r_d] = next(letters)
        l_free, r_free = _free(lhs.ndim, l_batch, lc), _free(rhs.ndim, r_batch, rc)
        for d in l_free:
            l_sub[d] = next(letters)
        for d in r_free:
            r_sub[d] = next(letters)
        out = "".join([l_sub[d] for d in l_batch] + [l_sub[d] for d in l_free]
                      + [r_sub[d] for d in r_free])
        spec = f"{''.join(l_sub)},{''.join(r_sub)}->{out}"
        compute = (np.float32 if dtype.name in ("float16", "bfloat16") else
                   np.uint64 if dtypes.is_unsigned(dtype) else
                   np.int64 if dtypes.is_int(dtype) else dtype)
        with np.errstate(all="ignore"):
            r = np.einsum(spec, lhs.astype(compute), rhs.astype(compute), optimize=True)
            return np.asarray(r).astype(dtype)

    @classmethod
    def lower(cls, lb, lhs, rhs, *, lhs_contracting_dimensions, rhs_contracting_dimensions,
              lhs_batch_dimensions, rhs_batch_dimensions):
        dn = (f"#stablehlo.dot<lhs_batching_dimensions = {list(lhs_batch_dimensions)}, "
              f"rhs_batching_dimensions = {list(rhs_batch_dimensions)}, "
              f"lhs_contracting_dimensions = {list(lhs_contracting_dimensions)}, "
              f"rhs_contracting_dimensions = {list(rhs_contracting_dimensions)}>")
        return lb.op("stablehlo.dot_general", [lhs, rhs], dot_dimension_numbers=lb.attr(dn))

    @classmethod
    def jvp(cls, b, primals, tangents, outs, **dims):
        (x, y), (dx, dy) = primals, tangents
        left = None if dx is None else b.dot_general(dx, y, **dims)
        right = None if dy is None else b.dot_general(x, dy, **dims)
        return b.add_any(left, right)

    @classmethod
    def transpose(cls, b, ct, lhs, rhs, *, lhs_contracting_dimensions,
                  rhs_contracting_dimensions, lhs_batch_dimensions, rhs_batch_dimensions):
        """Contracts ``ct`` with the other operand over its free dimensions, then permutes
        the result into the linear operand's dimension order."""
        lc, rc = lhs_contracting_dimensions, rhs_contracting_dimensions
        lb_, rb_ = lhs_batch_dimensions, rhs_batch_dimensions
        la, ra = b.aval(lhs), b.aval(rhs)
        nb = len(lb_)
        l_free, r_free = _free(la.ndim, lb_, lc), _free(ra.ndim, rb_, rc)
        ct_l_free = tuple(range(nb, nb + len(l_free)))
        ct_r_free = tuple(range(nb + len(l_free), nb + len(l_free) + len(r_free)))
        batch = tuple(range(nb))
        ct_lhs = ct_rhs = None
        if b.is_linear(lhs):
            t = b.dot_general(ct, rhs, lhs_contracting_dimensions=ct_r_free,
                              rhs_contracting_dimensions=tuple(r_free),
                              lhs_batch_dimensions=batch, rhs_batch_dimensions=tuple(rb_))
            ct_lhs = _permute_into(b, t, la.ndim, lb_, l_free, lc, rc)
        if b.is_linear(rhs):
            if _swapped_is_ordered(ra.ndim, rb_, r_free, rc, lc):
                # lhs first: [batch, contracting, free] is already rhs's order (x @ w)
                ct_rhs = b.dot_general(lhs, ct, lhs_contracting_dimensions=tuple(l_free),
                                       rhs_contracting_dimensions=ct_l_free,
                                       lhs_batch_dimensions=tuple(lb_),
                                       rhs_batch_dimensions=batch)
            else:
                t = b.dot_general(ct, lhs, lhs_contracting_dimensions=ct_l_free,
                                  rhs_contracting_dimensions=tuple(l_free),
                                  lhs_batch_dimensions=batch, rhs_batch_dimensions=tuple(lb_))
                ct_rhs = _permute_into(b, t, ra.ndim, rb_, r_free, rc, lc)
        return ct_lhs, ct_rhs

    @classmethod
    def batch(cls, b, args, dims, *, lhs_contracting_dimensions, rhs_contracting_dimensions,
              lhs_batch_dimensions, rhs_batch_dimensions):
        """Both batched: the two batch dims are one more (leading) batch dimension pair, so
        the result is batched at 0. One batched: its batch dim is one more free dim of that
        operand, found in the result after the batch dims (and the lhs free dims)."""
        (lhs, rhs), (ld, rd) = args, dims
        lc, l_batch = _around(lhs_contracting_dimensions, ld), _around(lhs_batch_dimensions, ld)
        rc, r_batch = _around(rhs_contracting_dimensions, rd), _around(rhs_batch_dimensions, rd)
        if ld is not None and rd is not None:
            l_batch, r_batch, at = (ld, *l_batch), (rd, *r_batch), 0
        elif ld is not None:
            at = len(l_batch) + _free(b.aval(lhs).ndim, l_batch, lc).index(ld)
        else:
            at = (len(l_batch) + len(_free(b.aval(lhs).ndim, l_batch, lc))
                  + _free(b.aval(rhs).ndim, r_batch, rc).index(rd))
        out = b.dot_general(lhs, rhs, lhs_contracting_dimensions=lc,
                            rhs_contracting_dimensions=rc, lhs_batch_dimensions=l_batch,
                            rhs_batch_dimensions=r_batch)
        return [out], [at]

    @classmethod
    def shard(cls, specs, avals, outs, mesh, *, lhs_contracting_dimensions,
              rhs_contracting_dimensions, lhs_batch_dimensions, rhs_batch_dimensions):
        """Batch and free dimensions keep their axes; contracting dimensions split alike on
        both sides leave partial sums, combined by a psum over those axes."""
        lhs, rhs = S.pad(specs[0], avals[0].ndim), S.pad(specs[1], avals[1].ndim)
        lb, rb = lhs_batch_dimensions, rhs_batch_dimensions
        lc, rc = lhs_contracting_dimensions, rhs_contracting_dimensions
        lf = [d for d in range(len(lhs)) if d not in lb and d not in lc]
        rf = [d for d in range(len(rhs)) if d not in rb and d not in rc]
        need_l, need_r = [()] * len(lhs), [()] * len(rhs)
        used: set = set()

        def take(*axes_options):
            for axes in axes_options:
                if axes and not used.intersection(axes):
                    used.update(axes)
                    return axes
            return ()

        batch = []
        for i, j in zip(lb, rb):
            need_l[i] = need_r[j] = take(lhs[i], rhs[j])
            batch.append(need_l[i])
        summed = []
        for i, j in zip(lc, rc):
            need_l[i] = need_r[j] = take(lhs[i], rhs[j])
            summed += need_l[i]
        for i in lf:
            need_l[i] = take(lhs[i])
        for j in rf:
            need_r[j] = take(rhs[j])
        out = tuple(batch) + tuple(need_l[i] for i in lf) + tuple(need_r[j] for j in rf)
        return S.ShardPlan([tuple(need_l), tuple(need_r)], [out],
                           [(Psum, tuple(summed)) if summed else None])


def _around(dims, d):
    """``dims`` of an operand renumbered around its batch dim ``d`` (None: unbatched)."""
    return dims if d is None else shift_dims(dims, d)


def _swapped_is_ordered(rank, batch, free, contracting, other_contracting) -> bool:
    """Whether ``dot_general(other, ct)`` (dims [batch, contracting ordered by the other
    operand's contracting dims, free]) is already in the operand's dimension order."""
    order = list(batch) + [contracting[list(other_contracting).index(o)]
                           for o in sorted(other_contracting)] + list(free)
    return order == list(range(rank))


def _permute_into(b, t, rank, batch, free, contracting, other_contracting):
    """``t`` has dims [batch, free, contracting (ordered by the other operand's contracting
    dims, ascending)]; returns it transposed into the operand's own dimension order."""
    pos = {}
    for i, d in enumerate(batch):
        pos[d] = i
    for j, d in enumerate(free):
        pos[d] = len(batch) + j
    for k, r in enumerate(sorted(other_contracting)):
        pos[contracting[list(other_contracting).index(r)]] = len(batch) + len(free) + k
    perm = tuple(pos[d] for d in range(rank))
    if perm == tuple(range(rank)):
        return t
    return b.transpose(t, permutation=perm)
