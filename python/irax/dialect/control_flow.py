"""Structured control flow: ``irax.while``, ``irax.cond``, ``irax.scan``.

Regions are isolated: a region's block takes the values it uses as arguments and ends in
``irax.return``. Operands are laid out as consts first (values the regions read but never
change), then the loop state.

    %r:2 = "irax.while"(%c, %x0, %i0) ({
      ^bb0(%c: tensor<f32>, %x: tensor<f32>, %i: tensor<i32>):   // cond
        "irax.return"(%p) : (tensor<i1>) -> ()
    }, {
      ^bb0(%c: tensor<f32>, %x: tensor<f32>, %i: tensor<i32>):   // body
        "irax.return"(%x1, %i1) : (tensor<f32>, tensor<i32>) -> ()
    }) {num_consts = 1 : i64} : (tensor<f32>, tensor<f32>, tensor<i32>) -> (tensor<f32>, ...)

    %y = "irax.cond"(%index, %a, %b) ({...branch 0...}, {...branch 1...})
    %carry, %ys = "irax.scan"(%c, %init, %xs) ({
      ^bb0(%c, %carry, %x):  "irax.return"(%carry1, %y)
    }) {num_consts = 1, num_carry = 1, length = 8, reverse = false}

Lowering happens in two steps: ``lower_regions`` replaces the op by ``stablehlo.while`` /
``stablehlo.case`` holding the same (still irax) body ops, which the dialect conversion
then lowers with everything else. Derivative and batching rules outline regions into
functions and reuse the function-level transformations (``control_rules.py``).
"""

from __future__ import annotations

import numpy as np

from irax.core.abstract import ShapedArray
from irax.dialect import attrs as A
from irax.dialect import mlir
from irax.dialect.base import Op, OpError


def _fmt(avals) -> str:
    return "(" + ", ".join(a.str_short() for a in avals) + ")"


def _block_avals(region):
    return [mlir.aval_of(a) for a in region.blocks[0].arguments]


def _return_avals(region):
    ret = list(region.blocks[0].operations)[-1]
    if ret.name != "irax.return":
        raise OpError("expected each region to end in 'irax.return'")
    return [mlir.aval_of(v) for v in ret.operands]


class RegionOp(Op):
    """Base of ops with isolated single-block regions."""

    region_op = True

    @classmethod
    def verify_regions(cls, op, attrs) -> None:
        raise NotImplementedError

    @classmethod
    def lower(cls, lb, *operands, **attrs):
        raise OpError("region ops are lowered by lower_regions before the conversion")


def _rule(name):
    """A classmethod calling ``control_rules.<name>`` (imported on first use)."""

    def rule(cls, *args, **kwargs):
        from irax.dialect import control_rules

        return getattr(control_rules, name)(cls, *args, **kwargs)

    rule.__name__ = name
    return classmethod(rule)


class While(RegionOp):
    """``while cond(consts, carry): carry = body(consts, carry)``; results: the carry."""

    name = "irax.while"
    num_regions = 2
    attributes = {"num_consts": A.I64}
    jvp_full = _rule("while_jvp")
    batch = _rule("while_batch")

    @classmethod
    def infer(cls, *avals, num_consts):
        if not 0 <= num_consts <= len(avals):
            raise OpError(f"expected num_consts in [0, {len(avals)}], but got {num_consts}")
        return [a.strip_weak() for a in avals[num_consts:]]

    @classmethod
    def verify_regions(cls, op, attrs) -> None:
        avals = [mlir.aval_of(v) for v in op.operands]
        carry = avals[attrs["num_consts"]:]
        for name, region in zip(("cond", "body"), op.regions):
            if _block_avals(region) != avals:
                raise OpError(f"expected the {name} region's arguments to be {_fmt(avals)}, "
                              f"but got {_fmt(_block_avals(region))}")
        if _return_avals(op.regions[0]) != [ShapedArray((), np.bool_)]:
            raise OpError(f"expected the cond region to return bool[], but it returns "
                          f"{_fmt(_return_avals(op.regions[0]))}")
        if _return_avals(op.regions[1]) != carry:
            raise OpError(f"expected the body region to return the carry {_fmt(carry)}, but "
                          f"it returns {_fmt(_return_avals(op.regions[1]))}")

    @classmethod
    def evaluate_regions(cls, interp, op, operands, attrs, out_avals):
        k = attrs["num_consts"]
        consts, carry = list(operands[:k]), list(operands[k:])
        while bool(interp.run_region(op.regions[0], consts + carry)[0]):
            carry = interp.run_region(op.regions[1], consts + carry)
        return carry

    @classmethod
    def lower_regions(cls, op, attrs) -> list:
        """``stablehlo.while`` carrying consts and carry; consts pass through the body."""
        from irax.lowering.builder import LoweringBuilder

        k = attrs["num_consts"]
        ir = mlir.ir()
        types = [v.type for v in op.operands]
        lb = LoweringBuilder(ir.InsertionPoint(op), op.location, [])
        new = lb.create("stablehlo.while", list(op.operands), types, regions=2)
        _move_block(op.regions[0], new.regions[0], types)
        _move_block(op.regions[1], new.regions[1], types,
                    prefix=lambda blk: list(blk.arguments[:k]))
        return list(new.results[k:])


