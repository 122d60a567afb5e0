"""The Python IR verifier for irax ops.

MLIR cannot give unregistered ops traits, so it checks neither their types nor dominance
and terminators inside their regions. This verifier does, for every irax op:
operand count and attributes, types (each op's ``infer`` rule against the stated result
types), callee signatures, and dominance inside irax regions.

    %0 = "irax.add"(%a, %b) : (tensor<3xf32>, tensor<4xf32>) -> tensor<3xf32>
    error: 'irax.add' op expected operands of the same shape and dtype, but got
           float32[3] and float32[4]
"""

from __future__ import annotations

from dataclasses import dataclass

from irax.core.errors import IRError
from irax.dialect import mlir
from irax.dialect.base import OpError, lookup
from irax.dialect.upstream import in_namespace


@dataclass
class Diagnostic:
    location: str
    message: str

    def __str__(self) -> str:
        return f"{self.location}: error: {self.message}"


def verify_module(module) -> None:
    """Raises ``IRError`` listing every diagnostic; returns None for valid IR."""
    diags = collect_diagnostics(module)
    if diags:
        raise IRError("\n".join(str(d) for d in diags))


def collect_diagnostics(module) -> list[Diagnostic]:
    ir = mlir.ir()
    diags: list[Diagnostic] = []
    try:
        module.operation.verify()
    except ir.MLIRError as e:
        for d in getattr(e, "error_diagnostics", []) or []:
            diags.append(Diagnostic(str(d.location), d.message))
        if not diags:
            diags.append(Diagnostic("unknown", str(e)))
        return diags
    symbols = {}
    for op in module.body.operations:
        if "sym_name" in op.attributes:
            symbols[ir.StringAttr(op.attributes["sym_name"]).value] = op
    for fn in module.body.operations:
        for region in fn.regions:
            _verify_region(region, symbols, diags, set())
    return diags


def _verify_region(region, symbols, diags, visible: set) -> None:
    for block in region.blocks:
        scope = set(visible)
        scope.update(block.arguments)
        for op in block.operations:
            _verify_op(op, symbols, diags, scope)
            scope.update(op.results)


def _verify_op(op, symbols, diags, scope) -> None:
    op = op.operation
    name = op.name
    if in_namespace(op, "irax"):
        cls = lookup(name)
        if cls is None:
            diags.append(Diagnostic(str(op.location), f"'{name}' op is not a registered irax op"))
            return
        try:
            _verify_irax_op(cls, op, symbols, scope)
        except OpError as e:
            diags.append(Diagnostic(str(op.location), cls.diag(str(e))))
        if cls is not None and cls.region_op:
            for region in op.regions:  # isolated: only the block's own arguments
                _verify_region(region, symbols, diags, set())
            return
    for region in op.regions:
        _verify_region(region, symbols, diags, scope)


def _verify_irax_op(cls, op, symbols, scope) -> None:
    for i, v in enumerate(op.operands):
        if v not in scope:
            raise OpError(f"operand #{i} does not dominate this use")
    attrs = cls.decode_attrs(op)
    cls.check_arity(len(op.operands))
    if cls.num_regions is not None and len(op.regions) != cls.num_regions:
        raise OpError(f"expected {cls.num_regions} regions, but got {len(op.regions)}")
    if cls.region_op:
        for region in op.regions:
            if len(region.blocks) != 1:
                raise OpError("expected each region to have exactly one block")
    try:
        avals = [mlir.aval_of(v) for v in op.operands]
        stated = [mlir.aval_of(r) for r in op.results]
    except TypeError as e:
        raise OpError(str(e)) from None
    if not cls.infers_results:
        cls.verify_symbols(op, symbols)
        return
    if cls.region_op:
        cls.verify_regions(op, attrs)
    inferred = cls.infer_list(avals, attrs)
    if [a.strip_weak() for a in inferred] != stated:
        got = ", ".join(str(r.type) for r in op.results)
        want = ", ".join(str(mlir.to_ir_type(a)) for a in inferred)
        raise OpError(f"inferred type(s) {want} are incompatible with result type(s) {got}")
