"""The batched version of a ``func.func``: every op rewritten by its ``batch`` rule.

``@f(x...) -> y...`` with mapped input dims ``in_dims`` (``None``: not mapped) becomes
``@f_vmap`` whose inputs have the mapped axis inserted at ``in_dims`` and whose results
have it at ``out_axes``. Values that do not depend on a mapped input keep their shape
(``None`` batch dimension) and their ops are copied unchanged, so invariant work is not
repeated per example.

Rule contract: ``cls.batch(b, args, dims, **attrs) -> (outs, out_dims)`` with ``b`` a
``BatchBuilder``, ``args`` the operands' batched IR values and ``dims`` their batch
dimensions (at least one is not None).
"""

from __future__ import annotations

from irax.core.errors import IRError
from irax.dialect import funcs, mlir
from irax.dialect.base import OpError, lookup
from irax.dialect.builder import IRBuilder
from irax.dialect.control import Call, is_return
from irax.dialect.upstream import FuncCall, op_class
from irax.vectorize.builder import BatchBuilder


def vmap_function(ctx, name: str, in_dims: tuple, out_axes: tuple | None, axis_size: int,
                  axis_name: str) -> str:
    """The name of the generated batched function (memoized per options).

    ``out_axes=None`` puts each batched result's batch dimension first and leaves results
    that do not depend on the mapped axis unbatched (see ``result_dims``); an entry
    ``None`` of ``out_axes`` requires that result not to depend on the mapped axis."""
    key = ("vmap", name, in_dims, out_axes, axis_size, axis_name)
    if key in ctx.cache:
        return ctx.cache[key]
    fn = ctx.callee(name)
    in_avals, out_avals = funcs.signature(fn)
    new_in = [a if d is None else a.insert_axis(d, axis_size) for a, d in zip(in_avals, in_dims)]
    new_name = funcs.unique_name(ctx.module, f"{name}_vmap")
    ctx.cache[key] = new_name
    new_fn, block = funcs.create_function(ctx.module, new_name, new_in)
    ctx.add_symbol(new_fn)
    b = BatchBuilder(IRBuilder.at_end(block), ctx, axis_size, axis_name)
    outs, dims = batch_body(b, fn, list(block.arguments), list(in_dims))
    axes = out_axes if out_axes is not None else tuple(None if d is None else 0 for d in dims)
    ctx.cache[("vmap-result-dims", new_name)] = axes
    results = []
    for j, (v, d, ax) in enumerate(zip(outs, dims, axes)):
        if ax is None:
            if d is not None:
                raise IRError(f"irax-vectorize: vmap has mapped output (result {j} of @{name}) "
                              "but out_axes is None")
            results.append(v)
        else:
            results.append(b.matchaxis(v, d, ax))
    funcs.finish_function(new_fn, block, results)
    return new_name


def batch_body(b: BatchBuilder, fn, args, dims):
    """Emits the batched body of ``fn``; returns (values, batch dims) of its results."""
    block = fn.regions[0].blocks[0]
    env = {a: (v, d) for a, v, d in zip(block.arguments, args, dims)}
    for op in block.operations:
        vals = [env[v][0] for v in op.operands]
        ds = [env[v][1] for v in op.operands]
        if is_return(op):
            return vals, ds
        outs, out_dims = batch_op(b, op, vals, ds)
        for r, v, d in zip(op.results, outs, out_dims):
            env[r] = (v, d)
    raise IRError(f"irax-vectorize: @{funcs.symbol_name(fn)} has no return")


def batch_op(b: BatchBuilder, op, vals, dims):
    cls = lookup(op.name)
    b.ir.loc = op.location   # the ops its rule emits stand where it stood
    if op_class(op) is FuncCall or (cls is not None and cls.callee_of is not None and
                                  getattr(cls, "batch", None) is None):
        return _batch_call(b, op, vals, dims)
    if cls is None:
        raise IRError(f"{op.location}: error: irax-vectorize cannot batch '{op.name}'")
    attrs = cls.decode_attrs(op)
    if all(d is None for d in dims) and not _uses_axis(cls, attrs, b.axis_name):
        new = funcs.clone_op(op, vals, b.ir.ip)
        return list(new.results), [None] * len(op.results)
    if cls.batch is None:
        raise IRError(f"{op.location}: error: '{op.name}' op has no batching rule")
    try:
        extra = {"op": op} if cls.region_op else {}  # region rules read the regions
        outs, out_dims = cls.batch(b, vals, dims, **extra, **attrs)
    except OpError as e:
        raise IRError(f"{op.location}: error: {cls.diag(str(e))}") from None
    return list(outs), list(out_dims)


def _uses_axis(cls, attrs, axis_name: str) -> bool:
    """Collectives over the axis being vectorized must be rewritten even when their
    operands are not mapped (``axis_index``)."""
    return bool(axis_name) and attrs.get("axis_name") == axis_name


def _batch_call(b: BatchBuilder, op, vals, dims):
    # With a named axis the callee may hold a collective over it, even when no operand
    # is mapped (``axis_index``); otherwise an unmapped call is copied unchanged.
    if all(d is None for d in dims) and not b.axis_name:
        new = funcs.clone_op(op, vals, b.ir.ip)
        return list(new.results), [None] * len(op.results)
    callee = mlir.ir().FlatSymbolRefAttr(op.attributes["callee"]).value
    name = vmap_function(b.ctx, callee, tuple(dims), None, b.axis_size, b.axis_name)
    out_dims = result_dims(b.ctx, name)
    avals = [mlir.aval_of(r) if d is None else mlir.aval_of(r).insert_axis(0, b.axis_size)
             for r, d in zip(op.results, out_dims)]
    outs = b.emit(Call, vals, result_avals=avals, callee=name)
    return outs, list(out_dims)


def output_batch_dims(ctx, name: str, in_dims, axis_size: int, axis_name: str) -> list:
    """The batch dims that batching ``@name`` over ``in_dims`` gives its results (None:
    unmapped), from the rules alone: the batched body goes into a throwaway function."""
    fn = ctx.callee(name)
    ins = [a if d is None else a.insert_axis(d, axis_size)
           for a, d in zip(funcs.signature(fn)[0], in_dims)]
    _, block = funcs.create_function(ctx.module, funcs.unique_name(ctx.module, "probe"), ins)
    b = BatchBuilder(IRBuilder.at_end(block), ctx, axis_size, axis_name)
    return batch_body(b, fn, list(block.arguments), list(in_dims))[1]


def result_dims(ctx, generated: str) -> tuple:
    """Batch dims of a generated function's results (None: not batched)."""
    return ctx.cache[("vmap-result-dims", generated)]
