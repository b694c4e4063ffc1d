"""Cross-page rules on the tiny site loaded in this process: complete use-case pages, translations
with a source, titles and descriptions search engines show whole, pages written inside site/. Each
problem names its file, its line and the fix. (Reserved pages: test_page_types.py.)"""

from __future__ import annotations

from pathlib import Path

import pytest
from sites import edit

from gpuguide.errors import Problems
from gpuguide.structure.dataset import load_dataset
from gpuguide.structure.library import Library
from gpuguide.structure.loading import load_library
from gpuguide.structure.pages import DESCRIPTION_LIMIT, TITLE_LIMIT, Page, PageMeta
from gpuguide.structure.yaml_documents import Position, YamlDocument
from gpuguide.structure.validation import check_pages

FR_USE_CASE = "content/fr/entrainement.md"
FR_GUIDE = "content/fr/guides/premier-guide.md"
EN_GUIDE = "content/en/guides/first-guide.md"


def check(root: Path) -> list[str]:
    """Load the project at ``root`` and run every cross-page rule: the problems, as printed."""
    problems = Problems(root)
    dataset = load_dataset(root / "data", problems)
    assert dataset is not None, problems.items
    library = load_library(root / "content", dataset, problems)
    check_pages(library, dataset, problems)
    return [str(problem) for problem in problems.items]


def line_of(root: Path, file: str, text: str) -> int:
    lines = (root / file).read_text(encoding="utf-8").splitlines()
    return next(number for number, line in enumerate(lines, 1) if line.startswith(text))


def test_a_use_case_page_without_its_names_says_which_field_to_add(tiny: Path):
    edit(tiny / FR_USE_CASE, "short_name: entraînement\nsummary: Entraîner sur un ou huit GPU.\n", "")
    # Missing fields have no line of their own: the front matter's first line (line 2).
    assert [p for p in check(tiny) if "missing" in p] == [
        f"{FR_USE_CASE}:2:1: error: missing required field `short_name` (a use-case page needs `short_name: …`)",
        f"{FR_USE_CASE}:2:1: error: missing required field `summary` (a use-case page needs `summary: …`)",
    ]


def test_a_published_use_case_needs_a_table_and_a_chart_a_draft_does_not(tiny: Path):
    edit(tiny / FR_USE_CASE, "chart: train_8gpu\n", "")
    assert f"{FR_USE_CASE}:2:1: error: missing required field `chart` (name the numeric column of the table to " \
           "draw, e.g. `chart: train_8gpu`)" in check(tiny)
    text = (tiny / FR_USE_CASE).read_text(encoding="utf-8")
    start, end = text.index("table:\n"), text.index("verdict:")
    (tiny / FR_USE_CASE).write_text(text[:start] + text[end:], encoding="utf-8")
    assert f"{FR_USE_CASE}:2:1: error: missing required field `table` (list the GPUs and columns of the page's " \
           "comparison table)" in check(tiny)
    # A draft is listed, never shown: it may be unfinished.
    edit(tiny / FR_USE_CASE, "layout: use_case\n", "layout: use_case\ndraft: true\n")
    assert not [p for p in check(tiny) if FR_USE_CASE in p and "error" in p]


def test_a_source_page_with_translated_from_is_told_to_remove_it(tiny: Path):
    edit(tiny / FR_GUIDE, "layout: guide\n", 'layout: guide\ntranslated_from: "200108a5ed8e"\n')
    line = line_of(tiny, FR_GUIDE, "translated_from:")
    assert f"{FR_GUIDE}:{line}:18: error: a `fr` page is the source of its translations, not a translation " \
           "(remove `translated_from`)" in check(tiny)


def test_a_page_without_its_translation_is_a_warning_on_the_source(tiny: Path):
    (tiny / EN_GUIDE).unlink()
    line = line_of(tiny, FR_GUIDE, "translation_key:")
    problems = check(tiny)
    assert problems == [(f"{FR_GUIDE}:{line}:18: warning: no `en` translation of this page (translation_key "
                        "`guide/first`) (add content/en/… with `translation_key: guide/first`)")]


