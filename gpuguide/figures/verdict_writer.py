"""The wording of a comparison page's bottom lines (``verdicts``): ``Writer`` fills their UI strings,
one clause per comparison, and remembers what the page stated so far.

The figures are the cells the page's tables print, and a difference is that of the figures as
printed ("≈ 30B against ≈ 15B" is "2 times", whatever the unrounded capacities were); a bottom line
prints each figure once. A page states each comparison once: a clause an earlier use case of the
page stated already (the same price per GB-hour for fine-tuning and for inference) takes its
wording without figures ("again costs less per GB of memory"), and a verdict an earlier use case
reached for the same GPU opens with "again". Figures are wrapped in ``<span class="figure">``, with
the role of the criterion they are about.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from markupsafe import Markup, escape

from gpuguide.figures import formatting
from gpuguide.figures.columns import Column
from gpuguide.figures.page_tables import Cell
from gpuguide.figures.verdict_criteria import CAPACITY, COST, SPEED, Standing, role
from gpuguide.structure.language import Language, UnknownPlaceholder

#: From this ratio a speed lead is a multiple ("2.3 times the BF16 throughput"); below it, a percentage.
MULTIPLE_FROM = Fraction(2)


def _shown(cell: Cell, column: Column) -> Fraction:
    assert cell.number is not None
    return column.shown(cell.number)


class Writer:
    """Fills the bottom lines' UI strings of one page, remembering what the page stated so far."""

    def __init__(self, language: Language, names: tuple[str, str]):
        self.language = language
        self.names = names
        self.stated: set[tuple[str, ...]] = set()  # the comparisons stated so far on the page

    def fill(self, key: str, **values: Any) -> Markup:
        """A UI string with its placeholders filled: Markup values as they are, text escaped."""
        template = Markup(escape(self.language.ui(key)))
        try:
            return template.format_map(values)
        except KeyError as exc:
            raise UnknownPlaceholder(self.language.code, key, str(exc.args[0]), sorted(values)) from None

    def fresh(self, *statement: str) -> bool:
        """Whether the page has not stated this yet (a criterion, its figures): from now on it has."""
        if statement in self.stated:
            return False
        self.stated.add(statement)
        return True

    def verdict(self, key: str, verdict: str, chosen: int, **values: Any) -> Markup:
        """A verdict's sentence: ``key``, or ``key_again`` when an earlier use case of the page
        reached the same verdict for the same GPU (``chosen``): "The H200 again: …"."""
        again = not self.fresh("verdict", verdict, self.names[chosen])
        return self.fill(f"{key}_again" if again else key, **values)

    @staticmethod
    def figure(text: str, criterion: str) -> Markup:
        """A figure, marked with the role of the criterion it is about (``capacity``, ``speed``,
        ``cost``; ``price`` for an offer): tests read it back against the page's tables."""
        return Markup('<span class="figure" data-criterion="{}">{}</span>').format(criterion, text)

    def gpu(self, index: int) -> str:
        return self.names[index]

    # --- clauses --------------------------------------------------------------------------------

    def holds(self, cap: Standing, winner: int) -> Markup:
        """``trains models of up to ≈ 55B on 8 GPUs, against ≈ 30B`` (the winner's figure first)."""
        value, other = cap.text(winner), cap.text(1 - winner)
        if not self.fresh(CAPACITY, cap.column.id, value, other):
            again = f"bottom_holds_again_{cap.column.id}"
            return self.fill(again if again in self.language.strings else "bottom_holds_again")
        return self.fill(f"bottom_holds_{cap.column.id}", value=self.figure(value, CAPACITY),
                         other_value=self.figure(other, CAPACITY))

    def job_range(self, cap: Standing, big: int) -> Markup:
        """``to train models beyond ≈ 30B, up to ≈ 55B on 8 GPUs``: what only the larger one holds."""
        high, low = cap.text(big), cap.text(1 - big)
        if not self.fresh(CAPACITY, cap.column.id, high, low):
            return self.fill("bottom_range_again")
        return self.fill(f"bottom_range_{cap.column.id}", low=self.figure(low, CAPACITY), high=self.figure(high, CAPACITY))

    def both(self, tied: Standing) -> Markup:
        """``Both train models of up to ≈ 30B on 8 GPUs``: the opening of a tie on capacity (or speed)."""
        a, b = tied.text(0), tied.text(1)
        kind = role(tied.column, tied.cells) or SPEED
        again = f"bottom_both_again_{kind}"
        if not self.fresh(kind, tied.column.id, *sorted({a, b})):
            return self.fill(again)
        if a != b:
            return self.fill("bottom_both_close")
        return self.fill(f"bottom_both_{tied.column.id}", value=self.figure(a, kind))

    def saving(self, cost: Standing, cheap: int) -> Markup:
        """``does the same work for 31% less``; ``… for the same price`` when the cost is a tie."""
        key = cost.column.id
        if cost.better is None:
            return self.fill(f"bottom_par_{key}")
        high = _shown(cost.cells[1 - cheap], cost.column)
        low = _shown(cost.cells[cheap], cost.column)
        share = 1 - low / high
        percent = formatting.percent(float(share), self.language.locale, 1 if share < Fraction(1, 100) else 0)
        if not self.fresh(COST, key, percent):
            return self.fill(f"bottom_saving_again_{key}")
        return self.fill(f"bottom_saving_{key}", percent=self.figure(percent, COST))

    def difference(self, speed: Standing, fast: int) -> Markup:
        """``43% more memory bandwidth``, ``2.3 times the BF16 throughput``."""
        noun = self.language.ui(f"bottom_noun_{speed.column.id}")
        ratio = _shown(speed.cells[fast], speed.column) / _shown(speed.cells[1 - fast], speed.column)
        locale = self.language.locale
        if ratio >= MULTIPLE_FROM:
            figure = formatting.ratio(float(ratio), locale)
            key = "bottom_times"
        else:
            share = ratio - 1
            figure = formatting.percent(float(share), locale, 1 if share < Fraction(1, 100) else 0)
            key = "bottom_more"
        if not self.fresh(SPEED, speed.column.id, figure):
            return self.fill("bottom_more_again", noun=noun)
        return self.fill(key, noun=noun, **{"ratio" if key == "bottom_times" else "percent": self.figure(figure, SPEED)})

    def pace(self, speed: Standing | None, index: int) -> Markup:
        """``, at the same speed`` / ``, and faster`` / ``, if more slowly``: GPU ``index`` against the other."""
        if speed is None or not speed.known:
            return Markup("")
        if speed.better is None:
            return self.fill("bottom_pace_same")
        return self.fill("bottom_pace_faster" if speed.better == index else "bottom_pace_slower")

    def lead(self, speed: Standing | None, index: int) -> Markup:
        """``is faster and `` / ``runs at the same speed and `` / ``is slower but ``: what joins a GPU's
        speed to what it saves, GPU ``index`` against the other; ``and `` without a speed."""
        if speed is None or not speed.known:
            return self.fill("bottom_lead")
        if speed.better is None:
            return self.fill("bottom_lead_same")
        return self.fill("bottom_lead_faster" if speed.better == index else "bottom_lead_slower")

    def sentence(self, opening: Markup | None, main: Markup) -> Markup:
        """``{opening}; {main}.``, or the main clause alone, capitalised."""
        if opening is not None:
            return self.fill("bottom_join", opening=opening, main=main)
        text = str(main)
        return self.fill("bottom_alone", main=Markup(text[:1].upper() + text[1:]))
