"""Structured construction of region ops, and moving code between functions and regions.

irax region ops (``irax.while``, ``irax.cond``, ``irax.scan``) have isolated regions: each
region is one block whose arguments are the op's operands (values from outside are passed
in explicitly) and which ends in ``irax.return``.

- ``emit_region_op`` builds such an op from Python callables that fill each region;
- ``function_to_region`` moves a traced function's body into a region (how the Python API
  builds them); ``region_to_function`` outlines a region into a private function (how
  derivative and batching rules reuse the function-level machinery: the derivative of a
  loop body is the JVP/VJP of the outlined body function).
"""

from __future__ import annotations

from irax.dialect import funcs, mlir
from irax.dialect.builder import IRBuilder
from irax.dialect.control import Call, Return, is_return


def emit_region_op(b: IRBuilder, op_cls, operands, region_specs, result_avals, **attrs):
    """Creates ``op_cls`` with one region per spec.

    Each spec is ``(arg_avals, fill)`` where ``fill(builder, block_args) -> values`` emits
    the region's body and returns what its ``irax.return`` returns. Returns the results.
    """
    results, _, op = b.emit(op_cls, list(operands), regions=len(region_specs),
                            result_avals=list(result_avals), **attrs)
    for region, (arg_avals, fill) in zip(op.regions, region_specs):
        block = region.blocks.append(*[mlir.to_ir_type(a) for a in arg_avals])
        inner = IRBuilder.at_end(block, b.loc)
        values = fill(inner, list(block.arguments))
        inner.emit(Return, list(values))
    return results


def call(b: IRBuilder, callee: str, operands, result_avals):
    """An ``irax.call`` emitted with builder ``b``."""
    results, _, _ = b.emit(Call, list(operands), result_avals=list(result_avals),
                           callee=callee)
    return results


def function_to_region(fn, region, arg_map) -> None:
    """Moves ``fn``'s body into ``region`` (a new block) and erases ``fn``.

    ``arg_map[i]`` is the index of the region block argument that function argument ``i``
    becomes; the block's argument types are given by the op's operand layout, so the
    caller creates them: ``region`` must already hold one empty block with its arguments.
    """
    ir = mlir.ir()
    block = region.blocks[0]
    body = fn.regions[0].blocks[0]
    for i, arg in enumerate(body.arguments):
        arg.replace_all_uses_with(block.arguments[arg_map[i]])
    for op in list(body.operations):
        if is_return(op):
            with mlir.unknown_loc():
                ir.Operation.create(Return.name, operands=list(op.operands),
                                    ip=ir.InsertionPoint(block))
            op.erase()
            continue
        block.append(op)
    fn.erase()


def region_to_function(ctx, region, name: str) -> str:
    """A private function with a copy of ``region``'s block as body (irax.return becomes
    func.return); returns its (unique) name."""
    ir = mlir.ir()
    block = region.blocks[0]
    in_avals = [mlir.aval_of(a) for a in block.arguments]
    new_name = funcs.unique_name(ctx.module, name)
    fn, body = funcs.create_function(ctx.module, new_name, in_avals)
    env = dict(zip(block.arguments, body.arguments))
    ip = ir.InsertionPoint(body)
    for op in block.operations:
        ins = [env[v] for v in op.operands]
        if is_return(op):
            funcs.finish_function(fn, body, ins)
            break
        new = funcs.clone_op(op, ins, ip)
        for r, nr in zip(op.results, new.results):
            env[r] = nr
    ctx.add_symbol(fn)
    return new_name
