"""irax-opt's diagnostics: MLIR-style messages rendered as ``file:line:col: error: ...``,
and mlir-opt's ``--verify-diagnostics``, which matches emitted diagnostics against
``// expected-error {{...}}`` comments (``@+N``/``@-N`` for other lines).

    render(['loc("-":2:8): error: \\'irax.add\\' op expected ...'], "in.mlir")
    -> ["in.mlir:2:8: error: 'irax.add' op expected ..."]
    render(["irax-autodiff: @f has no return"], "in.mlir")
    -> ["irax-opt: error: irax-autodiff: @f has no return"]
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_EXPECT = re.compile(r"//\s*expected-(error|warning|note|remark)\s*(@[+-]?\d+|@above|@below)?"
                     r"\s*\{\{(.*?)\}\}")
_LOC = re.compile(r'loc\("(?P<file>[^"]*)":(?P<line>\d+):(?P<col>\d+)\)|'
                  r'"(?P<file3>[^"]*)":(?P<line3>\d+):(?P<col3>\d+)|'
                  r'(?P<file2>[^\s:"()]+):(?P<line2>\d+):(?P<col2>\d+)')
#: ``<location>: <severity>: <message>``; the location is ``loc(...)``, ``file:L:C`` or a
#: program name
_SEVERITY = re.compile(r"^(?P<head>loc\(.*?\)|[^\s]+?): (?P<sev>error|warning|note|remark): "
                       r"(?P<msg>.*)$")
#: ``loc(...): <message>`` (MLIR's diagnostics printed without a severity)
_BARE_LOC = re.compile(r"^(?P<head>loc\(.*?\)): (?P<msg>.*)$")
#: the file name of locations in IR parsed from a string
_BUFFER = "-"
PROG = "irax-opt"
#: continuation lines shown per diagnostic
MAX_CONTINUATION = 20


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
    return int(m.group("line") or m.group("line3") or m.group("line2"))


def _where(head: str, filename: str) -> str | None:
    """``file:line:col`` of a location (the input's name for the parsed buffer), or None
    for a location without a line (``loc(unknown)``, a program name)."""
    m = _LOC.search(head)
    if m is None:
        return None
    file = m.group("file") if m.group("file") is not None else (m.group("file3") or
                                                               m.group("file2"))
    line = m.group("line") or m.group("line3") or m.group("line2")
    col = m.group("col") or m.group("col3") or m.group("col2")
    return f"{filename if file == _BUFFER else file}:{line}:{col}"


def render(messages, filename: str) -> list[str]:
    """The lines irax-opt prints for error messages (``IRError`` texts, MLIR diagnostics):
    each located line as ``file:line:col: severity: message``, an unlocated first line as
    ``irax-opt: error: message``; other lines continue the diagnostic before them (at most
    ``MAX_CONTINUATION`` of them: a note may print a whole op)."""
    out = []
    for message in messages:
        first, continued = True, 0
        for line in str(message).splitlines():
            if not line.strip():
                continue
            if line.startswith(f"{PROG}: "):  # already ours (an internal error)
                out.append(line)
                first = False
                continue
            m = _SEVERITY.match(line)
            sev = m.group("sev") if m else "error"
            if m is None:
                m = _BARE_LOC.match(line)
            if m is not None and (m.group("head").startswith("loc(") or
                                  _LOC.fullmatch(m.group("head")) or m.group("head") == PROG):
                where = _where(m.group("head"), filename) or PROG
                out.append(f"{where}: {sev}: {m.group('msg')}")
                continued = 0
            elif first:
                out.append(f"{PROG}: error: {line.strip()}")
            else:
                continued += 1
                if continued <= MAX_CONTINUATION:
                    out.append(line)
                elif continued == MAX_CONTINUATION + 1:
                    out.append("  ...")
            first = False
    return out


def is_error(line: str) -> bool:
    """Whether a rendered line is an error (not a note or a continuation line)."""
    m = _SEVERITY.match(line)
    return m is not None and m.group("sev") == "error"


def check_expected(chunk: str, offset: int, lines: list[str], name: str) -> list[str]:
    """``--verify-diagnostics`` for one chunk: the problems (an error no ``expected-error``
    names, an expectation no error met), as diagnostics to print; empty when all match."""
    expected = parse_expectations(chunk, offset)
    problems = []
    for d in lines:
        if not is_error(d):
            continue  # notes and continuation lines are not checked
        msg = d.split(": error: ", 1)[-1]
        line = line_of(d.split(": error: ", 1)[0]) if d.startswith(f"{name}:") else None
        match = next((e for e in expected if not e.seen and e.kind == "error" and
                      e.line == line and e.text in msg), None)
        if match is None:
            where = f"{name}:{line}" if line is not None else PROG
            problems += [d, f"{where}: error: unexpected error: {msg}"]
        else:
            match.seen = True
    for e in expected:
        if not e.seen:
            problems.append(f"{name}:{e.line}: error: expected {e.kind} \"{e.text}\" was not "
                            "produced")
    return problems
