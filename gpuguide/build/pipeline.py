"""The build, top-down: load → validate → plan → render → check → publish.

``run`` is the one orchestration: ``build.py build`` runs it to publish into ``site/``; ``build.py
check`` runs the same stages without publishing (every page rendered, nothing written). Each stage
lives in its own module; this one only strings them together. One build at a time (``lock``).
"""

from __future__ import annotations

import logging
import os
import shutil
import time
from contextlib import ExitStack
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable

# Only what the no-change check needs is imported here: the stages (pydantic, Jinja2, markdown-it,
# Babel, Pillow: a second of imports) are imported once a build has something to do.
from gpuguide import collector
from gpuguide.build import publish, rebuild
from gpuguide.build.lock import BuildLock
from gpuguide.errors import Problem, Problems
from gpuguide.project import Project

if TYPE_CHECKING:
    from gpuguide.build.workers import Progress
    from gpuguide.render.cards import Card
    from gpuguide.render.renderer import PageRenderer
    from gpuguide.structure.data import Dataset
    from gpuguide.structure.language import Language
    from gpuguide.structure.library import Library
    from gpuguide.structure.loading import ContentCache
    from gpuguide.structure.sources import FileState

log = logging.getLogger("gpuguide")


@dataclass(frozen=True)
class Options:
    strict: bool = False  # warnings are errors
    search: bool = True  # build the Pagefind index
    parallel: bool = True  # render on every core (the dev server, which has threads, must not fork)


@dataclass
class Site:
    """Everything loaded and validated: what the later stages read."""

    dataset: Dataset
    languages: dict[str, Language]
    library: Library
    problems: Problems


@dataclass(frozen=True)
class Outcome:
    pages: int  # files in the site: every published page, the root page and /404.html
    rendered: int  # pages rendered this time (the others were unchanged)
    seconds: float
    warnings: list[Problem]
    unchanged: bool = False  # nothing changed since the last build: nothing was loaded


def load(project: Project, options: Options, content_cache: ContentCache | None = None,
         states: dict[str, FileState | str] | None = None, report_later: bool = False) -> Site:
    """Read and validate data and content; raise BuildFailed with every problem found. ``states``:
    the input files' states taken before reading anything (``rebuild.input_states``).
    ``report_later``: return the site with its problems when the data still allows rendering (only
    prices, anchors or measurements failed), so that the pages' own problems join them."""
    from gpuguide.figures.columns import check_columns
    from gpuguide.structure.data import load_dataset
    from gpuguide.structure.loading import load_library
    from gpuguide.structure.translations import check_translations
    from gpuguide.structure.validation import check_pages

    problems = Problems(project.root)
    dataset = load_dataset(project.data_dir, problems, keep_partial=report_later)
    library = load_library(project.content_dir, dataset, problems, content_cache, options.parallel, states)
    if dataset is not None:
        check_pages(library, dataset, problems)
        check_columns(library, dataset, problems)
        check_translations(library, dataset, problems)
    if dataset is None or not report_later:
        problems.raise_if_errors(options.strict)
    assert dataset is not None  # load_dataset returns None only after reporting an error
    return Site(dataset, dataset.languages(), library, problems)


def report_page_problems(renderer: PageRenderer, site: Site) -> None:
    """After problems in the input: render, in memory, every page whose own file has none, so that
    one run reports what their bodies hold too (an unknown shortcode, a missing anchor is left to
    the link check of a build that gets that far). Nothing is written."""
    failed = {problem.path for problem in site.problems.errors}
    for page in site.library.published:
        if site.problems.relative(page.source) not in failed:
            try:
                renderer.render(page)
            except Exception:  # noqa: BLE001  a page that shows what a reported problem broke: no new problem
                continue


@dataclass
class Built:
    """What a published build leaves in memory, for the dev server's next edit (``build.session``)."""

    site: Site
    renderer: PageRenderer
    entries: dict[str, rebuild.PageEntry]  # every published page: what the link check needs of it
    others: set[str]  # the other files of the site (assets, root page, sitemap…)
    warnings: list[Problem]