class Cond(RegionOp):
    """``branches[clamp(index, 0, n - 1)](operands)`` with an int32 scalar ``index``; each
    region is a branch taking the operands."""

    name = "irax.cond"
    num_regions = None  # one per branch
    jvp_full = _rule("cond_jvp")
    batch = _rule("cond_batch")

    @classmethod
    def infer(cls, *avals):
        raise OpError("result types of irax.cond come from its branches")

    infers_results = False

    @classmethod
    def verify_symbols(cls, op, symbols) -> None:
        cls.verify_regions(op, {})

    @classmethod
    def verify_regions(cls, op, attrs) -> None:
        avals = [mlir.aval_of(v) for v in op.operands]
        if not avals or avals[0] != ShapedArray((), np.int32):
            raise OpError(f"expected an int32 scalar index, but got "
                          f"{avals[0].str_short() if avals else 'no operands'}")
        if not len(op.regions):
            raise OpError("expected at least one branch region")
        outs = [mlir.aval_of(r) for r in op.results]
        for i, region in enumerate(op.regions):
            if _block_avals(region) != avals[1:]:
                raise OpError(f"expected branch {i}'s arguments to be {_fmt(avals[1:])}, but "
                              f"got {_fmt(_block_avals(region))}")
            if _return_avals(region) != outs:
                raise OpError(f"expected branch {i} to return {_fmt(outs)}, but it returns "
                              f"{_fmt(_return_avals(region))}")

    @classmethod
    def evaluate_regions(cls, interp, op, operands, attrs, out_avals):
        n = len(op.regions)
        index = int(np.clip(int(operands[0]), 0, n - 1))
        return interp.run_region(op.regions[index], list(operands[1:]))

    @classmethod
    def lower_regions(cls, op, attrs) -> list:
        """``stablehlo.case`` on the clamped index; branch arguments become the operands."""
        from irax.lowering.builder import LoweringBuilder

        ir = mlir.ir()
        lb = LoweringBuilder(ir.InsertionPoint(op), op.location, [])
        index = op.operands[0]
        i32 = ShapedArray((), np.int32)
        lo = lb.constant(np.int32(0))
        hi = lb.constant(np.int32(len(op.regions) - 1))
        index = lb.op("stablehlo.clamp", [lo, index, hi], i32)
        new = lb.create("stablehlo.case", [index], [r.type for r in op.results],
                        regions=len(op.regions))
        for src, dst in zip(op.regions, new.regions):
            _move_block(src, dst, None, replace_args=list(op.operands[1:]))
        return list(new.results)


