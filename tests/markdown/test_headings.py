"""``gpuguide.markdown.headings``: heading ids are stable lower-case ASCII anchors (``heading_id``),
and a heading that has an id links to itself (``heading_links_plugin``) unless it holds a link."""

from __future__ import annotations

import re

import pytest
from bs4 import BeautifulSoup
from markdown_it import MarkdownIt
from mdit_py_plugins.anchors import anchors_plugin

from gpuguide.markdown.headings import heading_id, heading_links_plugin

#: What an anchor may look like: lower-case ASCII words joined by single dashes.
SLUG = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")

IDS = {
    "Ce qui compte : entraînement de LLM": "ce-qui-compte-entrainement-de-llm",  # the docstring's example
    "What matters: LLM training": "what-matters-llm-training",
    "H100 vs A100 -- which one?": "h100-vs-a100-which-one",
    "  --Leading and trailing--  ": "leading-and-trailing",
    "Price ($/h) / TFLOPS": "price-h-tflops",
    "UPPER lower 123": "upper-lower-123",
    "1,000 GPUs": "1000-gpus",  # a thousands separator is dropped, not a word break
    "R&D budget": "r-d-budget",
    "ÆØÅ": "aeoa",  # transliterated, not dropped
    "Mémoire : « HBM3e » ?": "memoire-hbm3e",
    "Ce qui compte\u00a0: x\u202f?": "ce-qui-compte-x",  # French spacing does not change the anchor
}


@pytest.mark.parametrize("text", sorted(IDS))
def test_heading_ids_are_lower_case_ascii_words_joined_by_dashes(text: str) -> None:
    assert heading_id(text) == IDS[text]


@pytest.mark.parametrize("text", ["", "   ", "---", "?!", "🚀"])
def test_a_heading_with_no_letter_or_digit_still_gets_an_id(text: str) -> None:
    assert heading_id(text) == "section"


@pytest.mark.parametrize("text", [*IDS, "a_b", "x...y", "Tab\tand\nnewline", "émoji 🚀 rocket", "Don't", "&amp;"])
def test_every_id_is_a_valid_anchor(text: str) -> None:
    assert SLUG.fullmatch(heading_id(text)), heading_id(text)


def test_ids_do_not_depend_on_case_or_spacing() -> None:
    assert heading_id("GPU Memory") == heading_id("gpu memory") == heading_id("  GPU   memory ")


def _render(text: str) -> BeautifulSoup:
    # As the site's parser: ids on h2 to h4 from heading_id, then the self-links.
    md = (MarkdownIt("commonmark", {"html": False})
          .use(anchors_plugin, min_level=2, max_level=4, slug_func=heading_id)
          .use(heading_links_plugin))
    return BeautifulSoup(md.render(text), "html.parser")


def test_a_heading_with_an_id_links_to_itself_around_its_text() -> None:
    soup = _render("## What matters: LLM training\n")
    heading = soup.find("h2")
    assert heading["id"] == "what-matters-llm-training"
    link = heading.find("a")
    assert link["class"] == ["heading-link"] and link["href"] == "#" + heading["id"]
    # The whole text is inside the link, nothing outside it.
    assert link.get_text() == heading.get_text() == "What matters: LLM training"
    assert list(heading.children) == [link]


@pytest.mark.parametrize("level", [2, 3, 4])
def test_levels_two_to_four_link_to_themselves(level: int) -> None:
    heading = _render("#" * level + " Memory\n").find(f"h{level}")
    assert heading.find("a", class_="heading-link")["href"] == "#memory"


@pytest.mark.parametrize("level", [1, 5, 6])
def test_a_heading_without_an_id_is_left_as_it_is(level: int) -> None:
    heading = _render("#" * level + " Memory\n").find(f"h{level}")
    assert not heading.has_attr("id") and heading.find("a") is None and heading.get_text() == "Memory"


def test_a_heading_holding_a_link_does_not_nest_links() -> None:
    soup = _render("### See [the H100](https://example.com/h100) page\n")
    heading = soup.find("h3")
    links = heading.find_all("a")
    assert heading["id"] == "see-the-h100-page"
    assert len(links) == 1 and links[0]["href"] == "https://example.com/h100"
    assert soup.find("a", class_="heading-link") is None


def test_same_headings_get_distinct_ids_and_each_links_to_its_own() -> None:
    soup = _render("## FAQ\n\ntext\n\n## FAQ\n\n## FAQ\n")
    headings = soup.find_all("h2")
    ids = [heading["id"] for heading in headings]
    assert len(set(ids)) == 3 and ids[0] == "faq"
    assert [heading.find("a")["href"] for heading in headings] == ["#" + i for i in ids]


def test_inline_markup_stays_inside_the_self_link_and_text_is_escaped() -> None:
    soup = _render("## R&D *costs* `<b>`\n")
    link = soup.find("h2").find("a", class_="heading-link")
    assert link.find("em").get_text() == "costs" and link.find("code").get_text() == "<b>"
    assert soup.find("b") is None  # escaped text, not a tag
    assert link["href"] == "#r-d-costs-b"


def test_headings_of_several_levels_on_one_page_each_get_one_link() -> None:
    soup = _render("# Title\n\n## A\n\n### B\n\n#### C\n\n##### D\n\nText with [a link](https://x.org).\n")
    assert [a["href"] for a in soup.find_all("a", class_="heading-link")] == ["#a", "#b", "#c"]
    assert soup.find("p").find("a")["href"] == "https://x.org"  # other links untouched


def test_without_ids_the_plugin_adds_no_link() -> None:
    # The plugin links headings that have an id; it does not invent ids.
    md = MarkdownIt("commonmark").use(heading_links_plugin)
    soup = BeautifulSoup(md.render("## Memory\n"), "html.parser")
    assert soup.find("a") is None and soup.find("h2").get_text() == "Memory"
