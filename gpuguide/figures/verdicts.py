"""The bottom line that opens a comparison page: for each use case, which of two GPUs to rent and why.

A use-case page names its criteria (``verdict:`` in its front matter, column ids). Each criterion
plays the role its column gives it (``role``):

- a *requirement*, a yes/no column (ray-tracing hardware, useful FP64): a GPU without it cannot do
  the job at all;
- a *capacity*, what fits (``CAPACITY_COLUMNS``: the memory, the largest model trained or served);
- a *speed* (memory bandwidth, BF16 or FP64 throughput);
- a *cost*, a column where lower is better (the price of a unit of work or of memory per hour).

``decide`` weighs them in that order. A GPU that lacks a requirement cannot do the job (when both
lack it the use case is left out of the page: ``NEITHER``). Without an offer for both GPUs they are
compared on paper: what fits, then speed. With both offered, the GPU that holds larger jobs wins
outright if a unit costs no more on it; if it costs more, the choice splits by the job's size. With
the same capacity, the cheaper per unit wins (whichever is faster), the faster breaks a tie of
cost, and equal figures are a tie. Each case has its own sentence form, so the wording follows the
figures, never chance: the same data give the same page.

The figures are the cells the page's tables print, and a difference is that of the figures as
printed ("≈ 30B against ≈ 15B" is "2 times", whatever the unrounded capacities were); a bottom line
prints each figure once. A page states each comparison once: a clause an earlier use case of the
page stated already (the same price per GB-hour for fine-tuning and for inference) takes its
wording without figures ("again costs less per GB of memory"), and a verdict an earlier use case
reached for the same GPU opens with "again". Figures are wrapped in ``<span class="figure">``, with
the role of the criterion they are about.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from markupsafe import Markup, escape

from gpuguide.figures import formatting, serving, sizing
from gpuguide.figures.columns import Cell, Column, Table
from gpuguide.structure.language import Language, UnknownPlaceholder

#: From this ratio a speed lead is a multiple ("2.3 times the BF16 throughput"); below it, a percentage.
MULTIPLE_FROM = Fraction(2)

#: The columns that say what fits on a GPU: its memory, the largest model it trains or serves.
CAPACITY_COLUMNS = frozenset({"memory", "train_1gpu", "train_8gpu", "lora_1gpu", "qlora_1gpu",
                              *(f"infer_{precision}_{count}gpu" for precision in serving.SERVING_FORMATS
                                for count in (1, 8))})

REQUIREMENT, CAPACITY, SPEED, COST = "requirement", "capacity", "speed", "cost"

#: The use case is out of both GPUs' reach (neither meets its requirement): the page leaves it out.
NEITHER = "neither"


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


def meets_requirements(table: Table) -> list[bool]:
    """For each GPU (row) of a table of one use case's criteria: whether it has every yes/no
    requirement among them (a 3D-rendering GPU has ray-tracing hardware); a requirement its vendor
    does not publish is not met."""
    columns = [index for index in range(len(table.columns))
               if any(isinstance(row.cells[index].value, bool) for row in table.rows)
               and table.columns[index].higher_is_better is True]
    return [all(row.cells[index].value is True for index in columns) for row in table.rows]


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
    ratio = sizing.spec_ratio(column.shown(a.number), column.shown(b.number))
    if ratio is None or ratio == 1 or a.text == b.text or formatting.ratio(float(ratio), locale).startswith("≈"):
        return Standing(column, (a, b), True, None)
    return Standing(column, (a, b), True, 0 if (ratio > 1) == bool(column.higher_is_better) else 1)


def _shown(cell: Cell, column: Column) -> Fraction:
    assert cell.number is not None
    return column.shown(cell.number)


@dataclass(frozen=True)
class BottomLine:
    """One use case's conclusion for two GPUs."""

    verdict: str  # the case: ``only``, ``dominant``, ``split``, ``cheaper``… (``decide``), or ``NEITHER``
    pick: str | None  # the id of the GPU to rent (for ``split``: for the larger jobs); None: a tie
    text: Markup
    criteria: dict[str, str] = field(default_factory=dict)  # role → the column id the decision used


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


