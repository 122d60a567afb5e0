"""Load, transform and run MLIR programs: irax IR, or StableHLO from any frontend.

    import irax
    mod = irax.ir.load("loss.mlir")        # e.g. jax.jit(loss).lower(...).as_text()
    loss = mod(w, x, y)                    # lowered, compiled by IREE, run
    dmod = irax.ir.transform(mod, "grad", argnums=(0,))
    dw = dmod(w, x, y)                     # @main of dmod is the gradient of @main
    print(dmod.as_text("stablehlo"))

StableHLO (and chlo) input is raised to irax ops by ``irax-raise-stablehlo`` when loaded.
``transform`` wraps the entry function in a transformation op (``irax.grad``,
``irax.value_and_grad``, ``irax.jvp``, ``irax.vjp``, ``irax.vmap``: any op of
``irax.dialect.transform``, named by its builder method) and expands it with the pass that
op names. Calls lower the module with the jit pipeline and compile it once per module.
"""

from __future__ import annotations

import dataclasses
import os
import re

import numpy as np

from irax.core.errors import IRError
from irax.dialect import funcs, mlir
from irax.dialect.base import REGISTRY, OpError, by_method
from irax.dialect.transform import TransformOp
from irax.dialect.upstream import is_function
from irax.dialect.verifier import verify_module
from irax.frontend import eager
from irax.frontend.compile import at_stage, clone_module
from irax.passes import pipelines, run_pipeline
from irax.passes import raise_stablehlo as _raise_stablehlo
from irax.runtime.array import Array, device_buffer
from irax.runtime.compiler import compile_module, target_for_platform
from irax.runtime.devices import devices
from irax.runtime.executable import Executable

STAGES = ("input", "irax", "stablehlo")
_NO_DEMOTION = "--iree-input-demote-f64-to-f32=false"


class IRModule:
    """An irax module with a callable entry function.

    ``mod(*arrays)`` runs the entry (``@main``, or the only public function);
    ``mod.call(name, *arrays)`` runs any public function. ``as_text(stage)`` shows the
    module as given (``"input"``), as irax IR (``"irax"``, also ``.text``) or lowered
    (``"stablehlo"``).
    """

    def __init__(self, module, input_text: str, entry: str | None = None):
        self._module = module
        self._input = input_text
        self._lowered: dict = {}
        self._vmfb = None
        self._executables: dict = {}
        self.entry = entry or _default_entry(module)

    # ---- inspection --------------------------------------------------------------------------
    @property
    def text(self) -> str:
        return self.as_text("irax")

    def as_text(self, stage: str = "irax") -> str:
        if stage == "input":
            return self._input
        if stage == "irax":
            return str(self._module)
        if stage == "stablehlo":
            return str(self.lower())
        raise ValueError(f"irax.ir: unknown stage {stage!r}; expected one of {list(STAGES)}")

    @property
    def functions(self) -> list[str]:
        """The public functions (callable entries)."""
        return [n for n, fn in funcs.symbol_table(self._module).items() if funcs.is_public(fn)]

    def signature(self, name: str | None = None):
        """``(input avals, output avals)`` of a public function (default: the entry)."""
        return funcs.signature(self._function(name or self.entry))

    def __repr__(self) -> str:
        ins, outs = self.signature() if self.entry else ([], [])
        sig = ", ".join(a.str_short() for a in ins)
        res = ", ".join(a.str_short() for a in outs)
        return f"IRModule(@{self.entry}({sig}) -> ({res}))"

    # ---- execution ---------------------------------------------------------------------------
    def __call__(self, *args):
        if self.entry is None:
            raise ValueError(f"irax.ir: the module has no public function @main; use "
                             f".call(name, ...) with one of {self.functions}")
        return self.call(self.entry, *args)

    def call(self, name: str, *args):
        """Runs public function ``@name`` on ``args``; returns one array or a tuple."""
        ins, outs = self.signature(name)
        if len(args) != len(ins):
            raise TypeError(f"irax.ir: @{name} takes {len(ins)} arguments, but got {len(args)}")
        exe = self._executable(name)
        device = exe.device
        buffers = [_to_buffer(x, a, device, name, i) for i, (x, a) in enumerate(zip(args, ins))]
        results = [Array._from_device(b, a, device) for b, a in zip(exe(buffers), outs)]
        return results[0] if len(results) == 1 else tuple(results)

    def lower(self, stage: str = "stablehlo"):
        """The module lowered to portable StableHLO (``stage="iree"``: as jit compiles it),
        as an ``ir.Module``."""
        if stage not in self._lowered:
            self._lowered[stage] = at_stage(self._module, stage)
        return self._lowered[stage]

    def _executable(self, name: str):
        exe = self._executables.get(name)
        if exe is not None:
            return exe

        device = devices()[0]
        if self._vmfb is None:
            target = target_for_platform(device.platform)
            if _NO_DEMOTION not in target.flags():  # the module's types are explicit
                target = dataclasses.replace(target, extra=(*target.extra, _NO_DEMOTION))
            self._vmfb = compile_module(self.lower(pipelines.iree_stage(target.backend)),
                                        target, self.entry or name)
        _, outs = self.signature(name)
        exe = self._executables[name] = Executable(self._vmfb, device, [a.dtype for a in outs],
                                                   function=name)
        return exe

    def _function(self, name: str):
        fn = funcs.symbol_table(self._module).get(name)
        if fn is None or not is_function(fn) or not funcs.is_public(fn):
            raise ValueError(f"irax.ir: no public function @{name}; public functions: "
                             f"{self.functions}")
        return fn


