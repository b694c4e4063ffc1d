"""Pages: Markdown files under ``content/<lang>/`` with YAML front matter.

A page stores only where it came from and what its editor wrote; its URL and output path are
derived. ``Library.translations`` maps each translation key to the page in each language, and
drives the language switcher and the missing-translation report.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Annotated, Literal

from pydantic import Field

from .datasets import Dataset
from .errors import Problems, did_you_mean
from .schema import Strict, validate
from .sources import YamlDocument, read_text, split_front_matter

Slug = Annotated[str, Field(pattern=r"^[a-z0-9]+(-[a-z0-9]+)*(/[a-z0-9]+(-[a-z0-9]+)*)*$",
                            description="lower-case letters, digits and dashes, e.g. `entrainement-llm`")]


class ModelColumn(Strict):
    """A column about one model: ``{id: decode_upper_bound, model: llama-3-1-8b, precision: bf16}``."""

    id: str
    model: str
    precision: str


class TableSpec(Strict):
    """Which GPUs a page's comparison table shows, in which order, and which columns."""

    gpus: list[str] = Field(min_length=1)
    columns: list[str | ModelColumn] = Field(min_length=1)


class PageMeta(Strict):
    """Front matter of a page."""

    title: str = Field(min_length=1)
    description: str = Field(min_length=1)
    slug: Slug
    translation_key: str = Field(min_length=1)
    layout: Literal["use_case"]
    use_case: str | None = None
    short_name: str | None = None  # how headings name the use case: "entraînement de LLM"
    summary: str | None = None  # one line, shown in "other use cases" lists
    table: TableSpec | None = None
    table_note: str | None = None  # Markdown (shortcodes allowed) printed under the table
    draft: bool = False  # a draft is not published; its title and summary may still be listed


@dataclass
class Page:
    source: Path
    lang: str
    meta: PageMeta
    front_matter: YamlDocument
    body: str
    body_line: int  # line of the body's first line in the source file

    @property
    def url(self) -> str:
        """Site-absolute URL, always a directory: ``/fr/entrainement-llm/``."""
        return f"/{self.lang}/{self.meta.slug}/"

    @property
    def output_path(self) -> PurePosixPath:
        return PurePosixPath(self.lang, *self.meta.slug.split("/"), "index.html")


@dataclass
class Library:
    """Every page found under ``content/``, sorted, with the translation map."""

    pages: list[Page] = field(default_factory=list)

    @property
    def published(self) -> list[Page]:
        return [page for page in self.pages if not page.meta.draft]

    @property
    def translations(self) -> dict[str, dict[str, Page]]:
        table: dict[str, dict[str, Page]] = {}
        for page in self.pages:
            table.setdefault(page.meta.translation_key, {})[page.lang] = page
        return table

    def translation(self, page: Page, lang: str) -> Page | None:
        """The published page in ``lang`` with the same translation key, if there is one."""
        other = self.translations.get(page.meta.translation_key, {}).get(lang)
        return other if other is not None and not other.meta.draft else None

    def use_case_pages(self, lang: str, order: list[str]) -> list[Page]:
        """Use-case pages of one language (drafts included), in the dataset's order."""
        pages = [p for p in self.pages if p.lang == lang and p.meta.layout == "use_case" and p.meta.use_case]
        return sorted(pages, key=lambda p: order.index(p.meta.use_case) if p.meta.use_case in order else len(order))


def load_library(content_dir: Path, dataset: Dataset | None, problems: Problems) -> Library:
    """Read every Markdown file of every configured language; report every problem found.

    Without a valid dataset (its errors are already reported) pages are still read and validated
    on their own, so the editor sees every problem of the run at once.
    """
    library = Library()
    languages = (list(dataset.config.languages) if dataset is not None
                 else sorted(p.name for p in content_dir.iterdir() if p.is_dir()) if content_dir.is_dir() else [])
    for lang in languages:
        lang_dir = content_dir / lang
        if not lang_dir.is_dir():
            problems.error(lang_dir, 1, 1, f"no content folder for language `{lang}`",
                           f"create {lang_dir.as_posix()}/ or remove `{lang}` from data/site.yaml")
            continue
        for path in sorted(lang_dir.rglob("*.md")):
            page = _load_page(path, lang, problems)
            if page is not None:
                library.pages.append(page)
    if dataset is not None:
        _check_pages(library, dataset, problems)
    return library


