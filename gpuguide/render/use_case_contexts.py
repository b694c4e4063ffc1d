"""The contexts of the home page, the use-case pages and the guides index (``render.contexts``).

A use-case page shows its front matter's table, chart and planner with the pairs worth comparing;
the home page lists the use cases, each with the cheapest of its suitable GPUs, and the cheapest
live offers; both link to the guides.
"""

from __future__ import annotations

from markupsafe import Markup

from gpuguide.figures import plan_tables, planner_page, serving, verdicts
from gpuguide.figures.columns import price_performance_notes
from gpuguide.figures.page_tables import build_table
from gpuguide.render.chart import bar_chart
from gpuguide.render.environment import Link
from gpuguide.render.page_input import Context, PageInput, default_pair, gpu_rows, page_links, picker, preset_links
from gpuguide.structure.dataset import Dataset
from gpuguide.structure.pairs import relevant_pairs


def use_case_context(given: PageInput) -> Context:
    page, view, ui = given.page, given.view, given.language.ui
    meta = page.meta
    assert meta.table is not None and meta.short_name is not None
    table = build_table(meta.table.gpus, meta.table.columns, given.dataset, given.language)
    short_name = view.typeset(page, "short_name", given.reads)
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
        "other_use_cases": [link for use_case, link in view.use_cases(given.reads) if use_case != meta.use_case],
        "model_links": _model_links(given, meta.models) if meta.models else [],
        "value_caption": ui("price_performance_caption", use_case=short_name),
        "value_table": value_table,
        "price_notes": [ui(key) for key in price_performance_notes(value_table.column_ids)] if value_table else [],
        # The form opens on the page's closest pair.
        "picker": picker(given, *(pairs[0][1] if pairs else default_pair(given, meta.table.gpus[0]))),
        **(_use_case_planner(meta.planner, given) if meta.planner else {"planner": None}),
    }


def _use_case_planner(model_id: str, given: PageInput) -> Context:
    dataset, language = given.dataset, given.language
    llm = dataset.llm_models[model_id]
    return {
        "planner": planner_page.chooser_planner(llm, dataset, language, page_links(given, "gpu", dataset.gpus),
                                                page_links(given, "model", dataset.llm_models), given.programs),
        "planner_table": plan_tables.plans_table(llm, plan_tables.preset_workload(serving.preset("chat")), dataset,
                                                 language, language.ui("planner_caption", model=llm.name)),
        "planner_presets": preset_links(llm, language),
    }


def _model_links(given: PageInput, kind: str) -> list[Link]:
    """Links to the pages of the language models (``llm``) or of the image and video models (``diffusion``)."""
    records = given.dataset.llm_models if kind == "llm" else given.dataset.diffusion_models
    return [Link(model.name, url) for model in records.values() if (url := given.view.page_url("model", model.id))]


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
    return [Link(given.view.typeset(guide, "title", given.reads), guide.url,
                 description=given.view.typeset(guide, "description", given.reads))
            for guide in given.view.library.by_layout(given.page.lang, "guide")]


#: How many GPUs the home page's "cheapest live offers" table lists.
HOME_OFFERS = 6


def _cheapest(gpu_ids: list[str], dataset: Dataset) -> list[str]:
    """The GPUs of ``gpu_ids`` that have a live offer, cheapest first (ties: in the order given)."""
    priced = [gpu_id for gpu_id in gpu_ids if dataset.price(gpu_id) is not None]
    return sorted(priced, key=lambda gpu_id: dataset.prices[gpu_id].usd_per_gpu_hour)


def home_context(given: PageInput) -> Context:
    """The use cases, each with the cheapest of its suitable GPUs, and the cheapest live offers of
    all: every figure from the data (``data/prices.yaml`` and each use-case page's table)."""
    ui, view, dataset, language = given.language.ui, given.view, given.dataset, given.language
    use_cases = [link for _, link in view.use_cases(given.reads) if link.url]
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


def guides_context(given: PageInput) -> Context:
    return {"guides": _guide_links(given)}
