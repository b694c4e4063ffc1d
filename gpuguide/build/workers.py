"""Rendering pages on every core: each worker renders a share of the pages, writes each into the
staging folder (the HTML never travels between processes) and sends back what the cache and the
link check need: of a page's links, only those the build's process must still check (``render_one``).
Then the workers draw the pages' sharing cards into the build cache, in batches (``draw_cards``)."""

from __future__ import annotations

import multiprocessing as mp
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Collection, Protocol

from gpuguide import collector
from gpuguide.build.card_cache import ensure_drawn
from gpuguide.build.link_check import ParsedPage, resolve_links, written_page
from gpuguide.build.page_cache import LinkRecord, PageEntry, PageKey
from gpuguide.errors import Problem, Problems
from gpuguide.processes import forked_workers
from gpuguide.render import shell, site_wide
from gpuguide.render.cards import Card
from gpuguide.render.reads import Read
from gpuguide.render.renderer import PageRenderer
from gpuguide.structure.pages import Page

class Progress(Protocol):
    """Called as ``progress(done, total)`` while pages render, then as ``progress(done, total,
    "drawing cards")`` while their sharing cards are drawn (the command line shows it on a terminal)."""

    def __call__(self, done: int, total: int, stage: str = "rendering") -> None: ...


#: Below this many pages to render, a process pool costs more than it saves.
PARALLEL_MIN_PAGES = 64
PARALLEL_CHUNK = 8


@dataclass
class RenderedPage:
    """One page rendered (in this process or a worker), with what the cache and the link check need."""

    output: str
    written: bool  # False when the page failed (its problems say why)
    problems: list[Problem]
    reads: tuple[Read, ...]
    parsed: ParsedPage
    link_lines: dict[str, int]
    size: int = 0
    mtime_ns: int = 0
    html: bytes | None = None  # kept only when not written (``build.py check``)
    card: Card | None = None  # its sharing card, drawn into the build cache
    menu: str = ""  # its use-case menu's digest and places (``render.shell.record``)
    record: LinkRecord | None = None  # what its cache entry keeps of its links and card (when written)

    def entry(self, key: PageKey) -> PageEntry:
        """Its build cache entry, under ``key``: a page written has everything it needs."""
        assert self.record is not None
        return PageEntry.rendered(key, self.reads, self.size, self.mtime_ns, self.record, self.menu)


def write_file(target: str, data: bytes) -> os.stat_result:
    """Write ``data`` to ``target`` (its folder made if needed); the file's stat after the last write."""
    folder = os.path.dirname(target)
    try:  # a page's own folder, in a section folder that mostly exists already
        os.mkdir(folder)
    except FileExistsError:
        pass
    except FileNotFoundError:
        os.makedirs(folder, exist_ok=True)
    # Plain system calls: open() would add a buffer, an isatty() and two lseek() per page.
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o666)
    try:
        view, sent = memoryview(data), 0
        while sent < len(data):  # a regular file takes it all at once, but write() may return less
            sent += os.write(fd, view[sent:])
        return os.fstat(fd)
    finally:
        os.close(fd)


def render_one(renderer: PageRenderer, page: Page, staging: Path | None,
               exists: Collection[str] = frozenset()) -> RenderedPage:
    """Render one page; write it into ``staging`` (None: keep its HTML, write nothing). ``exists``:
    the site's files known before rendering (every published page, the root page, the assets). A
    link to one of them without a #fragment holds already: the page's result keeps only its other
    links, the ones the link check must still look at (the build's process holds ten thousand
    results at once: at 10,000 corpus pages, 24 links a page, 5 to check)."""
    before = len(renderer.problems.items)
    # No collection while the page renders: rendering makes no reference cycles (none found in
    # 1,000 corpus pages nor in the real site's), and the collector's passes over the tokens alive
    # during a parse were 8 % of a page. A cycle a page did make is collected after it, as usual.
    with collector.paused():
        output = renderer.render(page)
    problems = renderer.problems.items[before:]
    path = page.output_path
    reads = tuple(sorted(output.reads))
    if output.html is None:
        return RenderedPage(path, False, problems, reads, ParsedPage(), output.link_lines)
    data = output.html.encode("utf-8")
    assert output.known is not None  # a page rendered notes what it wrote
    parsed = written_page(output.known, path)
    to_check = ParsedPage(parsed.ids, tuple(link for link in parsed.links if link.fragment or link.target not in exists))
    hrefs = {link.href for link in to_check.links}
    link_lines = {href: line for href, line in output.link_lines.items() if href in hrefs}
    if staging is None:
        return RenderedPage(path, False, problems, reads, to_check, link_lines, html=data)
    stat = write_file(os.path.join(staging, path), data)
    return RenderedPage(path, True, problems, reads, to_check, link_lines, stat.st_size,
                        stat.st_mtime_ns, card=output.card,
                        menu=shell.record(renderer.views[page.lang].menu_digest, output.menu_spans),
                        record=LinkRecord.of(parsed, output.link_lines, output.card))


