"""Pages: Markdown files under ``content/<lang>/`` with YAML front matter, and the pages generated from them.

A page stores only where it came from and what its editor wrote; its URL and output path are
derived. A generator page (``layout: gpu``, ``comparison``, ``model``) makes one page per GPU, per
pair of GPUs or per model, whose ``subject`` says which.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Literal, Union

from pydantic import Field

from gpuguide.cached import cached_property
from gpuguide.errors import Problems
from gpuguide.structure.data import Dataset, DiffusionModel, Gpu, LlmModel
from gpuguide.structure.language import fill, placeholders
from gpuguide.structure.layouts import GENERATOR_LAYOUTS, LAYOUTS, Layout
from gpuguide.structure.pairs import gpu_pairs, weighed
from gpuguide.structure.schema import Strict, pattern_hint
from gpuguide.structure.sources import YamlDocument, read_project_file

# A slug is a relative URL path: no `..`, no leading `/`, so no page can be written outside site/.
# The empty slug is the language's home page.
# Each folder of it at most 100 characters: far within the 255 bytes a file system allows a name.
Slug = Annotated[str, Field(pattern=pattern_hint(
    r"^([a-z0-9](-?[a-z0-9]){0,99}(/[a-z0-9](-?[a-z0-9]){0,99})*)?$",
    "use lower-case letters, digits, dashes and slashes, at most 100 characters between slashes, "
    "e.g. `entrainement-llm`"))]

#: Hex digits of the hash ``translations --stamp`` writes; a shorter prefix (at least 8) is accepted.
HASH_LENGTH = 12

#: Beyond these lengths search engines cut a page's title and description (the build warns).
TITLE_LIMIT = 60
DESCRIPTION_LIMIT = 160


def head_title(title: str, site_name: str) -> str:
    """The ``<title>`` of a page: its title and the site's name, or its title alone where both
    would not fit in TITLE_LIMIT characters.

    >>> head_title("Guides", "EverXCloud")
    'Guides | EverXCloud'
    >>> head_title("How to choose GPUs for deep learning and large models", "EverXCloud")
    'How to choose GPUs for deep learning and large models'
    """
    both = f"{title} | {site_name}"
    return both if len(both) <= TITLE_LIMIT else title


def body_hash(body: str) -> str:
    """The hash a translation records of its source: line endings and surrounding blank space do not count.

    >>> body_hash("Texte.\\n") == body_hash("Texte.\\r\\n\\n")
    True
    >>> len(body_hash("Texte."))
    12
    """
    normalised = body.replace("\r\n", "\n").strip()
    return hashlib.sha256(normalised.encode("utf-8")).hexdigest()[:HASH_LENGTH]


class ModelColumn(Strict):
    """A column about one model: ``{id: decode_upper_bound, model: llama-3-1-8b, precision: bf16}``."""

    id: str
    """`decode_upper_bound`, `usd_per_million_tokens`, `measured_usd_per_million_tokens` or `diffusion_fits`"""
    model: str
    """an id of `data/models.yaml`"""
    precision: str
    """the weights' format: `bf16`, `fp8`, `int4`, `native` (language models; `native` only for measured columns) or `bf16`, `fp8` (diffusion)"""


class TableSpec(Strict):
    """Which GPUs a page's comparison table shows, in which order, and which columns."""

    gpus: list[str] = Field(min_length=1)
    """GPU ids, in the order the table shows them"""
    columns: list[str | ModelColumn] = Field(min_length=1)
    """column ids (see "Table columns"), or model columns (below)"""


