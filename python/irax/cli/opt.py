"""irax-opt: an mlir-opt-style driver for irax and StableHLO IR.

    irax-opt input.mlir -p 'builtin.module(irax-verify, irax-lower-to-stablehlo)'
    irax-opt --list-passes

Reads a file (or stdin with '-' or no file; UTF-8 text or MLIR bytecode), verifies it, runs
the pipeline (irax passes and registered MLIR/IREE passes mixed), verifies the IR after
each pass, prints the result. Every failure exits with code 1 and says why on stderr: a
located diagnostic ``file:line:col: error: ...`` where the IR has a location,
``irax-opt: error: ...`` otherwise. An exception a pass did not expect is reported as
``irax-opt: internal error in pass 'X': ...``, with its traceback only under
``--show-traceback`` (or ``IRAX_OPT_TRACEBACK=1``).
"""

from __future__ import annotations

import argparse
import importlib
import io
import os
import re
import sys
import threading
import traceback

from irax.cli.diagnostics import PROG, check_expected, render
from irax.core.errors import IRError
from irax.dialect import mlir
from irax.dialect.base import OpError
from irax.dialect.verifier import collect_diagnostics, diagnostics_of
from irax.passes import PASSES
from irax.passes.registry import PipelineError, parse_pipeline, run_step, step_name

#: the first bytes of MLIR bytecode
_BYTECODE_MAGIC = b"ML\xefR"
_SPLIT = "// -----"
#: the stack of the thread irax-opt works on, and the deepest bracket nesting it accepts
#: (MLIR's parser takes a few KiB of stack per level: 20000 levels fit in 256 MiB)
_STACK_BYTES = 256 << 20
_MAX_NESTING = 20000
_STRING_OR_COMMENT = re.compile(r'"(?:[^"\\\n]|\\.)*"|//[^\n]*|->')


class UserError(Exception):
    """A diagnostic for the user: printed as is, exit code 1."""


class _ArgumentParser(argparse.ArgumentParser):
    """argparse whose usage errors exit with 1 (as mlir-opt's) through ``main``."""

    def error(self, message):
        raise UserError(f"{self.format_usage()}{self.prog}: error: {message}")


def _bool(text: str) -> bool:
    if text.lower() not in ("true", "false", "1", "0"):
        raise argparse.ArgumentTypeError(f"expected true or false, but got '{text}'")
    return text.lower() in ("true", "1")


def _parser() -> argparse.ArgumentParser:
    p = _ArgumentParser(prog=PROG, description=__doc__.splitlines()[0])
    p.add_argument("input", nargs="?", default="-", help="input file ('-' for stdin)")
    p.add_argument("-p", "--pass-pipeline", default="", help="pass pipeline to run")
    p.add_argument("-o", dest="output", default="-", help="output file")
    p.add_argument("--split-input-file", action="store_true",
                   help="split the input on '// -----' and process each chunk")
    p.add_argument("--verify-diagnostics", action="store_true",
                   help="check diagnostics against expected-* comments")
    p.add_argument("--list-passes", action="store_true", help="list the registered irax passes")
    p.add_argument("--mlir-print-op-generic", action="store_true", help="print generic form")
    p.add_argument("--mlir-print-ir-after-all", action="store_true",
                   help="print the IR after every pass (to stderr)")
    p.add_argument("--mlir-print-ir-before", default="",
                   help="print the IR before the named pass (to stderr)")
    p.add_argument("--emit-bytecode", action="store_true", help="write MLIR bytecode")
    p.add_argument("--no-verify", action="store_true",
                   help="skip the irax verifier (on the input and after each pass)")
    p.add_argument("--verify-each", type=_bool, default=None, metavar="BOOL",
                   help="verify the IR after each pass (default: true unless --no-verify)")
    p.add_argument("--test-ops", action="store_true",
                   help="register the ops that exist to test passes (irax.test.*)")
    p.add_argument("--show-traceback", action="store_true",
                   help="print the Python traceback of an internal error")
    return p


def list_passes() -> str:
    lines = ["Available irax passes:"]
    for name in sorted(PASSES):
        cls = PASSES[name]
        lines.append(f"  {name}  -  {cls.summary()}")
        for key, opt in cls.options.items():
            lines.append(f"    {key}=<{opt.type.__name__}>  -  {opt.help} "
                         f"(default: {opt.default})")
    return "\n".join(lines)


