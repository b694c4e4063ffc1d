"""The criteria a comparison page's bottom lines weigh (``verdicts``): the role each column plays
(``role``: a requirement, a capacity, a speed or a cost) and how two GPUs' cells of one criterion
compare, as the page prints them (``standing``).
"""

from __future__ import annotations

from dataclasses import dataclass

from gpuguide.figures import formatting, serving, spec_figures
from gpuguide.figures.columns import Column
from gpuguide.figures.page_tables import Cell

#: The columns that say what fits on a GPU: its memory, the largest model it trains or serves.
CAPACITY_COLUMNS = frozenset({"memory", "train_1gpu", "train_8gpu", "lora_1gpu", "qlora_1gpu",
                              *(f"infer_{precision}_{count}gpu" for precision in serving.SERVING_FORMATS
                                for count in (1, 8))})

REQUIREMENT, CAPACITY, SPEED, COST = "requirement", "capacity", "speed", "cost"


def role(column: Column, cells: tuple[Cell, Cell]) -> str | None:
    """What a criterion decides: ``requirement``, ``capacity``, ``speed`` or ``cost``; None for a
    column with no better side (a launch year, a segment)."""
    if column.higher_is_better is None or not column.comparable:
        return None
    if any(isinstance(cell.value, bool) for cell in cells):
        return REQUIREMENT
    if column.higher_is_better is False:
        return COST
    return CAPACITY if column.id in CAPACITY_COLUMNS else SPEED


@dataclass(frozen=True)
class Standing:
    """How two GPUs' cells of one criterion compare, as the page prints them."""

    column: Column
    cells: tuple[Cell, Cell]
    known: bool  # both cells hold a figure (or a yes/no)
    better: int | None  # 0 or 1: that GPU's figure is the better; None: a tie (or not known)

    def text(self, index: int) -> str:
        return self.cells[index].text


def standing(column: Column, a: Cell, b: Cell, locale: str) -> Standing:
    """Which of two cells is better: a yes beats a no; for figures, the ratio of the figures as
    printed, equal texts or a ratio within a thousandth of 1 being a tie."""
    if isinstance(a.value, bool) and isinstance(b.value, bool):
        return Standing(column, (a, b), True, None if a.value == b.value else (0 if a.value else 1))
    if a.number is None or b.number is None:
        return Standing(column, (a, b), False, None)
    ratio = spec_figures.spec_ratio(column.shown(a.number), column.shown(b.number))
    if ratio is None or ratio == 1 or a.text == b.text or formatting.ratio(float(ratio), locale).startswith("≈"):
        return Standing(column, (a, b), True, None)
    return Standing(column, (a, b), True, 0 if (ratio > 1) == bool(column.higher_is_better) else 1)
