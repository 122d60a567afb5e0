"""Lowering of irax IR to StableHLO with MLIR's dialect-conversion driver.

One conversion pattern per registered op class calls that class's ``lower`` rule; the
driver replaces each irax op by the StableHLO values it returns. ``irax.call`` becomes
``func.call``. The result is checked by the real MLIR/StableHLO verifiers.

Before:
    %0 = "irax.mul"(%arg0, %arg0) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
After:
    %0 = stablehlo.multiply %arg0, %arg0 : tensor<3xf32>
"""

from __future__ import annotations

from irax.core.errors import IRError
from irax.dialect import funcs, mlir
from irax.dialect.base import REGISTRY, OpError, lookup
from irax.dialect.shard import DEVICE_ATTR
from irax.dialect.upstream import FlowTransfer, in_namespace, is_function, op_class
from irax.dialect.verifier import diagnostics_of
from irax.lowering.builder import LoweringBuilder

_state: dict = {}


def _identity_type(t):
    return t


def _pattern_for(op_cls):
    def rewrite(op, adaptor, converter, rewriter):
        with rewriter.ip, op.location:
            out_avals = [mlir.aval_of(r) for r in op.results]
            lb = LoweringBuilder(rewriter.ip, op.location, out_avals)
            try:
                attrs = op_cls.decode_attrs(op)
                values = op_cls.lower(lb, *adaptor.operands, **attrs)
            except OpError as e:
                raise IRError(f"{op.location}: error: {op_cls.diag(str(e))}") from None
            if not isinstance(values, (list, tuple)):
                values = [values]
            rewriter.replace_op(op, list(values))
        return None

    return rewrite


def _patterns():
    frozen = _state.get("patterns")
    if frozen is None or _state.get("n") != len(REGISTRY):
        from iree.compiler import rewrite  # import cost: IREE loads on first use

        converter = rewrite.TypeConverter()
        converter.add_conversion(_identity_type)
        patterns = rewrite.RewritePatternSet()
        for name, op_cls in REGISTRY.items():
            patterns.add_conversion(name, _pattern_for(op_cls), converter)
        frozen = patterns.freeze()
        _state.update(patterns=frozen, converter=converter, n=len(REGISTRY))
    return frozen


def lower_module(module, legalize_chlo: bool = True) -> None:
    """Converts every irax op of ``module`` (in place) to StableHLO and verifies the result."""
    from iree.compiler import rewrite  # import cost: IREE loads on first use

    ir = mlir.ir()
    with mlir.context(), mlir.unknown_loc():
        target = rewrite.ConversionTarget()
        for dialect in ("stablehlo", "chlo", "func", "builtin", "flow"):
            target.add_legal_dialect(dialect)
        lower_region_ops(module)
        declare_host_imports(module)
        try:
            rewrite.apply_full_conversion(module.operation, target, _patterns())
        except ir.MLIRError as e:
            raise IRError(_diagnostics(e, "irax-lower-to-stablehlo failed")) from None
        strip_size_names(module)
        if legalize_chlo and _holds_chlo(module):
            from iree.compiler import passmanager  # import cost: IREE loads on first use

            try:
                passmanager.PassManager.parse(
                    "builtin.module(func.func(chlo-legalize-to-stablehlo))").run(
                        module.operation)
            except ir.MLIRError as e:
                raise IRError(_diagnostics(e, "chlo-legalize-to-stablehlo failed")) from None
        try:
            module.operation.verify()
        except ir.MLIRError as e:
            raise IRError(_diagnostics(e, "lowered StableHLO failed to verify")) from None
        _record_devices(module)


def strip_size_names(module) -> None:
    """Drops irax's names of dynamic sizes from every type (``tensor<?x3xf32, ["b"]>``
    becomes ``tensor<?x3xf32>``): StableHLO and IREE know dynamic sizes, not their names.
    The lowering needed them until here (``LoweringBuilder.dim_value``)."""
    ir = mlir.ir()
    named = []

    def visit(op):
        for r in op.results:
            if _named(r.type):
                named.append(r)
        for region in op.regions:
            for block in region.blocks:
                named.extend(a for a in block.arguments if _named(a.type))
        if is_function(op):
            ftype = ir.FunctionType(ir.TypeAttr(op.attributes["function_type"]).value)
            if any(_named(t) for t in (*ftype.inputs, *ftype.results)):
                op.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(
                    [mlir.plain_type(t) for t in ftype.inputs],
                    [mlir.plain_type(t) for t in ftype.results]))
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    for v in named:
        v.set_type(mlir.plain_type(v.type))


def _named(t) -> bool:
    ir = mlir.ir()
    return t.typeid == ir.RankedTensorType.static_typeid and \
        ir.RankedTensorType(t).encoding is not None