def process(src, args, steps) -> tuple[str | bytes, list[str]]:
    """Parses, verifies and transforms one chunk (text, or bytecode as bytes). Returns
    (output IR, error messages in MLIR's form: ``loc: error: ...`` lines)."""
    ir = mlir.ir()
    ctx = mlir.context()
    with ctx:
        try:
            module = ir.Module.parse(src, ctx)
        except ir.MLIRError as e:
            return "", [str(d) for d in diagnostics_of(e)]
        if not args.no_verify:
            diags = collect_diagnostics(module)
            if diags:
                return "", [str(d) for d in diags]
        for step in steps:
            name = step_name(step)
            if args.mlir_print_ir_before and args.mlir_print_ir_before == name:
                print(f"// -----// IR Dump Before {name} //----- //", file=sys.stderr)
                print(module.operation.get_asm(), file=sys.stderr)
            failure = _run(module, step, name, args)
            if failure:
                return "", failure
            if args.mlir_print_ir_after_all:
                print(f"// -----// IR Dump After {name} //----- //", file=sys.stderr)
                print(module.operation.get_asm(), file=sys.stderr)
            if args.verify_each:
                diags = collect_diagnostics(module)
                if diags:
                    return "", [f"{PROG}: error: the IR after pass '{name}' failed to verify"
                                ] + [str(d) for d in diags]
        if args.emit_bytecode:
            buf = io.BytesIO()
            module.operation.write_bytecode(buf)
            return buf.getvalue(), []
        return module.operation.get_asm(print_generic_op_form=args.mlir_print_op_generic), []


def _run(module, step, name: str, args) -> list[str]:
    """Runs one pipeline step; the error messages of its failure (none on success)."""
    ir = mlir.ir()
    try:
        run_step(module, step)
    except (IRError, PipelineError) as e:  # diagnostics, located where the IR says
        return [str(e)]
    except OpError as e:  # a rule rejected what a pass built: not located
        return [f"{PROG}: error: pass '{name}' failed: {e}"]
    except ir.MLIRError as e:
        return [str(d) for d in diagnostics_of(e)]
    except Exception as e:  # noqa: BLE001 - every failure is a diagnostic, not a traceback
        return [_internal(e, f"in pass '{name}'", args)]
    return []


def _internal(e: BaseException, where: str, args) -> str:
    """``irax-opt: internal error <where>: <Type>: <message>`` (and the traceback, on
    stderr, when asked for)."""
    if getattr(args, "show_traceback", False) or os.environ.get("IRAX_OPT_TRACEBACK"):
        traceback.print_exception(e, file=sys.stderr)
    message = " ".join(str(e).split()) or "(no message)"
    where = f" {where}" if where else ""
    return f"{PROG}: internal error{where}: {type(e).__name__}: {message}"


def _chunks(text, split: bool):
    if not split or isinstance(text, bytes):
        yield text, 0
        return
    offset = 0
    for chunk in text.split(_SPLIT):
        yield chunk, offset
        offset += chunk.count("\n")


def _read(path: str):
    """The input as text, or as bytes when it is MLIR bytecode. Raises ``UserError`` for
    an unreadable file, invalid UTF-8 and NUL characters (which MLIR's parser would skip)."""
    name = "<stdin>" if path == "-" else path
    try:
        if path == "-":
            stream = getattr(sys.stdin, "buffer", None)
            data = stream.read() if stream is not None else sys.stdin.read()
        else:
            with open(path, "rb") as f:
                data = f.read()
    except OSError as e:
        raise UserError(f"{PROG}: error: could not open input file '{path}': "
                        f"{e.strerror or e}") from None
    if isinstance(data, bytes):
        if data.startswith(_BYTECODE_MAGIC):
            return data
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError as e:
            line, col = _position(data, e.start)
            raise UserError(f"{name}:{line}:{col}: error: invalid UTF-8 byte 0x"
                            f"{data[e.start]:02x}: expected MLIR text (UTF-8) or bytecode"
                            ) from None
    nul = data.find("\0")
    if nul >= 0:
        line, col = _position(data, nul)
        raise UserError(f"{name}:{line}:{col}: error: unexpected NUL character: expected "
                        "MLIR text (UTF-8) or bytecode")
    _check_nesting(data, name)
    return data


def _check_nesting(text: str, name: str) -> None:
    """Rejects brackets (regions, blocks, types, attributes) nested deeper than
    ``_MAX_NESTING``, which would overflow MLIR's recursive parser (a crash, not an error)."""
    depth = 0
    for m in re.finditer(r"[({\[<]|[)}\]>]", _STRING_OR_COMMENT.sub(_blank, text)):
        depth += 1 if m.group() in "({[<" else -1
        if depth > _MAX_NESTING:
            line, col = _position(text, m.start())
            raise UserError(f"{name}:{line}:{col}: error: brackets nest more than "
                            f"{_MAX_NESTING} deep: irax-opt reads at most that depth")


