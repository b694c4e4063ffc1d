"""What each layout's template receives beyond what every page gets: one function per layout, in one registry.

A context function takes the ``PageInput`` of one page: the page, its language's site view, and
the data and UI strings as that page reads them (tracked). Which pages must exist is declared in
``structure.layouts``; this registry says how each layout is filled.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from babel.dates import format_date
from markupsafe import Markup

from gpuguide.figures import models as model_figures
from gpuguide.figures import plan_tables, serving
from gpuguide.figures.columns import (
    CATALOGUE_COLUMNS,
    SEGMENTS,
    SPEC_COLUMNS,
    Table,
    build_table,
    price_performance_notes,
)
from gpuguide.figures.verdicts import summary
from gpuguide.render.chart import bar_chart
from gpuguide.render.comparison import side_by_side
from gpuguide.figures import planner_page
from gpuguide.render.environment import Link, relative_url
from gpuguide.render.reads import GPU_NAMES, Reads, tracked_dataset, tracked_language
from gpuguide.render.site_view import SiteView
from gpuguide.structure.data import Dataset, LlmModel
from gpuguide.structure.language import Language
from gpuguide.structure.layouts import LAYOUTS
from gpuguide.structure.pages import (
    GpuSubject,
    ModelSubject,
    Page,
    PairSubject,
    gpu_pairs,
)

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
    reads: Reads  # what this page read: for reads a view made once for every page (``GPU_NAMES``)

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


def _use_case(given: PageInput) -> Context:
    page, view, ui = given.page, given.view, given.language.ui
    meta = page.meta
    assert meta.table is not None and meta.short_name is not None
    table = build_table(meta.table.gpus, meta.table.columns, given.dataset, given.language)
    short_name = view.typeset(page, "short_name")
    # Price-performance in a table of its own: the main table stays as the editor chose it.
    value_table = (build_table(meta.table.gpus, ["price", *meta.price_performance], given.dataset, given.language)
                   if meta.price_performance else None)
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
        "model_links": _model_links(given, meta.models) if meta.models else [],
        "value_caption": ui("price_performance_caption", use_case=short_name),
        "value_table": value_table,
        "price_notes": [ui(key) for key in price_performance_notes(value_table.column_ids)] if value_table else [],
        "picker": _picker(given),
        **(_use_case_planner(meta.planner, given) if meta.planner else {"planner": None}),
    }


def _use_case_planner(model_id: str, given: PageInput) -> Context:
    dataset, language = given.dataset, given.language
    llm = dataset.llm_models[model_id]
    return {
        "planner": planner_page.chooser_planner(llm, dataset, language, _page_links(given, "gpu", dataset.gpus),
                                                _page_links(given, "model", dataset.llm_models)),
        "planner_table": plan_tables.plans_table(llm, plan_tables.preset_workload(serving.preset("chat")), dataset,
                                                 language, language.ui("planner_caption", model=llm.name)),
        "planner_presets": _preset_links(llm, language),
    }


def _model_links(given: PageInput, kind: str) -> list[Link]:
    """Links to the pages of the language models (``llm``) or of the image and video models (``diffusion``)."""
    records = given.dataset.llm_models if kind == "llm" else given.dataset.diffusion_models
    return [Link(model.name, url) for model in records.values() if (url := given.view.page_url("model", model.id))]


def _picker(given: PageInput) -> dict[str, Any]:
    """The "compare two GPUs" form: its options come from the site view (made once per language)."""
    given.reads.keys.add(GPU_NAMES)
    return given.view.picker


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
    return {"groups": groups, "prices_as_of": given.prices_as_of, "picker": _picker(given),
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
            table: Table = gpu_rows(gpu_ids, columns, given)
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
        "models_table": plan_tables.models_on_gpu_table(given.dataset.gpus[gpu.id], given.dataset, given.language),
        "planner": planner_page.gpu_planner(given.dataset.gpus[gpu.id], given.dataset, given.language,
                                            _page_links(given, "model", given.dataset.llm_models)),
        "planner_table": plan_tables.models_for_workload_table(
            given.dataset.gpus[gpu.id], plan_tables.preset_workload(serving.preset("chat")), given.dataset,
            given.language),
        "planner_presets": _preset_links(None),
        "diffusion_models": [Link(model.name, view.page_url("model", model.id))
                             for model in model_figures.diffusion_on_gpu(gpu, given.dataset)],
        "picker": _picker(given),
        "share_text": model_figures.usable_share_text(given.language),
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
    specs = gpu_rows([a.id, b.id], ["segment", *CATALOGUE_COLUMNS], given)
    figures = _use_case_figures([a.id, b.id], given)
    lines = tuple(given.language.ui("card_gpu_line", gpu=row.gpu.short_name,
                                    memory=row.cells[specs.column_ids.index("memory")].text,
                                    price=row.cells[specs.column_ids.index("price")].text) for row in specs.rows)
    return {
        "card_lines": lines,
        "a": a, "b": b,
        "summaries": _summaries([a.id, b.id], given),
        "picker": _picker(given),
        "spec_rows": side_by_side(specs, given.language),
        "use_case_rows": [(section, side_by_side(section["table"], given.language)) for section in figures],
        "prices_as_of": given.prices_as_of,
    }


def _summaries(gpu_ids: list[str], given: PageInput) -> list[dict[str, Any]]:
    """For each use-case page that names its criteria (``verdict:``): the sentences that decide
    between these two GPUs for it."""
    sections = []
    view = given.view
    for use_case in view.library.use_case_pages(given.page.lang, list(given.dataset.use_cases)):
        if use_case.meta.draft or not use_case.meta.verdict:
            continue
        table = gpu_rows(gpu_ids, list(use_case.meta.verdict), given)
        sentences = summary(table, given.language)
        if sentences:
            short_name = view.typeset(use_case, "short_name") or view.typeset(use_case, "title")
            sections.append({"name": short_name[:1].upper() + short_name[1:], "url": use_case.url,
                             "sentences": sentences})
    return sections


def _comparisons(given: PageInput) -> Context:
    """Every pair, listed under each of its two GPUs (a reader looks for the one they have in mind)."""
    groups = []
    gpus, view = given.dataset.gpus, given.view
    ids = list(gpus)
    for gpu_id in ids:
        links = [Link(gpus[other].model, url) for other in ids
                 if other != gpu_id and (url := view.comparison_url(gpu_id, other))]
        if links:
            groups.append((gpus[gpu_id], links))
    pair_count = sum(len(links) for _, links in groups) // 2
    return {"groups": groups, "pair_count": pair_count, "picker": _picker(given),
            "card_lines": (given.language.ui("card_comparisons", count=pair_count),)}


def _page_links(given: PageInput, layout: str, records: Any) -> dict[str, str | None]:
    """Each record's page (a GPU's, a model's), relative to this page: the planner links its rows."""
    return {record_id: relative_url(given.page.url, target) if (target := given.view.page_url(layout, record_id))
            else None for record_id in records}


