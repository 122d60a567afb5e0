"""The Python IR verifier for irax ops.

MLIR cannot give unregistered ops traits, so it checks neither their types nor dominance
and terminators inside their regions. This verifier does, for every irax op:
operand count and attributes, types (each op's ``infer`` rule against the stated result
types), callee signatures, dominance inside irax regions, and terminators: a function's
blocks end in ``func.return``, an irax region's block ends in ``irax.return``, and a
terminator ends its block.

    %0 = "irax.add"(%a, %b) : (tensor<3xf32>, tensor<4xf32>) -> tensor<3xf32>
    error: 'irax.add' op expected operands of the same shape and dtype, but got
           float32[3] and float32[4]

The walk keeps its own stack (no recursion), so a deeply nested module is verified, not a
``RecursionError``.
"""

from __future__ import annotations

import inspect
import itertools
from dataclasses import dataclass

from irax.core.errors import IRError
from irax.core.shape_poly import ANONYMOUS
from irax.dialect import attrs as A
from irax.dialect import funcs, mlir
from irax.dialect.base import OpError, lookup
from irax.dialect.control import Return
from irax.dialect.shard import DEVICE_ATTR
from irax.dialect.upstream import FuncFunc, FuncReturn, in_namespace, op_class


@dataclass
class Diagnostic:
    location: str
    message: str
    severity: str = "error"

    def __str__(self) -> str:
        return f"{self.location}: {self.severity}: {self.message}"


def verify_module(module) -> None:
    """Raises ``IRError`` listing every diagnostic; returns None for valid IR."""
    diags = collect_diagnostics(module)
    if diags:
        raise IRError("\n".join(str(d) for d in diags))


def diagnostics_of(error) -> list[Diagnostic]:
    """The diagnostics an ``ir.MLIRError`` carries (each error, then its notes); an error
    without any is one diagnostic at an unknown location."""
    diags = []
    for d in getattr(error, "error_diagnostics", None) or []:
        diags.append(Diagnostic(str(d.location), d.message))
        for note in getattr(d, "notes", None) or []:
            diags.append(Diagnostic(str(note.location), note.message, "note"))
    if not diags:
        diags.append(Diagnostic("loc(unknown)", " ".join(str(error).split())))
    return diags


def collect_diagnostics(module) -> list[Diagnostic]:
    """MLIR's verifier, then (if it passes) the irax checks; every diagnostic found."""
    ir = mlir.ir()
    try:
        module.operation.verify()
    except ir.MLIRError as e:
        return [d for d in diagnostics_of(e) if d.severity == "error"]
    symbols = {}
    for op in module.body.operations:
        if "sym_name" in op.attributes:
            symbols[ir.StringAttr(op.attributes["sym_name"]).value] = op
    diags: list[Diagnostic] = []
    _Walk(symbols, diags).run(list(module.body.operations))
    return diags


