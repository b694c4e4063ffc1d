"""README.md's data reference is the one the schema generates today."""

from __future__ import annotations

from gpuguide.structure.reference import BEGIN, END, data_reference
from sites import ROOT


def test_the_readme_holds_the_current_data_reference():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    start, end = readme.index(BEGIN), readme.index(END) + len(END)
    assert readme[start:end] == data_reference(), "run `python -m gpuguide.structure.reference` and paste it"


def test_every_field_is_described():
    blank = [line for line in data_reference().splitlines() if line.startswith("| `") and line.endswith("|  |")]
    assert blank == []