def _first(standings: list[Standing], wanted: str) -> Standing | None:
    """The first criterion of a role both GPUs have a figure for; for capacities, the first on
    which they differ (LoRA tied, QLoRA apart: QLoRA decides)."""
    known = [s for s in standings if role(s.column, s.cells) == wanted and s.known]
    if wanted == CAPACITY:
        return next((s for s in known if s.better is not None), known[0] if known else None)
    return known[0] if known else None


def decide(table: Table, offers: tuple[bool, bool], writer: Writer) -> BottomLine:
    """The bottom line for the two GPUs of ``table`` (whose columns are one use case's criteria);
    ``offers``: whether each has a live offer. The cases, in the order they are tried:

    - ``only``: one GPU lacks a requirement; ``neither`` (``NEITHER``): both do.
    - Neither offered: ``paper-more`` (one holds larger jobs), ``paper-faster``, ``paper-tie``.
    - One offered: ``offered-more``, ``offered-faster``, ``offered-tie`` (the offered one is as good on
      paper), ``unoffered-more``, ``unoffered-faster`` (the other would be better, but cannot be rented).
    - Both offered: ``dominant`` (holds larger jobs and costs no more per unit), ``split`` (holds larger
      jobs, costs more per unit: the other for the jobs both hold), and with the same capacity
      ``cheaper`` (same speed), ``faster-cheaper``, ``per-dollar`` (cheaper per unit but slower),
      ``faster`` (same cost), ``tie``.
    """
    first, second = table.rows
    locale = writer.language.locale
    standings = [standing(column, first.cells[i], second.cells[i], locale) for i, column in enumerate(table.columns)]
    ids = (first.gpu.id, second.gpu.id)
    name = writer.gpu
    requirements = [s for s in standings if role(s.column, s.cells) == REQUIREMENT]
    cap, speed, cost = _first(standings, CAPACITY), _first(standings, SPEED), _first(standings, COST)
    used = {key: s.column.id for key, s in ((REQUIREMENT, requirements[0] if requirements else None),
                                            (CAPACITY, cap), (SPEED, speed), (COST, cost)) if s is not None}

    def line(verdict: str, pick: int | None, text: Markup) -> BottomLine:
        return BottomLine(verdict, ids[pick] if pick is not None else None, text, used)

    # 1. What one of them cannot do at all.
    for requirement in requirements:
        meets = [cell.value is True for cell in requirement.cells]
        if not any(meets):
            return line(NEITHER, None, Markup(""))
        if not all(meets):
            pick = meets.index(True)
            key = "bottom_only" if offers[pick] else "bottom_only_unoffered"
            lacks = writer.fill(f"bottom_lacks_{requirement.column.id}")
            return line("only", pick, writer.fill(key, pick=name(pick), other=name(1 - pick), lacks=lacks))

    cap_lead = cap.better if cap is not None else None
    speed_lead = speed.better if speed is not None and speed.known else None
    cost_lead = cost.better if cost is not None and cost.known else None
    priced = all(offers) and cost is not None and cost.known

    def opening() -> Markup | None:
        """The tie that opens a sentence: on capacity, or on speed where the use case has no capacity."""
        if cap is not None:
            return writer.both(cap)
        if speed is not None and speed.known and speed_lead is None:
            return writer.both(speed)
        return None

    def faster(index: int) -> Markup:
        assert speed is not None
        return writer.difference(speed, index)

    # 2. Without a price for both (no offer, or a figure the price is divided by unpublished): on
    # paper, what fits, then speed.
    if not priced and (all(offers) or not any(offers)):
        if cap_lead is not None:
            assert cap is not None
            return line("paper-more", cap_lead, writer.verdict("bottom_paper_more", "more", cap_lead, pick=name(cap_lead),
                                                               holds=writer.holds(cap, cap_lead)))
        start = opening()
        if speed_lead is not None:
            main = writer.fill("bottom_paper_faster", pick=name(speed_lead), difference=faster(speed_lead))
            return line("paper-faster", speed_lead, writer.sentence(start, main))
        return line("paper-tie", None, writer.sentence(start, writer.fill("bottom_paper_tie")))
    if not priced:
        offered = offers.index(True)
        other = 1 - offered
        if cap_lead is not None:
            assert cap is not None
            if cap_lead == other:
                return line("unoffered-more", offered, writer.verdict(
                    "bottom_unoffered_more", "unoffered-more", offered, pick=name(offered), other=name(other),
                    holds=writer.holds(cap, other)))
            return line("offered-more", offered, writer.verdict("bottom_offered_more", "more", offered,
                                                                pick=name(offered), holds=writer.holds(cap, offered)))
        start = opening()
        if speed_lead == other:
            main = writer.fill("bottom_unoffered_faster", pick=name(offered), other=name(other), difference=faster(other))
            return line("unoffered-faster", offered, writer.sentence(start, main))
        if speed_lead == offered:
            main = writer.fill("bottom_offered_faster", pick=name(offered), difference=faster(offered))
            return line("offered-faster", offered, writer.sentence(start, main))
        main = writer.verdict("bottom_offered_tie", "offered-tie", offered, pick=name(offered), other=name(other))
        return line("offered-tie", offered, writer.sentence(start, main))
    assert cost is not None

    # 3. Both priced, one holds larger jobs: it wins unless a unit of the use case's cost is cheaper
    # on the other, which then takes the jobs both hold.
    if cap_lead is not None:
        assert cap is not None
        big, small = cap_lead, 1 - cap_lead
        if cost_lead == small:
            text = writer.verdict("bottom_split", "split", big, pick=name(big), other=name(small),
                                  range=writer.job_range(cap, big), saving=writer.saving(cost, small),
                                  pace=writer.pace(speed, small))
            return line("split", big, text)
        text = writer.verdict("bottom_dominant", "more", big, pick=name(big), holds=writer.holds(cap, big),
                              lead=writer.lead(speed, big), saving=writer.saving(cost, big))
        return line("dominant", big, text)

    # 4. Both priced, the same capacity (or none to compare): the cost per unit, then speed.
    start = opening()
    pace_after = cap is not None  # without a capacity, a tie on speed is the opening already
    if cost_lead is not None:
        cheap = cost_lead
        if speed_lead is None:
            main = writer.fill("bottom_cheaper", pick=name(cheap), saving=writer.saving(cost, cheap),
                               pace=writer.pace(speed, cheap) if pace_after else Markup(""))
            return line("cheaper", cheap, writer.sentence(start, main))
        if speed_lead == cheap:
            main = writer.fill("bottom_faster_cheaper", pick=name(cheap), difference=faster(cheap),
                               saving=writer.saving(cost, cheap))
            return line("faster-cheaper", cheap, writer.sentence(start, main))
        main = writer.fill("bottom_per_dollar", pick=name(cheap), other=name(1 - cheap),
                           difference=faster(1 - cheap), saving=writer.saving(cost, cheap))
        return line("per-dollar", cheap, writer.sentence(start, main))
    if speed_lead is not None:
        main = writer.fill("bottom_faster", pick=name(speed_lead), difference=faster(speed_lead))
        return line("faster", speed_lead, writer.sentence(start, main))
    pace = writer.pace(speed, 0) if pace_after else Markup("")
    return line("tie", None, writer.sentence(start, writer.fill("bottom_tie", pace=pace)))


