"""The pass registry and the pipeline syntax, shared by the API and ``irax-opt``.

A pass is a small class named by its CLI name with typed options:

    @register_pass
    class Simplify(ModulePass):
        '''irax-simplify: ...'''
        name = "irax-simplify"
        options = {"max-iterations": Option(int, 4, "rounds of folding")}
        def run(self, module): ...

Pipelines use MLIR's textual syntax. irax passes and registered MLIR/IREE passes mix:

    builtin.module(irax-verify, canonicalize, func.func(cse), irax-lower-to-stablehlo)

Consecutive MLIR passes run in one ``PassManager``; irax passes run in Python on the
module.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from irax.dialect import mlir
from irax.passes.pipelines import PIPELINES

PASSES: dict[str, type[ModulePass]] = {}

class PipelineError(ValueError):
    """A malformed pipeline, an unknown pass or a bad option."""


@dataclass(frozen=True)
class Option:
    type: type
    default: Any
    help: str

    def parse(self, pass_name: str, key: str, text: str):
        try:
            if self.type is bool:
                if text.lower() not in ("true", "false", "1", "0"):
                    raise ValueError(text)
                return text.lower() in ("true", "1")
            return self.type(text)
        except ValueError:
            raise PipelineError(
                f"invalid value '{text}' for option '{key}' of pass '{pass_name}': expected "
                f"{self.type.__name__}") from None


class ModulePass:
    """Base class of irax passes: ``run(module)`` transforms an ``ir.Module`` in place."""

    name: ClassVar[str] = ""
    options: ClassVar[dict[str, Option]] = {}

    def __init__(self, **values):
        self.values = {k: o.default for k, o in self.options.items()}
        for k, v in values.items():
            if k not in self.options:
                raise PipelineError(f"pass '{self.name}' has no option '{k}'; options: "
                                    f"{sorted(self.options) or 'none'}")
            self.values[k] = v

    def option(self, key: str):
        return self.values[key]

    def run(self, module) -> None:
        raise NotImplementedError

    @classmethod
    def summary(cls) -> str:
        """The docstring's first paragraph, without the leading ``name:``."""
        paragraph = (cls.__doc__ or "").strip().split("\n\n", 1)[0]
        text = " ".join(line.strip() for line in paragraph.splitlines())
        return text.split(":", 1)[1].strip() if text.startswith(cls.name + ":") else text


def register_pass(cls: type[ModulePass]) -> type[ModulePass]:
    if not cls.name:
        raise ValueError(f"{cls.__name__} has no pass name")
    if cls.name in PASSES:
        raise ValueError(f"pass {cls.name} registered twice")
    PASSES[cls.name] = cls
    return cls


# ---- pipeline parsing ------------------------------------------------------------------------
@dataclass
class _MlirStep:
    text: str


def _split_top(text: str) -> list[str]:
    parts, depth, cur = [], 0, []
    for ch in text:
        if ch in "({":
            depth += 1
        elif ch in ")}":
            depth -= 1
            if depth < 0:
                raise PipelineError(f"unbalanced ')' in pass pipeline '{text}'")
        if ch == "," and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    if depth != 0:
        raise PipelineError(f"unbalanced '(' in pass pipeline '{text}'")
    tail = "".join(cur).strip()
    if tail:
        parts.append(tail)
    return [p for p in parts if p]


def _parse_options(pass_cls, text: str) -> dict:
    values = {}
    for item in text.split():
        if "=" not in item:
            raise PipelineError(f"expected 'key=value' in options of pass '{pass_cls.name}', "
                                f"got '{item}'")
        key, val = item.split("=", 1)
        opt = pass_cls.options.get(key)
        if opt is None:
            raise PipelineError(f"pass '{pass_cls.name}' has no option '{key}'; options: "
                                f"{sorted(pass_cls.options) or 'none'}")
        values[key] = opt.parse(pass_cls.name, key, val)
    return values


def _expand_names(items: list[str]) -> list[str]:
    """The items with every pipeline name replaced by its passes (names may nest)."""
    out = []
    for item in items:
        out += _expand_names(_split_top(PIPELINES[item])) if item in PIPELINES else [item]
    return out


def parse_pipeline(text: str) -> list:
    """Parses ``builtin.module(...)`` (or a bare comma list) into steps: irax pass
    instances and ``_MlirStep`` runs of registered MLIR passes."""
    text = text.strip()
    if text.startswith("builtin.module(") and text.endswith(")"):
        text = text[len("builtin.module("):-1]
    elif text.startswith("any(") and text.endswith(")"):
        text = text[4:-1]
    steps: list = []
    for item in _expand_names(_split_top(text)):
        name = item.split("{", 1)[0].split("(", 1)[0].strip()
        cls = PASSES.get(name)
        if cls is None:
            if name.startswith("irax-"):
                raise PipelineError(f"'{name}' does not refer to a registered pass or pass "
                                    "pipeline")
            if steps and isinstance(steps[-1], _MlirStep):
                steps[-1].text += ", " + item
            else:
                steps.append(_MlirStep(item))
            continue
        opts = {}
        if "{" in item:
            if not item.endswith("}"):
                raise PipelineError(f"malformed options in '{item}'")
            opts = _parse_options(cls, item[item.index("{") + 1:-1])
        steps.append(cls(**opts))
    return steps


def run_pipeline(module, text: str, after_each=None) -> None:
    """Runs a pipeline on ``module`` in place. ``after_each(step_name, module)`` observes."""
    steps = parse_pipeline(text)
    for step in steps:
        if isinstance(step, _MlirStep):
            _run_mlir(module, step.text)
            name = step.text
        else:
            with mlir.context(), mlir.unknown_loc():
                step.run(module)
            name = step.name
        if after_each is not None:
            after_each(name, module)


def _run_mlir(module, text: str) -> None:
    from iree.compiler import passmanager

    ir = mlir.ir()
    with mlir.context():
        try:
            pm = passmanager.PassManager.parse(f"builtin.module({text})")
        except ValueError as e:
            raise PipelineError(str(e).strip()) from None
        try:
            pm.run(module.operation)
        except ir.MLIRError as e:
            raise PipelineError(f"pass pipeline '{text}' failed: {e}") from None
