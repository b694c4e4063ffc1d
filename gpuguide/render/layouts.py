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
from gpuguide.figures import formatting, verdicts
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
    ReversedPairSubject,
)
from gpuguide.structure.pairs import MEMORY_FACTOR, closest_alternative, relevant_pairs, weighed

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
    pairs = _comparison_links(meta.table.gpus, list(meta.verdict), given)
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
        "comparisons": [link for link, _ in pairs],
        "other_use_cases": [link for use_case, link in view.use_case_links if use_case != meta.use_case],
        "model_links": _model_links(given, meta.models) if meta.models else [],
        "value_caption": ui("price_performance_caption", use_case=short_name),
        "value_table": value_table,
        "price_notes": [ui(key) for key in price_performance_notes(value_table.column_ids)] if value_table else [],
        # The form opens on the page's closest pair.
        "picker": _picker(given, *(pairs[0][1] if pairs else _default_pair(given, meta.table.gpus[0]))),
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


def _picker(given: PageInput, first: str, second: str) -> dict[str, Any]:
    """The "compare two GPUs" form, ``first`` and ``second`` chosen: its options come from the site
    view (made once per language and chosen GPU)."""
    given.reads.keys.add(GPU_NAMES)
    return given.view.picker(first, second)


def _default_pair(given: PageInput, gpu_id: str) -> tuple[str, str]:
    """``gpu_id`` and its closest alternative in the catalogue (``structure.pairs``), what the
    "compare two GPUs" form opens on; the next GPU of the catalogue if none is weighed against it."""
    gpus = given.dataset.gpus
    other = closest_alternative(gpus[gpu_id], gpus.values())
    if other is None:
        ids = list(gpus)
        return gpu_id, next(iter(i for i in ids if i != gpu_id), gpu_id)
    return gpu_id, other.id


def _comparison_links(gpu_ids: list[str], verdict: list[str], given: PageInput) -> list[tuple[Link, tuple[str, str]]]:
    """The pairs a use-case page links to, each with its two ids: among the GPUs of its table that
    meet the use case's requirements (ray-tracing hardware for 3D rendering: ``figures.verdicts``),
    each GPU with its closest alternative, closest pairs first, at most
    ``pairs.USE_CASE_PAIR_LINKS`` (``structure.pairs.relevant_pairs``)."""
    view, gpus = given.view, given.dataset.gpus
    ids = list(dict.fromkeys(gpu_ids))
    if verdict:
        meets = verdicts.meets_requirements(gpu_rows(ids, verdict, given))
        ids = [gpu_id for gpu_id, ok in zip(ids, meets) if ok]
    pairs = relevant_pairs([gpus[gpu_id] for gpu_id in ids], list(view.gpu_order))
    return [(Link(f"{a.model} – {b.model}", url), (a.id, b.id))
            for a, b in pairs if (url := view.comparison_url(a.id, b.id))]


def _guide_links(given: PageInput) -> list[Link]:
    return [Link(given.view.typeset(guide, "title"), guide.url, description=given.view.typeset(guide, "description"))
            for guide in given.view.library.by_layout(given.page.lang, "guide")]


#: How many GPUs the home page's "cheapest live offers" table lists.
HOME_OFFERS = 6


def _cheapest(gpu_ids: list[str], dataset: Dataset) -> list[str]:
    """The GPUs of ``gpu_ids`` that have a live offer, cheapest first (ties: in the order given)."""
    priced = [gpu_id for gpu_id in gpu_ids if dataset.price(gpu_id) is not None]
    return sorted(priced, key=lambda gpu_id: dataset.prices[gpu_id].usd_per_gpu_hour)


def _home(given: PageInput) -> Context:
    """The use cases, each with the cheapest of its suitable GPUs, and the cheapest live offers of
    all: every figure from the data (``data/prices.yaml`` and each use-case page's table)."""
    ui, view, dataset, language = given.language.ui, given.view, given.dataset, given.language
    use_cases = [link for _, link in view.use_case_links if link.url]
    # Each use case's card: the cheapest GPU of its page's table that has a live offer.
    cheapest_lines: dict[str, str] = {}
    for page in view.library.use_case_pages(given.page.lang, list(dataset.use_cases)):
        if page.meta.draft or page.meta.table is None:
            continue
        found = _cheapest(page.meta.table.gpus, dataset)
        if found:
            price = build_table(found[:1], ["price"], dataset, language).rows[0].cells[0].text
            cheapest_lines[page.url] = ui("home_card_cheapest", gpu=dataset.gpus[found[0]].model, price=price)
    offers = _cheapest(list(dataset.gpus), dataset)[:HOME_OFFERS]
    return {
        "use_cases": use_cases,
        "use_case_cheapest": cheapest_lines,
        "offers": build_table(offers, ["price", "memory"], dataset, language) if offers else None,
        "prices_as_of": given.prices_as_of,
        "catalogue": given.catalogue,
        "comparisons_index": Link(ui("nav_comparisons"), view.url_of("comparisons")),
        "models_index": Link(ui("nav_models"), view.url_of("models")),
        "guides": _guide_links(given),
    }


