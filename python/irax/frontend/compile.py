"""From a traced module to results: the stages of ``jit`` and of ``Lowered.as_text``.

Stages (``passes/pipelines.py``; each made from the traced module by its pipeline):
    "irax"        the traced module: func.func of irax ops
    "expanded"    transformations expanded into generated functions
    "simplified"  ... inlined and simplified
    "stablehlo"   portable StableHLO (irax-lower-to-stablehlo)
    "iree"        what IREE compiles (irax-jit: the StableHLO legalized for IREE 3.13)
Then IREE compiles the "iree" stage to a ``.vmfb`` (``runtime.compiler``), which runs on
the devices the program addresses.
"""

from __future__ import annotations

from irax.core import tree_util
from irax.dialect import mlir
from irax.lowering.stablehlo import num_devices
from irax.passes import pipelines, run_pipeline
from irax.runtime import devices
from irax.runtime.array import Array, device_buffer
from irax.runtime.compiler import compile_module, target_for_platform
from irax.runtime.executable import Executable


def clone_module(module):
    ir = mlir.ir()
    with mlir.context():
        return ir.Module.parse(module.operation.get_asm(binary=True), mlir.context())


def at_stage(module, stage: str):
    """A copy of the traced ``module`` taken to ``stage`` (the module itself for "irax")."""
    if stage == "irax":
        return module
    out = clone_module(module)
    run_pipeline(out, f"builtin.module({pipelines.STAGES[stage]})")
    return out


def module_at_stage(entry, stage: str):
    """``at_stage`` of a jit specialization, cached on it."""
    hit = entry.stages.get(stage)
    if hit is None:
        hit = entry.stages[stage] = at_stage(entry.trace_module, stage)
    return hit


def compile_entry(entry, device, name: str) -> None:
    """Compiles a specialization for ``device`` (the first of several when the program
    addresses several devices); ``name``: the jitted function, for messages."""
    module = module_at_stage(entry, "iree")
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
    available = devices.devices(device.platform)
    if n > len(available):
        raise ValueError(f"irax.jit({name}): the compiled program needs {n} "
                         f"{device.platform} devices, but only "
                         f"{len(available)} are available (irax.config.update("
                         "'jax_num_cpu_devices', N) creates N CPU devices)")
    return available[:n]


def execute(entry, leaves):
    """Runs a compiled specialization on flat argument leaves; donated arrays are
    deleted."""
    device = entry.device
    buffers = [device_buffer(x, a, device) for x, a in zip(leaves, entry.in_avals)]
    outs = entry.executable(buffers)
    for i in entry.donated:
        if isinstance(leaves[i], Array):
            leaves[i].delete()
    results = [Array._from_device(b, a, device) for b, a in zip(outs, entry.out_avals)]
    return tree_util.tree_unflatten(entry.out_tree, results)
