"""``gpuguide.markdown.tables``: a table written in Markdown gets a caption (written above it, or the
heading it is under, hidden), row headers, ``data-label`` on each data cell, and a scroll region
labelled by the caption and described by the scroll hint; ``region_open`` on its own."""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup
from markdown_it import MarkdownIt

from gpuguide.markdown.tables import PROSE_REGION, region_open, tables_plugin
from gpuguide.structure.typography import NBSP, french

HINT = "Scroll <sideways> & see"


def _parser() -> MarkdownIt:
    # As the site's parser: CommonMark, tables on, raw HTML off; only the plugin under test.
    return MarkdownIt("commonmark", {"html": False}).enable("table").use(tables_plugin)


def _soup(text: str, **env: object) -> BeautifulSoup:
    return BeautifulSoup(_parser().render(text, dict(env)), "html.parser")


TABLE = "| GPU | Memory (GB) | Price |\n|---|--:|---|\n| H100 | 80 | 2.49 |\n| L4 | 24 | 0.30 |\n"


def test_a_written_caption_is_shown_and_labels_the_region_the_hint_describes() -> None:
    soup = _soup('{caption="What <takes> up memory"}\n' + TABLE, scroll_hint=HINT, page_title="Page")
    table = soup.find("table")
    caption = table.caption
    # Visible (no visually-hidden class), escaped in the HTML so it reads back as written.
    assert caption.get_text() == "What <takes> up memory"
    assert "visually-hidden" not in (caption.get("class") or [])
    region = table.parent
    assert region.name == "div" and region["role"] == "region" and region["tabindex"] == "0"
    assert region["class"] == PROSE_REGION.split()
    assert region["aria-labelledby"] == caption["id"]
    hint = soup.find(id=region["aria-describedby"])
    # The hint is printed just before the region, is text (escaped), and search leaves it out.
    assert hint.name == "p" and hint.get_text() == HINT and hint.has_attr("data-pagefind-ignore")
    assert hint.find_next_sibling("div") is region


def test_without_a_written_caption_the_heading_above_names_the_table_for_assistive_technology() -> None:
    soup = _soup("## Costs\n\nText.\n\n### Per hour\n\n" + TABLE, page_title="Page")
    caption = soup.find("table").caption
    assert caption.get_text() == "Per hour"  # the nearest heading above, not the section's h2
    assert caption["class"] == ["visually-hidden"]  # the heading is already on screen


def test_each_table_is_named_by_its_own_section() -> None:
    soup = _soup("## First\n\n" + TABLE + "\n## Second\n\n" + TABLE)
    assert [table.caption.get_text() for table in soup.find_all("table")] == ["First", "Second"]


def test_a_heading_with_inline_markup_gives_its_plain_text_as_caption() -> None:
    soup = _soup("## The *fast* `H100` [table](https://example.com)\n\n" + TABLE)
    assert soup.find("table").caption.get_text() == "The fast H100 table"


@pytest.mark.parametrize("above", ["", '{caption=""}\n', '{caption="   "}\n'])
def test_before_any_heading_and_without_a_caption_the_page_title_names_the_table(above: str) -> None:
    soup = _soup(above + TABLE, page_title="GPUs for training")
    caption = soup.find("table").caption
    assert caption.get_text() == "GPUs for training" and caption["class"] == ["visually-hidden"]


def test_a_written_caption_wins_over_the_heading_and_is_trimmed() -> None:
    soup = _soup('## Costs\n\n{caption="  Hourly prices  "}\n' + TABLE)
    caption = soup.find("table").caption
    assert caption.get_text() == "Hourly prices" and not caption.get("class")


def test_the_language_typography_applies_to_a_written_caption() -> None:
    soup = _soup('{caption="Prix : à l\'heure ?"}\n' + TABLE, typography=french)
    assert soup.find("table").caption.get_text() == f"Prix{NBSP}: à l'heure\u202f?"


def test_only_the_caption_attribute_is_taken_from_the_attribute_line() -> None:
    soup = _soup('{id="mine" .wide data-x="1" caption="Kept"}\n' + TABLE)
    table = soup.find("table")
    assert table.caption.get_text() == "Kept"
    # The other attributes an editor might try are not put on the table.
    assert not table.has_attr("id") and not table.has_attr("class") and not table.has_attr("data-x")
    assert soup.find(id="mine") is None


def test_first_body_cell_of_each_row_is_a_row_header_and_others_carry_their_column_label() -> None:
    soup = _soup(TABLE)
    table = soup.find("table")
    header_cells = table.thead.find_all(["th", "td"])
    assert [cell.name for cell in header_cells] == ["th", "th", "th"]
    assert not any(cell.has_attr("scope") and cell["scope"] == "row" for cell in header_cells)
    rows = table.tbody.find_all("tr")
    assert len(rows) == 2
    for row, name in zip(rows, ["H100", "L4"]):
        cells = row.find_all(["th", "td"])
        assert cells[0].name == "th" and cells[0]["scope"] == "row" and cells[0].get_text() == name
        assert not cells[0].has_attr("data-label")  # the row header names the row itself
        assert [cell.name for cell in cells[1:]] == ["td", "td"]
        assert [cell["data-label"] for cell in cells[1:]] == ["Memory (GB)", "Price"]
    # The alignment an editor wrote stays on the cell.
    assert rows[0].find_all("td")[0]["style"] == "text-align:right"