def run(project: Project, options: Options = Options(), publish_site: bool = True,
        progress: Progress | None = None, on_wait: Callable[[str], None] | None = None,
        keep: Callable[[Built], None] | None = None) -> Outcome:
    """Build the site (``publish_site``: into ``site/``, else only check it); on any error raise
    BuildFailed and leave ``site/`` as it was. ``keep`` receives what a published build leaves in
    memory: with it, the site is loaded even when nothing changed since the last build (the dev
    server's first build, which later edits start from)."""
    started = time.perf_counter()
    phases = _Phases()
    with BuildLock(project.root, on_wait), ExitStack() as until_the_end:
        # A build killed while publishing: finish or undo its work before judging anything from site/.
        publish.recover(project.site_dir)
        if publish_site:
            publish.check_site_folder(project.site_dir)
        inputs = rebuild.input_states(project)  # before reading anything: an edit from now on is seen next time
        manifest_options = asdict(options) | {"parallel": None}
        last = rebuild.Manifest.load(project) if publish_site else None
        if keep is None and last is not None and last.unchanged(project, manifest_options, inputs):
            return Outcome(last.pages, 0, time.perf_counter() - started, list(last.warnings), unchanged=True)

        from gpuguide.build import cards
        from gpuguide.build.links import check_links, parse_page
        from gpuguide.build.search import build_search_index
        from gpuguide.build.sitemap import robots_txt, sitemap_xml
        from gpuguide.build.workers import render_pages
        from gpuguide.render.renderer import PageRenderer
        from gpuguide.structure.loading import ContentCache

        # What is loaded now lives to the end of the build: no collection while loading it, and
        # none that walks it afterwards (``collector``: a third of a one-page edit at 10,000 pages).
        with collector.paused():
            content_cache = ContentCache.load(project.cache_dir / "content.cache", rebuild.code_version())
            site = load(project, options, content_cache, inputs, report_later=True)
            phases.done("load and validate")

            renderer = PageRenderer(site.dataset, site.library, site.languages, project.templates_dir, site.problems,
                                    project.cache_dir / "templates" if publish_site else None)
            before_templates = len(site.problems.errors)
            renderer.compile_templates({page.meta.layout for page in site.library.published})
            templates_compiled = len(site.problems.errors) == before_templates
            assets = publish.asset_files(project.assets_dir, project.root, site.problems)
            if site.problems.errors and templates_compiled:
                report_page_problems(renderer, site)  # every problem of the run at once
            site.problems.raise_if_errors(options.strict)
            shared = rebuild.global_key(site.dataset, site.library, assets)
            cache = rebuild.BuildCache.load(project, shared) if publish_site else rebuild.BuildCache(shared)
            pages = site.library.published
            digests = rebuild.RecordDigests(site.dataset)
            templates = rebuild.TemplateDigests(renderer.template_sources, renderer.template_references)
            plan = rebuild.plan(pages, cache, templates, digests, project.site_dir, reuse=publish_site)
            phases.done(f"plan ({len(plan.reused)} reusable)")
            # Frozen before the collector resumes: its first pass would otherwise walk all of it once.
            until_the_end.enter_context(collector.frozen())

        staging = publish.staging_dir(project.site_dir) if publish_site else None
        card_cache = project.cache_dir / cards.FOLDER
        renderer.card_cache = card_cache if publish_site else None
        try:
            results = {result.output: result
                       for result in render_pages(renderer, plan.render, staging, progress, options.parallel)}
            extra, root_card = _site_wide_pages(renderer, site)
            phases.done(f"render {len(plan.render)} pages")

            parsed = {output: result.parsed for output, result in results.items() if result.written or result.html}
            parsed.update({output: parse_page(html) for output, html in extra.items()})
            # Unchanged pages: their plain links still resolve (the set of pages is in the global key);
            # their links with a #fragment are checked again when they point to a page rendered now.
            linked = rebuild.LinkedPages(parsed, plan.reused)
            sources = {page.output_path: page.source for page in pages}
            failed = {output for output in [*sources, "index.html"] if output not in linked}
            # The links of the pages rendered now, and of the unchanged pages that link to an anchor of one.
            rendered = set(results)
            checked = rendered | set(extra) | {output for output, entry in plan.reused.items()
                                               if not entry.anchor_targets.isdisjoint(rendered)}
            link_lines = {output: result.link_lines for output, result in results.items()}
            link_lines.update({output: plan.reused[output].links.link_lines for output in checked - rendered
                               if output in plan.reused})
            check_links(linked, set(assets) | failed, sources, site.problems, link_lines, only=checked)
            site.problems.raise_if_errors(options.strict)
            phases.done("check links")
            if staging is None:  # check: everything rendered and checked, nothing written
                return Outcome(len(pages) + len(extra), len(results) + len(extra), time.perf_counter() - started,
                               _warnings(site))

            config = site.dataset.config
            # Every page's sharing card, from the cache (drawn by the workers, or at an earlier build);
            # published like the assets, but not part of the global key: a card follows its page.
            new_cards = {cards.card_output(output): cards.ensure_drawn(card, card_cache)
                         for output, card in [*((o, r.card) for o, r in results.items() if r.written),
                                              *([("index.html", root_card)] if root_card else [])]
                         if card is not None}
            kept = {cards.card_output(output): entry for output, entry in plan.reused.items() if entry.card_file is not None}
            # The sitemap shows only what the global key covers (pages, URLs, translations, base URL).
            sitemap = cache.sitemap or sitemap_xml(site.library, config.base_url, list(config.languages))
            texts = {**extra, "sitemap.xml": sitemap, "robots.txt": robots_txt(config.base_url)}
            entries = dict(plan.reused)
            written = {output for output, result in results.items() if result.written}
            for output in written:
                result = results[output]
                entries[output] = rebuild.PageEntry.rendered(output, plan.keys[output], result.reads, result.size,
                                                             result.mtime_ns, result.parsed, result.link_lines,
                                                             result.card)
            # The search index is built again when a page was rendered, or when site/ has none (the
            # last build ran with --no-search).
            index_search_now = options.search and (bool(results) or not (project.site_dir / "pagefind").is_dir())
            # An unchanged page's card is in site/ as the last build left it (one stat each), or is
            # drawn again: written over through its hard link, the cache's drawing is spoilt too.
            intact = rebuild.unchanged_files(project.site_dir, last, kept)
            redrawn = {relative: cards.draw_again(_card(entry), card_cache)
                       for relative, entry in kept.items() if relative not in intact}
            if rebuild.publish_mode(plan, len(written), len(pages), index_search_now) == "update":
                known_states = intact  # untouched: still as the last build recorded them
                changed_files = {**assets, **{relative: Path(path) for relative, path in {**new_cards, **redrawn}.items()}}
                for output in publish.update_changed(staging, project.site_dir, written, texts, changed_files):
                    stat = (project.site_dir / output).stat()  # same bytes: the old file stays, with its stat
                    entries[output] = entries[output]._replace(size=stat.st_size, mtime_ns=stat.st_mtime_ns)
            else:
                def index_search(folder: Path) -> None:
                    build_search_index(folder, site.problems)
                    site.problems.raise_if_errors(options.strict)

                card_files = {**{relative: cards.cached_drawing(kept[relative].card_file, card_cache)
                                 or cards.ensure_drawn(_card(kept[relative]), card_cache) for relative in intact},
                              **redrawn, **new_cards}
                known_states = {}  # every card is linked again from the cache: its state is looked up
                publish.complete_and_swap(staging, project.site_dir, plan.reused, texts, assets,
                                          index_search if index_search_now else None, card_files)
            phases.done("publish")
        except BaseException:
            if staging is not None:
                publish.discard(staging, project.site_dir)
            raise

        # Remember what this build was made from, for the next one. The site is published: a cache
        # that cannot be saved (a full disk) only means the next build is a full one.
        warnings = _warnings(site)
        try:
            cache.pages, cache.sitemap, cache.records = entries, sitemap, digests.table
            cache.save(project)
            content_cache.save(project.cache_dir / "content.cache", rebuild.code_version())
            cards.prune(card_cache, {entry.card_file for entry in kept.values() if entry.card_file}
                        | {os.path.basename(path) for path in new_cards.values()})
            others = [*texts, *assets, *kept, *new_cards, *_search_files(project.site_dir, options.search)]
            rebuild.Manifest(inputs, manifest_options, rebuild.written_files(project.site_dir, entries, others, known_states),
                             len(pages) + len(extra), warnings).save(project)
        except OSError as exc:
            shutil.rmtree(project.cache_dir, ignore_errors=True)  # no half-saved cache is trusted
            warnings.append(Problem(".build-cache", 1, 1, f"the build cache could not be saved ({exc.strerror}); "
                                    "the site is published, the next build will be a full one", None, "warning"))
        phases.done("save caches")
        if keep is not None:
            keep(Built(site, renderer, entries, {*texts, *assets}, warnings))
        return Outcome(len(pages) + len(extra), len(results) + len(extra), time.perf_counter() - started, warnings)


