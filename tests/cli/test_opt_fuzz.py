"""irax-opt never lies, on mutated input: about 200 inputs derived from the lit tests' .mlir
files (byte flips, deleted, duplicated and swapped lines and tokens, truncations) run
through random pipelines of the registered passes, in process.

For every input: the exit code is 0 or 1; stderr holds no traceback; exit code 1 comes
with a message; exit code 0 comes with IR that irax-opt reads back (exit code 0 again).
The mutations are seeded, so a failure names a case that reproduces.
"""

from __future__ import annotations

import contextlib
import io
import random
import re
import time
from pathlib import Path

from irax.cli import opt
from irax.dialect.base import REGISTRY
from irax.passes import PASSES
from irax.passes.pipelines import PIPELINES

LIT = Path(__file__).resolve().parent.parent / "lit"
SEED = 20250601
CASES = 200
#: registered MLIR passes mixed into the random pipelines
MLIR_PASSES = ["canonicalize", "cse", "func.func(cse)", "symbol-dce"]
_TOKEN = re.compile(rb"%[\w#]+|@\w+|\btensor<[^>\n]*>|\b\d+\b|\"[^\"\n]*\"|\w+")
_TENSOR = re.compile(rb"\btensor<[^>\n]*>")
_IRAX_OP = re.compile(rb'"irax\.[\w.]+"')


def _seeds() -> list[tuple[str, bytes]]:
    """The chunks of every lit .mlir file (split on '// -----'), named file#index."""
    out = []
    for path in sorted(LIT.rglob("*.mlir")):
        if "Output" in path.parts:
            continue
        for i, chunk in enumerate(path.read_bytes().split(b"// -----")):
            if chunk.strip():
                out.append((f"{path.relative_to(LIT)}#{i}", chunk))
    return out


def _flip(rng, data: bytes) -> bytes:
    if not data:
        return data
    i = rng.randrange(len(data))
    return data[:i] + bytes([data[i] ^ (1 << rng.randrange(8))]) + data[i + 1:]


def _lines(data: bytes) -> list[bytes]:
    return data.split(b"\n")


def _delete_line(rng, data: bytes) -> bytes:
    lines = _lines(data)
    del lines[rng.randrange(len(lines))]
    return b"\n".join(lines)


def _duplicate_line(rng, data: bytes) -> bytes:
    lines = _lines(data)
    i = rng.randrange(len(lines))
    lines.insert(i, lines[i])
    return b"\n".join(lines)


def _swap_lines(rng, data: bytes) -> bytes:
    lines = _lines(data)
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    lines[i], lines[j] = lines[j], lines[i]
    return b"\n".join(lines)


def _truncate(rng, data: bytes) -> bytes:
    return data[:rng.randrange(len(data) + 1)]


def _swap_tokens(rng, data: bytes) -> bytes:
    toks = list(_TOKEN.finditer(data))
    if len(toks) < 2:
        return data
    a, b = sorted(rng.sample(toks, 2), key=lambda m: m.start())
    if a.end() > b.start():
        return data
    return (data[:a.start()] + b.group() + data[a.end():b.start()] + a.group() +
            data[b.end():])


def _retype(rng, data: bytes) -> bytes:
    """One tensor type replaced by another of the same input (often still parses)."""
    types = list(_TENSOR.finditer(data))
    if not types:
        return data
    m, other = rng.choice(types), rng.choice(types)
    return data[:m.start()] + other.group() + data[m.end():]


def _rename_op(rng, data: bytes) -> bytes:
    """One irax op name replaced by another registered one (the verifier's work)."""
    names = list(_IRAX_OP.finditer(data))
    if not names:
        return data
    m = rng.choice(names)
    return data[:m.start()] + f'"{rng.choice(sorted(REGISTRY))}"'.encode() + data[m.end():]


MUTATIONS = [_flip, _delete_line, _duplicate_line, _swap_lines, _truncate, _swap_tokens,
             _retype, _rename_op]


def _pipeline(rng) -> str:
    """A random pipeline: irax passes (some with options), named pipelines, MLIR passes."""
    names = sorted(PASSES)
    items = []
    for _ in range(rng.randint(0, 3)):
        pick = rng.random()
        if pick < 0.75:
            name = rng.choice(names)
            options = PASSES[name].options
            if options and rng.random() < 0.3:
                key, o = rng.choice(sorted(options.items()))
                value = rng.choice(["true", "false"]) if o.type is bool else \
                    str(rng.randint(-1, 3))
                name += f"{{{key}={value}}}"
            items.append(name)
        elif pick < 0.85:
            items.append(rng.choice(sorted(PIPELINES)))
        else:
            items.append(rng.choice(MLIR_PASSES))
    return f"builtin.module({', '.join(items)})" if items else ""


def _cases():
    rng = random.Random(SEED)
    seeds = _seeds()
    for k in range(CASES):
        name, data = rng.choice(seeds)
        steps = []
        for _ in range(rng.choice([0, 1, 1, 1, 2, 3])):
            mutate = rng.choice(MUTATIONS)
            data = mutate(rng, data)
            steps.append(mutate.__name__.lstrip("_"))
        yield k, f"{name} {'+'.join(steps)}", data, _pipeline(rng)


def run_opt(args: list[str]) -> tuple[int, str, str]:
    """``irax-opt args`` in this process: (exit code, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = opt.main(args)
    return rc, out.getvalue(), err.getvalue()


def _check(rc, err, what) -> None:
    assert rc in (0, 1), f"{what}: exit code {rc}\n{err}"
    assert "Traceback" not in err, f"{what}: a traceback\n{err}"
    assert rc == 0 or err.strip(), f"{what}: exit code 1 without a message"


def test_irax_opt_never_lies_on_mutated_input(tmp_path):
    start = time.monotonic()
    codes = {0: 0, 1: 0}
    for k, what, data, pipeline in _cases():
        what = f"case {k} ({what}, -p '{pipeline}')"
        src = tmp_path / f"case{k}.mlir"
        src.write_bytes(data)
        args = [str(src)] + (["-p", pipeline] if pipeline else [])
        rc, out, err = run_opt(args)
        _check(rc, err, what)
        codes[rc] += 1
        if rc == 0:
            again = tmp_path / f"case{k}.out.mlir"
            again.write_text(out)
            rc2, _, err2 = run_opt([str(again)])
            assert rc2 == 0, f"{what}: its output does not read back\n{err2}\n{out}"
    elapsed = time.monotonic() - start
    assert codes[0] and codes[1], codes  # the mutations both keep and break inputs
    assert elapsed < 60, f"the fuzz test took {elapsed:.1f} s"