class Scan(RegionOp):
    """``carry, y_i = body(consts, carry, x_i)`` for i over the leading axis of ``xs``
    (``length`` steps, last to first when ``reverse``); results: final carry, stacked ys.
    Operands: consts, carry, xs; the body returns carry then ys slices."""

    name = "irax.scan"
    num_regions = 1
    jvp_full = _rule("scan_jvp")
    batch = _rule("scan_batch")
    attributes = {"num_consts": A.I64, "num_carry": A.I64, "length": A.I64,
                  "reverse": A.Bool}
    defaults = {"reverse": False}
    infers_results = False

    @classmethod
    def infer(cls, *avals, **attrs):
        raise OpError("result types of irax.scan come from its body")

    @classmethod
    def verify_symbols(cls, op, symbols) -> None:
        cls.verify_regions(op, cls.decode_attrs(op))

    @classmethod
    def verify_regions(cls, op, attrs) -> None:
        k, c, n = attrs["num_consts"], attrs["num_carry"], attrs["length"]
        avals = [mlir.aval_of(v) for v in op.operands]
        if k + c > len(avals):
            raise OpError(f"expected at least {k + c} operands, but got {len(avals)}")
        xs = avals[k + c:]
        for a in xs:
            if not a.shape or a.shape[0] != n:
                raise OpError(f"expected scanned operands with leading dimension {n}, but got "
                              f"{a.str_short()}")
        slices = [a.update(shape=a.shape[1:]) for a in xs]
        want = [a.strip_weak() for a in avals[:k + c]] + slices
        if _block_avals(op.regions[0]) != want:
            raise OpError(f"expected the body's arguments to be {_fmt(want)}, but got "
                          f"{_fmt(_block_avals(op.regions[0]))}")
        ret = _return_avals(op.regions[0])
        outs = [mlir.aval_of(r) for r in op.results]
        carry = avals[k:k + c]
        if ret[:c] != carry or outs[:c] != carry:
            raise OpError(f"expected the body to return the carry {_fmt(carry)} first, but it "
                          f"returns {_fmt(ret[:c])}")
        stacked = [a.update(shape=(n, *a.shape)) for a in ret[c:]]
        if outs[c:] != stacked:
            raise OpError(f"expected stacked results {_fmt(stacked)}, but got {_fmt(outs[c:])}")

    @classmethod
    def evaluate_regions(cls, interp, op, operands, attrs, out_avals):
        k, c, n = attrs["num_consts"], attrs["num_carry"], attrs["length"]
        consts, carry, xs = list(operands[:k]), list(operands[k:k + c]), operands[k + c:]
        ys = [np.zeros(a.shape, a.dtype) for a in out_avals[c:]]
        steps = range(n - 1, -1, -1) if attrs["reverse"] else range(n)
        for i in steps:
            out = interp.run_region(op.regions[0], consts + carry + [x[i] for x in xs])
            carry = list(out[:c])
            for y, v in zip(ys, out[c:]):
                y[i] = v
        return carry + ys

    @classmethod
    def lower_regions(cls, op, attrs) -> list:
        """A ``stablehlo.while`` over (i, consts, carry, xs, ys): slices x_i with
        dynamic_slice, runs the body, writes y_i with dynamic_update_slice."""
        from irax.lowering.builder import LoweringBuilder

        k, c, n, rev = attrs["num_consts"], attrs["num_carry"], attrs["length"], \
            attrs["reverse"]
        ir = mlir.ir()
        lb = LoweringBuilder(ir.InsertionPoint(op), op.location, [])
        operands = list(op.operands)
        xs_n = len(operands) - k - c
        ys_avals = [mlir.aval_of(r) for r in op.results[c:]]
        i32 = ShapedArray((), np.int32)
        zero = lb.constant(np.int32(0))
        ys0 = [lb.constant(np.zeros((), a.dtype)) for a in ys_avals]
        ys0 = [lb.op("stablehlo.broadcast_in_dim", [z], a, broadcast_dimensions=lb.i64s([]))
               for z, a in zip(ys0, ys_avals)]
        init = [zero] + operands + ys0
        types = [v.type for v in init]
        loop = lb.create("stablehlo.while", init, types, regions=2)
        # cond: i < n
        cblock = loop.regions[0].blocks.append(*types)
        cb = LoweringBuilder(ir.InsertionPoint(cblock), op.location, [])
        limit = cb.constant(np.int32(n))
        pred = cb.op("stablehlo.compare", [cblock.arguments[0], limit],
                     ShapedArray((), np.bool_),
                     comparison_direction=cb.attr("#stablehlo<comparison_direction LT>"))
        cb.ret([pred])
        # body
        bblock = loop.regions[1].blocks.append(*types)
        bb = LoweringBuilder(ir.InsertionPoint(bblock), op.location, [])
        args = list(bblock.arguments)
        i = args[0]
        consts, carry = args[1:1 + k], args[1 + k:1 + k + c]
        xs, ys = args[1 + k + c:1 + k + c + xs_n], args[1 + k + c + xs_n:]
        idx = i
        if rev:
            idx = bb.op("stablehlo.subtract", [bb.constant(np.int32(n - 1)), i], i32)
        x_slices = []
        for x in xs:
            a = mlir.aval_of(x)
            starts = [idx] + [bb.constant(np.int32(0)) for _ in a.shape[1:]]
            s = bb.op("stablehlo.dynamic_slice", [x, *starts], a.update(shape=(1, *a.shape[1:])),
                      slice_sizes=bb.i64s([1, *a.shape[1:]]))
            x_slices.append(bb.op("stablehlo.reshape", [s], a.update(shape=a.shape[1:])))
        results = _inline_block(op.regions[0], bblock, consts + carry + x_slices)
        new_ys = []
        for y, v in zip(ys, results[c:]):
            a = mlir.aval_of(y)
            upd = bb.op("stablehlo.reshape", [v], a.update(shape=(1, *a.shape[1:])))
            starts = [idx] + [bb.constant(np.int32(0)) for _ in a.shape[1:]]
            new_ys.append(bb.op("stablehlo.dynamic_update_slice", [y, upd, *starts], a))
        one = bb.constant(np.int32(1))
        i1 = bb.op("stablehlo.add", [i, one], i32)
        bb.ret([i1] + consts + list(results[:c]) + xs + new_ys)
        return list(loop.results[1 + k:1 + k + c]) + list(loop.results[1 + k + c + xs_n:])