def _holds_chlo(module) -> bool:
    """Whether a rule emitted chlo ops (erf, lgamma, ...), which are then legalized."""
    found = []

    def visit(op):
        if in_namespace(op, "chlo"):
            found.append(op)
            return mlir.ir().WalkResult.INTERRUPT
        return mlir.ir().WalkResult.ADVANCE

    module.operation.walk(visit)
    return bool(found)


def lower_region_ops(module) -> None:
    """Replaces every irax region op (innermost first) by its StableHLO counterpart, its
    ``lower_regions`` rule given a builder positioned before it."""
    ir = mlir.ir()
    todo = []

    def visit(op):
        cls = lookup(op.name)
        if cls is not None and cls.region_op:
            todo.append(op)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit, ir.WalkOrder.POST_ORDER)
    for op in todo:
        cls = lookup(op.name)
        lb = LoweringBuilder(ir.InsertionPoint(op), op.location,
                             [mlir.aval_of(r) for r in op.results])
        try:
            news = cls.lower_regions(lb, op, cls.decode_attrs(op))
        except OpError as e:
            raise IRError(f"{op.location}: error: {cls.diag(str(e))}") from None
        for old, new in zip(op.results, news):
            old.replace_all_uses_with(new)
        op.erase()


def declare_host_imports(module) -> None:
    """Declares the imported host function of every host callback op (``host_import``)
    at the top of ``module``, once per name:

        func.func private @irax_host.cb0__ifloat32_3(tensor<3xf32>)
    """
    ir = mlir.ir()
    found: dict[str, tuple] = {}

    def visit(op):
        cls = lookup(op.name)
        if cls is not None and cls.host_import is not None:
            name, ins, outs = cls.host_import(op)
            found.setdefault(name, (ins, outs))
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    symbols = ir.SymbolTable(module.operation)
    first = module.body.operations[0] if len(module.body.operations) else None
    for name, (ins, outs) in found.items():
        if name in symbols:
            continue
        attrs = {"sym_name": ir.StringAttr.get(name),
                 "function_type": ir.TypeAttr.get(ir.FunctionType.get(ins, outs)),
                 "sym_visibility": ir.StringAttr.get("private")}
        ip = ir.InsertionPoint(first) if first is not None else ir.InsertionPoint(module.body)
        ir.Operation.create("func.func", regions=1, attributes=attrs, ip=ip)


#: module attribute of a lowered module that places values on several devices: how many
#: devices (``@dev0`` ... ``@devN-1``) the compiled program needs
NUM_DEVICES_ATTR = "irax.num_devices"


def _record_devices(module) -> None:
    """Sets ``irax.num_devices`` when transfers, or arguments and results of a public
    function (``irax.device``, which becomes ``iree.abi.affinity``), address devices by
    ordinal."""
    ir = mlir.ir()
    ordinals = []

    def visit(op):
        if op_class(op) is FlowTransfer:
            text = str(op.attributes["target"])
            ordinals.append(int(text.split("@dev", 1)[1].rstrip(">")))
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    for fn in module.body.operations:
        if is_function(fn):
            ordinals += _affinities(fn)
    if ordinals:
        module.operation.attributes[NUM_DEVICES_ATTR] = ir.IntegerAttr.get(
            ir.IntegerType.get_signless(64), max(ordinals) + 1)


def _affinities(fn) -> list[int]:
    """Turns the ``irax.device`` marks of ``fn``'s arguments and results into IREE's
    ``iree.abi.affinity = #hal.device.promise<@devK>``; returns their ordinals."""
    ir = mlir.ir()
    found = []
    for key in ("arg_attrs", "res_attrs"):
        dicts = funcs.entry_attrs(fn, key)
        marked = [d for d in dicts if DEVICE_ATTR in d]
        for d in marked:
            k = ir.IntegerAttr(d.pop(DEVICE_ATTR)).value
            d["iree.abi.affinity"] = ir.Attribute.parse(f"#hal.device.promise<@dev{k}>")
            found.append(k)
        if marked:
            funcs.set_entry_attrs(fn, key, dicts)
    return found


def num_devices(module) -> int:
    """The number of devices a lowered module addresses (0: no explicit placement)."""
    attrs = module.operation.attributes
    if NUM_DEVICES_ATTR not in attrs:
        return 0
    return mlir.ir().IntegerAttr(attrs[NUM_DEVICES_ATTR]).value


def _diagnostics(e, what: str) -> str:
    """MLIR's diagnostics as located lines ``loc: error: <what>: message``."""
    return "\n".join(f"{d.location}: {d.severity}: {what}: {d.message}"
                     if d.severity == "error" else str(d) for d in diagnostics_of(e))
