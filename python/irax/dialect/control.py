"""Function-level ops: calls and returns.

    %r:2 = "irax.call"(%a, %b) {callee = @f} : (tensor<f32>, tensor<f32>) -> (tensor<f32>, ...)
    "irax.return"(%r#0) : (tensor<f32>) -> ()      // terminator of irax region ops

Result types of ``irax.call`` come from the callee's signature, which lives in the module:
the class sets ``infers_results = False``, builders pass ``result_avals=``, and the verifier
checks operand and result types against the callee (``verify_symbols``).
"""

from __future__ import annotations

from irax.dialect import attrs as A
from irax.dialect import funcs, mlir
from irax.dialect import sharding as S
from irax.dialect.base import Op, OpError
from irax.dialect.upstream import op_class


class Call(Op):
    """A call of a ``func.func`` of the same module; lowers to ``func.call``."""

    name = "irax.call"
    shard = classmethod(S.replicated)
    attributes = {"callee": A.Symbol}
    infers_results = False
    plain_call = True
    raises_from = "func.call"
    no_rules = {"jvp": "autodiff differentiates the callee (jvp_function / linearize_body)",
                "batch": "irax-vectorize batches the callee (vmap_function)"}

    @classmethod
    def raise_attrs(cls, op):
        return {"callee": mlir.ir().FlatSymbolRefAttr(op.attributes["callee"]).value}

    @classmethod
    def infer(cls, *avals, callee):
        raise OpError("result types of irax.call come from the callee")

    @classmethod
    def callee_of(cls, attrs) -> str:
        return attrs["callee"]

    @classmethod
    def verify_symbols(cls, op, symbols) -> None:
        """Checks operand and result types against the callee's signature."""
        callee = cls.decode_attrs(op)["callee"]
        fn = symbols.get(callee)
        if fn is None:
            raise OpError(f"'{callee}' does not reference a valid function")
        ftype = mlir.ir().FunctionType(mlir.ir().TypeAttr(fn.attributes["function_type"]).value)
        ins = [v.type for v in op.operands]
        outs = [r.type for r in op.results]
        if list(ftype.inputs) != ins:
            raise OpError(f"operand types {_types(ins)} do not match the callee's inputs "
                          f"{_types(ftype.inputs)}")
        if list(ftype.results) != outs:
            raise OpError(f"result types {_types(outs)} do not match the callee's results "
                          f"{_types(ftype.results)}")

    @classmethod
    def evaluate(cls, *arrays, callee):
        raise OpError("irax.call is evaluated by the interpreter, which knows the module")

    @classmethod
    def lower(cls, lb, *operands, callee):
        ir = mlir.ir()
        op = lb.create("func.call", operands, [lb.type(a) for a in lb.out_avals],
                       {"callee": ir.FlatSymbolRefAttr.get(callee)})
        return list(op.results)


class Return(Op):
    """Terminator of the regions of irax control-flow ops."""

    name = "irax.return"
    differentiable = True
    terminator = True
    no_rules = {"jvp": "a terminator: the region's rule returns its operands' tangents",
                "batch": "a terminator: the region's rule returns its batched operands",
                "shard": "a terminator: irax-partition returns its operands as the results"}

    @classmethod
    def infer(cls, *avals):
        return []

    @classmethod
    def evaluate(cls, *arrays):
        return list(arrays)

    @classmethod
    def lower(cls, lb, *operands):
        lb.create("stablehlo.return", operands, [])
        return []


def is_plain_call(op) -> bool:
    """``func.call`` or ``irax.call`` (not the call-like ops with derivative rules)."""
    cls = op_class(op)
    return cls is not None and cls.plain_call


def is_return(op) -> bool:
    """A terminator: ``func.return`` ending a function, ``irax.return`` a region."""
    cls = op_class(op)
    return cls is not None and cls.terminator


def copy_block(block, values, ip, body_of, copied=None) -> list:
    """The ops of ``block`` copied at ``ip`` on ``values`` (new values of its arguments),
    plain calls inlined (``body_of(call)``: the callee's entry block); ``copied(op,
    results)`` sees each copied op. Returns the new values of the block's results.

        copy_block(fn.regions[0].blocks[0], args, builder.ip,
                   lambda call: funcs.callee_body(call, module))
    """
    env = dict(zip(block.arguments, values))
    for op in block.operations:
        args = [env[v] for v in op.operands]
        if is_return(op):
            return args
        if is_plain_call(op):
            outs = copy_block(body_of(op), args, ip, body_of, copied)
        else:
            outs = list(funcs.clone_op(op, args, ip).results)
            if copied is not None:
                copied(op, outs)
        env.update(zip(op.results, outs))
    raise ValueError("a block without a terminator")


def _types(ts) -> str:
    return "(" + ", ".join(str(t) for t in ts) + ")"
