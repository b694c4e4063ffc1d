"""What to rebuild: the one place that decides whether anything, and which pages, must be built again,
and how ``site/`` is then updated.

One change rule: a file's ``FileState`` (size, times, inode), taken before it is read
(``structure.sources``), and compared by content when its times were too close to the snapshot to
tell an edit made just after it (``cached.settled``). One list of the libraries whose versions shape
the output (``LIBRARIES``). The caches are data, checked before they are used (``cached``).

- **Nothing changed** (``Manifest``): the states of every input file (content, data, templates,
  the generator's code), the library versions and the options are those the last successful build
  recorded, and every file it wrote in ``site/`` is as it left it: the command says so and stops
  before loading anything. What a killed build or dev-server edit left in ``site/`` (a temporary
  file) is removed first (``remove_stray_temporaries``).
- **A page is reused** (``plan``) when its own key (its Markdown, the templates of
  its layout, what it is about, the inputs every page shares: ``global_key``) is unchanged, none of
  the data records and UI strings it read while rendering (``render.reads``) changed since the last
  build (``RecordDigests.changed_since``), and its file in ``site/`` is the one the last build wrote.
- **How to publish** (``publish_mode``): a few pages changed, and the search index need not be
  rebuilt: their files replace the old ones in place (under a journal); otherwise a whole new site
  is swapped in.
"""

from __future__ import annotations

import base64
import errno
import hashlib
import json
import os
import re
import sys
import time
import zlib
from array import array
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache
from importlib import metadata
from operator import itemgetter
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, cast

from gpuguide import cached
from gpuguide.cached import Invalid, Snapshot
from gpuguide.project import Project
from gpuguide.structure.sources import FileState, file_state, walk_names

if TYPE_CHECKING:  # the no-change check runs before the heavy modules are imported
    from gpuguide.build.links import ParsedPage
    from gpuguide.errors import Problem
    from gpuguide.render.cards import Card
    from gpuguide.render.reads import Read
    from gpuguide.structure.data import Dataset
    from gpuguide.structure.library import Library
    from gpuguide.structure.pages import Page

#: Bump to invalidate every cache (a change in how entries are computed).
CACHE_FORMAT = 9

#: The libraries whose versions shape the output: a new version rebuilds everything.
LIBRARIES = ("jinja2", "markupsafe", "markdown-it-py", "mdit-py-plugins", "babel", "pydantic", "pyyaml",
             "python-slugify", "num2words", "lxml", "pagefind", "pillow")


def digest(*parts: Any) -> str:
    """A short digest of ``parts``: text as UTF-8, bytes as they are, anything else by ``repr``."""
    hasher = hashlib.blake2b(digest_size=16)
    for part in parts:
        # Each part is tagged with its kind, so "1" and 1 differ.
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


@lru_cache(maxsize=1)
def library_versions() -> tuple[tuple[str, str | None], ...]:
    versions: list[tuple[str, str | None]] = []
    for name in LIBRARIES:
        try:
            versions.append((name, metadata.version(name)))
        except metadata.PackageNotFoundError:
            versions.append((name, None))
    return tuple(versions)


def _code_files() -> list[Path]:
    package = Path(__file__).resolve().parent.parent
    return sorted(package.rglob("*.py"))


@lru_cache(maxsize=1)
def code_version() -> str:
    """The generator's own source, the Python version and the libraries' versions."""
    return digest(CACHE_FORMAT, sys.version, *[path.read_bytes() for path in _code_files()], library_versions())


# --- Nothing changed ---------------------------------------------------------------------------------

def _states(folder: Path, root: Path) -> dict[str, FileState | str]:
    """The state of every file under ``folder``, as the loader will see them (``walk_files``: symlinks
    within the project followed, others refused: a refusal is part of the state, so the build runs
    and reports it)."""
    files, refused = walk_names(folder, root)
    found: dict[str, FileState | str] = {path: state for path in files if (state := file_state(path))}
    found.update({path: f"refused: {reason}" for path, reason in refused})
    return found