class PageMeta(Strict):
    """Front matter of a page."""

    title: str = Field(min_length=1)
    """the page's title (a generator page may use `{model}`, or `{a}` and `{b}`)"""
    description: str = Field(min_length=1)
    """one or two sentences for search engines and lists"""
    slug: Slug
    """the URL under the file's folder: `entrainement-llm` → `/fr/entrainement-llm/` (empty: the language's home)"""
    translation_key: str = Field(min_length=1)
    """the same in every language: links a page to its translations"""
    layout: Layout
    """the page type: which template renders it"""
    use_case: str | None = None
    """`use_case` pages: an id of `data/use_cases.yaml` (stated in the default language's page only: translations take it)"""
    short_name: str | None = None
    """`use_case` pages: how headings name the use case (`entraînement de LLM`)"""
    summary: str | None = None
    """`use_case` pages: one line for the "other use cases" lists"""
    table: TableSpec | None = None
    """`use_case` pages: the GPUs and columns of the comparison table (below); stated in the default language's page only, like `use_case`, `chart`, `price_performance`, `verdict`, `models` and `planner`: translations take them from there"""
    price_performance: list[str | ModelColumn] = []
    """`use_case` pages: price-performance columns (`usd_per_bf16_pflop_hour`, `usd_per_gb_hour`, model
    columns `tokens_per_usd`…) shown for the table's GPUs in a second table, with the price"""
    verdict: list[str] = []
    """`use_case` pages: the column ids that decide between two GPUs for this use case, in the order
    comparison pages sum them up (e.g. `[train_8gpu, usd_per_bf16_pflop_hour]`)"""
    models: Literal["llm", "diffusion"] | None = None
    """`use_case` pages: which model pages the page lists: `llm` (language models) or `diffusion` (image and video)"""
    planner: str | None = None
    """`use_case` pages: a language model id of `data/models.yaml`: the page gets the serving planner,
    opened on that model (the reader can choose any other)"""
    table_note: str | None = None
    """Markdown printed under the table (shortcodes allowed)"""
    chart: str | None = None
    """a numeric column of the table, drawn as a bar chart"""
    keywords: list[Annotated[str, Field(min_length=1, max_length=60)]] = Field(default=[], max_length=30)
    """other names readers search the page by (software, synonyms: `[Blender, Octane, Redshift]`): shown under the
    introduction, so the site's search finds them"""
    draft: bool = False
    """not published; its title and summary may still be listed, unlinked"""
    translated_from: Annotated[str, Field(pattern=pattern_hint(
        r"^[0-9a-f]{8,64}$", "run `python build.py translations --stamp <file>`, which writes it"))] | None = None
    """on a translation: which version of its source it translates (written by `build.py translations --stamp`)"""


@dataclass(frozen=True)
class GpuSubject:
    """A page generated for one GPU (``layout: gpu``)."""

    gpu: Gpu

    @property
    def ids(self) -> tuple[str, ...]:
        return (self.gpu.id,)


@dataclass(frozen=True)
class PairSubject:
    """A page generated for a pair of GPUs (``layout: comparison``), the first in dataset order."""

    first: Gpu
    second: Gpu

    @property
    def ids(self) -> tuple[str, ...]:
        return (self.first.id, self.second.id)

    @property
    def weighed(self) -> bool:
        """Whether buyers weigh these two GPUs against each other (``structure.pairs``): if not, the
        page is ``noindex`` and out of the sitemap, reachable from the "compare two GPUs" form."""
        return weighed(self.first, self.second)


@dataclass(frozen=True)
class ReversedPairSubject:
    """The address of a pair in the other order (``/en/compare/h100-sxm-vs-h200/`` for the page
    ``h200-vs-h100-sxm``): a small ``noindex`` page that sends the reader to the pair's page.
    ``pair`` is that page's subject; the ids are its ids reversed."""

    pair: PairSubject

    @property
    def ids(self) -> tuple[str, ...]:
        return (self.pair.second.id, self.pair.first.id)


@dataclass(frozen=True)
class ModelSubject:
    """A page generated for one model of data/models.yaml (``layout: model``): a language model or
    an image/video model."""

    model: LlmModel | DiffusionModel

    @property
    def ids(self) -> tuple[str, ...]:
        return (self.model.id,)


Subject = Union[GpuSubject, PairSubject, ReversedPairSubject, ModelSubject]


