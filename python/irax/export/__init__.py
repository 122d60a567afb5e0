"""``irax.export``: compiled programs as files, in the shape of ``jax.export``.

    exp = irax.export.export(irax.jit(predict), targets=["cpu"])(params, x_spec)
    exp.save("predict.vmfb")               # one IREE module, irax's signature inside
    f = irax.aot.load("predict.vmfb")      # the IREE runtime only: no compiler needed
    f(params, x)                           # the original pytrees in and out

The file is a plain ``.vmfb``: ``iree-run-module --module=predict.vmfb --function=main
--input=@x.npy ...`` runs it too. Its entry function's reflection carries what irax needs
to call it (``_format.py``). Targets are named (``targets()``): ``cpu`` (portable code for
this machine's architecture), ``host`` (tuned for this CPU), ``x86_64``, ``aarch64``,
``riscv64``, ``wasm32`` and ``vmvx`` (cross-compiled: compile here, run there),
``cuda:sm_80`` ..., ``vulkan[:arch]``, ``rocm:gfx942`` ....
"""

from __future__ import annotations

import dataclasses
import os

from irax.core import shape_poly, tree_util
from irax.core.config import config
from irax.dialect import mlir
from irax.export import _format
from irax.export._loader import Loaded, host_arch, load_bytes, runs_here
from irax.frontend.compile import clone_module, module_at_stage
from irax.lowering.stablehlo import num_devices
from irax.passes import pipelines, run_pipeline
from irax.runtime.compiler import CUDA_IN_IR, Target, compile_module, compiler_version
from irax.transforms.jit import JitFunction, LaidOutJit

__all__ = ["Exported", "Loaded", "export", "export_module", "deserialize", "targets",
           "symbolic_shape"]


@dataclasses.dataclass(frozen=True)
class _Named:
    target: Target
    #: the machine architecture its code runs on ("any" for vmvx, "cuda", "vulkan")
    arch: str
    about: str


def _targets() -> dict[str, _Named]:
    host = host_arch()
    table = {
        "cpu": _Named(Target("llvm-cpu", cpu="generic"), host,
                      f"portable {host} code (any {host} CPU)"),
        "host": _Named(Target("llvm-cpu", cpu="host"), host, "tuned for this machine's CPU"),
        "x86_64": _Named(Target("llvm-cpu", cpu="generic", triple="x86_64-unknown-linux-gnu"),
                         "x86_64", "x86_64 Linux, portable"),
        "aarch64": _Named(Target("llvm-cpu", cpu="generic",
                                 triple="aarch64-unknown-linux-gnu"),
                          "aarch64", "64-bit Arm Linux, portable"),
        "riscv64": _Named(Target("llvm-cpu", cpu="generic-rv64",
                                 triple="riscv64-unknown-linux-gnu",
                                 extra=("--iree-llvmcpu-target-abi=lp64d",
                                        "--iree-llvmcpu-target-cpu-features=+m,+a,+f,+d,+c")),
                          "riscv64", "RV64GC Linux"),
        "wasm32": _Named(Target("llvm-cpu", cpu="generic", triple="wasm32-unknown-unknown",
                                extra=(f"--iree-llvmcpu-wasm-linker-path={_lld()}",)),
                         "wasm32", "WebAssembly (an IREE runtime built for it)"),
        "vmvx": _Named(Target("vmvx", cpu=""), "any", "IREE's portable VM bytecode (slow)"),
        "vulkan": _Named(Target("vulkan-spirv", cpu=""), "vulkan", "any Vulkan GPU"),
    }
    for arch in ("ampere", "rdna3", "valhall4"):
        table[f"vulkan:{arch}"] = _Named(Target("vulkan-spirv", cpu=arch), "vulkan",
                                         f"Vulkan GPUs tuned for {arch}")
    for sm in ("sm_75", "sm_80", "sm_86", "sm_89", "sm_90"):
        table[f"cuda:{sm}"] = _Named(Target("cuda", cpu=sm), "cuda", f"NVIDIA GPUs ({sm})")
    for gfx in ("gfx90a", "gfx942", "gfx1100"):
        table[f"rocm:{gfx}"] = _Named(Target("rocm", cpu=gfx), "rocm", f"AMD GPUs ({gfx})")
    return table


def _lld() -> str:
    """IREE's bundled linker (wasm32 links with it)."""
    import importlib.util  # import cost: only to find the compiler's files

    spec = importlib.util.find_spec("iree.compiler")
    if spec is None or not spec.submodule_search_locations:
        return "iree-lld"
    return os.path.join(list(spec.submodule_search_locations)[0], "_mlir_libs", "iree-lld")


def targets() -> dict[str, str]:
    """The target names ``export`` accepts, each with what it is for."""
    return {name: t.about for name, t in _targets().items()}


def _named(name: str, api: str) -> _Named:
    table = _targets()
    if name not in table:
        raise ValueError(f"{api}: unknown target {name!r}; expected one of {sorted(table)}")
    return table[name]