def test_a_row_header_keeps_its_column_alignment() -> None:
    soup = _soup("| n | name |\n|--:|---|\n| 1 | one |\n")
    header = soup.find("tbody").find("th")
    assert header["scope"] == "row" and header["style"] == "text-align:right"


def test_column_labels_are_the_headers_plain_text_escaped_in_the_attribute() -> None:
    soup = _soup('| GPU | *Memory* `GB` | Price "$" & tax |\n|---|---|---|\n| H100 | 80 | 2 |\n')
    assert [td["data-label"] for td in soup.find("tbody").find_all("td")] == ["Memory GB", 'Price "$" & tax']


def test_short_rows_still_get_labels_and_long_rows_are_cut_to_the_header() -> None:
    soup = _soup("| a | b | c |\n|---|---|---|\n| 1 |\n| 1 | 2 | 3 | 4 |\n")
    short, long = soup.find("tbody").find_all("tr")
    assert short.find("th").get_text() == "1"
    assert [td["data-label"] for td in short.find_all("td")] == ["b", "c"]
    assert [td.get_text() for td in long.find_all("td")] == ["2", "3"]


def test_a_one_column_table_has_only_row_headers() -> None:
    soup = _soup("| GPU |\n|---|\n| H100 |\n| L4 |\n")
    body = soup.find("tbody")
    assert body.find("td") is None
    assert [th.get_text() for th in body.find_all("th", scope="row")] == ["H100", "L4"]


def test_a_header_only_table_still_gets_its_region_and_caption() -> None:
    soup = _soup("## Empty\n\n| a | b |\n|---|---|\n")
    table = soup.find("table")
    assert table.caption.get_text() == "Empty"
    assert table.parent["aria-labelledby"] == table.caption["id"]
    assert table.find("tbody") is None or table.tbody.find("tr") is None


def test_every_table_of_a_page_gets_its_own_caption_id_across_renders_sharing_the_page_env() -> None:
    # The page body is rendered in parts (intro, main) with one env: ids must not collide.
    md, env = _parser(), {"scroll_hint": HINT}
    html = md.render(TABLE + "\n" + TABLE, env) + md.render(TABLE, env)
    soup = BeautifulSoup(html, "html.parser")
    ids = [table.caption["id"] for table in soup.find_all("table")]
    assert len(ids) == 3 and len(set(ids)) == 3
    hint_ids = [p["id"] for p in soup.find_all("p", class_="scroll-hint")]
    assert len(set(hint_ids)) == 3 and not set(hint_ids) & set(ids)
    for table in soup.find_all("table"):
        assert table.parent["aria-labelledby"] == table.caption["id"]


def test_without_a_scroll_hint_the_region_is_labelled_but_not_described() -> None:
    soup = _soup(TABLE)
    region = soup.find("div")
    assert soup.find("p", class_="scroll-hint") is None
    assert region["aria-labelledby"] == soup.find("caption")["id"] and not region.has_attr("aria-describedby")


def test_a_table_in_a_list_item_is_wrapped_inside_the_item() -> None:
    soup = _soup("- item\n\n  " + TABLE.replace("\n", "\n  ").rstrip() + "\n")
    table = soup.find("table")
    assert table.parent.name == "div" and table.parent.parent.name == "li"


def test_cell_contents_are_escaped_text() -> None:
    soup = _soup("| a | b |\n|---|---|\n| <script>x</script> | 1 &amp; 2 |\n")
    assert soup.find("script") is None
    assert soup.find("tbody").find("th").get_text() == "<script>x</script>"
    assert soup.find("tbody").find("td").get_text() == "1 & 2"


def test_region_open_with_a_hint() -> None:
    env = {"scroll_hint": 'Faites défiler "ce" tableau <ici>'}
    soup = BeautifulSoup(region_open(env, "table-7", "table-scroll") + "</div>", "html.parser")
    hint, region = soup.find("p"), soup.find("div")
    assert hint["id"] == "table-7-hint" and hint.get_text() == 'Faites défiler "ce" tableau <ici>'
    assert region["class"] == ["table-scroll"] and region["role"] == "region" and region["tabindex"] == "0"
    assert region["aria-labelledby"] == "table-7" and region["aria-describedby"] == "table-7-hint"


@pytest.mark.parametrize("env", [{}, {"scroll_hint": ""}])
def test_region_open_without_a_hint(env: dict) -> None:
    soup = BeautifulSoup(region_open(env, "table-2") + "</div>", "html.parser")
    assert soup.find("p") is None
    region = soup.find("div")
    assert region["class"] == ["table-scroll"] and region["aria-labelledby"] == "table-2"
    assert not region.has_attr("aria-describedby")


@pytest.mark.parametrize("block", ["Just a paragraph.\n", "## A heading\n"])
def test_a_caption_line_above_something_else_than_a_table_leaves_no_attribute(block: str) -> None:
    soup = _soup('{caption="Lost"}\n' + block)
    assert soup.find(attrs={"caption": True}) is None


def test_a_caption_line_above_something_else_than_a_table_is_reported_at_its_line() -> None:
    from pathlib import Path

    from gpuguide.errors import Problems

    problems = Problems(Path("/project"))
    # The page's body starts at line 5 of its file; the caption line is the body's third line.
    _soup('Intro.\n\n{caption="Lost"}\nJust a paragraph.\n', problems=problems,
          source=Path("/project/content/en/page.md"), line=5)
    assert [(p.path, p.line) for p in problems.errors] == [("content/en/page.md", 7)]
    assert "no table follows" in problems.errors[0].message
