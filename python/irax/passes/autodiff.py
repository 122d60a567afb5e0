"""irax-autodiff: expand irax.jvp / irax.vjp / irax.grad / irax.value_and_grad.

Each transformation op is replaced by an ``irax.call`` of a generated private function,
innermost first (a callee's own transformation ops are expanded before it is
differentiated, so grad of grad works), memoized per callee and options.

Before:
    func.func private @f(%x: tensor<f32>) -> tensor<f32> {
      %0 = "irax.sin"(%x) : (tensor<f32>) -> tensor<f32>
      return %0 : tensor<f32>
    }
    func.func @main(%x: tensor<f32>) -> tensor<f32> {
      %g = "irax.grad"(%x) {argnums = array<i64: 0>, callee = @f} : ...
After:
    func.func private @f_vjp(%x: tensor<f32>, %ct: tensor<f32>) -> (tensor<f32>, tensor<f32>)
      ... "irax.cos"(%x) ... "irax.mul"(%ct, %cos) ...
    func.func private @f_grad(%x: tensor<f32>) -> tensor<f32>  // calls @f_vjp with ct = 1
    func.func @main(%x: tensor<f32>) -> tensor<f32> {
      %g = "irax.call"(%x) {callee = @f_grad} : (tensor<f32>) -> tensor<f32>
"""

from __future__ import annotations

from irax.passes.registry import ModulePass, register_pass


@register_pass
class Autodiff(ModulePass):
    """irax-autodiff: expand differentiation ops into generated functions"""

    name = "irax-autodiff"

    def run(self, module) -> None:
        from irax.autodiff.jvp import JVPContext

        ctx = JVPContext(module)
        done: set = set()
        for fn in list(module.body.operations):
            if fn.operation.name == "func.func":
                expand_function(ctx, fn, done)


def expand_function(ctx, fn, done: set) -> None:
    from irax.dialect import funcs
    from irax.dialect.base import OpError, lookup
    from irax.dialect.builder import IRBuilder
    from irax.dialect.control import Call
    from irax.dialect.transform import TransformOp
    from irax.errors import IRError

    name = funcs.symbol_name(fn)
    if name in done:
        return
    done.add(name)
    for op in funcs.body_ops(fn):
        cls = lookup(op.name)
        if cls is None or not issubclass(cls, TransformOp) or cls.expanded_by != Autodiff.name:
            continue
        attrs = cls.decode_attrs(op)
        expand_function(ctx, ctx.callee(attrs["callee"]), done)
        key = (cls.name, tuple(sorted(attrs.items())))
        generated = ctx.cache.get(key)
        if generated is None:
            try:
                generated = cls.expand(ctx, op, **attrs)
            except OpError as e:
                raise IRError(f"{op.location}: error: {cls.diag(str(e))}") from None
            ctx.cache[key] = generated
        b = IRBuilder.before(op)
        from irax.dialect import mlir

        results, _, _ = b.emit(Call, list(op.operands),
                               result_avals=[mlir.aval_of(r) for r in op.results],
                               callee=generated)
        for old, new in zip(op.results, results):
            old.replace_all_uses_with(new)
        op.erase()
