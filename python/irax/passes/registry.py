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

Each MLIR element runs in its own ``PassManager`` (checked when the pipeline is parsed);
irax passes run in Python on the module. A malformed pipeline, an unknown pass or a bad
option raises ``PipelineError`` naming what is wrong and what is expected.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, ClassVar

from irax.core.errors import IRError
from irax.dialect import mlir
from irax.dialect.verifier import diagnostics_of
from irax.passes.pipelines import PIPELINES

PASSES: dict[str, type[ModulePass]] = {}

class PipelineError(ValueError):
    """A malformed pipeline, an unknown pass or a bad option."""


@dataclass(frozen=True)
class Option:
    """A typed pass option: ``bool`` (true/false/1/0) or ``int`` (at least ``minimum``
    when given)."""

    type: type
    default: Any
    help: str
    minimum: int | None = None

    def parse(self, pass_name: str, key: str, text: str):
        """The value of ``key={text}``; raises ``PipelineError`` naming what is expected."""
        if self.type is bool and text.lower() in ("true", "false", "1", "0"):
            return self.check(pass_name, key, text.lower() in ("true", "1"))
        if self.type is int and re.fullmatch(r"[+-]?[0-9]+", text):
            return self.check(pass_name, key, int(text))
        raise PipelineError(f"invalid value '{text}' for option '{key}' of pass '{pass_name}': "
                            f"expected {self.expected()}")

    def check(self, pass_name: str, key: str, value):
        """``value`` if this option accepts it (``ModulePass(**values)`` checks too)."""
        ok = isinstance(value, self.type) and (self.type is bool or not isinstance(value, bool))
        if ok and self.minimum is not None:
            ok = value >= self.minimum
        if not ok:
            raise PipelineError(f"invalid value '{value}' for option '{key}' of pass "
                                f"'{pass_name}': expected {self.expected()}")
        return value

    def expected(self) -> str:
        if self.type is bool:
            return "true or false"
        if self.type is int:
            return "an integer" if self.minimum is None else f"an integer >= {self.minimum}"
        return self.type.__name__


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
            self.values[k] = self.options[k].check(self.name, k, v)

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
# pipeline := element (',' element)* ; element := name ['{' options '}'] ['(' pipeline ')']
_NAME = re.compile(r"[A-Za-z0-9_.-]+")


@dataclass
class _Element:
    """One element of a pipeline as written: ``name{options}(nested)``."""

    name: str
    options: str | None
    nested: list[_Element] | None
    text: str


@dataclass
class _MlirStep:
    """A registered MLIR/IREE pass (or op-anchored nest of them), run by a PassManager."""

    text: str
    pm: Any = None

    @property
    def name(self) -> str:
        return self.text


