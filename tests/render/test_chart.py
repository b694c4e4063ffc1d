"""The bar chart of a use-case page (``render.chart.bar_chart``) against the tiny site's dataset:
which GPUs get a bar and in which order, the bars' widths, the labels' figures and prices, and the
text alternative that names the GPUs left out."""

from __future__ import annotations

import pytest
from sites import tiny_project

from gpuguide.build.pipeline import Options, Site, load
from gpuguide.figures.columns import COLUMNS
from gpuguide.figures.page_tables import Cell, Row, Table, build_table
from gpuguide.project import Project
from gpuguide.render.chart import CHART_BAR_WIDTH, CHART_ROW_HEIGHT, bar_chart

GPUS = ["big", "pcie", "card"]  # the tiny site's GPUs, in dataset order


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Site:
    """The tiny site loaded once for this file (nothing rendered)."""
    root = tiny_project(tmp_path_factory.mktemp("chart") / "tiny")
    return load(Project(root), Options(search=False, parallel=False))


def _chart(site: Site, column: str, lang: str = "fr", gpus: list[str] = GPUS):
    language = site.languages[lang]
    table = build_table(gpus, ["memory", column, "price"], site.dataset, language)
    return bar_chart(table, column, site.dataset, language), table


def test_bars_run_longest_first_and_scale_to_the_longest(site: Site) -> None:
    chart, _ = _chart(site, "train_8gpu")
    # Full training, 8 GPUs: memory × 10⁹ × 80 % × 8 ÷ 16 bytes: 80 GB → 32 B, 24 GB → 9.6 B.
    assert [bar.label for bar in chart.bars] == ["Big", "Pcie", "Card"]  # the tie keeps the table's order
    assert [bar.value for bar in chart.bars] == [32e9, 32e9, 9.6e9]
    assert [bar.width for bar in chart.bars] == [CHART_BAR_WIDTH, CHART_BAR_WIDTH, 87.0]  # 290 × 9.6 ÷ 32
    assert [bar.y for bar in chart.bars] == [0, CHART_ROW_HEIGHT, 2 * CHART_ROW_HEIGHT]
    assert chart.height == 3 * CHART_ROW_HEIGHT
    assert chart.missing == ""


def test_a_bar_shows_the_cells_text_and_the_gpus_hourly_price(site: Site) -> None:
    chart, table = _chart(site, "train_8gpu", "en")
    column = table.column_ids.index("train_8gpu")
    cells = {row.gpu.model: row.cells[column].text for row in table.rows}
    assert {bar.label: bar.text for bar in chart.bars} == cells  # the figure is the table's, not re-rounded
    # data/prices.yaml: Big 2.88 $/h, Card 0.5 $/h, Pcie without an offer.
    assert {bar.label: bar.price for bar in chart.bars} == {"Big": "$2.88/h", "Card": "$0.50/h", "Pcie": "No offer"}


def test_prices_are_formatted_for_the_locale(site: Site) -> None:
    chart, _ = _chart(site, "train_8gpu", "fr")
    prices = {bar.label: bar.price for bar in chart.bars}
    # French: decimal comma, the currency after the number (CLDR: "2,88 $US"), no offer in French.
    assert prices["Big"].replace("\u00a0", " ") == "2,88 $US/h"
    assert prices["Card"].replace("\u00a0", " ") == "0,50 $US/h"
    assert prices["Pcie"] == "Aucune offre"


def test_a_gpu_without_the_figure_is_left_out_and_named(site: Site) -> None:
    chart, _ = _chart(site, "fp8", "en")
    # Pcie's FP8 is "not supported": no bar, named in the sentence under the chart.
    assert [bar.label for bar in chart.bars] == ["Big", "Card"]
    assert chart.bars[1].width == round(CHART_BAR_WIDTH * 330.3 / 1979, 1)
    assert chart.height == 2 * CHART_ROW_HEIGHT
    assert chart.missing == "Not published for: Pcie"
    assert chart.description.endswith(". " + chart.missing)


def test_the_text_alternative_names_every_bar_in_order(site: Site) -> None:
    chart, _ = _chart(site, "train_8gpu", "en")
    parts = chart.description.split("; ")
    assert len(parts) == 3
    for part, bar in zip(parts, chart.bars):
        assert part.startswith(f"{bar.label}: ") and bar.text in part and bar.price in part


def test_the_title_names_the_columns_header(site: Site) -> None:
    chart, table = _chart(site, "train_8gpu", "en")
    header = table.headers[table.column_ids.index("train_8gpu")]
    assert header == "Full training, 8 GPUs"
    assert header in chart.title and chart.title.startswith("Chart:")


def test_zero_and_non_numeric_values_get_no_bar(site: Site) -> None:
    big, pcie, card = (site.dataset.gpus[gpu_id] for gpu_id in GPUS)
    column = COLUMNS["bandwidth"]
    # A bar of length 0 would say nothing: a zero is left out like a missing figure.
    table = Table(("Bandwidth",), ("bandwidth",),
                  (Row(big, (Cell("100", 100),)), Row(pcie, (Cell("0", 0),)), Row(card, (Cell("n/a", None),))),
                  (column,))
    chart = bar_chart(table, "bandwidth", site.dataset, site.languages["en"])
    assert [bar.label for bar in chart.bars] == ["Big"]
    assert chart.bars[0].width == CHART_BAR_WIDTH
    assert chart.missing == "Not published for: Pcie, Card"


def test_a_chart_without_bars_keeps_one_rows_height(site: Site) -> None:
    chart, _ = _chart(site, "fp8", "en", gpus=["pcie"])
    assert chart.bars == ()
    assert chart.height == CHART_ROW_HEIGHT  # never a zero-height drawing
    assert chart.missing == "Not published for: Pcie"


def test_a_chart_without_bars_describes_only_what_is_missing(site: Site) -> None:
    chart, _ = _chart(site, "fp8", "en", gpus=["pcie"])
    assert chart.description == chart.missing