def input_states(project: Project) -> Snapshot:
    """Every input's state, taken before the build reads anything: content, data, templates, code;
    and the content digest of each file whose state does not yet tell a later edit (``cached.settled``)."""
    taken_ns = time.time_ns()  # before the first state: a file's times are compared with it
    states = Snapshot(taken_ns=taken_ns)
    for folder in (project.content_dir, project.data_dir, project.templates_dir):
        states.update(_states(folder, project.root))
    for path in _code_files():
        stat = path.stat()
        states[str(path)] = FileState(stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns, stat.st_ino)
    # Read now, before the build reads it: an edit saved from now on differs from this digest.
    states.racy = {path: content_digest(path) for path, state in states.items()
                   if not isinstance(state, str) and not cached.settled(state, taken_ns)}
    return states


def content_digest(path: str) -> str:
    """A digest of the file's bytes ("unreadable" if it cannot be read)."""
    try:
        with open(path, "rb") as stream:
            return hashlib.file_digest(stream, lambda: hashlib.blake2b(digest_size=16)).hexdigest()
    except OSError:
        return "unreadable"


@dataclass
class Manifest:
    """What the last successful build was made from, and what it wrote: ``.build-cache/inputs.cache``."""

    inputs: Snapshot  # each ``FileState`` loads back as a plain tuple (equal to it)
    options: dict[str, Any]
    written: dict[str, tuple[int, int]]  # file under site/ → (size, mtime)
    pages: int
    warnings: list[Problem]

    FILE = "inputs.cache"

    @staticmethod
    def _key() -> str:
        return digest(CACHE_FORMAT, sys.version, library_versions())

    @classmethod
    def load(cls, project: Project) -> Manifest | None:
        """What the last successful build recorded, if anything. What follows judges ``site/`` by
        it: the temporary files a killed build or edit left there are removed first."""
        remove_stray_temporaries(project.site_dir)
        return cached.load(project.cache_dir / cls.FILE, cls._key(), _decode_manifest)

    def unchanged(self, project: Project, options: dict[str, Any], inputs: Snapshot) -> bool:
        """Nothing changed since that build (then site/ is already right): the same options and
        inputs, and every file it wrote in site/ as it left it. An input whose state was not settled
        when that build took it must also have the content it had then."""
        if self.options != options or self.inputs != inputs:
            return False
        for path, then in self.inputs.racy.items():
            if (inputs.racy.get(path) or content_digest(path)) != then:
                return False
        if site_states(project.site_dir, self.written) != self.written:
            return False
        if self.inputs.racy.keys() - inputs.racy.keys():
            # Those files' states are settled now: record them as of this snapshot, so the next
            # check need not read them again (only a cache: a failure to save changes nothing).
            self.inputs = inputs
            try:
                self.save(project)
            except OSError:
                pass
        return True

    def save(self, project: Project) -> None:
        # Flat lists of numbers, decoded by ``zip`` into tuples (twenty thousand files at once).
        states = {path: state for path, state in self.inputs.items() if not isinstance(state, str)}
        refused = {path: state for path, state in self.inputs.items() if isinstance(state, str)}
        cached.save(project.cache_dir / self.FILE, self._key(), {
            "inputs": list(states), "states": [number for state in states.values() for number in state],
            "refused": refused, "taken_ns": self.inputs.taken_ns, "racy": self.inputs.racy,
            "options": self.options, "written": list(self.written),
            "sizes": [number for state in self.written.values() for number in state],
            "pages": self.pages,
            "warnings": [[w.path, w.line, w.column, w.message, w.hint, w.severity] for w in self.warnings],
        })


def _decode_manifest(saved: Any) -> Manifest:
    inputs, states, written, sizes = saved["inputs"], saved["states"], saved["written"], saved["sizes"]
    if (len(states) != 4 * len(inputs) or len(sizes) != 2 * len(written)
            or not all(type(path) is str for path in (*inputs, *written))):
        raise Invalid("the manifest's lists do not match")
    numbers = iter(states)
    # Plain tuples, made by ``zip`` at C speed: equal to the ``FileState`` each was saved from.
    loaded = cast("Iterable[tuple[str, FileState]]", zip(inputs, zip(numbers, numbers, numbers, numbers)))
    snapshot = Snapshot(loaded, _int(saved["taken_ns"]), _texts(saved["racy"]))
    snapshot.update(_texts(saved["refused"]))
    numbers = iter(sizes)
    warnings = [_warning(warning) for warning in saved["warnings"]]
    options = saved["options"]
    if type(options) is not dict:
        raise Invalid("options")
    return Manifest(snapshot, options, dict(zip(written, zip(numbers, numbers))), _int(saved["pages"]), warnings)


