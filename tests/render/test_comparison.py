"""The two-GPU comparison table (``render.comparison.side_by_side``): which side is better on each
row, the ratio of the exact values (never of the rounded figures), and the ratio formatted for the
page's locale. Expected ratios are recomputed from the tiny site's data/gpus.yaml and prices.yaml."""

from __future__ import annotations

from fractions import Fraction

import pytest
from sites import tiny_project

from gpuguide.build.pipeline import Options, Site, load
from gpuguide.figures.columns import COLUMNS
from gpuguide.figures.page_tables import Cell, Row, Table, build_table
from gpuguide.project import Project
from gpuguide.render.comparison import ComparisonRow, side_by_side

COLUMN_IDS = ["memory", "bandwidth", "bf16", "fp8", "price", "ray_tracing", "launch_year", "memory_type",
              "train_1gpu", "segment"]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Site:
    """The tiny site loaded once for this file (nothing rendered)."""
    root = tiny_project(tmp_path_factory.mktemp("comparison") / "tiny")
    return load(Project(root), Options(search=False, parallel=False))


def _rows(site: Site, a: str, b: str, lang: str = "fr") -> dict[str, ComparisonRow]:
    language = site.languages[lang]
    table = build_table([a, b], COLUMN_IDS, site.dataset, language)
    return {row.column_id: row for row in side_by_side(table, language)}


def _nbsp(text: str) -> str:
    return text.replace("\u00a0", " ").replace("\u202f", " ")


def test_one_row_per_column_with_both_cells_in_order(site: Site) -> None:
    language = site.languages["en"]
    table = build_table(["big", "pcie"], COLUMN_IDS, site.dataset, language)
    rows = side_by_side(table, language)
    assert [row.column_id for row in rows] == COLUMN_IDS
    assert [row.label for row in rows] == list(table.headers)
    assert all(row.first is table.rows[0].cells[i] and row.second is table.rows[1].cells[i]
               for i, row in enumerate(rows))


def test_the_higher_figure_is_better_and_its_ratio_is_shown(site: Site) -> None:
    rows = _rows(site, "big", "pcie", "en")
    # Bandwidth 3350 ÷ 1935 = 1.731…; BF16 989 ÷ 312 = 3.169…: one decimal.
    assert (rows["bandwidth"].ratio, rows["bandwidth"].better) == ("× 1.7", 0)
    assert (rows["bf16"].ratio, rows["bf16"].better) == ("× 3.2", 0)
    # Swapped, the same figures favour the second column, and the ratio is inverted (1935 ÷ 3350 = 0.58).
    swapped = _rows(site, "pcie", "big", "en")
    assert (swapped["bandwidth"].ratio, swapped["bandwidth"].better) == ("× 0.6", 1)


def test_a_lower_price_is_better(site: Site) -> None:
    rows = _rows(site, "big", "card", "en")
    # 2.88 ÷ 0.50 = 5.76: Big costs more, so the second GPU (Card) is the better one.
    assert rows["price"].ratio == "× 5.8"
    assert rows["price"].better == 1


def test_equal_figures_are_the_same_and_neither_is_better(site: Site) -> None:
    fr, en = _rows(site, "big", "pcie", "fr"), _rows(site, "big", "pcie", "en")
    # Both have 80 GB; both train about 4 B parameters on one GPU.
    assert (fr["memory"].ratio, fr["memory"].better) == ("identique", None)
    assert (en["memory"].ratio, en["memory"].better) == ("same", None)
    assert (en["train_1gpu"].ratio, en["train_1gpu"].better) == ("same", None)


