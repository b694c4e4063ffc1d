"""What the last build knew about each page (``BuildCache``, ``.build-cache/pages.cache``): its key,
the data records and UI strings it read while rendering (``render.reads``), its file's state in
``site/``, and what the link check needs of it (``PageLinks``), so that an unchanged page is neither
rendered nor parsed again."""

from __future__ import annotations

import base64
import json
import sys
import zlib
from array import array
from collections.abc import Iterator, Mapping
from operator import itemgetter
from typing import TYPE_CHECKING, Any, NamedTuple

from gpuguide import cached
from gpuguide.cached import Invalid
from gpuguide.project import Project

if TYPE_CHECKING:
    from gpuguide.build.link_check import ParsedPage
    from gpuguide.render.cards import Card
    from gpuguide.render.reads import Read

#: What a page's own output depends on besides the records it reads and what every page shares (the
#: build cache is kept for one global key): the digests of its layout's templates, of its Markdown
#: and of its front matter, and what it is about. Its output path (which holds its language) is the
#: entry's name.
PageKey = tuple[str, str, str, "tuple[str, ...] | None"]


class PageLinks(NamedTuple):
    """What the link check needs of a page it does not render again, and its sharing card: kept
    encoded in the page's entry (``encode``), decoded only for the few pages a build checks again
    (not for every unchanged page at every build)."""

    ids: frozenset[str]
    fragment_links: tuple[str, ...]  # internal links with a #fragment: checked again when their page is rendered again
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


class PageEntry(NamedTuple):  # a tuple: the cheapest record to load and save by the ten thousand
    """What the last build knew about one output page."""

    key: PageKey
    reads: tuple[Read, ...]
    size: int
    mtime_ns: int
    card_file: str | None  # the drawing of its sharing card (``Card.file_name``)
    anchor_targets: frozenset[str]  # the pages its #fragment links point to
    links_text: str  # its ``PageLinks``, encoded
    menu: str  # the use-case menu it shows: its digest and where it is in the file (``render.shell.record``)

    @classmethod
    def rendered(cls, key: PageKey, reads: tuple[Read, ...], size: int, mtime_ns: int, record: LinkRecord,
                 menu: str) -> PageEntry:
        """The entry of a page just written (``size``, ``mtime_ns``), with its ``record``."""
        return cls(key, reads, size, mtime_ns, record.card_file, record.anchor_targets, record.links_text, menu)

    @property
    def links(self) -> PageLinks:
        return PageLinks.decode(self.links_text)


class LinkRecord(NamedTuple):
    """What a page's entry keeps of its links and its card, made where the page was rendered and
    parsed (in a worker, on every core), not in the build's own process, page after page."""

    card_file: str | None
    anchor_targets: frozenset[str]
    links_text: str  # its ``PageLinks``, encoded

    @classmethod
    def of(cls, parsed: ParsedPage, link_lines: dict[str, int], card: Card | None) -> LinkRecord:
        fragment_links = [link for link in parsed.links if "#" in link.href]
        links = PageLinks(frozenset(parsed.ids), tuple(link.href for link in fragment_links), link_lines, card)
        return cls(card.file_name if card is not None else None, frozenset(link.target for link in fragment_links),
                   links.encode())


class LinkedPages(Mapping[str, "ParsedPage"]):
    """Every page's ids and links, as the link check asks for them: the pages rendered now as they
    were parsed, the others decoded from their entry when first asked for (a few of thousands)."""

    def __init__(self, parsed: dict[str, ParsedPage], entries: Mapping[str, PageEntry]):
        self._parsed = dict(parsed)
        self._entries = entries

    def __getitem__(self, output: str) -> ParsedPage:
        found = self._parsed.get(output)
        if found is None:
            from gpuguide.build.link_check import ParsedPage, resolve_links

            links = self._entries[output].links
            found = self._parsed[output] = ParsedPage(links.ids, resolve_links(output, links.fragment_links))
        return found

    def __contains__(self, output: object) -> bool:
        return output in self._parsed or output in self._entries

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries.keys() | self._parsed.keys())

    def __len__(self) -> int:
        return len(self._entries.keys() | self._parsed.keys())


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
        # The records as last loaded or saved, and their saved list: written again as it is while they
        # are unchanged (sorting eleven thousand reads anew took 29 ms, a twentieth of a one-page edit).
        self._saved_records: tuple[dict[Read, str], list[list[str]]] | None = None

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
        cache = cls(key, journal.entries, sitemap, records, journal)
        cache._saved_records = (dict(records), journal.extras["records"]) if records else None
        return cache

    def save(self, project: Project) -> None:
        journal = self._journal
        if journal is None or journal.key != self.key:
            journal = self._journal = cached.Journal(project.cache_dir / self.FILE, self.key)
        saved = self._saved_records
        if saved is not None and saved[0] == self.records:
            records = saved[1]
        else:
            records = [[table, name, value] for (table, name), value in sorted(self.records.items())]
        journal.save(self.pages, {"sitemap": self.sitemap, "records": records}, _encode_entries)
        self._saved_records = (dict(self.records), records)

    def unchanged(self, output: str, key: PageKey, changed: frozenset[Read]) -> PageEntry | None:
        """The entry for ``output`` if the page's own inputs are unchanged: the same key, and none of
        its reads among ``changed`` (the reads whose value changed since the last build)."""
        entry = self.pages.get(output)
        # ``isdisjoint`` walks the hundred reads of a page even when nothing changed: asked only if any did.
        if entry is None or entry.key != key or (changed and not changed.isdisjoint(entry.reads)):
            return None
        return entry


# Each entry a flat list. Pages of one layout read much the same records, a hundred reads each:
# the reads of a record are listed once, and each entry's reads are their numbers, packed into one
# hex text (two or four bytes each, little-endian), which ``itemgetter`` turns into the tuple in C
# (rather than JSON's nested lists, parsed and rebuilt in Python); equal lists of reads are then one
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
        layout, body, meta, subject = entry.key
        rows.append([output, layout, body, meta, list(subject) if subject is not None else None, packed[id(indexes)],
                     entry.size, entry.mtime_ns, entry.card_file, sorted(entry.anchor_targets), entry.links_text,
                     entry.menu])
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
        output, layout, body, meta, subject, text, size, mtime_ns, card_file, targets, links_text, menu = row
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
        if (type(output) is not str or type(layout) is not str or type(body) is not str or type(meta) is not str
                or type(size) is not int or type(mtime_ns) is not int or type(links_text) is not str or type(menu) is not str
                or not (subject is None or type(subject) is list) or type(targets) is not list
                or not (card_file is None or _plain_file_name(card_file))):
            raise Invalid("an entry of the build cache")
        pages[output] = _new_entry(PageEntry, (
            (layout, body, meta, tuple(subject) if subject is not None else None), found, size, mtime_ns, card_file,
            frozenset(targets) if targets else _NO_TARGETS, links_text, menu))
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
