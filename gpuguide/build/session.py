"""The dev server's builds: the site stays in memory between edits, so editing a page's text shows in
the browser at once, however large the site.

After a normal build (``pipeline.run``) the session keeps what it loaded: the dataset, the library,
the renderer with its compiled templates, and what the link check knows of every page. An edit
that changes only the Markdown body of published pages (not their front matter, not a generator
pattern, not the "not found" page) is then rebuilt here: the file is read again, its page
rendered, its links and the anchors other pages link to checked, its translation's freshness
checked, and the new HTML replaces the old file in ``site/`` (one rename: never half written).
No other page shows a page's body, so nothing else changes. Anything else (data, templates, front
matter, a new or deleted file) runs the normal build, which publishes atomically as always.

The build cache on disk is not updated by an edit rebuilt here: the next ``build.py`` sees the file
changed and renders that page again, so ``site/`` and the cache never disagree.
"""

from __future__ import annotations

import os
import time
from dataclasses import replace
from pathlib import Path
from typing import Callable

from gpuguide import atomic
from gpuguide.build import publish
from gpuguide.build.page_cache import LinkedPages, LinkRecord, PageEntry
from gpuguide.build.link_check import ParsedPage, check_links, written_page
from gpuguide.build.lock import BuildLock
from gpuguide.build.manifest import site_edit
from gpuguide.build.fingerprints import digest
from gpuguide.build.pipeline import Built, Options, Outcome, Site, run
from gpuguide.build.workers import Preview
from gpuguide.errors import BuildFailed, Problem, Problems
from gpuguide.project import Project
from gpuguide.render.reads import KEYS, Reads
from gpuguide.render.shell import record
from gpuguide.structure.library import Library
from gpuguide.structure.loading import read_page
from gpuguide.structure.pages import Page
from gpuguide.structure.shared_facts import take_facts
from gpuguide.structure.translation_status import check_translations


