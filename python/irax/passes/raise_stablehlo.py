"""irax-raise-stablehlo: convert StableHLO (as ``jax.jit(f).lower(...).as_text()`` prints
it) into irax ops, so that irax transformations apply to it and it lowers again.

Each irax op class names the StableHLO op(s) it comes from (``raises_from``) and, where
attributes need translating, reads them in a classmethod ``raise_attrs(op)``; the pass
itself is generic (this file also holds the attribute readers the hooks share):

- ``raise_attrs(op)`` returns the irax op's attributes, ``None`` when the class does not
  express this form of the op (several reductions raise from ``stablehlo.reduce``), or
  raises ``OpError("with ... is not supported")`` for a form irax cannot express. A class
  without the hook takes no attributes.
- Operands pass through unchanged; an irax op that takes fewer operands than its StableHLO
  form (a reduction without its init value) takes the leading ones, and its hook has checked
  the rest.
- The result types of the new op are inferred by its own rule and must equal the StableHLO
  op's.

chlo ops are first legalized with MLIR's ``chlo-legalize-to-stablehlo``. Frontend attributes
(``mhlo.*`` on the module, ``jax.*``/``mhlo.*`` on arguments and results) are dropped. An op
irax cannot express fails the pass with a located diagnostic per op, e.g.
``loss.mlir:12:10: error: irax-raise-stablehlo: 'stablehlo.while' is not supported yet``.

Before:
    func.func public @main(%x: tensor<3xf32>) -> (tensor<f32> {jax.result_info = "result"}) {
      %0 = stablehlo.sine %x : tensor<3xf32>
      %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %1 = stablehlo.reduce(%0 init: %cst) applies stablehlo.add across dimensions = [0]
             : (tensor<3xf32>, tensor<f32>) -> tensor<f32>
      return %1 : tensor<f32>
    }
After:
    func.func public @main(%x: tensor<3xf32>) -> tensor<f32> {
      %0 = "irax.sin"(%x) : (tensor<3xf32>) -> tensor<3xf32>
      %1 = "irax.reduce_sum"(%0) {axes = array<i64: 0>} : (tensor<3xf32>) -> tensor<f32>
      return %1 : tensor<f32>
    }
"""

from __future__ import annotations

from irax.core.errors import IRError
from irax.core.shape_poly import ANONYMOUS
from irax.dialect import mlir
from irax.dialect.base import REGISTRY, OpError
from irax.dialect.builder import IRBuilder, aval
from irax.dialect.control import Return
from irax.dialect.control_flow import Cond, While
from irax.dialect.upstream import FuncReturn, in_namespace, is_function, op_class
from irax.dialect.verifier import verify_module
from irax.passes.registry import ModulePass, register_pass

PASS = "irax-raise-stablehlo"
_state: dict = {}


@register_pass
class RaiseStableHLO(ModulePass):
    """irax-raise-stablehlo: convert StableHLO and chlo ops into irax ops"""

    name = PASS

    def run(self, module) -> None:
        _legalize_chlo(module)
        _drop_frontend_attributes(module)
        diags = []
        for fn in module.body.operations:
            if is_function(fn):
                diags += raise_function(fn)
        if diags:
            raise IRError("\n".join(diags))
        verify_module(module)


def needs_raising(module) -> bool:
    """Whether ``module`` holds StableHLO or chlo ops."""
    found = []

    def visit(op):
        if op.name.startswith(("stablehlo.", "chlo.")):
            found.append(op)
            return _walk().INTERRUPT
        return _walk().ADVANCE

    module.operation.walk(visit)
    return bool(found)


def raise_function(fn) -> list[str]:
    """Raises every StableHLO op of ``fn`` in place; returns the diagnostics of the ops that
    cannot be raised. Ops are visited last to first, so a hook still sees the StableHLO
    producers of its operands (a reduce's init constant) and dead ops are dropped."""
    diags = []
    for block in fn.regions[0].blocks:
        for op in reversed(list(block.operations)):
            op = op.operation
            try:
                _raise_op(op)
            except OpError as e:
                diags.append(f"{op.location}: error: {PASS}: '{op.name}' {e}")
    return diags[::-1]


def _raise_op(op) -> None:
    if in_namespace(op, "irax") or op_class(op) is FuncReturn:
        return
    if len(op.results) and not any(_used(r) for r in op.results) \
            and op.name != "stablehlo.custom_call":
        op.erase()  # dead code: nothing to raise
        return
    _check_types(op)
    b = IRBuilder.before(op, loc=op.location)
    composite = _COMPOSITES.get(op.name)
    values = composite(b, op) if composite else _raise_one(b, op)
    for old, new in zip(op.results, values):
        old.replace_all_uses_with(new)
    op.erase()


