"""What each layout's template receives beyond what every page gets: one function per layout, in one registry.

A context function takes the ``PageInput`` of one page: the page, its language's site view, and
the data and UI strings as that page reads them (tracked). Which pages must exist is declared in
``structure.layouts``; this registry says how each layout is filled.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from babel.dates import format_date
from markupsafe import Markup

from gpuguide.figures.columns import CATALOGUE_COLUMNS, SEGMENTS, SPEC_COLUMNS, Table, build_table
from gpuguide.render.chart import bar_chart
from gpuguide.render.comparison import side_by_side
from gpuguide.render.environment import Link
from gpuguide.render.site_view import SiteView
from gpuguide.structure.data import Dataset
from gpuguide.structure.language import Language
from gpuguide.structure.layouts import LAYOUTS
from gpuguide.structure.pages import GpuSubject, Page, PairSubject, gpu_pairs

Context = dict[str, Any]

#: The catalogue's columns: what a buyer compares first (the price, the memory), then the rest of
#: the specifications in their usual order.
CATALOGUE_TABLE_COLUMNS = ("price", "memory", *(c for c in CATALOGUE_COLUMNS if c not in ("price", "memory")))


def numeric_columns(table: Table) -> list[bool]:
    """For each column of ``table``: whether it holds figures (right-aligned, header included)."""
    return [any(row.cells[index].number is not None for row in table.rows) for index in range(len(table.headers))]


@dataclass(frozen=True)
class PageInput:
    """One page to fill, with what it may read (the dataset and language views note every read)."""

    page: Page
    view: SiteView
    dataset: Dataset
    language: Language
    inline_markdown: Callable[[str, tuple[str, ...]], str]  # front-matter Markdown at a field's path → HTML

    @property
    def prices_as_of(self) -> str:
        return format_date(self.dataset.prices_as_of, format="long", locale=self.language.locale)

    @property
    def catalogue(self) -> Link:
        return Link(self.language.ui("all_gpu_models"), self.view.url_of("catalogue"))


def _use_case(given: PageInput) -> Context:
    page, view, ui = given.page, given.view, given.language.ui
    meta = page.meta
    assert meta.table is not None and meta.short_name is not None
    table = build_table(meta.table.gpus, meta.table.columns, given.dataset, given.language)
    short_name = view.typeset(page, "short_name")
    chart = bar_chart(table, meta.chart, given.dataset, given.language) if meta.chart else None
    best = chart.bars[0] if chart and chart.bars else None
    return {
        "table": table,
        "chart": chart,
        "card_lines": (ui("card_best", figure=table.headers[table.column_ids.index(meta.chart)], value=best.text,
                          gpu=best.label),) if best and meta.chart else (),
        "table_caption": ui("suitable_gpus", use_case=short_name),
        "table_note_html": Markup(given.inline_markdown(meta.table_note, ("table_note",)) if meta.table_note else ""),
        "prices_as_of": given.prices_as_of,
        "catalogue": given.catalogue,
        "compare_heading": ui("compare_gpus", use_case=short_name),
        "comparisons": _comparison_links(meta.table.gpus, given),
        "other_use_cases": [link for use_case, link in view.use_case_links if use_case != meta.use_case],
    }


def _comparison_links(gpu_ids: list[str], given: PageInput) -> list[Link]:
    """Every pair of the table's GPUs, in dataset order."""
    view, gpus = given.view, given.dataset.gpus
    ids = sorted(set(gpu_ids), key=view.gpu_order.__getitem__)
    return [Link(f"{gpus[a].model} – {gpus[b].model}", url)
            for a, b in gpu_pairs(ids) if (url := view.comparison_url(a, b))]


def _guide_links(given: PageInput) -> list[Link]:
    return [Link(given.view.typeset(guide, "title"), guide.url, description=given.view.typeset(guide, "description"))
            for guide in given.view.library.by_layout(given.page.lang, "guide")]


def _home(given: PageInput) -> Context:
    ui = given.language.ui
    return {
        "use_cases": [link for _, link in given.view.use_case_links if link.url],
        "catalogue": given.catalogue,
        "comparisons_index": Link(ui("nav_comparisons"), given.view.url_of("comparisons")),
        "guides": _guide_links(given),
    }


def _guides(given: PageInput) -> Context:
    return {"guides": _guide_links(given)}


