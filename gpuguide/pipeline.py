"""The build, top-down: load → validate → compute and render → check → publish.

``load_site`` reads and validates everything; ``check_site`` also renders every page in memory and
checks the links, and writes nothing (``build.py check`` stops there); ``build_site`` renders the
pages whose inputs changed into a staging folder and publishes them into ``site/`` only when all
of that succeeded (``publish``).
"""

from __future__ import annotations

import gc
import logging
import multiprocessing as mp
import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from .content import Library, Page, load_library
from .incremental import (RECORDER, BuildCache, ContentCache, PageEntry, RecordDigests, TemplateDigests,
                          code_version, digest, track)
from .checks import ParsedPage, check_links, parse_page
from .datasets import Dataset, load_dataset
from .errors import Problem, Problems
from .project import Project
from .publish import discard, recover, staging_dir, swap_into_place, update_in_place
from . import fastpath
from .render import PageRenderer
from .search import build_search_index
from .sitemap import robots_txt, sitemap_xml
from .translations import check_translations

log = logging.getLogger("gpuguide")


@dataclass
class LoadedSite:
    dataset: Dataset
    library: Library
    problems: Problems


@dataclass(frozen=True)
class BuildResult:
    pages_written: int  # pages in the site
    seconds: float
    warnings: list[Problem]
    pages_rendered: int = 0  # pages rendered this time (the others were unchanged)


def load_site(project: Project, strict: bool = False, content_cache: Path | None = None,
              parallel: bool = False) -> LoadedSite:
    """Read and validate data and content; raise BuildFailed with every problem found.

    With ``content_cache`` (a file), Markdown files whose text is unchanged since the last load
    are not parsed again.
    """
    problems = Problems(project.root)
    dataset = load_dataset(project.data_dir, problems)
    cache = ContentCache.load(content_cache, code_version()) if content_cache is not None else None
    cached = dict(cache.sources) if cache is not None else {}
    library = load_library(project.content_dir, dataset, problems, cache.sources if cache is not None else None,
                           parallel)
    if cache is not None and content_cache is not None and (
            cache.sources.keys() != cached.keys()
            or any(source is not cached[path] for path, source in cache.sources.items())):
        cache.save(content_cache)
    if dataset is not None:
        check_translations(library, dataset, problems)
    problems.raise_if_errors(strict)
    assert dataset is not None  # load_dataset returns None only after reporting an error
    return LoadedSite(dataset, library, problems)


#: Called as ``progress(done, total)`` while pages render (the command line shows it on a terminal).
Progress = Callable[[int, int], None]


@dataclass
class CheckedSite:
    """A site rendered in memory whose links all resolve: what ``build`` writes and ``check`` discards."""

    loaded: LoadedSite
    pages: dict[str, str]  # output path → HTML
    assets: dict[str, Path]  # output path → file to copy

    @property
    def warnings(self) -> list[Problem]:
        return sorted(set(self.loaded.problems.warnings))


def render_site(project: Project, site: LoadedSite, strict: bool = False,
                progress: Progress | None = None) -> tuple[dict[str, str], dict[str, dict[str, int]]]:
    """Every published page's HTML by output path, and each page's Markdown link lines.

    A page that failed is left out, its problems reported in ``site.problems``.
    """
    renderer = PageRenderer(site.dataset, site.library, project.templates_dir, site.problems)
    rendered: dict[str, str] = {}
    published = site.library.published
    for done, page in enumerate(published, 1):
        html = renderer.render(page)
        if html is not None:
            rendered[page.output_path] = html
        if progress is not None:
            progress(done, len(published))
    rendered.update(_site_wide_pages(renderer, site, rendered.get))
    return rendered, renderer.link_lines


def _site_wide_pages(renderer: PageRenderer, site: LoadedSite,
                     page_html: Callable[[str], str | None]) -> dict[str, str]:
    """The root language chooser, and ``/404.html`` where servers look for it: a copy of the default
    language's "not found" page, whose HTML ``page_html(output path)`` gives (None if it failed)."""
    pages: dict[str, str] = {}
    RECORDER.start()  # rendered on every build: the root page's reads need not be kept
    root = renderer.render_root()
    RECORDER.stop()
    if root is not None:
        pages["index.html"] = root
    not_found = site.library.find("not_found", site.dataset.config.default_language)
    if not_found is not None and (html := page_html(not_found.output_path)) is not None:
        pages["404.html"] = html
    return pages


