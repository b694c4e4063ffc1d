"""The summary that opens a comparison page: for each use case, one sentence per criterion that
matters to it, saying which GPU comes out ahead and by how much, or that they are the same.

A use-case page names its criteria (``verdict:`` in its front matter, column ids). Each sentence
is a UI-string template filled with the two cells of that column (``build_table``), so the
figures are the tables' own and the ratio is of the exact values. GPUs are named in parentheses
after their figure, which reads the same in every language (no article to agree: "de la A100").
"""

from __future__ import annotations

from fractions import Fraction

from gpuguide.figures import formatting, sizing
from gpuguide.figures.columns import Cell, Column, Table
from gpuguide.structure.language import Language

#: Below this ratio the difference is given in per cent ("25 % more"); from it, as a multiple ("2.5 times").
MULTIPLE_FROM = Fraction(2)


def criterion(column: Column, language: Language) -> str:
    """What the sentence is about: ``verdict_<column>`` when the UI strings word it, else the column's header."""
    key = f"verdict_{column.id}"
    return language.ui(key) if key in language.strings else column.header(language)


def _difference(high: Fraction, low: Fraction, higher_is_better: bool, language: Language) -> str:
    """``25 % de plus`` / ``2,5 fois plus`` for a larger figure; ``27 % de moins`` for a lower price."""
    locale = language.locale
    if not higher_is_better:
        return language.ui("verdict_less", percent=_per_cent(1 - low / high, locale))
    ratio = high / low
    if ratio >= MULTIPLE_FROM:
        return language.ui("verdict_times", ratio=formatting.ratio(float(ratio), locale))
    return language.ui("verdict_more", percent=_per_cent(ratio - 1, locale))


def _per_cent(share: Fraction, locale: str) -> str:
    """Whole per cent, or one decimal under 1 %: a lead is never "0 % more" (a difference within a
    thousandth reads "nearly the same" before it gets here)."""
    return formatting.percent(float(share), locale, 1 if share < Fraction(1, 100) else 0)


def sentence(column: Column, first: tuple[str, Cell], second: tuple[str, Cell], language: Language) -> str | None:
    """One criterion for two GPUs (name, cell), or None when neither has the figure."""
    ui, label = language.ui, criterion(column, language)
    (name_a, a), (name_b, b) = first, second
    if a.state != "value" and b.state != "value":
        return None
    if isinstance(a.value, bool) and isinstance(b.value, bool):
        if a.value == b.value:
            return ui("verdict_both" if a.value else "verdict_neither", criterion=label)
        return ui("verdict_only", criterion=label, gpu=name_a if a.value else name_b)
    # The ratio of the figures the sentence prints, not of the exact values behind them: "≈ 30B against
    # ≈ 15B" reads "2 times", whatever the unrounded capacities were.
    shown_a = column.shown(a.number) if a.number is not None else None
    shown_b = column.shown(b.number) if b.number is not None else None
    ratio = sizing.spec_ratio(shown_a, shown_b) if column.comparable else None
    if ratio is None or column.higher_is_better is None:
        return ui("verdict_each", criterion=label, a=name_a, value_a=a.text, b=name_b, value_b=b.text)
    if ratio == 1 or a.text == b.text or formatting.ratio(float(ratio), language.locale).startswith("≈"):
        key = "verdict_same" if sizing.spec_ratio(a.number, b.number) == 1 else "verdict_nearly_same"
        return ui(key, criterion=label, value=a.text, a=name_a, value_a=a.text, b=name_b, value_b=b.text)
    a_is_higher = ratio > 1
    a_wins = a_is_higher == column.higher_is_better
    (winner, win_cell), (loser, lose_cell) = (first, second) if a_wins else (second, first)
    high, low = (shown_a, shown_b) if a_is_higher else (shown_b, shown_a)
    assert high is not None and low is not None
    return ui("verdict_ahead", criterion=label, winner=winner, winner_value=win_cell.text, loser=loser,
              loser_value=lose_cell.text, difference=_difference(high, low, column.higher_is_better, language))


def summary(table: Table, language: Language) -> list[str]:
    """The sentences for a two-GPU table whose columns are one use case's criteria."""
    first, second = table.rows
    sentences = []
    for index, column in enumerate(table.columns):
        text = sentence(column, (first.gpu.model, first.cells[index]), (second.gpu.model, second.cells[index]), language)
        if text is not None:
            sentences.append(text)
    return sentences