class DevSession:
    """Builds for ``serve``: the normal build, then edits of page text applied in memory."""

    def __init__(self, project: Project, options: Options, on_wait: Callable[[str], None] | None = None):
        self.project = project
        self.on_wait = on_wait  # told when another build holds the project
        # The dev server runs a session in its builder process, which has no threads: a normal
        # build may fork its workers there (``commands.serve_builder``).
        self.options = options
        self.built: Built | None = None
        # Which pages link to an anchor of each page (made at the first edit, kept up to date): an
        # edit checks those links, not the whole site's.
        self.anchor_links_to: dict[str, set[str]] | None = None
        # The pages ``warm`` rendered, for the figures of ``_warm_key``: a build that reloads the
        # same figures (a title, a template edited) resumes the warm, never starts it again.
        self._warm_key: str | None = None
        self._warmed: set[str] = set()
        self._keyed: object = None  # the dataset ``_warm_key`` was made from

    def build(self, changed: set[Path] | None = None, search: bool = False, preview: Preview | None = None) -> Outcome:
        """Rebuild after ``changed`` files (None: unknown, e.g. the first build); raise BuildFailed
        and leave ``site/`` as it was on any error. ``preview``: the pages open in the dev server,
        shown as soon as they are rendered when the normal build runs (``workers.render_first``);
        an edit of text, rebuilt here, is on screen sooner than that."""
        if changed and self.built is not None:
            outcome = self._edit(changed)
            if outcome is not None:
                return outcome
        self.built, self.anchor_links_to = None, None  # a failed build must not leave a stale state behind
        return run(self.project, replace(self.options, search=search), on_wait=self.on_wait, keep=self._keep,
                   preview=preview)

    def _keep(self, built: Built) -> None:
        self.built = built

    def warm(self, interrupted: Callable[[], bool]) -> None:
        """While the server waits for the next edit: compute, in this process and for nothing, the
        context of each page that reads a GPU's record or price (its figures, its tables, its body:
        not its HTML, a third of the time), until ``interrupted()``. Their figures (plans,
        bounds, answers: memoised by value) then sit in this process, and the next build's workers,
        forked from it, find them there: after a price edit they compute the changed GPU's only
        (the real site's price edit: 2.05 -> 1.41 s). Each page once for the same figures, across
        builds (``_figures_key``); nothing written."""
        from gpuguide.build.fingerprints import code_version
        from gpuguide.render.program_store import FOLDER as PROGRAMS, ProgramStore
        from gpuguide.render.renderer import PageRenderer

        built = self.built
        if built is None or interrupted():
            return
        if not publish.remove_spent(self.project.site_dir, interrupted):  # what the last build set aside
            return
        site = built.site
        if site.dataset is not self._keyed:  # a text edit keeps the dataset: no key to make again
            key, self._keyed = _figures_key(site), site.dataset
            if key != self._warm_key:
                self._warm_key, self._warmed = key, set()
        renderer = PageRenderer(site.dataset, site.library, site.languages, self.project.templates_dir,
                                Problems(self.project.root))
        # The programs the build kept, read (never pruned: a build may be writing beside it).
        renderer.programs = ProgramStore(self.project.cache_dir / PROGRAMS, code_version())
        try:
            for page in site.library.published:
                entry = built.entries.get(page.output_path)
                if entry is None or page.redirects or page.output_path in self._warmed or not any(
                        table in ("gpus", "prices") and key != KEYS for table, key in entry.reads):
                    continue
                if interrupted():
                    return
                renderer.context(page, Reads(), {})
                self._warmed.add(page.output_path)
        except Exception:  # noqa: BLE001  only a head start: the build itself reports any problem
            pass

    def _edit(self, changed: set[Path]) -> Outcome | None:
        """Rebuild text edits in memory; None when the edit needs the normal build."""
        built = self.built
        assert built is not None
        started = time.perf_counter()
        by_source = {os.path.normpath(page.source_name): page for page in built.site.library.published
                     if page.subject is None}
        content_dir = self.project.content_dir
        edits: list[tuple[Page, Page]] = []
        problems = Problems(self.project.root)
        for path in sorted(changed):
            old = by_source.get(os.path.normpath(path))
            if (old is None or path.suffix != ".md" or not path.is_file() or old.is_generator
                    or old.meta.layout == "not_found"):
                return None
            new = read_page(path, old.lang, content_dir, problems)
            source = built.site.library.translations.get(old.meta.translation_key, {}).get(
                built.site.dataset.config.default_language)
            if new is not None and source is not None and source is not old:
                take_facts(new, source, problems)  # a translation: the facts its source states
            problems.raise_if_errors(False)
            if new is None or new.meta_digest != old.meta_digest or new.folder != old.folder:
                return None  # the front matter shows on other pages (menus, lists, switchers): a full build
            if new.body_digest != old.body_digest:
                edits.append((old, new))
        # The edited pages and their translations: their freshness warnings are made again.
        affected = {os.path.normpath(page.source_name) for old, _ in edits
                    for page in built.site.library.translations.get(old.meta.translation_key, {}).values()}
        with BuildLock(self.project.root, self.on_wait):
            rendered = self._render(edits, problems, built)
        warnings = self._warnings(built, affected, problems)
        pages = len(built.entries) + len(built.others & {"index.html", "404.html"})
        return Outcome(pages, rendered, time.perf_counter() - started, warnings)

    def _render(self, edits: list[tuple[Page, Page]], problems: Problems, built: Built) -> int:
        renderer, library = built.renderer, built.site.library
        renderer.problems = problems  # this edit's problems only
        outputs: dict[str, bytes] = {}
        written: dict[str, ParsedPage] = {}  # what each page rendered now wrote: its ids and links
        link_lines: dict[str, dict[str, int]] = {}
        menus: dict[str, str] = {}
        for old, new in edits:
            old.take_text(new)  # the library's page object now holds the new text
            result = renderer.render(old)
            if result.html is not None and result.known is not None:
                outputs[old.output_path] = result.html.encode("utf-8")
                written[old.output_path] = written_page(result.known, old.output_path)
                link_lines[old.output_path] = result.link_lines
                menus[old.output_path] = record(renderer.views[old.lang].menu_digest, result.menu_spans)
            pair = [page for page in library.translations.get(old.meta.translation_key, {}).values()
                    if not page.meta.draft]
            check_translations(Library(tuple(pair)), built.site.dataset, problems)
        problems.raise_if_errors(self.options.strict)
        # Links: the edited pages' own, and every anchor link other pages make (a heading's id may have gone).
        parsed = LinkedPages(written, built.entries)
        sources = {page.output_path: page.source_name for page in library.published}
        if self.anchor_links_to is None:
            self.anchor_links_to = {}
            for output, entry in built.entries.items():
                self._index_anchor_links(output, entry.anchor_targets, add=True)
        linking = {source for output in outputs for source in self.anchor_links_to.get(output, ())}
        for output in linking - outputs.keys():
            if output in built.entries:
                link_lines[output] = built.entries[output].links.link_lines
        check_links(parsed, built.others, sources, problems, link_lines, only={*outputs, *linking})
        problems.raise_if_errors(self.options.strict)
        site = publish.site_folder(self.project.site_dir)
        with site_edit(self.project):
            for output, html in outputs.items():
                target = site / output
                atomic.write_bytes(target, html)  # readers see the old page or the new one, never half of it
                stat = target.stat()
                self._index_anchor_links(output, built.entries[output].anchor_targets, add=False)
                last = built.entries[output]
                links = LinkRecord.of(written[output], link_lines.get(output, {}), last.links.card)
                built.entries[output] = PageEntry.rendered(last.key, last.reads, stat.st_size, stat.st_mtime_ns,
                                                           links, menus[output])
                self._index_anchor_links(output, built.entries[output].anchor_targets, add=True)
        return len(outputs)

    def _index_anchor_links(self, output: str, targets: frozenset[str], add: bool) -> None:
        assert self.anchor_links_to is not None
        for target in targets:
            linking = self.anchor_links_to.setdefault(target, set())
            if add:
                linking.add(output)
            else:
                linking.discard(output)

    def _warnings(self, built: Built, edited: set[str], problems: Problems) -> list[Problem]:
        """The last build's warnings, those of the edited files replaced by this edit's."""
        root = self.project.root
        kept = [w for w in built.warnings if os.path.normpath(root / w.path) not in edited]
        built.warnings = sorted({*kept, *problems.warnings})
        return list(built.warnings)


def _figures_key(site: Site) -> str:
    """What the figures a page computes are made of: the records the pages read (GPUs, prices,
    models) and what every page depends on (``render_plan.global_key``), but no page's texts. Only
    ``warm`` uses it: a figure it failed to compute ahead is computed by the build."""
    from gpuguide.build.render_plan import RecordDigests, global_key
    from gpuguide.render.reads import ALL, TRACKED_TABLES

    records = RecordDigests(site.dataset, site.library).table
    return digest(global_key(site.dataset, site.library, ()), [records[(name, ALL)] for name in TRACKED_TABLES])


__all__ = ["BuildFailed", "DevSession"]