def _warning(saved: Any) -> Problem:
    from gpuguide.errors import Problem

    path, line, column, message, hint, severity = saved
    if (type(path) is not str or type(line) is not int or type(column) is not int or type(message) is not str
            or (hint is not None and type(hint) is not str) or severity not in ("error", "warning")):
        raise Invalid("a warning")
    return Problem(path, line, column, message, hint, severity)


def _int(value: Any) -> int:
    if type(value) is not int:
        raise Invalid("expected a whole number")
    return value


def _texts(value: Any) -> dict[str, str]:
    if type(value) is not dict or not all(type(text) is str for text in value.values()):
        raise Invalid("expected texts by name")
    return value


#: The temporary file of a write-then-rename killed between the two: ``.<name>.<pid>.tmp`` (the dev
#: server's page edits, ``build.session``; sharing cards) or ``.<name>.tmp-<pid>`` (cache files).
_TEMPORARY = re.compile(r"\..+\.(?:[0-9]+\.tmp|tmp-[0-9]+)")


def remove_stray_temporaries(site_dir: Path) -> list[str]:
    """Remove the temporary files a killed build or dev-server edit left anywhere in ``site_dir``
    (no build or edit runs meanwhile: the caller holds the build lock); return them (relative)."""
    removed: list[str] = []
    pending = [""]
    while pending:
        relative = pending.pop()
        try:
            with os.scandir(site_dir / relative if relative else site_dir) as entries:
                for entry in entries:
                    if entry.is_dir(follow_symlinks=False):
                        pending.append(f"{relative}{entry.name}/")
                    elif entry.name.startswith(".") and _TEMPORARY.fullmatch(entry.name):
                        try:
                            os.unlink(entry.path)
                        except FileNotFoundError:
                            continue
                        removed.append(relative + entry.name)
        except (FileNotFoundError, NotADirectoryError):
            continue  # no site yet (a first build), or a folder gone meanwhile
    return sorted(removed)


def site_states(site_dir: Path, relatives: Iterable[str]) -> dict[str, tuple[int, int]]:
    """Size and modification time of each of ``relatives`` (paths under ``site_dir``) that exists.
    Looked up from the open folder (``dir_fd``): twenty thousand files without joining their paths
    or walking the folders above ``site/`` each time."""
    try:
        folder = os.open(site_dir, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return {}
    found: dict[str, tuple[int, int]] = {}
    try:
        for relative in relatives:
            try:
                stat = os.stat(relative, dir_fd=folder)
            except OSError:
                continue
            found[relative] = (stat.st_size, stat.st_mtime_ns)
    finally:
        os.close(folder)
    return found


def written_files(site_dir: Path, pages: dict[str, PageEntry], others: Iterable[str],
                  known: dict[str, tuple[int, int]] | None = None) -> dict[str, tuple[int, int]]:
    """Size and modification time of every file of the site: the pages' are in their entries (taken
    when written, or checked when reused), ``known`` ones were checked by this build, the others
    are looked up."""
    files = {output: (entry.size, entry.mtime_ns) for output, entry in pages.items()}
    known = known or {}
    files.update({relative: known[relative] for relative in others if relative in known})
    unknown = [relative for relative in others if relative not in known]
    found = site_states(site_dir, unknown)
    for relative in unknown:
        if relative not in found:  # written by this build: it must be there
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), str(site_dir / relative))
    files.update(found)
    return files


def unchanged_files(site_dir: Path, last: Manifest | None, relatives: Iterable[str]) -> dict[str, tuple[int, int]]:
    """Of ``relatives``, the files of site/ still as the last build recorded them (one stat each),
    with that state: an unchanged page's sharing card, which then needs no other check."""
    if last is None:
        return {}
    found = site_states(site_dir, [relative for relative in relatives if relative in last.written])
    return {relative: state for relative, state in found.items() if state == last.written[relative]}


# --- Which pages to render -----------------------------------------------------------------------------

