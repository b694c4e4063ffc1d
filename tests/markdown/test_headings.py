"""``gpuguide.markdown.headings``: heading ids are stable lower-case ASCII anchors (``heading_id``),
unique on the page and never an id the page's layout uses (``heading_ids_plugin``), and a heading
that has an id links to itself (``heading_links_plugin``) unless it holds a link."""

from __future__ import annotations

import random
import re
from html.parser import HTMLParser
from pathlib import Path

import jinja2
import pytest
from bs4 import BeautifulSoup
from jinja2 import nodes
from markdown_it import MarkdownIt
from mdit_py_plugins.anchors import anchors_plugin

from gpuguide.errors import Problems
from gpuguide.figures.prose import ShortcodeContext
from gpuguide.markdown.headings import LAYOUT_IDS, heading_id, heading_ids_plugin, heading_links_plugin
from gpuguide.markdown.parser import markdown_parser
from gpuguide.render import block_table
from gpuguide.structure.dataset import load_dataset

from sites import ROOT

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


def _render(text: str, env: dict | None = None) -> BeautifulSoup:
    # As the site's parser: ids on h2 to h4 from heading_id, then the self-links.
    md = (MarkdownIt("commonmark", {"html": False})
          .use(heading_ids_plugin, min_level=2, max_level=4)
          .use(heading_links_plugin))
    return BeautifulSoup(md.render(text, env), "html.parser")


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
    heading = _render("#" * level + " Costs\n").find(f"h{level}")
    assert heading.find("a", class_="heading-link")["href"] == "#costs"


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
    soup = _render("## Costs\n\ntext\n\n## Costs\n\n## Costs\n")
    headings = soup.find_all("h2")
    ids = [heading["id"] for heading in headings]
    assert ids == ["costs", "costs-1", "costs-2"]
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


# --- Ids unique on the page, never one the layout uses ----------------------------------------------


def _ids(md: MarkdownIt, text: str, env: dict | None = None) -> list[str]:
    return [str(token.attrGet("id")) for token in md.parse(text, env or {}) if token.type == "heading_open"
            and token.attrGet("id") is not None]


#: Headings that collide: repeated, numbered as a repeat would be, of several levels, one of a layout.
COLLIDING = ["Costs", "Costs", "Costs 1", "costs-1", "Costs 2", "Memory", "R&D", "R D", "🚀", "", "Section",
             "Section 1", "FAQ", "FAQ 1", "`code`", "Table 1"]


@pytest.mark.parametrize("seed", range(40))
def test_without_layout_ids_the_ids_are_those_mdit_py_plugins_anchors_gives(seed: int) -> None:
    # The plugin numbers repeats as anchors_plugin does (what the site used before): compared on
    # random pages of headings that collide, at every level.
    pick = random.Random(seed)
    text = "".join(f"{'#' * pick.randint(1, 6)} {pick.choice(COLLIDING)}\n\ntext\n\n" for _ in range(30))
    ours = MarkdownIt("commonmark").use(heading_ids_plugin, min_level=2, max_level=4, reserve_layout_ids=False)
    reference = MarkdownIt("commonmark").use(anchors_plugin, min_level=2, max_level=4, slug_func=heading_id)
    assert _ids(ours, text) == _ids(reference, text)


def test_a_heading_never_takes_an_id_the_layout_uses() -> None:
    soup = _render("## Main\n\n## FAQ\n\n## Suitable GPUs\n\n## FAQ\n\n### Planner\n\n#### Serving\n\n## Costs\n")
    assert [heading["id"] for heading in soup.find_all(["h2", "h3", "h4"])] == [
        "main-1", "faq-1", "suitable-gpus-1", "faq-2", "planner-1", "serving-1", "costs"]
    assert [link["href"] for link in soup.find_all("a", class_="heading-link")][:2] == ["#main-1", "#faq-1"]


def test_ids_a_layout_numbers_or_names_after_the_code_are_reserved_and_others_are_not() -> None:
    soup = _render("## Table 2\n\n## Use case 3\n\n## Use case study\n\n## Use cases\n\n"
                   "## Serving chat\n\n## Serving tips\n\n## Consumer\n\n## Table consumer hint\n")
    assert [heading["id"] for heading in soup.find_all("h2")] == [
        "table-2-1", "use-case-3-1", "use-case-study", "use-cases-1",
        "serving-chat-1", "serving-tips", "consumer-1", "table-consumer-hint-1"]


def test_ids_a_layout_names_after_the_data_are_reserved_when_the_page_has_its_data() -> None:
    problems = Problems()
    dataset = load_dataset(ROOT / "data", problems)
    assert dataset is not None
    gpu = next(iter(dataset.gpus))
    text = f"## With {gpu}\n\n## Not found {dataset.config.default_language}\n\n## With friends\n"
    env = {"shortcodes": ShortcodeContext(dataset, dataset.languages()[dataset.config.default_language])}
    md = markdown_parser()
    assert _ids(md, text, env) == [f"with-{gpu}-1", f"not-found-{dataset.config.default_language}-1", "with-friends"]
    assert _ids(md, text) == [f"with-{gpu}", f"not-found-{dataset.config.default_language}", "with-friends"]


# --- LAYOUT_IDS is what the templates write -----------------------------------------------------------

