"""The site's Markdown parser: tables in labelled regions with captions and row headers, cells
escaped and aligned as markdown-it writes them, heading ids as python-slugify makes them."""

from __future__ import annotations

from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from slugify import slugify

from gpuguide.structure.dataset import load_dataset
from gpuguide.errors import Problems
from gpuguide.markdown.headings import heading_id
from gpuguide.markdown.parser import _plain_text, markdown_parser, render_body
from gpuguide.figures.prose import ShortcodeContext

from sites import ROOT

FIGURES = """\
## Specifications

| GPU | Memory (GB) | Bandwidth (GB/s) | Price ($/h) | Share (%) | Launch |
|---|--:|:-:|---:|:--|---|
| H100 "SXM" | 80 | 3,350 | 2.49 | 12 % | 2022 Q3 |
| A100 #2 | 40 | 1 555 | +1.10 | ~8 | 2020=yes |
| L4 | 24 | 300 | 0.30 | > 3 | @home ^ |
"""

TABLES = {
    "figures": FIGURES,
    "no outer pipes": "a | b\n--|--\n1 | 2\n3 | 4\n",
    "ragged rows": "| a | b | c |\n|---|---|---|\n| 1 |\n| 1 | 2 | 3 | 4 | 5 |\n| | |\n",
    "header only": "| a | b |\n|---|---|\n\nAfter.\n",
    "tabs and spaces": "|\ta\t|  b  |\n| --- | :---: |\n|  1\t|\t2 |\n",
    "ended by a heading": "| a |\n|---|\n| 1 |\n## Next\n",
    "ended by a list": "| a |\n|---|\n| 1 |\n- item\n",
    "ended by a quote": "| a |\n|---|\n| 1 |\n> quote\n",
    "ended by a fence": "| a |\n|---|\n| 1 |\n```\ncode\n```\n",
    "ended by a rule": "| a |\n|---|\n| 1 |\n***\n",
    "ended by a container": "| a |\n|---|\n| 1 |\n::: faq\n### Q?\n\nA.\n:::\n",
    "a line without pipes is a row": "| a | b |\n|---|---|\n| 1 | 2 |\njust text\n",
    "indented row is code": "| a |\n|---|\n| 1 |\n    | 2 |\n",
    "in a tight list": "- first\n  | a | b |\n  |---|---|\n  | 1 | 2 |\n- second\n",
    "in a quote": "> | a | b |\n> |---|---|\n> | 1 | 2 |\n",
    "two under one heading": "## Costs\n\n| a |\n|---|\n| 1 |\n\n| b |\n|---|\n| 2 |\n",
    "emphasis": "| a | b |\n|---|---|\n| *1* | 2 |\n",
    "code and escaped pipe": "| a | b |\n|---|---|\n| `x|y` | 1 \\| 2 |\n",
    "link": "## Links\n\n| a |\n|---|\n| [H100](https://example.com/h100) |\n",
    "entity and html": "| a | b |\n|---|---|\n| &amp; | <b>x</b> |\n",
    "shortcode": "| a |\n|---|\n| {{ unknown_shortcode }} |\n",
    "not a table": "| a | b |\n|---|\n| 1 | 2 |\n",
    "in the FAQ": "::: faq\n### Which GPU?\n\n| GPU | GB |\n|---|---|\n| H100 | 80 |\n\nThat one.\n:::\n",
}



def _render(text: str, lang: str = "en") -> tuple[str, list[str], str, list]:
    """The HTML, the token types, the plain text (as FAQ answers' JSON-LD gets it) and the problems."""
    md = markdown_parser()
    problems = Problems()
    dataset = load_dataset(ROOT / "data", problems)
    assert dataset is not None
    env: dict = {"source": Path("page.md"), "line": 1, "problems": problems,
                 "shortcodes": ShortcodeContext(dataset, dataset.languages()[lang])}
    tokens = md.parse(text, env)
    html = md.renderer.render(tokens, md.options, env)
    return html, [token.type for token in tokens], _plain_text(tokens), [str(p) for p in problems.items]


