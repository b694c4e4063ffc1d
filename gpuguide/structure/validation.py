"""Cross-page rules, checked once every page is loaded: unique URLs and keys, the reserved pages of
every language, complete use-case pages, known GPUs, translations with a source. Each problem names
its file and line; all are reported at once."""

from __future__ import annotations

import posixpath
from pathlib import Path

from gpuguide.errors import Problems, did_you_mean
from gpuguide.structure.dataset import Dataset
from gpuguide.structure.page_types import LAYOUTS
from gpuguide.structure.library import Library
from gpuguide.structure.pages import DESCRIPTION_LIMIT, TITLE_LIMIT, Page, head_title


def check_pages(library: Library, dataset: Dataset, problems: Problems) -> None:
    """Every cross-page rule (column ids are checked by ``figures.page_tables``, which knows them)."""
    _unique_keys_and_urls(library, problems)
    _reserved_pages(library, dataset, problems)
    for page in library.pages:
        if page.meta.layout == "use_case":
            _use_case_page(page, dataset, problems)
        if page.facts_from is None:  # a translation's facts are its source's: reported there
            _record_ids(page, dataset, problems)
    _translations_have_a_source(library, dataset, problems)
    _outputs_inside_the_site(library, problems)
    _search_engine_lengths(library, dataset, problems)


def _search_engine_lengths(library: Library, dataset: Dataset, problems: Problems) -> None:
    """Warn where a title or a description is longer than search engines show. A pattern (GPU,
    comparison pages) is reported once, with how many of its pages are too long and the longest."""
    too_long: dict[tuple[Path, str], list[str]] = {}
    site_name = dataset.config.site_name
    for page in library.published:
        title = head_title(page.meta.title, site_name)
        if len(title) > TITLE_LIMIT:
            too_long.setdefault((page.source, "title"), []).append(title)
        if len(page.meta.description) > DESCRIPTION_LIMIT:
            too_long.setdefault((page.source, "description"), []).append(page.meta.description)
    pages_by_source = {page.source: page for page in library.pages} if too_long else {}
    for (source, field), found in sorted(too_long.items()):
        page = pages_by_source[source]
        pos = page.front_matter.position((field,))
        longest = max(found, key=len)
        limit = TITLE_LIMIT if field == "title" else DESCRIPTION_LIMIT
        where = f"{len(found)} of its pages have a `{field}`" if len(found) > 1 else f"the `{field}` is"
        problems.warning(source, pos.line, pos.column,
                         f"{where} longer than search engines show ({len(longest)} characters, over {limit}): "
                         f"“{longest}”", f"shorten it to {limit} characters or fewer")


def _unique_keys_and_urls(library: Library, problems: Problems) -> None:
    seen_urls: dict[str, Page] = {}
    seen_keys: dict[tuple[str, str], Page] = {}
    for page in library.pages:
        key = (page.lang, page.meta.translation_key)
        if key in seen_keys:
            pos = page.front_matter.position(("translation_key",))
            problems.error(page.source, pos.line, pos.column,
                           f"two `{page.lang}` pages have the translation key `{page.meta.translation_key}`",
                           f"{problems.relative(seen_keys[key].source)} has it too; each page needs its own key")
        seen_keys.setdefault(key, page)
        if not page.meta.draft and not page.is_generator:
            if page.url in seen_urls:
                pos = page.front_matter.position(("slug",))
                problems.error(page.source, pos.line, pos.column, f"two pages have the URL {page.url}",
                               f"{problems.relative(seen_urls[page.url].source)} has it too; change one `slug`")
            seen_urls.setdefault(page.url, page)


def _reserved_pages(library: Library, dataset: Dataset, problems: Problems) -> None:
    """The pages the renderer links to from every page: exactly one per layout and language."""
    content_dir = problems.root / "content"
    candidates: dict[tuple[str, str], list[Page]] = {}  # (language, layout) → its pages, in one pass
    for page in library.pages:
        if not page.meta.draft:
            candidates.setdefault((page.lang, page.meta.layout), []).append(page)
    default = dataset.config.default_language
    for lang in dataset.config.languages:
        if any(unreadable_lang == lang for unreadable_lang, _ in library.unreadable):
            continue  # a file that failed to load may be the missing page: its error is reported already
        missing = []
        for layout, rule in LAYOUTS.items():
            if not rule.required:
                continue
            pages = [page for page in candidates.get((lang, layout), []) if page.is_generator or not rule.generates]
            if not pages:
                missing.append(layout)
            for extra in pages[1:]:
                pos = extra.front_matter.position(("layout",))
                problems.error(extra.source, pos.line, pos.column, f"a second `{layout}` page in `{lang}`",
                               f"{problems.relative(pages[0].source)} is the `{layout}` page; keep one")
        if missing:
            # One problem per language, as a translation list: a new language lacks them all at once.
            sources = [next((problems.relative(page.source) for page in candidates.get((default, layout), [])), None)
                       for layout in missing]
            listed = ", ".join(f"{source} ({layout})" if source and lang != default else f"`{layout}`"
                               for layout, source in zip(missing, sources))
            what = "page" if len(missing) == 1 else "pages"
            problems.error(content_dir / lang, 1, 1,
                           f"`{lang}` lacks {len(missing)} {what} the site links to from every page: {listed}",
                           f"translate them into content/{lang}/ (`python build.py translations` lists every page "
                           f"still to translate)" if lang != default else
                           f"add content/{lang}/<name>.md with the `layout:` of each")


