"""irax-compile: a Python function or an MLIR file to a deployable ``.vmfb``.

    irax-compile model.py:predict --arg f32[128,784] --arg f32[784,10] --target aarch64 \\
        -o predict.vmfb
    irax-compile loss.mlir --target cpu -o loss.vmfb       # irax IR or StableHLO
    irax-compile --list-targets

The output is what ``irax.export`` saves (``docs/deploy.md``): it loads with
``irax.aot.load`` and runs under ``iree-run-module``, whose command line irax-compile
prints. Argument specs are ``dtype[dims]``: ``f32[128,784]``, ``i32[]``, ``bf16[4]`` (or
NumPy names, ``float32[3]``). Every failure exits with code 1 and one line on stderr.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import sys

import irax
from irax.core.dtypes import dtype_from_name

PROG = "irax-compile"
_SHORT = {"f16": "float16", "bf16": "bfloat16", "f32": "float32", "f64": "float64",
          "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64", "u8": "uint8",
          "u16": "uint16", "u32": "uint32", "u64": "uint64", "c64": "complex64",
          "c128": "complex128", "bool": "bool", "pred": "bool"}
_SPEC = re.compile(r"^([A-Za-z0-9_]+)\[([A-Za-z0-9_, ]*)\]$")


class UserError(Exception):
    """A bad command line or input: printed as one line, exit code 1."""


def parse_arg(spec: str):
    """``f32[128,784]`` -> ``ShapeDtypeStruct((128, 784), float32)``; a name is a symbolic
    size (``f32[batch,784]``: one artifact for every batch size)."""
    m = _SPEC.match(spec.strip())
    if m is None:
        raise UserError(f"bad --arg {spec!r}: expected dtype[dims], e.g. f32[128,784] or i32[]")
    name, dims = m.group(1), m.group(2)
    try:
        dtype = dtype_from_name(_SHORT.get(name, name))
    except (TypeError, AttributeError):
        raise UserError(f"bad --arg {spec!r}: unknown dtype {name!r}") from None
    shape = tuple(int(d) if d.isdigit() else d for d in dims.replace(" ", "").split(",") if d)
    try:
        return irax.ShapeDtypeStruct(shape, dtype)
    except ValueError:
        raise UserError(f"bad --arg {spec!r}: a size is a number or a name") from None


def _load_function(source: str):
    path, _, name = source.rpartition(":")
    if not os.path.isfile(path):
        raise UserError(f"no such file: {path}")
    spec = importlib.util.spec_from_file_location("_irax_compile_source", path)
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    try:
        spec.loader.exec_module(module)
    except Exception as e:  # noqa: BLE001 - the user's file: say what it raised
        raise UserError(f"importing {path} raised {type(e).__name__}: {e}") from None
    fn = getattr(module, name, None)
    if not callable(fn):
        raise UserError(f"{path} has no function {name!r}")
    return fn


def _export(args):
    source = args.source
    if source.endswith(".mlir") and ":" not in os.path.basename(source):
        if args.arg:
            raise UserError("--arg is for Python functions: an MLIR file states its types")
        if not os.path.isfile(source):
            raise UserError(f"no such file: {source}")
        return irax.export.export_module(irax.ir.load(source), targets=[args.target])
    if ":" not in source:
        raise UserError(f"bad source {source!r}: expected FILE.py:FUNCTION or FILE.mlir")
    fn = _load_function(source)
    specs = [parse_arg(a) for a in args.arg]
    return irax.export.export(fn, targets=[args.target])(*specs)


def _run_command(out: str, exported, target: str) -> str:
    device = ("cuda" if target.startswith("cuda") else "vulkan" if target.startswith("vulkan")
              else "hip" if target.startswith("rocm") else "local-task")
    devices = " ".join([f"--device={device}"] * max(1, exported.nr_devices))
    ins = " ".join(f"--input=@arg{i}.npy" for i in range(len(exported.in_avals)))
    outs = " ".join(f"--output=@out{i}.npy" for i in range(len(exported.out_avals)))
    return (f"iree-run-module {devices} --module={out} --function={exported.entry} "
            f"{ins} {outs}").replace("  ", " ").strip()


def _main(argv) -> int:
    p = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0])
    p.add_argument("source", nargs="?", help="FILE.py:FUNCTION or FILE.mlir")
    p.add_argument("--arg", action="append", default=[], help="an argument: dtype[dims]")
    p.add_argument("--target", default="cpu", help="a target name (--list-targets)")
    p.add_argument("-o", "--output", help="the .vmfb to write")
    p.add_argument("--list-targets", action="store_true")
    args = p.parse_args(argv)
    if args.list_targets:
        for name, about in irax.export.targets().items():
            print(f"{name:12s} {about}")
        return 0
    if not args.source:
        raise UserError("no source given: FILE.py:FUNCTION or FILE.mlir (see --help)")
    if not args.output:
        raise UserError("no output given: -o FILE.vmfb")
    if args.target not in irax.export.targets():
        raise UserError(f"unknown target {args.target!r}; expected one of "
                        f"{', '.join(irax.export.targets())}")
    exported = _export(args)
    exported.save(args.output, args.target)
    ins = ", ".join(a.str_short() for a in exported.in_avals)
    outs = ", ".join(a.str_short() for a in exported.out_avals)
    print(f"{PROG}: wrote {args.output} for {args.target}: "
          f"{exported.entry}({ins}) -> ({outs})")
    print(f"run it with: {_run_command(args.output, exported, args.target)}")
    return 0


def main(argv=None) -> int:
    try:
        return _main(argv)
    except UserError as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
    except (ValueError, TypeError, OSError, RuntimeError, LookupError) as e:
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        print(f"{PROG}: error: {first}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
