"""Shared fixtures: a copy of the project built into a temporary folder, served over HTTP, and Chromium."""

from __future__ import annotations

import functools
import http.server
import shutil
import threading
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from gpuguide.build.pipeline import Options, run
from gpuguide.project import Project

ROOT = Path(__file__).resolve().parent.parent
SEEDS = ROOT / "tests" / "reference"  # copies of shared/seeds/
CHROMIUM = "/usr/bin/chromium"


SCALED_GPUS = 40  # the scaled dataset: the real GPUs and synthetic ones up to this many


def copy_project(destination: Path) -> Path:
    """A copy of the project's inputs (content, data, templates), to build or break."""
    for part in ("content", "data", "templates"):
        shutil.copytree(ROOT / part, destination / part)
    return destination


@pytest.fixture(scope="session")
def built_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real project built once for the whole session; returns its ``site/`` folder."""
    project = Project(copy_project(tmp_path_factory.mktemp("project")))
    run(project)
    return project.site_dir


@pytest.fixture(scope="session")
def built_scaled_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real site with synthetic GPUs up to SCALED_GPUS (bench/corpus.py's scaled dataset: every
    interconnect topology, FP8 not supported, FP64 as a share of FP32, tied prices), built once."""
    import sys

    sys.path.insert(0, str(ROOT))
    from bench.corpus import write_scaled

    root = tmp_path_factory.mktemp("scaled") / "project"
    write_scaled(root, SCALED_GPUS)
    project = Project(root)
    run(project, Options(search=False))
    return project.site_dir


@pytest.fixture(scope="session")
def read_page(built_site: Path):
    """Parse a built page with a real HTML parser (lxml)."""

    @functools.cache
    def read(relative: str) -> BeautifulSoup:
        return BeautifulSoup((built_site / relative).read_text(encoding="utf-8"), "lxml")

    return read


@pytest.fixture(scope="session")
def site_url(built_site: Path):
    """The built site served on 127.0.0.1 by a real HTTP server, for the browser tests."""
    handler = functools.partial(_QuietHandler, directory=str(built_site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict) -> dict:
    """pytest-playwright launches Debian's Chromium: Playwright cannot download browsers here."""
    return {
        **browser_type_launch_args,
        "executable_path": CHROMIUM,
        "args": ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"],
    }