class Exported:
    """An exported function (``jax.export.Exported``): its signature, its portable
    StableHLO (``mlir_module()``) and one compiled module per target (``serialize``)."""

    def __init__(self, fun_name, in_tree, out_tree, in_avals, out_avals, donated,
                 nr_devices, modules, stablehlo, entry: str = "main"):
        self.fun_name = fun_name
        #: the module's function that runs it (``iree-run-module --function=...``)
        self.entry = entry
        self.in_tree = in_tree
        self.out_tree = out_tree
        self.in_avals = tuple(in_avals)
        self.out_avals = tuple(out_avals)
        #: flat indices of the donated arguments
        self.donated = tuple(donated)
        self.nr_devices = nr_devices
        self._modules = dict(modules)
        self._stablehlo = stablehlo

    @property
    def targets(self) -> tuple[str, ...]:
        return tuple(self._modules)

    def mlir_module(self) -> str:
        """The portable StableHLO of the function (with ``flow`` transfers for a program
        on several devices)."""
        return self._stablehlo

    def serialize(self, target: str | None = None) -> bytes:
        """The ``.vmfb`` of ``target`` (the only or first one by default)."""
        if target is None:
            target = self.targets[0]
        if target not in self._modules:
            raise ValueError(f"irax.export: {self.fun_name} was not exported for {target!r}; "
                             f"its targets: {list(self.targets)}")
        return self._modules[target]

    def save(self, path, target: str | None = None) -> None:
        with open(path, "wb") as f:
            f.write(self.serialize(target))

    def call(self, *args, **kwargs):
        """Runs the artifact of the first target this machine runs (``irax.aot``)."""
        for target in self.targets:
            if runs_here(_named(target, "irax.export").arch):
                return load_bytes(self._modules[target], self.fun_name)(*args, **kwargs)
        raise ValueError(f"irax.export: none of the targets of {self.fun_name} "
                         f"({list(self.targets)}) runs on this machine")

    def __repr__(self) -> str:
        ins = ", ".join(a.str_short() for a in self.in_avals)
        return f"Exported({self.fun_name}({ins}), targets={list(self.targets)})"


def export(fun, *, targets=None, platforms=None):
    """``jax.export.export``: ``export(jitted)(*args)`` traces ``jitted`` (a function or
    ``irax.jit`` of one; static arguments as its ``static_argnums`` say) for ``args``
    (arrays or ``ShapeDtypeStruct``) and compiles it for each target (default ``["cpu"]``;
    ``platforms=["cpu"]`` as in JAX)."""
    api = "irax.export.export"
    names = _target_names(targets, platforms, api)
    # a jit with shardings exports its partitioned program
    jitted = fun._jitted if isinstance(fun, LaidOutJit) else \
        fun if isinstance(fun, JitFunction) else JitFunction(fun)

    def do(*args, **kwargs) -> Exported:
        lowered = jitted.lower(*args, **kwargs)
        entry = lowered._entry
        _, dyn = jitted._split(args, kwargs)
        name = getattr(jitted.fun, "__name__", "fun")
        return _compile(api, names, name, "main", lambda st: module_at_stage(entry, st),
                        tree_util.tree_structure(dyn), entry.out_tree, entry.in_avals,
                        entry.out_avals, entry.donated, lowered.as_text("stablehlo"))

    return do


def export_module(module, *, targets=None, platforms=None) -> Exported:
    """An ``irax.ir`` module's entry function (irax IR or StableHLO from any frontend) as
    an ``Exported``: flat arguments in, its results out (a tuple for several)."""
    api = "irax.export.export_module"
    names = _target_names(targets, platforms, api)
    if module.entry is None:
        raise ValueError(f"{api}: the module has no public function @main; public "
                         f"functions: {module.functions}")
    ins, outs = module.signature()
    in_tree = tree_util.tree_structure((tuple(range(len(ins))), {}))
    out_tree = tree_util.tree_structure(0 if len(outs) == 1 else tuple(range(len(outs))))
    return _compile(api, names, module.entry, module.entry, module.lower, in_tree,
                    out_tree, ins, outs, (), module.as_text("stablehlo"))


