"""What each layout's template receives (``render.layouts``): one context function per layout, called
on the tiny site's pages. Expected links come from its content files, figures from its data files."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest
from markupsafe import Markup
from sites import tiny_project

from gpuguide.build.pipeline import Options, Site, load
from gpuguide.figures.columns import CATALOGUE_COLUMNS, build_table
from gpuguide.project import Project
from gpuguide.render.environment import Link
from gpuguide.render.layouts import (
    CATALOGUE_TABLE_COLUMNS,
    CONTEXTS,
    PageInput,
    gpu_rows,
    numeric_columns,
)
from gpuguide.render.reads import GPU_NAMES, Reads, tracked_dataset, tracked_language
from gpuguide.render.site_view import SiteView
from gpuguide.structure.layouts import LAYOUTS
from gpuguide.structure.pages import Page

NBSP = "\u00a0"
NNBSP = "\u202f"  # CLDR's French space between a number and its unit


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Site:
    """The tiny site loaded once for this file (nothing rendered)."""
    root = tiny_project(tmp_path_factory.mktemp("layouts") / "tiny")
    return load(Project(root), Options(search=False, parallel=False))


def _page(site: Site, url: str) -> Page:
    return next(page for page in site.library.published if page.url == url)


def _view(site: Site, lang: str) -> SiteView:
    return SiteView(site.languages[lang], site.languages, site.library, site.dataset)


def _given(site: Site, url: str, view: SiteView | None = None) -> PageInput:
    """A page's input as the renderer makes it: tracked views noting into the page's own reads."""
    page = _page(site, url)
    view = view or _view(site, page.lang)
    reads = Reads()
    return PageInput(page, view, tracked_dataset(site.dataset, reads), tracked_language(view.language, reads),
                     lambda text, path: f"<em>{'/'.join(path)}</em> {text}", reads)


def _context(site: Site, url: str) -> tuple[dict[str, Any], PageInput]:
    given = _given(site, url)
    return CONTEXTS[given.page.meta.layout](given), given


def _links(links: list[Link]) -> list[tuple[str, str | None]]:
    return [(link.label, link.url) for link in links]


def test_every_layout_has_a_context_function() -> None:
    assert set(CONTEXTS) == set(LAYOUTS)


def test_the_catalogue_shows_price_and_memory_first_then_every_specification() -> None:
    assert CATALOGUE_TABLE_COLUMNS[:2] == ("price", "memory")
    assert sorted(CATALOGUE_TABLE_COLUMNS) == sorted(CATALOGUE_COLUMNS)  # each once, none lost


def test_numeric_columns_are_those_with_a_figure_in_some_row(site: Site) -> None:
    language = site.languages["en"]
    columns = ["memory", "memory_type", "fp8", "ray_tracing"]
    # Pcie alone: FP8 not supported, so no figure in that column; yes/no is not a figure.
    assert numeric_columns(build_table(["pcie"], columns, site.dataset, language)) == [True, False, False, False]
    assert numeric_columns(build_table(["pcie", "big"], columns, site.dataset, language)) == [True, False, True, False]


def test_the_prices_date_is_written_in_the_pages_language(site: Site) -> None:
    # data/prices.yaml: as_of 2026-11-29.
    assert _given(site, "/fr/gpu/").prices_as_of == "29 novembre 2026"
    assert _given(site, "/en/gpus/").prices_as_of == "November 29, 2026"
    assert _given(site, "/en/").catalogue.url == "/en/gpus/"


def test_use_case_context(site: Site) -> None:
    context, given = _context(site, "/fr/entrainement/")
    page = given.page
    assert context["table"].column_ids[:3] == ("memory", "bandwidth", "fp8")
    assert [row.gpu.id for row in context["table"].rows] == ["big", "pcie", "card"]  # the front matter's order
    # chart: train_8gpu. Big and Pcie (80 GB) train 32 B parameters on 8 GPUs, Card (24 GB) 9.6 B.
    assert [bar.label for bar in context["chart"].bars] == ["Big", "Pcie", "Card"]
    (card_line,) = context["card_lines"]
    assert "(Big)" in card_line and "Entraînement complet, 8 GPU" in card_line
    assert "entraînement" in context["table_caption"] and "entraînement" in context["compare_heading"]
    # The table note goes through the page's inline Markdown, at its field's path.
    assert isinstance(context["table_note_html"], Markup)
    assert str(context["table_note_html"]) == f"<em>table_note</em> {page.meta.table_note}"
    # Every pair of the table's GPUs, in dataset order.
    assert _links(context["comparisons"]) == [("Big – Pcie", "/fr/comparer/big-vs-pcie/"),
                                              ("Big – Card", "/fr/comparer/big-vs-card/"),
                                              ("Pcie – Card", "/fr/comparer/pcie-vs-card/")]
    assert context["other_use_cases"] == []  # the tiny site has one use case: this one
    assert _links(context["model_links"]) == [("Small LLM", "/fr/modeles/small-llm/"),
                                              ("Big LLM", "/fr/modeles/big-llm/")]
    assert context["value_table"] is None and context["price_notes"] == []  # no price_performance: columns
    assert context["picker"]["base"] == "/fr/comparer/"
    assert GPU_NAMES in given.reads.keys  # the page shows the form: it depends on the GPUs' names


def test_home_context(site: Site) -> None:
    context, _ = _context(site, "/en/")
    assert _links(context["use_cases"]) == [("GPUs for training", "/en/training/")]
    assert context["comparisons_index"].url == "/en/compare/"
    assert _links(context["guides"]) == [("First guide", "/en/guides/first-guide/")]
    assert _links(_context(site, "/fr/guides/")[0]["guides"]) == [("Premier guide", "/fr/guides/premier-guide/")]


def test_catalogue_context_groups_gpus_by_segment(site: Site) -> None:
    context, given = _context(site, "/en/gpus/")
    # data/gpus.yaml: Big and Pcie are data-centre GPUs, Card a consumer one; no workstation group.
    assert [(segment, [row.gpu.id for row in table.rows]) for segment, _, table in context["groups"]] == [
        ("data-centre", ["big", "pcie"]), ("consumer", ["card"])]
    assert all(table.column_ids == CATALOGUE_TABLE_COLUMNS for _, _, table in context["groups"])
    assert "3" in context["card_lines"][0]
    assert ("gpus", "*") in given.reads.keys  # the catalogue reads every GPU


def test_gpu_context(site: Site) -> None:
    context, given = _context(site, "/fr/gpu/big/")
    assert context["gpu"].id == "big"
    assert _links(context["comparisons"]) == [("Pcie", "/fr/comparer/big-vs-pcie/"),
                                              ("Card", "/fr/comparer/big-vs-card/")]
    specs = {column_id: cell.text for _, column_id, cell in context["specs"]}
    assert specs["memory"] == f"80{NNBSP}Go" and specs["launch_year"] == "2022"
    # The use case's table, without the specifications the page already shows.
    (section,) = context["use_case_figures"]
    assert section["url"] == "/fr/entrainement/"
    assert section["table"].column_ids == ("train_1gpu", "train_8gpu", "infer_bf16_8gpu",
                                           "decode_upper_bound:small-llm:bf16", "usd_per_million_tokens:small-llm:bf16")
    assert [row.gpu.id for row in section["table"].rows] == ["big"]
    assert len(context["card_lines"]) == 3 and f"80{NNBSP}Go" in context["card_lines"][0]
    assert {("gpus", "big"), ("prices", "big")} <= given.reads.keys


def test_comparison_context(site: Site) -> None:
    context, given = _context(site, "/fr/comparer/big-vs-pcie/")
    assert (context["a"].id, context["b"].id) == ("big", "pcie")
    rows = {row.column_id: row for row in context["spec_rows"]}
    assert rows["segment"] is context["spec_rows"][0]
    # BF16 989 ÷ 312 = 3.17: Big is better.
    assert (rows["bf16"].ratio.replace(NBSP, " "), rows["bf16"].better) == ("× 3,2", 0)
    ((section, use_case_rows),) = context["use_case_rows"]
    assert section["url"] == "/fr/entrainement/"
    assert [row.column_id for row in use_case_rows][:2] == ["train_1gpu", "train_8gpu"]
    (summary,) = context["summaries"]
    assert summary["name"] == "Entraînement" and summary["url"] == "/fr/entrainement/"  # capitalised short name
    assert summary["sentences"]
    assert len(context["card_lines"]) == 2 and all(f"80{NNBSP}Go" in line for line in context["card_lines"])
    # The page depends on its two GPUs, never on the third one's record or price.
    assert {("gpus", "big"), ("gpus", "pcie"), ("prices", "big"), ("prices", "pcie")} <= given.reads.keys
    assert not {("gpus", "card"), ("prices", "card")} & given.reads.keys


def test_comparisons_context_lists_each_pair_under_both_gpus(site: Site) -> None:
    context, _ = _context(site, "/en/compare/")
    assert [(gpu.id, _links(links)) for gpu, links in context["groups"]] == [
        ("big", [("Pcie", "/en/compare/big-vs-pcie/"), ("Card", "/en/compare/big-vs-card/")]),
        ("pcie", [("Big", "/en/compare/big-vs-pcie/"), ("Card", "/en/compare/pcie-vs-card/")]),
        ("card", [("Big", "/en/compare/big-vs-card/"), ("Pcie", "/en/compare/pcie-vs-card/")]),
    ]
    assert context["pair_count"] == 3  # 3 GPUs: 3 × 2 ÷ 2 pairs
    assert "3" in context["card_lines"][0]


def test_models_and_model_contexts(site: Site) -> None:
    context, _ = _context(site, "/en/models/")
    assert [url for _, url in context["llms"]] == ["/en/models/small-llm/", "/en/models/big-llm/"]
    assert [(model.id, url) for model, url, _ in context["diffusions"]] == [("image-model", "/en/models/image-model/")]
    llm, _ = _context(site, "/en/models/big-llm/")
    assert llm["kind"] == "llm" and llm["model"].id == "big-llm"
    assert llm["models_index"].url == "/en/models/"
    assert [section.key for section in llm["presets"]] == ["chat", "team", "batch"]
    assert llm["measurements_table"] is None  # the tiny site measured small-llm only
    diffusion, _ = _context(site, "/en/models/image-model/")
    assert diffusion["kind"] == "diffusion" and diffusion["model"].id == "image-model"
    assert diffusion["documented"] == [("BF16", "18 GB")]  # data/models.yaml: memory_gb {bf16: 18}


@pytest.mark.parametrize("url", ["/fr/guides/premier-guide/", "/fr/methodologie/", "/fr/recherche/", "/fr/404/"])
def test_layouts_without_data_add_nothing(site: Site, url: str) -> None:
    context, given = _context(site, url)
    assert context == {}
    assert given.reads.keys == set()


def test_gpu_rows_are_made_once_and_their_reads_noted_on_each_page(site: Site) -> None:
    view = _view(site, "en")
    columns = ["memory", "price"]
    first, second = _given(site, "/en/compare/big-vs-pcie/", view), _given(site, "/en/compare/pcie-vs-card/", view)
    table = gpu_rows(["big", "pcie"], columns, first)
    again = gpu_rows(["pcie", "card"], columns, second)
    assert again.rows[0] is table.rows[1]  # Pcie's row is reused, not made again
    # The second page still depends on Pcie's record and price, though it did not make the row.
    assert {("gpus", "pcie"), ("prices", "pcie"), ("gpus", "card"), ("prices", "card")} <= second.reads.keys
    assert ("gpus", "big") not in second.reads.keys
    # The same cells as a table made directly.
    direct = build_table(["pcie", "card"], columns, site.dataset, site.languages["en"])
    assert again.headers == direct.headers and again.column_ids == direct.column_ids
    assert [[cell.text for cell in row.cells] for row in again.rows] == [
        [cell.text for cell in row.cells] for row in direct.rows]
    assert again.rows[1].cells[1].number == Fraction(1, 2)  # Card: 0.5 $/h in data/prices.yaml