def global_key(dataset: Dataset, library: Library, assets: Iterable[str]) -> str:
    """What every page depends on: the code, the configuration, the use cases and price date, the
    published anchors and measurements, every page's front matter (titles, URLs and tables appear in menus, lists and
    links) and the asset files. Templates and UI strings are not in it: a page depends on the
    templates of its layout and on the strings it looked up. No option changes a page's HTML."""
    from gpuguide.render.cards import drawing_identity

    # Every page's language, file and front matter (its digest), joined into one text (a ``repr`` of
    # ten thousand tuples took four times as long); none of them holds a NUL.
    structure = "\0".join([f"{page.lang}\0{page.source}\0{page.meta_digest}" for page in library.pages])
    anchors = [anchor.model_dump_json() for anchor in dataset.anchors]
    # Measurements are shown on model, GPU, use-case and methodology pages and change a few times a
    # year: any change renders everything again rather than tracking who shows which.
    measured = [record.model_dump_json() for record in (*dataset.benchmarks.values(), *dataset.measurements)]
    return digest(code_version(), dataset.config.model_dump_json(), list(dataset.use_cases), dataset.prices_as_of,
                  anchors, measured, structure, sorted(assets), drawing_identity())


class TemplateDigests:
    """The digest of a layout's template and of every template it extends or includes: a template
    change re-renders exactly the pages whose layout uses it. Built from what compiling the
    templates found (``PageRenderer.template_sources`` and ``template_references``)."""

    def __init__(self, sources: dict[str, str], references: dict[str, list[str]]):
        self.sources = sources
        self.references = references
        self._memo: dict[str, str] = {}

    def closure(self, name: str) -> list[str]:
        seen: list[str] = []
        pending = [name]
        while pending:
            current = pending.pop()
            if current in seen:
                continue
            seen.append(current)
            pending.extend(self.references[current])
        return sorted(seen)

    def layout(self, name: str) -> str:
        if name not in self._memo:
            self._memo[name] = digest(*[(ref, self.sources[ref]) for ref in self.closure(name)])
        return self._memo[name]


#: What a page's own output depends on besides the records it reads and what every page shares (the
#: build cache is kept for one global key): the digests of its layout's templates and of its
#: Markdown, and what it is about. Its output path (which holds its language) is the entry's name.
PageKey = tuple[str, str, "tuple[str, ...] | None"]


def page_key(page: Page, templates: TemplateDigests) -> PageKey:
    """The page's ``PageKey``: compared as it is, nothing to hash (ten thousand pages, each build)."""
    return (templates.layout(f"{page.meta.layout}.html"), page.body_digest,
            page.subject.ids if page.subject is not None else None)


class RecordDigests:
    """The digest of every record, of each table's id list, of each whole table, and of each UI string:
    what a page may read (``render.reads``), each with the digest of what it read."""

    def __init__(self, dataset: Dataset):
        from gpuguide.render.reads import ALL, GPU_NAMES, KEYS, TRACKED_TABLES

        self.table: dict[Read, str] = {}
        for name in TRACKED_TABLES:
            records = getattr(dataset, name)
            per_record = {key: digest(value.model_dump_json() if hasattr(value, "model_dump_json") else value)
                          for key, value in records.items()}
            self.table.update({(name, key): value for key, value in per_record.items()})
            self.table[(name, KEYS)] = digest(tuple(records))
            self.table[(name, ALL)] = digest(sorted(per_record.items()))
        self.table[GPU_NAMES] = digest([(gpu_id, gpu.model) for gpu_id, gpu in dataset.gpus.items()])
        for lang, strings in dataset.strings.items():
            name = f"ui-{lang}"
            self.table.update({(name, key): digest(text) for key, text in strings.items()})
            self.table[(name, ALL)] = digest(sorted((key, repr(text)) for key, text in strings.items()))

    def changed_since(self, last: dict[Read, str]) -> frozenset[Read]:
        """The reads whose value differs from ``last`` (the table of the last build): added, removed or
        changed. A page that read none of them reads the same values again."""
        return frozenset(read for read in self.table.keys() | last.keys() if self.table.get(read) != last.get(read))