def _used(value) -> bool:
    return any(True for _ in value.uses)


def _check_types(op) -> None:
    """Every operand and result is a static tensor of a dtype irax knows (not a token, a
    tuple or a dynamic shape)."""
    for v in (*op.operands, *op.results):
        try:
            aval = mlir.aval_of(v)
        except (TypeError, ValueError, KeyError) as e:
            raise OpError(f"is not supported: {e}") from None
        if any(d == ANONYMOUS for d in aval.shape):   # sizes without irax's names
            raise OpError(f"is not supported: expected a statically shaped tensor type, got "
                          f"{v.type}")


def _raise_one(b, op) -> list:
    cls, attrs = _match(op)
    operands = list(op.operands)
    if cls.num_operands is not None:
        operands = operands[:cls.num_operands]
    stated = [mlir.aval_of(r) for r in op.results]
    try:
        attrs = cls.normalize_attrs(attrs)
        if cls.infers_results:
            inferred = cls.infer_list([mlir.aval_of(v) for v in operands], attrs)
            if [a.strip_weak() for a in inferred] != stated:
                raise OpError(f"inferred type(s) {_types(inferred)} differ from the result "
                              f"type(s) {_types(stated)}")
    except OpError as e:
        raise OpError(f"cannot be expressed as '{cls.name}': {e}") from None
    results, _, _ = b.emit(cls, operands, result_avals=stated, **attrs)
    return results


def _match(op):
    """The irax op class that expresses ``op`` and its attributes."""
    candidates = raisers().get(op.name)
    if not candidates:
        raise OpError("is not supported yet")
    for cls in candidates:
        hook = getattr(cls, "raise_attrs", None)
        attrs = {} if hook is None else hook(op)
        if attrs is not None:
            return cls, attrs
    raise OpError("is not supported in this form")


def raisers() -> dict[str, list]:
    """StableHLO op name -> the irax op classes that raise from it (from ``raises_from``)."""
    index = _state.get("raisers")
    if index is None or _state.get("n") != len(REGISTRY):
        index = {}
        for cls in REGISTRY.values():
            names = getattr(cls, "raises_from", None) or ()
            for name in (names,) if isinstance(names, str) else names:
                index.setdefault(name, []).append(cls)
        _state.update(raisers=index, n=len(REGISTRY))
    return index


def _types(avals) -> str:
    return ", ".join(str(mlir.to_ir_type(a)) for a in avals)


# ---- StableHLO ops without an irax op of their own ------------------------------------------
# Expressed with several irax ops (clamp) or forwarded (annotations that change no value).
_IDENTITY_CUSTOM_CALLS = ("Sharding", "SPMDFullToShardShape", "SPMDShardToFullShape")


def _clamp(b, op):
    lo, x, hi = op.operands
    shape = aval(x).shape
    lo, hi = (v if aval(v).shape == shape else
              b.broadcast_in_dim(v, shape=shape, broadcast_dimensions=()) for v in (lo, hi))
    return [b.min(b.max(x, lo), hi)]


def _forward(b, op):
    return list(op.operands)


def _custom_call(b, op):
    target = mlir.ir().StringAttr(op.attributes["call_target_name"]).value
    same = [v.type for v in op.operands] == [r.type for r in op.results]
    if target not in _IDENTITY_CUSTOM_CALLS or not same:
        raise OpError(f"@{target} is not supported")
    return list(op.operands)


# ---- control flow: stablehlo.while / case / if -> irax.while / irax.cond --------------------
# StableHLO regions may use values of the enclosing function; irax regions are isolated,
# so such values become explicit consts operands. Region bodies are raised first.
def _captured(region) -> list:
    """Values used inside ``region`` (at any depth) but defined outside it, in order."""
    ir = _ir()
    inside, used = set(), []

    def visit(op):
        for r in op.results:
            inside.add(r)
        for reg in op.regions:
            for blk in reg.blocks:
                inside.update(blk.arguments)
        return ir.WalkResult.ADVANCE

    for blk in region.blocks:
        inside.update(blk.arguments)
        for op in blk.operations:
            op.operation.walk(visit)

    def collect(op):
        for v in op.operands:
            if v not in inside and v not in used:
                used.append(v)
        return ir.WalkResult.ADVANCE

    for blk in region.blocks:
        for op in blk.operations:
            op.operation.walk(collect)
    return used


def _raise_region_body(region) -> None:
    diags = []
    for blk in region.blocks:
        for inner in reversed(list(blk.operations)):
            inner = inner.operation
            if inner.name == "stablehlo.return":
                continue
            try:
                _raise_op(inner)
            except OpError as e:
                diags.append(f"{inner.location}: error: {PASS}: '{inner.name}' {e}")
    if diags:
        raise OpError("has a body that cannot be raised:\n" + "\n".join(diags[::-1]))