def resplice(renderer: PageRenderer, entries: dict[int, PageEntry], site_dir: Path,
             staging: Path | None) -> list[RenderedPage]:
    """The published pages at the indexes of ``entries`` (their last build's), each from the file the
    last build wrote in ``site_dir``, unchanged but for its use-case menu, put in again
    (``render.shell``): a read and a write instead of a render (0.1 ms against 1 to 40 ms). Only
    a build that publishes (into ``staging``) keeps pages."""
    if not entries:
        return []
    assert staging is not None
    published = renderer.library.published
    return [_resplice_one(renderer, published[index], entry, site_dir, staging) for index, entry in entries.items()]


def _resplice_one(renderer: PageRenderer, page: Page, entry: PageEntry, site_dir: Path, staging: Path) -> RenderedPage:
    # Its links are the same (the menu's addresses are in the global key): taken from its entry.
    path = page.output_path
    record = shell.read_record(entry.menu)
    assert record is not None  # the plan resplices only a page whose record it read
    spans = record[1]
    html, moved = shell.splice((site_dir / path).read_bytes().decode("utf-8"), spans, renderer.menu_fragments(page))
    stat = write_file(os.path.join(staging, path), html.encode("utf-8"))
    links = entry.links
    if links.card is not None and renderer.card_cache is not None:
        ensure_drawn(links.card, renderer.card_cache)
    return RenderedPage(path, True, [], entry.reads, ParsedPage(links.ids, resolve_links(path, links.fragment_links)),
                        links.link_lines, stat.st_size, stat.st_mtime_ns, card=links.card,
                        menu=shell.record(renderer.views[page.lang].menu_digest, moved),
                        record=LinkRecord(entry.card_file, entry.anchor_targets, entry.links_text))


# Set before forking the pool; workers inherit them.
_WORKER: tuple[PageRenderer, Path | None, Collection[str]] | None = None


def _render_chunk(indexes: list[int]) -> list[RenderedPage]:
    assert _WORKER is not None
    renderer, staging, exists = _WORKER
    published = renderer.library.published
    return [render_one(renderer, published[index], staging, exists) for index in indexes]


#: Cards a worker draws in a row (``draw_cards``).
CARD_BATCH = 64


def cards_to_draw(renderer: PageRenderer, results: list[RenderedPage]) -> list[Card]:
    """The sharing cards of the pages written, each once: what ``draw_cards`` draws."""
    if renderer.card_cache is None:
        return []
    return list(dict.fromkeys(result.card for result in results if result.written and result.card is not None))


def draw_cards(cards: list[Card]) -> None:
    """Draw ``cards`` into the worker's renderer's card cache, one after the other.

    The pages' cards are drawn once every page is rendered, a batch at a time, not each after its
    page: a card drawn between two pages found the font's glyphs and the compressor's tables out
    of the processor's caches (0.70 ms a drawing against 0.53 ms in a row). At 10,000 corpus pages
    a card now adds 0.66 ms of CPU to a cold build, against 1.04 ms (``bench/README.md``)."""
    assert _WORKER is not None and _WORKER[0].card_cache is not None
    cache = _WORKER[0].card_cache
    for card in cards:
        ensure_drawn(card, cache)


def _chunks_by_subject(published: tuple[Page, ...], indexes: list[int]) -> list[list[int]]:
    """The pages to render in chunks of ``PARALLEL_CHUNK``, every language of one page in the same
    chunk: a model's or a GPU's figures (plans, the planner's program), computed once per process
    and memoised, are then computed by one worker, not by each worker that renders a language of it."""
    def subject(index: int) -> tuple[str, tuple[str, ...]]:
        page = published[index]
        return page.meta.translation_key, page.subject.ids if page.subject is not None else ()

    ordered = sorted(indexes, key=subject)
    return [ordered[start:start + PARALLEL_CHUNK] for start in range(0, len(ordered), PARALLEL_CHUNK)]


class _SameReads:
    """Each read a page sent back from a worker, as the one object kept for it: unpickled, every
    chunk's pages bring their own copies of the same few thousand reads (46 a page on the corpus,
    3,136 distinct over 2,212 pages), which the build would hold until it ends (3.6 KB a page)."""

    def __init__(self) -> None:
        self._known: dict[Read, Read] = {}

    def __call__(self, reads: tuple[Read, ...]) -> tuple[Read, ...]:
        known = self._known
        return tuple([known.setdefault(read, read) for read in reads])


