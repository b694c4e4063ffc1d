"""markdown-it's own test fixtures, copied into ``tests/fixtures/markdown_it``: the CommonMark spec
examples and its GFM table and extra fixtures, each as (name, Markdown)."""

from __future__ import annotations

import json
from pathlib import Path

from markdown_it.utils import read_fixture_file

FIXTURES = Path(__file__).parent / "fixtures" / "markdown_it"


def markdown_it_cases() -> list[tuple[str, str]]:
    cases = [(f"spec {example['example']} ({example['section']})", example["markdown"])
             for example in json.loads((FIXTURES / "commonmark.json").read_text(encoding="utf-8"))]
    for name in ("tables", "commonmark_extras", "issue-fixes", "normalize"):
        cases += [(f"{name}:{line} {title}", text) for line, title, text, _ in read_fixture_file(FIXTURES / f"{name}.md")]
    return cases
