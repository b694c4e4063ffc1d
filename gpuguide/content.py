"""Pages: Markdown files under ``content/<lang>/`` with YAML front matter.

A page stores only where it came from and what its editor wrote; its URL and output path are
derived. ``Library.translations`` maps each translation key to the page in each language, and
drives the language switcher and the missing-translation report.
"""

from __future__ import annotations

import contextlib
import hashlib
import multiprocessing as mp
import os
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
import itertools
from typing import Annotated, Any, Literal, NamedTuple

from pydantic import Field, ValidationError

from .datasets import Dataset
from .errors import Problems, did_you_mean
from .schema import Strict, validate
from .sources import FRONT_MATTER_OFFSET, YamlDocument, read_text, split_front_matter

# A slug is a relative URL path: no `..`, no leading `/`, so no page can be written outside site/.
# The empty slug is the language's home page.
Slug = Annotated[str, Field(pattern=r"^([a-z0-9]+(-[a-z0-9]+)*(/[a-z0-9]+(-[a-z0-9]+)*)*)?$",
                            description="lower-case letters, digits, dashes and slashes, e.g. `entrainement-llm`")]

#: Layouts whose one Markdown file generates a page per GPU, or per pair of GPUs, from the dataset.
GENERATOR_LAYOUTS = ("gpu", "comparison")
Layout = Literal["use_case", "guide", "home", "catalogue", "comparisons", "gpu", "comparison", "search", "methodology",
                 "not_found", "guides"]


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
    layout: Layout
    use_case: str | None = None
    short_name: str | None = None  # how headings name the use case: "entraînement de LLM"
    summary: str | None = None  # one line, shown in "other use cases" lists
    table: TableSpec | None = None
    table_note: str | None = None  # Markdown (shortcodes allowed) printed under the table
    chart: str | None = None  # a numeric column of the table, drawn as a bar chart against price
    draft: bool = False  # a draft is not published; its title and summary may still be listed
    # On a translation: the start of the hash of the source page's body it was made from (see translations).
    translated_from: str | None = Field(default=None, pattern=r"^[0-9a-f]{8,64}$",
                                        description="the hash `python build.py translations --stamp <file>` writes")


@dataclass
class Page:
    source: Path
    lang: str
    meta: PageMeta
    front_matter: YamlDocument
    body_offset: int  # where the body starts in the file's text
    body_line: int  # line of the body's first line in the source file
    record: Any = None  # generated pages: the GPU, or the pair of GPUs, the page is about

    @classmethod
    def from_text(cls, source: Path, lang: str, meta: PageMeta, front_matter: YamlDocument, body: str,
                  body_offset: int, body_line: int, record: Any = None) -> "Page":
        """A page whose body is already read."""
        page = cls(source, lang, meta, front_matter, body_offset, body_line, record)
        page.__dict__["body"] = body  # fills the cached property
        return page

    @cached_property
    def body(self) -> str:
        """The Markdown after the front matter. A page the content cache knows unchanged was loaded
        without reading its file: the body is read when first needed (to render the page)."""
        return self.source.read_text(encoding="utf-8").removeprefix("\ufeff")[self.body_offset:]

    @cached_property
    def body_digest(self) -> str:
        """What the build cache keys the page's own content with."""
        return hashlib.blake2b(self.body.encode("utf-8"), digest_size=16).hexdigest()

    @cached_property
    def meta_json(self) -> str:
        """The front matter as validated, in JSON: part of what every page's cache key covers."""
        return self.meta.model_dump_json()

    @cached_property
    def translation_hash(self) -> str:
        """The hash a translation of this page records (``translated_from``)."""
        from .translations import body_hash

        return body_hash(self.body)

    @cached_property
    def url(self) -> str:
        """Site-absolute URL, always a directory: ``/fr/entrainement-llm/``, ``/fr/`` for the home page."""
        return f"/{self.lang}/{self.meta.slug}/" if self.meta.slug else f"/{self.lang}/"

    @cached_property
    def output_path(self) -> str:
        """Where the page is written, relative to site/: ``fr/entrainement-llm/index.html``."""
        return f"{self.lang}/{self.meta.slug}/index.html" if self.meta.slug else f"{self.lang}/index.html"

    @property
    def is_generator(self) -> bool:
        """A pattern for generated pages; itself never published."""
        return self.meta.layout in GENERATOR_LAYOUTS and self.record is None


