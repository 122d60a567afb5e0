"""Helpers for ``func.func`` bodies: signatures, creation, cloning, symbol names.

Transformation passes generate functions (``@f_jvp``, ``@f_vjp``) next to their callee;
these helpers keep that code short and uniform.
"""

from __future__ import annotations

from irax.core.abstract import ShapedArray
from irax.dialect import attrs as A
from irax.dialect import mlir
from irax.dialect.base import lookup
from irax.dialect.upstream import BuiltinModule, FuncCall, op_class


def entry_attrs(fn, key: str) -> list[dict]:
    """The attributes of each argument (``key="arg_attrs"``) or result (``"res_attrs"``)
    of a ``func.func``, as ``{name: Attribute}`` dicts; empty when it has none.

        func.func @f(%x: tensor<3xf32> {jax.buffer_donor = true}) ...
        entry_attrs(f, "arg_attrs") == [{"jax.buffer_donor": BoolAttr(true)}]
    """
    if key not in fn.attributes:
        return []
    ir = mlir.ir()
    return [{a.name: a.attr for a in ir.DictAttr(d)} for d in ir.ArrayAttr(fn.attributes[key])]


def set_entry_attrs(fn, key: str, dicts) -> None:
    """Sets the attributes of each argument or result of a ``func.func`` (``entry_attrs``'
    inverse)."""
    ir = mlir.ir()
    ctx = mlir.context()
    fn.attributes[key] = ir.ArrayAttr.get([ir.DictAttr.get(d, context=ctx) for d in dicts],
                                          context=ctx)


def symbol_name(op) -> str:
    return mlir.ir().StringAttr(op.attributes["sym_name"]).value


def symbol_table(module) -> dict:
    return {symbol_name(op): op for op in module.body.operations
            if "sym_name" in op.operation.attributes}


def enclosing_module(op):
    """The ``builtin.module`` holding ``op`` (None when it is detached)."""
    op = op.operation
    while op is not None and op_class(op) is not BuiltinModule:
        op = op.parent
    return op


def callee_body(call, module):
    """The entry block of the function a ``func.call``/``irax.call`` runs, or None when
    ``module`` does not define it (or only declares it)."""
    ir = mlir.ir()
    name = ir.FlatSymbolRefAttr(call.attributes["callee"]).value
    try:
        fn = ir.SymbolTable(module.operation)[name]
    except KeyError:
        return None
    blocks = fn.regions[0].blocks
    return blocks[0] if len(blocks) else None    # a declaration (a host import) has none


def signature(fn) -> tuple[list[ShapedArray], list[ShapedArray]]:
    ir = mlir.ir()
    ftype = ir.FunctionType(ir.TypeAttr(fn.attributes["function_type"]).value)
    return ([mlir.aval_of_type(t) for t in ftype.inputs],
            [mlir.aval_of_type(t) for t in ftype.results])


def unique_name(module, base: str) -> str:
    taken = symbol_table(module)
    if base not in taken:
        return base
    i = 1
    while f"{base}_{i}" in taken:
        i += 1
    return f"{base}_{i}"


def create_function(module, name: str, in_avals, private: bool = True, before=None):
    """Creates an empty ``func.func`` with the given inputs (results set by ``finish``).
    Returns ``(func_op, entry_block)``."""
    ir = mlir.ir()
    ftype = ir.FunctionType.get([mlir.to_ir_type(a) for a in in_avals], [])
    attrs = {"sym_name": ir.StringAttr.get(name), "function_type": ir.TypeAttr.get(ftype)}
    if private:
        attrs["sym_visibility"] = ir.StringAttr.get("private")
    ip = ir.InsertionPoint(before) if before is not None else ir.InsertionPoint(module.body)
    with mlir.unknown_loc():
        fn = ir.Operation.create("func.func", regions=1, attributes=attrs, ip=ip)
        block = fn.regions[0].blocks.append(*[mlir.to_ir_type(a) for a in in_avals])
    return fn, block


def finish_function(fn, block, results) -> None:
    """Appends ``func.return results`` and fixes the function type."""
    ir = mlir.ir()
    with mlir.unknown_loc():
        ir.Operation.create("func.return", operands=list(results), ip=ir.InsertionPoint(block))
    inputs = [a.type for a in block.arguments]
    ftype = ir.FunctionType.get(inputs, [r.type for r in results])
    fn.attributes["function_type"] = ir.TypeAttr.get(ftype)


def clone_op(op, operands, ip):
    """A copy of ``op`` with new operands, inserted at ``ip``.

    Attributes are copied natively, never read into Python: the bindings abort the
    process when they read a complex-valued dense attribute."""
    new = op.operation.clone(ip=ip)
    for i, v in enumerate(operands):
        new.operands[i] = v
    return new


def is_public(fn) -> bool:
    """Whether a ``func.func`` is public (callable from outside the module)."""
    if "sym_visibility" not in fn.attributes:
        return True
    return mlir.ir().StringAttr(fn.attributes["sym_visibility"]).value == "public"


def function_blocks(module):
    """The top-level blocks of every function of ``module`` (what the per-block cleanup
    passes walk; region ops' bodies are left to their own rules)."""
    for fn in module.body.operations:
        for region in fn.regions:
            yield from region.blocks


def body_ops(fn):
    return list(fn.regions[0].blocks[0].operations)


def reachable_functions(module, name: str) -> list:
    """The functions of ``module`` reachable from ``@name`` through symbol references
    (``@name`` first)."""
    ir = mlir.ir()
    table = symbol_table(module)
    seen, order, todo = set(), [], [name]
    while todo:
        n = todo.pop()
        if n in seen or n not in table:
            continue
        seen.add(n)
        fn = table[n]
        order.append(fn)

        def visit(op):
            todo.extend(symbol_refs(op))
            return ir.WalkResult.ADVANCE

        fn.operation.walk(visit)
    return order


def symbol_attr_names(op) -> list[str]:
    """The names of an op's attributes that reference functions: its class's symbol
    attributes (``func.call``'s callee too)."""
    if op_class(op) is FuncCall:
        return ["callee"]
    cls = lookup(op.name)
    if cls is None:
        return []
    return [k for k, kind in cls.attributes.items() if kind is A.Symbol
            and k in op.attributes]


def symbol_refs(op) -> list[str]:
    """Function names an op references (``symbol_attr_names``). Other attributes are
    never decoded."""
    named = op.attributes
    return [A.Symbol.decode(named[k]) for k in symbol_attr_names(op)]