class PageLinks(NamedTuple):
    """What the link check needs of a page it does not render again, and its sharing card: kept
    encoded in the page's entry (``encode``), decoded only for the few pages a build checks again
    (the ids, links and cards of ten thousand pages took 0.07 s to load, for nothing)."""

    ids: frozenset[str]
    fragment_links: tuple[str, ...]  # links with a #fragment: checked again when their page is rendered again
    link_lines: dict[str, int]  # the Markdown line of each link the editor wrote
    card: Card | None  # its sharing card (drawn again only if the cache lost it)

    def encode(self) -> str:
        """As one text, which the build cache's JSON holds as it is: Base64 of their JSON,
        compressed (nothing to parse, none of the escapes JSON within JSON would need, and less
        than half the bytes to read and check: most of the build cache, uncompressed)."""
        card = self.card
        data = [sorted(self.ids), list(self.fragment_links), self.link_lines,
                None if card is None else [card.site_name, card.title, list(card.lines)]]
        text = json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass")
        return base64.b64encode(zlib.compress(text, 1)).decode("ascii")

    @classmethod
    def decode(cls, text: str) -> PageLinks:
        """What ``encode`` wrote; raises ``cached.Invalid`` for anything else. The build cache's
        checksum covers the text: only a file forged with a matching checksum, beside a site/ as
        that file describes it, can fail here."""
        from gpuguide.render.cards import Card

        try:
            inflate = zlib.decompressobj()
            data = inflate.decompress(base64.b64decode(text, validate=True), _MAX_LINKS_BYTES)
            if inflate.unconsumed_tail or not inflate.eof:
                raise Invalid("the links of a page: too long, or cut short")
            ids, fragment_links, link_lines, card = json.loads(data.decode("utf-8", "surrogatepass"))
            if (not _all_text(ids) or not _all_text(fragment_links) or type(link_lines) is not dict
                    or not all(type(line) is int for line in link_lines.values())):
                raise Invalid("the links of a page")
            if card is not None:
                site_name, title, lines = card
                if type(site_name) is not str or type(title) is not str or not _all_text(lines):
                    raise Invalid("a sharing card")
                card = Card(site_name, title, tuple(lines))
        except (ValueError, TypeError, RecursionError, zlib.error) as exc:  # a damaged text, the JSON or its shape
            raise Invalid("the links of a page in the build cache") from exc
        return cls(frozenset(ids), tuple(fragment_links), link_lines, card)


_MAX_LINKS_BYTES = 16 * 1024 * 1024  # no page has a thousandth of it


def _all_text(values: Any) -> bool:
    return type(values) is list and all(type(value) is str for value in values)


class PageEntry(NamedTuple):  # a tuple: ten thousand of them load and save in a blink
    """What the last build knew about one output page."""

    key: PageKey
    reads: tuple[Read, ...]
    size: int
    mtime_ns: int
    card_file: str | None  # the drawing of its sharing card (``Card.file_name``)
    anchor_targets: frozenset[str]  # the pages its #fragment links point to
    links_text: str  # its ``PageLinks``, encoded

    @classmethod
    def rendered(cls, output: str, key: PageKey, reads: tuple[Read, ...], size: int, mtime_ns: int,
                 parsed: ParsedPage, link_lines: dict[str, int], card: Card | None) -> PageEntry:
        """The entry of the page at ``output``, just written (``size``, ``mtime_ns``) and parsed."""
        links = PageLinks(frozenset(parsed.ids), tuple(link for link in parsed.links if "#" in link), link_lines, card)
        return cls(key, reads, size, mtime_ns, card.file_name if card is not None else None,
                   anchor_targets(output, parsed.links), links.encode())

    @property
    def links(self) -> PageLinks:
        return PageLinks.decode(self.links_text)


class LinkedPages(Mapping[str, "ParsedPage"]):
    """Every page's ids and links, as the link check asks for them: the pages rendered now as they
    were parsed, the others decoded from their entry when first asked for (a few of thousands)."""

    def __init__(self, parsed: dict[str, ParsedPage], entries: Mapping[str, PageEntry]):
        self._parsed = dict(parsed)
        self._entries = entries

    def __getitem__(self, output: str) -> ParsedPage:
        found = self._parsed.get(output)
        if found is None:
            from gpuguide.build.links import ParsedPage

            links = self._entries[output].links
            found = self._parsed[output] = ParsedPage(links.ids, links.fragment_links)
        return found

    def __contains__(self, output: object) -> bool:
        return output in self._parsed or output in self._entries

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries.keys() | self._parsed.keys())

    def __len__(self) -> int:
        return len(self._entries.keys() | self._parsed.keys())