@dataclass
class Library:
    """Every page found under ``content/``, sorted, with the translation map."""

    pages: list[Page] = field(default_factory=list)
    unreadable: list[tuple[str, Path]] = field(default_factory=list)  # (language, file) that failed to load
    # Indexes templates ask for hundreds of times per build, rebuilt when pages are added.
    _memo: dict[tuple, Any] = field(default_factory=dict, repr=False, compare=False)

    def _memoised(self, key: tuple, compute: Any) -> Any:
        key = (len(self.pages), *key)
        if key not in self._memo:
            self._memo[key] = compute()
        return self._memo[key]

    @property
    def published(self) -> list[Page]:
        return self._memoised(("published",), lambda: [
            page for page in self.pages if not page.meta.draft and not page.is_generator])

    def by_layout(self, lang: str, layout: str) -> list[Page]:
        return self._memoised(("by_layout", lang, layout), lambda: [
            page for page in self.published if page.lang == lang and page.meta.layout == layout])

    def find(self, translation_key: str, lang: str) -> Page | None:
        """The published page with this key in this language."""
        page = self.translations.get(translation_key, {}).get(lang)
        return page if page is not None and not page.meta.draft and not page.is_generator else None

    @property
    def translations(self) -> dict[str, dict[str, Page]]:
        """Translation key → {language: page}."""
        def compute() -> dict[str, dict[str, Page]]:
            table: dict[str, dict[str, Page]] = {}
            for page in self.pages:
                table.setdefault(page.meta.translation_key, {})[page.lang] = page
            return table
        return self._memoised(("translations",), compute)

    def translation(self, page: Page, lang: str) -> Page | None:
        """The published page in ``lang`` with the same translation key, if there is one."""
        return self.find(page.meta.translation_key, lang)

    def use_case_pages(self, lang: str, order: list[str]) -> list[Page]:
        """Use-case pages of one language (drafts included), in the dataset's order."""
        def compute() -> list[Page]:
            pages = [p for p in self.pages if p.lang == lang and p.meta.layout == "use_case" and p.meta.use_case]
            return sorted(pages, key=lambda p: order.index(p.meta.use_case) if p.meta.use_case in order
                          else len(order))
        return self._memoised(("use_case_pages", lang, tuple(order)), compute)


class ParsedSource(NamedTuple):
    """A Markdown file's front matter, parsed and validated: what the content cache keeps of it."""

    stat: tuple[int, int, int, int]  # size, mtime, ctime (ns), inode: unchanged, the file is not read
    digest: str  # of the file's text: a file saved again with the same text is not parsed again
    body_digest: str
    translation_hash: str
    meta_json: str
    meta: dict[str, Any]  # PageMeta's fields: validating them again costs a third of unpickling the model
    front_matter: Any  # the YAML's value
    yaml: str  # the YAML's text, parsed again only if a position is asked for (an error to report)
    body_offset: int
    body_line: int


#: Source path → its front matter as last parsed; ``load_library`` reads and refreshes it.
ParsedSources = dict[str, ParsedSource]


def load_library(content_dir: Path, dataset: Dataset | None, problems: Problems,
                 parsed: ParsedSources | None = None, parallel: bool = False) -> Library:
    """Read every Markdown file of every configured language; report every problem found.

    Without a valid dataset (its errors are already reported) pages are still read and validated
    on their own, so the editor sees every problem of the run at once. With ``parsed`` (the
    content cache), a file whose text is unchanged is not parsed again; ``parsed`` is left
    holding exactly the files that loaded without a problem. With ``parallel`` and nothing cached
    (a cold build of ten thousand pages), files are parsed on every core: worker processes parse
    all but the first share, which this process parses meanwhile.
    """
    previous = dict(parsed) if parsed is not None else {}
    if parsed is not None:
        parsed.clear()
    library = Library()
    languages = (list(dataset.config.languages) if dataset is not None
                 else sorted(p.name for p in content_dir.iterdir() if p.is_dir()) if content_dir.is_dir() else [])
    files: list[tuple[str, Path]] = []
    for lang in languages:
        lang_dir = content_dir / lang
        if not lang_dir.is_dir():
            problems.error(lang_dir, 1, 1, f"no content folder for language `{lang}`",
                           f"create {lang_dir.as_posix()}/ or remove `{lang}` from data/site.yaml")
            continue
        files += [(lang, path) for path in _markdown_files(lang_dir)]
    # Nothing cached (a first build, or new code): parse on every core.
    workers = min(os.cpu_count() or 1, 8)
    with contextlib.ExitStack() as stack:
        own, found = len(files), iter(())
        if (parallel and not previous and workers > 1 and len(files) >= PARALLEL_MIN_FILES
                and "fork" in mp.get_all_start_methods()):
            pool = stack.enter_context(mp.get_context("fork").Pool(workers - 1))
            # This process parses the first share itself while the workers parse the rest;
            # then it loads the rest in order, from what they found.
            own = len(files) // workers
            rest = [path for _, path in files[own:]]
            found = pool.imap(_parse_chunk, [rest[start:start + 64] for start in range(0, len(rest), 64)])
        for index, (lang, path) in enumerate(files):
            if index == own:  # the workers' share: loaded from what they parsed
                for chunk in found:
                    previous.update((str(parsed_path), source) for parsed_path, source in chunk if source is not None)
            page = _load_page(path, lang, problems, previous, parsed)
            if page is not None:
                library.pages.append(page)
            else:
                library.unreadable.append((lang, path))
    if dataset is not None:
        library.pages.extend(_generated_pages(library, dataset, problems))
        _check_pages(library, dataset, problems)
    return library


