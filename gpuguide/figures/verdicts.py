"""The bottom line that opens a comparison page: for each use case, which of two GPUs to rent and why.

A use-case page names its criteria (``verdict:`` in its front matter, column ids). Each criterion
plays the role its column gives it (``verdict_criteria.role``):

- a *requirement*, a yes/no column (ray-tracing hardware, useful FP64): a GPU without it cannot do
  the job at all;
- a *capacity*, what fits (``verdict_criteria.CAPACITY_COLUMNS``: the memory, the largest model
  trained or served);
- a *speed* (memory bandwidth, BF16 or FP64 throughput);
- a *cost*, a column where lower is better (the price of a unit of work or of memory per hour).

``decide`` weighs them in that order. A GPU that lacks a requirement cannot do the job (when both
lack it the use case is left out of the page: ``NEITHER``). Without an offer for both GPUs they are
compared on paper: what fits, then speed. With both offered, the GPU that holds larger jobs wins
outright if a unit costs no more on it; if it costs more, the choice splits by the job's size. With
the same capacity, the cheaper per unit wins (whichever is faster), the faster breaks a tie of
cost, and equal figures are a tie. Each case has its own sentence form, so the wording follows the
figures, never chance: the same data give the same page.

The criteria and their roles are in ``verdict_criteria``; the sentences, one clause per comparison,
each stated once on a page, in ``verdict_writer``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from markupsafe import Markup

from gpuguide.figures.page_tables import Table
from gpuguide.figures.verdict_criteria import CAPACITY, COST, REQUIREMENT, SPEED, Standing, role, standing
from gpuguide.figures.verdict_writer import Writer
from gpuguide.structure.language import Language

#: The use case is out of both GPUs' reach (neither meets its requirement): the page leaves it out.
NEITHER = "neither"


def meets_requirements(table: Table) -> list[bool]:
    """For each GPU (row) of a table of one use case's criteria: whether it has every yes/no
    requirement among them (a 3D-rendering GPU has ray-tracing hardware); a requirement its vendor
    does not publish is not met."""
    columns = [index for index in range(len(table.columns))
               if any(isinstance(row.cells[index].value, bool) for row in table.rows)
               and table.columns[index].higher_is_better is True]
    return [all(row.cells[index].value is True for index in columns) for row in table.rows]


@dataclass(frozen=True)
class BottomLine:
    """One use case's conclusion for two GPUs."""

    verdict: str  # the case: ``only``, ``dominant``, ``split``, ``cheaper``… (``decide``), or ``NEITHER``
    pick: str | None  # the id of the GPU to rent (for ``split``: for the larger jobs); None: a tie
    text: Markup
    criteria: dict[str, str] = field(default_factory=dict)  # role → the column id the decision used


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
    (its text empty): the page leaves that use case out.

    Memoised by value: by the tables' cells, columns and GPU names, the language's locale and
    typography, and the text of each UI string the lines were written from, read again (through
    ``language.strings``, so a page that notes its reads notes the same ones) to tell whether the
    lines still hold. The dev server computes them while it waits (``DevSession.warm``), and a
    title edit, which renders the 190 comparisons again, finds them: its build takes 2.35–2.64 s
    instead of 2.51–2.85 s on one core, 1.32–1.56 s instead of 1.38–1.66 s on two (real site)."""
    key = (language.code, language.locale, language.typography, _table_key(prices),
           tuple(_table_key(table) for table in use_cases))
    strings = language.strings
    for read, made in _SUMMARIES.get(key, ()):
        if all(strings.get(name, _MISSING) == text for name, text in read):
            return made
    recorded = _RecordedStrings(strings)
    made = _summary(prices, use_cases, replace(language, strings=recorded))
    if len(_SUMMARIES) > 4096:  # the dev server's edits of data make new keys: never an unbounded memo
        _SUMMARIES.clear()
    _SUMMARIES.setdefault(key, []).append((tuple(recorded.read.items()), made))
    return made


def _summary(prices: Table, use_cases: list[Table], language: Language) -> Summary:
    first, second = prices.rows
    writer = Writer(language, (first.gpu.short_name, second.gpu.short_name))
    note = offer_note(prices, writer)
    offers = (first.cells[0].state == "value", second.cells[0].state == "value")
    return Summary(note, [decide(table, offers, writer) for table in use_cases])


_MISSING = object()  # a UI string the lines asked for and did not find (``in`` tests it)
#: ``summary``'s memo: by its key, each (UI strings read, with their texts) and the lines written from them.
_SUMMARIES: dict[tuple[Any, ...], list[tuple[tuple[tuple[str, Any], ...], Summary]]] = {}


def _table_key(table: Table) -> tuple[Any, ...]:
    """What the bottom lines read of a table: its columns, and each row's GPU and cells (with the
    type of each value: 1 and True are equal, but only True meets a requirement)."""
    return table.columns, tuple((row.gpu.id, row.gpu.short_name, row.cells, tuple(type(cell.value) for cell in row.cells))
                                for row in table.rows)


class _RecordedStrings(Mapping[str, Any]):
    """UI strings that remember each one read: its text, or ``_MISSING``."""

    def __init__(self, strings: Mapping[str, Any]):
        self.strings = strings
        self.read: dict[str, Any] = {}

    def __getitem__(self, name: str) -> Any:
        text = self.read[name] = self.strings.get(name, _MISSING)
        if text is _MISSING:
            raise KeyError(name)
        return text

    def __iter__(self) -> Iterator[str]:
        raise TypeError("the bottom lines read UI strings by name only")

    def __len__(self) -> int:
        raise TypeError("the bottom lines read UI strings by name only")
