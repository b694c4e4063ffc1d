"""Each of markdown-it's block rules is tried only at a line whose first character can start its block
(``markdown.block_starts``): no rule ever matches at a line its test turns away, on every rule call
markdown-it makes while parsing the CommonMark spec examples, its fixtures and every page of the
site; and the test does turn calls away. ``test_plain_inline.py`` compares the tokens and HTML."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from markdown_it import MarkdownIt
from markdown_it import rules_block
from markdown_it.rules_block import StateBlock

from gpuguide.errors import Problems
from gpuguide.figures.prose import ShortcodeContext
from gpuguide.markdown import block_starts
from gpuguide.markdown.parser import markdown_parser
from gpuguide.structure.dataset import load_dataset
from gpuguide.structure.yaml_documents import split_front_matter

from markdown_fixtures import markdown_it_cases
from sites import ROOT


class _Calls:
    """Every call of markdown-it's gated rules in a parser: (rule, could start, matched), counted."""

    def __init__(self, md: MarkdownIt) -> None:
        self.seen: Counter[tuple[str, bool, bool]] = Counter()
        for rule in md.block.ruler.__rules__:
            characters = block_starts.FIRST_CHARACTERS.get(rule.fn)
            if characters is not None:
                md.block.ruler.at(rule.name, self._noted(rule.name, rule.fn, characters), {"alt": list(rule.alt)})

    def _noted(self, name: str, rule: Any, characters: str) -> Any:
        def noted(state: StateBlock, start: int, end: int, silent: bool) -> bool:
            could_start = block_starts.can_start(state, start, characters)
            matched = bool(rule(state, start, end, silent))
            self.seen[(name, could_start, matched)] += 1
            return matched
        return noted

    def matched_where_turned_away(self) -> list[str]:
        return [name for (name, could_start, matched) in self.seen if matched and not could_start]

    def turned_away(self) -> int:
        return sum(count for (_, could_start, _), count in self.seen.items() if not could_start)


def _site_texts() -> list[tuple[str, str]]:
    texts = []
    for path in sorted((ROOT / "content").rglob("*.md")):
        text = path.read_text(encoding="utf-8")
        split = split_front_matter(text, path, Problems())
        assert split is not None
        texts.append((path.relative_to(ROOT / "content").parts[0], text[split.body_offset:]))
    return texts


def test_no_rule_matches_where_its_first_character_turns_it_away() -> None:
    # markdown-it's own rules, with and without the site's plugins, each call noted.
    stock_md = MarkdownIt("commonmark").enable("table")
    stock = _Calls(stock_md)
    site_md = markdown_parser.__wrapped__(shortcuts=False)  # a new parser, not the site's cached one
    site = _Calls(site_md)
    for _, text in markdown_it_cases():
        stock_md.parse(text)
    dataset = load_dataset(ROOT / "data", Problems())
    assert dataset is not None
    languages = dataset.languages()
    for lang, text in _site_texts():
        env: dict[str, Any] = {"source": Path("page.md"), "line": 1, "problems": Problems(),
                               "typography": languages[lang].typography,
                               "shortcodes": ShortcodeContext(dataset, languages[lang])}
        site_md.parse(text, env)
    assert stock.matched_where_turned_away() == []
    assert site.matched_where_turned_away() == []
    # Every gated rule was seen matching somewhere, and the site's pages turn most calls away.
    assert {name for (name, _, matched) in site.seen if matched} >= {"list", "heading"}
    assert site.turned_away() > 2 * sum(count for (_, could_start, _), count in site.seen.items() if could_start)


def test_every_gated_rule_matches_in_the_spec_examples() -> None:
    """The property above is not empty: each rule matches, at a line that starts as its blocks do."""
    md = MarkdownIt("commonmark").enable("table")
    calls = _Calls(md)
    for _, text in markdown_it_cases():
        md.parse(text)
    matched = {name for (name, could_start, matched) in calls.seen if matched and could_start}
    assert matched == {"fence", "blockquote", "hr", "list", "reference", "html_block", "heading"}


@pytest.mark.parametrize(("text", "rule"), [
    ("```\ncode\n```\n", "fence"), ("~~~\ncode\n~~~\n", "fence"), ("> quote\n", "blockquote"),
    ("***\n", "hr"), ("- - -\n", "hr"), ("___\n", "hr"), ("- item\n", "list"), ("+ item\n", "list"),
    ("* item\n", "list"), ("7. item\n", "list"), ("[a]: /url\n\n[a]\n", "reference"), ("# Title\n", "heading"),
    ("   ### indented\n", "heading"), ("> - in a quote\n", "list"), ("- > in an item\n", "blockquote"),
])
def test_each_block_is_still_recognised(text: str, rule: str) -> None:
    gated = MarkdownIt("commonmark").use(block_starts.block_starts_plugin)
    stock = MarkdownIt("commonmark")
    assert gated.render(text) == stock.render(text)
    calls = _Calls(stock)
    stock.parse(text)
    assert any(name == rule and matched for (name, _, matched) in calls.seen)


def test_a_rule_another_plugin_put_in_place_is_left_alone() -> None:
    md = MarkdownIt("commonmark")
    other = lambda state, start, end, silent: False  # noqa: E731
    md.block.ruler.at("heading", other)
    md.use(block_starts.block_starts_plugin)
    rules = {rule.name: rule.fn for rule in md.block.ruler.__rules__}
    assert rules["heading"] is other
    assert getattr(rules["list"], "__wrapped__", None) is rules_block.list_block
