"""The library: every page of the site, sorted, with the one translation map and the reserved pages.

``translations`` maps each translation key to the page in each language: it drives the language
switcher, hreflang, the sitemap and the missing-translation report, so none of them computes it
again. ``reserved`` finds the page of a layout the registry requires (``structure.page_types``), and
``generated`` the page a generator made for a GPU or a pair.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from gpuguide.cached import cached_property
from gpuguide.structure.page_types import LAYOUTS
from gpuguide.structure.pages import Page


@dataclass(frozen=True)
class Library:
    """Every page found under ``content/`` and generated from it, in a stable order. Built once, read only."""

    pages: tuple[Page, ...]
    unreadable: tuple[tuple[str, Path], ...] = ()  # (language, file) that failed to load

    @cached_property
    def published(self) -> tuple[Page, ...]:
        """The pages written to the site: not drafts, not generator patterns."""
        return tuple(page for page in self.pages if not page.meta.draft and not page.is_generator)

    @cached_property
    def translations(self) -> dict[str, dict[str, Page]]:
        """Translation key → {language: page} (drafts and patterns included: they pair up too)."""
        table: dict[str, dict[str, Page]] = {}
        for page in self.pages:
            table.setdefault(page.meta.translation_key, {})[page.lang] = page
        return table

    @cached_property
    def _by_layout(self) -> dict[tuple[str, str], list[Page]]:
        index: dict[tuple[str, str], list[Page]] = {}
        for page in self.published:
            index.setdefault((page.lang, page.meta.layout), []).append(page)
        return index

    @cached_property
    def _generated(self) -> dict[tuple[str, str, tuple[str, ...]], Page]:
        return {(page.lang, page.meta.layout, page.subject.ids): page
                for page in self.published if page.subject is not None}

    @cached_property
    def _use_cases(self) -> dict[str, list[Page]]:
        index: dict[str, list[Page]] = {}
        for page in self.pages:  # every comparison page lists them: find them once
            if page.meta.layout == "use_case" and page.meta.use_case:
                index.setdefault(page.lang, []).append(page)
        return index

    def by_layout(self, lang: str, layout: str) -> list[Page]:
        """The published pages of one layout in one language, in library order."""
        return self._by_layout.get((lang, layout), [])

    def reserved(self, layout: str, lang: str) -> Page | None:
        """The one page of a layout the site requires (catalogue, search…) in ``lang``; validation
        has reported it if it is missing."""
        assert LAYOUTS[layout].required and not LAYOUTS[layout].generates, layout
        pages = self.by_layout(lang, layout)
        return pages[0] if pages else None

    def generated(self, layout: str, lang: str, ids: tuple[str, ...]) -> Page | None:
        """The page a generator layout made for these GPU ids (one GPU, or a pair in dataset order)."""
        return self._generated.get((lang, layout, ids))

    def find(self, translation_key: str, lang: str) -> Page | None:
        """The published page with this key in this language."""
        page = self.translations.get(translation_key, {}).get(lang)
        return page if page is not None and not page.meta.draft and not page.is_generator else None

    def translation(self, page: Page, lang: str) -> Page | None:
        """The published page in ``lang`` with the same translation key, if there is one."""
        return self.find(page.meta.translation_key, lang)

    def use_case_pages(self, lang: str, order: list[str]) -> list[Page]:
        """Use-case pages of one language (drafts included: they are listed, unlinked), in the dataset's order."""
        pages = self._use_cases.get(lang, [])
        return sorted(pages, key=lambda p: order.index(p.meta.use_case) if p.meta.use_case in order else len(order))
