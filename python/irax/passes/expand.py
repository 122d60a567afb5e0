"""Expansion of transformation ops, shared by irax-autodiff, irax-vectorize, irax-shard and
irax-expand-transforms.

A pass expands the transformation ops of the classes it names (``expands``). Functions are
visited callee first, so a transformation always sees a callee free of pending
transformations: innermost first, at any nesting depth and any mix of kinds. A pass that
meets a callee still holding a transformation of another kind reports which pass to run
first. ``ExpandContext`` is the ``TransformContext`` the op rules see (``b.ctx``): the
module's symbol table and every function-level transformation, memoized.

Before:
    %g = "irax.vmap"(%xs) {callee = @df, in_axes = array<i64: 0>, ...}
    func.func private @df(%x) { %0 = "irax.grad"(%x) {callee = @f, ...} ... }
After (irax-expand-transforms):
    %g = "irax.call"(%xs) {callee = @df_vmap}   // @df_vmap batches @df's expanded body
"""

from __future__ import annotations

from irax.autodiff.jvp import jvp_function
from irax.autodiff.quiet import quiet_function
from irax.autodiff.remat import saving_forward
from irax.autodiff.vjp import linearize_body, vjp_function
from irax.core.errors import IRError
from irax.dialect import funcs, mlir
from irax.dialect.base import OpError, lookup
from irax.dialect.builder import IRBuilder
from irax.dialect.control import Call
from irax.dialect.transform import TransformOp
from irax.dialect.upstream import is_function
from irax.shard.split import shard_function
from irax.vectorize.batch import result_dims, vmap_function


class ExpandContext:
    """Symbol table and memoized generated functions of one module (for one pass run);
    implements ``dialect.rules.TransformContext``."""

    def __init__(self, module, kinds: tuple[type[TransformOp], ...] = ()):
        self.module = module
        self.kinds = kinds
        self.symbols = funcs.symbol_table(module)
        self.cache: dict = {}
        self.done: set = set()

    def callee(self, name: str):
        fn = self.symbols.get(name)
        if fn is None:
            raise IRError(f"no function @{name} in the module")
        return fn

    def add_symbol(self, fn) -> None:
        self.symbols[funcs.symbol_name(fn)] = fn

    # ---- the function-level transformations rules may ask for ---------------------------
    def jvp(self, name: str) -> str:
        return jvp_function(self, name)

    def vjp(self, name: str, wrt, ct_outputs, policy: str | None = None) -> str:
        return vjp_function(self, name, tuple(wrt), tuple(ct_outputs), policy)

    def quiet(self, name: str) -> str:
        return quiet_function(self, name)

    def checkpoint_forward(self, name: str, policy: str):
        return saving_forward(self, name, policy)

    def vmap(self, name: str, in_dims, out_axes, axis_size: int, axis_name: str) -> str:
        return vmap_function(self, name, tuple(in_dims),
                             None if out_axes is None else tuple(out_axes), axis_size,
                             axis_name)

    def vmap_result_dims(self, name: str) -> tuple:
        return result_dims(self, name)

    def discard(self, name: str) -> None:
        fn = self.symbols.pop(name, None)
        if fn is None:
            return
        self.cache = {k: v for k, v in self.cache.items() if v != name and
                      not (isinstance(k, tuple) and len(k) > 1 and k[1] == name)}
        fn.operation.erase()

    def shard(self, callee, in_axes, out_axes, axis_size, axis_name, devices,
              **mesh) -> str:
        return shard_function(self, callee, in_axes, out_axes, axis_size, axis_name, devices,
                              **mesh)

    def linearize(self, b, name: str, primals, tangents):
        return linearize_body(self, b, self.callee(name), primals, tangents)


def expand_module(module, kinds: tuple[type[TransformOp], ...], pass_name: str) -> None:
    """Expands every transformation op of a class in ``kinds``."""
    ctx = ExpandContext(module, kinds)
    for fn in list(module.body.operations):
        if is_function(fn):
            expand_function(ctx, fn, pass_name)


def expand_function(ctx: ExpandContext, fn, pass_name: str) -> None:
    name = funcs.symbol_name(fn)
    if name in ctx.done:
        return
    ctx.done.add(name)
    for op in _all_ops(fn):
        cls = lookup(op.name)
        if cls is None or not issubclass(cls, TransformOp):
            continue
        attrs = cls.decode_attrs(op)
        if not issubclass(cls, ctx.kinds):
            if cls.keeps_own_rules:  # outer rules will transform its callee: clean it first
                expand_function(ctx, ctx.callee(attrs["callee"]), pass_name)
            continue
        callee = ctx.callee(attrs["callee"])
        expand_function(ctx, callee, pass_name)
        _check_no_pending(ctx, callee, pass_name, op)
        key = (cls, tuple(sorted(attrs.items())))
        generated = ctx.cache.get(key)
        if generated is None:
            try:
                generated = cls.expand(ctx, op, **attrs)
            except OpError as e:
                raise IRError(f"{op.location}: error: {cls.diag(str(e))}") from None
            ctx.cache[key] = generated
        b = IRBuilder.before(op, loc=op.location)
        results, _, _ = b.emit(Call, list(op.operands),
                               result_avals=[mlir.aval_of(r) for r in op.results],
                               callee=generated)
        for old, new in zip(op.results, results):
            old.replace_all_uses_with(new)
        op.erase()


def _all_ops(fn) -> list:
    """Every op of ``fn``, nested regions (loop bodies, branches) included."""
    ir = mlir.ir()
    ops = []

    def visit(op):
        if not is_function(op):
            ops.append(op)
        return ir.WalkResult.ADVANCE

    fn.operation.walk(visit)
    return ops


def _check_no_pending(ctx, callee, pass_name: str, at) -> None:
    for op in _all_ops(callee):
        cls = lookup(op.name)
        if cls is None or not issubclass(cls, TransformOp):
            continue
        if cls.keeps_own_rules:
            _check_no_pending(ctx, ctx.callee(cls.decode_attrs(op)["callee"]), pass_name, at)
        else:
            raise IRError(
                f"{at.location}: error: {pass_name}: @{funcs.symbol_name(callee)} contains "
                f"'{op.name}', which {cls.expanded_by} must expand first (or run "
                "irax-expand-transforms)")