def _compile(api, names, name, function, at_stage, in_tree, out_tree, in_avals, out_avals,
             donated, stablehlo) -> Exported:
    """Compiles the program for each target (``at_stage(stage)``: the program at the
    "iree" stage, or "iree-gpu" for a GPU target), its signature attached."""
    # the device count is the same at either stage: read it at the first target's
    n = num_devices(at_stage(pipelines.iree_stage(_named(names[0], api).target.backend)))
    signature = {"format": _format.FORMAT, "irax": _version(), "iree": compiler_version(),
                 "function": name, "entry": function,
                 "in_tree": _format.encode_tree(in_tree, api),
                 "out_tree": _format.encode_tree(out_tree, api),
                 "in_avals": _format.encode_avals(in_avals),
                 "out_avals": _format.encode_avals(out_avals),
                 "donated": list(donated), "devices": n, "x64": bool(config.jax_enable_x64)}
    modules, expanded = {}, None
    for target_name in names:
        named = _named(target_name, api)
        target = dataclasses.replace(named.target, num_devices=n)
        module = at_stage(pipelines.iree_stage(target.backend))
        meta = dict(signature, target={"name": target_name, "arch": named.arch,
                                       "backend": target.backend,
                                       "flags": list(target.flags())})
        device = None
        if target.backend == "cuda" and target.cpu in CUDA_IN_IR:
            if n:
                raise ValueError(f"{api}: {target_name} takes programs on one device, but "
                                 f"{name} addresses {n}")
            device = _cuda_device_attr(target.cpu)
        base = module
        if target.backend == "llvm-cpu" and target.triple:   # no libm to link there
            if expanded is None:                              # once for every such target
                expanded = clone_module(module)
                run_pipeline(expanded, "builtin.module(irax-expand-libm)")
            base = expanded
        modules[target_name] = compile_module(_signed(base, meta, function, device),
                                              target, name)
    return Exported(name, in_tree, out_tree, in_avals, out_avals, donated, n, modules,
                    stablehlo, function)


def _target_names(targets, platforms, api: str) -> list[str]:
    if targets is not None and platforms is not None:
        raise TypeError(f"{api}: give targets or platforms, not both")
    if platforms is not None:
        plat = {"cpu": "cpu", "cuda": "cuda:sm_80", "gpu": "cuda:sm_80", "vulkan": "vulkan"}
        unknown = [p for p in platforms if p not in plat]
        if unknown:
            raise ValueError(f"{api}: unknown platform(s) {unknown}; expected some of "
                             f"{sorted(plat)}")
        targets = [plat[p] for p in platforms]
    names = list(targets) if targets is not None else ["cpu"]
    if not names:
        raise ValueError(f"{api}: no target given")
    for n in names:
        _named(n, api)
    return names


def _cuda_device_attr(arch: str) -> str:
    """IREE's CUDA device for an architecture it has no flag name for (sm_90): sm_80's
    target description with the architecture, PTX version and shared memory of ``arch``
    (IREE 3.13 then emits real ``.target sm_90`` PTX)."""
    mma = ", ".join(f"<{m}>" for m in (
        "NV_MMA_SYNC_F32_16x8x16_F16", "NV_MMA_SYNC_F16_16x8x16_F16",
        "NV_MMA_SYNC_F32_16x8x16_BF16", "NV_WMMA_F32_16x16x16_F16",
        "NV_WMMA_F16_16x16x16_F16"))
    wgp = ("compute = fp64|fp32|fp16|int64|int32|int16|int8, storage = b64|b32|b16|b8, "
           f"subgroup = shuffle|arithmetic, dot = dp4xi8toi32, mma = [{mma}], "
           "subgroup_size_choices = [32], max_workgroup_sizes = [1024, 1024, 1024], "
           "max_thread_count_per_workgroup = 1024, max_workgroup_memory_bytes = 232448, "
           "max_workgroup_counts = [2147483647, 65535, 65535]")
    return (f'[#hal.device.target<"cuda", [#hal.executable.target<"cuda", "cuda-nvptx-fb", '
            f'{{iree_codegen.target_info = #iree_gpu.target<arch = "{arch}", '
            f'features = "+ptx78", wgp = <{wgp}>>}}>]> : !hal.device]')


def _signed(module, signature: dict, function: str = "main", device: str | None = None):
    """A copy of the lowered ``module`` whose ``@function`` carries ``signature`` in its
    reflection (and, given ``device``, whose ``hal.device.targets`` is that)."""
    ir = mlir.ir()
    out = clone_module(module)
    with mlir.context():
        if device is not None:
            out.operation.attributes["hal.device.targets"] = ir.Attribute.parse(device)
        text = _format.mlir_string(_format.dumps(signature))
        for op in out.body.operations:
            if "sym_name" in op.attributes and \
                    ir.StringAttr(op.attributes["sym_name"]).value == function:
                op.attributes["iree.reflection"] = ir.Attribute.parse(
                    f'{{{_format.KEY} = "{text}"}}')
    return out


def _version() -> str:
    try:
        from importlib import metadata  # import cost: only when exporting

        return metadata.version("irax")
    except Exception:  # noqa: BLE001 - a source tree without package metadata
        return "unknown"


def symbolic_shape(shape_spec: str) -> tuple:
    """``jax.export.symbolic_shape``: ``symbolic_shape("b, 784")`` is a shape whose ``b``
    is a symbolic size, for ``irax.ShapeDtypeStruct``; one artifact then runs every size
    (docs/shape_poly.md)."""
    try:
        return shape_poly.symbolic_shape(shape_spec)
    except ValueError as e:
        raise ValueError(f"irax.export.symbolic_shape: {e}") from None


def deserialize(blob: bytes) -> Loaded:
    """The callable of a serialized artifact (``irax.aot.load`` of bytes)."""
    return load_bytes(blob, "<bytes>")
