"""irax-opt never lies: every failure exits with code 1 and says why on stderr (a located
``file:line:col: error: ...`` where the IR has a location, ``irax-opt: error: ...``
otherwise), never a traceback, never exit code 0 after an error.

One regression test per defect a review found; irax-opt runs in process.
"""

from __future__ import annotations

import contextlib
import io
import subprocess
import sys

import pytest

from irax.cli import opt
from irax.core.errors import IRError
from irax.dialect import mlir
from irax.dialect.base import OpError, lookup
from irax.dialect.verifier import collect_diagnostics
from irax.passes import PASSES
from irax.passes.registry import ModulePass, PipelineError


def run_opt(*args, stdin=None) -> tuple[int, str, str]:
    """``irax-opt args`` in this process: (exit code, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    saved = sys.stdin
    if stdin is not None:
        sys.stdin = io.TextIOWrapper(io.BytesIO(stdin))
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = opt.main([str(a) for a in args])
    finally:
        sys.stdin = saved
    return rc, out.getvalue(), err.getvalue()


def failure(*args, stdin=None) -> str:
    """stderr of a run that must fail: exit code 1, a message, no traceback."""
    rc, out, err = run_opt(*args, stdin=stdin)
    assert rc == 1, (rc, out, err)
    assert err.strip(), "exit code 1 without a message"
    assert "Traceback" not in err, err
    return err


@pytest.fixture
def mlir_file(tmp_path):
    def write(text: str | bytes, name: str = "in.mlir"):
        path = tmp_path / name
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text)
        return path
    return write


NO_TERMINATOR = """\
func.func @f(%a: tensor<3xf32>) -> tensor<3xf32> {
  %0 = "irax.sin"(%a) : (tensor<3xf32>) -> tensor<3xf32>
}
"""

RECURSIVE = """\
func.func @main(%a: tensor<f32>) -> tensor<f32> {
  %0 = "irax.call"(%a) {callee = @r} : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}
func.func private @r(%a: tensor<f32>) -> tensor<f32> {
  %0 = "irax.call"(%a) {callee = @r} : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}