def check_site(project: Project, strict: bool = False, progress: Progress | None = None) -> CheckedSite:
    """Load, validate, render every page in memory and check every link; write nothing.

    ``build.py check`` stops here, so template errors and broken links are caught without a build.
    """
    site = load_site(project, strict)
    rendered, link_lines = render_site(project, site, strict, progress)
    assets = _asset_files(project)
    sources = {page.output_path: page.source for page in site.library.published}
    # Pages that failed to render are already reported: links to them are not broken links too.
    failed = {path for path in [*sources, "index.html"] if path not in rendered}
    parsed = {path: parse_page(html) for path, html in rendered.items()}
    check_links(parsed, set(assets) | failed, sources, site.problems, link_lines)
    site.problems.raise_if_errors(strict)
    return CheckedSite(site, rendered, assets)


#: Below this many pages to render, a process pool costs more than it saves.
PARALLEL_MIN_PAGES = 64
PARALLEL_CHUNK = 32


@dataclass
class RenderedPage:
    """One page rendered (in this process or a worker), with what the cache and link check need."""

    output: str
    written: bool  # False when the page failed (its problems say why)
    problems: list[Problem]
    reads: tuple[tuple[str, str], ...]
    parsed: ParsedPage
    link_lines: dict[str, int]
    size: int = 0
    mtime_ns: int = 0


# Set before forking the pool; workers inherit them.
_WORKER_RENDERER: PageRenderer | None = None
_WORKER_STAGING: Path | None = None


def _render_one(renderer: PageRenderer, page: Page, staging: Path) -> RenderedPage:
    """Render one page and write it into the staging folder (the HTML never travels between processes)."""
    before = len(renderer.problems.items)
    RECORDER.start()
    html = renderer.render(page)
    reads = RECORDER.stop()
    if page.meta.layout == "gpu":  # generated pages hold their GPU records directly
        reads.add(("gpus", page.record.id))
    elif page.meta.layout == "comparison":
        reads.update(("gpus", gpu.id) for gpu in page.record)
    output = page.output_path
    problems = renderer.problems.items[before:]
    link_lines = dict(renderer.link_lines.get(output, {}))
    if html is None:
        return RenderedPage(output, False, problems, tuple(sorted(reads)), ParsedPage(), link_lines)
    target = os.path.join(staging, output)
    folder = os.path.dirname(target)
    try:  # a page's own folder, in a section folder that mostly exists already
        os.mkdir(folder)
    except FileExistsError:
        pass
    except FileNotFoundError:
        os.makedirs(folder, exist_ok=True)
    data = html.encode("utf-8")
    # Plain system calls: open() would add a buffer, an isatty() and two lseek() per page.
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o666)
    try:
        view, sent = memoryview(data), 0
        while sent < len(data):  # a regular file takes it all at once, but write() may return less
            sent += os.write(fd, view[sent:])
        stat = os.fstat(fd)  # after the last write: the size and time the cache will compare
    finally:
        os.close(fd)
    return RenderedPage(output, True, problems, tuple(sorted(reads)), parse_page(data), link_lines,
                        stat.st_size, stat.st_mtime_ns)


def _render_chunk(indexes: list[int]) -> list[RenderedPage]:
    renderer, staging = _WORKER_RENDERER, _WORKER_STAGING
    assert renderer is not None and staging is not None
    published = renderer.library.published
    return [_render_one(renderer, published[index], staging) for index in indexes]


def render_pages(renderer: PageRenderer, indexes: list[int], staging: Path, progress: Progress | None = None,
                 parallel: bool = True) -> list[RenderedPage]:
    """Render the published pages at ``indexes``, on every core when there are enough of them.

    Workers are forked after the data, content and templates are loaded and compiled, so each
    worker starts with them in memory; each writes its pages into ``staging`` and sends back the
    problems found, the data records each page read, and each page's ids and links.
    """
    global _WORKER_RENDERER, _WORKER_STAGING
    published = renderer.library.published
    workers = min(os.cpu_count() or 1, 8)
    results: list[RenderedPage] = []
    if parallel and workers > 1 and len(indexes) >= PARALLEL_MIN_PAGES and "fork" in mp.get_all_start_methods():
        for layout in sorted({published[index].meta.layout for index in indexes}):
            renderer.env.get_template(f"{layout}.html")  # compile once, before forking
        _WORKER_RENDERER, _WORKER_STAGING = renderer, staging
        chunks = [indexes[start:start + PARALLEL_CHUNK] for start in range(0, len(indexes), PARALLEL_CHUNK)]
        # Everything loaded so far lives as long as the workers: move it out of the garbage
        # collector's sight, so full collections in the workers (markdown-it makes hundreds of
        # thousands of tokens) do not walk the whole library again and again, nor touch its pages
        # of memory (which the workers then share with this process instead of copying them).
        gc.freeze()
        try:
            with mp.get_context("fork").Pool(workers) as pool:
                for chunk in pool.imap(_render_chunk, chunks):
                    for result in chunk:
                        renderer.problems.items.extend(result.problems)
                    results.extend(chunk)
                    if progress is not None:
                        progress(len(results), len(indexes))
        finally:
            _WORKER_RENDERER = _WORKER_STAGING = None
            gc.unfreeze()
        return results
    for done, index in enumerate(indexes, 1):
        results.append(_render_one(renderer, published[index], staging))
        if progress is not None:
            progress(done, len(indexes))
    return results


