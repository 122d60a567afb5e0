"""irax-legalize-iree: rewrite portable StableHLO into the form IREE 3.13 compiles and runs
correctly. ``irax-lower-to-stablehlo`` emits plain StableHLO; every IREE-specific detail
lives here, one pattern per quirk, each naming the IREE behaviour it avoids, so that a
pattern can be deleted when IREE is fixed:

- donation: ``jax.buffer_donor`` on a public function's argument becomes IREE's
  ``iree.abi.output = j`` (aliasing it with an unclaimed result of the same type), so
  IREE writes that result into the argument's buffer.

Before:
    func.func @main(%x: tensor<3xf32> {jax.buffer_donor = true}) -> tensor<3xf32>
After:
    func.func @main(%x: tensor<3xf32> {iree.abi.output = 0 : index}) -> tensor<3xf32>
"""

from __future__ import annotations

from irax.dialect import mlir
from irax.passes.registry import ModulePass, register_pass

#: the argument attribute of a donated buffer (JAX's, in exported StableHLO too)
DONOR = "jax.buffer_donor"


@register_pass
class LegalizeIREE(ModulePass):
    """irax-legalize-iree: rewrite portable StableHLO for IREE 3.13 (donation, and the
    IREE bugs each pattern names)"""

    name = "irax-legalize-iree"

    def run(self, module) -> None:
        for fn in module.body.operations:
            if fn.operation.name == "func.func":
                alias_donated_arguments(fn)


def alias_donated_arguments(fn) -> None:
    """``jax.buffer_donor`` arguments -> ``iree.abi.output = j`` with ``j`` the first
    unclaimed result of the argument's type (none: the donation is dropped, as JAX warns
    and ignores an unusable donation)."""
    ir = mlir.ir()
    if "arg_attrs" not in fn.attributes:
        return
    ftype = ir.FunctionType(ir.TypeAttr(fn.attributes["function_type"]).value)
    results, claimed, new = list(ftype.results), set(), []
    for t, d in zip(ftype.inputs, ir.ArrayAttr(fn.attributes["arg_attrs"])):
        d = ir.DictAttr(d)
        entries = {d[i].name: d[i].attr for i in range(len(d))}
        if entries.pop(DONOR, None) is not None:
            j = next((j for j, rt in enumerate(results) if j not in claimed and rt == t), None)
            if j is not None:
                claimed.add(j)
                entries["iree.abi.output"] = ir.IntegerAttr.get(ir.IndexType.get(), j)
        new.append(ir.DictAttr.get(entries))
    fn.attributes["arg_attrs"] = ir.ArrayAttr.get(new)