@dataclass
class Page:
    """A page: where it came from and what its editor wrote; its URL and output path are derived."""

    source: Path
    lang: str
    meta: PageMeta
    front_matter: YamlDocument
    body_offset: int  # where the body starts in the file's text
    body_line: int  # line of the body's first line in the source file
    subject: Subject | None = None  # generated pages: the GPU, or the pair of GPUs, the page is about
    folder: str = ""  # the file's folder under content/<lang>/ (``guides``): the URL starts with it
    # A translation: the default-language page whose facts it took (``structure.shared_facts``),
    # which reports their problems.
    facts_from: "Page | None" = None

    @classmethod
    def from_text(cls, source: Path, lang: str, meta: PageMeta, front_matter: YamlDocument, body: str,
                  body_offset: int, body_line: int, subject: Subject | None = None) -> "Page":
        """A page whose body is already read."""
        page = cls(source, lang, meta, front_matter, body_offset, body_line, subject)
        page.__dict__["body"] = body  # fills the cached property
        return page

    @cached_property
    def body(self) -> str:
        """The Markdown after the front matter. A page the content cache knows unchanged was loaded
        without reading its file: the body is read when first needed (to render the page)."""
        text = read_project_file(self.source, None).decode("utf-8")  # the content walk kept it in the project
        return text.removeprefix("\ufeff")[self.body_offset:]

    @cached_property
    def body_digest(self) -> str:
        """What the build cache keys the page's own content with."""
        return hashlib.blake2b(self.body.encode("utf-8"), digest_size=16).hexdigest()

    @cached_property
    def meta_digest(self) -> str:
        """The front matter as validated (its JSON) and whether the page is indexed (a pair's page
        is, or not, by its GPUs' data), digested: part of what every page's cache key covers, so
        the sitemap follows a change of either. ``translated_from`` is left out: no page shows it
        (stamping a translation re-renders nothing)."""
        text = self.meta.model_dump_json(exclude={"translated_from"}) + ("" if self.indexable else "\0noindex")
        return hashlib.blake2b(text.encode("utf-8"), digest_size=16).hexdigest()

    @property
    def indexable(self) -> bool:
        """Listed in sitemap.xml and open to search engines (else ``noindex``): what its layout says
        (``structure.layouts``); a pair's page only when buyers weigh the pair (``structure.pairs``);
        a pair's other order (a redirect) never."""
        subject = self.subject
        if not LAYOUTS[self.meta.layout].sitemap or isinstance(subject, ReversedPairSubject):
            return False
        return subject.weighed if isinstance(subject, PairSubject) else True

    @cached_property
    def translation_hash(self) -> str:
        """The hash a translation of this page records (``translated_from``)."""
        return body_hash(self.body)

    @cached_property
    def path(self) -> str:
        """The page's path under its language: its folder, then its slug (``guides/choisir-un-gpu``)."""
        folder, slug = self.folder, self.meta.slug
        return f"{folder}/{slug}" if folder and slug else folder or slug

    @cached_property
    def url(self) -> str:
        """Site-absolute URL, always a directory: ``/fr/entrainement-llm/``, ``/fr/`` for the home page."""
        return f"/{self.lang}/{self.path}/" if self.path else f"/{self.lang}/"

    @cached_property
    def output_path(self) -> str:
        """Where the page is written, relative to site/: ``fr/entrainement-llm/index.html``."""
        return f"{self.lang}/{self.path}/index.html" if self.path else f"{self.lang}/index.html"

    @property
    def is_generator(self) -> bool:
        """A pattern for generated pages; itself never published."""
        return self.meta.layout in GENERATOR_LAYOUTS and self.subject is None


def generated_pages(pages: list[Page], dataset: Dataset, problems: Problems) -> list[Page]:
    """The pages a generator layout makes: one per GPU (``gpu``), per pair of GPUs (``comparison``),
    per model (``model``: language models, then image and video models). A pair has its page at
    ``<a>-vs-<b>``, the GPUs in dataset order, and a redirect to it at ``<b>-vs-<a>``
    (``ReversedPairSubject``), with the page's title: a reader may type either order.

    Their title is the pattern page's title with ``{model}`` (or ``{a}`` and ``{b}``) filled in with
    the GPUs' short names (titles must stay short: search engines cut them beyond 60 characters);
    their translation key is the pattern's key plus the GPU id(s), so translations still pair up.
    """
    generated: list[Page] = []
    for pattern in [page for page in pages if page.is_generator and not page.meta.draft]:
        meta = pattern.meta
        records: list[tuple[Subject, dict[str, str]]]
        generates = LAYOUTS[meta.layout].generates
        if generates == "gpu":
            records = [(GpuSubject(gpu), {"model": gpu.short_name}) for gpu in dataset.gpus.values()]
            allowed = "{model}"
        elif generates == "model":
            models: list[LlmModel | DiffusionModel] = [*dataset.llm_models.values(), *dataset.diffusion_models.values()]
            records = [(ModelSubject(model), {"model": model.name}) for model in models]
            allowed = "{model}"
        else:
            records = []
            for a, b in gpu_pairs(list(dataset.gpus)):
                pair = PairSubject(dataset.gpus[a], dataset.gpus[b])
                names = {"a": pair.first.short_name, "b": pair.second.short_name}
                records += [(pair, names), (ReversedPairSubject(pair), names)]
            allowed = "{a} and {b}"
        if not records:
            continue
        usable = True
        for field in ("title", "description"):
            pos = pattern.front_matter.position((field,))
            try:
                unknown = [name for name in placeholders(getattr(meta, field)) if name not in records[0][1]]
            except ValueError as exc:
                problems.error(pattern.source, pos.line, pos.column, f"`{field}`: {exc}", f"a `{meta.layout}` page can use {allowed}")
                usable = False
                continue
            if unknown:
                problems.error(pattern.source, pos.line, pos.column, f"`{field}` has an unknown placeholder `{{{unknown[0]}}}`",
                               f"a `{meta.layout}` page can use {allowed}")
                usable = False
        if not usable:
            continue
        for subject, names in records:
            suffix = "-vs-".join(subject.ids)
            new_meta = meta.model_copy(update={
                "slug": f"{meta.slug}/{suffix}",
                "title": fill(meta.title, names),
                "description": fill(meta.description, names),
                "translation_key": f"{meta.translation_key}/{suffix}",
            })
            page = Page.from_text(pattern.source, pattern.lang, new_meta, pattern.front_matter, pattern.body,
                                  pattern.body_offset, pattern.body_line, subject)
            page.folder = pattern.folder
            generated.append(page)
    return generated
