"""The dev server's builder process: builds as the session does, in a process without threads that
may fork its workers; its failures reach the server as they would in-process, and a builder that
dies is replaced at the next build."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from gpuguide.build.pipeline import Options
from gpuguide.commands.serve_builder import BuilderDied, BuilderProcess
from gpuguide.errors import BuildFailed
from gpuguide.project import Project
from sites import edit

GUIDE_EN = Path("content/en/guides/first-guide.md")


@pytest.fixture
def builder(tiny: Path):
    process = BuilderProcess(Project(tiny), Options(search=False), log=lambda message: None)
    yield process
    process.close()


def test_the_builder_builds_and_keeps_the_site_in_memory_between_edits(tiny: Path, builder: BuilderProcess):
    first = builder.build()
    assert first.rendered == first.pages and (tiny / "site" / "en" / "index.html").is_file()
    pid = builder._process.pid if builder._process else None
    edit(tiny / GUIDE_EN, "A short guide.\n\n## Memory", "A short guide. Edited in the builder.\n\n## Memory")
    second = builder.build({tiny / GUIDE_EN})
    assert second.rendered == 1  # the session's in-memory edit, not a new build
    assert "Edited in the builder." in (tiny / "site" / "en" / "guides" / "first-guide" / "index.html").read_text(encoding="utf-8")
    assert builder._process is not None and builder._process.pid == pid  # the same process kept it


def test_a_failed_build_reaches_the_server_with_its_problems(tiny: Path, builder: BuilderProcess):
    builder.build()
    prices = tiny / "data" / "prices.yaml"
    prices.write_text(prices.read_text(encoding="utf-8") + "\n  : [unclosed\n", encoding="utf-8")
    with pytest.raises(BuildFailed) as failure:
        builder.build()
    assert any(problem.path.endswith("prices.yaml") for problem in failure.value.problems)


def test_a_builder_that_dies_is_reported_and_replaced(tiny: Path, builder: BuilderProcess):
    builder.build()
    assert builder._process is not None and builder._process.pid is not None
    os.kill(builder._process.pid, signal.SIGKILL)
    builder._process.join(10)
    with pytest.raises(BuilderDied, match="the next change rebuilds"):
        builder.build()
    again = builder.build()  # a new builder, from scratch
    assert again.pages > 0 and (tiny / "site" / "en" / "index.html").is_file()
