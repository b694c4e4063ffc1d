"""The build, top-down: load → validate → plan → render → check → publish → save.

``run`` is the one orchestration: ``build.py build`` runs it to publish into ``site/``; ``build.py
check`` runs the same stages without publishing (every page rendered, nothing written). Each stage,
with its bookkeeping, lives in its own module, and this one only strings them together:

- nothing changed? ``manifest`` (before anything is loaded);
- load and validate: ``structure.loading``, ``structure.validation``, ``figures.page_tables``;
- plan: ``render_plan`` (which pages to render; the others are kept, from ``page_cache``);
- render: ``workers`` (on every core; each page parsed for the link check where it is rendered);
- check: ``link_check``;
- publish: ``publish`` (a new site swapped in, or a few files updated in place), ``card_cache``;
- save: ``page_cache``, the content cache and ``manifest``, for the next build.
One build at a time (``lock``).
"""

from __future__ import annotations

import logging
import shutil
import time
from contextlib import ExitStack, closing
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

# Only what the no-change check needs is imported here: the stages (pydantic, Jinja2, markdown-it,
# Babel, Pillow) are imported once a build has something to do.
from gpuguide import collector
from gpuguide.build import manifest, publish
from gpuguide.build.fingerprints import code_version
from gpuguide.build.lock import BuildLock
from gpuguide.errors import Problem, Problems
from gpuguide.project import Project

if TYPE_CHECKING:
    from gpuguide.build.page_cache import BuildCache, PageEntry
    from gpuguide.build.render_plan import Plan, RecordDigests
    from gpuguide.build.workers import Preview, Progress, RenderedPage
    from gpuguide.cached import Snapshot
    from gpuguide.render.renderer import PageRenderer
    from gpuguide.structure.dataset import Dataset
    from gpuguide.structure.language import Language
    from gpuguide.structure.library import Library
    from gpuguide.structure.loading import ContentCache
    from gpuguide.structure.project_files import FileState

log = logging.getLogger("gpuguide")


@dataclass(frozen=True)
class Options:
    strict: bool = False  # warnings are errors
    search: bool = True  # build the Pagefind index
    parallel: bool = True  # render on every core, look at site/ on another: forks (never with threads running)


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
    the input files' states taken before reading anything (``manifest.input_states``).
    ``report_later``: return the site with its problems when the data still allows rendering (only
    prices, anchors or measurements failed), so that the pages' own problems join them."""
    from gpuguide.figures.page_tables import check_columns
    from gpuguide.structure.dataset import load_dataset
    from gpuguide.structure.loading import load_library
    from gpuguide.structure.translation_status import check_translations
    from gpuguide.structure.validation import check_pages

    problems = Problems(project.root)
    documents = content_cache.documents if content_cache is not None else None
    dataset = load_dataset(project.data_dir, problems, keep_partial=report_later, documents=documents)
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
    entries: dict[str, PageEntry]  # every published page: what the link check needs of it
    others: set[str]  # the other files of the site (assets, root page, sitemap…)
    warnings: list[Problem]


def run(project: Project, options: Options = Options(), publish_site: bool = True,
        progress: Progress | None = None, on_wait: Callable[[str], None] | None = None,
        keep: Callable[[Built], None] | None = None, preview: Preview | None = None,
        then_exit: bool = False) -> Outcome:
    """Build the site (``publish_site``: into ``site/``, else only check it); on any error raise
    BuildFailed and leave ``site/`` as it was. ``keep`` receives what a published build leaves in
    memory: with it, the site is loaded even when nothing changed (the dev server's first build).
    ``preview``: ``workers.render_first``. ``then_exit``: the process ends right after
    (``collector.leave_to_exit``)."""
    started = time.perf_counter()
    with BuildLock(project.root, on_wait), ExitStack() as until_the_end:
        # A build killed while publishing: finish or undo its work before judging anything from site/.
        publish.recover(project.site_dir)
        if publish_site:
            publish.check_site_folder(project.site_dir)
        last = manifest.Manifest.load(project) if publish_site else None
        # Looked at on the other core while this one walks the inputs and loads the site.
        site = until_the_end.enter_context(closing(manifest.SiteCheck(project.site_dir, last.written if last else {},
                                                                      fork=options.parallel)))
        inputs = manifest.input_states(project)  # before reading anything: an edit from now on is seen next time
        if keep is None and last is not None and last.unchanged(project, _recorded(options), inputs, site):
            return Outcome(last.pages, 0, time.perf_counter() - started, list(last.warnings), unchanged=True)

        build = _Build(project, options, inputs, site, publish_site, preview)
        if then_exit:
            collector.leave_to_exit(build)
        # What is loaded now lives to the end of the build: no collection while loading it, and
        # none that walks it afterwards (``collector``).
        with collector.paused():
            build.load()
            build.plan()
            until_the_end.enter_context(collector.frozen())
        try:
            build.render(progress)
            build.check()
            if publish_site:
                build.publish()
        except BaseException:
            build.discard()
            raise
        if publish_site:
            build.save()
            if keep is not None:
                keep(build.built())  # the dev server deletes what the build set aside once idle
            else:
                publish.remove_spent(project.site_dir)
        return build.outcome(time.perf_counter() - started)


