"""The Markdown shortcuts give markdown-it's own result: the shortcut for inline content without
markup (``markdown.plain_inline``) the same tokens as markdown-it's inline rule, the table rule
splitting rows by ``str.split`` (``markdown.table_rows``) the same tokens as markdown-it's, the
faster renderer (``markdown.html_renderer``) the same HTML as markdown-it's, with the site's plugins
and without them, on the CommonMark spec examples, markdown-it's GFM table and extra fixtures, table
cells as the site writes them and every page of the site in both languages."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from markdown_it import MarkdownIt
from markdown_it.token import Token
from markdown_it.utils import read_fixture_file

from gpuguide.errors import Problems
from gpuguide.figures.prose import ShortcodeContext
from gpuguide.markdown import plain_inline, table_rows
from gpuguide.markdown.html_renderer import SiteRenderer
from gpuguide.markdown.parser import markdown_parser
from gpuguide.structure.dataset import Dataset, load_dataset
from gpuguide.structure.yaml_documents import split_front_matter

from sites import ROOT

FIXTURES = Path(__file__).parent.parent / "fixtures" / "markdown_it"


def _cases() -> list[tuple[str, str]]:
    cases = [(f"spec {example['example']} ({example['section']})", example["markdown"])
             for example in json.loads((FIXTURES / "commonmark.json").read_text(encoding="utf-8"))]
    for name in ("tables", "commonmark_extras", "issue-fixes", "normalize"):
        cases += [(f"{name}:{line} {title}", text) for line, title, text, _ in read_fixture_file(FIXTURES / f"{name}.md")]
    return cases


CASES = _cases()

#: markdown-it alone, CommonMark with tables (what its own tests check), and the same with the shortcuts.
STOCK = MarkdownIt("commonmark").enable("table")
SHORTCUTS = (MarkdownIt("commonmark", renderer_cls=SiteRenderer).enable("table").use(table_rows.table_rows_plugin)
             .use(plain_inline.plain_inline_plugin))

#: Cells, items and headings as the site's pages write them, plain and not.
SITE_LIKE = [
    "| GPU | Mémoire | Bande passante | Prix |\n|---|--:|--:|---|\n| H100 SXM | 80 Go | 3 350 Go/s | dès 2,88 $US |\n"
    "| **A100** | 40 Go | 1 555 Go/s | Aucune offre |\n| [L4](l4.md) | 24 Go | `PCIe` | Non pris en charge |\n",
    "- Plain item\n- Item with *emphasis*\n- 80 Go, 3 350 Go/s, 24 %\n",
    "## Ce qui compte : la mémoire\n\nUn paragraphe ; avec « guillemets » et des espaces  doubles.\n",
    "Trailing spaces  \nnext line\\\nlast\n",
    "Tab\tinside\ttext\n\n\u00a0no-break\u202fspaces\n",
    "a {{ usable_memory_share }} b\n\nc {{ unknown }}\n",
]


@pytest.fixture(scope="module")
def dataset() -> Dataset:
    dataset = load_dataset(ROOT / "data", Problems())
    assert dataset is not None
    return dataset


def _tokens(tokens: list[Token]) -> list[dict[str, Any]]:
    return [token.as_dict() for token in tokens]


def _site_parse(text: str, shortcut: bool, dataset: Dataset, lang: str) -> tuple[list[dict[str, Any]], str, list[str]]:
    md = markdown_parser(shortcuts=shortcut)
    language = dataset.languages()[lang]
    problems = Problems()
    env: dict[str, Any] = {"source": Path("page.md"), "line": 1, "problems": problems, "typography": language.typography,
                           "shortcodes": ShortcodeContext(dataset, language)}
    tokens = md.parse(text, env)
    return _tokens(tokens), md.renderer.render(tokens, md.options, env), [str(problem) for problem in problems.items]


def _assert_same(text: str, dataset: Dataset, lang: str) -> None:
    assert _site_parse(text, True, dataset, lang) == _site_parse(text, False, dataset, lang)


def test_the_site_parser_uses_the_shortcuts() -> None:
    md = markdown_parser()
    assert isinstance(md.renderer, SiteRenderer) and plain_inline.applies(md)
    assert next(rule.fn for rule in md.core.ruler.__rules__ if rule.name == "inline") is plain_inline._inline
    table = next(rule for rule in md.block.ruler.__rules__ if rule.name == "table")
    stock = next(rule for rule in STOCK.block.ruler.__rules__ if rule.name == "table")
    assert table.fn is not stock.fn and table.fn.__code__ is stock.fn.__code__ and table.alt == stock.alt
    assert table.fn.__globals__["escapedSplit"] is table_rows.split_row


def test_the_table_rows_stand_aside_for_a_table_rule_of_another_plugin() -> None:
    md = MarkdownIt("commonmark").enable("table")
    other = lambda state, start, end, silent: False  # noqa: E731
    md.block.ruler.at("table", other)
    md.use(table_rows.table_rows_plugin)
    assert not table_rows.applies(md)
    assert next(rule.fn for rule in md.block.ruler.__rules__ if rule.name == "table") is other


@pytest.mark.parametrize("row", ["| a | b |", "a|b", "|", "", "| a \\| b |", "\\|\\\\|x", "| `a\\|b` | c\\ |"])
def test_a_row_is_split_as_markdown_it_splits_it(row: str) -> None:
    stock_split = table_rows._escaped_split
    assert stock_split is not None and table_rows.split_row(row) == stock_split(row)


def test_the_shortcut_stands_aside_for_a_parser_it_was_not_written_for() -> None:
    before_text = MarkdownIt("commonmark")
    before_text.inline.ruler.before("text", "dollar", lambda state, silent: False)
    post_processing = MarkdownIt("commonmark")
    post_processing.inline.ruler2.push("rewrite", lambda state: None)
    for md in (before_text, post_processing):
        inline_rule = next(rule.fn for rule in md.core.ruler.__rules__ if rule.name == "inline")
        md.use(plain_inline.plain_inline_plugin)
        assert not plain_inline.applies(md)
        assert next(rule.fn for rule in md.core.ruler.__rules__ if rule.name == "inline") is inline_rule


@pytest.mark.parametrize(("name", "text"), CASES, ids=[name for name, _ in CASES])
def test_markdown_it_fixtures_give_markdown_its_own_result(name: str, text: str, dataset: Dataset) -> None:
    assert plain_inline.applies(SHORTCUTS)
    assert _tokens(SHORTCUTS.parse(text)) == _tokens(STOCK.parse(text))
    assert SHORTCUTS.render(text) == STOCK.render(text)
    # The site's parser, with its plugins and the French typography.
    _assert_same(text, dataset, "fr")


def test_the_spec_examples_still_render_as_the_spec_says() -> None:
    """The shortcut is a shortcut of a parser that passes the spec: it passes it just as well."""
    shortcut = MarkdownIt("commonmark", renderer_cls=SiteRenderer).use(plain_inline.plain_inline_plugin)
    plain = MarkdownIt("commonmark")
    examples = json.loads((FIXTURES / "commonmark.json").read_text(encoding="utf-8"))
    passing = [example for example in examples if plain.render(example["markdown"]) == example["html"]]
    assert len(passing) > 600
    assert [example["example"] for example in passing if shortcut.render(example["markdown"]) != example["html"]] == []


@pytest.mark.parametrize("text", SITE_LIKE)
@pytest.mark.parametrize("lang", ["fr", "en"])
def test_site_like_content_gives_markdown_its_own_result(text: str, lang: str, dataset: Dataset) -> None:
    _assert_same(text, dataset, lang)


PAGES = sorted((ROOT / "content").rglob("*.md"))


@pytest.mark.parametrize("path", PAGES, ids=[str(path.relative_to(ROOT / "content")) for path in PAGES])
def test_every_page_gives_markdown_its_own_result(path: Path, dataset: Dataset) -> None:
    text = path.read_text(encoding="utf-8")
    split = split_front_matter(text, path, Problems())
    assert split is not None
    lang = path.relative_to(ROOT / "content").parts[0]
    _assert_same(text[split.body_offset:], dataset, lang)
