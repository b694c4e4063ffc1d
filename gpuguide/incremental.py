"""Incremental builds: an on-disk cache of what each page was built from, so unchanged pages are
neither parsed nor rendered, and a change re-renders exactly the pages that depend on it.

A page's output is reused when, since the last build,
- its own inputs are unchanged: its Markdown file (front matter and body) and, for generated
  pages, which GPU(s) it is about (``page_key``);
- the inputs every page shares are unchanged: the generator's code and library versions, the
  templates, the UI strings, the site configuration, the use cases, the price snapshot date and
  the site's structure (every page's URL, title and summary, which menus and links show)
  (``global_key``);
- every data record it read while rendering is unchanged. Records are read through
  ``TrackedMapping``, which notes each GPU, price or model a page looks up (or "all of them" /
  "the list of ids" when it iterates), so a price change re-renders only the pages that show
  that price;
- its output file in ``site/`` is still the one the last build wrote (same size and mtime).

Reused pages are not touched (``publish`` updates ``site/`` in place when few pages changed) or
hard-linked into the staging folder of a full build, so an unchanged page is never copied.
``ContentCache`` does the same for the Markdown files: an unchanged file is not even read.
"""

from __future__ import annotations

import hashlib
import os
import pickle
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import Any, NamedTuple

#: Bump to invalidate every cache (a change in how entries are computed).
CACHE_FORMAT = 1
ALL = "*"  # the page read every record of a dataset
KEYS = "#ids"  # the page read the list of ids (their order), not the records


def digest(*parts: Any) -> str:
    hasher = hashlib.blake2b(digest_size=16)
    for part in parts:
        # Text is hashed as UTF-8 (repr() of a page's body would cost more than the hash); each
        # part is tagged with its kind, so "1" and 1 differ.
        if isinstance(part, bytes):
            hasher.update(b"b")
            hasher.update(part)
        elif isinstance(part, str):
            hasher.update(b"s")
            hasher.update(part.encode("utf-8", "surrogatepass"))
        else:
            hasher.update(b"r")
            hasher.update(repr(part).encode("utf-8"))
        hasher.update(b"\0")
    return hasher.hexdigest()


class _Recorder:
    """The data records the page being rendered has read (one page at a time per process)."""

    def __init__(self) -> None:
        self.reads: set[tuple[str, str]] | None = None

    def start(self) -> None:
        self.reads = set()

    def stop(self) -> set[tuple[str, str]]:
        reads, self.reads = self.reads or set(), None
        return reads

    def note(self, name: str, key: str) -> None:
        if self.reads is not None:
            self.reads.add((name, key))


RECORDER = _Recorder()


class TrackedMapping(Mapping):
    """A read-only view of a dataset (id → record) that tells ``RECORDER`` what is read."""

    def __init__(self, name: str, data: Mapping[str, Any]):
        self.name = name
        self.data = data

    def __getitem__(self, key: str) -> Any:
        RECORDER.note(self.name, key)
        return self.data[key]

    def get(self, key: str, default: Any = None) -> Any:
        RECORDER.note(self.name, key)
        return self.data.get(key, default)

    def __contains__(self, key: object) -> bool:
        RECORDER.note(self.name, str(key))
        return key in self.data

    def __iter__(self) -> Iterator[str]:
        RECORDER.note(self.name, KEYS)
        return iter(self.data)

    def __len__(self) -> int:
        RECORDER.note(self.name, KEYS)
        return len(self.data)

    def keys(self) -> Any:
        RECORDER.note(self.name, KEYS)
        return self.data.keys()

    def items(self) -> Any:
        RECORDER.note(self.name, ALL)
        return self.data.items()

    def values(self) -> Any:
        RECORDER.note(self.name, ALL)
        return self.data.values()


TRACKED_DATASETS = ("gpus", "prices", "llm_models", "diffusion_models")


def track(dataset: Any) -> None:
    """Route every lookup in the dataset's record maps, and in each language's UI strings, through
    ``TrackedMapping``: a page then depends on the exact strings and records it showed."""
    for name in TRACKED_DATASETS:
        current = getattr(dataset, name)
        if not isinstance(current, TrackedMapping):
            setattr(dataset, name, TrackedMapping(name, current))
    for lang, table in list(dataset.strings.items()):
        if not isinstance(table, TrackedMapping):
            dataset.strings[lang] = TrackedMapping(f"ui-{lang}", table)


def _record_digest(record: Any) -> str:
    if hasattr(record, "model_dump_json"):
        return digest(record.model_dump_json())
    return digest(record)