def _use_case_page(page: Page, dataset: Dataset, problems: Problems) -> None:
    meta = page.meta
    where = page.front_matter.position
    shared = page.facts_from is not None  # its use case, table and chart are its source's: reported there
    for key in ("short_name", "summary") if shared else ("use_case", "short_name", "summary"):
        if getattr(meta, key) is None:
            pos = where(())
            problems.error(page.source, pos.line, pos.column, f"missing required field `{key}`",
                           f"a use-case page needs `{key}: …`")
    if shared:
        return
    if meta.use_case is not None and meta.use_case not in dataset.use_cases:
        pos = where(("use_case",))
        problems.error(page.source, pos.line, pos.column, f"unknown use case `{meta.use_case}`",
                       did_you_mean(meta.use_case, dataset.use_cases) or f"use one of: {', '.join(dataset.use_cases)}")
    if meta.draft:
        return
    if meta.table is None:
        pos = where(())
        problems.error(page.source, pos.line, pos.column, "missing required field `table`",
                       "list the GPUs and columns of the page's comparison table")
    elif meta.chart is None:
        pos = where(())
        problems.error(page.source, pos.line, pos.column, "missing required field `chart`",
                       "name the numeric column of the table to draw, e.g. `chart: train_8gpu`")


def _record_ids(page: Page, dataset: Dataset, problems: Problems) -> None:
    meta = page.meta
    if meta.table is not None:
        for index, gpu_id in enumerate(meta.table.gpus):
            if gpu_id not in dataset.gpus:
                pos = page.front_matter.position(("table", "gpus", index))
                problems.error(page.source, pos.line, pos.column, f"unknown GPU id `{gpu_id}`",
                               did_you_mean(gpu_id, dataset.gpus) or "use an id from data/gpus.yaml")
    if meta.planner is not None and meta.planner not in dataset.llm_models:
        pos = page.front_matter.position(("planner",))
        problems.error(page.source, pos.line, pos.column, f"unknown language model `{meta.planner}`",
                       did_you_mean(meta.planner, dataset.llm_models) or "use a language model id from data/models.yaml")
    if meta.chart is not None:
        plain = [column for column in (meta.table.columns if meta.table else []) if isinstance(column, str)]
        if meta.chart not in plain:
            pos = page.front_matter.position(("chart",))
            problems.error(page.source, pos.line, pos.column, f"`chart: {meta.chart}` is not a column of the table",
                           did_you_mean(meta.chart, plain) or f"use one of: {', '.join(plain)}")


def _outputs_inside_the_site(library: Library, problems: Problems) -> None:
    """Every page is written under site/: its output path is relative and never climbs out (slugs and
    language codes are checked by their patterns; this proves the result)."""
    for page in library.published:
        output = page.output_path
        if output.startswith("/") or posixpath.normpath(output) != output or output.split("/")[0] == "..":
            pos = page.front_matter.position(("slug",))
            problems.error(page.source, pos.line, pos.column, f"the page would be written outside site/: {output}",
                           "use a slug of lower-case words and dashes")


def _translations_have_a_source(library: Library, dataset: Dataset, problems: Problems) -> None:
    """The default language is the source: a translation of nothing is a typo in its key; a
    missing translation is a warning."""
    default = dataset.config.default_language
    default_keys = [page.meta.translation_key for page in library.pages
                    if page.lang == default and page.subject is None]
    for key, pages in library.translations.items():
        if default not in pages:
            if any(lang == default for lang, _ in library.unreadable):
                continue  # the source failed to load: its key is unknown, and that error is reported
            for page in pages.values():
                if page.subject is None:
                    pos = page.front_matter.position(("translation_key",))
                    problems.error(page.source, pos.line, pos.column,
                                   f"the translation key `{key}` matches no `{default}` page",
                                   did_you_mean(key, default_keys)
                                   or f"use the `translation_key` of the `{default}` page this page translates")
            continue
        source = pages[default]
        if source.meta.translated_from is not None and source.subject is None:
            pos = source.front_matter.position(("translated_from",))
            problems.error(source.source, pos.line, pos.column,
                           f"a `{default}` page is the source of its translations, not a translation",
                           "remove `translated_from`")
        for lang in dataset.config.languages:
            if lang not in pages:
                pos = source.front_matter.position(("translation_key",))
                problems.warning(source.source, pos.line, pos.column,
                                 f"no `{lang}` translation of this page (translation_key `{key}`)",
                                 f"add content/{lang}/… with `translation_key: {key}`")