def _move_block(src, dst, arg_types, prefix=None, replace_args=None):
    """Moves ``src``'s block into region ``dst``: new block arguments (or the values
    ``replace_args`` when the destination takes none), irax.return -> stablehlo.return
    (after ``prefix(block)`` values)."""
    ir = mlir.ir()
    old = src.blocks[0]
    block = dst.blocks.append(*(arg_types or []))
    news = list(block.arguments) if replace_args is None else list(replace_args)
    for a, v in zip(old.arguments, news):
        a.replace_all_uses_with(v)
    for inner in list(old.operations):
        if inner.name == "irax.return":
            values = (prefix(block) if prefix else []) + list(inner.operands)
            with mlir.unknown_loc():
                ir.Operation.create("stablehlo.return", operands=values,
                                    ip=ir.InsertionPoint(block))
            inner.erase()
            continue
        block.append(inner)
    return block


def _inline_block(src, block, args):
    """Moves ``src``'s body ops to the end of ``block`` with its arguments replaced by
    ``args``; returns the values its irax.return returned (the return is erased)."""
    old = src.blocks[0]
    for a, v in zip(old.arguments, args):
        a.replace_all_uses_with(v)
    results = None
    for inner in list(old.operations):
        if inner.name == "irax.return":
            results = list(inner.operands)
            inner.erase()
            continue
        block.append(inner)
    return results


def lower_region_ops(module) -> None:
    """Replaces every irax region op (innermost first) by its StableHLO counterpart."""
    from irax.dialect.base import lookup

    ir = mlir.ir()
    todo = []

    def visit(op):
        cls = lookup(op.name)
        if cls is not None and getattr(cls, "region_op", False):
            todo.append(op)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit, ir.WalkOrder.POST_ORDER)
    for op in todo:
        cls = lookup(op.name)
        news = cls.lower_regions(op, cls.decode_attrs(op))
        for old, new in zip(op.results, news):
            old.replace_all_uses_with(new)
        op.erase()