#: What a template fills an id with → the ``{kind}`` LAYOUT_IDS writes for it. A template that
#: fills an id with anything else fails the test below: say here what it stands for, and in
#: ``headings._names`` which names it takes.
TEMPLATE_PARTS = {"segment": "{segment}", "gpu.id": "{gpu}", "entry.key": "{preset}", "loop.index": "{number}",
                  "section.lang": "{language}", "group.key": "{size}"}
#: The ids a page's Markdown gives its tables (``tables.next_table_id``, ``shortcodes``): not in templates.
MARKDOWN_IDS = {"table-{number}", "table-{number}-hint"}


class _IdAttributes(HTMLParser):
    """The ``id`` attributes of a template's tags, as written (Jinja expressions included)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.ids += [value for name, value in attrs if name == "id" and value is not None]


def _expression(node: nodes.Node) -> str:
    if isinstance(node, nodes.Name):
        return node.name
    if isinstance(node, nodes.Getattr):
        return f"{_expression(node.node)}.{node.attr}"
    raise AssertionError(f"an id filled with {node!r}: say in TEMPLATE_PARTS what it stands for")


def _written(parts: list[nodes.Node], table_ids: set[str]) -> set[str]:
    """An id's parts (text, Jinja expressions) as LAYOUT_IDS writes it: each ``table_id`` a partial
    is given becomes one id."""
    written = {""}
    for part in parts:
        if isinstance(part, (nodes.TemplateData, nodes.Const)):
            options = {str(part.data if isinstance(part, nodes.TemplateData) else part.value)}
        elif isinstance(part, nodes.Concat):
            options = _written(part.nodes, table_ids)
        elif isinstance(part, nodes.Call) and isinstance(part.node, nodes.Name) and part.node.name == "anchor":
            options = _written(part.args, table_ids)  # ``anchor(…)``: the id, noted (``render.known_links``)
        elif _expression(part) == "table_id":
            options = table_ids
        else:
            expression = _expression(part)
            assert expression in TEMPLATE_PARTS, f"an id filled with `{expression}`: add it to TEMPLATE_PARTS"
            options = {TEMPLATE_PARTS[expression]}
        written = {start + option for start in written for option in options}
    return written


def _template_ids(folder: Path = ROOT / "templates") -> dict[str, set[str]]:
    """Each id the templates write (as LAYOUT_IDS writes it) → the templates that write it."""
    environment = jinja2.Environment()
    templates = {path.relative_to(folder).as_posix(): path.read_text(encoding="utf-8")
                 for path in sorted(folder.rglob("*.html"))}
    # The table ids each partial is given: ``{% with table_id = … %}{% include "partials/…" %}``.
    given: dict[str, set[str]] = {}
    for source in templates.values():
        for block in environment.parse(source).find_all(nodes.With):
            for target, value in zip(block.targets, block.values):
                if isinstance(target, nodes.Name) and target.name == "table_id":
                    for include in block.find_all(nodes.Include):
                        given.setdefault(include.template.value, set()).update(_written([value], set()))
    found: dict[str, set[str]] = {}
    for name, source in templates.items():
        parser = _IdAttributes()
        parser.feed(source)
        parser.close()
        for value in parser.ids:
            output = environment.parse(value).body
            parts = [part for block in output for part in block.nodes] if output else []
            for written in _written(parts, given.get(name, set())):
                found.setdefault(written, set()).add(name)
        # A table printed in Python (``render.block_table``): the ids of its region, after its table id.
        for call in environment.parse(source).find_all(nodes.Call):
            if isinstance(call.node, nodes.Name) and call.node.name in block_table.PRINTERS:
                for table_id in _written([call.args[1]], set()):
                    for suffix in block_table.REGION_IDS:
                        found.setdefault(table_id + suffix, set()).add(name)
    return found


def _unreserved(folder: Path = ROOT / "templates") -> dict[str, list[str]]:
    """The ids the templates write that LAYOUT_IDS misses → the templates that write them."""
    return {written: sorted(names) for written, names in _template_ids(folder).items() if written not in LAYOUT_IDS}


def test_every_id_a_template_writes_is_reserved() -> None:
    written = set(_template_ids())
    assert {"main", "faq", "suitable-gpus", "planner", "serving", "with-{gpu}", "gpu-table-hint"} <= written
    missing = _unreserved()
    assert not missing, f"add these to headings.LAYOUT_IDS: {missing}"


def test_an_id_a_template_adds_is_found_missing(tmp_path: Path) -> None:
    (tmp_path / "partials").mkdir()
    (tmp_path / "partials" / "table.html").write_text('<p id="{{ table_id }}-hint">…</p>', encoding="utf-8")
    (tmp_path / "page.html").write_text(
        '<main id="main"><h2 id="new-section" class="x">New</h2><h3 id="step-{{ loop.index }}">\n'
        '{% with table_id = "new-table" %}{% include "partials/table.html" %}{% endwith %}</main>', encoding="utf-8")
    assert _unreserved(tmp_path) == {"new-section": ["page.html"], "step-{number}": ["page.html"],
                                     "new-table-hint": ["partials/table.html"]}


def test_every_reserved_id_is_one_a_template_or_the_markdown_writes() -> None:
    stale = set(LAYOUT_IDS) - set(_template_ids()) - MARKDOWN_IDS
    assert not stale, f"no template writes these any more: remove them from headings.LAYOUT_IDS: {sorted(stale)}"
    assert len(set(LAYOUT_IDS)) == len(LAYOUT_IDS)
