"""irax-opt: an mlir-opt-style driver for irax and StableHLO IR.

    irax-opt input.mlir -p 'builtin.module(irax-verify, irax-lower-to-stablehlo)'
    irax-opt --list-passes

Reads a file (or stdin with '-' or no file), verifies it, runs the pipeline (irax passes
and registered MLIR/IREE passes mixed), prints the result. User errors are reported as
located diagnostics ``file:line:col: error: ...`` with exit code 1, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import io
import sys

from irax.cli.diagnostics import line_of, parse_expectations
from irax.core.errors import IRError
from irax.dialect import mlir
from irax.dialect.verifier import collect_diagnostics
from irax.passes import PASSES
from irax.passes.registry import PipelineError, run_pipeline


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="irax-opt", description=__doc__.splitlines()[0])
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
    p.add_argument("--no-verify", action="store_true", help="skip the irax verifier on input")
    p.add_argument("--test-ops", action="store_true",
                   help="register the ops that exist to test passes (irax.test.*)")
    return p


class UserError(Exception):
    """A diagnostic for the user: printed as is, exit code 1."""


def list_passes() -> str:
    lines = ["Available irax passes:"]
    for name in sorted(PASSES):
        cls = PASSES[name]
        lines.append(f"  {name}  -  {cls.summary()}")
        for key, opt in cls.options.items():
            lines.append(f"    {key}=<{opt.type.__name__}>  -  {opt.help} "
                         f"(default: {opt.default})")
    return "\n".join(lines)


def process(text: str, filename: str, args, line_offset: int = 0) -> tuple[str, list[str]]:
    """Parses, verifies and transforms one chunk. Returns (output IR, diagnostics)."""
    ir = mlir.ir()
    ctx = mlir.context()
    src = "\n" * line_offset + text
    with ctx:
        try:
            module = ir.Module.parse(src, ctx)
        except ir.MLIRError as e:
            return "", [_fmt(d, filename) for d in e.error_diagnostics] or [str(e)]
        if not args.no_verify:
            diags = collect_diagnostics(module)
            if diags:
                return "", [str(d) for d in diags]

        def after(name, mod):
            if args.mlir_print_ir_after_all:
                print(f"// -----// IR Dump After {name} //----- //", file=sys.stderr)
                print(mod.operation.get_asm(), file=sys.stderr)

        before = args.mlir_print_ir_before
        if before:
            print(f"// -----// IR Dump Before {before} //----- //", file=sys.stderr)
            print(module.operation.get_asm(), file=sys.stderr)
        if args.pass_pipeline:
            try:
                run_pipeline(module, args.pass_pipeline, after_each=after)
            except PipelineError as e:
                raise UserError(f"irax-opt: {e}") from None
            except IRError as e:
                return "", [str(e)]
        if args.emit_bytecode:
            buf = io.BytesIO()
            module.operation.write_bytecode(buf)
            return buf.getvalue(), []
        return module.operation.get_asm(print_generic_op_form=args.mlir_print_op_generic), []


def _fmt(diag, filename) -> str:
    loc = str(diag.location)
    line = line_of(loc)
    if line is not None:
        col = loc.rsplit(":", 1)[-1].rstrip(")")
        loc = f"{filename}:{line}:{col}"
    return f"{loc}: error: {diag.message}"


def _chunks(text: str, split: bool):
    if not split:
        yield text, 0
        return
    offset = 0
    for chunk in text.split("// -----"):
        yield chunk, offset
        offset += chunk.count("\n")


def main(argv=None) -> int:
    args = _parser().parse_args(argv)
    if args.test_ops:
        importlib.import_module("irax.dialect.testing")  # registers irax.test.* ops
    if args.list_passes:
        print(list_passes())
        return 0
    try:
        text = sys.stdin.read() if args.input == "-" else open(args.input).read()
    except OSError as e:
        print(f"irax-opt: could not open input file '{args.input}': {e.strerror}",
              file=sys.stderr)
        return 1
    name = "<stdin>" if args.input == "-" else args.input
    outputs, failed = [], False
    for chunk, offset in _chunks(text, args.split_input_file):
        try:
            out, diags = process(chunk, name, args, offset)
        except UserError as e:
            print(str(e), file=sys.stderr)
            return 1
        diags = [_relocate(line, name) for d in diags for line in str(d).splitlines()
                 if ": error: " in line]
        if args.verify_diagnostics:
            failed |= not _check_expected(chunk, offset, diags, name)
            if out and not diags:
                outputs.append(out)
            continue
        if diags:
            for d in diags:
                print(d, file=sys.stderr)
            failed = True
            continue
        outputs.append(out)
    _write(outputs, args)
    return 1 if failed else 0


def _relocate(diag: str, filename: str) -> str:
    line = line_of(diag)
    if line is None or diag.startswith(filename):
        return diag
    rest = diag.split(": error: ", 1)
    col = "1"
    head = rest[0]
    if head.count(":") >= 2:
        col = head.rsplit(":", 1)[-1].rstrip(")")
    return f"{filename}:{line}:{col}: error: {rest[1] if len(rest) > 1 else diag}"


def _check_expected(chunk: str, offset: int, diags: list[str], name: str) -> bool:
    expected = parse_expectations(chunk, offset)
    ok = True
    for d in diags:
        line = line_of(d)
        msg = d.split(": error: ", 1)[-1]
        match = next((e for e in expected if not e.seen and e.line == line and e.text in msg),
                     None)
        if match is None:
            print(f"{d}\n{name}:{line}: error: unexpected error: {msg}", file=sys.stderr)
            ok = False
        else:
            match.seen = True
    for e in expected:
        if not e.seen:
            print(f"{name}:{e.line}: error: expected {e.kind} \"{e.text}\" was not produced",
                  file=sys.stderr)
            ok = False
    return ok


def _write(outputs, args) -> None:
    if args.emit_bytecode:
        data = b"".join(o for o in outputs if isinstance(o, bytes))
        if args.output == "-":
            sys.stdout.buffer.write(data)
        else:
            open(args.output, "wb").write(data)
        return
    text = "\n// -----\n".join(o for o in outputs if o)
    if args.output == "-":
        sys.stdout.write(text)
    else:
        with open(args.output, "w") as f:
            f.write(text)


if __name__ == "__main__":
    sys.exit(main())