@pytest.mark.parametrize("name", sorted(TABLES))
def test_every_table_gets_a_labelled_region_a_caption_and_row_headers(name: str) -> None:
    html, _, _, problems = _render(TABLES[name])
    assert all("unknown shortcode" in problem for problem in problems)  # only the case that has one
    soup = BeautifulSoup(html, "lxml")
    table = soup.find("table")
    if name == "not a table":  # a delimiter row of the wrong width: a paragraph, as in markdown-it
        assert table is None
        return
    region = table.find_parent("div", class_="table-scroll")
    assert region["role"] == "region" and region["aria-labelledby"] == table.caption["id"]
    assert all(row.find(["th", "td"]).name == "th" and row.find("th")["scope"] == "row"
               for row in table.select("tbody tr"))


def test_a_table_keeps_its_alignment_escapes_its_cells_and_labels_them() -> None:
    html, _, text, _ = _render(FIGURES)
    soup = BeautifulSoup(html, "lxml")
    price = next(td for td in soup.select("tbody td") if td.get("data-label") == "Price ($/h)")
    assert price["style"] == "text-align:right" and price.get_text() == "2.49"
    assert soup.select_one("tbody th").get_text() == 'H100 "SXM"'  # escaped in the HTML, read back as text
    assert "H100 &quot;SXM&quot;" in html
    assert "2.49" in text  # the cells' text reaches the plain text (FAQ answers' JSON-LD)


HEADINGS = ["Ce qui compte : entraînement de LLM", "What matters: LLM training", "H100 vs A100 -- which one?",
            "  --Leading and trailing--  ", "Under_score and dots...", "R&D budget", "Don't guess", "1,000 GPUs",
            "1, 2, 3", "&amp; entity", "Tab\tand\nnewline", "", "---", "ÆØÅ", "Price ($/h) / TFLOPS", "A--B---C",
            "UPPER lower 123", "émoji 🚀 rocket"]


@pytest.mark.parametrize("text", HEADINGS)
def test_heading_ids_are_python_slugify_slugs(text: str) -> None:
    heading_id.cache_clear()
    assert heading_id(text) == (slugify(text, backend="text-unidecode") or "section")


def test_random_and_real_headings_get_python_slugify_slugs() -> None:
    import random

    rng = random.Random(7)
    alphabet = "abcXYZ019 -_:,.'&;#()/$%éà"
    texts = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30))) for _ in range(3000)]
    for path in sorted((ROOT / "content").rglob("*.md")):
        texts += [line.lstrip("#").strip() for line in path.read_text(encoding="utf-8").splitlines()
                  if line.startswith("#")]
    heading_id.cache_clear()
    for text in texts:
        assert heading_id(text) == (slugify(text, backend="text-unidecode") or "section"), text


@pytest.mark.parametrize(("text", "line"), [
    ("Intro.\n\nA {{ gpu_figure gpu=big\n", 3),
    ("A paragraph\nover two lines {{ gpu_figure\n", 2),
    ("An entity makes one: &#123;&#123; gpu_figure\n", 1),
    ("So does an escape: \\{\\{ gpu_figure\n", 1),
    ("Or both: {&lbrace; gpu_figure\n", 1),
    ("| a |\n|---|\n| b {{ c |\n", 3),
])
def test_a_shortcode_that_never_closes_is_reported_at_its_line(text: str, line: int) -> None:
    problems = Problems()
    dataset = load_dataset(ROOT / "data", problems)
    assert dataset is not None
    env: dict = {"shortcodes": ShortcodeContext(dataset, dataset.languages()["en"])}
    render_body(text, Path("page.md"), 10, problems, env)
    assert [(problem.line, problem.message) for problem in problems.items] == [
        (9 + line, "a shortcode opens with `{{` and never closes")]


@pytest.mark.parametrize("text", ["Braces { apart } and &amp; entities\n", "A {{ usable_memory_share }} figure\n",
                                  "`{{ in code }}`\n"])
def test_braces_that_open_no_shortcode_are_not_reported(text: str) -> None:
    problems = Problems()
    dataset = load_dataset(ROOT / "data", problems)
    assert dataset is not None
    render_body(text, Path("page.md"), 1, problems, {"shortcodes": ShortcodeContext(dataset, dataset.languages()["en"])})
    assert [str(problem) for problem in problems.items] == []