def _preset_links(llm: LlmModel | None, language: Language | None = None) -> list[tuple[str, str]]:
    """The planner's shortcuts to the three workloads: (label, query)."""
    links = []
    for preset in serving.PRESETS:
        query = f"ctx={preset.context_tokens}&users={preset.users}"
        label = preset.key if language is None else language.ui(f"preset_short_{preset.key}")
        links.append((label, query))
    return links


def _model(given: PageInput) -> Context:
    subject = given.page.subject
    assert isinstance(subject, ModelSubject)
    dataset, language = given.dataset, given.language
    if isinstance(subject.model, LlmModel):
        llm = dataset.llm_models[subject.model.id]  # through the tracked view: the page depends on the record
        return {
            "kind": "llm", "model": llm,
            "facts": model_figures.facts(llm, language),
            "kv_table": model_figures.kv_table(llm, language),
            "memory_table": model_figures.memory_table(llm, language),
            "cheapest_table": model_figures.cheapest_per_format(llm, dataset, language),
            "cheapest_commands": model_figures.cheapest_commands(llm, dataset, language),
            "presets": model_figures.preset_sections(llm, dataset, language),
            "planner": planner_page.model_planner(llm, dataset, language, _page_links(given, "gpu", dataset.gpus)),
            "planner_table": plan_tables.plans_table(
                llm, plan_tables.preset_workload(serving.preset("chat")), dataset, language,
                language.ui("planner_caption", model=llm.name)),
            "planner_presets": _preset_links(llm, language),
            "measurements_table": model_figures.measurements_table(llm, dataset, language),
            "fine_tuning_table": model_figures.fine_tuning_table(llm, dataset, language),
            "models_index": Link(language.ui("nav_models"), given.view.url_of("models")),
            "prices_as_of": given.prices_as_of,
        }
    diffusion = dataset.diffusion_models[subject.model.id]
    return {
        "kind": "diffusion", "model": diffusion,
        "documented": model_figures.diffusion_memory_text(diffusion, language),
        "gpus_table": model_figures.diffusion_table(diffusion, dataset, language),
        "generation_table": model_figures.generation_table(diffusion, dataset, language),
        "models_index": Link(language.ui("nav_models"), given.view.url_of("models")),
        "prices_as_of": given.prices_as_of,
    }


def _models(given: PageInput) -> Context:
    dataset, language, view = given.dataset, given.language, given.view
    return {
        "llms": [(row, view.page_url("model", row.model_id)) for row in model_figures.llm_index(dataset, language)],
        "diffusions": [(model, view.page_url("model", model.id), model_figures.diffusion_memory_text(model, language))
                       for model in dataset.diffusion_models.values()],
        "prices_as_of": given.prices_as_of,
    }


def _nothing(given: PageInput) -> Context:
    return {}


#: Layout → what its template receives beyond the common context.
CONTEXTS: dict[str, Callable[[PageInput], Context]] = {
    "home": _home, "use_case": _use_case, "catalogue": _catalogue, "gpu": _gpu, "comparisons": _comparisons,
    "comparison": _comparison, "models": _models, "model": _model, "guides": _guides, "guide": _nothing, "methodology": _nothing, "search": _nothing,
    "not_found": _nothing,
}

assert set(CONTEXTS) == set(LAYOUTS), "every layout has a context function"
