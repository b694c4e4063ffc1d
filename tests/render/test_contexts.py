"""What each layout's template receives (``render.contexts``): one context function per layout, called
on the tiny site's pages. Expected links come from its content files, figures from its data files."""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from typing import Any

import pytest
import yaml
from bs4 import BeautifulSoup
from markupsafe import Markup
from sites import build, tiny_project

from gpuguide.build.pipeline import Options, Site, load
from gpuguide.figures.columns import CATALOGUE_COLUMNS
from gpuguide.figures.page_tables import build_table
from gpuguide.project import Project
from gpuguide.render.contexts import CONTEXTS
from gpuguide.render.environment import Link
from gpuguide.render.gpu_contexts import CATALOGUE_TABLE_COLUMNS
from gpuguide.render.page_input import PageInput, gpu_rows, numeric_columns
from gpuguide.render.reads import Reads, tracked_dataset, tracked_language
from gpuguide.render.site_view import PICKER_OPTIONS
from gpuguide.render.site_view import SiteView
from gpuguide.structure.page_types import LAYOUTS
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


def _selected(picker: dict[str, Any]) -> list[str]:
    """The GPU the "compare two GPUs" form has chosen in each of its two lists."""
    return list(picker["chosen"])


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
    # The pairs buyers weigh among the table's GPUs, each GPU with its closest alternative: Big and
    # Pcie (80 GB each); Card (24 GB) has less than a third of their memory, so no pair of its own.
    assert _links(context["comparisons"]) == [("Big – Pcie", "/fr/comparer/big-vs-pcie/")]
    assert context["other_use_cases"] == []  # the tiny site has one use case: this one
    assert _links(context["model_links"]) == [("Small LLM", "/fr/modeles/small-llm/"),
                                              ("Big LLM", "/fr/modeles/big-llm/")]
    assert context["value_table"] is None and context["price_notes"] == []  # no price_performance: columns
    assert context["picker"]["base"] == "/fr/comparer/"
    assert _selected(context["picker"]) == ["big", "pcie"]  # the form opens on the page's closest pair
    assert context["picker"]["options"] == "/" + PICKER_OPTIONS  # its lists: the site's one file


def test_home_context(site: Site) -> None:
    context, given = _context(site, "/en/")
    assert _links(context["use_cases"]) == [("GPUs for training", "/en/training/")]
    assert context["comparisons_index"].url == "/en/compare/"
    assert context["models_index"].url == "/en/models/"
    assert _links(context["guides"]) == [("First guide", "/en/guides/first-guide/")]
    assert _links(_context(site, "/fr/guides/")[0]["guides"]) == [("Premier guide", "/fr/guides/premier-guide/")]
    # data/prices.yaml: Card 0.50 $/h, Big 2.88 $/h, Pcie no offer. The training page's table lists
    # all three: its card names the cheapest one with an offer; the offers table lists the priced
    # GPUs, cheapest first.
    assert context["use_case_cheapest"] == {"/en/training/": "Cheapest suitable GPU: Card, from $0.50/h"}
    offers = context["offers"]
    assert [row.gpu.id for row in offers.rows] == ["card", "big"]
    assert offers.column_ids == ("price", "memory")
    assert [row.cells[0].text for row in offers.rows] == ["from $0.50", "from $2.88"]
    assert {("prices", "card"), ("prices", "big"), ("prices", "pcie")} <= given.reads.keys  # a new offer changes it
    french, _ = _context(site, "/fr/")
    assert french["use_case_cheapest"] == {"/fr/entrainement/": f"GPU adapté le moins cher{NBSP}: Card, dès 0,50{NBSP}$US/h"}


def test_every_layout_gets_the_market_state(site: Site) -> None:
    """data/site.yaml's ``market`` (pre-launch by default): the call to action and the price notes follow it."""
    for url in ("/en/", "/fr/entrainement/", "/fr/guides/premier-guide/", "/en/gpus/", "/en/models/big-llm/"):
        assert _context(site, url)[0]["market"] == "pre-launch"
    opened = dataclasses.replace(site.dataset, config=site.dataset.config.model_copy(update={"market": "open"}))
    given = _given(site, "/en/")
    given = dataclasses.replace(given, dataset=tracked_dataset(opened, given.reads))
    assert CONTEXTS["home"](given)["market"] == "open"