def anchor_targets(output: str, links: Iterable[str]) -> frozenset[str]:
    """The pages the #fragment links of the page at ``output`` point to: when none of them is
    rendered again, its anchors cannot have gone, and its links need no check."""
    from gpuguide.build.links import link_target

    return frozenset(target for link in links if "#" in link and (target := link_target(output, link)) is not None)


class BuildCache:
    """What the last build knew about each page (``.build-cache/pages.cache``), valid for one global key,
    and the digest of each record and UI string then (``RecordDigests.table``), which every entry's
    reads agree with. Saved as a ``cached.Journal``: a build that rendered a few pages appends their
    entries only."""

    FILE = "pages.cache"

    def __init__(self, key: str, pages: dict[str, PageEntry] | None = None, sitemap: str = "",
                 records: dict[Read, str] | None = None, journal: cached.Journal | None = None):
        self.key = key
        self.pages: dict[str, PageEntry] = pages if pages is not None else {}
        self.sitemap = sitemap  # sitemap.xml, a function of what the global key covers
        self.records: dict[Read, str] = records if records is not None else {}
        self._journal = journal

    @classmethod
    def load(cls, project: Project, key: str) -> BuildCache:
        journal = cached.Journal.load(project.cache_dir / cls.FILE, key, _decode_entries)
        try:
            sitemap = journal.extras.get("sitemap", "")
            records = _decode_records(journal.extras.get("records", []))
            if type(sitemap) is not str:
                raise Invalid("the sitemap")
        except (Invalid, TypeError, ValueError):
            return cls(key)
        return cls(key, journal.entries, sitemap, records, journal)

    def save(self, project: Project) -> None:
        journal = self._journal
        if journal is None or journal.key != self.key:
            journal = self._journal = cached.Journal(project.cache_dir / self.FILE, self.key)
        records = [[table, name, value] for (table, name), value in sorted(self.records.items())]
        journal.save(self.pages, {"sitemap": self.sitemap, "records": records}, _encode_entries)

    def unchanged(self, output: str, key: PageKey, changed: frozenset[Read]) -> PageEntry | None:
        """The entry for ``output`` if the page's own inputs are unchanged: the same key, and none of
        its reads among ``changed`` (the reads whose value changed since the last build)."""
        entry = self.pages.get(output)
        if entry is None or entry.key != key or not changed.isdisjoint(entry.reads):
            return None
        return entry


# Each entry a flat list. Pages of one layout read much the same records, a hundred reads each:
# the reads of a record are listed once, and each entry's reads are their numbers, packed into one
# hex text (two or four bytes each, little-endian), which ``itemgetter`` turns into the tuple at C
# speed (JSON of nested lists took four times as long to load); equal lists of reads are then one
# object.

def _encode_entries(pages: dict[str, PageEntry]) -> list[Any]:
    numbers: dict[Read, int] = {}
    lists: dict[tuple[Read, ...], list[int]] = {}
    of_entry: list[list[int]] = []  # each entry's list of numbers (hashing its reads once)
    for entry in pages.values():
        indexes = lists.get(entry.reads)
        if indexes is None:
            indexes = lists[entry.reads] = [numbers.setdefault(read, len(numbers)) for read in entry.reads]
        of_entry.append(indexes)
    code = "H" if len(numbers) <= 0xFFFF else "I"
    packed: dict[int, str] = {}
    for indexes in lists.values():
        packing = array(code, indexes)
        if sys.byteorder == "big":
            packing.byteswap()
        packed[id(indexes)] = packing.tobytes().hex()
    rows: list[list[Any]] = []
    for (output, entry), indexes in zip(pages.items(), of_entry):
        layout, body, subject = entry.key
        rows.append([output, layout, body, list(subject) if subject is not None else None, packed[id(indexes)],
                     entry.size, entry.mtime_ns, entry.card_file, sorted(entry.anchor_targets), entry.links_text])
    return [code, [list(read) for read in numbers], rows]