def _options(strict: bool, search: bool) -> dict[str, bool]:
    return {"strict": strict, "search": search}


def _global_key(site: LoadedSite, assets: dict[str, Path], search: bool) -> str:
    """What every page depends on: the code, the configuration, the site's structure (every page's
    front matter: titles, URLs and tables show up in menus, lists and links), the asset files.

    Templates and UI strings are not in it: pages depend on the templates of their layout and on
    the strings they looked up, tracked per page.
    """
    dataset = site.dataset
    structure = [(page.lang, str(page.source), page.meta_json) for page in site.library.pages]
    anchors = [anchor.model_dump_json() for anchor in dataset.anchors]  # few, and only one page shows them
    return digest(code_version(), dataset.config.model_dump_json(), dataset.use_cases, dataset.prices_as_of,
                  anchors, structure, sorted(assets), search)


def _page_key(page: Page, global_key: str, templates: TemplateDigests) -> str:
    record = page.record.id if page.meta.layout == "gpu" else (
        tuple(gpu.id for gpu in page.record) if page.record is not None else None)
    return digest(global_key, templates.layout(f"{page.meta.layout}.html"), page.lang, page.output_path,
                  page.body_digest, record)


class _Phases:
    """Logs how long each stage of a build took (``build.py --debug`` shows them)."""

    def __init__(self) -> None:
        self.last = time.perf_counter()

    def done(self, name: str) -> None:
        now = time.perf_counter()
        log.debug("%-22s %7.3f s", name, now - self.last)
        self.last = now


def build_site(project: Project, strict: bool = False, progress: Progress | None = None,
               search: bool = True, parallel: bool = True) -> BuildResult:
    """Build the site into ``site/``, re-rendering only what changed; on any error ``site/`` is
    left exactly as it was.

    ``search=False`` skips the Pagefind index (faster previews and benchmarks); ``parallel=False``
    renders in this process only (the dev server, which has threads, must not fork).
    """
    started = time.perf_counter()
    phases = _Phases()
    # First, a build killed while publishing: finish or undo its work, so that what site/ holds
    # is a whole site before any page is judged unchanged from it.
    recover(project.site_dir)
    site = load_site(project, strict, project.cache_dir / "content.pickle", parallel)
    phases.done("load and validate")
    track(site.dataset)
    renderer = PageRenderer(site.dataset, site.library, project.templates_dir, site.problems)
    published = site.library.published
    assets = _asset_files(project)
    global_key = _global_key(site, assets, search)
    templates = TemplateDigests(renderer.env)
    cache_path = project.cache_dir / "pages.pickle"
    cache = BuildCache.load(cache_path, global_key)
    digests = RecordDigests(site.dataset)

    keys = {page.output_path: _page_key(page, global_key, templates) for page in published}
    reused: dict[str, PageEntry] = {}
    to_render: list[int] = []
    site_dir = str(project.site_dir)
    for index, page in enumerate(published):
        output = page.output_path
        entry = cache.reusable(output, keys[output], digests, site_dir)
        if entry is not None:
            reused[output] = entry
        else:
            to_render.append(index)
    phases.done(f"keys ({len(reused)} reusable)")
    staging = staging_dir(project.site_dir)
    try:
        results = {result.output: result
                   for result in render_pages(renderer, to_render, staging, progress, parallel)}
        written = {output for output, result in results.items() if result.written}
        phases.done(f"render {len(to_render)} pages")

        def page_html(output: str) -> str | None:
            folder = staging if output in written else project.site_dir if output in reused else None
            return None if folder is None else (folder / output).read_text(encoding="utf-8")

        extra = _site_wide_pages(renderer, site, page_html)

        parsed = {output: result.parsed for output, result in results.items() if result.written}
        # Unchanged pages: their plain links still resolve (the set of pages is part of the global
        # key); links with a #fragment are checked again, against the ids of the pages they point to.
        parsed.update({output: ParsedPage(entry.ids, entry.fragment_links) for output, entry in reused.items()})
        parsed.update({output: parse_page(html) for output, html in extra.items()})
        link_lines = {output: result.link_lines for output, result in results.items()}
        link_lines.update({output: entry.link_lines for output, entry in reused.items()})
        sources = {page.output_path: page.source for page in published}
        failed = {output for output in sources if output not in written and output not in reused}
        check_links(parsed, set(assets) | failed, sources, site.problems, link_lines)
        site.problems.raise_if_errors(strict)
        phases.done("check links")

        config = site.dataset.config
        # The sitemap shows only what the global key covers (pages, URLs, translations, base URL).
        sitemap = cache.sitemap or sitemap_xml(site.library, config.base_url, config.default_language)
        texts = {**extra, "sitemap.xml": sitemap, "robots.txt": robots_txt(config.base_url)}
        entries = dict(reused)
        for output, result in results.items():
            if result.written:
                entries[output] = PageEntry(
                    keys[output], result.reads, digests.fingerprint(result.reads), result.size, result.mtime_ns,
                    frozenset(result.parsed.ids), tuple(link for link in result.parsed.links if "#" in link),
                    result.link_lines)
        # A few pages changed (and the search index, if any, need not be rebuilt): update site/ in
        # place. Otherwise write the whole site beside it and swap.
        if reused and (not search or not to_render) and len(written) <= len(published) // 4:
            _update_site(project, staging, written, entries, texts, assets)
        else:
            _replace_site(project, staging, reused, texts, assets, search, bool(to_render), site.problems, strict)
        phases.done("publish")
    except BaseException:
        discard(staging, project.site_dir)
        raise
    BuildCache(global_key, entries, sitemap).save(cache_path)
    warnings = sorted(set(site.problems.warnings))
    fastpath.record(project, _options(strict, search), len(published) + len(extra), [str(w) for w in warnings],
                    _written_files(project, entries, [*texts, *assets], search))
    phases.done("save caches")
    return BuildResult(len(published) + len(extra), time.perf_counter() - started, warnings,
                       len(results) + len(extra))