class _Walk:
    """Visits every op below the module's ops, each region with a generator on an explicit
    stack. ``visible`` maps each value defined so far on the current path to the isolation
    scope it was defined in; a use dominates if its value is visible in the same scope."""

    def __init__(self, symbols, diags):
        self.symbols, self.diags = symbols, diags
        self.visible: dict = {}
        self.scopes = itertools.count()

    def run(self, top_ops) -> None:
        for op in top_ops:
            self.check_function(op)
            for region in op.regions:  # functions are isolated
                stack = [self.region(region, next(self.scopes), None)]
                while stack:
                    child = next(stack[-1], None)
                    if child is None:
                        stack.pop()
                    else:
                        stack.append(child)

    def region(self, region, scope: int, parent_cls):
        """Verifies the ops of ``region``'s blocks in order; yields the walker of each
        nested region before defining its op's results."""
        for block in region.blocks:
            defined = list(block.arguments)
            for a in defined:
                self.visible[a] = scope
            ops = list(block.operations)
            for i, op in enumerate(ops):
                isolated = self.verify_op(op, scope, parent_cls, last=i == len(ops) - 1)
                cls = op_class(op)
                inner = next(self.scopes) if isolated else scope
                for nested in op.regions:
                    yield self.region(nested, inner, cls)
                for r in op.results:
                    self.visible[r] = scope
                defined += op.results
            for v in defined:
                self.visible.pop(v, None)

    def error(self, op, message: str) -> None:
        self.diags.append(Diagnostic(str(op.location), message))

    def check_function(self, op) -> None:
        """Each block of a ``func.func`` body ends in ``func.return`` or in a registered
        terminator (``cf.br``, which MLIR verifies); an unregistered op cannot end it."""
        if op_class(op) is not FuncFunc:
            return
        ctx = mlir.context()
        for region in op.regions:
            for block in region.blocks:
                ops = list(block.operations)
                last = ops[-1].operation if ops else None
                if last is not None and (op_class(last) is FuncReturn or
                                         ctx.is_registered_operation(last.name)):
                    continue
                got = f"it ends in '{last.name}'" if last is not None else "it is empty"
                self.error(op, f"'{FuncFunc.name}' op expected the body to end in "
                               f"'{FuncReturn.name}', but {got}")
        self.check_devices(op)

    def check_devices(self, op) -> None:
        """An argument's or result's ``irax.device`` (the device it arrives on or is left
        on) is a non-negative i64 ordinal."""
        ir = mlir.ir()
        for key, what in (("arg_attrs", "argument"), ("res_attrs", "result")):
            for i, d in enumerate(funcs.entry_attrs(op, key)):
                if DEVICE_ATTR not in d:
                    continue
                a = d[DEVICE_ATTR]
                ok = isinstance(a, ir.IntegerAttr) and isinstance(a.type, ir.IntegerType) \
                    and a.type.width == 64 and a.value >= 0
                if not ok:
                    self.error(op, f"'{FuncFunc.name}' op expected {what} {i}'s "
                                   f"'{DEVICE_ATTR}' to be a non-negative i64 device "
                                   f"ordinal, but got {a}")

    def verify_op(self, op, scope: int, parent_cls, last: bool) -> bool:
        """Checks one op; returns whether its regions are isolated from above."""
        op = op.operation
        if not in_namespace(op, "irax"):
            return False
        cls = lookup(op.name)
        if cls is None:
            self.error(op, f"'{op.name}' op is not a registered irax op")
            return False
        try:
            if cls.terminator:
                _check_terminator(cls, parent_cls, last)
            self.check_irax_op(cls, op, scope)
        except OpError as e:
            self.error(op, cls.diag(str(e)))
        return cls.region_op

    def check_irax_op(self, cls, op, scope: int) -> None:
        for i, v in enumerate(op.operands):
            if self.visible.get(v) != scope:
                raise OpError(f"operand #{i} does not dominate this use")
        attrs = cls.decode_attrs(op)
        cls.check_arity(len(op.operands))
        if cls.num_regions is not None and len(op.regions) != cls.num_regions:
            raise OpError(f"expected {cls.num_regions} regions, but got {len(op.regions)}")
        if cls.region_op:
            for region in op.regions:
                if len(region.blocks) != 1:
                    raise OpError("expected each region to have exactly one block")
                ops = list(region.blocks[0].operations)
                if not ops or op_class(ops[-1]) is not Return:
                    raise OpError(f"expected each region to end in '{Return.name}'")
        try:
            avals = [mlir.aval_of(v) for v in op.operands]
            stated = [mlir.aval_of(r) for r in op.results]
        except TypeError as e:
            raise OpError(str(e)) from None
        for v in (*op.operands, *op.results):
            if any(d == ANONYMOUS for d in mlir.aval_of(v).shape):
                raise OpError(f"expected every dynamic size to be named "
                              f"(tensor<?x3xf32, [\"b\"]>), but got {v.type}")
        self.check_symbols(cls, attrs)
        if not cls.infers_results:
            cls.verify_symbols(op, self.symbols)
            return
        if cls.region_op:
            cls.verify_regions(op, attrs)
        _check_infer_arity(cls, avals, attrs)
        inferred = cls.infer_list(avals, attrs)
        if [a.strip_weak() for a in inferred] != stated:
            got = ", ".join(str(r.type) for r in op.results) or "()"
            want = ", ".join(str(mlir.to_ir_type(a)) for a in inferred) or "()"
            raise OpError(f"inferred type(s) {want} are incompatible with result type(s) {got}")


    def check_symbols(self, cls, attrs) -> None:
        """Each symbol an op names is a function; one that is transformed or inlined (by
        any op but a plain call) has a body, not just a declaration."""
        for key, kind in cls.attributes.items():
            fn = self.symbols.get(attrs[key]) if kind is A.Symbol else None
            if fn is None:
                continue  # not a symbol, or missing: verify_symbols says so
            if op_class(fn) is not FuncFunc:
                raise OpError(f"'{attrs[key]}' does not reference a valid function")
            if not cls.plain_call and not len(fn.regions[0].blocks):
                raise OpError(f"@{attrs[key]} is a declaration, but the op needs the "
                              "function's body")


_SIGNATURES: dict = {}


def _check_infer_arity(cls, avals, attrs) -> None:
    """The operand count the ``infer`` rule's parameters take, for variadic ops
    (``num_operands = None``) whose rule still needs some operands."""
    sig = _SIGNATURES.get(cls)
    if sig is None:
        sig = _SIGNATURES[cls] = inspect.signature(cls.infer)
    try:
        sig.bind(*avals, **attrs)
        return
    except TypeError:
        sig.bind_partial(**attrs)  # the attributes bind: the operands do not
    positional = [p for p in sig.parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    required = sum(p.default is p.empty for p in positional)
    if any(p.kind is p.VAR_POSITIONAL for p in sig.parameters.values()):
        want = f"at least {required}"
    elif required == len(positional):
        want = f"{required}"
    else:
        want = f"{required} to {len(positional)}"
    raise OpError(f"expected {want} operands, but got {len(avals)}")


def _check_terminator(cls, parent_cls, last: bool) -> None:
    """A terminator (``irax.return``) ends a block of an irax region op."""
    if parent_cls is None or not getattr(parent_cls, "region_op", False):
        raise OpError("expects its parent op to be an irax region op")
    if not last:
        raise OpError("must be the last operation in the parent block")