def _markdown_files(folder: Path) -> list[Path]:
    """Every ``.md`` file under ``folder``, in the order of sorted paths (each folder's entries by
    name, a subfolder's files where its name sorts), listed with os.scandir: a fifth of the time
    of sorting ``rglob``'s paths."""
    found: list[Path] = []
    with os.scandir(folder) as listing:
        entries = sorted(listing, key=lambda entry: entry.name)
    for entry in entries:
        if entry.is_dir():
            found += _markdown_files(Path(entry.path))
        elif entry.name.endswith(".md") and entry.is_file():
            found.append(Path(entry.path))
    return found


#: Below this many files to parse, forking workers costs more than it saves.
PARALLEL_MIN_FILES = 500


def _file_key(path: Path) -> tuple[int, int, int, int] | None:
    try:
        stat = os.stat(path)
    except OSError:
        return None  # read_text reports it
    return (stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns, stat.st_ino)


def _parse_chunk(paths: list[Path]) -> list[tuple[Path, ParsedSource | None]]:
    """In a worker: parse and validate files into content cache entries; a file with any problem
    is left to the main process, which parses it again and reports its problems in order."""
    parsed: list[tuple[Path, ParsedSource | None]] = []
    for path in paths:
        found: ParsedSources = {}
        _load_page(path, "", Problems(path.parent), {}, found)
        parsed.append((path, found.get(str(path))))
    return parsed


def _load_page(path: Path, lang: str, problems: Problems, previous: ParsedSources,
               parsed: ParsedSources | None) -> Page | None:
    known = previous.get(str(path))
    file_key = _file_key(path)
    if known is not None and known.stat == file_key:  # as make and git do: same size and times
        page = _cached_page(path, lang, known)
        if page is not None:
            if parsed is not None:
                parsed[str(path)] = known
            return page
    text = read_text(path, problems)
    if text is None:
        return None
    text_digest = hashlib.blake2b(text.encode("utf-8"), digest_size=16).hexdigest()
    page = _cached_page(path, lang, known) if known is not None and known.digest == text_digest else None
    if page is not None:  # saved again, same text
        page.__dict__["body"] = text[known.body_offset:]
        if parsed is not None and file_key is not None:
            parsed[str(path)] = known._replace(stat=file_key)
        return page
    before = len(problems.items)
    parts = split_front_matter(text, path, problems)
    if parts is None:
        return None
    meta = validate(PageMeta, parts.front_matter, path, problems)
    if meta is None:
        return None
    page = Page.from_text(path, lang, meta, parts.front_matter, text[parts.body_offset:], parts.body_offset,
                          parts.body_line)
    # A page with warnings is not cached: they must be reported again next time.
    if parsed is not None and file_key is not None and len(problems.items) == before:
        parsed[str(path)] = ParsedSource(file_key, text_digest, page.body_digest, page.translation_hash,
                                         page.meta_json, meta.model_dump(), parts.front_matter.value, parts.front_matter.text or "",
                                         parts.body_offset, parts.body_line)
    return page


