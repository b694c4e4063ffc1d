"""The dev server's builds, in a process of their own.

The server has threads (one per client, the watcher), and a process with threads must not fork:
a lock another thread held at that moment stays held forever in the child. So the server renders
nothing itself. It starts one builder process fresh (``spawn``: a new interpreter, no threads),
which keeps the session (``build.session``: the site in memory between edits) and builds as
``build.py`` does, forking its workers to render on every core. The server sends it each batch of
changed files, with the pages readers have open, and waits for the outcome: the same ``Outcome``,
or the same ``BuildFailed``; before it, the open pages' new HTML when the build renders them.
"""

from __future__ import annotations

import multiprocessing as mp
import traceback
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Callable

from gpuguide.build.pipeline import Options, Outcome
from gpuguide.errors import BuildFailed, Problem
from gpuguide.project import Project


class BuilderDied(RuntimeError):
    """The builder process ended (killed, out of memory): a new one is started for the next build."""


class BuilderError(RuntimeError):
    """A bug in the generator, raised in the builder process: its traceback, as text."""

    def __init__(self, traceback_text: str):
        self.traceback_text = traceback_text
        super().__init__(traceback_text.strip().splitlines()[-1])


class BuilderProcess:
    """``DevSession.build`` run in the builder process; started at the first build."""

    def __init__(self, project: Project, options: Options, log: Callable[[str], None]):
        self.project, self.options, self.log = project, options, log
        self._connection: Connection | None = None
        self._process: mp.process.BaseProcess | None = None

    def build(self, changed: set[Path] | None = None, search: bool = False, open_pages: frozenset[str] = frozenset(),
              show: Callable[[dict[str, str]], None] | None = None) -> Outcome:
        """Rebuild after ``changed`` files (None: unknown); raise ``BuildFailed`` as the build does,
        ``BuilderError`` on an internal error. ``show`` is given the new HTML of the ``open_pages``
        (output paths) as soon as the builder has them, before the build ends (``workers.Preview``)."""
        connection = self._start()
        try:
            connection.send((changed, search, open_pages if show is not None else frozenset()))
            kind, value = connection.recv()
            while kind == "preview":
                if show is not None:
                    show(value)
                kind, value = connection.recv()
        except (EOFError, OSError):
            self.close()  # its in-memory site is gone with it: the next build starts a new one
            raise BuilderDied("the builder process ended during the build; the next change rebuilds") from None
        if kind == "failed":
            raise BuildFailed(value)
        if kind == "error":
            raise BuilderError(value)
        return value

    def close(self) -> None:
        """End the builder: it sees the connection closed, and stops (killed if a build holds it)."""
        if self._connection is not None:
            self._connection.close()
        if self._process is not None:
            self._process.join(5)
            if self._process.is_alive():
                self._process.kill()
        self._connection, self._process = None, None

    def _start(self) -> Connection:
        if self._connection is None:
            ours, theirs = mp.Pipe()
            process = mp.get_context("spawn").Process(target=_serve_builds, args=(theirs, self.project, self.options),
                                                      name="gpuguide-builder")  # not a daemon: it forks workers
            process.start()
            theirs.close()
            self._connection, self._process = ours, process
        return self._connection


def _serve_builds(connection: Connection, project: Project, options: Options) -> None:
    """The builder process: one build per request, until the server closes the connection."""
    from gpuguide.build.session import DevSession
    from gpuguide.build.workers import Preview
    from gpuguide.commands.serve_rebuild import log
    from gpuguide.processes import die_with_parent

    die_with_parent()
    session = DevSession(project, options, on_wait=log)
    try:
        while True:
            session.warm(interrupted=connection.poll)  # idle: the next build's figures, until a request
            try:
                changed, search, open_pages = connection.recv()
            except EOFError:
                return
            reply: tuple[str, Outcome | list[Problem] | str]
            preview = Preview(open_pages, lambda pages: connection.send(("preview", pages)))
            try:
                reply = ("ok", session.build(changed, search=search, preview=preview))
            except BuildFailed as failure:
                reply = ("failed", failure.problems)
            except Exception:  # noqa: BLE001  a bug in the generator: the server says so and keeps serving
                reply = ("error", traceback.format_exc())
            connection.send(reply)
    except KeyboardInterrupt:  # Ctrl-C reaches the whole process group: the server says "stopped"
        return
