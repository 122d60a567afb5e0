"""irax-hoist-scan-inputs: the work of a scan's body that depends only on the scanned
inputs and consts runs once, batched over all steps, before the loop
(``dialect/control_flow/scan_inputs.py`` has the conditions).

    irax-opt traced.mlir -p irax-hoist-scan-inputs

Before:
    %h = "irax.scan"(%w, %u, %h0, %xs) ({
    ^bb0(%w, %u, %h, %x):
      %0 = "irax.dot_general"(%x, %u) ...          // x_i @ u: one dispatch per step
      ...
    }) {num_consts = 2, num_carry = 1, length = 1000}
After:
    %xu = "irax.call"(%w, %u, %xs) {callee = @scan_inputs_vmap}   // xs @ u: one product
    %h = "irax.scan"(%w, %u, %h0, %xs, %xu) ({
    ^bb0(%w, %u, %h, %x, %xu_i): ...                // the body reads row i of %xu
"""

from __future__ import annotations

from irax.dialect import funcs, mlir
from irax.dialect.builder import IRBuilder
from irax.dialect.control import Call
from irax.dialect.control_flow.scan import Scan
from irax.dialect.control_flow.scan_inputs import hoist_scan_inputs
from irax.dialect.vectorize import Vmap
from irax.passes.expand import ExpandContext, expand_function
from irax.passes.inline import inline_block
from irax.passes.registry import ModulePass, register_pass


def batched_step(module, fn, in_axes, axis_size: int):
    """The name of a function of ``module`` computing ``irax.vmap`` of the step function
    ``fn`` (a temporary caller's ``irax.vmap`` expanded by irax-vectorize's rules, that
    caller alone), or None when batching fails: hoisting is an optimization, so the scan
    then stays as it is (what a failed expansion left behind is unreferenced, for
    irax-symbol-dce)."""
    ins, outs = funcs.signature(fn)
    caller, block = funcs.create_function(
        module, funcs.unique_name(module, "scan_inputs_caller"),
        [a if ax < 0 else a.insert_axis(0, axis_size) for a, ax in zip(ins, in_axes)])
    results, _, _ = IRBuilder.at_end(block).emit(
        Vmap, list(block.arguments), result_avals=[a.insert_axis(0, axis_size) for a in outs],
        callee=funcs.symbol_name(fn), in_axes=in_axes, out_axes=(0,) * len(outs),
        axis_size=axis_size)
    funcs.finish_function(caller, block, results)
    try:
        expand_function(ExpandContext(module, (Vmap,)), caller, HoistScanInputs.name)
    except Exception:  # noqa: BLE001 - an op whose batching rule refuses: keep the loop
        name = None
    else:
        calls = [op for op in block.operations if op.name == Call.name]
        name = Call.decode_attrs(calls[0])["callee"] if len(calls) == 1 else None
    caller.erase()
    return name


def hoist_module(module) -> int:
    """Hoists the scanned-input work of every scan of ``module`` (inner scans first; the
    calls of a body that take scanned values are inlined first); returns how many scans
    changed."""
    found = []

    def visit(op):
        if op.name == Scan.name:
            found.append(op)
        return mlir.ir().WalkResult.ADVANCE

    for block in list(funcs.function_blocks(module)):
        for op in list(block.operations):
            op.operation.walk(visit, mlir.ir().WalkOrder.POST_ORDER)
    table = funcs.symbol_table(module)
    changed = 0
    for op in found:
        attrs = Scan.decode_attrs(op)
        body = op.regions[0].blocks[0]
        scanned = set(list(body.arguments)[attrs["num_consts"] + attrs["num_carry"]:])
        # a differentiated scan calls its body: its ops are seen once inlined
        inline_block(body, table,
                     only=lambda call, xs=scanned: any(v in xs for v in call.operands))
        changed += hoist_scan_inputs(
            op, module, attrs, lambda fn, axes, n: batched_step(module, fn, axes, n))
    return changed


@register_pass
class HoistScanInputs(ModulePass):
    """irax-hoist-scan-inputs: compute a scan body's input-only work for all steps at once
    before the loop"""

    name = "irax-hoist-scan-inputs"

    def run(self, module) -> None:
        with mlir.context():
            hoist_module(module)
