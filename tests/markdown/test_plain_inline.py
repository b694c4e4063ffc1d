"""The Markdown shortcuts give markdown-it's own result: the shortcut for inline content without
markup (``markdown.plain_inline``) and the one for common markup (``markdown.markup_inline``) the
same tokens as markdown-it's inline rule, the table rule
splitting rows by ``str.split`` (``markdown.table_rows``) and the block rules tried only at their
first characters (``markdown.block_starts``) the same tokens as markdown-it's, the faster renderer (``markdown.html_renderer``) the same HTML as markdown-it's, with the site's plugins
and without them, on the CommonMark spec examples, markdown-it's GFM table and extra fixtures, table
cells as the site writes them, every page of the site and pages of the benchmark's corpus in both
languages, and inline content generated from pieces of markup."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from markdown_it.token import Token

from gpuguide.errors import Problems
from gpuguide.figures.prose import ShortcodeContext
from gpuguide.markdown import block_starts, markup_inline, plain_inline, table_rows
from gpuguide.markdown.html_renderer import SiteRenderer
from gpuguide.markdown import parser
from gpuguide.markdown.parser import markdown_parser
from gpuguide.structure.dataset import Dataset, load_dataset
from gpuguide.structure.yaml_documents import split_front_matter

from markdown_fixtures import FIXTURES, markdown_it_cases
from sites import ROOT

CASES = markdown_it_cases()

#: markdown-it alone, CommonMark with tables (what its own tests check), and the same with the shortcuts.
STOCK = MarkdownIt("commonmark").enable("table")
SHORTCUTS = (MarkdownIt("commonmark", renderer_cls=SiteRenderer).enable("table").use(table_rows.table_rows_plugin)
             .use(block_starts.block_starts_plugin).use(plain_inline.plain_inline_plugin))

#: Cells, items and headings as the site's pages write them, plain and not.
SITE_LIKE = [
    "| GPU | Mémoire | Bande passante | Prix |\n|---|--:|--:|---|\n| H100 SXM | 80 Go | 3 350 Go/s | dès 2,88 $US |\n"
    "| **A100** | 40 Go | 1 555 Go/s | Aucune offre |\n| [L4](l4.md) | 24 Go | `PCIe` | Non pris en charge |\n",
    "- Plain item\n- Item with *emphasis*\n- 80 Go, 3 350 Go/s, 24 %\n",
    "## Ce qui compte : la mémoire\n\nUn paragraphe ; avec « guillemets » et des espaces  doubles.\n",
    "Trailing spaces  \nnext line\\\nlast\n",
    "Tab\tinside\ttext\n\n\u00a0no-break\u202fspaces\n",
    "a {{ usable_memory_share }} b\n\nc {{ unknown }}\n",
    "Windows\r\nline endings, **bold**\r\n\r\n| a | b |\r\n|---|---|\r\n| 1 | `2` |\r\n",
    "NUL\0inside and\rold Mac line endings\n",
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
    assert markup_inline.applies(md)
    assert next(rule.fn for rule in md.core.ruler.__rules__ if rule.name == "inline") is plain_inline._inline_with_markup
    assert next(rule.fn for rule in md.core.ruler.__rules__ if rule.name == "normalize") is parser._normalize
    assert next(rule.fn for rule in md.core.ruler.__rules__ if rule.name == "text_join") is plain_inline._text_join
    table = next(rule for rule in md.block.ruler.__rules__ if rule.name == "table")
    stock = next(rule for rule in STOCK.block.ruler.__rules__ if rule.name == "table")
    assert table.fn is not stock.fn and table.fn.__code__ is stock.fn.__code__ and table.alt == stock.alt
    assert table.fn.__globals__["escapedSplit"] is table_rows.split_row
    gated = {rule.name: rule.fn.__wrapped__ for rule in md.block.ruler.__rules__ if hasattr(rule.fn, "__wrapped__")}
    assert set(gated.values()) == set(block_starts.FIRST_CHARACTERS)
    stock_rules = {rule.name: rule for rule in STOCK.block.ruler.__rules__}
    assert all(stock_rules[name].fn is fn for name, fn in gated.items())
    assert all(rule.alt == stock_rules[rule.name].alt for rule in md.block.ruler.__rules__ if rule.name in gated)


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
    shortcut = (MarkdownIt("commonmark", renderer_cls=SiteRenderer).use(block_starts.block_starts_plugin)
                .use(plain_inline.plain_inline_plugin))
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


def test_every_markup_form_of_the_corpus_is_taken_and_the_rest_given_up(dataset: Dataset) -> None:
    """The shortcut for markup does run (the comparisons above would pass without it), on each form
    it knows, and gives up on what it does not."""
    md = markdown_parser()
    taken = ["a **b c** d", "**b**", "*é*, et `code --flag=1` puis [texte](page-00017.md#x) fin.",
             "(**gras**) et *em*: {{ usable_memory_share }} ; 3 $US - 4 % ] : =", "[a](https://example.com/x?y=1)",
             "dès 2,88 $US", "`a*b_c[d]`", "x {y} z", "**a** **b**"]
    given_up = ["a\\*b", "a &amp; b", "a_b_", "<b>", "a\nb", "**a*", "***a***", "a**b**", "**a**b", "* a*",
                "*a *", "[a]", "[a] (b)", "![a](b.png)", "[a](b c)", "[a](<b>)", "[*a*](b)", "[a](javascript:x)",
                "` a `", "``a``", "`a", "{{ a", "~~a~~", "**`a`**", "*[a](b)*"]
    assert [text for text in taken if markup_inline.children(text, md) is None] == []
    assert [text for text in given_up if markup_inline.children(text, md) is not None] == []
    for text in taken + given_up:
        _assert_same(text, dataset, "fr")


def test_the_markup_shortcut_stands_aside_for_a_parser_it_was_not_written_for() -> None:
    # Without the site's shortcode and link rules, or with raw HTML: not the parser it reproduces.
    for md in (MarkdownIt("commonmark"), MarkdownIt("commonmark", {"html": True}).use(plain_inline.plain_inline_plugin)):
        assert not markup_inline.applies(md)
    with_html = markdown_parser.__wrapped__(shortcuts=False)  # a new one: the cached parser stays as it is
    with_html.options["html"] = True
    assert markup_inline.applies(markdown_parser()) and not markup_inline.applies(with_html)
    md = MarkdownIt("commonmark").use(plain_inline.plain_inline_plugin)
    assert next(rule.fn for rule in md.core.ruler.__rules__ if rule.name == "inline") is plain_inline._inline


def test_the_benchmark_corpus_pages_give_markdown_its_own_result(tmp_path: Path, dataset: Dataset) -> None:
    # Made by bench/corpus.py as the benchmark makes them: real markup, links, shortcodes, tables.
    subprocess.run([sys.executable, str(ROOT / "bench" / "corpus.py"), "--pages", "60", "--out", str(tmp_path),
                    "--kinds", "ours"], check=True, capture_output=True)
    pages = sorted(tmp_path.rglob("page-*.md"))
    assert len(pages) == 120
    for path in pages:
        text = path.read_text(encoding="utf-8")
        split = split_front_matter(text, path, Problems())
        assert split is not None
        _assert_same(text[split.body_offset:], dataset, "fr" if "/fr/" in str(path) else "en")


#: Pieces inline content is made of: words, the markup forms the shortcut knows, and what it does not.
_WORDS = ["a", "é", "Z9", "mot", "GPU", "80"]
_FORMS = ["**gras**", "**deux mots**", "*em*", "*é*", "`code`", "`a*b`", "` a `", "`x\ny`", "[texte](p.md)",
          "[t](https://e.com/a?b=1)", "[t](p.md#x)", "{{ usable_memory_share }}", "{{ x", "(**g**)", "*a*,"]
_SEPARATORS = [" ", " ", ", ", ". ", " : ", " - ", " $US ", " ] ", " ! ", "\u00a0", ""]
_NOISE = ["*", "**", "***", "`", "``", "[", "]", "](", ")", "(", "_", "\\", "&amp;", "&", "<", ">", "<https://e.com>",
          "~", "\n", "  \n", "\t", "#", "!", "{", "}}"]
_PIECES = st.sampled_from(_WORDS * 3 + _FORMS * 3 + _SEPARATORS * 4 + _NOISE)


def _same_inline_tokens(text: str) -> bool:
    """Whether the site's parser (with the shortcuts) and markdown-it's own inline rule give the same
    tokens for ``text``."""
    env = {"problems": Problems()}
    return _tokens(markdown_parser().parseInline(text, dict(env))) == _tokens(
        markdown_parser(shortcuts=False).parseInline(text, dict(env)))


@settings(max_examples=500, deadline=None)
@given(st.lists(_PIECES, min_size=1, max_size=12).map("".join))
def test_generated_inline_content_gives_markdown_its_own_result(text: str) -> None:
    assert _same_inline_tokens(text)


def test_generated_content_mostly_takes_the_markup_shortcut_and_gives_the_same_tokens() -> None:
    # Seeded: the same 3,000 texts on every run, most of them in the forms the shortcut takes.
    import random

    pieces = _WORDS * 3 + _FORMS * 3 + _SEPARATORS * 4 + _NOISE
    rng = random.Random(20261207)
    texts = ["".join(rng.choice(pieces) for _ in range(rng.randint(1, 12))) for _ in range(3000)]
    assert [text for text in texts if not _same_inline_tokens(text)] == []
    taken = sum(markup_inline.children(text, markdown_parser()) is not None for text in texts)
    assert taken > len(texts) // 4