def test_the_ratio_is_of_exact_values_not_of_rounded_figures(site: Site) -> None:
    rows = _rows(site, "big", "card", "en")
    row = rows["train_1gpu"]
    # The cells show the rounded "≈ 4B" and "≈ 1B" (ratio 4), but the capacities are
    # 80 × 0.8 ÷ 16 = 4 B and 24 × 0.8 ÷ 16 = 1.2 B parameters: 4 ÷ 1.2 = 3.33…
    assert (row.first.text, row.second.text) == ("≈\u00a04B", "≈\u00a01B")
    assert row.first.number / row.second.number == Fraction(10, 3)
    assert row.ratio == "× 3.3"
    assert row.better == 0


def test_ratios_follow_the_locale(site: Site) -> None:
    fr, en = _rows(site, "big", "pcie", "fr"), _rows(site, "big", "pcie", "en")
    assert _nbsp(fr["bandwidth"].ratio) == "× 1,7"  # decimal comma in French
    assert _nbsp(en["bandwidth"].ratio) == "× 1.7"
    # The cells themselves come in the page's language.
    assert _nbsp(fr["bandwidth"].first.text) == "3 350 Go/s"
    assert en["bandwidth"].first.text == "3,350 GB/s"


def test_a_missing_figure_has_no_ratio_and_no_winner(site: Site) -> None:
    rows = _rows(site, "big", "pcie", "en")
    # Pcie: FP8 not supported, no price offer.
    assert (rows["fp8"].ratio, rows["fp8"].better) == ("", None)
    assert rows["fp8"].second.text == "Not supported"
    assert (rows["price"].ratio, rows["price"].better) == ("", None)
    assert rows["price"].second.text == "No offer"


def test_yes_beats_no_on_a_yes_no_row(site: Site) -> None:
    assert (_rows(site, "big", "card", "en")["ray_tracing"].better) == 1  # only Card has RT cores
    assert (_rows(site, "card", "big", "en")["ray_tracing"].better) == 0
    row = _rows(site, "big", "pcie", "en")["ray_tracing"]
    assert (row.ratio, row.better) == ("", None)  # both "No"


def test_rows_that_are_not_comparable_have_neither_ratio_nor_winner(site: Site) -> None:
    rows = _rows(site, "big", "pcie", "en")
    # Launch years 2022 and 2021: numbers, but their ratio means nothing.
    assert (rows["launch_year"].ratio, rows["launch_year"].better) == ("", None)
    # Text rows (HBM3 vs HBM2e, the segment) neither.
    assert (rows["memory_type"].ratio, rows["memory_type"].better) == ("", None)
    assert (rows["segment"].ratio, rows["segment"].better) == ("", None)


def _pair(site: Site, column_id: str, first: object, second: object) -> ComparisonRow:
    """A one-row comparison of synthetic values (the tiny site has no such pair)."""
    big, pcie = site.dataset.gpus["big"], site.dataset.gpus["pcie"]
    table = Table(("X",), (column_id,), (Row(big, (Cell("a", first),)), Row(pcie, (Cell("b", second),))),
                  (COLUMNS[column_id],))
    return side_by_side(table, site.languages["en"])[0]


def test_a_ratio_close_to_one_gets_more_decimals(site: Site) -> None:
    # 1.02 with one decimal would read "1.0": the ratio shows a second decimal.
    row = _pair(site, "bandwidth", 1020, 1000)
    assert (row.ratio, row.better) == ("× 1.02", 0)


def test_a_ratio_within_a_thousandth_of_one_is_nearly_the_same(site: Site) -> None:
    row = _pair(site, "bandwidth", 10004, 10000)  # 1.0004
    assert row.ratio == "nearly the same"
    assert row.better == 0  # the values still differ: the higher is marked


def test_a_zero_second_figure_gives_no_ratio(site: Site) -> None:
    row = _pair(site, "bandwidth", 100, 0)
    assert (row.ratio, row.better) == ("", None)


def test_a_column_with_no_better_direction_marks_no_winner(site: Site) -> None:
    row = _pair(site, "tdp", 700, 350)  # a higher TDP is neither better nor worse
    assert row.ratio == "× 2"
    assert row.better is None