def test_a_translation_whose_source_failed_to_load_is_not_also_called_orphan(tiny: Path):
    (tiny / FR_GUIDE).write_text("---\ntitle: [unclosed\n---\n", encoding="utf-8")
    problems = check(tiny)
    assert problems and all(p.startswith(FR_GUIDE) for p in problems), problems
    assert not any("matches no `fr` page" in p for p in problems)


def test_a_draft_may_share_a_url_but_never_a_translation_key(tiny: Path):
    page = "---\ntitle: T\ndescription: D\nslug: entrainement\ntranslation_key: {key}\nlayout: guide\ndraft: true\n---\n"
    (tiny / "content/fr/brouillon.md").write_text(page.format(key="draft/one"), encoding="utf-8")
    problems = check(tiny)
    # Only the expected "no translation" warning: a draft is not written, its URL takes nothing.
    assert [p for p in problems if "error" in p] == []
    (tiny / "content/fr/brouillon.md").write_text(page.format(key="use-case/llm-training"), encoding="utf-8")
    assert any("two `fr` pages have the translation key `use-case/llm-training`" in p for p in check(tiny))


@pytest.mark.parametrize(("length", "warned"), [(TITLE_LIMIT - 6, False), (TITLE_LIMIT, False),
                                                (TITLE_LIMIT + 1, True)])
def test_a_title_longer_than_search_engines_show_is_a_warning(tiny: Path, length: int, warned: bool):
    # `title | Tiny` when it fits, the title alone when not: only a title over the limit is cut.
    title = "T" * length
    edit(tiny / EN_GUIDE, 'title: "First guide"', f'title: "{title}"')
    line = line_of(tiny, EN_GUIDE, "title:")
    expected = (f"{EN_GUIDE}:{line}:8: warning: the `title` is longer than search engines show ({length} characters, "
                f"over {TITLE_LIMIT}): “{title}” (shorten it to {TITLE_LIMIT} characters or fewer)")
    problems = check(tiny)
    assert (expected in problems) is warned and len(problems) == int(warned), problems


def test_a_long_description_is_a_warning_at_its_line(tiny: Path):
    description = "D" * (DESCRIPTION_LIMIT + 1)
    edit(tiny / EN_GUIDE, 'description: "A short guide."', f'description: "{description}"')
    line = line_of(tiny, EN_GUIDE, "description:")
    assert check(tiny) == [(f"{EN_GUIDE}:{line}:14: warning: the `description` is longer than search engines show "
                           f"({DESCRIPTION_LIMIT + 1} characters, over {DESCRIPTION_LIMIT}): “{description}” "
                           f"(shorten it to {DESCRIPTION_LIMIT} characters or fewer)")]


def test_a_pattern_with_long_titles_is_reported_once_with_its_count_and_longest(tiny: Path):
    padding = "x" * TITLE_LIMIT
    edit(tiny / "content/fr/gpu-modele.md", 'title: "{model} : fiche"', f'title: "{{model}} {padding}"')
    problems = check(tiny)
    # Three GPUs (Big, Pcie, Card): three long titles, one warning; the longest is named.
    [warning] = problems
    assert warning.startswith("content/fr/gpu-modele.md:2:8: warning: 3 of its pages have a `title` longer than "
                              f"search engines show ({4 + 1 + TITLE_LIMIT} characters, over {TITLE_LIMIT}): “")
    assert f"“Pcie {padding}”" in warning or f"“Card {padding}”" in warning


def test_a_page_that_would_be_written_outside_site_is_an_error(tiny: Path):
    """Slugs are checked by their pattern; this rule proves the output path even so."""
    problems = Problems(tiny)
    dataset = load_dataset(tiny / "data", problems)
    library = load_library(tiny / "content", dataset, problems)
    # model_construct skips validation, as a slug pattern with a hole would.
    meta = PageMeta.model_construct(title="T", description="D", slug="../../etc", translation_key="escape",
                                    layout="guide")
    positions = {(): Position(1, 1), ("slug",): Position(3, 7)}
    escape = Page.from_text(tiny / "content/fr/escape.md", "fr", meta, YamlDocument({}, positions), "", 0, 1)
    check_pages(Library((*library.pages, escape)), dataset, problems)
    assert "content/fr/escape.md:3:7: error: the page would be written outside site/: fr/../../etc/index.html " \
           "(use a slug of lower-case words and dashes)" in [str(p) for p in problems.items]
