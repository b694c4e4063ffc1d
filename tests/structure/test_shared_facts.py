"""One place per fact: a use-case table's GPUs and columns (and its chart, verdict, models, planner)
are stated by the default language's page; its translations take them from there. A GPU added to
the French table is in the English one; a translation that states the table again is an error
naming the file where the table is stated; the dev server keeps the shared facts on a text edit."""

from __future__ import annotations

from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from gpuguide.build.pipeline import Options
from gpuguide.build.session import DevSession
from gpuguide.errors import BuildFailed
from gpuguide.project import Project
from gpuguide.structure.shared_facts import SHARED_FIELDS
from sites import build, edit, fingerprint

FR = Path("content/fr/entrainement.md")
EN = Path("content/en/training.md")


def table_gpus(site: Path, output: str) -> list[str]:
    """The GPUs of a page's first table, in order, as its rows name them."""
    soup = BeautifulSoup((site / output).read_text(encoding="utf-8"), "html.parser")
    table = soup.select_one("main table.gpu-table")
    assert table is not None
    return [row["data-gpu"] for row in table.select("tbody tr[data-gpu]")]


def test_the_translation_states_no_fact_and_shows_its_sources_table(tiny: Path):
    english = (tiny / EN).read_text(encoding="utf-8").split("\n---\n")[0]
    assert not any(line.startswith(f"{field}:") for field in SHARED_FIELDS for line in english.splitlines())
    build(tiny)
    assert table_gpus(tiny / "site", "en/training/index.html") == table_gpus(tiny / "site", "fr/entrainement/index.html")
    assert table_gpus(tiny / "site", "en/training/index.html") == ["big", "pcie", "card"]


def test_a_gpu_added_or_removed_in_the_source_table_follows_in_every_language(tiny: Path):
    build(tiny)
    edit(tiny / FR, "gpus: [big, pcie, card]", "gpus: [card, big]")
    build(tiny)
    for output in ("fr/entrainement/index.html", "en/training/index.html"):
        assert table_gpus(tiny / "site", output) == ["card", "big"], output


@pytest.mark.parametrize(("field", "line"), [("table", "table:\n  gpus: [big]\n  columns: [memory]\n"),
                                             ("chart", "chart: memory\n"), ("planner", "planner: small-llm\n")])
def test_a_translation_stating_a_fact_again_is_an_error_where_it_does(tiny: Path, field: str, line: str):
    build(tiny)
    before = fingerprint(tiny / "site")
    edit(tiny / EN, "short_name: training\n", f"short_name: training\n{line}")
    with pytest.raises(BuildFailed) as failed:
        build(tiny)
    [problem] = [p for p in failed.value.problems if p.path.endswith(EN.name)]
    assert 9 <= problem.line < 9 + line.count("\n")  # in the lines added after short_name (line 8)
    message = str(problem)
    assert f"`{field}` is stated once, in content/fr/entrainement.md" in message
    assert f"delete `{field}` here" in message
    assert fingerprint(tiny / "site") == before  # the site as it was


def test_a_text_edit_of_a_translation_keeps_its_shared_facts_in_memory(tiny: Path):
    session = DevSession(Project(tiny), Options(search=False))
    session.build()
    edit(tiny / EN, "Training takes memory:", "Training takes a lot of memory:")
    outcome = session.build({tiny / EN})
    assert outcome.rendered == 1  # the body only: not a full build
    html = (tiny / "site" / "en/training/index.html").read_text(encoding="utf-8")
    assert "Training takes a lot of memory:" in html
    assert table_gpus(tiny / "site", "en/training/index.html") == ["big", "pcie", "card"]