_NO_TARGETS: frozenset[str] = frozenset()
_new_entry = tuple.__new__  # a ``PageEntry`` made without calling its ``__new__``, in Python, for each


def _decode_entries(saved: Any) -> dict[str, PageEntry]:
    code, saved_reads, rows = saved
    if code not in ("H", "I") or type(saved_reads) is not list or type(rows) is not list:
        raise Invalid("the build cache's entries")
    reads = [_read(read) for read in saved_reads]
    unpacked: dict[str, tuple[Read, ...]] = {}
    pages: dict[str, PageEntry] = {}
    for row in rows:
        output, layout, body, subject, text, size, mtime_ns, card_file, targets, links_text = row
        found = unpacked.get(text)
        if found is None:
            indexes = array(code, bytes.fromhex(text))  # TypeError if not a text
            if sys.byteorder == "big":
                indexes.byteswap()
            found = unpacked[text] = (itemgetter(*indexes)(reads) if len(indexes) > 1
                                      else tuple(reads[index] for index in indexes))  # IndexError if out of range
        # What is only compared (the key's parts, size and time) may be anything: another type only
        # never matches. What is used must be what it was: a file name, texts, the anchors' targets
        # (``frozenset`` raises TypeError for a list in them).
        if (type(output) is not str or type(layout) is not str or type(body) is not str
                or type(size) is not int or type(mtime_ns) is not int or type(links_text) is not str
                or not (subject is None or type(subject) is list) or type(targets) is not list
                or not (card_file is None or _plain_file_name(card_file))):
            raise Invalid("an entry of the build cache")
        pages[output] = _new_entry(PageEntry, (
            (layout, body, tuple(subject) if subject is not None else None), found, size, mtime_ns, card_file,
            frozenset(targets) if targets else _NO_TARGETS, links_text))
    return pages


def _read(saved: Any) -> Read:
    if type(saved) is not list or len(saved) != 2 or type(saved[0]) is not str or type(saved[1]) is not str:
        raise Invalid("a read")
    return (saved[0], saved[1])


def _decode_records(saved: Any) -> dict[Read, str]:
    records: dict[Read, str] = {}
    for table, name, value in saved:
        if type(table) is not str or type(name) is not str or type(value) is not str:
            raise Invalid("a record's digest")
        records[(table, name)] = value
    return records


def _plain_file_name(name: Any) -> bool:
    """A file's name alone, which joined to a folder stays in it (a sharing card's drawing)."""
    return type(name) is str and name not in ("", ".", "..") and "/" not in name and "\0" not in name


@dataclass
class Plan:
    """Which published pages to render (their indexes) and which to keep as they are in site/."""

    keys: dict[str, PageKey]  # output path → page key
    render: list[int]
    reused: dict[str, PageEntry]


def plan(pages: tuple[Page, ...], cache: BuildCache, templates: TemplateDigests, digests: RecordDigests,
         site_dir: Path, reuse: bool = True) -> Plan:
    """Render the pages whose inputs changed; keep the others (``cache``: kept for this build's global
    key). ``reuse=False`` renders everything."""
    keys = {page.output_path: page_key(page, templates) for page in pages}
    changed = digests.changed_since(cache.records)
    candidates = {output: entry for output, key in keys.items()
                  if reuse and (entry := cache.unchanged(output, key, changed)) is not None}
    # And its file in site/ is the one the last build wrote; else someone touched it: render it again.
    on_disk = site_states(site_dir, candidates)
    render: list[int] = []
    reused: dict[str, PageEntry] = {}
    for index, page in enumerate(pages):
        output = page.output_path
        entry = candidates.get(output)
        if entry is not None and on_disk.get(output) == (entry.size, entry.mtime_ns):
            reused[output] = entry
        else:
            render.append(index)
    return Plan(keys, render, reused)


def publish_mode(plan: Plan, written: int, total: int, index_search: bool) -> Literal["update", "swap"]:
    """Update site/ in place when a few pages changed and the search index need not be built
    (``index_search``: a page was rendered, or site/ has no index yet); otherwise write the whole
    site beside it, indexed, and swap."""
    if plan.reused and not index_search and written <= total // 4:
        return "update"
    return "swap"