def _recorded(options: Options) -> dict[str, Any]:
    """The options the manifest records: those that change the site (not how many cores built it)."""
    return asdict(options) | {"parallel": None}


class _Build:
    """One build's stages, in the order ``run`` calls them, and what each hands to the next."""

    def __init__(self, project: Project, options: Options, inputs: Snapshot, site: manifest.SiteCheck,
                 publish_site: bool, preview: Preview | None = None):
        self.project, self.options, self.inputs, self.site_check = project, options, inputs, site
        self.publishing, self.preview = publish_site, preview
        self.staging: Path | None = None  # made when rendering starts: a build that fails before leaves none
        self.timer = _StageTimer()

    def load(self) -> None:
        """Load and validate; then compile the templates, and when anything failed render every page
        in memory, so that one run reports every problem at once."""
        from gpuguide.render.renderer import PageRenderer
        from gpuguide.structure.loading import ContentCache

        project, publishing = self.project, self.publishing
        self.content_cache = ContentCache.load(project.cache_dir / "content.cache", code_version())
        site = self.site = load(project, self.options, self.content_cache, self.inputs, report_later=True)
        renderer = self.renderer = PageRenderer(site.dataset, site.library, site.languages, project.templates_dir,
                                                site.problems, project.cache_dir if publishing else None, code_version())
        before_templates = len(site.problems.errors)
        renderer.compile_templates({page.meta.layout for page in site.library.published})
        self.assets = publish.asset_files(project.assets_dir, project.root, site.problems)
        if site.problems.errors and len(site.problems.errors) == before_templates:
            report_page_problems(renderer, site)
        site.problems.raise_if_errors(self.options.strict)
        self.timer.done("load and validate")

    def plan(self) -> None:
        from gpuguide.build.page_cache import BuildCache
        from gpuguide.build.render_plan import RecordDigests, TemplateDigests, global_key, plan

        site, renderer = self.site, self.renderer
        shared = global_key(site.dataset, site.library, self.assets)
        publishing = self.publishing
        self.cache: BuildCache = BuildCache.load(self.project, shared) if publishing else BuildCache(shared)
        self.digests: RecordDigests = RecordDigests(site.dataset, site.library)
        templates = TemplateDigests(renderer.template_sources, renderer.template_references)
        self.work: Plan = plan(site.library.published, self.cache, templates, self.digests, self.site_check,
                               {lang: view.menu_digest for lang, view in renderer.views.items()}, reuse=publishing)
        self.timer.done(f"plan ({len(self.work.reused)} reusable, {len(self.work.respliced)} with a new menu)")

    def render(self, progress: Progress | None) -> None:
        from gpuguide.build.card_cache import FOLDER
        from gpuguide.build.link_check import parse_page
        from gpuguide.build.workers import render_first, render_pages, render_site_wide, resplice

        self.card_cache = self.project.cache_dir / FOLDER
        self.renderer.card_cache = self.card_cache if self.publishing else None
        self.staging = publish.staging_dir(self.project.site_dir) if self.publishing else None
        render_first(self.renderer, self.work.render, self.preview)
        self.rendered: dict[str, RenderedPage] = {page.output: page for page in [
            *render_pages(self.renderer, self.work.render, self.staging, progress, self.options.parallel,
                          self._known_files()),
            *resplice(self.renderer, self.work.respliced, self.project.site_dir, self.staging)]}
        self.site_wide, self.root_card = render_site_wide(self.renderer)
        self.site_wide_parsed = {output: parse_page(html, output) for output, html in self.site_wide.items()}
        self.timer.done(f"render {len(self.work.render)} pages, {len(self.work.respliced)} menus")

    def _known_files(self) -> set[str]:
        """The site's files known before rendering, which the link check takes as there: every
        published page (one that fails to render is reported on its own), the root page, the assets."""
        return {page.output_path for page in self.site.library.published} | {"index.html", *self.assets}

    def check(self) -> None:
        from gpuguide.build.link_check import check_build_links

        sources = {page.output_path: page.source_name for page in self.site.library.published}
        check_build_links(self.rendered, self.site_wide_parsed, self.work.reused, sources, set(self.assets),
                          self.site.problems)
        self.site.problems.raise_if_errors(self.options.strict)
        self.timer.done("check links")

    def publish(self) -> None:
        """Into site/: the pages rendered now, the kept pages' and cards' files left or linked again,
        the sitemap, the assets, the search index when a page changed (or site/ has none)."""
        from gpuguide.build.card_cache import BuildCards
        from gpuguide.build.render_plan import publish_mode
        from gpuguide.build.search import build_search_index
        from gpuguide.build.sitemap import site_files, sitemap_xml

        assert self.staging is not None
        project, site, work, config = self.project, self.site, self.work, self.site.dataset.config
        written = {output for output, page in self.rendered.items() if page.written}
        cards = self.cards = BuildCards(self.card_cache, [(output, self.rendered[output].card) for output in written],
                                        [("index.html", self.root_card)], work.reused)
        # The sitemap shows only what the global key covers (pages, URLs, translations, base URL).
        self.sitemap = self.cache.sitemap or sitemap_xml(site.library, config.base_url, list(config.languages))
        self.texts = {**self.site_wide, **site_files(self.sitemap, site.dataset)}
        self.entries = dict(work.reused)
        for output in written:
            self.entries[output] = self.rendered[output].entry(work.keys[output])
        index_search = self.options.search and (bool(self.rendered) or not (project.site_dir / "pagefind").is_dir())
        intact = self.site_check.as_written(cards.kept)
        cards.redraw_lost(intact)
        if publish_mode(work, len(written), len(site.library.published), index_search) == "update":
            self.known_states = intact  # untouched: still as the last build recorded them
            for output in publish.update_changed(self.staging, project.site_dir, written, self.texts,
                                                 {**self.assets, **cards.changed()}):
                stat = (project.site_dir / output).stat()  # same bytes: the old file stays, with its stat
                self.entries[output] = self.entries[output]._replace(size=stat.st_size, mtime_ns=stat.st_mtime_ns)
        else:
            def index(folder: Path) -> None:
                build_search_index(folder, site.problems)
                site.problems.raise_if_errors(self.options.strict)

            self.known_states = {}  # every card is linked again from the cache: its state is looked up
            publish.complete_and_swap(self.staging, project.site_dir, work.reused, self.texts, self.assets,
                                      index if index_search else None, cards.every_drawing(intact))
        self.timer.done("publish")

    def discard(self) -> None:
        if self.staging is not None:
            publish.discard(self.staging, self.project.site_dir)

    def save(self) -> None:
        """Remember what this build was made from, for the next one. The site is published: a cache
        that cannot be saved (a full disk) only means the next build is a full one."""
        project = self.project
        self.warnings = _warnings(self.site)
        try:
            self.cache.pages, self.cache.sitemap, self.cache.records = self.entries, self.sitemap, self.digests.table
            self.cache.save(project)
            self.content_cache.save(project.cache_dir / "content.cache", code_version())
            self.cards.prune()
            others = [*self.texts, *self.assets, *self.cards.published(),
                      *publish.search_files(project.site_dir, self.options.search)]
            written = manifest.written_files(project.site_dir, self.entries, others, self.known_states)
            manifest.Manifest(self.inputs, _recorded(self.options), written, self.pages(), self.warnings).save(project)
        except OSError as exc:
            shutil.rmtree(project.cache_dir, ignore_errors=True)  # no half-saved cache is trusted
            self.warnings.append(Problem(".build-cache", 1, 1, f"the build cache could not be saved ({exc.strerror}); "
                                         "the site is published, the next build will be a full one", None, "warning"))
        self.timer.done("save caches")

    def pages(self) -> int:
        """Files in the site: every published page, the root page and /404.html."""
        return len(self.site.library.published) + len(self.site_wide)

    def built(self) -> Built:
        return Built(self.site, self.renderer, self.entries, {*self.texts, *self.assets}, self.warnings)

    def outcome(self, seconds: float) -> Outcome:
        warnings = self.warnings if self.publishing else _warnings(self.site)
        return Outcome(self.pages(), len(self.rendered) + len(self.site_wide), seconds, warnings)


def _warnings(site: Site) -> list[Problem]:
    return sorted(set(site.problems.warnings))


class _StageTimer:
    """Logs how long each stage of a build took (``build.py --debug`` shows them)."""

    def __init__(self) -> None:
        self.last = time.perf_counter()

    def done(self, name: str) -> None:
        now = time.perf_counter()
        log.debug("%-22s %7.3f s", name, now - self.last)
        self.last = now
