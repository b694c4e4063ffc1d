"""The fast paths for plain text (gpuguide.plain) change nothing but speed.

markdown-it itself is the reference: every document renders to the same HTML, gives the same FAQ
text and reports the same problems with the fast paths as without them.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from slugify import slugify

from gpuguide.structure.data import load_dataset
from gpuguide.errors import Problems
from gpuguide.markdown.headings import heading_id
from gpuguide.markdown.parser import _plain_text, markdown_parser
from gpuguide.figures.prose import ShortcodeContext
from gpuguide.structure.sources import split_front_matter

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

PROSE = """\
Intro: 80 % of the memory, 16 bytes/parameter + activations = a lot; $2.49/h -> cheap @ scale ^ #1.
Second line of the paragraph.

## Heading: with a colon & an ampersand

Text with *emphasis*, `code`, [a link](https://example.com) and a line\\
break.
"""


def _render(text: str, fast: bool, lang: str = "en") -> tuple[str, list[str], str, list]:
    """The HTML, the token types, the plain text (as FAQ answers' JSON-LD gets it) and the problems."""
    md = markdown_parser(fast)
    problems = Problems()
    dataset = load_dataset(ROOT / "data", problems)
    assert dataset is not None
    env: dict = {"source": Path("page.md"), "line": 1, "problems": problems,
                 "shortcodes": ShortcodeContext(dataset, dataset.languages()[lang])}
    tokens = md.parse(text, env)
    html = md.renderer.render(tokens, md.options, env)
    return html, [token.type for token in tokens], _plain_text(tokens), [str(p) for p in problems.items]


def _same_output(text: str, lang: str = "en") -> None:
    fast, _, fast_text, fast_problems = _render(text, fast=True, lang=lang)
    reference, _, reference_text, reference_problems = _render(text, fast=False, lang=lang)
    assert fast == reference
    assert fast_text == reference_text
    assert fast_problems == reference_problems


@pytest.mark.parametrize("name", sorted(TABLES))
def test_tables_render_as_markdown_it_renders_them(name: str) -> None:
    _same_output(TABLES[name])


def test_tables_of_plain_cells_take_the_fast_path_and_others_do_not() -> None:
    fast, types, _, _ = _render(FIGURES, fast=True)
    assert types.count("plain_table") == 1 and "td_open" not in types
    assert '<td style="text-align:right" data-label="Price ($/h)">2.49</td>' in fast  # alignment kept, labelled
    assert '<th scope="row">H100 &quot;SXM&quot;</th>' in fast  # escaped; the first column names the row
    for name in ("emphasis", "code and escaped pipe", "link", "entity and html", "shortcode"):
        assert "plain_table" not in _render(TABLES[name], fast=True)[1], name


def test_prose_renders_as_markdown_it_renders_it() -> None:
    _same_output(PROSE)


@pytest.mark.parametrize("path", sorted((ROOT / "content").rglob("*.md")), ids=lambda p: p.name)
def test_every_content_page_renders_as_markdown_it_renders_it(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    front = split_front_matter(text, path, Problems())
    assert front is not None
    body = text[front.body_offset:]
    _same_output(body, lang=path.relative_to(ROOT / "content").parts[0])


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
