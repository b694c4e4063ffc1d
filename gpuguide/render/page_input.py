"""What a layout's context function receives (``PageInput``) and the parts several layouts share.

A context function takes the ``PageInput`` of one page: the page, its language's site view, and
the data and UI strings as that page reads them (tracked). Shared here: each GPU's table rows,
made once and reused by every page that shows them (``gpu_rows``), the "compare two GPUs" form,
the planner's links and shortcuts, and which columns of a table hold figures. The registry of
context functions is ``render.contexts``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from babel.dates import format_date

from gpuguide.figures import serving
from gpuguide.figures.page_tables import Table, build_table
from gpuguide.figures.planner_page import GpuProgramSource, ProgramSource, gpu_program_json, model_program
from gpuguide.render.environment import Link, relative_url
from gpuguide.render.reads import Reads, tracked_dataset, tracked_language
from gpuguide.render.site_view import SiteView
from gpuguide.structure.dataset import Dataset
from gpuguide.structure.language import Language
from gpuguide.structure.model_specs import LlmModel
from gpuguide.structure.pages import Page
from gpuguide.structure.pairs import closest_alternative

Context = dict[str, Any]


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
    reads: Reads  # what this page read (and what the view's shared rows it shows read)
    programs: ProgramSource = model_program  # the planner's programs (kept across builds by the build)
    gpu_programs: GpuProgramSource = gpu_program_json  # a GPU page's (kept the same way)

    @property
    def prices_as_of(self) -> str:
        return format_date(self.dataset.prices_as_of, format="long", locale=self.language.locale)

    @property
    def catalogue(self) -> Link:
        return Link(self.language.ui("all_gpu_models"), self.view.url_of("catalogue"))


def _columns_key(column_refs: list[Any]) -> tuple[Any, ...]:
    return tuple(ref if isinstance(ref, str) else (ref.id, ref.model, ref.precision) for ref in column_refs)


def gpu_rows(gpu_ids: list[str], column_refs: list[Any], given: PageInput) -> Table:
    """``build_table``, each GPU's row made once per language and build and reused by every page
    that shows it (a GPU is in n − 1 comparisons). What making a row read of the data and UI
    strings is noted into each page that uses it, so the page still depends on exactly that."""
    view, key = given.view, _columns_key(column_refs)
    made = []
    for gpu_id in gpu_ids:
        found = view.row_cache.get((gpu_id, key))
        if found is None:
            reads = Reads()
            table = build_table([gpu_id], column_refs, tracked_dataset(view.dataset, reads),
                                tracked_language(view.language, reads))
            found = view.row_cache[(gpu_id, key)] = (table, frozenset(reads.keys))
        given.reads.keys.update(found[1])
        made.append(found[0])
    first = made[0]
    return Table(first.headers, first.column_ids, tuple(table.rows[0] for table in made), first.columns)


def picker(given: PageInput, first: str, second: str) -> dict[str, Any]:
    """The "compare two GPUs" form, ``first`` and ``second`` chosen. The page reads nothing for it
    but the two ids: the GPUs' names are in the site's one list of options (``site_view.PICKER_OPTIONS``)."""
    return given.view.picker(first, second)


def default_pair(given: PageInput, gpu_id: str) -> tuple[str, str]:
    """``gpu_id`` and its closest alternative in the catalogue (``structure.pairs``), what the
    "compare two GPUs" form opens on; the next GPU of the catalogue if none is weighed against it."""
    gpus = given.dataset.gpus
    other = closest_alternative(gpus[gpu_id], gpus.values())
    if other is None:
        ids = list(gpus)
        return gpu_id, next(iter(i for i in ids if i != gpu_id), gpu_id)
    return gpu_id, other.id


def page_links(given: PageInput, layout: str, records: Any) -> dict[str, str | None]:
    """Each record's page (a GPU's, a model's), relative to this page: the planner links its rows."""
    return {record_id: relative_url(given.page.url, target) if (target := given.view.page_url(layout, record_id))
            else None for record_id in records}


def preset_links(llm: LlmModel | None, language: Language | None = None) -> list[tuple[str, str]]:
    """The planner's shortcuts to the three workloads: (label, query)."""
    links = []
    for preset in serving.PRESETS:
        query = f"ctx={preset.context_tokens}&users={preset.users}"
        label = preset.key if language is None else language.ui(f"preset_short_{preset.key}")
        links.append((label, query))
    return links
