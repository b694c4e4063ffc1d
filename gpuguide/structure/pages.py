"""Pages: Markdown files under ``content/<lang>/`` with YAML front matter, and the pages generated from them.

A page stores only where it came from and what its editor wrote; its URL and output path are
derived. A generator page (``layout: gpu``, ``comparison``, ``model``) makes one page per GPU, per
pair of GPUs or per model, whose ``subject`` says which.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Literal, Union

from pydantic import Field

from gpuguide.cached import cached_property
from gpuguide.structure.gpu_specs import Gpu
from gpuguide.structure.model_specs import DiffusionModel, LlmModel
from gpuguide.structure.page_types import GENERATOR_LAYOUTS, LAYOUTS, Layout
from gpuguide.structure.pairs import weighed
from gpuguide.structure.schema import Strict, pattern_hint
from gpuguide.structure.project_files import read_project_file
from gpuguide.structure.yaml_documents import YamlDocument

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
    price_performance: list[str | ModelColumn] = Field(default_factory=list)
    """`use_case` pages: price-performance columns (`usd_per_bf16_pflop_hour`, `usd_per_gb_hour`, model
    columns `tokens_per_usd`…) shown for the table's GPUs in a second table, with the price"""
    verdict: list[str] = Field(default_factory=list)
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
    keywords: list[Annotated[str, Field(min_length=1, max_length=60)]] = Field(default_factory=list, max_length=30)
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


#: The front matter's texts, which other pages show (a menu, a list of guides, breadcrumbs) and note
#: as read when they do: a change of them renders again only those pages (``Page.structure_digest``).
TEXT_FIELDS = ("title", "summary", "description", "short_name")


@dataclass
class Page:
    """A page: where it came from and what its editor wrote; its URL and output path are derived."""

    # The file's name as the content walk found it; ``source`` is its ``Path``, made on first use:
    # a one-page rebuild of ten thousand pages then makes one, not ten thousand (0.07 s), and code
    # that maps every page by its file (the link resolver, the build's global key) uses the name.
    source_name: str
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

    # What is known of the page without reading or digesting its file again: given by the loader
    # (from the text it read, or from the content cache); else computed on first use and kept.
    known_body: str | None = field(default=None, repr=False, compare=False)
    known_body_digest: str | None = field(default=None, repr=False, compare=False)
    known_translation_hash: str | None = field(default=None, repr=False, compare=False)
    known_meta_digest: str | None = field(default=None, repr=False, compare=False)
    known_structure_digest: str | None = field(default=None, repr=False, compare=False)

    @cached_property
    def source(self) -> Path:
        """The page's file (``source_name``) as a ``Path``."""
        return Path(self.source_name)

    @classmethod
    def from_text(cls, source: Path | str, lang: str, meta: PageMeta, front_matter: YamlDocument, body: str,
                  body_offset: int, body_line: int, subject: Subject | None = None) -> "Page":
        """A page whose body is already read."""
        return cls(str(source), lang, meta, front_matter, body_offset, body_line, subject, known_body=body)

    @property
    def body(self) -> str:
        """The Markdown after the front matter. A page the content cache knows unchanged was loaded
        without reading its file: the body is read when first needed (to render the page)."""
        if self.known_body is None:
            text = read_project_file(self.source, None).decode("utf-8")  # the content walk kept it in the project
            self.known_body = text.removeprefix("\ufeff")[self.body_offset:]
        return self.known_body

    @property
    def body_digest(self) -> str:
        """What the build cache keys the page's own content with."""
        if self.known_body_digest is None:
            self.known_body_digest = hashlib.blake2b(self.body.encode("utf-8"), digest_size=16).hexdigest()
        return self.known_body_digest

    @property
    def meta_digest(self) -> str:
        """The front matter as validated (its JSON) and whether the page is indexed (a pair's page
        is, or not, by its GPUs' data), digested: part of what every page's cache key covers, so
        the sitemap follows a change of either. ``translated_from`` is left out: no page shows it
        (stamping a translation re-renders nothing)."""
        if self.known_meta_digest is None:
            self.known_meta_digest = self._front_matter_digest(set())
        return self.known_meta_digest

    @property
    def structure_digest(self) -> str:
        """The front matter as ``meta_digest`` covers it, but its texts (``TEXT_FIELDS``): what every
        page's cache key covers (addresses, layouts, tables, translations). A page that shows another
        page's texts notes it (``render.reads.PAGE_TEXTS``); each page's own key has its
        ``meta_digest``."""
        if self.known_structure_digest is None:
            self.known_structure_digest = self._front_matter_digest(set(TEXT_FIELDS))
        return self.known_structure_digest

    def _front_matter_digest(self, leaving_out: set[str]) -> str:
        text = (self.meta.model_dump_json(exclude={"translated_from", *leaving_out})
                + ("" if self.indexable else "\0noindex"))
        return hashlib.blake2b(text.encode("utf-8"), digest_size=16).hexdigest()

    def take_meta(self, meta: PageMeta) -> None:
        """Hold ``meta`` from now on (a translation given its source's facts): its digest follows."""
        self.meta, self.known_meta_digest, self.known_structure_digest = meta, None, None

    def take_text(self, edited: "Page") -> None:
        """Hold the text of ``edited``, the same file saved again with the same front matter (an edit
        the dev server renders in memory)."""
        self.front_matter = edited.front_matter
        self.body_offset, self.body_line = edited.body_offset, edited.body_line
        self.known_body, self.known_body_digest = edited.body, edited.body_digest
        self.known_translation_hash = edited.translation_hash

    @property
    def indexable(self) -> bool:
        """Listed in sitemap.xml and open to search engines (else ``noindex``): what its layout says
        (``structure.page_types``); a pair's page only when buyers weigh the pair (``structure.pairs``);
        a pair's other order (a redirect) never."""
        subject = self.subject
        if not LAYOUTS[self.meta.layout].sitemap or isinstance(subject, ReversedPairSubject):
            return False
        return subject.weighed if isinstance(subject, PairSubject) else True

    @property
    def redirects(self) -> bool:
        """Whether the page only sends the reader to another: a pair's other order, which shows
        none of the site's layout, no Markdown body (the pair's page renders the same) and no
        sharing card (its HTML names none), so its context is only what it shows
        (``PageRenderer``). There are 380 on the real site, 9,900 at 100 GPUs."""
        return isinstance(self.subject, ReversedPairSubject)

    @property
    def translation_hash(self) -> str:
        """The hash a translation of this page records (``translated_from``)."""
        if self.known_translation_hash is None:
            self.known_translation_hash = body_hash(self.body)
        return self.known_translation_hash

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