class RecordDigests:
    """The current digest of every record, of each dataset's id list, and of each whole dataset."""

    def __init__(self, dataset: Any):
        self.table: dict[tuple[str, str], str] = {}
        self._fingerprints: dict[tuple[tuple[str, str], ...], str] = {}
        for name in TRACKED_DATASETS:
            records = getattr(dataset, name)
            records = records.data if isinstance(records, TrackedMapping) else records
            per_record = {key: _record_digest(value) for key, value in records.items()}
            self.table.update({(name, key): value for key, value in per_record.items()})
            self.table[(name, KEYS)] = digest(tuple(records))
            self.table[(name, ALL)] = digest(sorted(per_record.items()))
        for lang, strings in dataset.strings.items():
            strings = strings.data if isinstance(strings, TrackedMapping) else strings
            name = f"ui-{lang}"
            self.table.update({(name, key): digest(text) for key, text in strings.items()})
            self.table[(name, ALL)] = digest(sorted(strings.items()))

    def fingerprint(self, reads: tuple[tuple[str, str], ...]) -> str:
        # Pages of one layout mostly read the same records: compute each set's digest once.
        found = self._fingerprints.get(reads)
        if found is None:
            found = self._fingerprints[reads] = digest(*[(read, self.table.get(read, "absent")) for read in reads])
        return found


@lru_cache(maxsize=1)
def code_version() -> str:
    """The generator's own source and the versions of the libraries that shape the output."""
    package = Path(__file__).resolve().parent
    sources = [path.read_bytes() for path in sorted(package.glob("*.py"))]
    versions = []
    for name in ("jinja2", "markdown-it-py", "mdit-py-plugins", "babel", "pydantic", "num2words",
                 "python-slugify", "pyyaml"):
        try:
            versions.append((name, metadata.version(name)))
        except metadata.PackageNotFoundError:
            versions.append((name, None))
    return digest(CACHE_FORMAT, *sources, versions)


class TemplateDigests:
    """The digest of a layout's template and of every template it extends or includes.

    A template change then re-renders exactly the pages whose layout uses that template.
    """

    def __init__(self, env: Any):
        self.env = env
        self._memo: dict[str, str] = {}

    def closure(self, name: str) -> list[str]:
        from jinja2 import meta

        seen: list[str] = []
        pending = [name]
        while pending:
            current = pending.pop()
            if current in seen:
                continue
            seen.append(current)
            source = self.env.loader.get_source(self.env, current)[0]
            pending.extend(ref for ref in meta.find_referenced_templates(self.env.parse(source)) if ref)
        return sorted(seen)

    def layout(self, name: str) -> str:
        if name not in self._memo:
            self._memo[name] = digest(*[(ref, self.env.loader.get_source(self.env, ref)[0])
                                        for ref in self.closure(name)])
        return self._memo[name]


class PageEntry(NamedTuple):  # a tuple: ten thousand of them load and save in a blink
    """What the last build knew about one output page."""

    key: str
    reads: tuple[tuple[str, str], ...]
    fingerprint: str
    size: int
    mtime_ns: int
    ids: frozenset[str]
    fragment_links: tuple[str, ...]  # links with a #fragment: re-checked every build
    link_lines: dict[str, int]


class _PickledCache:
    """A cache file valid for one ``key`` (the code's version, the inputs every page shares):
    missing, unreadable or for another key, it loads empty. Saved to a temporary file and renamed,
    so a killed build never leaves half a cache."""

    key: str

    @classmethod
    def load(cls, path: Path, key: str) -> Any:
        try:
            with path.open("rb") as stream:
                cache = pickle.load(stream)
        except (OSError, EOFError, pickle.UnpicklingError, AttributeError, ImportError, TypeError, ValueError):
            cache = None
        if not isinstance(cache, cls) or cache.key != key:
            return cls(key)
        return cache

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_suffix(f".tmp-{os.getpid()}")
        with temporary.open("wb") as stream:
            pickle.dump(self, stream, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(temporary, path)


@dataclass
class ContentCache(_PickledCache):
    """Each Markdown file's front matter as last parsed and validated (``content.ParsedSources``),
    so a build parses only the files whose text changed. ``key``: the code's version."""

    key: str = ""
    sources: dict[str, Any] = field(default_factory=dict)

    # Saved as plain tuples: pickle writes and reads those in C, named tuples one call at a time.
    def __getstate__(self) -> tuple:
        return self.key, {path: tuple(source) for path, source in self.sources.items()}

    def __setstate__(self, state: tuple) -> None:
        from .content import ParsedSource

        self.key, sources = state
        self.sources = {path: ParsedSource._make(source) for path, source in sources.items()}


@dataclass
class BuildCache(_PickledCache):
    """What the last build knew about each page. ``key``: the global key."""

    key: str = ""
    pages: dict[str, PageEntry] = field(default_factory=dict)
    sitemap: str = ""  # sitemap.xml, a function of what the global key covers

    def __getstate__(self) -> tuple:
        return self.key, {output: tuple(entry) for output, entry in self.pages.items()}, self.sitemap

    def __setstate__(self, state: tuple) -> None:
        self.key, pages, self.sitemap = state
        self.pages = {output: PageEntry._make(entry) for output, entry in pages.items()}

    def reusable(self, output: str, key: str, digests: RecordDigests, site_dir: str) -> PageEntry | None:
        """The entry for ``output`` if its page need not be rendered again."""
        entry = self.pages.get(output)
        if entry is None or entry.key != key or digests.fingerprint(entry.reads) != entry.fingerprint:
            return None
        try:
            stat = os.stat(os.path.join(site_dir, output))
        except OSError:
            return None
        if stat.st_size != entry.size or stat.st_mtime_ns != entry.mtime_ns:
            return None  # someone touched site/: render it again
        return entry
