"""The pass reference (docs/passes.md) and ``irax-opt --list-passes`` cover the registry."""

import os
import subprocess
import sys

import irax  # noqa: F401 - registers every pass
from irax.cli import gen_pass_docs
from irax.passes import PASSES

DOCS = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "passes.md")


def test_committed_pass_docs_are_generated():
    with open(DOCS) as f:
        committed = f.read()
    assert committed == gen_pass_docs.render(), \
        "docs/passes.md is out of date: run python -m irax.cli.gen_pass_docs -o docs/passes.md"


def test_pass_docs_describe_every_pass():
    text = gen_pass_docs.render()
    for name, cls in PASSES.items():
        assert f"\n## {name}\n" in text
        for key in cls.options:
            assert f"| `{key}` |" in text


def test_list_passes_shows_every_pass_and_option():
    out = subprocess.run([sys.executable, "-m", "irax.cli.opt", "--list-passes"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    for name, cls in PASSES.items():
        assert any(line.split() and line.split()[0] == name for line in lines), name
        for key, opt in cls.options.items():
            assert any(line.strip().startswith(f"{key}=<{opt.type.__name__}>")
                       for line in lines), f"{name} option {key}"