def _cached_page(path: Path, lang: str, known: ParsedSource) -> Page | None:
    """The page as the content cache knows it, or None if its fields no longer validate (a
    cache written by an older version of the schema)."""
    try:
        meta = PageMeta.model_validate(known.meta)
    except ValidationError:
        return None
    page = Page(path, lang, meta, YamlDocument(known.front_matter, None, FRONT_MATTER_OFFSET, known.yaml),
                known.body_offset, known.body_line)
    page.__dict__["body_digest"] = known.body_digest
    page.__dict__["translation_hash"] = known.translation_hash
    page.__dict__["meta_json"] = known.meta_json
    return page


def gpu_pairs(gpu_ids: list[str]) -> list[tuple[str, str]]:
    """Every unordered pair of GPUs once, the first in dataset order: n·(n−1)/2 pairs."""
    return list(itertools.combinations(gpu_ids, 2))


def comparison_slug(base: str, first: str, second: str) -> str:
    return f"{base}/{first}-vs-{second}"


def _generated_pages(library: Library, dataset: Dataset, problems: Problems) -> list[Page]:
    """The pages a generator layout makes: one per GPU (``gpu``), one per pair of GPUs (``comparison``).

    Their title is the pattern page's title with ``{model}`` (or ``{a}`` and ``{b}``) filled in;
    their translation key is the pattern's key plus the GPU id(s), so translations still pair up.
    """
    generated: list[Page] = []
    for pattern in [page for page in library.pages if page.is_generator and not page.meta.draft]:
        meta = pattern.meta
        if meta.layout == "gpu":
            records = [((gpu.id,), gpu, {"model": gpu.model}) for gpu in dataset.gpus.values()]
            placeholders = "{model}"
        else:
            records = [((a, b), (dataset.gpus[a], dataset.gpus[b]),
                        {"a": dataset.gpus[a].model, "b": dataset.gpus[b].model})
                       for a, b in gpu_pairs(list(dataset.gpus))]
            placeholders = "{a} and {b}"
        try:
            for field in ("title", "description"):
                getattr(meta, field).format(**records[0][2]) if records else None
        except (KeyError, IndexError, ValueError) as exc:
            pos = pattern.front_matter.position((field,))
            problems.error(pattern.source, pos.line, pos.column, f"`{field}` has an unknown placeholder {exc}",
                           f"a `{meta.layout}` page can use {placeholders}")
            continue
        for ids, record, names in records:
            suffix = "-vs-".join(ids)
            new_meta = meta.model_copy(update={
                "slug": f"{meta.slug}/{suffix}",
                "title": meta.title.format(**names),
                "description": meta.description.format(**names),
                "translation_key": f"{meta.translation_key}/{suffix}",
            })
            generated.append(Page.from_text(pattern.source, pattern.lang, new_meta, pattern.front_matter,
                                            pattern.body, pattern.body_offset, pattern.body_line, record))
    return generated


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
        if not page.meta.draft and not page.is_generator:
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
            if meta.chart is None and meta.table is not None and not meta.draft:
                pos = where(())
                problems.error(page.source, pos.line, pos.column, "missing required field `chart`",
                               "name the numeric column of the table to draw, e.g. `chart: train_8gpu`")
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
        if meta.chart is not None:
            plain = [c for c in (meta.table.columns if meta.table else []) if isinstance(c, str)]
            if meta.chart not in plain:
                pos = where(("chart",))
                problems.error(page.source, pos.line, pos.column, f"`chart: {meta.chart}` is not a column of the table",
                               did_you_mean(meta.chart, plain) or f"use one of: {', '.join(plain)}")
    default = dataset.config.default_language
    default_keys = [page.meta.translation_key for page in library.pages
                    if page.lang == default and page.record is None]
    for key, pages in library.translations.items():
        langs = sorted(pages)
        if default not in pages and not any(lang == default for lang, _ in library.unreadable):
            # (When a source file failed to load, its key is unknown: that error is reported already.)
            # The default language is the source: a translation of nothing is a typo in its key.
            for page in pages.values():
                if page.record is None:
                    pos = page.front_matter.position(("translation_key",))
                    problems.error(page.source, pos.line, pos.column,
                                   f"the translation key `{key}` matches no `{default}` page",
                                   did_you_mean(key, default_keys)
                                   or f"use the `translation_key` of the `{default}` page this page translates")
            continue
        for lang, page in pages.items():
            if lang == default and page.meta.translated_from is not None and page.record is None:
                pos = page.front_matter.position(("translated_from",))
                problems.error(page.source, pos.line, pos.column,
                               f"a `{default}` page is the source of its translations, not a translation",
                               "remove `translated_from`")
        if default not in pages:
            continue
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
