"""Writes docs/dialect.md from the op registry: every op, its attributes and rules.

    python -m irax.cli.gen_dialect_docs > docs/dialect.md
"""

from __future__ import annotations

import inspect
import sys

from irax.dialect.base import REGISTRY


def _rules(cls) -> str:
    have = []
    for rule in ("infer", "evaluate", "lower"):
        have.append(rule)
    if not cls.differentiable:
        have.append("non-differentiable")
    else:
        if cls.jvp is not None or cls.jvp_full is not None:
            have.append("jvp")
        if cls.transpose is not None:
            have.append("transpose")
    if getattr(cls, "batch", None) is not None:
        have.append("batch")
    return ", ".join(have)


def _family(cls) -> str:
    return cls.__module__.rsplit(".", 1)[-1]


def render() -> str:
    lines = ["# The irax dialect", "",
             "Generated from the op registry by `python -m irax.cli.gen_dialect_docs`; a test "
             "checks that this file is current.", "",
             "irax ops are unregistered MLIR operations printed in generic form "
             "(`\"irax.add\"(%a, %b) : (...) -> ...`). Each is one Python class carrying all "
             "of its rules (see `docs/architecture.md`).", ""]
    by_family: dict[str, list] = {}
    for name in sorted(REGISTRY):
        by_family.setdefault(_family(REGISTRY[name]), []).append(REGISTRY[name])
    for family in sorted(by_family):
        lines += [f"## {family}", ""]
        for cls in by_family[family]:
            lines.append(f"### `{cls.name}`")
            lines.append("")
            doc = inspect.cleandoc(cls.__doc__ or "").strip()
            if doc:
                lines += [doc, ""]
            if cls.attributes:
                attrs = ", ".join(
                    f"`{k}`" + (f" (default `{cls.defaults[k]!r}`)" if k in cls.defaults else "")
                    for k in cls.attributes)
                lines += [f"Attributes: {attrs}.", ""]
            lines += [f"Rules: {_rules(cls)}.", ""]
    return "\n".join(lines).rstrip() + "\n"


def main() -> int:
    sys.stdout.write(render())
    return 0


if __name__ == "__main__":
    sys.exit(main())