def call_to_action_state(given: PageInput) -> Context:
    """The marketplace's state (``market`` in data/site.yaml), which every layout receives: the call
    to action says the market opens soon or is open, and the price notes add, before the launch,
    that the offers can be rented from launch day. (A change of ``config`` rebuilds every page.)"""
    return {"market": given.dataset.config.market}


def _guides(given: PageInput) -> Context:
    return {"guides": _guide_links(given)}


def _catalogue(given: PageInput) -> Context:
    groups = []
    for segment in SEGMENTS:
        ids = [gpu_id for gpu_id, gpu in given.dataset.gpus.items() if gpu.segment == segment]
        if ids:
            table = build_table(ids, list(CATALOGUE_TABLE_COLUMNS), given.dataset, given.language)
            groups.append((segment, given.language.ui(f"segment_{segment.replace('-', '_')}"), table))
    first = next(iter(given.dataset.gpus), None)
    return {"groups": groups, "prices_as_of": given.prices_as_of,
            "picker": _picker(given, *_default_pair(given, first)) if first else {},
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
        "picker": _picker(given, *_default_pair(given, gpu.id)),
        "share_text": model_figures.usable_share_text(given.language),
        "specs": list(zip(specs.headers, specs.column_ids, specs.rows[0].cells)),
        "use_case_figures": _use_case_figures([gpu.id], given),
        # The pairs buyers weigh (``structure.pairs``): the others are one choice away in the form.
        "comparisons": [Link(other.model, url) for other in given.dataset.gpus.values()
                        if other.id != gpu.id and weighed(gpu, other) and (url := view.comparison_url(gpu.id, other.id))],
        "catalogue": given.catalogue,
        "prices_as_of": given.prices_as_of,
    }


def _comparison(given: PageInput) -> Context:
    subject = given.page.subject
    if isinstance(subject, ReversedPairSubject):
        return _pair_redirect(given, subject.pair)
    assert isinstance(subject, PairSubject)
    a, b = subject.first, subject.second
    specs = gpu_rows([a.id, b.id], ["segment", *CATALOGUE_COLUMNS], given)
    offer_note, sections = _pair_use_cases([a.id, b.id], given)
    return {
        "card_lines": _pair_card_lines(a.id, b.id, given),
        "a": a, "b": b,
        "redirect": None,
        "offer_note": offer_note,
        "summaries": [section for section in sections if section["line"] is not None],
        "picker": _picker(given, a.id, b.id),
        "spec_rows": side_by_side(specs, given.language),
        "use_case_rows": [(section, side_by_side(section["table"], given.language)) for section in sections
                          if section["table"] is not None],
        "prices_as_of": given.prices_as_of,
    }


def _pair_card_lines(first: str, second: str, given: PageInput) -> tuple[str, ...]:
    """The sharing card of a pair's page (and of its other order's redirect: the same drawing)."""
    table = gpu_rows([first, second], ["memory", "price"], given)
    return tuple(given.language.ui("card_gpu_line", gpu=row.gpu.short_name, memory=row.cells[0].text,
                                   price=row.cells[1].text) for row in table.rows)


def _pair_redirect(given: PageInput, pair: PairSubject) -> Context:
    """The page at a pair's other order (``b-vs-a``): it sends the reader to the pair's page, its
    canonical address, and is never indexed."""
    target = given.view.comparison_url(pair.first.id, pair.second.id)
    assert target is not None  # both orders are generated together
    return {"redirect": target, "canonical": given.view.absolute(target), "indexable": False, "hreflang": [],
            "a": pair.first, "b": pair.second, "card_lines": _pair_card_lines(pair.first.id, pair.second.id, given)}