def _catalogue(given: PageInput) -> Context:
    groups = []
    for segment in SEGMENTS:
        ids = [gpu_id for gpu_id, gpu in given.dataset.gpus.items() if gpu.segment == segment]
        if ids:
            table = build_table(ids, list(CATALOGUE_TABLE_COLUMNS), given.dataset, given.language)
            groups.append((segment, given.language.ui(f"segment_{segment.replace('-', '_')}"), table))
    return {"groups": groups, "prices_as_of": given.prices_as_of,
            "card_lines": (given.language.ui("card_gpus", count=len(given.dataset.gpus)),)}


def _use_case_figures(gpu_ids: list[str], given: PageInput) -> list[dict[str, Any]]:
    """For each use-case page of the language: its figures (its table's sizing columns) for these GPUs."""
    sections = []
    view = given.view
    for use_case in view.library.use_case_pages(given.page.lang, list(given.dataset.use_cases)):
        if use_case.meta.draft or use_case.meta.table is None:
            continue
        columns = [c for c in use_case.meta.table.columns if not (isinstance(c, str) and c in SPEC_COLUMNS)]
        if columns:
            table: Table = build_table(gpu_ids, columns, given.dataset, given.language)
            sections.append({"title": view.typeset(use_case, "title"), "short_name": view.typeset(use_case, "short_name"),
                             "url": use_case.url, "table": table})
    return sections


def _gpu(given: PageInput) -> Context:
    subject = given.page.subject
    assert isinstance(subject, GpuSubject)
    gpu, view = subject.gpu, given.view
    specs = build_table([gpu.id], ["segment", *CATALOGUE_COLUMNS], given.dataset, given.language)
    cells = dict(zip(specs.column_ids, zip(specs.headers, specs.rows[0].cells)))
    return {
        "card_lines": tuple(given.language.ui("card_figure", label=cells[column][0], figure=cells[column][1].text)
                            for column in ("memory", "bf16", "price")),
        "gpu": gpu,
        "specs": list(zip(specs.headers, specs.column_ids, specs.rows[0].cells)),
        "use_case_figures": _use_case_figures([gpu.id], given),
        "comparisons": [Link(given.dataset.gpus[other].model, url) for other in given.dataset.gpus
                        if other != gpu.id and (url := view.comparison_url(gpu.id, other))],
        "catalogue": given.catalogue,
        "prices_as_of": given.prices_as_of,
    }


def _comparison(given: PageInput) -> Context:
    subject = given.page.subject
    assert isinstance(subject, PairSubject)
    a, b = subject.first, subject.second
    specs = build_table([a.id, b.id], ["segment", *CATALOGUE_COLUMNS], given.dataset, given.language)
    figures = _use_case_figures([a.id, b.id], given)
    lines = tuple(given.language.ui("card_gpu_line", gpu=row.gpu.short_name,
                                    memory=row.cells[specs.column_ids.index("memory")].text,
                                    price=row.cells[specs.column_ids.index("price")].text) for row in specs.rows)
    return {
        "card_lines": lines,
        "a": a, "b": b,
        "spec_rows": side_by_side(specs, given.language),
        "use_case_rows": [(section, side_by_side(section["table"], given.language)) for section in figures],
        "prices_as_of": given.prices_as_of,
    }


def _comparisons(given: PageInput) -> Context:
    groups = []
    gpus, view = given.dataset.gpus, given.view
    ids = list(gpus)
    for index, gpu_id in enumerate(ids):
        links = [Link(gpus[other].model, url) for other in ids[index + 1:]
                 if (url := view.comparison_url(gpu_id, other))]
        if links:
            groups.append((gpus[gpu_id], links))
    pair_count = sum(len(links) for _, links in groups)
    return {"groups": groups, "pair_count": pair_count,
            "card_lines": (given.language.ui("card_comparisons", count=pair_count),)}


def _nothing(given: PageInput) -> Context:
    return {}


#: Layout → what its template receives beyond the common context.
CONTEXTS: dict[str, Callable[[PageInput], Context]] = {
    "home": _home, "use_case": _use_case, "catalogue": _catalogue, "gpu": _gpu, "comparisons": _comparisons,
    "comparison": _comparison, "guides": _guides, "guide": _nothing, "methodology": _nothing, "search": _nothing,
    "not_found": _nothing,
}

assert set(CONTEXTS) == set(LAYOUTS), "every layout has a context function"