def _blank(m) -> str:
    """A string literal, comment or arrow replaced by as many spaces (positions kept)."""
    return " " * len(m.group())


def _position(data, index: int) -> tuple[int, int]:
    """1-based line and column of ``data[index]``."""
    newline = "\n" if isinstance(data, str) else b"\n"
    return data.count(newline, 0, index) + 1, index - (data.rfind(newline, 0, index) + 1) + 1


def _print_before_known(name: str, steps) -> bool:
    return not name or name in PASSES or any(step_name(s) == name for s in steps)


def main(argv=None) -> int:
    """Runs irax-opt; returns the exit code (0, or 1 after any error).

    The work runs on a thread with a large stack: MLIR's parser, verifier and printer
    recurse once per nesting level, and deeply nested (but bounded, see ``_check_nesting``)
    input would overflow the main thread's stack."""
    result = []
    try:
        previous = threading.stack_size(_STACK_BYTES)
    except (ValueError, RuntimeError):  # no settable thread stacks: run here
        return _guarded(argv)
    try:  # the size applies to threads started while it is set
        worker = threading.Thread(target=lambda: result.append(_guarded(argv)),
                                  name="irax-opt", daemon=True)
        worker.start()
    finally:
        threading.stack_size(previous)
    worker.join()
    return result[0] if result else 1


def _guarded(argv) -> int:
    """``_main`` with every failure turned into a message and exit code 1."""
    try:
        return _main(argv)
    except UserError as e:
        print(str(e), file=sys.stderr)
        return 1
    except SystemExit as e:  # --help
        return e.code if isinstance(e.code, int) else int(e.code is not None)
    except Exception as e:  # noqa: BLE001 - a failure is a message, never a traceback
        print(_internal(e, "", None), file=sys.stderr)
        return 1


def _main(argv) -> int:
    args = _parser().parse_args(argv)
    if args.verify_each is None:
        args.verify_each = not args.no_verify
    if args.test_ops:
        importlib.import_module("irax.dialect.testing")  # registers irax.test.* ops
    if args.list_passes:
        print(list_passes())
        return 0
    try:
        steps = parse_pipeline(args.pass_pipeline) if args.pass_pipeline.strip() else []
    except PipelineError as e:
        raise UserError(f"{PROG}: error: {e}") from None
    if not _print_before_known(args.mlir_print_ir_before, steps):
        raise UserError(f"{PROG}: error: --mlir-print-ir-before: '{args.mlir_print_ir_before}'"
                        " is neither an irax pass nor an element of the pipeline")
    text = _read(args.input)
    if isinstance(text, bytes) and (args.split_input_file or args.verify_diagnostics):
        raise UserError(f"{PROG}: error: --split-input-file and --verify-diagnostics need "
                        "MLIR text, but the input is bytecode")
    name = "<stdin>" if args.input == "-" else args.input
    outputs, failed = [], False
    for chunk, offset in _chunks(text, args.split_input_file):
        src = chunk if isinstance(chunk, bytes) else "\n" * offset + chunk
        try:
            out, messages = process(src, args, steps)
        except Exception as e:  # noqa: BLE001 - the parser or verifier failed unexpectedly
            out, messages = "", [_internal(e, "while processing the input", args)]
        lines = render(messages, name)
        if args.verify_diagnostics:
            problems = check_expected(chunk, offset, lines, name)
            for p in problems:
                print(p, file=sys.stderr)
            failed |= bool(problems)
            if out and not messages:
                outputs.append(out)
            continue
        if messages:
            for line in lines:
                print(line, file=sys.stderr)
            failed = True
            continue
        outputs.append(out)
    if args.emit_bytecode and len(outputs) > 1:
        raise UserError(f"{PROG}: error: --emit-bytecode writes one module, but the input "
                        f"has {len(outputs)} chunks")
    _write(outputs, args)
    return 1 if failed else 0


def _write(outputs, args) -> None:
    try:
        if args.emit_bytecode:
            data = b"".join(o for o in outputs if isinstance(o, bytes))
            if args.output == "-":
                sys.stdout.buffer.write(data)
                sys.stdout.flush()
            else:
                with open(args.output, "wb") as f:
                    f.write(data)
            return
        text = f"\n{_SPLIT}\n".join(o for o in outputs if o)
        if args.output == "-":
            sys.stdout.write(text)
        else:
            with open(args.output, "w") as f:
                f.write(text)
    except OSError as e:
        raise UserError(f"{PROG}: error: could not write output file '{args.output}': "
                        f"{e.strerror or e}") from None


if __name__ == "__main__":
    sys.exit(main())
