"""irax-inline: inline calls of private functions (``irax.call``, ``func.call``) and drop
private functions that are no longer referenced.

MLIR's inliner never inlines a function holding unregistered ops; after
``irax-expand-transforms`` the generated functions are ordinary irax code, and inlining
them lets irax-simplify see across the former call boundaries.

Before:
    func.func private @sq(%x: tensor<f32>) -> tensor<f32> {
      %0 = "irax.mul"(%x, %x) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      return %0 : tensor<f32>
    }
    func.func @main(%a: tensor<f32>) -> tensor<f32> {
      %0 = "irax.call"(%a) {callee = @sq} : (tensor<f32>) -> tensor<f32>
      return %0 : tensor<f32>
    }
After:
    func.func @main(%a: tensor<f32>) -> tensor<f32> {
      %0 = "irax.mul"(%a, %a) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      return %0 : tensor<f32>
    }
"""

from __future__ import annotations

from irax.core.errors import IRError
from irax.dialect import funcs, mlir
from irax.dialect.control import is_plain_call, is_return
from irax.dialect.upstream import is_function
from irax.passes.registry import ModulePass, Option, register_pass
from irax.passes.symbol_dce import drop_unreferenced


def _is_call(op) -> bool:
    return is_plain_call(op)


def _callee(op) -> str:
    return mlir.ir().FlatSymbolRefAttr(op.attributes["callee"]).value


def inline_calls(fn, table, depth: int = 0, limit: int = 64) -> int:
    """Inlines every call in ``fn`` (recursively, callees first); returns how many. A call
    nested more than ``limit`` calls deep (a recursive function) is an error at that call."""
    return inline_block(fn.regions[0].blocks[0], table, depth, limit)


def inline_block(block, table, depth: int = 0, limit: int = 64, only=None) -> int:
    """``inline_calls`` for the calls of one block (a function's body or a region op's);
    ``only(call)`` picks the calls to inline (all when None)."""
    count = 0
    for op in list(block.operations):
        if not _is_call(op) or (only is not None and not only(op)):
            continue
        callee = table.get(_callee(op))
        if callee is None or len(callee.regions[0].blocks) != 1:
            continue
        if depth >= limit:
            raise IRError(f"{op.location}: error: '{op.operation.name}' op cannot be inlined: "
                          f"calls nest more than {limit} deep (is @{_callee(op)} recursive?)")
        count += inline_calls(callee, table, depth + 1, limit)
        body = callee.regions[0].blocks[0]
        env = dict(zip(body.arguments, op.operands))

        ip = mlir.ir().InsertionPoint(op)
        for inner in body.operations:
            if is_return(inner):
                for old, new in zip(op.results, [env[v] for v in inner.operands]):
                    old.replace_all_uses_with(new)
                break
            new = funcs.clone_op(inner, [env[v] for v in inner.operands], ip)
            for r, nr in zip(inner.results, new.results):
                env[r] = nr
        op.erase()
        count += 1
    return count


@register_pass
class Inline(ModulePass):
    """irax-inline: inline calls of private functions and drop unreferenced ones"""

    name = "irax-inline"
    options = {"drop-dead": Option(bool, True, "erase private functions no longer called")}

    def run(self, module) -> None:
        table = funcs.symbol_table(module)
        for fn in list(module.body.operations):
            if is_function(fn) and funcs.is_public(fn):
                inline_calls(fn, table)
        if self.option("drop-dead"):
            drop_unreferenced(module)
