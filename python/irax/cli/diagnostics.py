"""mlir-opt's ``--verify-diagnostics``: match emitted diagnostics against
``// expected-error {{...}}`` comments (``@+N``/``@-N`` for other lines)."""

from __future__ import annotations

import re
from dataclasses import dataclass

_EXPECT = re.compile(r"//\s*expected-(error|warning|note|remark)\s*(@[+-]?\d+|@above|@below)?"
                     r"\s*\{\{(.*?)\}\}")
_LOC = re.compile(r'loc\("(?P<file>[^"]*)":(?P<line>\d+):(?P<col>\d+)\)|'
                  r'(?P<file2>[^\s:]+):(?P<line2>\d+):(?P<col2>\d+)')


@dataclass
class Expected:
    kind: str
    line: int
    text: str
    seen: bool = False


def parse_expectations(text: str, line_offset: int = 0) -> list[Expected]:
    out = []
    for i, line in enumerate(text.splitlines(), start=1):
        for m in _EXPECT.finditer(line):
            kind, where, msg = m.group(1), m.group(2), m.group(3)
            target = i
            if where in ("@above",):
                target = i - 1
            elif where in ("@below",):
                target = i + 1
            elif where:
                target = i + int(where[1:])
            out.append(Expected(kind, target + line_offset, msg))
    return out


def line_of(location: str) -> int | None:
    m = _LOC.search(location)
    if not m:
        return None
    return int(m.group("line") or m.group("line2"))
