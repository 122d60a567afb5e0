"""Generated documentation stays in sync with the code."""

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_dialect_reference_is_current():
    from irax.cli.gen_dialect_docs import render

    committed = (ROOT / "docs" / "dialect.md").read_text()
    assert committed == render(), (
        "docs/dialect.md is stale: run `python -m irax.cli.gen_dialect_docs > docs/dialect.md`")
