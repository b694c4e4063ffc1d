"""A two-GPU comparison: both GPUs' cells side by side, their ratio from exact values, the better one
marked (printed by ``block_table.side_by_side_table``)."""

from __future__ import annotations

from dataclasses import dataclass

from gpuguide.figures import formatting, spec_figures
from gpuguide.figures.page_tables import Cell, Table
from gpuguide.structure.language import Language


@dataclass(frozen=True)
class ComparisonRow:
    """One criterion of a two-GPU comparison: both cells, their ratio and which is better."""

    label: str
    column_id: str
    first: Cell
    second: Cell
    ratio: str  # "× 2,5", "identique", or "" when either figure is missing or not a number
    better: int | None  # 0: the first GPU's value is better, 1: the second's, None: equal or not comparable


def side_by_side(table: Table, language: Language) -> list[ComparisonRow]:
    """The rows of a two-GPU table, with ratios of the EXACT values (never of rounded figures).

    A ratio needs two published numbers: a figure "not published" or "not supported" has none.
    """
    first, second = table.rows
    rows = []
    for index, (header, column) in enumerate(zip(table.headers, table.columns)):
        cell_a, cell_b = first.cells[index], second.cells[index]
        ratio, better = "", None
        value = spec_figures.spec_ratio(cell_a.number, cell_b.number) if column.comparable else None
        if value is not None:
            shown = formatting.ratio(float(value), language.locale)
            ratio = (language.ui("ratio_same") if value == 1 else language.ui("ratio_nearly_same")
                     if shown.startswith("≈") else language.ui("ratio", value=shown))
            if value != 1 and column.higher_is_better is not None:
                better = 0 if (value > 1) == column.higher_is_better else 1
        elif column.higher_is_better is True and isinstance(cell_a.value, bool) and isinstance(cell_b.value, bool):
            better = None if cell_a.value == cell_b.value else (0 if cell_a.value else 1)
        rows.append(ComparisonRow(header, column.id, cell_a, cell_b, ratio, better))
    return rows