def _card(entry: rebuild.PageEntry) -> Card:
    card = entry.links.card
    assert card is not None  # an entry with a card's file name has that card
    return card


def _site_wide_pages(renderer: PageRenderer, site: Site) -> tuple[dict[str, str], Card | None]:
    """The root language chooser (and its sharing card), and ``/404.html`` where servers look for
    it: the "not found" page of every language."""
    pages: dict[str, str] = {}
    card = None
    root = renderer.render_root()
    if root is not None:
        pages["index.html"], card = root
    not_found = renderer.render_not_found_everywhere()
    if not_found is not None:
        pages["404.html"] = not_found
    return pages, card


def _search_files(site_dir: Path, search: bool) -> list[str]:
    index = site_dir / "pagefind"
    if not search or not index.is_dir():
        return []
    return [path.relative_to(site_dir).as_posix() for path in index.rglob("*") if path.is_file()]


def _warnings(site: Site) -> list[Problem]:
    return sorted(set(site.problems.warnings))


class _Phases:
    """Logs how long each stage of a build took (``build.py --debug`` shows them)."""

    def __init__(self) -> None:
        self.last = time.perf_counter()

    def done(self, name: str) -> None:
        now = time.perf_counter()
        log.debug("%-22s %7.3f s", name, now - self.last)
        self.last = now