"""

BAD_DOT_IN_VMAP = """\
func.func private @f(%a: tensor<3x4xf32>, %b: tensor<5xf32>) -> tensor<3xf32> {
  %0 = "irax.dot_general"(%a, %b) {lhs_contracting_dimensions = array<i64: 1>, \
rhs_contracting_dimensions = array<i64: 0>} : (tensor<3x4xf32>, tensor<5xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
func.func @main(%a: tensor<3x4xf32>, %b: tensor<8x5xf32>) -> tensor<8x3xf32> {
  %0 = "irax.vmap"(%a, %b) {callee = @f, in_axes = array<i64: -1, 0>, \
out_axes = array<i64: 0>, axis_size = 8 : i64} : (tensor<3x4xf32>, tensor<8x5xf32>) -> \
tensor<8x3xf32>
  return %0 : tensor<8x3xf32>
}
"""

VALID = """\
func.func @f(%a: tensor<3xf32>) -> tensor<3xf32> {
  %0 = "irax.sin"(%a) : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
"""


# ---- 1: an error without a location is printed, not dropped ------------------------------------
def test_function_without_terminator_is_a_located_error_before_lowering(mlir_file):
    path = mlir_file(NO_TERMINATOR)
    err = failure(path, "-p", "builtin.module(irax-lower-to-stablehlo)")
    assert err == (f"{path}:1:1: error: 'func.func' op expected the body to end in "
                   "'func.return', but it ends in 'irax.sin'\n")


def test_lowering_failure_without_the_verifier_is_reported(mlir_file):
    path = mlir_file(NO_TERMINATOR)
    err = failure(path, "--no-verify", "-p", "builtin.module(irax-lower-to-stablehlo)")
    assert err.startswith(f"{path}:2:8: error: lowered StableHLO failed to verify: block with "
                          "no terminator")


def test_recursive_inlining_is_an_error_at_the_recursive_call(mlir_file):
    path = mlir_file(RECURSIVE)
    err = failure(path, "-p", "builtin.module(irax-inline)")
    assert err == (f"{path}:6:8: error: 'irax.call' op cannot be inlined: calls nest more "
                   "than 64 deep (is @r recursive?)\n")


class _Raises(ModulePass):
    """irax-test-raises: raises what the test gives it"""

    name = "irax-test-raises"
    error: BaseException = None

    def run(self, module) -> None:
        raise self.error


@pytest.fixture
def raising_pass(monkeypatch):
    monkeypatch.setitem(PASSES, _Raises.name, _Raises)

    def set_error(error):
        monkeypatch.setattr(_Raises, "error", error)
        return f"builtin.module({_Raises.name})"
    return set_error


def test_unlocated_ir_error_of_a_pass_is_printed(mlir_file, raising_pass):
    pipeline = raising_pass(IRError("irax-test-raises: nothing to point at"))
    err = failure(mlir_file(VALID), "-p", pipeline)
    assert err == "irax-opt: error: irax-test-raises: nothing to point at\n"


# ---- 2: input that is not UTF-8 text ------------------------------------------------------------
def test_invalid_utf8_file_is_a_located_error(mlir_file):
    path = mlir_file(b"module {\n  \xff\n}\n")
    err = failure(path)
    assert err == (f"{path}:2:3: error: invalid UTF-8 byte 0xff: expected MLIR text (UTF-8) "
                   "or bytecode\n")


def test_invalid_utf8_stdin_is_a_located_error():
    err = failure("-", stdin=b"\xff\xfe")
    assert err.startswith("<stdin>:1:1: error: invalid UTF-8 byte 0xff")


def test_invalid_utf8_through_the_real_entry_point():
    out = subprocess.run([sys.executable, "-m", "irax.cli.opt"], input=b"\xff\xfe",
                         capture_output=True, timeout=120)
    assert out.returncode == 1
    assert b"Traceback" not in out.stderr
    assert out.stderr.startswith(b"<stdin>:1:1: error: invalid UTF-8 byte 0xff")


def test_nul_bytes_are_rejected(mlir_file):
    path = mlir_file(b"\0" * 512)
    err = failure(path)
    assert err == (f"{path}:1:1: error: unexpected NUL character: expected MLIR text (UTF-8) "
                   "or bytecode\n")


def test_bytecode_reads_back(mlir_file, tmp_path):
    out = tmp_path / "out.mlirbc"
    rc, _, err = run_opt(mlir_file(VALID), "--emit-bytecode", "-o", out)
    assert rc == 0, err
    rc, text, err = run_opt(out)
    assert rc == 0, err
    assert '"irax.sin"' in text


# ---- 3: deep nesting ----------------------------------------------------------------------------
def _nested(depth: int) -> str:
    return ("func.func @f(%a: tensor<f32>) -> tensor<f32> {\n" +
            '  "test.region"() ({\n' * depth + '  "test.end"() : () -> ()\n' +
            "  }) : () -> ()\n" * depth + "  return %a : tensor<f32>\n}\n")


def test_verifier_is_iterative():
    """1,500 nested regions: beyond Python's recursion limit, within the parser's stack."""
    ir = mlir.ir()
    with mlir.context():
        module = ir.Module.parse(_nested(1500))
        assert collect_diagnostics(module) == []


def test_three_thousand_nested_regions(mlir_file):
    rc, out, err = run_opt(mlir_file(_nested(3000)), "-p", "builtin.module(irax-simplify)")
    assert rc == 0, err[:2000]
    assert out.count('"test.region"') == 3000


def test_nesting_beyond_the_limit_is_an_error(mlir_file):
    path = mlir_file("(" * 20001)
    err = failure(path)
    assert err == (f"{path}:1:20001: error: brackets nest more than 20000 deep: irax-opt reads "
                   "at most that depth\n")


# ---- 4: pipelines and options -------------------------------------------------------------------
@pytest.mark.parametrize("pipeline, message", [
    ("builtin.module(,,)",
     "invalid pass pipeline 'builtin.module(,,)': expected a pass name, but got ',' at "
     "character 16"),
    ("builtin.module(irax-simplify{max-iterations=-5})",
     "invalid value '-5' for option 'max-iterations' of pass 'irax-simplify': expected an "
     "integer >= 1"),
    ("builtin.module (irax-verify)",
     "invalid pass pipeline 'builtin.module (irax-verify)': unexpected space between "
     "'builtin.module' and '(': write 'builtin.module(...)' without a space"),
    ("builtin.module(irax-default{x=1})",
     "'irax-default' is a pass pipeline and takes no options, but got '{x=1}'"),
    ("builtin.module(irax-default(irax-verify))",
     "'irax-default' is a pass pipeline and takes no nested pipeline, but got '(irax-verify)'"),
    ("builtin.module(irax-verify(cse))",
     "pass 'irax-verify' takes no nested pipeline, but got '(cse)'"),
    ("builtin.module(func.func(irax-simplify))",
     "'irax-simplify' cannot be nested in 'func.func(...)': irax passes run on the whole "
     "module; list it at the top level"),
    ("builtin.module(irax-verify irax-inline)",
     "invalid pass pipeline 'builtin.module(irax-verify irax-inline)': expected ',' or ')' "
     "after 'irax-verify', but got 'irax-inline' at character 28"),
    ("builtin.module(irax-verify",
     "invalid pass pipeline 'builtin.module(irax-verify': expected ',' or ')' after "
     "'irax-verify', but got the end of the pipeline"),
    ("irax-simplify{max-iterations=1",
     "invalid pass pipeline 'irax-simplify{max-iterations=1': expected '}' to close the "
     "options opened at character 14"),
    ("irax-simplify{max-iterations=2 max-iterations=3}",
     "option 'max-iterations' of pass 'irax-simplify' is given twice"),
    ("irax-inline{drop-dead=maybe}",
     "invalid value 'maybe' for option 'drop-dead' of pass 'irax-inline': expected true or "
     "false"),
    ("irax-nonexistent",
     "'irax-nonexistent' does not refer to a registered pass or pass pipeline (irax-opt "
     "--list-passes lists the irax passes)"),
    ("builtin.module(no-such-pass)",
     "invalid MLIR pass pipeline element 'no-such-pass': 'no-such-pass' does not refer to a "
     "registered pass or pass pipeline"),
])
def test_bad_pipeline_says_what_is_wrong(pipeline, message, tmp_path):
    # checked before the input is read: the file does not exist
    err = failure(tmp_path / "missing.mlir", "-p", pipeline)
    assert err == f"irax-opt: error: {message}\n"


def test_option_values_are_checked_from_python_too():
    with pytest.raises(PipelineError, match="expected an integer >= 1"):
        PASSES["irax-simplify"](**{"max-iterations": 0})


@pytest.mark.parametrize("pipeline", ["", "builtin.module()", "builtin.module(irax-verify, "
                                      "canonicalize, func.func(cse), irax-simplify{"
                                      "max-iterations=2})"])
def test_good_pipelines_still_run(pipeline, mlir_file):
    rc, out, err = run_opt(mlir_file(VALID), "-p", pipeline)
    assert rc == 0, err
    assert "irax.sin" in out


# ---- 5: a diagnostic names its op once ----------------------------------------------------------
def test_batching_error_names_its_op_once(mlir_file):
    path = mlir_file(BAD_DOT_IN_VMAP)
    err = failure(path, "--no-verify", "-p", "builtin.module(irax-vectorize)")
    assert err == (f"{path}:2:8: error: 'irax.dot_general' op expected contracting "
                   "dimensions to have the same size, but got (4,) and (5,)\n")


def test_diag_keeps_a_message_that_names_its_op():
    cls = lookup("irax.dot_general")
    assert cls.diag("expected x") == "'irax.dot_general' op expected x"
    assert cls.diag(cls.diag("expected x")) == "'irax.dot_general' op expected x"


# ---- 6: a function must end in its terminator ---------------------------------------------------
def test_autodiff_of_a_function_without_return_fails(mlir_file):
    text = NO_TERMINATOR + """\
func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %y, %dy = "irax.jvp"(%x, %x) {callee = @f} : (tensor<3xf32>, tensor<3xf32>) -> \
(tensor<3xf32>, tensor<3xf32>)
  return %dy : tensor<3xf32>
}
"""
    path = mlir_file(text)
    err = failure(path, "-p", "builtin.module(irax-autodiff)")
    assert f"{path}:1:1: error: 'func.func' op expected the body to end in 'func.return'" in err


class _BreaksIR(ModulePass):
    """irax-test-breaks-ir: erases every function's terminator"""

    name = "irax-test-breaks-ir"

    def run(self, module) -> None:
        for fn in module.body.operations:
            list(fn.regions[0].blocks[0].operations)[-1].erase()


def test_invalid_ir_after_a_pass_is_reported(mlir_file, monkeypatch):
    monkeypatch.setitem(PASSES, _BreaksIR.name, _BreaksIR)
    path = mlir_file(VALID)
    err = failure(path, "-p", f"builtin.module({_BreaksIR.name})")
    assert err.splitlines() == [
        "irax-opt: error: the IR after pass 'irax-test-breaks-ir' failed to verify",
        f"{path}:1:1: error: 'func.func' op expected the body to end in 'func.return', but it "
        "ends in 'irax.sin'"]
    rc, _, err = run_opt(path, "--verify-each=false", "-p", f"builtin.module({_BreaksIR.name})")
    assert rc == 0, err  # as asked


# ---- 7: an exception escaping a pass ------------------------------------------------------------
def _mlir_error():
    ir = mlir.ir()
    try:
        ir.Module.parse("func.func @g() {\n  %0 = \"irax.x\"\n}\n", mlir.context())
    except ir.MLIRError as e:
        return e
    raise AssertionError("the IR parsed")


@pytest.mark.parametrize("error, message", [
    (lambda: OpError("'irax.add' op expected operands of the same shape"),
     "irax-opt: error: pass 'irax-test-raises' failed: 'irax.add' op expected operands of the "
     "same shape"),
    (lambda: TypeError("unsupported operand"),
     "irax-opt: internal error in pass 'irax-test-raises': TypeError: unsupported operand"),
    (lambda: ValueError("bad\nvalue"),
     "irax-opt: internal error in pass 'irax-test-raises': ValueError: bad value"),
    (lambda: NotImplementedError(),
     "irax-opt: internal error in pass 'irax-test-raises': NotImplementedError: (no message)"),
    (lambda: RecursionError("maximum recursion depth exceeded"),
     "irax-opt: internal error in pass 'irax-test-raises': RecursionError: maximum recursion "
     "depth exceeded"),
    (lambda: MemoryError(),
     "irax-opt: internal error in pass 'irax-test-raises': MemoryError: (no message)"),
    (_mlir_error, "{path}:2:16: error: expected '(' to start operand list"),
])
def test_exception_escaping_a_pass_is_a_diagnostic(error, message, mlir_file, raising_pass):
    path = mlir_file(VALID)
    err = failure(path, "-p", raising_pass(error()))
    assert err.splitlines()[0] == message.format(path=path)


def test_traceback_only_when_asked(mlir_file, raising_pass, monkeypatch):
    pipeline = raising_pass(KeyError("k"))
    path = mlir_file(VALID)
    assert "Traceback" not in failure(path, "-p", pipeline)
    rc, _, err = run_opt(path, "-p", pipeline, "--show-traceback")
    assert rc == 1 and "Traceback" in err and "KeyError" in err
    monkeypatch.setenv("IRAX_OPT_TRACEBACK", "1")
    rc, _, err = run_opt(path, "-p", pipeline)
    assert rc == 1 and "Traceback" in err


# ---- the command line ---------------------------------------------------------------------------
def test_usage_errors_exit_1():
    err = failure("--no-such-flag")
    assert "irax-opt: error: unrecognized arguments: --no-such-flag" in err


def test_help_exits_0():
    rc, out, _ = run_opt("--help")
    assert rc == 0 and "usage: irax-opt" in out


def test_missing_input_file(tmp_path):
    err = failure(tmp_path / "missing.mlir")
    assert err.startswith(f"irax-opt: error: could not open input file '{tmp_path}/missing.mlir'")


def test_unwritable_output(mlir_file, tmp_path):
    err = failure(mlir_file(VALID), "-o", tmp_path / "no" / "such" / "dir.mlir")
    assert err.startswith("irax-opt: error: could not write output file")


def test_print_ir_before_a_pass(mlir_file):
    rc, _, err = run_opt(mlir_file(VALID), "-p", "builtin.module(irax-verify, irax-simplify)",
                         "--mlir-print-ir-before=irax-simplify")
    assert rc == 0
    assert err.startswith("// -----// IR Dump Before irax-simplify //----- //")
    err = failure(mlir_file(VALID), "--mlir-print-ir-before=irax-nothing")
    assert "'irax-nothing' is neither an irax pass nor an element of the pipeline" in err


def test_verify_diagnostics_reports_unexpected_unlocated_errors(mlir_file, raising_pass):
    pipeline = raising_pass(IRError("irax-test-raises: no location"))
    err = failure(mlir_file(VALID), "--verify-diagnostics", "-p", pipeline)
    assert "irax-opt: error: unexpected error: irax-test-raises: no location" in err