class _PipelineParser:
    """Recursive descent over the pipeline text; every error names the position, what was
    found and what is expected."""

    def __init__(self, text: str):
        self.text, self.pos = text, 0

    def error(self, what: str) -> PipelineError:
        return PipelineError(f"invalid pass pipeline '{self.text}': {what}")

    def found(self) -> str:
        if self.pos < len(self.text):
            m = _NAME.match(self.text, self.pos)
            token = m.group() if m else self.text[self.pos]
            return f"'{token}' at character {self.pos + 1}"
        return "the end of the pipeline"

    def skip_space(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.pos += 1

    def pipeline(self, closing: str | None) -> list[_Element]:
        items: list[_Element] = []
        self.skip_space()
        if closing and self.text.startswith(closing, self.pos):
            return items  # an empty nested pipeline: builtin.module()
        if not closing and self.pos == len(self.text):
            return items
        while True:
            items.append(self.element())
            self.skip_space()
            if self.text.startswith(",", self.pos):
                self.pos += 1
                continue
            if closing is None and self.pos == len(self.text):
                return items
            if closing is not None and self.text.startswith(closing, self.pos):
                return items
            expected = "',' or the end" if closing is None else f"',' or '{closing}'"
            raise self.error(f"expected {expected} after '{items[-1].text}', but got "
                             f"{self.found()}")

    def element(self) -> _Element:
        self.skip_space()
        start = self.pos
        m = _NAME.match(self.text, self.pos)
        if m is None:
            raise self.error(f"expected a pass name, but got {self.found()}")
        name = m.group()
        self.pos = m.end()
        self._no_space_before_bracket(name)
        options = None
        if self.text.startswith("{", self.pos):
            options = self.braced()
            self._no_space_before_bracket(name)
        nested = None
        if self.text.startswith("(", self.pos):
            self.pos += 1
            nested = self.pipeline(")")
            self.pos += 1
        return _Element(name, options, nested, self.text[start:self.pos])

    def _no_space_before_bracket(self, name: str) -> None:
        end = self.pos
        self.skip_space()
        if self.pos < len(self.text) and self.text[self.pos] in "({" and self.pos > end:
            bracket = self.text[self.pos]
            close = ")" if bracket == "(" else "}"
            raise self.error(f"unexpected space between '{name}' and '{bracket}': write "
                             f"'{name}{bracket}...{close}' without a space")
        self.pos = end

    def braced(self) -> str:
        """The text between ``{`` and its matching ``}`` (options may nest braces)."""
        start, depth = self.pos, 0
        while self.pos < len(self.text):
            ch = self.text[self.pos]
            depth += {"{": 1, "}": -1}.get(ch, 0)
            self.pos += 1
            if depth == 0:
                return self.text[start + 1:self.pos - 1]
        raise self.error(f"expected '}}' to close the options opened at character {start + 1}")



def _split_top(text: str) -> list[_Element]:
    """The elements of a pipeline text, unwrapped from ``builtin.module(...)``/``any(...)``."""
    items = _PipelineParser(text).pipeline(None)
    if len(items) == 1 and items[0].name in ("builtin.module", "any") and \
            items[0].nested is not None:
        if items[0].options is not None:
            raise PipelineError(f"invalid pass pipeline '{text}': '{items[0].name}' takes no "
                                "options")
        return items[0].nested
    return items


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
        if key in values:
            raise PipelineError(f"option '{key}' of pass '{pass_cls.name}' is given twice")
        values[key] = opt.parse(pass_cls.name, key, val)
    return values


def _expand_names(items: list[_Element], depth: int = 0) -> list[_Element]:
    """The items with every pipeline name replaced by its passes (names may nest)."""
    out = []
    for item in items:
        if item.name not in PIPELINES:
            out.append(item)
            continue
        if item.options is not None:
            raise PipelineError(f"'{item.name}' is a pass pipeline and takes no options, but "
                                f"got '{{{item.options}}}'")
        if item.nested is not None:
            raise PipelineError(f"'{item.name}' is a pass pipeline and takes no nested "
                                f"pipeline, but got '{item.text[len(item.name):]}'")
        if depth > len(PIPELINES):
            raise PipelineError(f"pass pipeline '{item.name}' refers to itself")
        out += _expand_names(_split_top(PIPELINES[item.name]), depth + 1)
    return out


def _irax_pass_inside(items: list[_Element]) -> str | None:
    for item in items:
        if item.name in PASSES or item.name in PIPELINES:
            return item.name
        found = _irax_pass_inside(item.nested or [])
        if found:
            return found
    return None


def _unknown(name: str) -> PipelineError:
    return PipelineError(f"'{name}' does not refer to a registered pass or pass pipeline "
                         "(irax-opt --list-passes lists the irax passes)")


def parse_pipeline(text: str) -> list:
    """Parses ``builtin.module(...)`` (or a bare comma list) into steps: irax pass
    instances and ``_MlirStep``\\ s of registered MLIR passes (one per element, checked
    now so that a bad pipeline fails before any pass runs)."""
    steps: list = []
    for item in _expand_names(_split_top(text.strip())):
        cls = PASSES.get(item.name)
        if cls is None:
            if item.name.startswith("irax-"):
                raise _unknown(item.name)
            inner = _irax_pass_inside(item.nested or [])
            if inner:
                raise PipelineError(f"'{inner}' cannot be nested in '{item.name}(...)': irax "
                                    "passes run on the whole module; list it at the top level")
            steps.append(_mlir_step(item.text))
            continue
        if item.nested is not None:
            raise PipelineError(f"pass '{item.name}' takes no nested pipeline, but got "
                                f"'{item.text[item.text.index('('):]}'")
        steps.append(cls(**_parse_options(cls, item.options or "")))
    return steps


def step_name(step) -> str:
    """The name of a pipeline step: the irax pass's name or the MLIR element's text."""
    return step.name


def run_step(module, step) -> None:
    """Runs one step of ``parse_pipeline`` on ``module`` in place."""
    if isinstance(step, _MlirStep):
        _run_mlir(module, step)
    else:
        with mlir.context(), mlir.unknown_loc():
            step.run(module)


def run_pipeline(module, text: str, after_each=None) -> None:
    """Runs a pipeline on ``module`` in place. ``after_each(step_name, module)`` observes."""
    for step in parse_pipeline(text):
        run_step(module, step)
        if after_each is not None:
            after_each(step_name(step), module)


def _mlir_step(text: str) -> _MlirStep:
    from iree.compiler import passmanager  # import cost: the MLIR bindings load lazily

    with mlir.context():
        try:
            pm = passmanager.PassManager.parse(f"builtin.module({text})")
        except ValueError as e:  # "MLIR Textual PassPipeline Parser:1:1: error: ...\n^"
            lines = str(e).strip().splitlines() or ["not a valid pass pipeline"]
            message = lines[0].split(" error: ", 1)[-1]
            raise PipelineError(f"invalid MLIR pass pipeline element '{text}': "
                                f"{message}") from None
    return _MlirStep(text, pm)


def _run_mlir(module, step: _MlirStep) -> None:
    ir = mlir.ir()
    with mlir.context():
        try:
            step.pm.run(module.operation)
        except ir.MLIRError as e:
            raise IRError("\n".join(str(d) for d in diagnostics_of(e))) from None