def _pair_use_cases(gpu_ids: list[str], given: PageInput) -> tuple[Any, list[dict[str, Any]]]:
    """The note on offers and, for each use-case page of the language, the bottom line for these
    two GPUs (``figures.verdicts``; None for a page that names no criteria) and its table of
    figures: the use-case table's own columns but the specifications (shown once, above), then
    the criteria the specifications lack, so the table prints every figure the bottom line cites.
    A use case neither GPU can do (3D rendering without ray-tracing hardware) is left out; its
    table is shown only when both can (a GPU without RT cores gets no rendering rows)."""
    view, lang = given.view, given.page.lang
    pages = [page for page in view.library.use_case_pages(lang, list(given.dataset.use_cases))
             if not page.meta.draft and page.meta.table is not None]
    criteria = [gpu_rows(gpu_ids, list(page.meta.verdict), given) if page.meta.verdict else None for page in pages]
    result = verdicts.summary(gpu_rows(gpu_ids, ["price"], given), [table for table in criteria if table is not None],
                              given.language)
    lines = iter(result.lines)
    sections = []
    for page, table in zip(pages, criteria):
        line = next(lines) if table is not None else None
        if line is not None and line.verdict == verdicts.NEITHER:
            continue
        assert page.meta.table is not None
        columns = [c for c in page.meta.table.columns if not (isinstance(c, str) and c in SPEC_COLUMNS)]
        columns += [c for c in page.meta.verdict if c not in SPEC_COLUMNS and c not in columns]
        both_can = table is None or all(verdicts.meets_requirements(table))
        short_name = view.typeset(page, "short_name") or view.typeset(page, "title")
        sections.append({"title": view.typeset(page, "title"), "short_name": short_name,
                         "name": short_name[:1].upper() + short_name[1:], "url": page.url,
                         "use_case": page.meta.use_case, "line": line,
                         "table": gpu_rows(gpu_ids, columns, given) if both_can and columns else None})
    return result.offer_note, sections


def _comparisons(given: PageInput) -> Context:
    """The pairs buyers weigh (``structure.pairs``), each listed under both of its GPUs (a reader
    looks for the one they have in mind); every other pair is one choice away in the form."""
    groups = []
    gpus, view = given.dataset.gpus, given.view
    for gpu in gpus.values():
        links = [Link(other.model, url) for other in gpus.values()
                 if other.id != gpu.id and weighed(gpu, other) and (url := view.comparison_url(gpu.id, other.id))]
        if links:
            groups.append((gpu, links))
    pair_count = sum(len(links) for _, links in groups) // 2
    first = next(iter(gpus), None)
    return {"groups": groups, "pair_count": pair_count,
            "memory_factor": formatting.whole_number(MEMORY_FACTOR, given.language.locale), "picker": _picker(given, *_default_pair(given, first)) if first else {},
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
            "summary": model_figures.intro(llm, dataset, language),
            "facts": model_figures.facts(llm, language),
            "relatives": [(relative, given.view.page_url("model", relative.model.id))
                          for relative in model_figures.relatives(llm, dataset, language)],
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
    needs = model_figures.diffusion_needs(diffusion)
    return {
        "kind": "diffusion", "model": diffusion,
        "summary": model_figures.diffusion_intro(diffusion, dataset, language),
        "facts": model_figures.diffusion_facts(diffusion, language),
        "needs": needs,
        "estimated": any(need.estimated for need in needs),
        "estimate_note": model_figures.diffusion_estimate_note(diffusion, language),
        "cheapest": model_figures.diffusion_cheapest(diffusion, dataset, language),
        "gpus_table": model_figures.diffusion_table(diffusion, dataset, language),
        "generation_table": model_figures.generation_table(diffusion, dataset, language),
        "models_index": Link(language.ui("nav_models"), given.view.url_of("models")),
        "prices_as_of": given.prices_as_of,
    }


def _models(given: PageInput) -> Context:
    dataset, language, view = given.dataset, given.language, given.view
    return {
        "llm_groups": [(group, [(row, view.page_url("model", row.model_id)) for row in group.rows])
                       for group in model_figures.llm_index_groups(dataset, language)],
        "diffusions": [(model, view.page_url("model", model.id), model_figures.diffusion_memory_text(model, language),
                        any(need.estimated for need in model_figures.diffusion_needs(model)))
                       for model in dataset.diffusion_models.values()],
        "prices_as_of": given.prices_as_of,
    }


def _nothing(given: PageInput) -> Context:
    return {}


def _with_market_state(layout_context: Callable[[PageInput], Context]) -> Callable[[PageInput], Context]:
    """A layout's context function that also gives the marketplace's state (``call_to_action_state``)."""
    def context(given: PageInput) -> Context:
        return {**call_to_action_state(given), **layout_context(given)}
    context.__name__ = context.__qualname__ = layout_context.__name__
    context.__doc__ = layout_context.__doc__
    return context


#: Layout → what its template receives beyond the common context (and the market's state).
CONTEXTS: dict[str, Callable[[PageInput], Context]] = {layout: _with_market_state(function) for layout, function in {
    "home": _home, "use_case": _use_case, "catalogue": _catalogue, "gpu": _gpu, "comparisons": _comparisons,
    "comparison": _comparison, "models": _models, "model": _model, "guides": _guides, "guide": _nothing, "methodology": _nothing, "search": _nothing,
    "not_found": _nothing,
}.items()}

assert set(CONTEXTS) == set(LAYOUTS), "every layout has a context function"
