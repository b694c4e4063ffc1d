"""The dev server's rebuilds (``commands.serve``): watch the project's inputs, rebuild after each
batch of changes, and remember the outcome: the build generation the live-reload script waits on,
and the last build's problems, shown over every page (``error_overlay``) until they are fixed.

The pages readers have open (their live-reload script polls from them) are rendered first: their
new HTML is served from memory as soon as the builder has it (``workers.render_first``), until the
build ends and ``site/`` has them. A page that reloaded then is not reloaded again when the build
ends with the same page.
"""

from __future__ import annotations

import html
import os
import sys
import threading
import time
from pathlib import Path

import watchfiles

from gpuguide.build.pipeline import Options
from gpuguide.commands.serve_builder import BuilderDied, BuilderError, BuilderProcess
from gpuguide.errors import BuildFailed, Problem, plural
from gpuguide.project import Project

#: How long a live-reload request waits for a new build before answering "no change".
LONG_POLL_SECONDS = 20.0
#: A page is open while its script polls: each poll waits at most ``LONG_POLL_SECONDS``, then the next starts.
OPEN_FOR_SECONDS = LONG_POLL_SECONDS + 10
#: At most this many open pages are rendered first (a client cannot make the builder render the whole site first).
MOST_OPEN_PAGES = 32