@dataclass(frozen=True)
class Preview:
    """The pages a reader has open in the dev server (``commands.serve``), shown before the build ends."""

    outputs: frozenset[str]  # their output paths: ``en/gpu/h100-sxm/index.html``
    show: Callable[[dict[str, str]], None]  # given their new HTML, before the other pages render


def render_first(renderer: PageRenderer, indexes: list[int], preview: Preview | None) -> None:
    """Render the open pages among ``indexes`` here, first, and hand their HTML to ``preview``: what
    the reader looks at is on screen in a fraction of a second (a price edit on the real site:
    about 0.3 s), while the build goes on to render, check and publish the site as always (Hugo's
    dev server renders the open pages first too). Their problems are left to the build, which
    renders them again with the others: a page with one is not shown."""
    if preview is None or not preview.outputs:
        return
    published, problems = renderer.library.published, renderer.problems
    first = [published[index] for index in indexes if published[index].output_path in preview.outputs]
    shown: dict[str, str] = {}
    try:
        for page in first:
            renderer.problems = Problems(problems.root)
            html = renderer.render(page).html
            if html is not None and not renderer.problems.errors:
                shown[page.output_path] = html
    finally:
        renderer.problems = problems
    if shown:
        preview.show(shown)


def render_pages(renderer: PageRenderer, indexes: list[int], staging: Path | None,
                 progress: Progress | None = None, parallel: bool = True,
                 exists: Collection[str] = frozenset()) -> list[RenderedPage]:
    """Render the published pages at ``indexes``, on every core when there are enough of them
    (``exists``: as ``render_one``), then draw the sharing cards of those written into the
    renderer's card cache (``draw_cards``).

    Workers are forked after the data, content and templates are loaded and compiled, so each
    starts with them in memory; their problems are added to the renderer's. The pages' reads come
    back as each worker's copies: each is kept as one object for the build (``_SameReads``).
    """
    global _WORKER
    published = renderer.library.published
    workers = min(os.cpu_count() or 1, 8)
    results: list[RenderedPage] = []
    if parallel and workers > 1 and len(indexes) >= PARALLEL_MIN_PAGES and "fork" in mp.get_all_start_methods():
        for layout in sorted({published[index].meta.layout for index in indexes}):
            renderer.env.get_template(f"{layout}.html")  # compile once, before forking
        _WORKER = (renderer, staging, exists)
        chunks = _chunks_by_subject(published, indexes)
        # Everything loaded so far lives as long as the workers: move it out of the garbage
        # collector's sight, so full collections in the workers (markdown-it makes hundreds of
        # thousands of tokens) do not walk the whole library again and again, nor touch its pages
        # of memory (which the workers then share with this process instead of copying them).
        try:
            with collector.frozen(), forked_workers(workers) as pool:
                same_reads = _SameReads()
                for chunk in pool.map(_render_chunk, chunks):
                    for result in chunk:
                        renderer.problems.items.extend(result.problems)
                        result.reads = same_reads(result.reads)
                    results.extend(chunk)
                    if progress is not None:
                        progress(len(results), len(indexes))
                cards = cards_to_draw(renderer, results)
                batches = [cards[start:start + CARD_BATCH] for start in range(0, len(cards), CARD_BATCH)]
                for done, _ in enumerate(pool.map(draw_cards, batches), 1):
                    if progress is not None:
                        progress(min(done * CARD_BATCH, len(cards)), len(cards), "drawing cards")
        finally:
            _WORKER = None
        order = {published[index].output_path: position for position, index in enumerate(indexes)}
        return sorted(results, key=lambda result: order[result.output])  # as asked, whatever the chunks
    for done, index in enumerate(indexes, 1):
        results.append(render_one(renderer, published[index], staging, exists))
        if progress is not None:
            progress(done, len(indexes))
    cards = cards_to_draw(renderer, results)
    for done, card in enumerate(cards, 1):
        assert renderer.card_cache is not None  # cards_to_draw gives none without a cache
        ensure_drawn(card, renderer.card_cache)
        if progress is not None:
            progress(done, len(cards), "drawing cards")
    return results


def render_site_wide(renderer: PageRenderer) -> tuple[dict[str, str], Card | None]:
    """The root language chooser (and its sharing card), and ``/404.html`` where servers look for
    it: the "not found" page of every language."""
    pages: dict[str, str] = {}
    card = None
    root = site_wide.render_root(renderer)
    if root is not None:
        pages["index.html"], card = root
    not_found = site_wide.render_not_found_everywhere(renderer)
    if not_found is not None:
        pages["404.html"] = not_found
    return pages, card