def _into_region(src, dst, consts, lead_args, lead_values=None, prefix_ret=0):
    """Moves ``src``'s block into ``dst`` as an isolated irax block: arguments are the
    consts then ``lead_args`` (the source block's own arguments, if any); uses of captured
    values become the const arguments; ``stablehlo.return`` becomes ``irax.return`` (after
    dropping its first ``prefix_ret`` values)."""
    ir = _ir()
    old = src.blocks[0]
    types = [v.type for v in consts] + [a.type for a in lead_args]
    block = dst.blocks.append(*types)
    args = list(block.arguments)
    for a, na in zip(old.arguments, args[len(consts):]):
        a.replace_all_uses_with(na)
    mapping = dict(zip(consts, args[:len(consts)]))

    def rewire(op):
        for i, v in enumerate(op.operands):
            if v in mapping:
                op.operands[i] = mapping[v]
        return ir.WalkResult.ADVANCE

    for inner in list(old.operations):
        inner.operation.walk(rewire)
        if inner.name == "stablehlo.return":
            with mlir.unknown_loc():
                ir.Operation.create(Return.name, operands=list(inner.operands)[prefix_ret:],
                                    ip=ir.InsertionPoint(block))
            inner.erase()
            continue
        block.append(inner)


def _while(b, op):
    for region in op.regions:
        _raise_region_body(region)
    consts = []
    for region in op.regions:
        consts += [v for v in _captured(region) if v not in consts]
    carry = list(op.operands)
    results, _, new = b.emit(While, consts + carry, regions=2,
                             result_avals=[mlir.aval_of(r) for r in op.results],
                             num_consts=len(consts))
    for src, dst in zip(op.regions, new.regions):
        _into_region(src, dst, consts, list(src.blocks[0].arguments))
    return results


def _case(b, op, index, regions):
    for region in regions:
        _raise_region_body(region)
    consts = []
    for region in regions:
        consts += [v for v in _captured(region) if v not in consts]
    results, _, new = b.emit(Cond, [index] + consts, regions=len(regions),
                             result_avals=[mlir.aval_of(r) for r in op.results])
    for src, dst in zip(regions, new.regions):
        _into_region(src, dst, consts, [])
    return results


def _stablehlo_case(b, op):
    import numpy as np

    index = op.operands[0]

    if aval(index).dtype != np.int32:
        index = b.convert(index, new_dtype=np.dtype(np.int32))
    return _case(b, op, index, list(op.regions))


def _stablehlo_if(b, op):
    import numpy as np

    index = b.convert(op.operands[0], new_dtype=np.dtype(np.int32))
    true_branch, false_branch = op.regions
    return _case(b, op, index, [false_branch, true_branch])


_COMPOSITES = {"stablehlo.clamp": _clamp, "stablehlo.optimization_barrier": _forward,
               "stablehlo.custom_call": _custom_call, "stablehlo.while": _while,
               "stablehlo.case": _stablehlo_case, "stablehlo.if": _stablehlo_if}


# ---- module preparation ------------------------------------------------------------------------
def _legalize_chlo(module) -> None:
    from iree.compiler import passmanager  # import cost: IREE loads on first use

    chlo = []

    def visit(op):
        if op.name.startswith("chlo."):
            chlo.append(op)
            return _walk().INTERRUPT
        return _walk().ADVANCE

    module.operation.walk(visit)
    if chlo:
        with mlir.context():
            passmanager.PassManager.parse(
                "builtin.module(func.func(chlo-legalize-to-stablehlo))").run(module.operation)


_FRONTEND = ("jax.", "mhlo.", "tf.")


def _drop_frontend_attributes(module) -> None:
    attrs = module.operation.attributes
    for key in [k for k in _names(attrs) if k.startswith(_FRONTEND)]:
        del attrs[key]
    for fn in module.body.operations:
        if not is_function(fn):
            continue
        for key in ("arg_attrs", "res_attrs"):
            if key in fn.attributes:
                _filter_entries(fn.operation, key)


def _filter_entries(fn, key: str) -> None:
    ir = _ir()
    dicts = []
    for d in ir.ArrayAttr(fn.attributes[key]):
        d = ir.DictAttr(d)
        kept = {d[i].name: d[i].attr for i in range(len(d))
                if not d[i].name.startswith(_FRONTEND)}
        dicts.append(kept)
    if any(dicts):
        fn.attributes[key] = ir.ArrayAttr.get([ir.DictAttr.get(k) for k in dicts])
    else:
        del fn.attributes[key]


def _names(attrs) -> list[str]:
    return [attrs[i].name for i in range(len(attrs))]


def _ir():
    return mlir.ir()


def _walk():
    return _ir().WalkResult