def load(source, *, entry: str | None = None) -> IRModule:
    """An ``IRModule`` from MLIR text, a path to a ``.mlir`` file, bytecode, an
    ``ir.Module`` or an ``IRModule``. StableHLO is raised to irax ops; the result is
    verified. Invalid input raises ``irax.errors.IRError`` with located diagnostics."""

    if isinstance(source, IRModule):
        return IRModule(_clone(source._module), source._input, entry or source.entry)
    text, filename = _read(source)
    module = _parse(text, filename)
    try:
        if _raise_stablehlo.needs_raising(module):
            run_pipeline(module, f"builtin.module({_raise_stablehlo.PASS})")
        else:
            verify_module(module)
    except IRError as e:
        raise IRError(_PARSED_LOC.sub(lambda m: f"{filename}:{m[1]}", str(e))) from None
    return IRModule(module, text if isinstance(text, str) else str(module), entry)


def transform(source, kind: str, *, entry: str | None = None, **params) -> IRModule:
    """A new module whose entry computes transformation ``kind`` of ``source``'s entry.

    ``kind`` is a transformation op's builder name: ``"grad"`` and ``"value_and_grad"``
    (``argnums=0``, ``has_aux=False``), ``"jvp"`` (entry takes primals then tangents),
    ``"vjp"`` (primals then output cotangents), ``"vmap"`` (``axis_size`` required,
    ``in_axes=0``, ``out_axes=0`` with ``None`` for unmapped, ``axis_name=""``). The other
    public functions stay; the original entry becomes the private ``@<entry>_fn``.

        dmod = irax.ir.transform(jax_text, "grad", argnums=(0, 1))
    """

    op_cls = by_method(kind)
    if op_cls is None or not issubclass(op_cls, TransformOp):
        known = sorted(c.method for c in REGISTRY.values() if issubclass(c, TransformOp))
        raise ValueError(f"irax.ir.transform: unknown transformation {kind!r}; expected one "
                         f"of {known}")
    src = load(source)
    entry = entry or src.entry
    module = _clone(src._module)
    with mlir.context(), mlir.unknown_loc():
        fn = IRModule(module, "", entry)._function(entry)
        ins, outs = funcs.signature(fn)
        try:
            attrs = op_cls.normalize_attrs(
                {**_conveniences(op_cls, params, ins, outs), "callee": f"{entry}_fn"})
            op_ins = op_cls.operand_avals(ins, outs, **attrs)
            op_outs = op_cls.result_avals(ins, outs, **attrs)
        except OpError as e:
            raise IRError(f"irax.ir.transform: {op_cls.diag(str(e))}") from None
        attrs["callee"] = _make_private(module, fn, entry, attrs["callee"])
    eager.add_entry(module, op_cls, op_ins, op_outs, entry=entry, **attrs)
    text = str(module)
    run_pipeline(module, pipelines.EAGER)
    return IRModule(module, text, entry)


