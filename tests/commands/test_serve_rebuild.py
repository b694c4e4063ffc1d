"""The dev server's watch (``commands.serve_rebuild.DevServer.watch``), without HTTP or a builder."""

from __future__ import annotations

from pathlib import Path

import watchfiles

from gpuguide.commands import serve_rebuild
from gpuguide.commands.serve_rebuild import DevServer
from gpuguide.project import Project


def test_a_folder_vanishing_while_the_watch_is_set_up_does_not_end_the_watch(tiny: Path, monkeypatch):
    # watchfiles walks the whole project when it sets up its watch; a folder deleted meanwhile (what
    # the last build set aside, deleted once the builder is idle) made it raise, and the server went
    # on serving without ever rebuilding again.
    page = tiny / "content" / "en" / "index.md"
    setups: list[Path] = []

    def watch(root: Path, **options):
        setups.append(root)
        if len(setups) == 1:
            raise FileNotFoundError(2, "No such file or directory (os error 2)")
        yield {(watchfiles.Change.modified, str(page))}

    monkeypatch.setattr(serve_rebuild.watchfiles, "watch", watch)
    server = DevServer(Project(tiny))
    rebuilt: list[set[Path] | None] = []
    monkeypatch.setattr(server, "rebuild", lambda search=False, changed=None: rebuilt.append(changed))
    server.watch()
    assert setups == [tiny, tiny]
    assert rebuilt == [{page}]
