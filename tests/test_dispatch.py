"""No pass or rule dispatches on op or pass name strings: code compares op classes
(``op_class(op) is FuncReturn``, ``issubclass(cls, Collective)``) and traits
(``cls.terminator``, ``cls.has_side_effects``). Only the registries, which map names to
classes, and the StableHLO parser, which reads StableHLO by name, may compare names."""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "python" / "irax"

ALLOWED = {
    "dialect/base.py",            # the irax op registry
    "dialect/upstream.py",        # the registry of other dialects' ops
    "passes/registry.py",         # the pass registry and pipeline parser
    "passes/pipelines.py",        # the named pipelines
    "passes/raise_stablehlo.py",  # the StableHLO parser
    "dialect/raising.py",         # its attribute readers
    "lowering/loop_kernel.py",    # a table from StableHLO names to arith/math ops
    "lowering/vector_kernel.py",  # the same, to vector ops
    "lowering/vector_loop.py",    # which loops it takes (by the ops around them)
}

_OP_NAME = re.compile(r"^[rbuf]*[\"'](?:irax|func|stablehlo|chlo|flow|hal|builtin)\.[a-z_.]+"
                      r"[\"']$")
_PASS_NAME = re.compile(r"^[rbuf]*[\"']irax-[a-z-]+[\"']$")
_COMPARISONS = {"==", "!=", "in"}
_OPEN = {"(", "[", "{"}


def _compared_literals(text: str):
    """``(line, literal)`` of every op- or pass-name string literal used as an operand of a
    comparison (``==``, ``!=``, ``in``, also inside the bracket after ``in``)."""
    toks = [t for t in tokenize.generate_tokens(io.StringIO(text).readline)
            if t.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT,
                              tokenize.INDENT, tokenize.DEDENT)]
    for i, tok in enumerate(toks):
        if tok.type != tokenize.STRING or not (_OP_NAME.match(tok.string) or
                                               _PASS_NAME.match(tok.string)):
            continue
        before = toks[i - 1].string if i else ""
        after = toks[i + 1].string if i + 1 < len(toks) else ""
        j = i - 1
        while j >= 0 and (toks[j].string == "," or toks[j].type == tokenize.STRING):
            j -= 1  # earlier members of the same tuple
        in_bracket = j > 0 and toks[j].string in _OPEN and toks[j - 1].string in _COMPARISONS
        if before in _COMPARISONS or after in ("==", "!=") or in_bracket:
            yield tok.start[0], tok.string


def name_dispatch(text: str, where: str) -> list[str]:
    lines = text.splitlines()
    problems = [f"{where}:{n}: compares {'a pass' if 'irax-' in s else 'an op'} name: "
                f"{lines[n - 1].strip()}" for n, s in _compared_literals(text)]
    for n, line in enumerate(lines, start=1):
        code = line.split("#", 1)[0]
        if ".name.startswith(" in code:
            problems.append(f"{where}:{n}: matches an op name prefix: {line.strip()}")
        if _RULE_LOOKUP.search(code):
            problems.append(f"{where}:{n}: looks a rule up by name: {line.strip()}")
    return sorted(set(problems), key=lambda p: int(p.split(":")[1]))


_RULE_LOOKUP = re.compile(r"getattr\([^,()]+,\s*[\"'][a-z]+_(?:jvp|vjp|batch|transpose|lower)"
                          r"[\"']")


def test_no_dispatch_on_name_strings():
    problems = []
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel not in ALLOWED:
            problems += name_dispatch(path.read_text(), rel)
    assert not problems, "\n".join(problems)


def test_the_check_catches_name_dispatch():
    bad = '''
if op.name == "func.return":
    pass
if name in ("func.return", "irax.return"):
    pass
if op.name.startswith("irax."):
    pass
if cls.expanded_by in {"irax-autodiff"}:
    pass
rule = getattr(control_rules, "while_jvp")
'''
    found = name_dispatch(bad, "x.py")
    assert [p.split(": ", 1)[1].split(":")[0] for p in found] == [
        "compares an op name", "compares an op name", "matches an op name prefix",
        "compares a pass name", "looks a rule up by name"]
    good = ('if op_class(op) is FuncReturn and dt.name != "bfloat16":\n'
            '    make("func.call")\n'
            'raise OpError("expected each region to end in \'irax.return\'")\n')
    assert name_dispatch(good, "y.py") == []
