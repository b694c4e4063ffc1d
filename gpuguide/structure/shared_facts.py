"""What a translation takes from the page it translates: the facts, stated once.

A use-case page's table (its GPUs and columns), chart, price-performance columns, verdict, model
list, planner and use case are facts, not words: the page in the default language states them, and
each translation (same ``translation_key``) takes them from there. A translation holds only words;
one that states a fact again is an error naming the file where it is stated, so a GPU added to the
French table can never be missing from the English one.
"""

from __future__ import annotations

from collections.abc import Iterable

from gpuguide.errors import Problems
from gpuguide.structure.pages import Page

#: The front matter fields a translation takes from the default language's page.
SHARED_FIELDS = ("use_case", "table", "chart", "price_performance", "verdict", "models", "planner")


def share_facts(pages: Iterable[Page], default_language: str, problems: Problems) -> None:
    """Give every translation the shared fields of its default-language page (in place)."""
    sources = {page.meta.translation_key: page for page in pages if page.lang == default_language}
    for page in pages:
        if page.lang != default_language:
            source = sources.get(page.meta.translation_key)
            if source is not None:
                take_facts(page, source, problems)


def take_facts(page: Page, source: Page, problems: Problems) -> None:
    """``page`` (a translation of ``source``) with ``source``'s shared fields; each one ``page``
    states itself is reported at its line."""
    stated = page.front_matter.value if isinstance(page.front_matter.value, dict) else {}
    shared = {}
    for field in SHARED_FIELDS:
        if field in stated:
            position = page.front_matter.position((field,))
            where = problems.relative(source.source)
            problems.error(page.source, position.line, position.column,
                           f"`{field}` is stated once, in {where} (the {source.lang} page this one translates)",
                           f"delete `{field}` here: the page takes it from {where}, where it is changed")
        value = getattr(source.meta, field)
        if value != getattr(page.meta, field):
            shared[field] = value
    page.facts_from = source
    if shared:
        page.take_meta(page.meta.model_copy(update=shared))