def offer_note(prices: Table, writer: Writer) -> Markup | None:
    """What the page says once about offers, before the bottom lines: that neither GPU has one (the
    bottom lines compare them on paper), or which one has; None when both have."""
    offered = [row.cells[0].state == "value" for row in prices.rows]
    if all(offered):
        return None
    if not any(offered):
        return writer.fill("bottom_none_offered")
    pick = offered.index(True)
    price = prices.rows[pick].cells[0].text
    return writer.fill("bottom_one_offered", pick=writer.gpu(pick), other=writer.gpu(1 - pick),
                       price=writer.figure(price, "price"))


@dataclass(frozen=True)
class Summary:
    """A comparison page's bottom lines: the note on offers, then one line per use case."""

    offer_note: Markup | None
    lines: list[BottomLine]


def summary(prices: Table, use_cases: list[Table], language: Language) -> Summary:
    """The bottom lines for two GPUs: ``prices`` is their two-row ``price`` table, ``use_cases``
    each use case's two-row table of its criteria, in the page's order. A ``NEITHER`` line is kept
    (its text empty): the page leaves that use case out."""
    first, second = prices.rows
    writer = Writer(language, (first.gpu.short_name, second.gpu.short_name))
    note = offer_note(prices, writer)
    offers = (first.cells[0].state == "value", second.cells[0].state == "value")
    return Summary(note, [decide(table, offers, writer) for table in use_cases])
