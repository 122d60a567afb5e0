"""The compilation pipeline shared by ``jit``, ``Lowered.as_text`` and the command line.

Stages (each the input of the next):
    "irax"       the traced module: func.func of irax ops
    "stablehlo"  after irax-lower-to-stablehlo: verified StableHLO
Then IREE compiles the StableHLO module to a ``.vmfb`` (``runtime.compiler``).
"""

from __future__ import annotations

import numpy as np

from irax.core import tree_util
from irax.dialect import mlir
from irax.runtime.array import Array
from irax.runtime.buffers import to_device

#: stage name -> the pipeline that produces it from the traced module. Each stage's text is
#: what ``irax-opt -p 'builtin.module(<pipeline>)'`` prints for the traced module.
STAGES = {
    "irax": "",
    "expanded": "irax-expand-transforms, irax-shard, irax-symbol-dce",
    "simplified": "irax-expand-transforms, irax-shard, irax-symbol-dce, irax-inline, "
                  "irax-simplify",
    "stablehlo": "irax-jit",
}


def clone_module(module):
    ir = mlir.ir()
    with mlir.context():
        return ir.Module.parse(module.operation.get_asm(binary=True), mlir.context())


#: the pipeline that takes a traced module to StableHLO (later issues prepend passes)
JIT_PIPELINE = "builtin.module(irax-jit)"


def lower_to_stablehlo(module):
    """A StableHLO copy of an irax module, made by ``JIT_PIPELINE``."""
    from irax.passes import run_pipeline

    out = clone_module(module)
    run_pipeline(out, JIT_PIPELINE)
    return out


def module_at_stage(entry, stage: str):
    if stage == "irax":
        return entry.trace_module
    if stage == "stablehlo":
        if entry.lowered_module is None:
            entry.lowered_module = lower_to_stablehlo(entry.trace_module)
        return entry.lowered_module
    from irax.passes import run_pipeline

    out = clone_module(entry.trace_module)
    run_pipeline(out, f"builtin.module({STAGES[stage]})")
    return out


def compile_entry(entry, device, name: str) -> None:
    from irax.lowering.stablehlo import num_devices
    from irax.runtime.compiler import compile_module, target_for_platform
    from irax.runtime.executable import Executable

    module = module_at_stage(entry, "stablehlo")
    _mark_donations(module, entry)
    n = num_devices(module)
    group = program_devices(device, n, name)
    vmfb = compile_module(module, target_for_platform(device.platform, n), name)
    entry.executable = Executable(vmfb, group[0] if group else device,
                                  [a.dtype for a in entry.out_avals], devices=group)
    entry.device = group[0] if group else device


def program_devices(device, n: int, name: str) -> list:
    """The devices a program placing values on ``n`` devices runs on: the first ``n`` of
    ``device``'s platform (``@dev0`` is where arguments and results live). ``name``: the
    jitted function, for the error."""
    if not n:
        return []
    from irax.runtime import devices

    available = devices.devices(device.platform)
    if n > len(available):
        raise ValueError(f"irax.jit({name}): the compiled program needs {n} "
                         f"{device.platform} devices, but only "
                         f"{len(available)} are available (irax.config.update("
                         "'jax_num_cpu_devices', N) creates N CPU devices)")
    return available[:n]


def _mark_donations(module, entry) -> None:
    """Aliases each donated argument with an unclaimed result of the same type
    (``iree.abi.output``), so IREE writes that result into the argument's buffer."""
    if not entry.donated:
        return
    ir = mlir.ir()
    fn = module.body.operations[0]
    with mlir.context():
        ftype = ir.FunctionType(ir.TypeAttr(fn.attributes["function_type"]).value)
        results = list(ftype.results)
        claimed = set()
        attrs = []
        for i, t in enumerate(ftype.inputs):
            entries = {}
            if i in entry.donated:
                for j, rt in enumerate(results):
                    if j not in claimed and rt == t:
                        claimed.add(j)
                        entries["iree.abi.output"] = ir.IntegerAttr.get(ir.IndexType.get(), j)
                        break
            attrs.append(ir.DictAttr.get(entries))
        fn.attributes["arg_attrs"] = ir.ArrayAttr.get(attrs)


def execute(entry, leaves):
    device = entry.device
    buffers = [_to_buffer(x, a, device) for x, a in zip(leaves, entry.in_avals)]
    outs = entry.executable(buffers)
    for i in entry.donated:
        if isinstance(leaves[i], Array):
            leaves[i].delete()
    results = [Array._from_device(b, a, device) for b, a in zip(outs, entry.out_avals)]
    return tree_util.tree_unflatten(entry.out_tree, results)


def _to_buffer(x, aval, device):
    if type(x) is Array:
        return x._device_buffer(device)
    return to_device(device.hal, np.asarray(x, dtype=aval.dtype, order="C"))