def _load_page(path: Path, lang: str, problems: Problems) -> Page | None:
    text = read_text(path, problems)
    if text is None:
        return None
    parts = split_front_matter(text, path, problems)
    if parts is None:
        return None
    meta = validate(PageMeta, parts.front_matter, path, problems)
    if meta is None:
        return None
    return Page(path, lang, meta, parts.front_matter, parts.body, parts.body_line)


def _check_pages(library: Library, dataset: Dataset, problems: Problems) -> None:
    """Cross-page rules: unique URLs, known GPUs and use cases, known columns, complete use cases."""
    seen_urls: dict[str, Page] = {}
    seen_keys: dict[tuple[str, str], Page] = {}
    for page in library.pages:
        where = page.front_matter.position
        key = (page.lang, page.meta.translation_key)
        if key in seen_keys:
            pos = where(("translation_key",))
            problems.error(page.source, pos.line, pos.column,
                           f"two `{page.lang}` pages have the translation key `{page.meta.translation_key}`",
                           f"{problems.relative(seen_keys[key].source)} has it too; each page needs its own key")
        seen_keys.setdefault(key, page)
        if not page.meta.draft:
            if page.url in seen_urls:
                pos = where(("slug",))
                problems.error(page.source, pos.line, pos.column, f"two pages have the URL {page.url}",
                               f"{problems.relative(seen_urls[page.url].source)} has it too; change one `slug`")
            seen_urls.setdefault(page.url, page)
        meta = page.meta
        if meta.layout == "use_case":
            for key in ("use_case", "short_name", "summary"):
                if getattr(meta, key) is None:
                    pos = where(())
                    problems.error(page.source, pos.line, pos.column, f"missing required field `{key}`",
                                   f"a use-case page needs `{key}: …`")
            if meta.use_case is not None and meta.use_case not in dataset.use_cases:
                pos = where(("use_case",))
                problems.error(page.source, pos.line, pos.column, f"unknown use case `{meta.use_case}`",
                               did_you_mean(meta.use_case, dataset.use_cases)
                               or f"use one of: {', '.join(dataset.use_cases)}")
            if meta.table is None and not meta.draft:
                pos = where(())
                problems.error(page.source, pos.line, pos.column, "missing required field `table`",
                               "list the GPUs and columns of the page's comparison table")
        if meta.table is not None:
            for index, gpu_id in enumerate(meta.table.gpus):
                if gpu_id not in dataset.gpus:
                    pos = where(("table", "gpus", index))
                    problems.error(page.source, pos.line, pos.column, f"unknown GPU id `{gpu_id}`",
                                   did_you_mean(gpu_id, dataset.gpus) or "use an id from data/gpus.yaml")
            for index, column in enumerate(meta.table.columns):
                _check_column(column, page, ("table", "columns", index), dataset, problems)
    for key, pages in library.translations.items():
        langs = sorted(pages)
        for lang in dataset.config.languages:
            if lang not in pages:
                page = pages[langs[0]]
                pos = page.front_matter.position(("translation_key",))
                problems.warning(page.source, pos.line, pos.column,
                                 f"no `{lang}` translation of this page (translation_key `{key}`)",
                                 f"add content/{lang}/… with `translation_key: {key}`")


def _check_column(column: "str | ModelColumn", page: Page, path: tuple, dataset: Dataset,
                  problems: Problems) -> None:
    from .tables import COLUMNS, MODEL_COLUMNS

    pos = page.front_matter.position(path)
    if isinstance(column, str):
        if column not in COLUMNS:
            hint = did_you_mean(column, [*COLUMNS, *MODEL_COLUMNS])
            problems.error(page.source, pos.line, pos.column, f"unknown column `{column}`",
                           hint or f"use one of: {', '.join(COLUMNS)}")
        return
    if column.id not in MODEL_COLUMNS:
        problems.error(page.source, pos.line, pos.column, f"unknown model column `{column.id}`",
                       did_you_mean(column.id, MODEL_COLUMNS) or f"use one of: {', '.join(MODEL_COLUMNS)}")
        return
    _, dataset_name, precisions = MODEL_COLUMNS[column.id]
    models = getattr(dataset, dataset_name)
    if column.model not in models:
        pos = page.front_matter.position(path + ("model",))
        problems.error(page.source, pos.line, pos.column, f"unknown model `{column.model}`",
                       did_you_mean(column.model, models) or "use an id from data/models.yaml")
    if column.precision not in precisions:
        pos = page.front_matter.position(path + ("precision",))
        problems.error(page.source, pos.line, pos.column, f"unknown precision `{column.precision}`",
                       f"use one of: {', '.join(precisions)}")
