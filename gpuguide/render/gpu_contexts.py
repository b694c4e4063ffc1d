"""The contexts of the GPU pages and their indexes (``render.contexts``): the catalogue, one page per
GPU, the comparisons index and one page per pair (with the redirect at the pair's other order).
"""

from __future__ import annotations

import functools
from typing import Any

from gpuguide.figures import (
    diffusion_figures,
    formatting,
    model_index,
    plan_tables,
    planner_page,
    serving,
    verdicts,
)
from gpuguide.figures.columns import CATALOGUE_COLUMNS, SEGMENTS, SPEC_COLUMNS
from gpuguide.figures.page_tables import Table, build_table
from gpuguide.render.comparison import side_by_side
from gpuguide.render.environment import Link, relative_url
from gpuguide.render.page_input import Context, PageInput, default_pair, gpu_rows, page_links, picker, preset_links
from gpuguide.structure.pages import GpuSubject, PairSubject, ReversedPairSubject, head_title
from gpuguide.structure.pairs import MEMORY_FACTOR, weighed

#: The catalogue's columns: what a buyer compares first (the price, the memory), then the rest of
#: the specifications in their usual order.
CATALOGUE_TABLE_COLUMNS = ("price", "memory", *(c for c in CATALOGUE_COLUMNS if c not in ("price", "memory")))


def catalogue_context(given: PageInput) -> Context:
    groups = []
    for segment in SEGMENTS:
        ids = [gpu_id for gpu_id, gpu in given.dataset.gpus.items() if gpu.segment == segment]
        if ids:
            table = build_table(ids, list(CATALOGUE_TABLE_COLUMNS), given.dataset, given.language)
            groups.append((segment, given.language.ui(f"segment_{segment.replace('-', '_')}"), table))
    first = next(iter(given.dataset.gpus), None)
    return {"groups": groups, "prices_as_of": given.prices_as_of,
            "picker": picker(given, *default_pair(given, first)) if first else {},
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
            sections.append({"title": view.typeset(use_case, "title", given.reads), "short_name": view.typeset(use_case, "short_name", given.reads),
                             "url": use_case.url, "table": table})
    return sections


def gpu_context(given: PageInput) -> Context:
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
                                            page_links(given, "model", given.dataset.llm_models),
                                            given.gpu_programs),
        "planner_table": plan_tables.models_for_workload_table(
            given.dataset.gpus[gpu.id], plan_tables.preset_workload(serving.preset("chat")), given.dataset,
            given.language),
        "planner_presets": preset_links(None),
        "diffusion_models": [Link(model.name, view.page_url("model", model.id))
                             for model in diffusion_figures.diffusion_on_gpu(gpu, given.dataset)],
        "picker": picker(given, *default_pair(given, gpu.id)),
        "share_text": model_index.usable_share_text(given.language),
        "specs": list(zip(specs.headers, specs.column_ids, specs.rows[0].cells)),
        "use_case_figures": _use_case_figures([gpu.id], given),
        # The pairs buyers weigh (``structure.pairs``): the others are one choice away in the form.
        "comparisons": [Link(other.model, url) for other in given.dataset.gpus.values()
                        if other.id != gpu.id and weighed(gpu, other) and (url := view.comparison_url(gpu.id, other.id))],
        "catalogue": given.catalogue,
        "prices_as_of": given.prices_as_of,
    }


def comparison_context(given: PageInput) -> Context:
    subject = given.page.subject
    if isinstance(subject, ReversedPairSubject):
        return pair_redirect(given)
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
        "picker": picker(given, a.id, b.id),
        "spec_rows": side_by_side(specs, given.language),
        "use_case_rows": [(section, side_by_side(section["table"], given.language)) for section in sections
                          if section["table"] is not None],
        "prices_as_of": given.prices_as_of,
    }


def _pair_card_lines(first: str, second: str, given: PageInput) -> tuple[str, ...]:
    """The sharing card of a pair's page (its other order's redirect has none)."""
    table = gpu_rows([first, second], ["memory", "price"], given)
    return tuple(given.language.ui("card_gpu_line", gpu=row.gpu.short_name, memory=row.cells[0].text,
                                   price=row.cells[1].text) for row in table.rows)


def pair_redirect(given: PageInput) -> Context:
    """The whole context of the page at a pair's other order (``b-vs-a``, ``Page.redirects``): it
    sends the reader to the pair's page, its canonical address, and is never indexed. Its title and
    description are all it shows of the site: no layout, no body, no sharing card."""
    page, view = given.page, given.view
    assert isinstance(page.subject, ReversedPairSubject)
    pair = page.subject.pair
    target = view.comparison_url(pair.first.id, pair.second.id)
    assert target is not None  # both orders are generated together
    title = view.typeset(page, "title", given.reads)
    return {"page": page, "meta": page.meta, "lang": page.lang, "title": title, "ui": given.language.ui,
            "head_title": head_title(title, given.dataset.config.site_name),
            "description": view.typeset(page, "description", given.reads),
            "url": functools.partial(relative_url, page.url), "card": None,
            "redirect": target, "canonical": view.absolute(target), "indexable": False, "hreflang": [],
            "a": pair.first, "b": pair.second}


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
        short_name = view.typeset(page, "short_name", given.reads) or view.typeset(page, "title", given.reads)
        sections.append({"title": view.typeset(page, "title", given.reads), "short_name": short_name,
                         "name": short_name[:1].upper() + short_name[1:], "url": page.url,
                         "use_case": page.meta.use_case, "line": line,
                         "table": gpu_rows(gpu_ids, columns, given) if both_can and columns else None})
    return result.offer_note, sections


def comparisons_context(given: PageInput) -> Context:
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
            "memory_factor": formatting.whole_number(MEMORY_FACTOR, given.language.locale), "picker": picker(given, *default_pair(given, first)) if first else {},
            "card_lines": (given.language.ui("card_comparisons", count=pair_count),)}