@pytest.mark.parametrize("market", ["pre-launch", "open"])
def test_the_call_to_action_and_the_price_note_follow_the_market(tmp_path, market: str) -> None:
    """One call to action (signing up, worded for the market's state) and the providers' line; the
    price note says, before the launch only, that the offers can be rented from launch day."""
    root = tiny_project(tmp_path / "tiny")
    settings = root / "data" / "site.yaml"
    settings.write_text(settings.read_text(encoding="utf-8") + f"market: {market}\n", encoding="utf-8")
    build(root)
    ui = yaml.safe_load((root / "data" / "ui" / "fr.yaml").read_text(encoding="utf-8"))["strings"]
    for page in ("fr/index.html", "fr/entrainement/index.html"):
        soup = BeautifulSoup((root / "site" / page).read_text(encoding="utf-8"), "lxml")
        boxes = soup.select("section.call-to-action")
        assert len(boxes) == 1 and len(soup.select("main a.button")) == 1
        state = "launch" if market == "pre-launch" else "open"
        assert boxes[0].h2.get_text() == ui[f"{state}_title"]
        assert boxes[0].select_one("a.button").get_text() == ui[f"{state}_action"]
        assert boxes[0].select_one("a.button")["href"] == "https://tiny.example.com/fr/inscription"
        providers = soup.select_one(".call-to-action.providers")
        assert providers.select_one("a")["href"] == "https://tiny.example.com/fr/fournisseurs"
        assert providers.select(".button") == []
        notes = " ".join(note.get_text() for note in soup.select(".table-note"))
        assert notes and ("lancement" in notes) == (market == "pre-launch")


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
    # Only the pairs buyers weigh: Card has less than a third of Big's memory (24 GB against 80).
    assert _links(context["comparisons"]) == [("Pcie", "/fr/comparer/big-vs-pcie/")]
    assert _selected(context["picker"]) == ["big", "pcie"]  # this GPU and its closest alternative
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
    # The use case's own columns but the specifications (its criteria are all among them or there).
    assert [row.column_id for row in use_case_rows] == [
        "train_1gpu", "train_8gpu", "infer_bf16_8gpu", "decode_upper_bound:small-llm:bf16",
        "usd_per_million_tokens:small-llm:bf16"]
    (summary,) = context["summaries"]
    assert summary["name"] == "Entraînement" and summary["url"] == "/fr/entrainement/"  # capitalised short name
    # Pcie has no offer: the page says so once, then Big wins on speed (3,350 GB/s against 1,935),
    # both training ≈ 30 B parameters on 8 GPUs.
    assert "Seule la Big est proposée" in str(context["offer_note"])
    line = summary["line"]
    assert (line.verdict, line.pick) == ("offered-faster", "big")
    # The criteria that decided (no cost: Pcie has no price per PFLOP-hour without an offer).
    assert line.criteria == {"capacity": "train_8gpu", "speed": "bandwidth"}
    assert given.page.indexable is True and context.get("redirect") is None
    assert _selected(context["picker"]) == ["big", "pcie"]
    assert len(context["card_lines"]) == 2 and all(f"80{NNBSP}Go" in line for line in context["card_lines"])
    # The page depends on its two GPUs, never on the third one's record or price.
    assert {("gpus", "big"), ("gpus", "pcie"), ("prices", "big"), ("prices", "pcie")} <= given.reads.keys
    assert not {("gpus", "card"), ("prices", "card")} & given.reads.keys


def test_a_pair_buyers_do_not_weigh_is_not_indexed(site: Site) -> None:
    context, given = _context(site, "/fr/comparer/big-vs-card/")  # 80 GB against 24 GB: over 3 times
    assert given.page.indexable is False and context["summaries"]


def test_the_other_order_of_a_pair_redirects_to_its_page(site: Site) -> None:
    context, given = _context(site, "/en/compare/pcie-vs-big/")
    assert context["redirect"] == "/en/compare/big-vs-pcie/"
    assert context["canonical"] == "https://tiny.example.com/en/compare/big-vs-pcie/"
    assert context["indexable"] is False and context["hreflang"] == []  # the redirect's own context says so
    # No sharing card of its own: its HTML names none (``test_sharing_cards``).
    assert "card_lines" not in context


def test_comparisons_context_lists_each_weighed_pair_under_both_gpus(site: Site) -> None:
    context, _ = _context(site, "/en/compare/")
    # Card has less than a third of the others' memory: its pairs are reached from the form only.
    assert [(gpu.id, _links(links)) for gpu, links in context["groups"]] == [
        ("big", [("Pcie", "/en/compare/big-vs-pcie/")]),
        ("pcie", [("Big", "/en/compare/big-vs-pcie/")]),
    ]
    assert context["pair_count"] == 1 and context["memory_factor"] == "3"
    assert "1" in context["card_lines"][0]


def test_models_and_model_contexts(site: Site) -> None:
    context, given = _context(site, "/en/models/")
    # By size group (8B: up to 10B; 671B: over 100B), each group's models smallest first.
    assert [(group.key, [url for _, url in rows]) for group, rows in context["llm_groups"]] == [
        ("up-to-10b", ["/en/models/small-llm/"]), ("over-100b", ["/en/models/big-llm/"])]
    assert [(model.id, url, estimated) for model, url, _, estimated in context["diffusions"]] == [
        ("image-model", "/en/models/image-model/", False)]
    assert ("llm_models", "*") in given.reads.keys  # the index reads every model
    llm, given = _context(site, "/en/models/big-llm/")
    assert llm["kind"] == "llm" and llm["model"].id == "big-llm"
    assert llm["models_index"].url == "/en/models/"
    assert [section.key for section in llm["presets"]] == ["chat", "team", "batch"]
    assert llm["measurements_table"] is None  # the tiny site measured small-llm only
    assert llm["summary"][0][0].startswith("Big LLM, published by Test, is a mixture of experts")
    assert llm["relatives"] == []  # no family, no other model of its layers and KV cache
    assert ("llm_models", "*") in given.reads.keys  # related models are looked for among all of them
    diffusion, _ = _context(site, "/en/models/image-model/")
    assert diffusion["kind"] == "diffusion" and diffusion["model"].id == "image-model"
    # data/models.yaml: memory_gb {bf16: 18}, documented: no estimate.
    assert diffusion["facts"] == [("Publisher", "Test"), ("GPU memory, BF16", "18 GB")]
    assert not diffusion["estimated"] and diffusion["estimate_note"] is None
    assert diffusion["cheapest"] == [("card", "In BF16, the cheapest GPU to rent with the memory its publisher "
                                               "documents: Card, at $0.50/h.")]


@pytest.mark.parametrize("url", ["/fr/guides/premier-guide/", "/fr/methodologie/", "/fr/recherche/", "/fr/404/"])
def test_layouts_without_data_add_nothing(site: Site, url: str) -> None:
    context, given = _context(site, url)
    assert context == {"market": "pre-launch"}  # every layout's: the market's state (data/site.yaml)
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
