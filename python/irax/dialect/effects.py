"""Which ops have side effects, for the passes that delete, merge or move ops.

An op has side effects when its class says so (``has_side_effects``), when an op in its
regions has, or when a function it references (a callee, a custom rule, a transformed
function) contains one. ``irax-dce`` keeps such ops when their results are unused,
``irax-cse`` never merges them, loop-invariant code motion never hoists them and folding
never replaces them.

    "irax.call"(%x) {callee = @log}      // @log holds an effectful op: kept by irax-dce
"""

from __future__ import annotations

from irax.dialect import funcs, mlir
from irax.dialect.base import lookup


def effect_only(op) -> bool:
    """An op with side effects and no results (a print: ``irax.debug_callback``): what
    runs only for its effect, so that a recomputation may leave it out."""
    cls = lookup(op.name)
    return cls is not None and cls.has_side_effects and len(op.results) == 0


class Effects:
    """Answers ``has_effects(op)`` for the ops of one module (memoized per function)."""

    def __init__(self, module):
        self.symbols = funcs.symbol_table(module)
        self._functions: dict[str, bool] = {}

    def has_effects(self, op) -> bool:
        found = []

        def visit(inner):
            if self._own(inner):
                found.append(inner)
                return mlir.ir().WalkResult.INTERRUPT
            return mlir.ir().WalkResult.ADVANCE

        op.operation.walk(visit)
        return bool(found)

    def _own(self, op) -> bool:
        """The op itself, or a function it references, has effects (not its regions:
        ``walk`` visits those)."""
        cls = lookup(op.name)
        if cls is not None and cls.has_side_effects:
            return True
        return any(self.function_has_effects(name) for name in funcs.symbol_refs(op))

    def function_has_effects(self, name: str) -> bool:
        hit = self._functions.get(name)
        if hit is not None:
            return hit
        self._functions[name] = False  # recursion: assume none while looking
        fn = self.symbols.get(name)
        result = fn is not None and any(self.has_effects(op) for op in funcs.body_ops(fn))
        self._functions[name] = result
        return result