# ---- transform parameters ------------------------------------------------------------------
def _conveniences(op_cls, params: dict, ins, outs) -> dict:
    """Python-friendly spellings of a transformation's attributes, by attribute name:
    ``argnums=0``; ``in_axes``/``out_axes`` as one int or None for all, None for unmapped,
    negative axes from the end."""
    attrs = dict(params)
    names = op_cls.attributes
    if "argnums" in names:
        a = attrs.get("argnums", 0)
        attrs["argnums"] = (a,) if isinstance(a, int) else tuple(a)
    if "in_axes" in names:
        attrs["in_axes"] = _axes(attrs.get("in_axes", 0), ins, "in_axes")
    if "out_axes" in names:
        attrs["out_axes"] = _axes(attrs.get("out_axes", 0), outs, "out_axes")
    if "axis_size" in names and attrs.get("axis_size") is None:
        raise ValueError(f"irax.ir.transform: {op_cls.method} needs axis_size (the size of "
                         "the mapped axis: the entry's signature does not say it)")
    return attrs


def _axes(spec, avals, what: str) -> tuple[int, ...]:
    axes = [spec] * len(avals) if spec is None or isinstance(spec, int) else list(spec)
    if len(axes) != len(avals):
        raise ValueError(f"irax.ir.transform: expected {len(avals)} {what}, but got {spec!r}")
    # an axis of the batched value, whose rank is one more than the unbatched one's
    return tuple(-1 if ax is None else ax + a.ndim + 1 if ax < 0 else ax
                 for ax, a in zip(axes, avals))


def _make_private(module, fn, entry: str, name: str) -> str:
    """Renames ``fn`` (and every reference to it) to a fresh private symbol."""

    ir = mlir.ir()
    name = funcs.unique_name(module, name)
    ir.SymbolTable.replace_all_symbol_uses(entry, name, module.operation)
    fn.attributes["sym_name"] = ir.StringAttr.get(name)
    fn.attributes["sym_visibility"] = ir.StringAttr.get("private")
    return name


# ---- reading and calling ------------------------------------------------------------------
def _read(source):
    """``(text or bytes, filename)`` of a source."""

    if isinstance(source, (bytes, bytearray)):
        return bytes(source), "<bytecode>"
    if isinstance(source, os.PathLike) or (
            isinstance(source, str) and "\n" not in source and "{" not in source):
        path = os.fspath(source)
        try:
            with open(path) as f:
                return f.read(), path
        except OSError as e:
            raise FileNotFoundError(f"irax.ir.load: could not open '{path}': {e.strerror}") \
                from None
    if isinstance(source, str):
        return source, "<string>"
    if isinstance(source, mlir.ir().Module):
        return str(source), "<module>"
    raise TypeError(f"irax.ir.load: expected MLIR text, a path, bytecode or a module, but got "
                    f"{type(source).__name__}")


def _parse(text, filename: str):
    ir = mlir.ir()
    with mlir.context():
        try:
            return ir.Module.parse(text, mlir.context())
        except ir.MLIRError as e:
            diags = [f"{_located(str(d.location), filename)}: error: {d.message}"
                     for d in e.error_diagnostics] or [str(e)]
            raise IRError("\n".join(diags)) from None


_PARSED_LOC = re.compile(r'loc\("-":(\d+:\d+)\)')


def _located(loc: str, filename: str) -> str:
    """``loc("-":3:5)`` (what the parser records for text) -> ``file:3:5``."""
    return _PARSED_LOC.sub(lambda m: f"{filename}:{m[1]}", loc)


def _clone(module):
    return clone_module(module)


def _default_entry(module) -> str | None:
    public = [n for n, fn in funcs.symbol_table(module).items()
              if is_function(fn) and funcs.is_public(fn)]
    if "main" in public:
        return "main"
    return public[0] if len(public) == 1 else None


def _to_buffer(x, aval, device, name: str, i: int):
    if isinstance(x, Array) and x.shape == aval.shape and x.dtype == aval.dtype:
        return device_buffer(x, aval, device)
    data = np.asarray(x)
    if data.shape != aval.shape or not _castable(data.dtype, aval.dtype):
        got = f"{data.dtype.name}{list(data.shape)}"
        raise TypeError(f"irax.ir: argument {i} of @{name} must be {aval.str_short()}, but got "
                        f"{got}")
    return device_buffer(data, aval, device)


def _castable(src, dst) -> bool:
    if src == dst:
        return True
    try:
        return bool(np.can_cast(src, dst, "same_kind"))
    except TypeError:
        return False