def _replace_site(project: Project, staging: Path, reused: dict[str, PageEntry], texts: dict[str, str],
                  assets: dict[str, Path], search: bool, rendered: bool, problems: Problems, strict: bool) -> None:
    """Complete the staging folder (it holds the rendered pages) into the whole site; swap it in."""
    for output in sorted(reused):
        target = staging / output
        target.parent.mkdir(parents=True, exist_ok=True)
        os.link(project.site_dir / output, target)
    for relative, text in sorted(texts.items()):
        target = staging / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    for relative, source in sorted(assets.items()):
        target = staging / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
    if search:
        previous_index = project.site_dir / "pagefind"
        if not rendered and previous_index.is_dir():
            # Nothing was rendered again: the previous index is still the index of this site.
            shutil.copytree(previous_index, staging / "pagefind", copy_function=os.link)
        else:
            build_search_index(staging, problems)
            problems.raise_if_errors(strict)
    swap_into_place(staging, project.site_dir)


def _update_site(project: Project, staging: Path, written: set[str], entries: dict[str, PageEntry],
                 texts: dict[str, str], assets: dict[str, Path]) -> None:
    """Move into ``site/`` only the files whose bytes changed.

    A rendered page whose HTML came out the same keeps its file (and its entry the file's stat).
    """
    site_dir = project.site_dir
    moves: list[str] = []
    for output in sorted(written):
        new = (staging / output).read_bytes()
        try:
            same = (site_dir / output).read_bytes() == new
        except OSError:
            same = False
        if not same:
            moves.append(output)
            continue
        stat = (site_dir / output).stat()
        entries[output] = entries[output]._replace(size=stat.st_size, mtime_ns=stat.st_mtime_ns)
    others = {relative: text.encode("utf-8") for relative, text in texts.items()}
    others.update({relative: source.read_bytes() for relative, source in assets.items()})
    for relative, content in sorted(others.items()):
        try:
            if (site_dir / relative).read_bytes() == content:
                continue
        except OSError:
            pass
        target = staging / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content)
        moves.append(relative)
    # Which pages and assets exist is part of the global key: when it matched (the only case that
    # comes here), site/ holds the same files as before, and none is to be deleted.
    update_in_place(staging, site_dir, moves)


def _written_files(project: Project, entries: dict[str, PageEntry], others: list[str],
                   search: bool) -> dict[str, tuple[int, int]]:
    """Size and modification time of every file of the site: the pages' are in their entries
    (taken when written, or checked when reused), the few others are looked up."""
    files = {output: (entry.size, entry.mtime_ns) for output, entry in entries.items()}
    paths = list(others)
    index = project.site_dir / "pagefind"
    if search and index.is_dir():
        paths += [path.relative_to(project.site_dir).as_posix() for path in index.rglob("*") if path.is_file()]
    for relative in paths:
        stat = (project.site_dir / relative).stat()
        files[relative] = (stat.st_size, stat.st_mtime_ns)
    return files


def _asset_files(project: Project) -> dict[str, Path]:
    """Static files shipped with the templates, by output path (``assets/style.css``)."""
    if not project.assets_dir.is_dir():
        return {}
    return {f"assets/{path.relative_to(project.assets_dir).as_posix()}": path
            for path in sorted(project.assets_dir.rglob("*")) if path.is_file()}
