"""The reference interpreter: evaluates irax functions on NumPy arrays.

Each op is evaluated by its class's ``evaluate`` rule; ``irax.call`` and ``func.call``
recurse into the callee. This is the semantics every compiled result is checked against.

    >>> evaluate_function(module, "main", [np.ones(3, np.float32)])
    [array([2., 2., 2.], dtype=float32)]
"""

from __future__ import annotations

import numpy as np

from irax.core.errors import IRError
from irax.core.shape_poly import Dim, evaluate_shape, is_static
from irax.dialect import mlir
from irax.dialect.base import OpError, lookup
from irax.dialect.upstream import FuncCall, op_class


class Interpreter:
    """Runs functions of ``module``. Symbolic sizes (``tensor<?x3xf32, ["b"]>``) take the
    values the arguments give them (``sizes``: name -> int) and are substituted in the
    attributes and result types each rule sees."""

    def __init__(self, module):
        ir = mlir.ir()
        self.sizes: dict[str, int] = {}
        self.symbols = {}
        for op in module.body.operations:
            if "sym_name" in op.attributes:
                self.symbols[ir.StringAttr(op.attributes["sym_name"]).value] = op

    def call(self, name: str, args) -> list[np.ndarray]:
        fn = self.symbols.get(name)
        if fn is None:
            raise IRError(f"no function @{name} in the module")
        return self.run_region(fn.regions[0], list(args))

    def run_region(self, region, args) -> list[np.ndarray]:
        block = region.blocks[0]
        env = {}
        if len(block.arguments) != len(args):
            raise IRError(f"expected {len(block.arguments)} arguments, got {len(args)}")
        for a, v in zip(block.arguments, args):
            aval = mlir.aval_of(a)
            v = np.asarray(v).astype(aval.dtype, copy=False)
            env[a] = v.reshape(self._shape(aval.shape, v.shape))
        for op in block.operations:
            operands = [env[v] for v in op.operands]
            cls = op_class(op)
            if cls is not None and cls.terminator:
                return operands
            if cls is FuncCall or (cls is not None and cls.callee_of is not None):
                callee = mlir.ir().FlatSymbolRefAttr(op.attributes["callee"]).value
                outs = self.call(callee, operands)
            else:
                outs = self.run_op(op, operands, env)
            for r, v in zip(op.results, outs):
                env[r] = v
        raise IRError("block has no terminator")

    def run_op(self, op, operands, env):
        cls = lookup(op.name)
        if cls is None:
            raise IRError(f"{op.location}: error: the interpreter cannot evaluate '{op.name}'")
        try:
            attrs = cls.decode_attrs(op)
        except OpError as e:
            raise IRError(f"{op.location}: error: {cls.diag(str(e))}") from None
        out_avals = [mlir.aval_of(r) for r in op.results]
        if self.sizes:
            out_avals = [a if a.is_static else a.update(shape=evaluate_shape(a.shape, self.sizes))
                         for a in out_avals]
            attrs = {k: self._concrete(v) for k, v in attrs.items()}
        if cls.region_op:
            return cls.evaluate_regions(self, op, operands, attrs, out_avals)
        return cls.evaluate_list(operands, attrs, out_avals)


    def _shape(self, shape, actual) -> tuple:
        """``shape`` with its symbolic sizes bound to those of ``actual``."""
        if is_static(shape):
            return shape
        for d, n in zip(shape, actual):
            if type(d) is Dim and d.symbol_name is not None:
                self.sizes.setdefault(d.symbol_name, int(n))
        return evaluate_shape(shape, self.sizes)

    def _concrete(self, value):
        if type(value) is tuple and not is_static(value):
            return evaluate_shape(value, self.sizes)
        return value


def evaluate_function(module, name: str, args) -> list[np.ndarray]:
    return Interpreter(module).call(name, args)