class DevServer:
    """Rebuilds on change and remembers the outcome: the build generation and the last problems."""

    def __init__(self, project: Project, strict: bool = False):
        self.project = project
        self.strict = strict
        self.generation = 0
        self.problems: list[Problem] = []  # empty when the last build succeeded
        self.changed = threading.Condition()
        self._one_build = threading.Lock()  # the first build and the watch's: one at a time
        self.open_pages: dict[str, float] = {}  # output path → when its live-reload script last polled
        self.previews: dict[str, str] = {}  # output path → its new HTML, until the build ends
        self.stop = threading.Event()
        self.builder = BuilderProcess(project, Options(strict=strict, search=False), log)

    def rebuild(self, search: bool = False, changed: set[Path] | None = None) -> None:
        """Rebuild after ``changed`` files (None: unknown); on failure keep the last good site and
        remember why.

        The builder process (``commands.serve_builder``) keeps the site in memory: an edit of a
        page's text is rebuilt there in milliseconds, anything else runs the normal build, on every
        core. Rebuilds keep the last search index (``search=False``); the first build makes it.
        """
        with self._one_build:
            self._rebuild(search, changed)

    def _rebuild(self, search: bool, changed: set[Path] | None) -> None:
        started = time.perf_counter()
        try:
            outcome = self.builder.build(changed, search=search, open_pages=self._open(), show=self._show)
            problems: list[Problem] = []
            for warning in outcome.warnings:  # each in full, as the build command prints them
                log(str(warning))
            log(f"rebuilt {plural(outcome.pages, 'page')} in {time.perf_counter() - started:.2f} s "
                f"({outcome.rendered} rendered, {plural(len(outcome.warnings), 'warning')})")
        except BuildFailed as failure:
            problems = failure.problems
            log("\n".join(str(p) for p in problems))
            errors = sum(1 for p in problems if p.severity == "error")
            log(f"build failed: {plural(errors, 'error')}, {plural(len(problems) - errors, 'warning')}; "
                "still serving the last good site")
        except BuilderDied as exc:
            problems = [Problem("(generator)", 1, 1, str(exc), "save a file again to rebuild")]
            log(str(exc))
        except BuilderError as exc:  # a bug in the generator: keep serving, say what happened
            problems = [Problem("(generator)", 1, 1, f"internal error: {exc}",
                                "rerun `python build.py --debug` and report it")]
            log(exc.traceback_text)
        with self.changed:
            shown, open_pages = self.previews, set(self.open_pages)
        same = _published_as_shown(self.project.site_dir, shown, open_pages)  # files read without the lock
        with self.changed:
            self.previews = {}
            if problems or self.problems or not same:
                self.generation += 1
            self.problems = problems
            self.changed.notify_all()

    def page_open(self, output: str) -> None:
        """A live-reload script polls from the page at ``output`` (``en/gpu/index.html``)."""
        with self.changed:
            self.open_pages[output] = time.monotonic()
            if len(self.open_pages) > MOST_OPEN_PAGES:
                del self.open_pages[min(self.open_pages, key=self.open_pages.__getitem__)]

    def _open(self) -> frozenset[str]:
        with self.changed:
            now = time.monotonic()
            self.open_pages = {page: seen for page, seen in self.open_pages.items() if now - seen < OPEN_FOR_SECONDS}
            return frozenset(self.open_pages)

    def _show(self, pages: dict[str, str]) -> None:
        """The open pages' new HTML, rendered first: served now, and their readers reload."""
        with self.changed:
            self.previews = pages
            self.generation += 1
            self.changed.notify_all()

    def preview(self, output: str) -> str | None:
        """The new HTML of the open page at ``output``, rendered first, while the build goes on."""
        with self.changed:
            return self.previews.get(output)

    def watch(self) -> None:
        """Rebuild after each batch of changes to the inputs, until ``stop`` is set.

        The project folder is watched, not each input folder: a folder deleted and restored (a
        ``git checkout``) is watched again, since the watch is on its parent.
        """
        inputs = tuple(str(folder) + os.sep for folder in
                       (self.project.content_dir, self.project.data_dir, self.project.templates_dir))

        def is_input(change: watchfiles.Change, path: str) -> bool:
            return path.startswith(inputs) or path + os.sep in inputs

        while not self.stop.is_set():
            try:
                for changes in watchfiles.watch(self.project.root, watch_filter=is_input, debounce=50, step=25,
                                                stop_event=self.stop, raise_interrupt=False):
                    # Files only modified (not added or deleted): the session may rebuild them in memory.
                    modified = all(change == watchfiles.Change.modified for change, _ in changes)
                    self.rebuild(changed={Path(path) for _, path in changes} if modified else None)
                return
            except FileNotFoundError:
                # A folder vanished while the watch was being set up (it walks the whole project):
                # what the last build set aside, deleted once the builder is idle. Set it up again.
                self.stop.wait(0.05)

    def wait_for_change(self, since: str, timeout: float = LONG_POLL_SECONDS) -> int:
        """The build generation, as soon as it differs from ``since`` (or after ``timeout``)."""
        with self.changed:
            self.changed.wait_for(lambda: str(self.generation) != since, timeout=timeout)
            return self.generation

    def decorate(self, page: str) -> str:
        """A served HTML page plus the live-reload script and, after a failed build, the error overlay."""
        with self.changed:
            generation, problems = self.generation, list(self.problems)
        head = ('<link rel="stylesheet" href="/__livereload.css">'
                f'<script src="/__livereload.js" data-generation="{generation}" defer></script>')
        at = page.find("</head>")
        page = page[:at] + head + page[at:] if at >= 0 else head + page
        if problems:
            overlay = error_overlay(problems)
            at = page.rfind("</body>")
            page = page[:at] + overlay + page[at:] if at >= 0 else page + overlay
        return page


def _published_as_shown(site_dir: Path, shown: dict[str, str], open_pages: set[str]) -> bool:
    """Whether every open page was shown before the build ended, as ``site_dir`` now has it: no
    reader needs to reload again."""
    if not shown or not open_pages <= shown.keys():
        return False
    for output, html in shown.items():
        try:
            if (site_dir / output).read_text(encoding="utf-8") != html:
                return False
        except (OSError, UnicodeDecodeError):
            return False
    return True


def error_overlay(problems: list[Problem]) -> str:
    """The problems of the failed build, escaped, as a fixed panel over the page."""
    items = "".join(f"<li>{html.escape(str(problem))}</li>" for problem in problems)
    return (f'<div id="gpuguide-build-error" role="alert"><h2>The last build failed: the page shows the '
            f'last good site. Fix these and save:</h2><ol>{items}</ol></div>')


def log(message: str) -> None:
    """One line for the person running the server, on standard error at once."""
    print(message, file=sys.stderr, flush=True)
